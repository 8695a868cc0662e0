# coarsen on cupy with the host threshold swept: median wall of synchronised calls, H100
import sys, time, cupy, numpy as np, cupyx.scipy.sparse as cs, gbgraph as gg
from gbgraph.generators import laplace3d
from gbgraph.algorithms import coarsen as C
sync = cupy.cuda.Device().synchronize
for size in (100, 200):
    G = gg.as_graph(cs.csr_matrix(laplace3d(size).astype(np.float64)))
    for method in ("hec", "mis2"):
        for _ in range(2): gg.coarsen(G, method)  # numba compiles
        row = []
        for rep in range(2):
          for t in (-1, 1 << 14, 1 << 15, 1 << 16, 1 << 17, 1 << 18, 1 << 19):
            C.HOST_LEVEL_ENTRIES = t
            gg.coarsen(G, method); sync()
            ts = []
            for _ in range(7):
                s = time.perf_counter(); h = gg.coarsen(G, method); sync(); ts.append(time.perf_counter() - s)
            # throughput too: 7 back to back
            s = time.perf_counter()
            for _ in range(7): h = gg.coarsen(G, method)
            sync(); tp = (time.perf_counter() - s) / 7
            row.append(f"{t:>7}: {sorted(ts)[3]*1e3:6.2f}/{tp*1e3:6.2f}")
        print(f"{method} {size}³ levels {[l.n for l in h]}", flush=True)
        for k in range(0, len(row), 7): print("   " + "  ".join(row[k:k + 7]), flush=True)

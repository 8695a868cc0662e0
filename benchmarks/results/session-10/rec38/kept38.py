"""Buffers kept between calls (program._KEPT_MOST) against none, alternated in one process,
Laplace3D prepared on the GPU: CUDA-event medians, and MIS-2's high-water per vertex with
the kept buffers counted (cleared before the measured call).

    python kept38.py [SIZE ...]
"""
import sys

import cupy
import cupyx.scipy.sparse as csp
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.backends.cupy import program
from gbgraph.generators import laplace3d

sys.path.insert(0, "benchmarks")
from bench_gpu import gpu_ms, high_water  # noqa: E402

CALLS = {"mis2": lambda G: gg.mis2(G, backend="cupy"),
         "aggregate": lambda G: gg.aggregate(G, backend="cupy"),
         "color": lambda G: gg.color(G, backend="cupy")}


def counted(fn):
    program._KEPT.clear()
    return high_water(fn)


for size in [int(x) for x in sys.argv[1:]] or [100]:
    G = gg.as_graph(csp.csr_matrix(sp.csr_matrix(laplace3d(size))), weights=False)
    n = G.n
    for kept in (2, 0, 2, 0):
        program._KEPT_MOST = kept
        program._KEPT.clear()
        times = {name: gpu_ms(lambda: call(G), 21, 3) for name, call in CALLS.items()}
        print(f"{size}^3 kept={kept}: " + ", ".join(f"{k} {v:.3f} ms" for k, v in times.items()), flush=True)
    program._KEPT_MOST = 2
    print(f"{size}^3 MIS-2 high-water: kept buffers counted {counted(lambda: CALLS['mis2'](G)) / n:.1f} B/v, "
          f"kept not counted {high_water(lambda: CALLS['mis2'](G)) / n:.1f} B/v; "
          f"held between calls {sum(sum(a.nbytes for a in x) for p in program._KEPT.values() for x in [[b for vs, ps in p[1][0] for b in {id(v): v for v in vs + ps}.values()] + p[1][1]]) / n:.1f} B/v", flush=True)

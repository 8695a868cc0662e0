"""gg.partition(A, k)'s PartitionResult.seconds (wall, ms) on one thread, the faster of two runs
after a warm-up, k = 2 and 8, with the run's CPU time:

    NUMBA_NUM_THREADS=1 python phases.py ../shared/data laplace3d:100 coAuthorsDBLP mdual delaunay_n17 c-55
"""

import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402

gg.backends.set_threads(1)
data = pathlib.Path(sys.argv[1])
for name in sys.argv[2:]:
    A = largest_component(matrix(name if name.startswith("laplace") else str(data / f"{name}.mtx.gz")))
    G = gg.as_graph(A)
    for k in (2, 8):
        gg.partition(G, k)
        best = None
        for _ in range(2):
            start = time.process_time()
            r = gg.partition(G, k)
            cpu = time.process_time() - start
            if best is None or cpu < best[0]:
                best = (cpu, r.seconds)
        print(f"{name:16s} k={k} cpu {1e3 * best[0]:7.0f} ms | "
              + " ".join(f"{phase} {1e3 * s:6.0f}" for phase, s in best[1].items()), flush=True)

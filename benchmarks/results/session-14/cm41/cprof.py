"""cProfile of gg.partition(A, k) (the second of two runs, one thread): the functions by own
time, for telling Python per-call costs from compiled kernels. Run from the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python \
        benchmarks/results/session-14/cm41/cprof.py cond-mat-2005 8 [rows] [tottime|cumulative]
"""

import cProfile
import pathlib
import pstats
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402

name, k = sys.argv[1], int(sys.argv[2])
rows = int(sys.argv[3]) if len(sys.argv) > 3 else 45
gg.backends.set_threads(1)
G = gg.as_graph(largest_component(matrix(f"/work/shared/data/{name}.mtx.gz")))
gg.partition(G, k)
times = []
for _ in range(5):
    start = time.process_time()
    gg.partition(G, k)
    times.append(time.process_time() - start)
print(f"{name} k={k}: CPU ms, 5 runs: {' '.join(f'{1e3 * t:.1f}' for t in times)}")
prof = cProfile.Profile()
prof.enable()
gg.partition(G, k)
prof.disable()
stats = pstats.Stats(prof).stats
order = sorted(stats.items(), key=lambda item: -item[1][2 if len(sys.argv) <= 4 or sys.argv[4] == "tottime" else 3])
print(f"{'calls':>7} {'own us':>8} {'total us':>9}  function")
for (path, line, func), (_, calls, own, total, _) in order[:rows]:
    print(f"{calls:7d} {1e6 * own:8.0f} {1e6 * total:9.0f}  {pathlib.Path(path).name}:{line}({func})")

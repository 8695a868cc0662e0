"""Where the coarsest graph's recursive bisection (refine_kway._initial) spends its CPU time
at k = 8 (issue 40, session 13, kway40d): partition.py's steps wrapped with
time.process_time (the bisections' hierarchies, their grown starts, their FM levels), the
second of two runs. Run from the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-13/kway40d/initial_phases.py c-55
"""

import collections
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402
from gbgraph.algorithms import partition as P, refine_kway as K  # noqa: E402

SPENT = collections.defaultdict(float)
CALLS = collections.defaultdict(int)


def wrap(module, name, label):
    inner = getattr(module, name)

    def timed(*args, **kwargs):
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            SPENT[label] += time.process_time() - start
            CALLS[label] += 1
    setattr(module, name, timed)


wrap(P, "coarsen", "bisection hierarchies")
wrap(P, "initial_bisection", "grown starts")
wrap(P, "refine_projected", "bisection FM")
wrap(P, "multilevel_bisection", "bisections")
wrap(K, "_initial", "initial k parts")
gg.backends.set_threads(1)
for name in sys.argv[1:] or ["cond-mat-2005", "coAuthorsDBLP", "delaunay_n15", "c-55", "usroads", "pgp-strong-2009"]:
    G = gg.as_graph(largest_component(matrix(f"/work/shared/data/{name}.mtx.gz")))
    gg.partition(G, 8)
    SPENT.clear()
    CALLS.clear()
    start = time.process_time()
    gg.partition(G, 8)
    total = time.process_time() - start
    print(f"{name:<21} total {1e3 * total:6.1f} ms | "
          + " | ".join(f"{x} {1e3 * v:5.1f} ({CALLS[x]})" for x, v in SPENT.items()), flush=True)

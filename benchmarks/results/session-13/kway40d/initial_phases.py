"""Where the coarsest graph's recursive bisection (refine_kway._initial) spends its CPU time
at k = 8 (issue 40, session 13, kway40d): partition.py's steps wrapped with
time.process_time (the bisections' hierarchies, their grown starts, their FM levels), the
second of two runs. Run from the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-13/kway40d/initial_phases.py c-55
"""

import importlib.util
import pathlib
import sys
import time

spec = importlib.util.spec_from_file_location("profile13", pathlib.Path(__file__).resolve().with_name("profile.py"))
profile13 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(profile13)  # puts benchmarks/ on the path
gg, largest_component, matrix, P, K = (profile13.gg, profile13.largest_component, profile13.matrix, profile13.P,
                                       profile13.K)
SPENT, CALLS, wrap = profile13.SPENT, profile13.CALLS, profile13.wrap
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

"""Where gg.partition(A, k)'s default spends its CPU time (issue 40, session 11): one timed
run (time.process_time), then a cProfile run with process_time as its clock, whose cumulative
seconds of a few phases are printed (the profiler inflates the Python-heavy ones). Run from
the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-11/init40/phases.py
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

#: phase -> (file, function): cumulative CPU time of the function, over all its calls
PHASES = {"hierarchies": ("coarsen.py", "coarsen"), "HEC": ("heavy.py", "capped_hec"),
          "coarse graphs": ("coarse.py", "_coarse_by_rows"), "grown starts": ("initial.py", "_best_grown"),
          "bisection FM": ("refine_fm.py", "_repair_and_refine"), "k-way FM": ("refine_kway.py", "kway_fm"),
          "induced subgraphs": ("partition.py", "_induced")}


def seconds(stats, file, function):
    return sum(v[3] for (f, _, fn), v in stats.items() if f.endswith(file) and fn == function)


gg.backends.set_threads(1)
data = "/work/shared/data/"
for name in sys.argv[1:] or ["coAuthorsDBLP", "delaunay_n17", "usroads", "c-55", "debian_bookworm_deps",
                             "cond-mat-2005", "delaunay_n15", "rgg_n_2_15_s0"]:
    A = largest_component(matrix(data + name + ".mtx.gz"))
    G = gg.as_graph(A)
    for k in (2, 8):
        gg.partition(G, k)
        start = time.process_time()
        gg.partition(G, k)
        total = time.process_time() - start
        profile = cProfile.Profile(time.process_time)
        start = time.process_time()
        profile.runcall(gg.partition, G, k)
        profiled = time.process_time() - start
        stats = pstats.Stats(profile).stats
        line = f"{name:<21} k={k} cpu {1e3 * total:5.0f} ms, profiled {1e3 * profiled:5.0f}"
        for phase, where in PHASES.items():
            line += f" | {phase} {1e3 * seconds(stats, *where):.0f}"
        print(line, flush=True)

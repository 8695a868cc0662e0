"""Where gg.partition(A, 8)'s default (direct k-way, host k-way FM) spends its CPU time: a
cProfile run with time.process_time as its clock, cumulative seconds of the phases. Run from
the repository root: NUMBA_NUM_THREADS=1 python benchmarks/results/session-10/partition/phases.py"""

import cProfile
import pathlib
import pstats
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402

#: phase -> (file, function[, calling function]): cumulative CPU time of the function (as
#: called from the caller, if given).
PHASES = {"hierarchy": ("coarsen.py", "coarsen", "kway_partition"),
          "coarsest k parts": ("refine_kway.py", "_initial"),
          "FM passes": ("refine_kway.py", "_kway_pass"),
          "rebalancing": ("refine_kway.py", "_kway_rebalance"),
          "level cuts": ("refine_kway.py", "_kway_cut"),
          "host graphs": ("partition.py", "host_graph"),
          "projections": ("partition.py", "project"),
          "final cut": ("partition.py", "_cut")}


def seconds(stats, file, function, caller=None):
    total = 0.0
    for (f, _, fn), (_, _, _, cumulative, callers) in stats.items():
        if f.endswith(file) and fn == function:
            total += cumulative if caller is None else sum(v[3] for (_, _, c), v in callers.items() if c == caller)
    return total


gg.backends.set_threads(1)
for spec in sys.argv[1:] or ["laplace3d:100", "/work/shared/data/coAuthorsDBLP.mtx.gz",
                             "/work/shared/data/delaunay_n17.mtx.gz", "/work/shared/data/c-55.mtx.gz"]:
    A = largest_component(matrix(spec))
    G = gg.as_graph(A)
    gg.partition(G, 8)
    profile = cProfile.Profile(time.process_time)
    start = time.process_time()
    profile.runcall(gg.partition, G, 8)
    total = time.process_time() - start
    stats = pstats.Stats(profile).stats
    line = f"{pathlib.Path(spec).name.removesuffix('.mtx.gz'):<16} k=8 cpu {1e3 * total:6.0f} ms (profiled)"
    for name, where in PHASES.items():
        line += f" | {name} {1e3 * seconds(stats, *where):.0f}"
    print(line, flush=True)

"""CPU time of gg.partition(G, k) repeated in one process, for the tree on PYTHONPATH: one
untimed call, then ``--reps`` timed ones; prints one JSON line per (graph, k) with the
minimum and the median (time.process_time, seconds) and the least of the result's "refine"
seconds (the refinement phase's wall time). One thread; run alternately per tree.

    PYTHONPATH=<tree> python repeat.py --reps 7 laplace3d:100 /work/shared/data/c-55.mtx.gz
"""

import argparse
import json
import pathlib
import statistics
import sys
import time

BENCH = pathlib.Path(__file__).resolve().parents[3]  # benchmarks/
sys.path.insert(0, str(BENCH))

import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402

parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
parser.add_argument("graphs", nargs="+")
parser.add_argument("--reps", type=int, default=7)
parser.add_argument("--k", nargs="*", type=int, default=[2, 8])
args = parser.parse_args()
gg.backends.set_threads(1)
for spec in args.graphs:
    G = gg.as_graph(largest_component(matrix(spec)))
    for k in args.k:
        gg.partition(G, k)
        times, refine = [], []
        for _ in range(args.reps):
            t = time.process_time()
            result = gg.partition(G, k)
            times.append(time.process_time() - t)
            refine.append(result.seconds["refine"])
        print(json.dumps({"graph": pathlib.Path(spec).name.removesuffix(".mtx.gz"), "k": k,
                          "min_s": round(min(times), 4), "median_s": round(statistics.median(times), 4), "refine_min_s": round(min(refine), 4)}), flush=True)

"""Per-phase CPU profile of gg.partition(A, 8)'s default (direct k-way) on one thread
(issue 40, session 13, kway40d): the k-way path's steps wrapped with time.process_time
(hierarchy, coarsest partition, k-way FM per level, projection, final), the median of
``--runs`` runs. Run from the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-13/kway40d/profile.py
"""

import argparse
import collections
import pathlib
import statistics
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


def main():
    wrap(K, "coarsen", "hierarchy")
    wrap(K, "_initial", "initial")
    wrap(K, "kway_fm", "kway_fm")
    wrap(P, "host_graph", "host_graph")
    wrap(P, "project", "project")
    wrap(P, "_cut", "final cut")
    wrap(P, "_level_weights", "level weights")
    parser = argparse.ArgumentParser()
    parser.add_argument("graphs", nargs="*", default=["debian_bookworm_deps", "c-55", "cond-mat-2005", "coAuthorsDBLP",
                                                      "delaunay_n15", "usroads", "pgp-strong-2009", "mdual"])
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    gg.backends.set_threads(1)
    labels = ["hierarchy", "initial", "kway_fm", "host_graph", "project", "level weights", "final cut"]
    print(f"{'graph':<21} {'total':>7} " + " ".join(f"{x:>13}" for x in labels) + "   rest  (ms, CPU, median)")
    for name in args.graphs:
        A = largest_component(matrix(f"/work/shared/data/{name}.mtx.gz"))
        G = gg.as_graph(A)
        gg.partition(G, args.k)
        rows = collections.defaultdict(list)
        for _ in range(args.runs):
            SPENT.clear()
            CALLS.clear()
            start = time.process_time()
            r = gg.partition(G, args.k)
            rows["total"].append(time.process_time() - start)
            for x in labels:
                rows[x].append(SPENT[x])
        med = {x: 1e3 * statistics.median(v) for x, v in rows.items()}
        rest = med["total"] - sum(med[x] for x in labels)
        print(f"{name:<21} {med['total']:7.1f} " + " ".join(f"{med[x]:7.1f} ({CALLS[x]:>3})" for x in labels)
              + f" {rest:6.1f}  levels {len(r.levels)} coarsest {r.levels[-1]} cut {r.cut}", flush=True)


if __name__ == "__main__":
    main()

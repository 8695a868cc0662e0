"""CPU profile of k-way FM inside gg.partition(A, 8)'s default on one thread (issue 40,
session 14, kway41): kway_fm's kernels wrapped with time.process_time per level, median of
``--runs`` runs. From the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python \
        benchmarks/results/session-14/kway41/profile_fm.py coAuthorsDBLP
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
from gbgraph.algorithms import refine_kway as K  # noqa: E402

SPENT = collections.defaultdict(float)
CALLS = collections.defaultdict(int)
LEVEL = [0]


def wrap(name, label, per_level=True):
    inner = getattr(K, name)

    def timed(*args, **kwargs):
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            key = f"{label}@{LEVEL[0]}" if per_level else label
            SPENT[key] += time.process_time() - start
            CALLS[key] += 1
    setattr(K, name, timed)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("graphs", nargs="*", default=["coAuthorsDBLP", "usroads"])
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    inner_fm = K.kway_fm

    def fm(hg, *a, **kw):
        LEVEL[0] = hg.n
        return inner_fm(hg, *a, **kw)
    K.kway_fm = fm
    wrap("kway_fm", "kway_fm")
    for name in ("_kway_rebalance", "_kway_pass", "_kway_local", "_near", "_find_boundary"):
        wrap(name, name)
    gg.backends.set_threads(1)
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
            for x in list(SPENT):
                rows[x].append(SPENT[x])
        print(f"{name}: cut {r.cut} levels {r.levels}; ms CPU, median of {args.runs} (calls)")
        for x, v in sorted(rows.items(), key=lambda kv: kv[0]):
            print(f"  {x:<32} {1e3 * statistics.median(v):8.1f} ({CALLS.get(x, 1)})")


if __name__ == "__main__":
    main()

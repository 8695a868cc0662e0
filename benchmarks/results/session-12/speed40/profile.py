"""Where gg.partition(A, 2)'s default spends its CPU time, per phase and level (issue 40,
session 12, speed40): the partitioner's steps wrapped with time.process_time (no profiler),
medians over rounds after an untimed run. Run from the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD \
        python benchmarks/results/session-12/speed40/profile.py [k] [graphs]
"""

import collections
import pathlib
import statistics
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from gbgraph.algorithms import coarsen as C, partition as P  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402

spent = collections.defaultdict(float)


def timed(module, name, phase):
    """Wrap module.name so that its CPU time adds to spent[phase(args)]."""
    inner = getattr(module, name)

    def wrapper(*args, **kwargs):
        start = time.process_time()
        try:
            return inner(*args, **kwargs)
        finally:
            spent[phase(*args)] += time.process_time() - start

    setattr(module, name, wrapper)


def level(n):
    return "input" if n == current["n"] else "coarse"


current = {"n": 0}
timed(C, "map_vertices", lambda be, graph, *a: f"HEC mapping, {level(graph.n)} level")
timed(C, "_coarse_level", lambda be, graph, *a: f"coarse graph, {level(graph.n)} level")
timed(P, "initial_bisection", lambda *a: "initial bisections (8 grown starts)")
timed(P, "refine_projected" if hasattr(P, "refine_projected") else "refine_level",  # this branch / 6bc62d6
      lambda hg, *a: f"FM, {level(hg.n)} level")
timed(P, "coarsen", lambda *a: "hierarchies (all)")
timed(P, "_cut", lambda *a: "final cut")
k = int(sys.argv[1]) if len(sys.argv) > 1 else 2
gg.backends.set_threads(1)
for name in sys.argv[2:] or ["c-55", "cond-mat-2005", "pgp-strong-2009", "debian_bookworm_deps", "coAuthorsDBLP",
                             "usroads", "usroads-48", "delaunay_n15", "rgg_n_2_15_s0"]:
    G = gg.as_graph(largest_component(matrix(f"/work/shared/data/{name}.mtx.gz")))
    current["n"] = G.n
    gg.partition(G, k)
    rounds = []
    for _ in range(5):
        spent.clear()
        start = time.process_time()
        gg.partition(G, k)
        spent["total"] = time.process_time() - start
        rounds.append(dict(spent))
    med = {p: statistics.median(r.get(p, 0.0) for r in rounds) for p in rounds[0]}
    other = med["total"] - med["hierarchies (all)"] - sum(v for p, v in med.items() if p.startswith(("FM", "initial",
                                                                                                    "final")))
    print(f"{name} (n = {G.n:,}) k = {k}: total {1e3 * med['total']:.1f} ms")
    for p in sorted(med):
        if p != "total":
            print(f"    {p:<40} {1e3 * med[p]:7.1f} ms  {100 * med[p] / med['total']:4.0f}%")
    rest = "rest (Python, checks, projections, keys)"
    print(f"    {rest:<40} {1e3 * other:7.1f} ms  {100 * other / med['total']:4.0f}%", flush=True)

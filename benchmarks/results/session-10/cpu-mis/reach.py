"""Issue 39: would aggregation's second MIS-2 gain from a column worklist started at the
candidates' neighbourhoods (``reach = candidates ⊕any.first A``) instead of every row?

In one process, numba backend, one thread, thread CPU time: the second MIS-2 of
``aggregate`` as it is (column worklist of round 0: every row) against the same rounds with
the levels started at OUT and round 0's column worklist the reach of the candidates (exact:
a column outside it has only OUT in its ball), alternated call by call, both checked equal;
and the parts: the push that makes the reach, round 0's column pass over every row and over
the reach. Prints minimum (median) ms and the load average.

usage: PYTHONPATH=<tree> python reach.py GRAPH [--repeat 9]
"""
import json, os, sys, time

import numba, numpy as np

numba.set_num_threads(1)
import gbgraph as gg
from gbgraph.algorithms import mis
from gbgraph.hashing import Packing
from phase1 import candidates

gg.backends.set_threads(1)


def reach_start(be, graph, bits, max_iter, candidates):
    """mis._rounds for k = 2 with candidates, round 0's column worklist their reach."""
    n = graph.n
    statuses = Packing(n, bits, be.xp)
    A = be.adjacency(graph, closed=True)
    T = be.full(n, statuses.OUT, statuses.dtype)
    levels = [be.full(n, statuses.OUT, statuses.dtype)]
    reach = be.vxm("any_first", candidates, A)  # reach = candidates ⊕any.first A
    return mis._refreshed_rounds(be, A, T, levels, candidates, [reach], statuses, max_iter)


def main():
    spec = sys.argv[1]
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 9
    be, G, bits, Ac, free = candidates(spec)
    n = G.n
    reach = be.vxm("any_first", free, Ac)
    every = be.full(n, True, "bool")
    T = be.full(n, 5, "int32")
    calls = {"second MIS-2 as is": lambda: mis._mis2(be, G, bits, n + 1, candidates=free),
             "second MIS-2 from the reach": lambda: reach_start(be, G, bits, n + 1, free),
             "push: reach": lambda: be.vxm("any_first", free, Ac),
             "column pass, every row": lambda: be.mxv("min_second", Ac, T, mask=every),
             "column pass, the reach": lambda: be.mxv("min_second", Ac, T, mask=reach)}
    a, b = calls["second MIS-2 as is"](), calls["second MIS-2 from the reach"]()
    assert np.array_equal(a.vertices, b.vertices) and a.iterations == b.iterations
    times = {k: [] for k in calls}
    for f in calls.values():
        f()
    for _ in range(repeat):
        for k, f in calls.items():
            t = time.thread_time(); f(); times[k].append(1e3 * (time.thread_time() - t))
    deg = np.diff(np.asarray(G.indptr)) + 1
    out = {"graph": os.path.basename(spec), "load": os.getloadavg(), "candidates": int(be.nvals(free)),
           "candidate entries": int(deg[be.indices(free)].sum()), "reach": int(be.nvals(reach)),
           "reach entries": int(deg[be.indices(reach)].sum()), "n": n, "entries": int(deg.sum()),
           "ms": {k: (min(v), float(np.median(v))) for k, v in times.items()}}
    print(f"{out['graph']}: load {out['load'][0]:.2f}; candidates {out['candidates']:,} ({out['candidate entries']:,} "
          f"entries of A + I), their reach {out['reach']:,} ({out['reach entries']:,}) of {n:,} ({out['entries']:,})")
    for k, (lo, med) in out["ms"].items():
        print(f"  {k:30s} {lo:6.2f} ({med:.2f}) ms")
    print(json.dumps(out))


if __name__ == "__main__":
    main()

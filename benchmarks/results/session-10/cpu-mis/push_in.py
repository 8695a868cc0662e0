"""Issue 39: would MIS-2's rounds gain from dropping, right after each decision, the columns
next to the rows that joined (their minimum is IN from then on), instead of reading their
rows again in the next round's column pass to find it?

On coAuthorsDBLP 2.3 of the 14.6 million entries the column passes of aggregation's two
MIS-2 runs read are such columns' rows (``columns.py``). ``rounds_push`` is
mis.py's refreshed rounds (k = 2) with, after the decision,
``joined = select(y == IN)``, ``near = joined ⊕any.first A``, ``M<near> = IN`` and
``wl2<¬near> = wl2``: the same sets and round counts (checked), in one process, numba, one
thread, thread CPU time, alternated with the code's rounds, minimum (median) of 9 calls;
then the verbs of ``rounds_push`` timed one by one (mean of 5 runs). vxm is not a verb the
cupy backend's compiled rounds trace, so the step could not carry it on the GPU anyway.

usage: PYTHONPATH=<tree>:<tree>/benchmarks python push_in.py GRAPH
"""
import os, sys, time

import numba, numpy as np

numba.set_num_threads(1)
import gbgraph as gg
from gbgraph.algorithms import mis
from gbgraph.hashing import Packing
from phase1 import candidates

gg.backends.set_threads(1)
SPENT = {}


def timed(name, f):
    t = time.thread_time()
    r = f()
    SPENT[name] = SPENT.get(name, 0) + 1e3 * (time.thread_time() - t)
    return r


def rounds_push(be, graph, bits, candidates=None):
    n = graph.n
    st = Packing(n, bits, be.xp)
    A = be.adjacency(graph, closed=True)
    T, M = be.full(n, st.OUT, st.dtype), be.full(n, st.IN, st.dtype)
    every = be.full(n, True, "bool")
    wl1, wl2, it = (every if candidates is None else candidates), every, 0
    undecided = mis._operators(st).undecided
    while be.nvals(wl1):
        timed("refresh", lambda: mis._refresh_rows(be, T, wl1, st, it))
        wl2 = timed("column pass", lambda: mis._refresh_columns(be, A, T, M, wl2, st, True))
        y = timed("decision", lambda: mis._decide(be, A, T, M, wl1, st))
        joined = timed("select joined", lambda: be.select("valueeq", y, st.IN))
        near = timed("push", lambda: be.vxm("any_first", joined, A))
        timed("assign", lambda: be.assign(M, st.IN, mask=near))
        wl2 = timed("drop near", lambda: be.apply("identity", wl2, mask=near, complement=True))
        wl1 = timed("select wl1", lambda: be.select(undecided, y, True))
        it += 1
    return be.indices(be.select("valueeq", T, st.IN)), it


def main():
    be, G, bits, _, free = candidates(sys.argv[1])
    n = G.n
    print(f"{os.path.basename(sys.argv[1])}: load {os.getloadavg()[0]:.2f}")
    for name, c in (("first MIS-2 (every vertex)", None), ("second MIS-2 (candidates)", free)):
        a, b = mis._mis2(be, G, bits, n + 1, candidates=c), rounds_push(be, G, bits, c)
        assert np.array_equal(a.vertices, b[0]) and a.iterations == b[1]
        ta, tb = [], []
        for _ in range(9):
            t = time.thread_time(); mis._mis2(be, G, bits, n + 1, candidates=c); ta.append(time.thread_time() - t)
            t = time.thread_time(); rounds_push(be, G, bits, c); tb.append(time.thread_time() - t)
        print(f"  {name}: as is {1e3 * min(ta):.2f} ({1e3 * np.median(ta):.2f}) ms, "
              f"dropping the joined rows' columns {1e3 * min(tb):.2f} ({1e3 * np.median(tb):.2f}) ms")
        SPENT.clear()
        for _ in range(5):
            rounds_push(be, G, bits, c)
        print("    its verbs, ms a run: " + ", ".join(f"{k} {v / 5:.2f}" for k, v in SPENT.items()))


if __name__ == "__main__":
    main()

"""The column pass over every row, one thread, CPU ms (min of 9): the built-in min_second over A + I against LEAST_CLOSED
(the same function as mis.py's) over A; asserts equal values.
    PYTHONPATH=<tree> python column_pass.py graphs..."""
import sys, time
import numpy as np, scipy.sparse as sp
sys.path.insert(0, "/work/wt/mis2a39/benchmarks")
from common import matrix
import gbgraph as gg
from gbgraph.backends.operators import RowOperator
gg.backends.set_threads(1)

def _least_closed(i, start, stop, cols, vals, M):
    d = M[i]
    for p in range(np.uint64(start), np.uint64(stop)):
        d = min(d, M[np.uint64(cols[p])])
    return d, True
LC = RowOperator(_least_closed, fill=None, name="least_closed")
be = gg.backends.backend("numba")
for spec in sys.argv[1:]:
    A = sp.csr_matrix(matrix(spec))
    G = gg.as_graph(A, weights=False)
    C = be.adjacency(G, closed=True); O = be.adjacency(G)
    n = G.n
    T = be.full(n, 0, "int32"); T.values[:] = np.random.default_rng(0).permutation(n).astype(np.int32) + 5
    every = be.full(n, True, "bool")
    half = be.select("valueeq", be.full(n, True, "bool"), True)
    def t(fn):
        fn(); ts = []
        for _ in range(9):
            c = time.process_time(); fn(); ts.append(time.process_time() - c)
        return 1e3 * min(ts)
    a = be.mxv("min_second", C, T, mask=every); b = be.mxv(LC, O, T, mask=every)
    assert np.array_equal(be.values(a), be.values(b))
    print(spec, "closed min_second", t(lambda: be.mxv("min_second", C, T, mask=every)),
          "open least_closed", t(lambda: be.mxv(LC, O, T, mask=every)))

# a state read with a fill by a row operator, rows leaving it round after round (an erosion): the
# compiled rounds against the replayed ones, on whichever gbgraph is first on the path
import numpy as np, scipy.sparse as sp, gbgraph
from gbgraph.backends import backend
from gbgraph.backends.operators import RowOperator
from gbgraph.backends.cupy import program
print("gbgraph from", gbgraph.__file__)
def _neighbour_sum(i, start, stop, cols, vals, u):
    total = 0
    for p in range(start, stop):
        total += u[cols[p]]
    return total, True
NS = RowOperator(_neighbour_sum, fill=0, name="test_neighbour_sum")
rng = np.random.default_rng(3)
n = 2000
pairs = rng.integers(0, n, (2, 6000)); pairs = pairs[:, pairs[0] != pairs[1]]
S = sp.csr_array((np.ones(pairs.shape[1]), (pairs[0], pairs[1])), shape=(n, n))
S = sp.csr_array(((S + S.T) > 0).astype(np.float64)); S.sort_indices()
life = rng.integers(1, 9, n).astype(np.int64)
be = backend("cupy")
A = be.matrix(be.xp.asarray(S.indptr.astype(np.int64)), be.xp.asarray(S.indices.astype(np.int64)))
def run():
    seen = be.full(n, 0, "int64")
    def round_(U, r):
        total = be.mxv(NS, A, U, mask=U)
        be.assign(seen, total, mask=total)
        keep = be.select("valuege", total, 20)
        return (be.apply("identity", U, mask=keep),)
    _, r = be.iterate(round_, (be.vector(be.xp.arange(n, dtype=be.xp.int64), be.xp.asarray(life), n),))
    return be.values(seen).get(), r
before = program.programs
compiled, r1 = run()
was_compiled = program.programs > before
program.compile_rounds = lambda *a: None
replayed, r2 = run()
print("compiled:", was_compiled, "rounds", r1, r2, "equal:", bool((compiled == replayed).all()), "rows differing:", int((compiled != replayed).sum()))

# a state read with a fill by a row operator, rows leaving it round after round (an erosion): the
# compiled rounds against the replayed ones, on whichever gbgraph is first on the path
import os, sys
import numpy as np, scipy.sparse as sp, gbgraph
from gbgraph.backends import backend
from gbgraph.backends.cupy import program
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../tests"))
from test_backend import NEIGHBOUR_SUM as NS  # the sum of u over a row's columns, fill 0
print("gbgraph from", gbgraph.__file__)
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

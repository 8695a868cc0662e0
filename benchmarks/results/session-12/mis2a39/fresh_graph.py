"""mis2 of one Graph called again, against a fresh Graph each call (made outside the timing): coAuthorsDBLP, one thread, CPU ms, min of 15.
    PYTHONPATH=<tree> python fresh_graph.py"""
import sys, time
sys.path.insert(0, "/work/wt/mis2a39/benchmarks")
import numpy as np, scipy.sparse as sp
from common import matrix
import gbgraph as gg
gg.backends.set_threads(1)
A = sp.csr_matrix(matrix("/work/shared/data/coAuthorsDBLP.mtx.gz"))
G = gg.as_graph(A)
def t(make, k=15):
    ts = []
    for _ in range(k + 1):
        g = make()
        c = time.process_time(); gg.mis2(g, backend="numba"); ts.append(time.process_time() - c)
    return 1e3 * min(ts[1:])
for r in range(2):
    print("same G", t(lambda: G), "fresh as_graph(A, weights=False) before", t(lambda: gg.as_graph(A, weights=False)),
          "fresh Graph on G's arrays", t(lambda: gg.Graph(G.n, G.indptr, G.indices)),
          "fresh Graph, indptr copied", t(lambda: gg.Graph(G.n, G.indptr.copy(), G.indices)))

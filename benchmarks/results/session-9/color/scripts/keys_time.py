import time, numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph.algorithms import coloring as C
from gbgraph import backends
backends.set_threads(1)
A = gg.generators.laplace3d(100); G = gg.as_graph(sp.csr_matrix(A))
be = backends.for_graph("numba", G)
def tm(f, reps=9):
    f(); t=[]
    for _ in range(reps):
        s=time.process_time(); f(); t.append(time.process_time()-s)
    return 1e3*min(t)
print("Keys()", tm(lambda: C._Keys(be, G, 0)))
k = C._Keys(be, G, 0); ids = np.arange(G.n)
print("arange", tm(lambda: np.arange(G.n)))
print("hash", tm(lambda: k._hash(ids)))
print("ordered", tm(lambda: C._ordered(k, ids, "largest_degree")))
print("full", tm(lambda: be.full(G.n, C._ordered(k, ids, "largest_degree"), "uint64")))
print("adjacency", tm(lambda: be.adjacency(G)))
Ab = be.adjacency(G)
r = gg.color(G, backend="numba")
print("result", tm(lambda: C._result(r.colors, 8)))
print("total", tm(lambda: gg.color(G, backend="numba")))

import time, sys, numpy as np, scipy.sparse as sp
sys.path.insert(0, __import__("os").path.dirname(__import__("os").path.abspath(__file__)))
import gbgraph as gg
from gbgraph.algorithms import coloring as C
from gbgraph import backends
from unsigned_variants import FF_U, FF_NB
backends.set_threads(1)
spec = sys.argv[1]
if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
else:
    name,_,d = spec.partition(":"); A = getattr(gg.generators,name)(*(int(x) for x in d.split(",")))
G = gg.as_graph(sp.csr_matrix(A))
be = backends.for_graph("numba", G)
keys = C._Keys(be, G, 0)
n = G.n; ids = np.arange(n)
Ab = be.adjacency(G)
kv = be.full(n, C._ordered(keys, ids, "largest_degree"), "uint64")
allr = be.full(n, True, "bool")
idx = be.full(n, np.arange(n, 0, -1), "int64")
def tm(f, reps=7):
    f(); t=[]
    for _ in range(reps):
        s=time.process_time(); f(); t.append(time.process_time()-s)
    return 1e3*min(t)
for op in (C.FIRST_FIT, FF_U, FF_NB, C.FIRST_FIT, FF_U, FF_NB):
    before = be.full(n, -1, "int32")
    r = be.values(be.mxv(op, Ab, before, mask=allr, order=kv)).copy()
    cls = be.full(n, r, "int64")
    print(f"{op.name}: index {tm(lambda: be.mxv(op, Ab, before, mask=allr, order=idx)):.2f} key {tm(lambda: be.mxv(op, Ab, before, mask=allr, order=kv)):.2f} class {tm(lambda: be.mxv(op, Ab, before, mask=allr, order=cls)):.2f}", flush=True)

import time, sys, numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph.algorithms import coloring as C
from gbgraph import backends
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
def tm(f, reps=7):
    f(); t=[]
    for _ in range(reps):
        s=time.process_time(); f(); t.append(time.process_time()-s)
    return 1e3*min(t)
r = gg.color(G, backend="numba").colors
cls = be.full(n, r, "int64")
for dt in ("int32", "int8", "int16", "int32", "int8"):
    before = be.full(n, -1, dt)
    print(dt, f"key {tm(lambda: be.mxv(C.FIRST_FIT, Ab, before, mask=allr, order=kv)):.2f} class {tm(lambda: be.mxv(C.FIRST_FIT, Ab, before, mask=allr, order=cls)):.2f}", flush=True)

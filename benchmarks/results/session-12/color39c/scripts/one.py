import sys, time, json, numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph import backends
spec, threads, reps, backend = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
backends.set_threads(threads)
if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
else:
    name,_,d = spec.partition(":"); A = getattr(gg.generators,name)(*(int(x) for x in d.split(",")))
A = sp.csr_matrix(A); x = np.ones(A.shape[0]); G = gg.as_graph(A)
CLOCK = time.process_time if threads == 1 else time.perf_counter
def mn(f,k):
    f(); t=[]
    for _ in range(k):
        s=CLOCK(); f(); t.append(CLOCK()-s)
    return 1e3*min(t)
spmv = mn(lambda: A@x, 30)
c = mn(lambda: gg.color(G, backend=backend), reps)
spmv = min(spmv, mn(lambda: A@x, 30))
print(json.dumps({"graph": spec.split("/")[-1], "spmv": spmv, "color": c, "eq": c/spmv}))

# issue 39 part 2: the suitesparse backend on Laplace3D 100³ (2 threads: NUMBA_NUM_THREADS=2 OMP_NUM_THREADS=2), median of 5 calls over the least of 5 SpMVs before each
import time, numpy as np, gbgraph as gg
from gbgraph.generators import laplace3d
A = laplace3d(100); x = np.ones(A.shape[0])
def spmv():
    t=time.perf_counter(); A @ x; return time.perf_counter()-t
G = gg.as_graph(A)
for name, f in [("color", lambda: gg.color(G, backend="suitesparse")), ("coarsen", lambda: gg.coarsen(G, backend="suitesparse"))]:
    f(); ts=[]; ss=[]
    for _ in range(5):
        ss.append(min(spmv() for _ in range(5))); t=time.perf_counter(); f(); ts.append(time.perf_counter()-t)
    print(name, f"{1e3*np.median(ts):.1f} ms = {np.median(ts)/np.median(ss):.1f} SpMV-eq (SpMV {1e3*np.median(ss):.2f} ms)")

import sys, time, numpy as np, scipy.sparse as sp
sys.path.insert(0, "/work/wt/small39/benchmarks")
import gbgraph as gg
from common import matrix
import numba
numba.set_num_threads(int(sys.argv[1]))
out = []
for spec in sys.argv[2:]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    def mn(f, k=15):
        f(); ts = []
        for _ in range(k):
            t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
        return 1e3 * min(ts)
    s = mn(lambda: A @ x, 30)
    a = mn(lambda: gg.as_graph(A))
    b = mn(lambda: gg.as_graph(A, weights=False, closed=True) if "closed" in gg.as_graph.__code__.co_varnames else gg.as_graph(A, weights=False))
    out.append(f"{spec.split('/')[-1][:14]}: spmv {s:.2f} as_graph {a:.2f} ({a/s:.2f}) closed-pattern {b:.2f} ({b/s:.2f})")
print(" | ".join(out))

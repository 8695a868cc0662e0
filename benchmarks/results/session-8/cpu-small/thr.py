import sys, time, statistics, numpy as np, scipy.sparse as sp
sys.path.insert(0, "/work/wt/small39/benchmarks")
import numba
import gbgraph as gg
from gbgraph.backends.numba.kernels import threads as kt
from common import matrix
numba.set_num_threads(2)
kt.PARALLEL_WORK = int(sys.argv[1])
out = []
for spec in sys.argv[2:]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0]); G = gg.as_graph(A)
    sm = min((lambda: (lambda t: (A @ x, time.perf_counter() - t)[1])(time.perf_counter()))() for _ in range(30))
    r = {}
    for name, f in (("mis2(G)", lambda: gg.mis2(G, backend="numba")), ("aggregate", lambda: gg.aggregate(G, backend="numba"))):
        f(); ts = []
        for _ in range(15):
            t = time.perf_counter(); f(); ts.append(time.perf_counter() - t)
        r[name] = f"{min(ts)/sm:.1f} (med {statistics.median(ts)/sm:.1f})"
    out.append(f"{spec.split('/')[-1][:13]} " + " ".join(f"{k} {v}" for k, v in r.items()))
print(f"threshold {sys.argv[1]}: " + " | ".join(out))

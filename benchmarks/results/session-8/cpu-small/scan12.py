import sys, time, numpy as np, scipy.sparse as sp, statistics
sys.path.insert(0, "/work/wt/small39/benchmarks")
import numba
import gbgraph as gg
from gbgraph.backends.numba.kernels import canonical, threads as kt
from common import matrix
for spec in sys.argv[1:]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    ind = A.indices.astype(np.int32)
    res = {}
    for setting in ("serial", "parallel"):
        res[setting] = []
    sp_t = []
    for k in range(60):
        t = time.perf_counter(); A @ x; sp_t.append(time.perf_counter() - t)
        for setting, work in (("serial", 1 << 62), ("parallel", 0)):
            kt.PARALLEL_WORK = work
            t = time.perf_counter(); canonical.scan_rows(A.indptr, ind, None, False); res[setting].append(time.perf_counter() - t)
    s = min(sp_t)
    print(spec.split("/")[-1], f"spmv {1e3*s:.2f} ms", " ".join(f"{k} min {1e3*min(v):.2f} med {1e3*statistics.median(v):.2f} ms ({min(v)/s:.2f} SpMV-eq)" for k, v in res.items()))

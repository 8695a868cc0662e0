"""Serial twin against parallel twin of the MIS-2 round's kernels (pull_second min over A+I, every row and
half the rows), alternated, 2 threads: per graph, min and median ms."""
import sys, time, os
sys.path.insert(0, "/work/wt/small39/benchmarks")
import numpy as np, scipy.sparse as sp, numba, gbgraph as gg
from common import matrix
from gbgraph.backends.numba.kernels import products
numba.set_num_threads(2)
for spec in sys.argv[2:]:
    A = sp.csr_matrix(matrix(spec)); G = gg.as_graph(A)
    indptr, cols = G.closed_csr()[:2]
    n = G.n
    rng = np.random.default_rng(1)
    u = rng.integers(-2**31, 2**31 - 1, n).astype(np.int32)
    half = np.sort(rng.choice(n, n // 2, replace=False)).astype(np.int64)
    empty = np.zeros(0, bool)
    cases = {"all rows": (np.empty(0, np.int64), True, n), "half rows": (half, False, half.size)}
    for cname, (rows, all_rows, m) in cases.items():
        out = np.empty(m, np.int32); found = np.empty(m, bool)
        args = (indptr, cols, u, empty, False, rows, all_rows, 0, False, out, found)
        res = {"serial": [], "parallel": []}
        for k in (products.pull_second.serial, products.pull_second.parallel): k(*args)
        for rep in range(int(sys.argv[1])):
            for name, k in (("serial", products.pull_second.serial), ("parallel", products.pull_second.parallel)):
                t = time.perf_counter(); k(*args); res[name].append(time.perf_counter() - t)
        work = m * cols.size // n
        print(f"{spec.split('/')[-1]:22s} {cname:9s} work {work/1e6:5.2f}M: " + "  ".join(
            f"{k} min {np.min(v)*1e3:.2f} med {np.median(v)*1e3:.2f} p90 {np.percentile(v, 90)*1e3:.2f}" for k, v in res.items()) + f"  load {os.getloadavg()[0]:.1f}", flush=True)

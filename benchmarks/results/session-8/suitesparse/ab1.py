"""One process: scipy's SpMV and gg.coarsen(G, backend="suitesparse") (and other rows) on
prepared graphs, 2 threads; per graph [wall ms, process CPU ms] minima of R calls after one.
python ab1.py R ROWS SPEC...  (ROWS: comma-separated of ss_coarsen, ss_color, ss_mis2, ss_aggregate)"""
import os, sys, time, json, numpy as np, scipy.sparse as sp, numba, graphblas as gb
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))  # benchmarks/common.py
import gbgraph as gg
from common import matrix
numba.set_num_threads(2); gb.ss.config["nthreads"] = 2
R = int(sys.argv[1]); rows = sys.argv[2].split(","); specs = sys.argv[3:]
CALLS = {"ss_coarsen": lambda G: gg.coarsen(G, backend="suitesparse"),
         "ss_color": lambda G: gg.color(G, backend="suitesparse"),
         "ss_mis2": lambda G: gg.mis2(G, backend="suitesparse"),
         "ss_aggregate": lambda G: gg.aggregate(G, backend="suitesparse")}
def min_ms(fn, calls):
    fn(); best = cpu = 1e9
    for _ in range(calls):
        s, c = time.perf_counter(), time.process_time(); fn()
        best = min(best, time.perf_counter() - s); cpu = min(cpu, time.process_time() - c)
    return [round(best * 1e3, 2), round(cpu * 1e3, 2)]
out = {}
for spec in specs:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0]); G = gg.as_graph(A)
    r = {"spmv": min_ms(lambda: A @ x, 30)}
    for row in rows:
        r[row] = min_ms(lambda: CALLS[row](G), R)
    r["spmv_eq"] = {row: round(r[row][0] / r["spmv"][0], 1) for row in rows}
    out[spec.split("/")[-1].replace(".mtx.gz", "")] = r
print(json.dumps(out))

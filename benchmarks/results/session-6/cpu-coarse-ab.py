"""The rows this helper owns, min of --repeat after a warm call, beside scipy SpMV, one tree per process."""
import sys, time, json, argparse, warnings
import numpy as np, scipy.sparse as sp
import gbgraph as gg
sys.path.insert(0, "/work/wt/cpucoarse/benchmarks")
from common import matrix, graph_name, describe_machine
warnings.simplefilter("ignore")
p = argparse.ArgumentParser(); p.add_argument("tree"); p.add_argument("--graphs", nargs="+"); p.add_argument("--repeat", type=int, default=5)
p.add_argument("--threads", type=int); p.add_argument("--suitesparse", action="store_true"); p.add_argument("--json")
a = p.parse_args()
if a.threads:
    gg.backends.set_threads(a.threads)
CPU = {}
def mn(f, r, key=None):
    f(); t = []; c = []
    for _ in range(r):
        s, p = time.perf_counter(), time.process_time(); f(); t.append(time.perf_counter() - s); c.append(time.process_time() - p)
    if key:
        CPU[key] = 1e3 * min(c)
    return 1e3 * min(t)
rows = []
for spec in a.graphs:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0]); G = gg.as_graph(A)
    row = {"tree": a.tree, "graph": graph_name(spec), "spmv_ms": mn(lambda: A @ x, 30)}
    row["coarsen"] = mn(lambda: gg.coarsen(G, backend="numba"), a.repeat, "coarsen")
    row["hec hierarchy"] = mn(lambda: gg.coarsen(G, "hec", backend="numba"), a.repeat, "hec hierarchy")
    if a.suitesparse:
        row["coarsen suitesparse"] = mn(lambda: gg.coarsen(G, backend="suitesparse"), max(2, a.repeat // 2))
        row["hec hierarchy suitesparse"] = mn(lambda: gg.coarsen(G, "hec", backend="suitesparse"), max(2, a.repeat // 2))
    row["spmv_ms"] = min(row["spmv_ms"], mn(lambda: A @ x, 30, "spmv"))
    row["cpu_ms"] = dict(CPU)
    rows.append(row)
    print(a.tree, row["graph"], f"SpMV {row['spmv_ms']:.2f} |", " | ".join(f"{k} {v:.1f} ms = {v / row['spmv_ms']:.1f}" for k, v in row.items() if k not in ("tree", "graph", "spmv_ms", "cpu_ms")),
          "| CPU time:", " | ".join(f"{k} {v / CPU['spmv']:.1f}" for k, v in CPU.items() if k != "spmv"), flush=True)
if a.json:
    json.dump({"machine": describe_machine(), "threads": a.threads, "rows": rows}, open(a.json, "w"), indent=1)

"""One process, one thread: cut and CPU time of gg.partition(A, k) (recursive, default) and
method="kway" at k = 2, 8 on the given graphs; the minimum CPU time of R calls (the cut is
deterministic), after one untimed round on the first graph. CAP=x sets partition.COARSE_CAP (x a float, or "none") in a tree that has it.
Prints one JSON line {graph: {"rec2": [cut, cpu ms], ...}}."""
import os, sys, time, json, scipy.sparse as sp, numba
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))  # benchmarks/common.py
import graphblas as gb
import gbgraph as gg
from gbgraph.algorithms import partition as part
from common import matrix, graph_name
numba.set_num_threads(1)
gb.ss.config["nthreads"] = 1
if "CAP" in os.environ and hasattr(part, "COARSE_CAP"):
    part.COARSE_CAP = None if os.environ["CAP"] == "none" else float(os.environ["CAP"])
R = int(sys.argv[1]); specs = sys.argv[2:]
W = gg.as_graph(sp.csr_matrix(matrix(specs[0])))
for method in ("recursive", "kway"):  # the compilations, untimed
    for k in (2, 8):
        gg.partition(W, k, method=method)
out = {}
for spec in specs:
    G = gg.as_graph(sp.csr_matrix(matrix(spec)))
    r = {}
    for method in ("recursive", "kway"):
        for k in (2, 8):
            cpu = 1e9
            for _ in range(R):
                c = time.process_time()
                res = gg.partition(G, k, method=method)
                cpu = min(cpu, time.process_time() - c)
            r[f"{method[:3]}{k}"] = [float(res.cut), round(cpu * 1e3, 1), round(float(res.imbalance), 4)]
    out[graph_name(spec)] = r
print(json.dumps(out))

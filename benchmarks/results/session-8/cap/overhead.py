"""CPU ms of coarsen(G, "hec") without and with a cap no coarse vertex reaches (n / 4 on graphs
whose HEC stays under it), interleaved, one thread, min of R. Usage: overhead.py R SPEC..."""
import os, sys, time, json, scipy.sparse as sp, numba
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))  # benchmarks/common.py
import gbgraph as gg
from common import matrix, graph_name
numba.set_num_threads(1)
R = int(sys.argv[1])
out = {}
for spec in sys.argv[2:]:
    G = gg.as_graph(sp.csr_matrix(matrix(spec)))
    calls = {"hec": lambda: gg.coarsen(G, "hec"), "capped": lambda: gg.coarsen(G, "hec", max_weight=G.n / 4)}
    best = dict.fromkeys(calls, 1e9)
    for _ in range(R + 1):
        for name, fn in calls.items():
            c = time.process_time(); fn(); best[name] = min(best[name], time.process_time() - c)
    out[graph_name(spec)] = {name: round(t * 1e3, 2) for name, t in best.items()}
print(json.dumps(out))

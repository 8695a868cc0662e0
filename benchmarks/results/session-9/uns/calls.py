"""CPU time (one thread) of the calls that run the changed row operators: aggregate (better_group,
gathers_three), coarse_mapping hec/hem/gosh_hec (heaviest, visit), on the numba backend; the
minimum of --repeat calls after one untimed. usage: PYTHONPATH=<tree> calls.py OUT.json GRAPH..."""
import json, sys, time
import numpy as np, scipy.sparse as sp
sys.path.insert(0, "/work/wt/uns39/benchmarks")
import gbgraph as gg
from common import matrix, graph_name

gg.backends.set_threads(1)
import numba
numba.set_num_threads(1)
res = {}
for spec in sys.argv[2:]:
    M = sp.csr_array(matrix(spec))
    G = gg.as_graph(M)
    W = gg.as_graph(abs(M))
    calls = {"aggregate": lambda: gg.aggregate(G, backend="numba")}
    for m in ("hec", "hem", "gosh_hec"):
        calls[f"coarse_mapping {m}"] = lambda m=m: gg.coarse_mapping(W, m, backend="numba")
    for name, fn in calls.items():
        fn()
        t = []
        for _ in range(11):
            s = time.process_time(); fn(); t.append(time.process_time() - s)
        res[f"{graph_name(spec)}:{name}"] = 1e3 * min(t)
        print(f"{graph_name(spec)}:{name} {1e3 * min(t):.2f} ms", flush=True)
json.dump(res, open(sys.argv[1], "w"), indent=0)

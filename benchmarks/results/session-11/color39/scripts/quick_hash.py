# greedy colorings' hashes (default, random priority, seed 7), numba: python quick_hash.py THREADS GRAPH...
import sys, hashlib, json, numpy as np, scipy.sparse as sp, gbgraph as gg
gg.backends.set_threads(int(sys.argv[1]))
for spec in sys.argv[2:]:
    if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
    else:
        name, _, d = spec.partition(":"); A = getattr(gg.generators, name)(*(int(x) for x in d.split(",")))
    G = gg.as_graph(sp.csr_matrix(A))
    for kw in ({}, {"priority": "random"}, {"seed": 7}):
        r = gg.color(G, backend="numba", **kw)
        print(spec.split("/")[-1], json.dumps(kw), hashlib.sha256(np.asarray(r.colors, np.int64).tobytes()).hexdigest()[:16], r.n_colors, r.iterations, flush=True)

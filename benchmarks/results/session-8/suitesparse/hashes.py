"""Hash what the MIS-2 family gives on one backend and thread count, for bit-identity
between trees: python hashes.py BACKEND THREADS SPEC... (one JSON object: key -> hash).
Per graph: every level of coarsen(G) (MIS-2) and coarsen(G, "hec") (labels, vertex weights,
CSR arrays and dtypes), mis2(G)'s set and rounds, aggregate(G)'s labels, roots and count, color(G)'s colors and rounds."""
import os, sys, hashlib, json, numpy as np, scipy.sparse as sp, numba
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))  # benchmarks/common.py
import gbgraph as gg
from common import matrix
backend, threads = sys.argv[1], int(sys.argv[2])
numba.set_num_threads(threads)
if backend == "suitesparse":
    import graphblas as gb
    gb.ss.config["nthreads"] = threads
def digest(*arrays):
    d = hashlib.sha256()
    for arr in arrays:
        if arr is None:
            d.update(b"none"); continue
        arr = np.ascontiguousarray(arr); d.update(str(arr.dtype).encode()); d.update(arr.tobytes())
    return d.hexdigest()[:16]
out = {}
for spec in sys.argv[3:]:
    name = spec.split("/")[-1].replace(".mtx.gz", "")
    G = gg.as_graph(sp.csr_matrix(matrix(spec)))
    for method in ("mis2", "hec"):
        h = gg.coarsen(G, method, backend=backend)
        out[f"{name}:coarsen-{method}"] = [len(h), digest(*[a for l in h for a in (l.labels, l.vertex_weights, l.graph.indptr,
                                                                                  l.graph.indices, l.graph.weights)])]
    m = gg.mis2(G, backend=backend)
    out[f"{name}:mis2"] = digest(np.asarray(m.vertices), np.asarray(m.iterations))
    a = gg.aggregate(G, backend=backend)
    out[f"{name}:aggregate"] = digest(np.asarray(a.labels), np.asarray(a.roots), np.asarray(a.n_aggregates))
    c = gg.color(G, backend=backend)
    out[f"{name}:color"] = digest(np.asarray(c.colors), np.asarray(c.iterations), np.asarray(c.n_colors))
json.dump(out, sys.stdout, indent=0, sort_keys=True)

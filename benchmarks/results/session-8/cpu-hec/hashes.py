"""Hash every level's arrays of coarsen(G, method) for bit-identity against .old."""
import os, sys, hashlib, numpy as np, scipy.sparse as sp, numba, json
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))  # benchmarks/common.py
import gbgraph as gg
from common import matrix
backend, threads = sys.argv[1], int(sys.argv[2])
numba.set_num_threads(threads)
if backend == "suitesparse":
    import graphblas as gb
    gb.ss.config["nthreads"] = threads
specs = sys.argv[3:]
out = {}
for spec in specs:
    A = sp.csr_matrix(matrix(spec))
    G = gg.as_graph(A)
    for method in ("hec", "mis2"):
        h = gg.coarsen(G, method, backend=backend)
        d = hashlib.sha256()
        for l in h:
            g = l.graph
            for arr in (l.labels, l.vertex_weights, g.indptr, g.indices, g.weights):
                if arr is None:
                    d.update(b"none"); continue
                arr = np.ascontiguousarray(arr)
                d.update(str(arr.dtype).encode()); d.update(arr.tobytes())
        out[f"{spec.split('/')[-1]}:{method}"] = (len(h), d.hexdigest()[:16])
json.dump(out, sys.stdout, indent=0)

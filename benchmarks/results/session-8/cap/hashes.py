"""Hash every level's arrays of coarsen(G, "hec") (no cap): bit-identity against the tree before the cap.
Usage: PYTHONPATH=TREE python hashes.py BACKEND THREADS SPEC..."""
import os, sys, hashlib, json, numpy as np, scipy.sparse as sp, numba
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))  # benchmarks/common.py
import gbgraph as gg
from common import matrix
backend, threads = sys.argv[1], int(sys.argv[2])
numba.set_num_threads(threads)
if backend == "suitesparse":
    import graphblas as gb
    gb.ss.config["nthreads"] = threads
out = {}
for spec in sys.argv[3:]:
    G = gg.as_graph(sp.csr_matrix(matrix(spec)))
    h = gg.coarsen(G, "hec", backend=backend)
    d = hashlib.sha256()
    for level in h:
        g = level.graph
        for arr in (level.labels, level.vertex_weights, g.indptr, g.indices, g.weights):
            if arr is None:
                d.update(b"none")
                continue
            arr = np.ascontiguousarray(arr)
            d.update(str(arr.dtype).encode())
            d.update(arr.tobytes())
    out[spec.split("/")[-1]] = (len(h), d.hexdigest()[:16])
print(json.dumps(out))

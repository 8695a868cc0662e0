"""Hashes of mis2 (A, G, fixed, quality), mis1 (3 priorities), misk 3, aggregate (2 methods) and coarsen outputs,
for bit-identity between trees. argv: out.json threads backends (comma-separated); GRAPHS= overrides the graphs.
    PYTHONPATH=<tree> python identity.py identity-new-1.json 1 numba,suitesparse"""
import hashlib, json, sys
import numpy as np, scipy.sparse as sp
import os; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from common import matrix
import gbgraph as gg
out, threads, bes = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(",")
gg.backends.set_threads(threads)
D = "/work/shared/data/"
import os
GRAPHS = os.environ["GRAPHS"].split() if "GRAPHS" in os.environ else ["laplace3d:30", "elasticity3d:12", D + "coAuthorsDBLP.mtx.gz", D + "delaunay_n17.mtx.gz",
          D + "4elt.mtx.gz", D + "wiki-Vote.mtx.gz", D + "usroads.mtx.gz", D + "PGPgiantcompo.mtx.gz"]
def h(*arrays):
    m = hashlib.sha256()
    for a in arrays:
        a = np.ascontiguousarray(np.asarray(a)); m.update(str(a.dtype).encode()); m.update(a.tobytes())
    return m.hexdigest()[:16]
res = {}
for spec in GRAPHS:
    A = sp.csr_matrix(matrix(spec))
    if "wiki" in spec:
        A = gg.symmetrize(A)
    name = spec.split("/")[-1]
    for be in bes:
        r = {}
        G = gg.as_graph(A)
        r["mis2(A)"] = h(gg.mis2(A, backend=be).vertices)
        r["mis2(G)"] = h(gg.mis2(G, backend=be).vertices)
        r["mis2 fixed"] = h(gg.mis2(A, priority="fixed", backend=be).vertices)
        r["mis2 quality"] = h(gg.mis2(A, priority="quality", backend=be).vertices)
        for p in ("degree", "random", "permutation"):
            r[f"mis1 {p}"] = h(gg.mis1(A, p, backend=be).vertices)
        r["misk 3"] = h(gg.misk(A, 3, backend=be).vertices)
        for m in ("mis2", "mis2_basic"):
            a = gg.aggregate(A, m, backend=be); r[f"aggregate {m}"] = h(a.labels, a.roots)
        if be == "numba" or "coAuthors" not in name:
            H = gg.coarsen(G, backend=be)
            r["coarsen"] = h(*[x for l in H.levels for x in (l.graph.indptr, l.graph.indices, l.graph.weights if l.graph.weights is not None else [], l.labels if l.labels is not None else [])])
        res[f"{name} {be}"] = r
        print(name, be, flush=True)
json.dump(res, open(out, "w"), indent=1, sort_keys=True)

"""Hashes of as_graph, mis2 (of G and of A), aggregate, and the MIS-2 and HEC coarsen hierarchies
(every level's labels, weights and graph) on the benchmark graphs and a few generated ones,
backends numba and suitesparse, 1 and 2 threads (2 also with every kernel a parallel region).
usage: PYTHONPATH=<tree> identity.py OUT.json\n(session-9/cpu/identity.py with coarse_mapping hec/hem/gosh/gosh_hec/mis2 labels, fewer graphs)"""
import glob, hashlib, json, sys
import numpy as np, scipy.sparse as sp, numba
sys.path.insert(0, "/work/wt/uns39/benchmarks")
import gbgraph as gg
from common import matrix
from gbgraph.backends.numba.kernels import threads as kt

DEFAULT_WORK = kt.PARALLEL_WORK


def h(*arrays):
    d = hashlib.sha256()
    for a in arrays:
        if a is None:
            d.update(b"None"); continue
        a = np.asarray(a); d.update(str(a.dtype).encode()); d.update(np.ascontiguousarray(a).tobytes())
    return d.hexdigest()[:16]


def generated():
    rng = np.random.default_rng(7)
    out = {"laplace3d:30": gg.generators.laplace3d(30), "laplace3d:5": gg.generators.laplace3d(5),
           "elasticity3d:12": gg.generators.elasticity3d(12)}
    R = sp.random_array((3000, 3000), density=0.003, random_state=rng, format="csr"); R = (R + R.T).tocsr()
    R.setdiag(0); R.eliminate_zeros(); out["random-adjacency"] = R
    P = R.copy().tolil(); P[np.arange(0, 3000, 3), np.arange(0, 3000, 3)] = 1.0; out["partial-diagonal"] = P.tocsr()
    U = R.tocoo(); perm = rng.permutation(U.nnz)
    out["unsorted"] = sp.csr_array((U.data[perm], (U.row[perm], U.col[perm])), shape=U.shape)
    return out


graphs = {s: s for s in ["laplace3d:60", "elasticity3d:20"] + [f"/work/shared/data/{n}.mtx.gz" for n in
          ("coAuthorsDBLP", "delaunay_n17")]}
graphs.update(generated())
res = {}
for name, M in graphs.items():
    if isinstance(M, str):
        M = sp.csr_array(matrix(M))
    name = name.split("/")[-1]
    try:
        gg.as_graph(M)
    except gg.errors.AsymmetricGraphError:
        M = gg.symmetrize(M)
    for setting in ("1", "2"):
        t = int(setting[0])
        numba.set_num_threads(t); gg.backends.set_threads(t)
        kt.PARALLEL_WORK = 0 if setting.endswith("parallel") else DEFAULT_WORK
        G = gg.as_graph(M)
        Gc = gg.as_graph(M, weights=False, closed=True)
        res[f"{name}:{setting}:as_graph"] = h(G.indptr, G.indices, G.weights, *(G.closed_csr()))
        res[f"{name}:{setting}:as_graph-closed"] = h(Gc.indptr, Gc.indices, Gc.weights, *(Gc.closed_csr()))
        for be in ("numba", "suitesparse"):
            if be == "suitesparse" and setting.endswith("parallel"):
                continue
            res[f"{name}:{setting}:{be}:mis2(A)"] = h(gg.mis2(M, backend=be).vertices)
            res[f"{name}:{setting}:{be}:mis2(G)"] = h(gg.mis2(G, backend=be).vertices)
            a = gg.aggregate(G, backend=be)
            res[f"{name}:{setting}:{be}:aggregate"] = h(a.labels, a.roots)
            for method in ("hec", "hem", "gosh", "gosh_hec", "mis2"):
                res[f"{name}:{setting}:{be}:coarse_mapping-{method}"] = h(gg.coarse_mapping(abs(M), method, backend=be).labels)  # |A|: weights >= 0
            for method in ("mis2", "hec"):
                levels = gg.coarsen(G, method, backend=be)
                res[f"{name}:{setting}:{be}:coarsen-{method}"] = h(*[a for l in levels for a in (
                    l.labels, l.vertex_weights, l.graph.indptr, l.graph.indices, l.graph.weights)])
    print(name, flush=True, file=sys.stderr)
json.dump(res, open(sys.argv[1], "w"), indent=0, sort_keys=True)
print(len(res), "hashes")

"""Hashes of as_graph / mis2 / aggregate outputs on many graphs, backends numba and suitesparse,
1 and 2 threads (2 also with every kernel a parallel region). usage: identity.py OUT.json"""
import sys, json, hashlib, glob, numpy as np, scipy.sparse as sp
import numba
import gbgraph as gg
from gbgraph.backends.numba.kernels import threads as kt
from gbgraph.errors import AsymmetricGraphError

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
    L = gg.generators.laplace3d(70); L = sp.csr_array(L - sp.diags_array(L.diagonal(), format="csr")); L.eliminate_zeros()
    out["laplace3d:70-adjacency"] = L  # above the parallel threshold
    return out

graphs = {p.split("/")[-1]: p for p in sorted(glob.glob("/work/shared/data/*.mtx.gz"))}
graphs.update(generated())
res = {}
for name, M in graphs.items():
    if isinstance(M, str):
        sys.path.insert(0, "/work/wt/small39/benchmarks"); from common import matrix; M = sp.csr_array(matrix(M))
    try:
        gg.as_graph(M)
    except AsymmetricGraphError as e:
        res[name + ":asymmetric"] = h(np.frombuffer(str(e).encode(), np.uint8))
        M = gg.symmetrize(M)
    for setting in ("1", "2", "2-all-parallel"):
        t = int(setting[0])
        numba.set_num_threads(t); gg.backends.set_threads(t)
        kt.PARALLEL_WORK = 0 if setting.endswith("parallel") else (1 << 22)
        G = gg.as_graph(M)
        Gc = gg.as_graph(M, weights=False, closed=True)
        res[f"{name}:{setting}:as_graph"] = h(G.indptr, G.indices, G.weights, *(G.closed_csr()))
        res[f"{name}:{setting}:as_graph-closed"] = h(Gc.indptr, Gc.indices, Gc.weights, *(Gc.closed_csr()))
        for be in ("numba", "suitesparse"):
            res[f"{name}:{setting}:{be}:mis2(A)"] = h(gg.mis2(M, backend=be).vertices)
            res[f"{name}:{setting}:{be}:mis2(G)"] = h(gg.mis2(G, backend=be).vertices)
            a = gg.aggregate(G, backend=be)
            res[f"{name}:{setting}:{be}:aggregate"] = h(a.labels, a.roots)
    print(name, flush=True, file=sys.stderr)
json.dump(res, open(sys.argv[1], "w"), indent=0, sort_keys=True)
print(len(res), "hashes")

"""Hashes of what as_graph makes (open and closed, with values and without, its error on an
asymmetric input), of mis2 of the matrix (numba and suitesparse) and of aggregate (numba), on
the benchmark graphs, more of ../shared/data and a few generated ones (block rows among them),
at 1 and 2 threads and 2 with every kernel a parallel region.
usage: PYTHONPATH=<tree> identity.py OUT.json   (session 10's identity.py with aggregate and
block-structured inputs)"""
import hashlib, json, os, sys
import numpy as np, scipy.sparse as sp, numba
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
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
    out["elasticity3d:7"] = gg.generators.elasticity3d(7)
    B = sp.kron(R, np.ones((3, 3)), format="csr"); B.sort_indices(); out["blocks-adjacency"] = B  # diagonal blocks empty
    E = sp.csr_array(gg.generators.elasticity3d(6)).tolil(); E[4, 40] = E[40, 4] = 0; E = E.tocsr(); E.eliminate_zeros()
    out["blocks-broken-symmetric"] = E  # a symmetric pair cut out of a block: groups of other sizes
    F = sp.csr_array(gg.generators.elasticity3d(6)).tolil(); F[4, 40] = 0; F = F.tocsr(); F.eliminate_zeros()
    out["blocks-asymmetric"] = F
    U = R.tocoo(); perm = rng.permutation(U.nnz)
    out["unsorted"] = sp.csr_array((U.data[perm], (U.row[perm], U.col[perm])), shape=U.shape)
    return out


graphs = {s: s for s in ["laplace3d:100", "elasticity3d:40"] + [f"/work/shared/data/{n}.mtx.gz" for n in
          ("coAuthorsDBLP", "delaunay_n17", "delaunay_n14", "wiki-Vote", "usroads-48", "PGPgiantcompo",
                  "fe_4elt2", "rgg_n_2_15_s0", "astro-ph")]}
graphs.update(generated())
res = {}
for name, M in graphs.items():
    if isinstance(M, str):
        M = sp.csr_array(matrix(M))
    name = name.split("/")[-1]
    for setting in ("1", "2", "2-all-parallel"):
        t = int(setting[0])
        numba.set_num_threads(t); gg.backends.set_threads(t)
        kt.PARALLEL_WORK = 0 if setting.endswith("parallel") else DEFAULT_WORK
        try:
            gg.as_graph(M)
            S = M
        except gg.errors.AsymmetricGraphError as e:
            res[f"{name}:{setting}:asymmetric"] = [e.one_way, e.stored, str(e)]
            S = gg.symmetrize(M)
        G = gg.as_graph(S)
        Gp = gg.as_graph(S, weights=False)
        Gc = gg.as_graph(S, weights=False, closed=True)
        res[f"{name}:{setting}:as_graph"] = h(G.indptr, G.indices, G.weights, *(G.closed_csr()))
        res[f"{name}:{setting}:as_graph-pattern"] = h(Gp.indptr, Gp.indices, Gp.weights)
        res[f"{name}:{setting}:as_graph-closed"] = h(Gc.indptr, Gc.indices, Gc.weights, *(Gc.closed_csr()))
        for be in ("numba", "suitesparse"):
            if be == "suitesparse" and setting.endswith("parallel"):
                continue
            r = gg.mis2(S, backend=be)
            res[f"{name}:{setting}:{be}:mis2(A)"] = h(r.vertices)
        res[f"{name}:{setting}:numba:aggregate"] = (lambda a: h(a.labels, a.roots))(gg.aggregate(S, backend="numba"))
    print(name, flush=True)
kt.PARALLEL_WORK = DEFAULT_WORK
json.dump(res, open(sys.argv[1], "w"), indent=1, sort_keys=True)
print(len(res), "hashes")

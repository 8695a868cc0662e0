"""sha256 (16 hex digits) of what session 9's changes could touch beyond hashes2.py: the
colorings of Elasticity3D 40³ (every method, distance 1 and 2; numba 1 and 2 threads,
suitesparse 2 threads) and the GOSH hierarchies, whose keys _Keys.led makes."""
import sys, hashlib, json, numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph import backends

def digest(hierarchy):
    """The levels' labels, vertex weights and coarse graphs (not their timings)."""
    h = hashlib.sha256()
    for level in hierarchy.levels:
        g = level.graph
        for a in (level.labels, level.vertex_weights, g.indptr, g.indices, g.weights):
            a = np.asarray(a) if a is not None else np.zeros(0)
            h.update(str(a.dtype).encode())
            h.update(np.ascontiguousarray(a).tobytes())
    return h


def load(spec):
    if spec.endswith(".mtx.gz"):
        return gg.io.read_matrix_market(spec)[0]
    name, _, d = spec.partition(":")
    return getattr(gg.generators, name)(*(int(x) for x in d.split(",")))

out = {}
E = gg.as_graph(sp.csr_matrix(load("elasticity3d:40")))
for th, be in ((1, "numba"), (2, "numba"), (2, "suitesparse")):
    backends.set_threads(th)
    for kw in [{}, {"priority": "random"}, {"seed": 7}, {"method": "jones_plassmann"}, {"method": "hybrid"},
               {"method": "mis"}, {"method": "sequential"}, {"distance": 2}]:
        r = gg.color(E, backend=be, **kw)
        key = f"elasticity3d:40|{be}|{th}|{json.dumps(kw)}"
        out[key] = hashlib.sha256(np.asarray(r.colors, np.int64).tobytes()).hexdigest()[:16] + \
            f" n_colors={r.n_colors} it={r.iterations}"
        print(key, out[key], flush=True)
for spec in ["laplace3d:30", "/work/shared/data/coAuthorsDBLP.mtx.gz", "/work/shared/data/delaunay_n17.mtx.gz"]:
    A = sp.csr_matrix(load(spec))
    for be in ("numba", "suitesparse"):
        for method in ("gosh", "gosh_hec"):
            h = digest(gg.coarsen(A, method, backend=be))
            key = f"{spec.split('/')[-1]}|{be}|coarsen {method}"
            out[key] = h.hexdigest()[:16]
            print(key, out[key], flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=0)

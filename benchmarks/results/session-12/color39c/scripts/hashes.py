# sha256 (16 hex digits), n_colors and rounds of gg.color on every graph of ../shared/data, Laplace3D, Elasticity3D
# and four networkx graphs; numba and suitesparse, 1 and 2 threads (session 9 hashes2.py, more grids).
# python hashes.py OUT.json [GRAPH-FILTER]
import sys, hashlib, json, pathlib, numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph import backends
out = {}
graphs = sorted(str(p) for p in pathlib.Path("/work/shared/data").glob("*.mtx.gz")) + \
    ["laplace3d:30", "laplace3d:100", "elasticity3d:20", "elasticity3d:40", "nx:gnm", "nx:star", "nx:ba", "nx:cliques"]
import networkx as nx
NX = {"nx:gnm": lambda: nx.gnm_random_graph(3000, 150000, seed=1), "nx:star": lambda: nx.star_graph(5000),
      "nx:ba": lambda: nx.barabasi_albert_graph(20000, 8, seed=2),
      "nx:cliques": lambda: nx.disjoint_union(nx.complete_graph(150), nx.connected_caveman_graph(40, 30))}
if len(sys.argv) > 2: graphs = [g for g in graphs if sys.argv[2] in g]
mats = {}
for spec in graphs:
    if spec in NX: A = nx.to_scipy_sparse_array(NX[spec]())
    elif spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
    else:
        name,_,d = spec.partition(":"); A = getattr(gg.generators,name)(*(int(x) for x in d.split(",")))
    mats[spec] = gg.as_graph(sp.csr_matrix(A))
for th in (1, 2):
    backends.set_threads(th)
    for be in ("numba", "suitesparse"):
        for spec, G in mats.items():
            kws = [{}, {"priority": "random"}, {"seed": 7}]
            if (th, be) in ((1, "numba"), (2, "suitesparse")):
                kws += [{"method": "jones_plassmann"}, {"method": "hybrid"}, {"method": "mis"}, {"method": "sequential"},
                        {"distance": 2}]
            for kw in kws:
                r = gg.color(G, backend=be, **kw)
                c = np.asarray(r.colors, np.int64)
                key = f"{spec.split('/')[-1]}|{be}|{th}|{json.dumps(kw)}"
                out[key] = hashlib.sha256(c.tobytes()).hexdigest()[:16] + f" n_colors={r.n_colors} it={r.iterations}"
                print(key, out[key], flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=0)

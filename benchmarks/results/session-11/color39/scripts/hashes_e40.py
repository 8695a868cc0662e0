# Elasticity3D 40³ and Laplace3D 100³ greedy colorings (defaults, random priority, seed 7): numba 1 and 2 threads, suitesparse 2
import sys, hashlib, json, numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph import backends
out = {}
mats = {s: gg.as_graph(sp.csr_matrix(getattr(gg.generators, s.split(":")[0])(int(s.split(":")[1]))))
        for s in ("elasticity3d:40", "laplace3d:100")}
for th, be in ((1, "numba"), (2, "numba"), (2, "suitesparse")):
    backends.set_threads(th)
    for spec, G in mats.items():
        for kw in ({}, {"priority": "random"}, {"seed": 7}):
            r = gg.color(G, backend=be, **kw)
            key = f"{spec}|{be}|{th}|{json.dumps(kw)}"
            out[key] = hashlib.sha256(np.asarray(r.colors, np.int64).tobytes()).hexdigest()[:16] + f" n_colors={r.n_colors} it={r.iterations}"
            print(key, out[key], flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=0)

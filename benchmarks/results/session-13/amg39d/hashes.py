"""Hashes of SA-AMG hierarchies: every level's A, P, R arrays and dtypes, CG's residuals and solution."""
import hashlib, json, sys, os
import numpy as np, scipy.sparse as sp
import gbgraph as gg
out = {}
for name, A in [("laplace3d:40", gg.generators.laplace3d(40)), ("laplace3d:60", gg.generators.laplace3d(60)),
                ("elasticity3d:12", gg.generators.elasticity3d(12)),
                ("elasticity3d:40", gg.generators.elasticity3d(40)), ("laplace3d:100", gg.generators.laplace3d(100))]:
    ml = gg.amg.smoothed_aggregation_solver(A, "mis2")
    h = hashlib.sha256()
    for level in ml.levels:
        for M in (level.A, getattr(level, "P", None), getattr(level, "R", None)):
            if M is None: continue
            h.update(repr((type(M).__name__, M.shape, M.format)).encode())
            for a in (M.data, M.indices, M.indptr):
                h.update(str(a.dtype).encode()); h.update(np.ascontiguousarray(a).tobytes())
        h.update(np.asarray(level.B).tobytes())
    b = np.random.default_rng(0).random(A.shape[0])
    res = []
    x = ml.solve(b, tol=1e-12, accel="cg", residuals=res)
    h.update(np.array(res).tobytes()); h.update(x.tobytes())
    out[name] = [h.hexdigest()[:16], len(res) - 1]
print(json.dumps(out))

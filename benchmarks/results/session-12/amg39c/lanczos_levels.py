"""The host Lanczos estimates of ρ(D⁻¹A) per level of the SA-AMG setup: steps, CPU ms, and
the cost of one step's parts (scipy's product, numpy's vector passes) on each level's A;
pyamg's estimate of the same ρ (approximate_spectral_radius of D⁻¹A, as its prolongator
smoother calls it) on the finest level. One thread, CPU time, medians of 5."""
import json, sys, time
import numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph.solvers import polynomial as poly
from pyamg.util.linalg import approximate_spectral_radius
from pyamg.util.utils import get_diagonal, scale_rows


def cpu(f, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.process_time(); f(); times.append(1e3 * (time.process_time() - t))
    return float(np.median(times))


size = int(sys.argv[1])
A = gg.generators.laplace3d(size)
ml = gg.amg.smoothed_aggregation_solver(A, "mis2")
run, steps = poly._HostLanczos.run, []
poly._HostLanczos.run = lambda self, first, last: (steps.append((self.A.shape[0], last)), run(self, first, last))[1]
out = {"size": size, "levels": []}
for level in ml.levels[:-1]:
    L = level.A
    d = L.diagonal()
    steps.clear()
    total = cpu(lambda: poly.spectral_radius(L, d))
    n_steps = max(last for _, last in steps) if steps else 0
    v, s = np.random.default_rng(0).random(L.shape[0]), 1 / np.sqrt(d)
    product = cpu(lambda: L @ v)
    out["levels"].append({"rows": L.shape[0], "entries": L.nnz, "index": L.indices.dtype.name, "steps": n_steps,
                          "total_ms": round(total, 2), "per_step_ms": round(total / max(n_steps, 1), 3),
                          "product_ms": round(product, 3)})
poly._HostLanczos.run = run
M = sp.csr_matrix(A)
D_inv_A = scale_rows(M, get_diagonal(M, inv=True), copy=True)


def pyamg_rho():
    if hasattr(D_inv_A, "rho"):  # pyamg keeps its estimate on the matrix
        del D_inv_A.rho
    approximate_spectral_radius(D_inv_A)


out["pyamg_finest_ms"] = round(cpu(pyamg_rho, 3), 1)
print(json.dumps(out, indent=1))

"""suitesparse backend: coarsen (MIS-2) and the HEC hierarchy at Laplace3D 100³, in SpMV-eq."""
import sys, time, json, os
import numpy as np, scipy.sparse as sp
import gbgraph as gg
A = sp.csr_matrix(gg.generators.laplace3d(100)); x = np.ones(A.shape[0]); G = gg.as_graph(A)
def mn(f, r):
    f(); t = []
    for _ in range(r):
        s = time.perf_counter(); f(); t.append(time.perf_counter() - s)
    return 1e3 * min(t)
spmv = mn(lambda: A @ x, 30)
row = {"tree": sys.argv[1], "spmv_ms": spmv,
       "coarsen suitesparse": mn(lambda: gg.coarsen(G, backend="suitesparse"), 3),
       "hec hierarchy suitesparse": mn(lambda: gg.coarsen(G, "hec", backend="suitesparse"), 3)}
print(sys.argv[1], " | ".join(f"{k} {v:.1f} ms = {v / spmv:.1f}" for k, v in row.items() if k.endswith("suitesparse")), f"spmv {spmv:.2f}")
json.dump(row, open(sys.argv[2], "w"), indent=1)

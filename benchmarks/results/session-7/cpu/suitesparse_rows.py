# issue 39 part 2: the suitesparse backend's coloring and MIS-2 hierarchy on prepared Laplace3D 100³,
# in SpMV-equivalents (scipy float64 A @ x in the same process); min of 3 calls after one warm call
import sys, time, json
import numpy as np
import gbgraph as gg
A = gg.generators.laplace3d(100).astype(np.float64).tocsr()
G = gg.as_graph(A)
x = np.ones(A.shape[0])
def best(f, k=3):
    f(); t = []
    for _ in range(k):
        s = time.perf_counter(); f(); t.append(time.perf_counter() - s)
    return min(t) * 1e3
spmv = best(lambda: A @ x, 20)
rows = {"color": best(lambda: gg.color(G, backend="suitesparse")),
        "coarsen": best(lambda: gg.coarsen(G, backend="suitesparse")),
        "hec hierarchy": best(lambda: gg.coarsen(G, "hec", backend="suitesparse")),
        "mis2": best(lambda: gg.mis2(G, backend="suitesparse"))}
print(sys.argv[1], f"SpMV {spmv:.2f} ms |", " | ".join(f"{k} {v:.0f} ms = {v / spmv:.1f}" for k, v in rows.items()))
json.dump({"tree": sys.argv[1], "spmv_ms": spmv, "ms": rows}, open(sys.argv[2], "w"))

import time, sys, numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph import amg
from gbgraph.graph import as_graph
from gbgraph.algorithms.aggregation import aggregate
A = gg.generators.laplace3d(int(sys.argv[1]))
ml = amg.smoothed_aggregation_solver(A, "mis2")
def cpu(f, r=5):
    f(); ts = []
    for _ in range(r):
        c = time.process_time(); f(); ts.append(1e3*(time.process_time()-c))
    return min(ts)
x = np.ones(A.shape[0])
print("spmv", cpu(lambda: A @ x, 20))
for k, lv in enumerate(ml.levels[:-1]):
    M = lv.A
    G = as_graph(M, weights=False)
    print(k, M.shape[0], M.nnz, M.indices.dtype, "as_graph %.1f" % cpu(lambda: as_graph(M, weights=False)),
          "aggregate(G) %.1f" % cpu(lambda: aggregate(G, "mis2", backend="numba")),
          "_aggregation_operator %.1f" % cpu(lambda: amg._aggregation_operator(M, "mis2", gg.backend("numba"))),
          "gg.aggregate(G) %.1f" % cpu(lambda: gg.aggregate(G)))

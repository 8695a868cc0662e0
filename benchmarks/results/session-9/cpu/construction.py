import sys, time
sys.path.insert(0, "/work/wt/small39/benchmarks")
import numpy as np, scipy.sparse as sp, gbgraph as gg, numba
numba.set_num_threads(1)
from common import matrix
from gbgraph.backends.numba.kernels import coarse as kc
from gbgraph.backends.numba.kernels.threads import serial_twin
A = sp.csr_matrix(matrix(sys.argv[1])); G = gg.as_graph(A)
h = gg.coarsen(G, sys.argv[2], backend="numba")
tot = {}
for rep in range(9):
    for lev in range(min(3, len(h) - 1)):
        g = h[lev].graph; labels = np.asarray(h[lev].labels, np.int64); k = h[lev + 1].n
        indptr, indices = g.indptr.astype(np.int64), g.indices
        w = g.weights if (g.weights is not None and not (g.weights == 1).all()) else None
        t = time.thread_time(); kc.coarse_by_sort(indptr, indices, labels, k, w, False); d = time.thread_time() - t
        tot[lev] = min(tot.get(lev, 1e9), d)
print({k: round(v * 1e3, 2) for k, v in tot.items()})

"""Where gg.mis2(scipy A) spends its time beyond mis2(G), one thread, process CPU time, numba.

    PYTHONPATH=<tree> python parts.py [graphs...]
Each figure the minimum of 7 calls after one, in ms, beside scipy's SpMV (min of 30).
"""
import os, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
import numpy as np, scipy.sparse as sp
from common import matrix
import gbgraph as gg
from gbgraph.backends.numba.kernels import canonical
gg.backends.set_threads(1)

def t(fn, k=7):
    fn(); ts = []
    for _ in range(k):
        c = time.process_time(); fn(); ts.append(time.process_time() - c)
    return 1e3 * min(ts)

graphs = sys.argv[1:] or ["/work/shared/data/coAuthorsDBLP.mtx.gz", "/work/shared/data/delaunay_n17.mtx.gz"]
for spec in graphs:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    G = gg.as_graph(A)
    spmv = t(lambda: A @ x, 30)
    be = gg.backends.backend("numba")
    rows = {
        "as_graph(A)": lambda: gg.as_graph(A),
        "as_graph(A, weights=False)": lambda: gg.as_graph(A, weights=False),
        "as_graph(A, weights=False, closed=True)": lambda: gg.as_graph(A, weights=False, closed=True),
        "insert_diagonal": lambda: canonical.insert_diagonal(G.indptr, G.indices, np.int64, G.indices.dtype),
        "mis2(G) (A+I cached)": lambda: gg.mis2(G, backend="numba"),
        "mis2(fresh closed G)": None,
        "mis2(A)": lambda: gg.mis2(A, backend="numba"),
    }
    out = []
    for name, fn in rows.items():
        if fn is None:
            Gs = [gg.as_graph(A, weights=False, closed=True) for _ in range(8)]
            it = iter(Gs)
            ms = t(lambda: gg.mis2(next(it), backend="numba"))
        else:
            ms = t(fn)
        out.append(f"{name} {ms:.2f} ms ({ms / spmv:.2f})")
    print(f"{spec.split('/')[-1]} n={A.shape[0]} nnz={A.nnz} SpMV {spmv:.2f} ms load {os.getloadavg()[0]:.1f}\n  " + "\n  ".join(out), flush=True)

import os, sys; sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../.."))
import numba, numpy as np, scipy.sparse as sp
from common import matrix
from gbgraph.backends.numba.kernels.products import prefetch
from gbgraph.backends.numba.kernels import canonical

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from vdefs import floor_lookup, t

@numba.njit(cache=True)
def lookup_pf(indptr, indices, D):
    n = indptr.size - 1
    cursor = np.empty((n, 2), indices.dtype)
    for j in range(n):
        cursor[j, 0], cursor[j, 1] = indptr[j], indptr[j + 1]
    upper = matched = 0
    d1 = np.uint64(D); d2 = np.uint64(2 * D)
    nnz = np.uint64(indices.size)
    for i in range(n):
        for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
            if p + d2 < nnz:
                prefetch(cursor, np.uint64(indices[p + d2]) * np.uint64(2))
                prefetch(indices, np.uint64(cursor[np.uint64(indices[p + d1]), 0]))
            j = indices[p]
            if j > i:
                upper += 1
                at, end = cursor[j, 0], cursor[j, 1]
                if at < end and indices[np.uint64(at)] == i:
                    matched += 1
                    cursor[j, 0] = at + 1
    return upper, matched

for spec in ["laplace3d:100", "elasticity3d:40", "/work/shared/data/coAuthorsDBLP.mtx.gz", "/work/shared/data/delaunay_n17.mtx.gz"]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    ip, ix = A.indptr, A.indices
    if spec.startswith(("lap", "ela")):
        B = sp.csr_matrix(A); B.setdiag(0); B.eliminate_zeros(); ip, ix = B.indptr, B.indices
    assert lookup_pf(ip, ix, 8) == floor_lookup(ip, ix)
    print(spec.split("/")[-1], open("/proc/loadavg").read().split()[0], " ".join(f"{name} {t(f):.2f}" for name, f in [
        ("spmv", lambda: A @ x), ("lookup", lambda: floor_lookup(ip, ix)), ("pf4", lambda: lookup_pf(ip, ix, 4)),
        ("pf8", lambda: lookup_pf(ip, ix, 8)), ("pf16", lambda: lookup_pf(ip, ix, 16)), ("pf32", lambda: lookup_pf(ip, ix, 32)), ("lookup", lambda: floor_lookup(ip, ix))]), flush=True)

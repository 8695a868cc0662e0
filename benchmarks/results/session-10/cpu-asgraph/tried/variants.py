import sys, time; sys.path.insert(0, "/work/wt/cpu39/benchmarks")
import numba, numpy as np, scipy.sparse as sp
from common import matrix
from gbgraph.backends.numba.kernels import canonical

@numba.njit(cache=True)
def floor_lookup(indptr, indices):
    n = indptr.size - 1
    cursor = np.empty((n, 2), indices.dtype)
    for j in range(n):
        cursor[j, 0], cursor[j, 1] = indptr[j], indptr[j + 1]
    upper = matched = 0
    for i in range(n):
        for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
            j = indices[p]
            if j > i:
                upper += 1
                at, end = cursor[j, 0], cursor[j, 1]
                if at < end and indices[np.uint64(at)] == i:
                    matched += 1
                    cursor[j, 0] = at + 1
    return upper, matched

@numba.njit(cache=True)
def floor_read(indptr, indices):
    n = indptr.size - 1
    unsorted = 0
    s = 0
    for i in range(n):
        previous = -1
        for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
            j = indices[p]
            unsorted += j <= previous
            previous = j
            s += j > i
    return unsorted, s

@numba.njit(cache=True)
def push(indptr, indices):
    """Upper entries (i, j) write i to row j's next slot of a scratch; row j compares its
    lower entries with its slots when read."""
    n = indptr.size - 1
    fill = np.empty(n, np.int64)
    for j in range(n):
        fill[j] = indptr[j]
    scratch = np.empty(indices.size, indices.dtype)
    bad = 0
    upper = 0
    lower = 0
    for i in range(n):
        start, end = indptr[i], indptr[i + 1]
        # lower entries of row i: compare with slots written by rows < i
        q = start
        f = fill[i]
        p = start
        while p < end and indices[p] < i:
            bad += (q >= f) or scratch[q] != indices[p]
            q += 1
            p += 1
        lower += p - start
        bad += q != f
        while p < end:
            j = indices[p]
            if j > i:
                upper += 1
                s = fill[j]
                if s < indptr[j + 1]:
                    scratch[s] = i
                    fill[j] = s + 1
                else:
                    bad += 1
            p += 1
    return bad, upper, lower

def t(fn, k=15):
    fn(); best = 1e9
    for _ in range(k):
        s = time.process_time(); fn(); best = min(best, time.process_time() - s)
    return 1e3 * best

for spec in ["laplace3d:100", "elasticity3d:40", "/work/shared/data/coAuthorsDBLP.mtx.gz", "/work/shared/data/delaunay_n17.mtx.gz"]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    ip, ix = A.indptr, A.indices
    if spec.startswith(("lap", "ela")):
        B = sp.csr_matrix(A); B.setdiag(0); B.eliminate_zeros(); ip, ix = B.indptr, B.indices
    print(push(ip, ix)[0], floor_lookup(ip, ix))
    print(spec.split("/")[-1], open("/proc/loadavg").read().split()[0], " ".join(f"{name} {t(f):.2f}" for name, f in [
        ("spmv", lambda: A @ x), ("scan", lambda: canonical._scan_rows.serial and canonical.scan_rows(ip, ix, None, False)),
        ("read", lambda: floor_read(ip, ix)), ("lookup", lambda: floor_lookup(ip, ix)), ("push", lambda: push(ip, ix))]), flush=True)

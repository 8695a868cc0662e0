import sys, time, numpy as np, scipy.sparse as sp, numba
sys.path.insert(0, "/work/wt/small39/benchmarks")
from common import matrix

@numba.njit(cache=True)
def cursor_read(indptr, indices):
    n = indptr.size - 1
    cursor = np.empty((n, 2), indices.dtype)
    for j in range(n):
        cursor[j, 0], cursor[j, 1] = indptr[j], indptr[j + 1]
    upper = matched = 0
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if j > i:
                upper += 1
                at, end = cursor[j, 0], cursor[j, 1]
                if at < end and indices[np.uint64(at)] == i:
                    matched += 1
                    at += 1
                cursor[j, 0] = at
    return upper, matched

@numba.njit(cache=True)
def scatter(indptr, indices, scratch):
    n = indptr.size - 1
    cursor = np.empty((n, 2), indices.dtype)
    for j in range(n):
        cursor[j, 0], cursor[j, 1] = indptr[j], indptr[j + 1]
    upper = matched = lower = 0
    for i in range(n):
        p = indptr[i]
        end = indptr[i + 1]
        first_upper = cursor[i, 0]  # where the upper entries referencing i stopped
        while p < end and indices[p] < i:
            matched += scratch[p] == indices[p] and p < first_upper
            lower += 1
            p += 1
        for q in range(p, end):
            j = indices[q]
            if j > i:
                upper += 1
                at, e = cursor[j, 0], cursor[j, 1]
                if at < e:
                    scratch[np.uint64(at)] = i
                cursor[j, 0] = at + 1
    return upper, matched, lower

for spec in sys.argv[1:]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    ind = A.indices.astype(np.int32); ip = A.indptr.astype(np.int32)
    scratch = np.empty(ind.size, np.int32)
    print(cursor_read(ip, ind), scatter(ip, ind, scratch))
    r = {"spmv": [], "cursor": [], "scatter": []}
    for _ in range(30):
        for k, f in (("spmv", lambda: A @ x), ("cursor", lambda: cursor_read(ip, ind)), ("scatter", lambda: scatter(ip, ind, scratch))):
            t = time.perf_counter(); f(); r[k].append(time.perf_counter() - t)
    print(spec.split("/")[-1], " ".join(f"{k} {1e3*min(v):.2f}" for k, v in r.items()))

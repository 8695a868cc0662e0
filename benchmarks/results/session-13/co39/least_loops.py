"""The least value of a vector over each closed row (MIS-2's column pass and decision), written
several ways as numba kernels over every row and over a third of them, one thread, process CPU
time (each the mean of 50 calls), with the values checked against the plain loop.

    python least_loops.py /work/shared/data/coAuthorsDBLP.mtx.gz

loop: one loop a row (81b2177's ``_least``); fixed8: rows of 1-8 columns as eight loads, the
last column read again past the row's end, and a tree of minima (this branch's ``_least``);
fixed8loop: eight such loads for every row, then a loop over the rest; blocks4: blocks of four
clamped loads; fixed16: sixteen clamped loads for rows of up to 16 columns; f8then16: eight,
else sixteen, else a loop.
"""
import sys, time, os
import numpy as np, scipy.sparse as sp, numba
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from common import matrix

A = sp.csr_matrix(matrix(sys.argv[1])); n = A.shape[0]
indptr, cols = A.indptr.astype(np.int64), A.indices.astype(np.int32)
print(sys.argv[1].split("/")[-1], "degrees: mean", round(np.diff(indptr).mean(), 2), "quartiles, 90th, 99th",
      np.percentile(np.diff(indptr), [25, 50, 75, 90, 99]))
rng = np.random.default_rng(0)
M = rng.integers(-2**31 + 1, 2**31 - 1, n, dtype=np.int32)
one = np.uint64(1)


@numba.njit(inline="always")
def at(M, cols, p, l):
    return M[np.uint64(cols[min(p, l)])]


@numba.njit(inline="always")
def eight(M, cols, s, l):
    low = min(min(at(M, cols, s, l), at(M, cols, s + np.uint64(1), l)), min(at(M, cols, s + np.uint64(2), l), at(M, cols, s + np.uint64(3), l)))
    high = min(min(at(M, cols, s + np.uint64(4), l), at(M, cols, s + np.uint64(5), l)), min(at(M, cols, s + np.uint64(6), l), at(M, cols, s + np.uint64(7), l)))
    return min(low, high)


@numba.njit(inline="always")
def loop(i, s, e, cols, M):
    d = M[i]
    for p in range(np.uint64(s), np.uint64(e)):
        d = min(d, M[np.uint64(cols[p])])
    return d


@numba.njit(inline="always")
def fixed8(i, s, e, cols, M):
    s, e = np.uint64(s), np.uint64(e)
    d = M[i]
    if s < e and e - s <= np.uint64(8):
        return min(d, eight(M, cols, s, e - one))
    for p in range(s, e):
        d = min(d, M[np.uint64(cols[p])])
    return d


@numba.njit(inline="always")
def fixed8loop(i, s, e, cols, M):
    s, e = np.uint64(s), np.uint64(e)
    d = M[i]
    if s < e:
        d = min(d, eight(M, cols, s, e - one))
        for p in range(s + np.uint64(8), e):
            d = min(d, M[np.uint64(cols[p])])
    return d


@numba.njit(inline="always")
def blocks4(i, s, e, cols, M):
    s, e = np.uint64(s), np.uint64(e)
    d = M[i]
    if s < e:
        l = e - one
        for p in range(s, e, np.uint64(4)):
            d = min(d, min(min(at(M, cols, p, l), at(M, cols, p + np.uint64(1), l)),
                           min(at(M, cols, p + np.uint64(2), l), at(M, cols, p + np.uint64(3), l))))
    return d


@numba.njit(inline="always")
def fixed16(i, s, e, cols, M):
    s, e = np.uint64(s), np.uint64(e)
    d = M[i]
    if s < e and e - s <= np.uint64(16):
        l = e - one
        return min(d, min(eight(M, cols, s, l), eight(M, cols, s + np.uint64(8), l)))
    for p in range(s, e):
        d = min(d, M[np.uint64(cols[p])])
    return d


@numba.njit(inline="always")
def f8then16(i, s, e, cols, M):
    s, e = np.uint64(s), np.uint64(e)
    d = M[i]
    if s < e and e - s <= np.uint64(8):
        return min(d, eight(M, cols, s, e - one))
    if e - s <= np.uint64(16):
        l = e - one
        return min(d, min(eight(M, cols, s, l), eight(M, cols, s + np.uint64(8), l)))
    for p in range(s, e):
        d = min(d, M[np.uint64(cols[p])])
    return d


def make(f):
    @numba.njit
    def kernel(indptr, rows, cols, M, out):
        for q in range(rows.size):
            i = rows[q]
            out[q] = f(i, indptr[i], indptr[i + 1], cols, M)
    return kernel


kernels = {f.py_func.__name__: make(f) for f in (loop, fixed8, fixed8loop, blocks4, fixed16, f8then16)}
for rows, label in ((np.arange(n, dtype=np.int64), "every row"),
                    (np.sort(rng.choice(n, n // 3, replace=False)).astype(np.int64), "a third")):
    ref = np.empty(rows.size, np.int32)
    kernels["loop"](indptr, rows, cols, M, ref)
    times = {name: [] for name in kernels}
    for rep in range(3):
        for name, k in kernels.items():
            out = np.empty(rows.size, np.int32)
            k(indptr, rows, cols, M, out)
            assert (out == ref).all(), name
            c = time.process_time()
            for _ in range(50):
                k(indptr, rows, cols, M, out)
            times[name].append((time.process_time() - c) / 50 * 1e3)
    print(f"  {label}, ms (min of 3; load {open('/proc/loadavg').read().split()[0]}): " +
          ", ".join(f"{name} {min(t):.2f}" for name, t in times.items()))

# the plain loop with the same rows reading their columns from elsewhere: in order, or among a
# thousand values (cache-resident): what the gathers' misses cost
for label, order in (("in order", (np.arange(cols.size) % n).astype(np.int32)), ("a thousand", cols % 1000)):
    out = np.empty(n, np.int32)
    everything = np.arange(n, dtype=np.int64)
    kernels["loop"](indptr, everything, order, M, out)
    c = time.process_time()
    for _ in range(50):
        kernels["loop"](indptr, everything, order, M, out)
    print(f"  loop, every row, columns {label}: {(time.process_time() - c) / 50 * 1e3:.2f} ms")

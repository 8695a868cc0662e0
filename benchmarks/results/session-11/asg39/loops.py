"""Bare check loops over the upper entries (no order, range or copy), one thread, process
CPU time, median of 21 calls: v0 the pass's structure (a search for the diagonal, then the
lookups), v2 one branch-free loop a row (every entry looks up, lower ones without effect),
v3 the diagonal found by a count instead of a search. Equal counts asserted.
usage: cd /tmp && NUMBA_NUM_THREADS=1 python loops.py GRAPH...   (not part of gbgraph)"""
import sys, time, numpy as np, numba, scipy.sparse as sp
sys.path.insert(0, __import__("os").path.join(__import__("os").path.dirname(__import__("os").path.abspath(__file__)), "../../.."))
from common import matrix

@numba.njit(cache=True)
def v0(indptr, indices):
    n = indptr.size - 1; one = np.uint64(1); stored = np.uint64(indptr[n])
    cursor = np.empty(n, indices.dtype)
    for j in range(n): cursor[j] = indptr[j]
    upper = matched = diagonals = 0
    for i in range(n):
        start, end = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        p = start
        while p < end and indices[p] < i:
            p += one
        has = p < end and indices[p] == i
        diagonals += has
        if has: p += one
        upper += end - p
        while p < end:
            k = np.uint64(indices[p]); at = np.uint64(cursor[k])
            if at < stored and indices[at] == i:
                matched += 1; at += one
            cursor[k] = at
            p += one
    return upper, matched, diagonals

@numba.njit(cache=True)
def v2(indptr, indices):
    n = indptr.size - 1; one = np.uint64(1); stored = np.uint64(indptr[n]); last = stored - one
    cursor = np.empty(n, indices.dtype)
    for j in range(n): cursor[j] = indptr[j]
    upper = matched = diagonals = 0
    for i in range(n):
        start, end = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        ii = np.int64(i)
        for p in range(start, end):
            j = np.int64(indices[p]); k = np.uint64(j)
            up = j > ii
            diagonals += j == ii
            upper += up
            at = np.uint64(cursor[k])
            hit = up & (at < stored) & (np.int64(indices[min(at, last)]) == ii)
            matched += hit
            cursor[k] = at + np.uint64(hit)
    return upper, matched, diagonals

@numba.njit(cache=True)
def v3(indptr, indices):
    """v0 with lower part found by a counted loop (no early exit)"""
    n = indptr.size - 1; one = np.uint64(1); stored = np.uint64(indptr[n])
    cursor = np.empty(n, indices.dtype)
    for j in range(n): cursor[j] = indptr[j]
    upper = matched = diagonals = 0
    for i in range(n):
        start, end = np.uint64(indptr[i]), np.uint64(indptr[i + 1])
        low = np.uint64(0)
        for p in range(start, end):
            low += np.uint64(indices[p] < i)
        p = start + low
        has = p < end and indices[p] == i
        diagonals += has
        if has: p += one
        upper += end - p
        while p < end:
            k = np.uint64(indices[p]); at = np.uint64(cursor[k])
            if at < stored and indices[at] == i:
                matched += 1; at += one
            cursor[k] = at
            p += one
    return upper, matched, diagonals

def t(fn, k=21):
    fn(); ts=[]
    for _ in range(k):
        a=time.process_time(); fn(); ts.append(time.process_time()-a)
    return 1e3*np.median(ts)
for spec in sys.argv[1:]:
    A = sp.csr_matrix(matrix(spec)); ip, ind = A.indptr, A.indices; x = np.ones(A.shape[0])
    assert v0(ip, ind) == v2(ip, ind) == v3(ip, ind), (v0(ip, ind), v2(ip, ind))
    for r in range(2):
        print(spec.split("/")[-1], open("/proc/loadavg").read().split()[0], " ".join(f"{f.__name__} {t(lambda: f(ip, ind)):.2f}" for f in (v0, v2, v3)), f"spmv {t(lambda: A @ x):.2f}", flush=True)

"""The bare loops of variants.py and pf.py, and their timing helper."""
import time

import numba, numpy as np
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

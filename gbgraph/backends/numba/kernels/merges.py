"""Merges of sorted index lists in one pass: the index work of the general forms (``verbs.py``).

:func:`union` serves the element-wise add and accumulate, where ``numpy.union1d`` sorted the
concatenation of both lists and each value then needed a binary search to find its place;
:func:`search` finds sorted keys in sorted keys by galloping; :func:`keep_outside` writes a
result into ``out`` under a mask, keeping out's entries outside it, in one copy of out's
entries with the result's inserted."""

import numba
import numpy as np

__all__ = ["union", "search", "keep_outside"]


@numba.njit(cache=True)
def union(a, b):
    """The sorted union of the sorted lists ``a`` and ``b`` (each holding a value at most once).

    Returns
    -------
    keys : int64 array
        The union.
    where_a, where_b : int64 arrays
        The position in ``keys`` of each entry of ``a``, of each entry of ``b``.
    both_a, both_b : int64 arrays
        The positions in ``a`` and in ``b`` of the values they share, in increasing order.
    """
    na, nb = a.size, b.size
    keys = np.empty(na + nb, np.int64)
    where_a = np.empty(na, np.int64)
    where_b = np.empty(nb, np.int64)
    both_a = np.empty(min(na, nb), np.int64)
    both_b = np.empty(min(na, nb), np.int64)
    i = j = n = shared = 0
    while i < na and j < nb:
        if a[i] < b[j]:
            keys[n], where_a[i] = a[i], n
            i += 1
        elif b[j] < a[i]:
            keys[n], where_b[j] = b[j], n
            j += 1
        else:
            keys[n], where_a[i], where_b[j] = a[i], n, n
            both_a[shared], both_b[shared] = i, j
            shared += 1
            i += 1
            j += 1
        n += 1
    while i < na:
        keys[n], where_a[i] = a[i], n
        i += 1
        n += 1
    while j < nb:
        keys[n], where_b[j] = b[j], n
        j += 1
        n += 1
    return keys[:n], where_a, where_b, both_a[:shared], both_b[:shared]


@numba.njit(cache=True)
def search(a, b):
    """``numpy.searchsorted(a, b)`` (the first position of ``a`` holding each ``b`` or more)
    for sorted ``a`` and ``b``, and whether ``a`` holds it there: each search gallops from the
    previous one's position, so that a short ``b`` costs O(len(b) log(len(a) / len(b))) and
    a long one a merge's pass."""
    na = a.size
    at = np.empty(b.size, np.int64)
    found = np.empty(b.size, np.bool_)
    lo = 0
    for k in range(b.size):
        key = b[k]
        step, hi = 1, lo
        while hi < na and a[hi] < key:
            lo = hi + 1
            hi += step
            step *= 2
        hi = min(hi, na)
        while lo < hi:
            mid = (lo + hi) >> 1
            if a[mid] < key:
                lo = mid + 1
            else:
                hi = mid
        at[k] = lo
        found[k] = lo < na and a[lo] == key
    return at, found


@numba.njit(cache=True)
def keep_outside(own, own_values, dropped, z, z_values, at):
    """The entries of ``out<mask> = Z`` without replace: out's own (keys ``own``, values
    ``own_values``) but those at the sorted positions ``dropped`` (inside the mask), merged
    with Z's (``z``, ``z_values``), which go before out's entries ``at`` (``z``'s
    ``searchsorted`` in ``own``); values of one dtype.

    One loop over out's entries with one branch, taken only at a position dropped or written
    before: a frontier written into a large vector runs at about twice a copy's speed.

    Returns
    -------
    keys, values : arrays
        The result's entries, sorted.
    """
    no, nz, nd = own.size, z.size, dropped.size
    keys = np.empty(no + nz, np.int64)
    values = np.empty(no + nz, own_values.dtype)
    n = j = d = 0
    event = min(at[0] if nz else no, dropped[0] if nd else no)
    for p in range(no):
        if p == event:
            while j < nz and at[j] == p:
                keys[n] = z[j]
                values[n] = z_values[j]
                n += 1
                j += 1
            drop = d < nd and dropped[d] == p
            d += drop
            event = min(at[j] if j < nz else no, dropped[d] if d < nd else no)
            if drop:
                continue
        keys[n] = own[p]
        values[n] = own_values[p]
        n += 1
    for j in range(j, nz):
        keys[n] = z[j]
        values[n] = z_values[j]
        n += 1
    return keys[:n], values[:n]

"""The union of two sorted index lists in one merge pass: the index work of the general
forms' element-wise add and accumulate (``verbs.py``), where ``numpy.union1d`` sorts the
concatenation of both lists and each value then needs a binary search to find its place."""

import numba
import numpy as np

__all__ = ["union"]


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

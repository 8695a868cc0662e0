"""Membership and intersection of sorted index lists, for the sparse vectors of the numba
backend: one merge pass where both lists are long, a binary search of the short one in
the long one otherwise (numpy's searchsorted of a million positions in a million takes
~20 random reads each)."""

import numba
import numpy as np

__all__ = ["member", "matches"]

#: A list this many times shorter than the other is searched in it instead of merged.
_SEARCH_RATIO = 32


@numba.njit(cache=True)
def member(sorted_a, sorted_b):
    """Boolean mask over ``sorted_a``: which of its values appear in ``sorted_b``."""
    inside = np.zeros(sorted_a.size, np.bool_)
    ia, ib = matches(sorted_a, sorted_b)
    inside[ia] = True
    return inside


@numba.njit(cache=True)
def matches(sorted_a, sorted_b):
    """(ia, ib): the positions in ``sorted_a`` and in ``sorted_b`` of their common values,
    in increasing order (each list holds a value at most once)."""
    na, nb = sorted_a.size, sorted_b.size
    ia = np.empty(min(na, nb), np.int64)
    ib = np.empty(min(na, nb), np.int64)
    found = 0
    if nb * _SEARCH_RATIO < na:
        at = np.searchsorted(sorted_a, sorted_b)
        for k in range(nb):
            if at[k] < na and sorted_a[at[k]] == sorted_b[k]:
                ia[found], ib[found] = at[k], k
                found += 1
    elif na * _SEARCH_RATIO < nb:
        at = np.searchsorted(sorted_b, sorted_a)
        for k in range(na):
            if at[k] < nb and sorted_b[at[k]] == sorted_a[k]:
                ia[found], ib[found] = k, at[k]
                found += 1
    else:
        j = 0
        for i in range(na):
            x = sorted_a[i]
            while j < nb and sorted_b[j] < x:
                j += 1
            if j == nb:
                break
            if sorted_b[j] == x:
                ia[found], ib[found] = i, j
                found += 1
    return ia[:found], ib[:found]

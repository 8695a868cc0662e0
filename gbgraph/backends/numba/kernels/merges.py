"""Merges of sorted index lists in one pass: the index work of the general forms (``verbs.py``).

:func:`union` serves the element-wise add and accumulate, where ``numpy.union1d`` sorted the
concatenation of both lists and each value then needed a binary search to find its place;
:func:`keep_outside` writes a result into ``out`` under a mask, keeping out's entries outside
it, in one pass over out's keys, the mask's and the result's."""

import numba
import numpy as np

__all__ = ["union", "keep_outside"]


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
def keep_outside(own, own_values, mask, complement, z, z_values):
    """The entries of ``out<mask> = Z`` without replace: out's own (keys ``own``, values
    ``own_values``) outside the mask, merged with Z's (``z``, ``z_values``, all inside it).
    A key is inside where it is in ``mask`` and ``complement`` is False, or not in it and
    ``complement`` is True; keys sorted, values of one dtype.

    Only the keys of the mask and of Z are visited: out's entries between two of them are on
    one side of the mask, found by a binary search and copied (or skipped) as one run, so that
    a small frontier written into a large vector costs a copy of it, not a merge.

    Returns
    -------
    keys, values : arrays
        The result's entries.
    """
    no, nm, nz = own.size, mask.size, z.size
    keys = np.empty(no + nz, np.int64)
    values = np.empty(no + nz, own_values.dtype)
    i = m = j = n = 0
    while m < nm or j < nz:
        event = z[j] if j < nz and (m == nm or z[j] <= mask[m]) else mask[m]
        stop = i + np.searchsorted(own[i:], event)
        if not complement:  # out's entries before the event are outside the mask
            keys[n:n + stop - i] = own[i:stop]
            values[n:n + stop - i] = own_values[i:stop]
            n += stop - i
        i = stop
        in_mask = m < nm and mask[m] == event
        if in_mask:
            m += 1
        here = i < no and own[i] == event
        if j < nz and z[j] == event:  # inside the mask: Z's entry replaces out's
            keys[n], values[n] = event, z_values[j]
            n += 1
            j += 1
        elif here and in_mask == complement:
            keys[n], values[n] = event, own_values[i]
            n += 1
        if here:
            i += 1
    if not complement:
        keys[n:n + no - i] = own[i:]
        values[n:n + no - i] = own_values[i:]
        n += no - i
    return keys[:n], values[:n]

"""The index work of the numba backend's sparse vectors: the intersection of sorted index
lists (one merge pass where both lists are long, a binary search of the short
one in the long one otherwise; numpy's searchsorted of a million positions in a million
takes ~20 random reads each), and the entries a comparison keeps (``select``) in two
parallel passes over chunks, or one pass in order below the parallel threshold, where numpy
makes a mask and gathers twice."""

import numba
import numpy as np

from .threads import parallel_above

__all__ = ["matches", "select", "kept", "trimmed", "compared", "flagged", "scatter", "allowed_entries", "COMPARISONS"]

#: select's comparison codes
COMPARISONS = {"eq": 0, "ne": 1, "lt": 2, "le": 3, "gt": 4, "ge": 5}

#: A list this many times shorter than the other is searched in it instead of merged.
_SEARCH_RATIO = 32


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


@numba.njit(cache=True, inline="always")
def _keeps(op, x, thunk):
    if op == 0:
        return x == thunk
    if op == 1:
        return x != thunk
    if op == 2:
        return x < thunk
    if op == 3:
        return x <= thunk
    if op == 4:
        return x > thunk
    return x >= thunk


def select(values, indices, has_indices, op, thunk):
    """(positions, values) of the entries whose value compares true with ``thunk``
    (``COMPARISONS[op]``), in order; positions are ``indices`` (or the slots, when the
    vector is full and ``has_indices`` is False). In order (below the parallel threshold,
    or on one thread) in one pass (:func:`kept`), else two passes over chunks."""
    if compared.choose(values, op, thunk) is compared.serial:
        return trimmed(*kept(values, indices, has_indices, op, thunk))
    return flagged(compared(values, op, thunk), indices, has_indices, values)


@numba.njit(cache=True)
def kept(values, indices, has_indices, op, thunk):
    """:func:`select` in one pass: every entry written at the next free slot of outputs of
    the vector's size, which only a kept one advances (no branch on the comparison, which
    mispredicts where about half are kept); returns (positions, values, count kept)."""
    positions = np.empty(values.size, np.int64)
    kept_values = np.empty(values.size, values.dtype)
    q = 0
    for p in range(values.size):
        positions[q] = indices[p] if has_indices else p
        kept_values[q] = values[p]
        q += _keeps(op, values[p], thunk)
    return positions, kept_values, q


def trimmed(positions, values, count):
    """The first ``count`` of one pass's outputs (:func:`kept`): views while they hold at
    least an eighth of the outputs' size, else copies, so that a small result does not keep
    a vector's size of memory."""
    if 8 * count < positions.size:
        return positions[:count].copy(), values[:count].copy()
    return positions[:count], values[:count]


@parallel_above(np.size, "values")
@numba.njit(cache=True, parallel=True)
def compared(values, op, thunk):
    """A flag per value: whether it compares true with ``thunk`` (``COMPARISONS[op]``)."""
    keep = np.empty(values.size, np.bool_)
    for p in numba.prange(values.size):
        keep[p] = _keeps(op, values[p], thunk)
    return keep


@parallel_above(np.size, "flags")
@numba.njit(cache=True, parallel=True)
def flagged(flags, indices, has_indices, values):
    """(positions, values) of the slots whose flag is set, in order: ``values`` aligned
    with ``flags``, positions ``indices`` (or the slots, when ``has_indices`` is False). A
    pass counts each chunk's flags, the second writes every entry at the next free slot,
    which only a flagged one advances: no branch on the flag, mispredicted when about half
    are set (MIS-2's worklists), and no list of the slots."""
    n = flags.size
    chunks = max(1, min(256, n // 16384))
    size = (n + chunks - 1) // chunks
    start = np.zeros(chunks + 1, np.int64)
    for c in numba.prange(chunks):
        kept = 0
        for p in range(c * size, min(n, (c + 1) * size)):
            kept += flags[p]
        start[c + 1] = kept
    for c in range(chunks):
        start[c + 1] += start[c]
    positions = np.empty(start[chunks], np.int64)
    kept_values = np.empty(start[chunks], values.dtype)
    for c in numba.prange(chunks):
        q, end = start[c], start[c + 1]
        for p in range(c * size, min(n, (c + 1) * size)):
            if q < end:
                positions[q] = indices[p] if has_indices else p
                kept_values[q] = values[p]
            q += flags[p]
    return positions, kept_values


@numba.njit(cache=True)
def scatter(target, positions, values):
    """``target[positions] = values`` for the positions of a vector's entries, each below
    ``target.size``, read unsigned: numpy's indexed assignment tests every index (1 ns an
    entry; here 0.4, the assignments of MIS-2's rounds)."""
    for k in range(positions.size):
        target[np.uint64(positions[k])] = values[k]


@numba.njit(cache=True)
def allowed_entries(indices, values, allowed, complement):
    """(positions, values) of the entries at positions where ``allowed`` (a flag per
    position) differs from ``complement``, in order. A pass counts them, so that the
    results hold no more memory than they use; the second writes every entry and advances
    past those kept, with no branch on the flag (numpy's boolean gathers pay a mispredicted
    branch per entry of a scattered mask)."""
    n = indices.size
    count = 0
    for p in range(n):
        count += allowed[indices[p]] != complement
    kept_indices = np.empty(count + 1, np.int64)  # one slot more: the last write may be a discarded one
    kept_values = np.empty(count + 1, values.dtype)
    q = 0
    for p in range(n):
        i = indices[p]
        kept_indices[q] = i
        kept_values[q] = values[p]
        q += allowed[i] != complement
    return kept_indices[:count], kept_values[:count]

"""Phase 3 of MIS-2 aggregation: the neighbouring group each row moves to, in one pass over
the row (:meth:`gbgraph.backends.base.Backend.better_group`; its GraphBLAS form takes two
matrix products and four reductions). Kokkos Kernels scans the row the same way, with a
fixed number of slots for the groups it meets."""

import numba
import numpy as np

from .threads import parallel_above, row_work

__all__ = ["better_group_rows"]

_ROOTED = np.uint64(1) << np.uint64(32)


@parallel_above(row_work, "indptr", "rows")
@numba.njit(cache=True, parallel=True)
def better_group_rows(indptr, indices, label, is_root, size, rows, limit):
    """The group each row of ``rows`` moves to, -1 where it stays.

    ``label`` is dense (-1 = none); ``limit`` 0 means no limit. Groups are met in column
    order; ``key = rooted << 32 | count``; the best other group has the largest key, then
    the smallest size, then the earliest first neighbour (the earliest slot), and the row
    moves if it beats its own group's key (0 when unlabelled), or equals it with a strictly
    smaller size. The own group is counted over the whole row, past the scan's stop.
    """
    moved = np.full(rows.size, -1, np.int64)
    slots = limit if limit > 0 else 1
    for k in numba.prange(rows.size):
        i = rows[k]
        own = label[i]
        capacity = slots if limit > 0 else indptr[i + 1] - indptr[i]
        group = np.empty(max(capacity, 1), np.int64)
        key = np.empty(max(capacity, 1), np.uint64)
        own_key = np.uint64(0)
        m = 0
        stopped = False
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            g = label[j]
            if g < 0:
                continue
            if g == own:
                own_key += np.uint64(1)
                if is_root[j]:
                    own_key |= _ROOTED
                continue
            if stopped:
                continue
            s = 0
            while s < m and group[s] != g:
                s += 1
            if s == m:
                if m == capacity:
                    stopped = True  # the first neighbour of one group too many: the scan stops
                    continue
                group[m] = g
                key[m] = 0
                m += 1
            key[s] += np.uint64(1)
            if is_root[j]:
                key[s] |= _ROOTED
        chosen = -1
        for s in range(m):
            if chosen < 0 or key[s] > key[chosen] or key[s] == key[chosen] and size[group[s]] < size[group[chosen]]:
                chosen = s
        if chosen < 0:
            continue
        if key[chosen] > own_key or key[chosen] == own_key and own >= 0 and size[group[chosen]] < size[own]:
            moved[k] = group[chosen]
    return moved

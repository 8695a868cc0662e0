"""Phase 3 of MIS-2 aggregation: each row's best neighbouring group, in one pass over the
row (:meth:`gbgraph.backends.base.Backend.best_group`; its GraphBLAS form takes two matrix
products and four reductions). Kokkos Kernels scans the row the same way, with a fixed
number of slots for the groups it meets."""

import numba
import numpy as np

__all__ = ["best_group_rows"]


@numba.njit(cache=True, parallel=True)
def best_group_rows(indptr, indices, label, is_root, size, rows, limit):
    """(group, key) per row of ``rows``: -1 and 0 where no neighbour lies in another group.

    ``label`` is dense (-1 = none); ``limit`` 0 means no limit. Groups are met in column
    order; ``key = rooted << 32 | count``; the best has the largest key, then the smallest
    size, then the earliest first neighbour (the earliest slot).
    """
    best = np.full(rows.size, -1, np.int64)
    best_key = np.zeros(rows.size, np.uint64)
    slots = limit if limit > 0 else 1
    for k in numba.prange(rows.size):
        i = rows[k]
        own = label[i]
        capacity = slots if limit > 0 else indptr[i + 1] - indptr[i]
        group = np.empty(max(capacity, 1), np.int64)
        key = np.empty(max(capacity, 1), np.uint64)
        m = 0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            g = label[j]
            if g < 0 or g == own:
                continue
            s = 0
            while s < m and group[s] != g:
                s += 1
            if s == m:
                if m == capacity:
                    break  # the first neighbour of one group too many: the scan stops
                group[m] = g
                key[m] = 0
                m += 1
            key[s] += np.uint64(1)
            if is_root[j]:
                key[s] |= np.uint64(1) << np.uint64(32)
        chosen = -1
        for s in range(m):
            if chosen < 0 or key[s] > key[chosen] or key[s] == key[chosen] and size[group[s]] < size[group[chosen]]:
                chosen = s
        if chosen >= 0:
            best[k] = group[chosen]
            best_key[k] = key[chosen]
    return best, best_key

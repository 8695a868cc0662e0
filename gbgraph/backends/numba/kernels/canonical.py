"""Canonical CSR on the CPU: which rows are sorted and hold their diagonal and the one-way
entries of a pattern, in one parallel pass, and the diagonal dropped in another (the GPU's are
``backends/cupy/kernels/canonical.cu``).

The symmetry check looks each entry (i, j) up in row j by binary search instead of
transposing: a transpose writes every entry once more and scatters them, while the lookups
only read, and on a sorted CSR each costs a few comparisons.
"""

import numba
import numpy as np

from .threads import parallel_above

__all__ = ["inspect_rows", "drop_diagonal", "transpose_order"]


@parallel_above(np.size, "indices")
@numba.njit(cache=True, parallel=True)
def inspect_rows(indptr, indices):
    """(has_diagonal per row, entries that do not exceed their predecessor in the row,
    entries (i, j), i != j, with no entry (j, i)): one reading pass. The last count looks
    i up in row j by binary search, so it holds only when no row is unsorted."""
    n = indptr.size - 1
    diagonal = np.zeros(n, np.bool_)
    unsorted = np.zeros(n, np.int64)
    missing = np.zeros(n, np.int64)
    for i in numba.prange(n):
        bad = 0
        m = 0
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if p > indptr[i] and j <= indices[p - 1]:
                bad += 1
            if j == i:
                diagonal[i] = True
                continue
            lo, hi = indptr[j], indptr[j + 1]
            while lo < hi:
                mid = (lo + hi) >> 1
                if indices[mid] < i:
                    lo = mid + 1
                else:
                    hi = mid
            if lo == indptr[j + 1] or indices[lo] != i:
                m += 1
        unsorted[i] = bad
        missing[i] = m
    return diagonal, unsorted.sum(), missing.sum()


def drop_diagonal(indptr, indices, values, new_indptr):
    """(indices, values or None) of every row without its entry (i, i), in the rows of
    ``new_indptr``."""
    new_indices = np.empty(new_indptr[-1], indices.dtype)
    new_values = np.empty(new_indptr[-1] if values is not None else 0, np.float64 if values is None else values.dtype)
    _drop_diagonal(indptr, indices, new_values if values is None else values, values is not None, new_indptr,
                   new_indices, new_values)
    return new_indices, None if values is None else new_values


@parallel_above(np.size, "indices")
@numba.njit(cache=True, parallel=True)
def _drop_diagonal(indptr, indices, values, has_values, new_indptr, new_indices, new_values):
    """Copy every row without its entry (i, i) to the rows starting at ``new_indptr``."""
    n = indptr.size - 1
    for i in numba.prange(n):
        q = new_indptr[i]
        for p in range(indptr[i], indptr[i + 1]):
            if indices[p] != i:
                new_indices[q] = indices[p]
                if has_values:
                    new_values[q] = values[p]
                q += 1


@numba.njit(cache=True)
def transpose_order(indptr, indices, ncols):
    """(row pointers of Aᵀ, the row of A of each of its entries, their positions in A): a
    stable counting sort of A's entries by column, two sequential passes, so each row of Aᵀ
    lists its columns ascending."""
    count = np.zeros(ncols + 1, np.int64)
    for p in range(indices.size):
        count[indices[p] + 1] += 1
    for c in range(ncols):
        count[c + 1] += count[c]
    t_indptr = count.copy()
    rows = np.empty(indices.size, np.int64)
    order = np.empty(indices.size, np.int64)
    for i in range(indptr.size - 1):
        for p in range(indptr[i], indptr[i + 1]):
            q = count[indices[p]]
            count[indices[p]] = q + 1
            rows[q] = i
            order[q] = p
    return t_indptr, rows, order

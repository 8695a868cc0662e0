"""A CSR matrix's entries by position, in one pass over its rows: the selection by position
(``offdiag``, ``diag``, ``tril``, ``triu``; the first step of triangle counting,
``L = tril(A, -1)``), where numpy formed the row of every entry, its offset and a mask before
compacting; a CSR from the sorted keys ``i * ncols + j`` of the general forms, where
numpy divided every key; and the masked product ``C<M> = A ⊕plus.pair B`` (triangle
counting's), where the matrices went to SuiteSparse and back."""

import numba
import numpy as np

__all__ = ["SELECTS", "select_position", "csr_from_keys", "masked_pair_counts"]

#: select codes: keep entry (i, j) where offdiag: j - i != k, diag: j - i == k, tril: j - i <= k,
#: triu: j - i >= k.
SELECTS = {"offdiag": 0, "diag": 1, "tril": 2, "triu": 3}


@numba.njit(cache=True)
def select_position(indptr, indices, op, k):
    """(row pointers, column indices, which entries are kept) of the entries (i, j) whose
    offset ``j - i`` satisfies the select of code ``op`` (:data:`SELECTS`) with ``k``."""
    n = indptr.size - 1
    keep = np.empty(indices.size, np.bool_)
    kept_indptr = np.empty(n + 1, np.int64)
    kept_indptr[0] = 0
    kept_indices = np.empty(indices.size, indices.dtype)
    count = 0
    for i in range(n):
        for p in range(indptr[i], indptr[i + 1]):
            offset = np.int64(indices[p]) - i
            if op == 0:
                ok = offset != k
            elif op == 1:
                ok = offset == k
            elif op == 2:
                ok = offset <= k
            else:
                ok = offset >= k
            keep[p] = ok
            kept_indices[count] = indices[p]
            count += ok
        kept_indptr[i + 1] = count
    return kept_indptr, kept_indices[:count], keep


@numba.njit(cache=True)
def csr_from_keys(keys, ncols, indptr, cols):
    """Fill ``indptr`` (nrows + 1) and ``cols`` from the sorted keys ``i * ncols + j`` of a
    matrix's entries, in one pass without a division: the row only grows along the keys."""
    row, row_end = 0, ncols
    indptr[0] = 0
    for p in range(keys.size):
        key = keys[p]
        while key >= row_end:
            row += 1
            indptr[row] = p
            row_end += ncols
        cols[p] = key - (row_end - ncols)
    for r in range(row + 1, indptr.size):
        indptr[r] = keys.size


@numba.njit(cache=True)
def masked_pair_counts(a_indptr, a_indices, b_indptr, b_indices, m_indptr, m_indices, ncols):
    """``C<M> = A ⊕plus.pair B`` for a structural mask M: at each entry (i, j) of M, the
    number of k with A(i, k) and B(k, j), an entry of C where there is one (Gustavson's
    row-by-row product, each row of A scattering its rows of B onto the slots of M's row i).

    Returns
    -------
    indptr, indices, counts : arrays
        C in CSR form (int64 counts).
    """
    # slot[j]: the entry M(i, j) of the row being computed, else ``miss``, a count of its
    # own that no entry reads: every term adds without a branch on whether M has (i, j),
    # and the indices are read unsigned (never negative: numba then wraps none), 20% faster
    miss = m_indices.size
    counts = np.zeros(miss + 1, np.int64)
    indices = np.empty(m_indices.size, m_indices.dtype)
    indptr = np.empty(m_indptr.size, np.int64)
    indptr[0] = 0
    slot = np.full(ncols, miss, np.int64)
    n = 0
    for i in range(m_indptr.size - 1):
        for p in range(m_indptr[i], m_indptr[i + 1]):
            slot[np.uint64(m_indices[p])] = p
        for pa in range(a_indptr[i], a_indptr[i + 1]):
            k = np.uint64(a_indices[pa])
            for pb in range(b_indptr[k], b_indptr[k + 1]):
                counts[np.uint64(slot[np.uint64(b_indices[pb])])] += 1
        for p in range(m_indptr[i], m_indptr[i + 1]):
            slot[np.uint64(m_indices[p])] = miss
            if counts[p]:  # compacted in place: n <= p
                indices[n], counts[n] = m_indices[p], counts[p]
                n += 1
        indptr[i + 1] = n
    return indptr, indices[:n], counts[:n]

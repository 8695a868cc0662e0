"""Sparse matrix-matrix products C = A B (CSR), the same bit for bit as scipy's.

scipy's ``A @ B`` (sparsetools' ``csr_matmat``) runs Gustavson's algorithm on one thread:
each entry of C adds its terms in traversal order (A's row in stored order, and for each of
its entries B's row in stored order) into an accumulator that starts at 0, drops the
entries whose sum is exactly 0, and emits a row's columns from a linked list, in reverse
order of their first touch. The kernels here do the same operations in the same order, row
by row, with the rows split into fixed blocks that threads run apart; each row is computed
alone, so the result is the same whatever the number of threads. One pass where scipy makes
two (each row's distinct columns, then the sums into their slots): each block of rows writes
its rows one after the other into a stretch of a buffer sized from the factors' entries,
and the rows are moved to their place after; the rows past a block's stretch are counted
first, as scipy does.
"""

import numba
import numpy as np
import scipy.sparse as sp

from .threads import parallel_above

__all__ = ["matmat"]


#: Room for a product's entries before its rows are counted, in entries of its two factors:
#: the Galerkin products of SA-AMG on Laplace3D hold 0.1-0.9 of that; rows past it are
#: counted first (:func:`_slots`), as scipy does
ROOM = 1.25

#: A term of a product costs about as much as reading 8 stored entries in the pull product
#: (:data:`~gbgraph.backends.numba.kernels.threads.PARALLEL_WORK`'s unit): 10-12 ns over both
#: passes on Laplace3D 60³'s Galerkin products, against 1.3 ns
TERM_WORK = 8


def _product_work(a_indptr, b_indptr):
    """A product's work: the terms it adds (B's rows taken at their average length), in
    entries read."""
    return TERM_WORK * int(a_indptr[-1]) * int(b_indptr[-1]) // max(b_indptr.size - 1, 1)


@parallel_above(_product_work, "a_indptr", "b_indptr")
@numba.njit(cache=True, parallel=True)
def _slots(a_indptr, a_indices, b_indptr, b_indices, n_col, blocks, sizes):
    """``sizes[i]``: the distinct columns of row i of A B (scipy's ``csr_matmat_maxnnz``)."""
    for t in numba.prange(blocks.size - 1):
        seen = np.full(n_col, -1, np.int64)
        for i in range(blocks[t], blocks[t + 1]):
            count = 0
            for jj in range(np.uint64(a_indptr[i]), np.uint64(a_indptr[i + 1])):
                j = np.uint64(a_indices[jj])
                for kk in range(np.uint64(b_indptr[j]), np.uint64(b_indptr[j + 1])):
                    k = np.uint64(b_indices[kk])
                    if seen[k] != i:
                        seen[k] = i
                        count += 1
            sizes[i] = count


@numba.njit(cache=True, inline="always")
def _accumulated(a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, i, following, sums):
    """Row i of A B into ``sums``, its columns linked from the returned head in ``following``
    (scipy's linked list, last touched first); returns (head, the row's distinct columns)."""
    head = -2
    length = 0
    for jj in range(np.uint64(a_indptr[i]), np.uint64(a_indptr[i + 1])):  # unsigned: no wraparound test
        j = np.uint64(a_indices[jj])
        v = a_data[jj]
        for kk in range(np.uint64(b_indptr[j]), np.uint64(b_indptr[j + 1])):
            k = np.uint64(b_indices[kk])
            sums[k] += v * b_data[kk]
            if following[k] == -1:
                following[k] = head
                head = np.int64(k)
                length += 1
    return head, length


@numba.njit(cache=True, inline="always")
def _emitted(head, length, following, sums, indices, data, position, write):
    """The row's nonzero sums written from ``position`` in the list's order (where ``write``),
    the list and sums cleared; returns the entries written."""
    start = position
    for _ in range(length):
        if write and sums[head] != 0:
            indices[position] = head
            data[position] = sums[head]
            position += 1
        previous = head
        head = following[head]
        following[previous] = -1
        sums[previous] = 0
    return position - start


#: Rows of at most this many entries are sorted by counting each column's rank (their
#: squares of comparisons run without branches), longer ones by numba's sort
RANKED = 128


@numba.njit(cache=True, inline="always")
def _emitted_in_order(head, length, following, sums, columns, values, indices, data, position):
    """:func:`_emitted` with the row's columns in increasing order: written first to the
    scratch ``columns`` and ``values``, then each entry to its rank; returns the entries
    written."""
    kept = _emitted(head, length, following, sums, columns, values, 0, True)
    if kept > RANKED:
        order = np.argsort(columns[:kept])
        for e in range(kept):
            indices[position + e] = columns[order[e]]
            data[position + e] = values[order[e]]
        return kept
    for e in range(kept):
        column = columns[e]
        rank = 0
        for f in range(kept):
            rank += columns[f] < column
        indices[position + rank] = column
        data[position + rank] = values[e]
    return kept


@parallel_above(_product_work, "a_indptr", "b_indptr")
@numba.njit(cache=True, parallel=True)
def _rows_in_place(a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, n_col, blocks, room, indices, data,
                   sizes, counts, reached, ordered):
    """Rows of A B as scipy's ``csr_matmat`` writes them, their columns then sorted where
    ``ordered``, in one pass: block t writes its rows one after the other from ``room[t]``
    while they fit before ``room[t + 1]``. ``sizes[i]``, ``counts[i]``: row i's distinct
    columns and entries; ``reached[t]``: the block's first row that did not fit
    (``blocks[t + 1]`` when all did)."""
    for t in numba.prange(blocks.size - 1):
        following = np.full(n_col, -1, np.int64)
        sums = np.zeros(n_col, data.dtype)
        columns = np.empty(n_col if ordered else 0, np.int64)
        values = np.empty(n_col if ordered else 0, data.dtype)
        position = room[t]
        reached[t] = blocks[t + 1]
        for i in range(blocks[t], blocks[t + 1]):
            head, length = _accumulated(a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, i, following, sums)
            fits = position + length <= room[t + 1]
            if ordered and fits:
                written = _emitted_in_order(head, length, following, sums, columns, values, indices, data, position)
            else:
                written = _emitted(head, length, following, sums, indices, data, position, fits)
            if not fits:
                reached[t] = i
                break
            sizes[i] = length
            counts[i] = written
            position += written


@parallel_above(lambda a_indptr: int(a_indptr[-1]), "a_indptr")
@numba.njit(cache=True, parallel=True)
def _block_room(a_indptr, a_indices, b_indptr, blocks, total, room):
    """``room``: the bounds of each block's stretch of a buffer of ``total`` entries, shared
    in proportion to the terms of the block's rows, and no more than those terms."""
    terms = np.zeros(blocks.size - 1, np.int64)
    for t in numba.prange(blocks.size - 1):
        count = 0
        for jj in range(np.uint64(a_indptr[blocks[t]]), np.uint64(a_indptr[blocks[t + 1]])):
            j = np.uint64(a_indices[jj])
            count += b_indptr[j + 1] - b_indptr[j]
        terms[t] = count
    everything = max(terms.sum(), 1)
    room[0] = 0
    for t in range(blocks.size - 1):
        room[t + 1] = room[t] + min(terms[t], (total * terms[t] + everything - 1) // everything)


@parallel_above(np.size, "out_indices")
@numba.njit(cache=True, parallel=True)
def _moved(blocks, room, reached, indptr, indices, data, out_indices, out_data):
    """The rows each block wrote into its room moved to their place in the product."""
    for t in numba.prange(blocks.size - 1):
        source = room[t]
        target = indptr[blocks[t]]
        for e in range(indptr[reached[t]] - target):
            out_indices[target + e] = indices[source + e]
            out_data[target + e] = data[source + e]


def _blocks(n_rows):
    """Row boundaries of the blocks threads run: a few per thread, for balance."""
    count = max(1, min(n_rows, 4 * numba.get_num_threads()))
    return np.linspace(0, n_rows, count + 1).astype(np.int64)


def matmat(A, B, *, ordered=False, index_type=None):
    """``A @ B`` of two CSR arrays, scipy's product bit for bit, on numba's threads.

    Parameters
    ----------
    A, B : scipy.sparse.csr_array
        Of float or complex values; rows need be neither sorted nor free of duplicates.
    ordered : bool
        Sort each row's columns: scipy's product followed by its ``sort_indices``.
    index_type : numpy dtype, optional
        The product's index type; scipy's choice for its product by default.

    Returns
    -------
    scipy.sparse.csr_array
        The product, with scipy's entries and values, and its column order within rows
        unless ``ordered``.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.array([[1.0, 2.0], [0.0, 3.0]]))
    >>> matmat(A, A).toarray()
    array([[1., 8.],
           [0., 9.]])
    """
    M, N = A.shape[0], B.shape[1]
    dtype = np.result_type(A.dtype, B.dtype)
    if (not (isinstance(A, sp.csr_array) and isinstance(B, sp.csr_array)) or A.shape[1] != B.shape[0]
            or dtype.kind not in "fc" or A.nnz == 0 or B.nnz == 0):
        return _scipy_product(A, B, ordered, index_type)
    index_arrays = (A.indptr, A.indices, B.indptr, B.indices)
    a_data, b_data = A.data.astype(dtype, copy=False), B.data.astype(dtype, copy=False)
    blocks = _blocks(M)
    room = np.empty(blocks.size, np.int64)
    _block_room(A.indptr, A.indices, B.indptr, blocks, int(ROOM * (A.nnz + B.nnz)), room)
    indices = np.empty(room[-1], np.int64)
    data = np.empty(room[-1], dtype)
    sizes = np.empty(M, np.int64)
    counts = np.empty(M, np.int64)
    reached = np.empty(blocks.size - 1, np.int64)
    _rows_in_place(A.indptr, A.indices, a_data, B.indptr, B.indices, b_data, N, blocks, room, indices, data, sizes,
                   counts, reached, ordered)
    rest = []  # the rows past a block's room: counted (scipy's first pass), then into room of their size
    for first, last in zip(reached.tolist(), blocks[1:].tolist()):
        if first < last:
            span = np.array([first, last], np.int64)
            _slots(A.indptr, A.indices, B.indptr, B.indices, N, span, sizes)
            size = int(sizes[first:last].sum())
            rest.append((first, last, np.empty(size, np.int64), np.empty(size, dtype)))
            _rows_in_place(A.indptr, A.indices, a_data, B.indptr, B.indices, b_data, N, span,
                           np.array([0, size], np.int64), rest[-1][2], rest[-1][3], sizes, counts, reached[:1].copy(),
                           ordered)
    total = int(sizes.sum())  # scipy's count of the product's entries, exact zeros included
    if total == 0:  # no entry reached: scipy's own form of an empty product
        return _scipy_product(A, B, ordered, index_type)
    if index_type is None:
        index_type = sp.get_index_dtype(index_arrays, maxval=total)  # scipy's choice for its product
    indptr = np.zeros(M + 1, index_type)
    np.cumsum(counts, out=indptr[1:])
    out_indices = np.empty(indptr[-1], index_type)
    out_data = np.empty(indptr[-1], dtype)
    _moved(blocks, room, reached, indptr, indices, data, out_indices, out_data)
    for first, last, rest_indices, rest_data in rest:
        out_indices[indptr[first]:indptr[last]] = rest_indices[:indptr[last] - indptr[first]]
        out_data[indptr[first]:indptr[last]] = rest_data[:indptr[last] - indptr[first]]
    return sp.csr_array((out_data, out_indices, indptr), shape=(M, N))


def _scipy_product(A, B, ordered, index_type):
    """scipy's ``A @ B`` in :func:`matmat`'s form, for the cases its kernels leave out."""
    C = sp.csr_array(A @ B)
    if ordered:
        C.sort_indices()
    if index_type is None:
        return C
    return sp.csr_array((C.data, C.indices.astype(index_type), C.indptr.astype(index_type)), shape=C.shape)

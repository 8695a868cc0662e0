"""Sparse matrix-matrix products C = A B (CSR), the same bit for bit as scipy's.

scipy's ``A @ B`` (sparsetools' ``csr_matmat``) runs Gustavson's algorithm on one thread:
each entry of C adds its terms in traversal order (A's row in stored order, and for each of
its entries B's row in stored order) into an accumulator that starts at 0, drops the
entries whose sum is exactly 0, and emits a row's columns from a linked list, in reverse
order of their first touch. The kernels here do the same operations in the same order, row
by row, with the rows split into fixed blocks that threads run apart; each row is computed
alone, so the result is the same whatever the number of threads. Two passes, as scipy's:
each row's distinct columns (its slots), then the sums written into those slots.
"""

import numba
import numpy as np
import scipy.sparse as sp

from .threads import parallel_above

__all__ = ["matmat"]


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


@numba.njit(cache=True)
def _insertion_sort(indices, data, begin, end):
    """``indices[begin:end]`` sorted, ``data`` along: a row of a Galerkin product holds tens
    of entries, where an insertion sort costs less than a call of a general sort."""
    for e in range(begin + 1, end):
        column = indices[e]
        value = data[e]
        f = e - 1
        while f >= begin and indices[f] > column:
            indices[f + 1] = indices[f]
            data[f + 1] = data[f]
            f -= 1
        indices[f + 1] = column
        data[f + 1] = value


@parallel_above(_product_work, "a_indptr", "b_indptr")
@numba.njit(cache=True, parallel=True)
def _sums(a_indptr, a_indices, a_data, b_indptr, b_indices, b_data, n_col, blocks, starts, indices, data, counts,
          ordered):
    """Row i of A B into ``indices``/``data`` from ``starts[i]``, as scipy's ``csr_matmat``
    writes it, its columns then sorted where ``ordered``; ``counts[i]``: its entries, the
    nonzero sums."""
    for t in numba.prange(blocks.size - 1):
        following = np.full(n_col, -1, np.int64)  # the linked list of the row's columns
        sums = np.zeros(n_col, data.dtype)
        for i in range(blocks[t], blocks[t + 1]):
            head = -2
            length = 0
            for jj in range(np.uint64(a_indptr[i]), np.uint64(a_indptr[i + 1])):
                j = np.uint64(a_indices[jj])
                v = a_data[jj]
                for kk in range(np.uint64(b_indptr[j]), np.uint64(b_indptr[j + 1])):
                    k = np.uint64(b_indices[kk])
                    sums[k] += v * b_data[kk]
                    if following[k] == -1:
                        following[k] = head
                        head = np.int64(k)
                        length += 1
            position = starts[i]
            for _ in range(length):
                if sums[head] != 0:
                    indices[position] = head
                    data[position] = sums[head]
                    position += 1
                previous = head
                head = following[head]
                following[previous] = -1
                sums[previous] = 0
            counts[i] = position - starts[i]
            if ordered:
                _insertion_sort(indices, data, starts[i], position)


@numba.njit(cache=True)
def _compact(indptr, starts, counts, indices, data, out_indices, out_data):
    """Rows' entries moved from their slots to ``indptr``'s positions."""
    for i in range(counts.size):
        source = starts[i]
        target = indptr[i]
        for e in range(counts[i]):
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
    blocks = _blocks(M)
    sizes = np.empty(M, np.int64)
    _slots(A.indptr, A.indices, B.indptr, B.indices, N, blocks, sizes)
    starts = np.zeros(M + 1, np.int64)
    np.cumsum(sizes, out=starts[1:])
    if starts[-1] == 0:
        return _scipy_product(A, B, ordered, index_type)
    indices = np.empty(starts[-1], np.int64)
    data = np.empty(starts[-1], dtype)
    counts = np.empty(M, np.int64)
    _sums(A.indptr, A.indices, A.data.astype(dtype, copy=False), B.indptr, B.indices,
          B.data.astype(dtype, copy=False), N, blocks, starts, indices, data, counts, ordered)
    if index_type is None:
        index_type = sp.get_index_dtype(index_arrays, maxval=starts[-1])  # scipy's choice for its product
    if np.array_equal(counts, sizes):
        indptr = starts
    else:  # some sums were exactly 0
        indptr = np.zeros(M + 1, np.int64)
        np.cumsum(counts, out=indptr[1:])
        out_indices = np.empty(indptr[-1], np.int64)
        out_data = np.empty(indptr[-1], dtype)
        _compact(indptr, starts, counts, indices, data, out_indices, out_data)
        indices, data = out_indices, out_data
    return sp.csr_array((data, indices.astype(index_type, copy=False), indptr.astype(index_type, copy=False)),
                        shape=(M, N))


def _scipy_product(A, B, ordered, index_type):
    """scipy's ``A @ B`` in :func:`matmat`'s form, for the cases its kernels leave out."""
    C = sp.csr_array(A @ B)
    if ordered:
        C.sort_indices()
    if index_type is None:
        return C
    return sp.csr_array((C.data, C.indices.astype(index_type), C.indptr.astype(index_type)), shape=C.shape)

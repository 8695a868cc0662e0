"""Vectors and matrices of the ``cupy`` backend, and the set operations on their indices."""

import cupy
import cupyx.scipy.sparse as csp
import numpy as np

from . import kernels

__all__ = ["Vector", "Matrix", "segments"]


def segments(offsets, total):
    """The segment of each of ``total`` positions, for segments starting at ``offsets``
    (sorted, the first 0; empty segments allowed): ``numpy.repeat(arange, lengths)`` by one
    binary search per position on the device (``cupy.repeat`` takes its repeats on the
    host)."""
    return cupy.searchsorted(offsets, cupy.arange(total, dtype=cupy.int64), side="right") - 1


class Vector:
    """A sparse vector on the GPU.

    ``indices`` is None when every position has an entry (``values`` then has ``size``
    entries); otherwise it holds the sorted int64 positions of the entries, aligned with
    ``values``. A vector written by a kernel may keep its entry count on the device:
    ``count`` (an int64 array of one element) then says how many leading entries of the
    buffers are real, and kernels read it there, so no host waits. :attr:`nvals` and
    :meth:`exact` fetch it once and trim the buffers to views.
    """

    __slots__ = ("size", "indices", "values", "count")

    def __init__(self, size, indices, values, count=None):
        self.size, self.indices, self.values, self.count = int(size), indices, values, count

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def capacity(self):
        """Length of the buffers: the most entries the vector can have."""
        return int((self.values if self.indices is None else self.indices).size)

    @property
    def nvals(self):
        return self.size if self.indices is None else int(self.exact().indices.size)

    def entry_count(self):
        """The entry count, read without trimming the buffers (a recorded or compiled round
        writes into them)."""
        return int(self.count.get()[0]) if self.count is not None else self.nvals

    def exact(self):
        """Trims the buffers to the entry count (one device synchronisation if the count is
        on the device); returns self."""
        if self.count is not None:
            nvals = int(self.count.get()[0])
            self.indices, self.values, self.count = self.indices[:nvals], self.values[:nvals], None
        return self

    def __repr__(self):
        return f"<gbgraph cupy Vector size={self.size:,} nvals={self.nvals:,} dtype={self.dtype}>"

    def dense(self):
        """(values at every position, presence bytes or None when full), without a sync."""
        if self.indices is None:
            return self.values, None
        values = cupy.zeros(self.size, self.dtype)
        kernels.scatter(values, self)
        present = cupy.zeros(self.size, cupy.uint8)
        kernels.scatter_scalar(present, self, 1)
        return values, present

    def restrict(self, rows):
        """The entries at the sorted positions ``rows`` (None: all)."""
        if rows is None:
            return self
        self.exact()
        if self.indices is None:
            return Vector(self.size, rows, self.values[rows])
        inside = _member(self.indices, rows)
        return Vector(self.size, self.indices[inside], self.values[inside])

    def intersect(self, other):
        """(positions, own values, other's values) where both have entries."""
        self.exact(), other.exact()
        if self.indices is None and other.indices is None:
            return None, self.values, other.values
        if other.indices is None:
            return self.indices, self.values, other.values[self.indices]
        if self.indices is None:
            return other.indices, self.values[other.indices], other.values
        both = _member(self.indices, other.indices)
        positions = self.indices[both]
        return positions, self.values[both], other.values[cupy.searchsorted(other.indices, positions)]

    def union(self, other):
        """(positions, own values, other's values, own presence, other's presence) over the
        union; values are zero where absent."""
        a, pa = self.dense()
        b, pb = other.dense()
        present_a = cupy.ones(self.size, bool) if pa is None else pa.astype(bool)
        present_b = cupy.ones(self.size, bool) if pb is None else pb.astype(bool)
        positions = cupy.flatnonzero(present_a | present_b)
        return positions, a[positions], b[positions], present_a[positions], present_b[positions]

    def fill(self, rows, scalar):
        """``self<rows> = scalar`` in place (rows None: everywhere); returns self."""
        self.exact()
        if self.indices is None:
            self.values[slice(None) if rows is None else rows] = scalar
            return self
        if rows is None:
            self.indices, self.values = None, cupy.full(self.size, scalar, self.dtype)
            return self
        return self.merge(Vector(self.size, rows, cupy.full(rows.size, scalar, self.dtype)), rows)

    def merge(self, w, rows):
        """``self<rows> = w`` in place: positions in ``rows`` (None: all) take w's entry, or
        lose theirs where w has none; returns self."""
        self.exact(), w.exact()
        keep_own = cupy.zeros(self.size, bool) if rows is None else cupy.ones(self.size, bool)
        if rows is not None:
            keep_own[rows] = False
        own, own_present = self.dense()
        new, new_present = w.dense()
        own_present = cupy.ones(self.size, bool) if own_present is None else own_present.astype(bool)
        new_present = cupy.ones(self.size, bool) if new_present is None else new_present.astype(bool)
        present = (own_present & keep_own) | new_present
        values = cupy.where(new_present, new.astype(self.dtype, copy=False), own)
        if bool(present.all()):
            self.indices, self.values = None, values
        else:
            self.indices = cupy.flatnonzero(present)
            self.values = values[self.indices]
        return self


def _member(sorted_a, sorted_b):
    """Boolean mask over sorted_a: which of its values appear in sorted_b."""
    if sorted_b.size == 0:
        return cupy.zeros(sorted_a.size, bool)
    where = cupy.minimum(cupy.searchsorted(sorted_b, sorted_a), sorted_b.size - 1)
    return sorted_b[where] == sorted_a


class Matrix:
    """A CSR matrix on the GPU: int64 row pointers, int32 (or int64) column indices sorted
    within rows, and ``values`` (None for an iso boolean pattern)."""

    __slots__ = ("nrows", "ncols", "indptr", "indices", "values", "_degrees", "_transposed", "_indptr32")

    def __init__(self, nrows, ncols, indptr, indices, values):
        self.nrows, self.ncols = int(nrows), int(ncols)
        self.indptr, self.indices, self.values = indptr, indices, values
        self._degrees = self._transposed = self._indptr32 = None

    @property
    def narrow_indptr(self):
        """The row pointers as int32 where every entry's position fits (cached), else the
        int64 ones: a compiled round reads them once a row a pass, and half the bytes is
        what native kernels read."""
        if self.nvals > np.iinfo(np.int32).max:
            return self.indptr
        if self._indptr32 is None:
            self._indptr32 = self.indptr.astype(cupy.int32)
        return self._indptr32

    @property
    def dtype(self):
        return np.dtype(bool) if self.values is None else self.values.dtype

    @property
    def nvals(self):
        return int(self.indices.size)

    def __repr__(self):
        return f"<gbgraph cupy Matrix {self.nrows:,}x{self.ncols:,} nvals={self.nvals:,} dtype={self.dtype}>"

    def _degree_stats(self):
        if self._degrees is None:
            degree = cupy.diff(self.indptr)
            self._degrees = (int(degree.min()) if self.nrows else 0, self.nvals / max(self.nrows, 1))
        return self._degrees

    @property
    def min_degree(self):
        """Length of the shortest row (cached; one device synchronisation the first time)."""
        return self._degree_stats()[0]

    @property
    def avg_degree(self):
        return self._degree_stats()[1]

    def to_cupyx(self, dtype=np.float64):
        """The matrix as a cupyx CSR matrix of ``dtype`` (cupyx holds floating-point values
        only: integer values are converted, a pattern weighs 1)."""
        values = cupy.ones(self.nvals, dtype) if self.values is None else self.values.astype(dtype, copy=False)
        return csp.csr_matrix((values, self.indices, self.indptr), shape=(self.nrows, self.ncols))

    @classmethod
    def from_cupyx(cls, M, pattern=False):
        M.sort_indices()
        indptr = M.indptr.astype(cupy.int64)
        return cls(M.shape[0], M.shape[1], indptr, M.indices, None if pattern else M.data)

    def rows(self):
        return segments(self.indptr[:-1], self.nvals)

    def transpose(self):
        """Aᵀ by a stable sort of the entries by column: rows stay sorted within columns."""
        order = cupy.argsort(self.indices, kind="stable")
        indptr = cupy.zeros(self.ncols + 1, cupy.int64)
        indptr[1:] = cupy.cumsum(cupy.bincount(self.indices, minlength=self.ncols))
        index_type = cupy.int32 if self.nrows < 2**31 else cupy.int64
        return Matrix(self.ncols, self.nrows, indptr, self.rows()[order].astype(index_type),
                      None if self.values is None else self.values[order])

    def rows_at(self, rows):
        """``A(rows, :)``: the listed rows, in that order (repeats allowed)."""
        starts = self.indptr[rows]
        lengths = self.indptr[rows + 1] - starts
        indptr = cupy.zeros(rows.size + 1, cupy.int64)
        cupy.cumsum(lengths, out=indptr[1:])
        nnz = int(indptr[-1])
        position = (starts - indptr[:-1])[segments(indptr[:-1], nnz)] + cupy.arange(nnz)
        return Matrix(rows.size, self.ncols, indptr, self.indices[position],
                      None if self.values is None else self.values[position])

    def transposed(self):
        """Aᵀ, computed once (matrices are not changed in place)."""
        if self._transposed is None:
            self._transposed = self.transpose()
        return self._transposed

    def select_position(self, op, k):
        """Entries (i, j) where ``offdiag``: j - i != k, ``diag``: j - i == k,
        ``tril``: j - i <= k, ``triu``: j - i >= k."""
        offset = self.indices.astype(cupy.int64) - self.rows()
        keep = {"offdiag": offset != k, "diag": offset == k, "tril": offset <= k, "triu": offset >= k}[op]
        kept = cupy.zeros(self.nvals + 1, cupy.int64)  # kept entries before each position
        kept[1:] = cupy.cumsum(keep)
        indptr = kept[self.indptr]
        return Matrix(self.nrows, self.ncols, indptr, self.indices[keep],
                      None if self.values is None else self.values[keep])

"""Vectors and matrices of the ``numba`` backend: numpy arrays, as the cupy backend's are
CuPy arrays."""

import numpy as np

from .kernels.canonical import transpose_order
from .kernels.positions import SELECTS, select_position
from .kernels.sets import matches

__all__ = ["Vector", "Matrix"]


class Vector:
    """A sparse vector in host memory.

    ``indices`` is None when every position has an entry (``values`` then has ``size``
    entries); otherwise it holds the sorted int64 positions of the entries, aligned with
    ``values``.
    """

    __slots__ = ("size", "indices", "values")

    def __init__(self, size, indices, values):
        self.size, self.indices, self.values = int(size), indices, values

    @property
    def dtype(self):
        return self.values.dtype

    @property
    def nvals(self):
        return self.size if self.indices is None else int(self.indices.size)

    def positions(self):
        """The sorted int64 positions of the entries."""
        return np.arange(self.size, dtype=np.int64) if self.indices is None else self.indices

    def dense(self, fill=0):
        """(values at every position, ``fill`` elsewhere; presence flags or None when full)."""
        if self.indices is None:
            return self.values, None
        values = np.full(self.size, fill, self.dtype)
        values[self.indices] = self.values
        present = np.zeros(self.size, bool)
        present[self.indices] = True
        return values, present

    def restrict(self, rows):
        """The entries at the sorted positions ``rows`` (None: all)."""
        if rows is None:
            return self
        if self.indices is None:
            return Vector(self.size, rows, self.values[rows])
        at, _ = matches(self.indices, rows)
        return Vector(self.size, self.indices[at], self.values[at])

    def __repr__(self):
        return f"<gbgraph numba Vector size={self.size:,} nvals={self.nvals:,} dtype={self.dtype}>"


class Matrix:
    """A CSR matrix in host memory: int64 row pointers, int32 (or int64) column indices
    sorted within rows, and ``values`` (None for an iso boolean pattern)."""

    __slots__ = ("nrows", "ncols", "indptr", "indices", "values", "_transposed", "_graphblas", "__weakref__")

    def __init__(self, nrows, ncols, indptr, indices, values):
        self.nrows, self.ncols = int(nrows), int(ncols)
        self.indptr, self.indices, self.values = indptr, indices, values
        self._transposed = self._graphblas = None

    @property
    def dtype(self):
        return np.dtype(bool) if self.values is None else self.values.dtype

    @property
    def nvals(self):
        return int(self.indices.size)

    def rows(self):
        """The row of each entry."""
        return np.repeat(np.arange(self.nrows, dtype=np.int64), np.diff(self.indptr))

    def transposed(self):
        """Aᵀ, computed once (matrices are not changed in place): a stable counting sort
        of the entries by column keeps each new row sorted."""
        if self._transposed is None:
            indptr, rows, order = transpose_order(self.indptr, self.indices, self.ncols)
            index_type = np.int32 if self.nrows < 2**31 else np.int64
            self._transposed = Matrix(self.ncols, self.nrows, indptr, rows.astype(index_type),
                                      None if self.values is None else self.values[order])
        return self._transposed

    def rows_at(self, rows):
        """``A(rows, :)``: the listed rows, in that order (repeats allowed)."""
        starts = self.indptr[rows]
        lengths = self.indptr[rows + 1] - starts
        indptr = np.zeros(rows.size + 1, np.int64)
        np.cumsum(lengths, out=indptr[1:])
        position = np.repeat(starts - indptr[:-1], lengths) + np.arange(int(indptr[-1]))
        return Matrix(rows.size, self.ncols, indptr, self.indices[position],
                      None if self.values is None else self.values[position])

    def select_position(self, op, k):
        """Entries (i, j) where ``offdiag``: j - i != k, ``diag``: j - i == k,
        ``tril``: j - i <= k, ``triu``: j - i >= k."""
        indptr, indices, keep = select_position(self.indptr, self.indices, SELECTS[op], k)
        return Matrix(self.nrows, self.ncols, indptr, indices, None if self.values is None else self.values[keep])

    def __repr__(self):
        return f"<gbgraph numba Matrix {self.nrows:,}x{self.ncols:,} nvals={self.nvals:,} dtype={self.dtype}>"

"""The mpi backend's containers: a rank's block of a vector or matrix, at global positions.

A :class:`DistVector` of ``size`` entries holds, on each rank, a vector of the local
backend of the same ``size`` whose entries all lie in the rank's block (:mod:`.layout`); a
:class:`DistMatrix` of ``nrows`` × ``ncols`` holds an ``nrows`` × ``ncols`` matrix whose
entries all lie in the rank's block of rows, stored hypersparse so that it costs its own
rows only. Keeping global indices makes every row-wise verb a call of the local backend on
the blocks as they are (masks, index-unary operators, ``offdiag``/``tril``, positional
semirings see the global positions): only products that read other rows' entries, and
verbs whose result is global, communicate.

The local backend is ``suitesparse``; the blocks of matrices are imported with
python-graphblas' hypersparse CSR, which the protocol's ``matrix`` (one row pointer per
row of the whole matrix) does not offer.
"""

import numpy as np
import graphblas as gb

from ..suitesparse import _acyclic
from .layout import bounds

__all__ = ["DistVector", "DistMatrix", "GhostPlan", "block_matrix", "entries", "dtype_of"]


class DistVector:
    """This rank's block of a vector of ``size`` entries (``local``: the local backend's
    vector of ``size``, with entries in the block only)."""

    __slots__ = ("local", "size")

    def __init__(self, local, size):
        self.local = local
        self.size = size

    def __repr__(self):
        return f"DistVector(size={self.size:,}, local entries={self.local.nvals:,})"


class DistMatrix:
    """This rank's block of rows of an ``nrows`` × ``ncols`` matrix (``local``: a
    hypersparse matrix of that shape with entries in the block's rows only)."""

    __slots__ = ("local", "nrows", "ncols", "_plan")

    def __init__(self, local, nrows, ncols):
        self.local = local
        self.nrows = nrows
        self.ncols = ncols
        self._plan = None

    def plan(self, rank, nranks):
        """The :class:`GhostPlan` of this block (made once)."""
        if self._plan is None:
            self._plan = GhostPlan(self, rank, nranks)
        return self._plan

    def __repr__(self):
        return f"DistMatrix({self.nrows:,} x {self.ncols:,}, local entries={self.local.nvals:,})"


class GhostPlan:
    """The columns of a block that other ranks own: what a product must fetch.

    For ``A ⊕.⊗ u`` with u split as a vector of ``ncols`` entries, row i of the block reads
    u at its columns; those outside the rank's block of u are ghosts. The plan keeps them
    per row (CSR over the block's rows), so that a masked product fetches only the ghosts
    of its mask's rows.
    """

    def __init__(self, A, rank, nranks):
        rows, cols = entries(A.local, values=False)
        lo, hi = bounds(A.nrows, nranks)[rank:rank + 2]
        col_lo, col_hi = bounds(A.ncols, nranks)[rank:rank + 2]
        ghost = (cols < col_lo) | (cols >= col_hi)
        self.lo = int(lo)
        self.indptr = np.zeros(int(hi - lo) + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows[ghost] - lo, minlength=int(hi - lo)), out=self.indptr[1:])
        self.cols = cols[ghost]
        self.all = np.unique(self.cols)

    def columns(self, rows=None):
        """Sorted ghost columns of the rows ``rows`` (global ids in the block), all for None."""
        if rows is None or rows.size * 2 > self.indptr.size:
            return self.all
        r = rows - self.lo
        starts, lengths = self.indptr[r], self.indptr[r + 1] - self.indptr[r]
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        return np.unique(self.cols[offsets + np.arange(int(lengths.sum()))])


def block_matrix(nrows, ncols, rows, indptr, cols, values=None):
    """A hypersparse ``nrows`` × ``ncols`` matrix holding the listed rows.

    Parameters
    ----------
    nrows, ncols : int
    rows : array of int
        The rows held, ascending.
    indptr : array of int
        ``rows.size + 1`` offsets into ``cols``.
    cols : array of int
        Columns, ascending within each row.
    values : numpy.ndarray, optional
        Aligned with ``cols``; None gives an iso-valued boolean pattern, as the local
        backend's ``matrix`` does.

    Returns
    -------
    graphblas.Matrix

    Examples
    --------
    >>> M = block_matrix(5, 5, np.array([2, 3]), np.array([0, 2, 3]), np.array([0, 4, 1]))
    >>> M.nvals, M.to_coo()[0].tolist()
    (3, [2, 2, 3])
    """
    pattern = values is None
    lengths = np.diff(indptr)
    held = lengths > 0  # SuiteSparse's element-wise verbs misread empty rows in the hyperlist
    if not held.any():  # and it refuses to import no rows at all when nrows is 1
        return _acyclic(gb.Matrix(bool if pattern else values.dtype, nrows, ncols))
    u64 = np.uint64
    starts = np.zeros(int(held.sum()) + 1, dtype=u64)
    np.cumsum(lengths[held], out=starts[1:])
    return _acyclic(gb.Matrix.ss.import_hypercsr(
        nrows=nrows, ncols=ncols, rows=np.asarray(rows)[held].astype(u64), indptr=starts,
        col_indices=np.asarray(cols).astype(u64), values=np.ones(1, bool) if pattern else values,
        is_iso=pattern, sorted_cols=True, take_ownership=True))


def entries(M, values=True):
    """``(rows, cols[, values])`` of a local matrix, int64, sorted by row then column."""
    rows, cols, vals = M.to_coo(values=values)
    rows, cols = rows.view(np.int64), cols.view(np.int64)
    return (rows, cols, vals) if values else (rows, cols)


def dtype_of(x):
    """The numpy dtype of a local vector's or matrix's values."""
    return np.dtype(x.dtype.np_type)

"""The mpi backend's containers: a rank's block of a vector or matrix, numbered locally.

A :class:`DistVector` of ``size`` entries holds, on each rank, a vector of the local
backend of the block's length (:mod:`.layout`): local position ``i`` is global ``lo + i``.
A :class:`DistMatrix` of ``nrows`` × ``ncols`` holds the block's rows as a plain CSR matrix
of ``hi - lo`` rows whose columns are numbered by a :class:`~.columns.ColumnMap` (ghosts
below, the own column block, ghosts above). So a rank's work and memory are those of its
block and its ghosts, O(n/p + ghosts), and SuiteSparse keeps dense blocks full or bitmap.

The backend translates at the protocol's boundary: arrays of positions in and out are
global, and so is every position an operator sees (index-unary operators, ``offdiag`` and
``tril``, the positional semirings): the map is increasing, so the local computation picks
the same entries as the global one and only its reported positions are translated.

The local objects are the local backend's (``suitesparse`` or ``cupy``), read and built
through a :class:`~.local.Local`, which the methods that look inside a block take.
"""

import numpy as np

from .columns import ColumnMap

__all__ = ["DistVector", "DistMatrix", "GhostPlan", "local_block"]


class DistVector:
    """This rank's block of a vector of ``size`` entries.

    Attributes
    ----------
    local : local backend's vector
        The block: ``hi - lo`` entries, position ``i`` standing for global ``lo + i``.
    size : int
        Entries of the whole vector.
    lo : int
        Global position of the block's first entry.
    """

    __slots__ = ("local", "size", "lo")

    def __init__(self, local, size, lo):
        self.local = local
        self.size = size
        self.lo = lo

    def __repr__(self):
        return f"DistVector(size={self.size:,}, block from {self.lo:,}, local entries={self.local.nvals:,})"


class DistMatrix:
    """This rank's block of rows of an ``nrows`` × ``ncols`` matrix.

    Attributes
    ----------
    local : local backend's matrix
        ``hi - lo`` rows × ``columns.size``: row ``i`` is global row ``lo + i``, column
        ``k`` global column ``columns.ids[k]``.
    nrows, ncols : int
        Shape of the whole matrix.
    lo : int
        Global id of the block's first row.
    columns : ColumnMap
        Local numbering of the columns; its own block is this rank's block of a vector of
        ``ncols`` entries (the block of ``u`` that ``A ⊕.⊗ u`` has on this rank).
    kept : dict
        The vectors its products read, by dtype and storage, refilled by each product
        (:func:`~.moves.with_ghosts`).
    """

    __slots__ = ("local", "nrows", "ncols", "lo", "columns", "kept", "_plan")

    def __init__(self, local, nrows, ncols, lo, columns):
        self.local = local
        self.nrows = nrows
        self.ncols = ncols
        self.lo = lo
        self.columns = columns
        self.kept = {}
        self._plan = None

    def reset(self, local, columns):
        """Hold ``local`` in the column map ``columns`` from now on (a verb wrote into the
        block), forgetting what was made of the old one (plan, kept vectors)."""
        self.local = local
        self.columns = columns
        self.kept = {}
        self._plan = None

    def plan(self, local):
        """The :class:`GhostPlan` of this block (made once); ``local`` is the blocks'
        :class:`~.local.Local`."""
        if self._plan is None:
            self._plan = GhostPlan(self, local)
        return self._plan

    def __repr__(self):
        return (f"DistMatrix({self.nrows:,} x {self.ncols:,}, rows from {self.lo:,}, {self.columns!r}, "
                f"local entries={self.local.nvals:,})")


class GhostPlan:
    """The ghost columns a block's rows read: what a product must fetch.

    For ``A ⊕.⊗ u``, row i of the block reads u at its columns; those outside the own
    block are ghosts, owned by other ranks. The plan keeps them per row (CSR over the
    block's rows, local column numbers), so that a masked product fetches only the ghosts
    of its mask's rows, and marks them among ``A.columns.ghosts``, which is how a product
    asks for them (:func:`~.moves.with_ghosts`: one bit per ghost column to its owner).

    Attributes
    ----------
    all : numpy.ndarray
        Sorted local numbers of the ghost columns any row reads.
    read : numpy.ndarray
        bool over ``A.columns.ghosts``: those of ``all``.
    routes : object
        What :func:`~.moves.with_ghosts` agreed with the owners (made on its first call).
    """

    def __init__(self, A, local):
        rows, cols = local.entries(A.local, values=False)
        below, above = A.columns.below, A.columns.below + A.columns.hi - A.columns.lo
        ghost = (cols < below) | (cols >= above)
        nrows = A.local.nrows
        lengths = np.bincount(rows[ghost], minlength=nrows)
        self.indptr = np.zeros(nrows + 1, dtype=np.int64)
        np.cumsum(lengths, out=self.indptr[1:])
        self._columns = A.columns
        self.cols = cols[ghost]
        self.read = self._marked(self.cols)
        self.all = A.columns.ghost_positions()[self.read]
        self.boundary = lengths > 0  # the rows that read a ghost: few, on a partition's boundary
        self.routes = None

    def wanted(self, local, mask):
        """:meth:`marked` for the rows of ``mask`` (a local vector; None: every row), whose
        positions are read (from the GPU, copied) only when there are ghosts and few rows."""
        if mask is None or not self.all.size or 2 * local.nvals(mask) > self.indptr.size:
            return self.read
        return self.marked(local.indices(mask))

    def marked(self, rows=None):
        """bool over ``A.columns.ghosts``: the ghost columns of local rows ``rows`` (all
        that any row reads for None)."""
        if rows is None or not self.all.size or rows.size * 2 > self.indptr.size:
            return self.read
        rows = rows[self.boundary[rows]]
        starts, lengths = self.indptr[rows], self.indptr[rows + 1] - self.indptr[rows]
        offsets = np.repeat(starts - np.cumsum(lengths) + lengths, lengths)
        return self._marked(self.cols[offsets + np.arange(int(lengths.sum()))])

    def _marked(self, cols):
        # marked among the ghosts, which are few: no sort of the rows' columns
        marked = np.zeros(self._columns.ghosts.size, dtype=bool)
        marked[self._columns.ghost_index(cols)] = True
        return marked


def local_block(local, indptr, cols, values, lo, hi):
    """Rows given with global columns, numbered locally: ``(matrix, ColumnMap)``, the map's
    own block ``lo .. hi`` and its ghosts the other columns of ``cols``; ``local`` is the
    blocks' :class:`~.local.Local`."""
    columns = ColumnMap.of_columns(cols, lo, hi)
    return local.matrix(columns.size, indptr, columns.local(cols), values), columns

"""Column maps: how a rank numbers the columns of its block of rows.

A rank's rows of an ``nrows`` × ``ncols`` matrix read the columns of their entries only:
the rank's own block of the column space (:func:`.layout.bounds` of ``ncols``, the block
of ``u`` that ``A ⊕.⊗ u`` finds on this rank) and a few others, the ghosts. The local matrix
numbers them ``0 .. ncols_local``: the ghosts below the own block, the own block, the ghosts
above it, each ascending (Tpetra's column map, kept in global order). So

* the local-to-global map is increasing: a row's columns stay sorted, and the positional
  semirings' ``min``/``max`` over local columns pick the same entry as over global ones;
* the own block is one contiguous range, so the vector a product reads is the block of
  ``u`` copied into place with the ghosts around it: one array of ``ncols_local`` entries,
  which SuiteSparse keeps as a bitmap and reads by position.
"""

import numpy as np

__all__ = ["ColumnMap"]


class ColumnMap:
    """Local column numbers of a block of rows: ghosts below, the own block, ghosts above.

    Parameters
    ----------
    lo, hi : int
        The own block of columns (global ids ``lo`` to ``hi``).
    ghosts : numpy.ndarray
        Sorted unique global ids of the other columns the block may read (outside
        ``lo .. hi``); a column without entries may be listed.

    Attributes
    ----------
    lo, hi : int
    ghosts : numpy.ndarray
    below : int
        Ghosts below ``lo``: the local number of global column ``lo``.
    size : int
        Local columns: ``hi - lo + ghosts.size``.

    Examples
    --------
    >>> m = ColumnMap(4, 7, np.array([1, 9]))
    >>> m.ids.tolist(), m.local(np.array([9, 4, 1, 6])).tolist()
    ([1, 4, 5, 6, 9], [4, 1, 0, 3])
    """

    __slots__ = ("lo", "hi", "ghosts", "below", "size", "_ids", "_positions")

    def __init__(self, lo, hi, ghosts):
        self.lo, self.hi = int(lo), int(hi)
        self.ghosts = np.asarray(ghosts, dtype=np.int64)
        self.below = int(np.searchsorted(self.ghosts, self.lo))
        self.size = self.hi - self.lo + int(self.ghosts.size)
        self._ids = self._positions = None

    @classmethod
    def of_columns(cls, cols, lo, hi):
        """The map whose ghosts are the columns of ``cols`` outside ``lo .. hi``."""
        cols = np.asarray(cols, dtype=np.int64)
        return cls(lo, hi, np.unique(cols[(cols < lo) | (cols >= hi)]))

    @property
    def ids(self):
        """Global id of each local column (int64, increasing; made once)."""
        if self._ids is None:
            self._ids = np.concatenate((self.ghosts[:self.below], np.arange(self.lo, self.hi, dtype=np.int64),
                                        self.ghosts[self.below:]))
        return self._ids

    def ghost_index(self, cols):
        """The place of each local ghost column ``cols`` among the ghosts: ``ghosts[k]`` is
        its global id (the inverse of :meth:`ghost_positions`)."""
        cols = np.asarray(cols)
        return np.where(cols < self.below, cols, cols - (self.hi - self.lo))

    def ghost_positions(self):
        """Local numbers of the ghost columns, ascending (made once)."""
        if self._positions is None:
            at = np.arange(self.ghosts.size, dtype=np.int64)
            self._positions = np.where(at < self.below, at, at + (self.hi - self.lo))
        return self._positions

    def local(self, cols):
        """Local numbers of global columns ``cols``, each of which the map holds."""
        cols = np.asarray(cols, dtype=np.int64)
        out = cols - (self.lo - self.below)  # the own block: a shift
        ghost = np.flatnonzero((cols < self.lo) | (cols >= self.hi))
        if ghost.size:
            g = cols[ghost]
            at = np.searchsorted(self.ghosts, g)
            out[ghost] = at + np.where(g >= self.hi, self.hi - self.lo, 0)
        return out

    def holds(self, cols):
        """Whether each global column of ``cols`` has a local number."""
        cols = np.asarray(cols, dtype=np.int64)
        at = np.minimum(np.searchsorted(self.ghosts, cols), max(self.ghosts.size - 1, 0))
        listed = (self.ghosts[at] == cols) if self.ghosts.size else np.zeros(cols.size, bool)
        return ((cols >= self.lo) & (cols < self.hi)) | listed

    def union(self, other):
        """A map of the same own block holding the ghosts of both."""
        if other is self or np.array_equal(other.ghosts, self.ghosts):
            return self
        return ColumnMap(self.lo, self.hi, np.union1d(self.ghosts, other.ghosts))

    def __eq__(self, other):
        return (isinstance(other, ColumnMap) and (self.lo, self.hi) == (other.lo, other.hi)
                and np.array_equal(self.ghosts, other.ghosts))

    __hash__ = None

    def __repr__(self):
        return f"ColumnMap(own {self.lo:,}..{self.hi:,}, {self.ghosts.size:,} ghosts)"

"""The fused verbs on a rank's block of rows: each is the local backend's verb on a local
problem, the block's rows and their ghosts.

The forms of :mod:`gbgraph.backends.forms` take A square, row k and column k the same
vertex, and read whole vectors (``indices``, ``values``, ``to_csr``), which on the mpi
backend gather every array to every rank. Here each rank poses its rows as a problem of
their own: :meth:`~.blocks.DistMatrix.square` places them in a square matrix of A's local
columns, the vectors are read at those columns (:func:`~.moves.with_ghosts`: u's block and
its entries at the ghost columns of the mask's rows), the mask is shifted to the block's
rows, and the local backend's verb solves it. Its rows are the block's, so the result is
this rank's block; no array of the whole graph is built on any rank. What each verb
exchanges:

==================  ===================================================================
verb                exchange
==================  ===================================================================
``better_group``    ``labels`` and ``rooted`` at the ghost columns of the mask's rows;
                    ``sizes`` of the groups met (their ids to the owners, sizes back)
==================  ===================================================================

Group ids are global (up to n); each rank numbers the groups it meets ``0 .. k - 1`` in
increasing order, so that its one-hot matrices have k columns, and maps the best group
back. The forms' choices do not depend on the numbering or on the number of vertices:
within a row they compare packed keys, group sizes and column positions, which the local
numbers keep in order (the column map is increasing), and the largest size that
``better_group`` offsets by is the largest among the groups met, at least that of any
group a row compares. So the results equal the single-process ones bit for bit.
"""

import numpy as np

from .blocks import DistVector
from .moves import fetch, with_ghosts

__all__ = ["better_group"]


def better_group(be, A, labels, rooted, sizes, mask, limit):
    """This rank's block of :meth:`~gbgraph.backends.base.Backend.better_group`: the group
    (global id) each row of ``mask`` moves to."""
    rows, m = _mask_rows(be, A, mask)
    ghosts = A.plan(be.local).marked(rows)
    lab, groups = _renumbered(be.local, with_ghosts(be, labels, A, ghosts))  # lab = labels there, 0 .. k - 1
    root = with_ghosts(be, rooted, A, ghosts)  # root = rooted there
    size = be.local.vector(np.arange(groups.size), fetch(be, sizes, groups)[0], groups.size)  # size = sizes(groups)
    if not rows.size:
        return _empty(be, A, labels.size, np.int64)
    moved = be.local.better_group(A.square(be.local), lab, root, size, mask=m, limit=limit)  # the moves of A's rows
    moved = be.local.vector(be.local.indices(moved), groups[be.local.values(moved)], moved.size)  # global group ids
    return _to_block(be, A, moved, labels.size)


def _mask_rows(be, A, mask):
    """The local rows of ``mask``'s entries in A's block, and the mask in A's local
    columns (shifted by ``A.columns.below``), a local vector."""
    rows = be.local.indices(mask.local)
    return rows, be.local.vector(rows + A.columns.below, True, A.columns.size)


def _renumbered(local, v):
    """``v`` (a local vector of int64 ids) with each id ``>= 0`` replaced by its rank among
    the ids present, negative ones by -1 (the forms read both as none), and the sorted ids
    (numpy). Computed where the block is (``local.xp``: on the GPU for cupy blocks)."""
    xp = local.xp
    values = local.backend.values(v)
    known = values >= 0
    ids, number = _ranked(xp, values[known])
    numbered = xp.full(values.size, -1, xp.int64)
    numbered[known] = number
    return local.backend.vector(local.backend.indices(v), numbered, v.size, copy=False), local.host(ids)


def _ranked(xp, values):
    """The sorted unique ``values`` and the rank of each among them: counted over their range
    when it spans at most four per value (a block's group ids, mostly), else sorted."""
    if not values.size or int(values.max() - values.min()) > 4 * values.size:
        return xp.unique(values, return_inverse=True)
    low = values.min()
    present = xp.bincount(values - low) > 0
    return xp.flatnonzero(present) + low, (xp.cumsum(present) - 1)[values - low]


def _to_block(be, A, w, size):
    """A local result over A's local columns, masked to the block's rows, as this rank's
    block of a vector of ``size`` entries."""
    ids = be.local.indices(w) - A.columns.below  # w(below + i) is the block's row i
    return DistVector(be.local.vector(ids, be.local.values(w), A.local.nrows), size, A.lo)


def _empty(be, A, size, dtype):
    """This rank's block of a vector of ``size`` entries of ``dtype``, with no entry."""
    return DistVector(be.local.vector(np.empty(0, np.int64), np.empty(0, dtype), A.local.nrows), size, A.lo)

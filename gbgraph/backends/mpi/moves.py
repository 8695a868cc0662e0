"""Entries and rows moved between ranks: the communication of the mpi backend's verbs.

Each function is one pattern of exchange, written with :class:`~.exchange.Exchange`'s
collectives and the local backend's verbs:

* :func:`with_ghosts`: a vector's entries at the columns a product reads from other ranks
  (request the columns, the owners reply with value and presence);
* :func:`with_ghost_rows`: a matrix's rows at those columns, for ``A ⊕.⊗ B``;
* :func:`to_owners`: partial results pushed to the owners of their positions and combined
  there with a monoid, in rank order (``u ⊕.⊗ A``);
* :func:`gather_entries`, :func:`gather_rows`: ``u(indices)`` and ``A(rows, :)`` for an
  index list every rank holds, so that owners know what to send without being asked;
* :func:`transposed`: ``Aᵀ``, every entry sent to the owner of its column.
"""

import numpy as np

from .blocks import block_matrix, dtype_of, entries
from .layout import bounds, owners

__all__ = ["UFUNCS", "with_ghosts", "with_ghost_rows", "to_owners", "gather_entries", "gather_rows", "transposed"]

#: numpy's form of each protocol monoid, for combining partial results in rank order.
UFUNCS = {"min": np.minimum, "max": np.maximum, "plus": np.add, "times": np.multiply, "lor": np.logical_or,
           "land": np.logical_and, "bor": np.bitwise_or, "band": np.bitwise_and}


def with_ghosts(be, u, cols):
    """``u``'s block and its entries at ``cols`` (sorted, owned by other ranks): a local
    vector a product over this rank's rows reads as if it held all of ``u``.

    Two exchanges: the column ids to their owners (counts first), then each owner's values
    and presence flags back in the order asked.
    """
    ex, local = be.ex, be.local
    sendcounts = np.bincount(owners(cols, u.size, ex.size), minlength=ex.size)
    asked, counts = ex.alltoallv(cols, sendcounts)
    found = local.extract(u.local, asked)  # found = u(asked)
    values = np.zeros(asked.size, dtype=dtype_of(u.local))
    present = np.zeros(asked.size, dtype=bool)
    at = local.indices(found)
    values[at], present[at] = local.values(found), True
    values, _ = ex.alltoallv(values, counts, sendcounts)
    present, _ = ex.alltoallv(present, counts, sendcounts)
    ghosts = local.vector(cols[present], values[present], u.size)
    u_ext = local.ewise_add("first", u.local, ghosts)  # u ∪ ghosts (disjoint)
    # SuiteSparse leaves the union sparse, and a masked product that reads u by binary
    # search took 5x the time of one that reads a bitmap (Laplace3D 80³, one rank: 26
    # against 5.6 ms per mxv). The bitmap spans all of u, n bytes a rank: row blocks
    # numbered locally would bound it by the block and its ghosts (docs/distributed.md).
    u_ext.ss.config["sparsity_control"] = ["bitmap"]
    return u_ext


def with_ghost_rows(be, B, rows):
    """``B``'s block and its rows ``rows`` (sorted, owned by other ranks): a local matrix
    that ``A ⊕.⊗ B`` over this rank's rows of A reads as if it held all of B.

    Three exchanges after the request: row lengths, columns and values.
    """
    ex, local = be.ex, be.local
    sendcounts = np.bincount(owners(rows, B.nrows, ex.size), minlength=ex.size)
    asked, counts = ex.alltoallv(rows, sendcounts)
    r, cols, values = entries(local.extract(B.local, asked))  # B(asked, :)
    lengths = np.bincount(r, minlength=asked.size)
    got, _ = ex.alltoallv(lengths, counts, sendcounts)
    out, back = _segment_sums(lengths, counts), _segment_sums(got, sendcounts)
    cols, _ = ex.alltoallv(cols, out, back)
    values, _ = ex.alltoallv(values, out, back)
    indptr = np.zeros(rows.size + 1, dtype=np.int64)
    np.cumsum(got, out=indptr[1:])
    ghosts = block_matrix(B.nrows, B.ncols, rows, indptr, cols, values)
    return local.ewise_add("first", B.local, ghosts)  # B ∪ ghost rows (disjoint)


def to_owners(be, partial, size, monoid):
    """A local vector of partial results pushed to the owners of its positions and combined
    there, ``w(j) = ⊕ partial_r(j)`` over the ranks r in order (``"any"``: the lowest
    rank's); returns this rank's block of w."""
    ex, local = be.ex, be.local
    ids, values = local.indices(partial), local.values(partial)
    sendcounts = np.bincount(owners(ids, size, ex.size), minlength=ex.size)
    ids, counts = ex.alltoallv(ids, sendcounts)
    values, _ = ex.alltoallv(values, sendcounts, counts)
    if not ids.size:
        return local.vector(ids, values, size)
    order = np.argsort(ids, kind="stable")  # by position, then by source rank
    ids, values = ids[order], values[order]
    first = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))
    combined = values[first] if monoid == "any" else UFUNCS[monoid].reduceat(values, first)
    return local.vector(ids[first], combined.astype(values.dtype, copy=False), size)


def gather_entries(be, u, indices):
    """This rank's block of ``w = u(indices)``, a vector of ``indices.size`` entries.

    Every rank holds ``indices``, so the owner of ``u(indices[k])`` knows which rank's
    block holds position k: one exchange of values and one of presence flags, no request.
    """
    ex, local = be.ex, be.local
    m = indices.size
    own = owners(indices, u.size, ex.size)
    lo, hi = bounds(m, ex.size)[ex.rank:ex.rank + 2]
    mine = np.flatnonzero(own == ex.rank)
    found = local.extract(u.local, indices[mine])  # found = u(indices[mine])
    values = np.zeros(mine.size, dtype=dtype_of(u.local))
    present = np.zeros(mine.size, dtype=bool)
    at = local.indices(found)
    values[at], present[at] = local.values(found), True
    sendcounts = np.bincount(owners(mine, m, ex.size), minlength=ex.size)
    recvcounts = np.bincount(own[lo:hi], minlength=ex.size)
    values, _ = ex.alltoallv(values, sendcounts, recvcounts)
    present, _ = ex.alltoallv(present, sendcounts, recvcounts)
    position = lo + np.argsort(own[lo:hi], kind="stable")  # the order they arrive in: by source
    order = np.argsort(position[present])
    return local.vector(position[present][order], values[present][order], m)


def gather_rows(be, A, rows):
    """This rank's block of rows of ``C = A(rows, :)``, ``rows.size`` × ``A.ncols``:
    as :func:`gather_entries`, with the rows' lengths, columns and values."""
    ex, local = be.ex, be.local
    m = rows.size
    own = owners(rows, A.nrows, ex.size)
    lo, hi = bounds(m, ex.size)[ex.rank:ex.rank + 2]
    mine = np.flatnonzero(own == ex.rank)
    r, cols, values = entries(local.extract(A.local, rows[mine]))  # A(rows[mine], :)
    lengths = np.bincount(r, minlength=mine.size)
    sendcounts = np.bincount(owners(mine, m, ex.size), minlength=ex.size)
    recvcounts = np.bincount(own[lo:hi], minlength=ex.size)
    got, _ = ex.alltoallv(lengths, sendcounts, recvcounts)
    out, back = _segment_sums(lengths, sendcounts), _segment_sums(got, recvcounts)
    cols, _ = ex.alltoallv(cols, out, back)
    values, _ = ex.alltoallv(values, out, back)
    # rows arrive by source rank; put them in position order
    arrival = np.argsort(own[lo:hi], kind="stable")
    starts = np.concatenate(([0], np.cumsum(got)))[:-1]
    by_position = np.empty_like(arrival)
    by_position[arrival] = np.arange(arrival.size)
    lengths = got[by_position]
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    take = np.repeat(starts[by_position] - indptr[:-1], lengths) + np.arange(int(indptr[-1]))
    return block_matrix(m, A.ncols, np.arange(lo, hi), indptr, cols[take], values[take])


def transposed(be, A):
    """This rank's block of rows of ``Aᵀ``: each entry (i, j) sent to the owner of row j of
    ``Aᵀ`` (one exchange of counts, three of rows, columns and values)."""
    ex = be.ex
    rows, cols, values = entries(A.local)
    dest = owners(cols, A.ncols, ex.size)
    order = np.argsort(dest, kind="stable")
    sendcounts = np.bincount(dest, minlength=ex.size)
    new_rows, counts = ex.alltoallv(cols[order], sendcounts)
    new_cols, _ = ex.alltoallv(rows[order], sendcounts, counts)
    values, _ = ex.alltoallv(values[order], sendcounts, counts)
    order = np.lexsort((new_cols, new_rows))
    lo, hi = bounds(A.ncols, ex.size)[ex.rank:ex.rank + 2]
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(np.bincount(new_rows - lo, minlength=hi - lo), out=indptr[1:])
    return block_matrix(A.ncols, A.nrows, np.arange(lo, hi), indptr, new_cols[order], values[order])


def _segment_sums(lengths, counts):
    """Sums of ``lengths`` over consecutive segments of ``counts`` entries each."""
    ends = np.concatenate(([0], np.cumsum(lengths)))
    bounds_ = np.concatenate(([0], np.cumsum(counts)))
    return ends[bounds_[1:]] - ends[bounds_[:-1]]

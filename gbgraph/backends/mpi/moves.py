"""Entries and rows moved between ranks: the communication of the mpi backend's verbs.

Each function is one pattern of exchange, written with :class:`~.exchange.Exchange`'s
collectives and the local backend's verbs. Ids cross ranks global (a receiver numbers
them in its own block or column map):

* :func:`with_ghosts`: the vector a product over this rank's rows reads, ``u``'s block
  with its entries at the ghost columns (a bit per ghost column to its owner, the owners
  reply with value and presence, over :class:`Routes` agreed once per matrix; with blocks
  on the GPU, every ghost column's value and presence in one exchange without a request,
  GPU to GPU through NCCL where each rank has its own, :mod:`.nccl`);
* :func:`with_ghost_rows`: a matrix's rows at those columns, for ``A ⊕.⊗ B``;
* :func:`fetch`: a vector's entries at any global positions (request, reply);
* :func:`to_owners`: partial results pushed to the owners of their positions and combined
  there with a monoid, in rank order (``u ⊕.⊗ A``);
* :func:`gather_entries`, :func:`gather_rows`: ``u(indices)`` and ``A(rows, :)`` for an
  index list every rank holds, so that owners know what to send without being asked;
* :func:`transposed`: ``Aᵀ``, every entry sent to the owner of its column.
"""

import numpy as np

from .blocks import local_block
from .layout import owners

__all__ = ["UFUNCS", "Routes", "with_ghosts", "with_ghost_rows", "fetch", "to_owners", "gather_entries", "gather_rows", "transposed"]

#: numpy's form of each protocol monoid, for combining partial results in rank order.
UFUNCS = {"min": np.minimum, "max": np.maximum, "plus": np.add, "times": np.multiply, "lor": np.logical_or,
           "land": np.logical_and, "lxor": np.logical_xor, "bor": np.bitwise_or, "band": np.bitwise_and,
           "bxor": np.bitwise_xor}


def with_ghosts(be, u, A, rows=None, product=False):
    """The vector ``A ⊕.⊗ u`` reads on this rank: ``A.columns.size`` entries in A's local
    column numbers, u's block in place and u's entries at the ghost columns that the rows
    of ``rows`` read (a local vector whose positions are the rows; None: every row) around
    it. ``product``: for a product that reads no other column, which may then find 0 at
    the other ghost columns (a full vector), and which is done with the vector before the
    next product over A asks for one: A keeps it and refills it (:meth:`.local.Local.around`).

    Two exchanges, whose sizes both sides know (:class:`Routes`): a bit per ghost column
    to its owner, set for those wanted (:meth:`.blocks.GhostPlan.wanted`), then each
    owner's values with presence flags, one record per bit set, in the order of the bits.
    With blocks on the GPU (``be.device``), one: every ghost column's, without a request
    (:mod:`.nccl`), placed on the device without a wait for it.
    """
    ex, local, columns = be.ex, be.local, A.columns
    if ex.size == 1:  # no ghost column, and no other rank to answer: u's block is what A reads
        return u.local
    routes = Routes.of(be, A)
    if be.device is not None:  # u(ghosts), where present: placed from the device
        (values, present), = be.device.ghosts(routes, (u.local,))
        if columns.size == u.local.size:  # no ghost column in A's rows (the exchange served the others)
            return u.local
        return local.placed(u.local, columns.size, columns.below, routes.on_device("positions", local.cupy), values,
                            present)
    wanted = A.plan(local).wanted(local, rows)
    asked = routes.asked(ex.alltoallv(routes.ask(wanted), routes.ask_bytes, routes.asked_bytes)[0])
    served, answered = routes.served_counts(asked), routes.wanted_counts(wanted)
    ghosts = columns.ghost_positions()[wanted]
    reply, _ = ex.alltoallv(_answers(local, u, routes.served[asked]), served, answered)
    values, present = reply["value"], reply["present"]
    if columns.size == u.local.size:  # no ghost column in A's rows (the exchange served the others)
        return u.local
    return local.around(u.local, columns.size, columns.below, ghosts[present], values[present],
                        keep=A.kept if product else None, pad=product and bool(present.all()))


class Routes:
    """The ghost exchange of a matrix's products, agreed once between the ranks.

    A rank's ghost columns, sorted, fall in consecutive runs by owner; each owner learns
    once which of its positions each rank holds as ghosts (``served``, one exchange of the
    ids, by asking rank). A product then asks with one bit per ghost column (each owner's
    run packed into whole bytes), and the owner answers the bits set in order: both
    sides know every count, so neither exchange needs a count exchange before it.

    Attributes
    ----------
    served : numpy.ndarray
        Positions in this rank's block that the other ranks hold as ghosts, by asking
        rank, each rank's ascending.
    mine, theirs : numpy.ndarray
        This rank's ghost columns by owner, and the positions of ``served`` by asking rank:
        the counts of an exchange of every ghost (:mod:`.nccl`).
    ask_bytes, asked_bytes : numpy.ndarray
        Bytes of the bits this rank sends to each rank, and receives from each.
    """

    def __init__(self, be, A):
        ex, ghosts = be.ex, A.columns.ghosts
        mine = np.bincount(owners(ghosts, A.ncols, ex.size), minlength=ex.size)  # my ghosts, by owner
        asked, theirs = ex.alltoallv(ghosts, mine)  # the ids each rank holds of my block
        self.served = asked - be.block(A.ncols)[0]
        self.mine, self.theirs = mine, theirs
        self.ask_bytes, self._ask_at = _byte_runs(mine)
        self.asked_bytes, self._asked_at = _byte_runs(theirs)
        # what an exchange of every ghost reads and writes on the device (on_device)
        self._host = {"served": self.served, "positions": A.columns.ghost_positions(), "ghosts": ghosts}
        self._device = {}

    @classmethod
    def of(cls, be, A):
        """A's routes, agreed on first use (every rank calls it for A at once)."""
        plan = A.plan(be.local)
        if plan.routes is None:
            plan.routes = cls(be, A)
        return plan.routes

    def on_device(self, name, cupy):
        """``served``, the ghosts' ``positions`` in A's local columns or their global ids
        (``ghosts``), on this rank's GPU: copied once."""
        if name not in self._device:
            self._device[name] = cupy.asarray(self._host[name])
        return self._device[name]

    def ask(self, wanted):
        """The bits of ``wanted`` (bool over the ghosts), each owner's run in whole bytes."""
        bits = np.zeros(8 * int(self.ask_bytes.sum()), dtype=bool)
        bits[self._ask_at] = wanted
        return np.packbits(bits)

    def asked(self, received):
        """bool over ``served``: the bits the ranks set, from the bytes ``received``."""
        return np.unpackbits(received).view(bool)[self._asked_at]

    def served_counts(self, asked):
        """Entries this rank answers each rank: the bits set in its run of ``asked``."""
        return _segment_sums(asked, self.theirs)

    def wanted_counts(self, wanted):
        """Entries each owner answers this rank: the bits set in its run of ``wanted``."""
        return _segment_sums(wanted, self.mine)


def _starts(counts):
    """Where each of consecutive runs of ``counts`` entries starts, and the end."""
    starts = np.zeros(counts.size + 1, dtype=np.int64)
    np.cumsum(counts, out=starts[1:])
    return starts


def _byte_runs(counts):
    """Bytes of runs of ``counts`` bits, each run in whole bytes, and each bit's position in
    the bytes' bits."""
    nbytes = -(-counts // 8)
    shift = np.repeat(8 * _starts(nbytes)[:-1] - _starts(counts)[:-1], counts)
    return nbytes, shift + np.arange(int(counts.sum()), dtype=np.int64)


def with_ghost_rows(be, B, A):
    """The matrix ``A ⊕.⊗ B`` reads on this rank: B's rows at A's local columns (B's block
    in place, the rows at A's ghost columns fetched around it), numbered by a column map
    of B's column space. Returns ``(matrix, ColumnMap)``.

    Three exchanges after the request: row lengths, columns and values.
    """
    ex, local, columns = be.ex, be.local, A.columns
    ghosts = A.plan(local).all
    rows = columns.ids[ghosts]
    sendcounts = np.bincount(owners(rows, B.nrows, ex.size), minlength=ex.size)
    asked, counts = ex.alltoallv(rows, sendcounts)
    r, cols, values = local.entries(local.extract(B.local, asked - B.lo))  # B(asked, :)
    cols = B.columns.ids[cols]
    lengths = np.bincount(r, minlength=asked.size)
    got, _ = ex.alltoallv(lengths, counts, sendcounts)
    out, back = _segment_sums(lengths, counts), _segment_sums(got, sendcounts)
    cols, _ = ex.alltoallv(cols, out, back)
    values, _ = ex.alltoallv(values, out, back)
    # in A's column order: the fetched rows below B's block, B's block, the fetched rows above
    own_indptr, own_cols, own_values = local.csr(B.local)
    lengths = np.zeros(columns.size, dtype=np.int64)
    lengths[columns.below:columns.below + B.local.nrows] = np.diff(own_indptr)
    lengths[ghosts] = got
    split = int(got[:np.searchsorted(ghosts, columns.below)].sum())
    indptr = np.zeros(columns.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    cols = np.concatenate((cols[:split], B.columns.ids[own_cols], cols[split:]))
    values = np.concatenate((values[:split], own_values, values[split:]))
    lo, hi = be.block(B.ncols)
    return local_block(local, indptr, cols, values, lo, hi)


def fetch(be, u, ids):
    """``(values, present)`` of ``u`` at the global positions ``ids`` (any order, repeats
    allowed), aligned with ``ids``: each id asked of its owner once per asker, the owners
    reply with value and presence in one record each (a count exchange, then two)."""
    ex, local = be.ex, be.local
    if ids.size < 2 or bool((ids[1:] > ids[:-1]).all()):  # ascending and unique already (group ids met)
        wanted, back = ids, slice(None)
    else:
        wanted, back = np.unique(ids, return_inverse=True)  # ascending: grouped by owner
    sendcounts = np.bincount(owners(wanted, u.size, ex.size), minlength=ex.size)
    asked, counts = ex.alltoallv(wanted, sendcounts)
    reply, _ = ex.alltoallv(_answers(local, u, asked - u.lo), counts, sendcounts)
    return reply["value"][back], reply["present"][back]


def _answers(local, u, at):
    """An owner's reply for the positions ``at`` of its block: one record of value and
    presence each."""
    reply = np.zeros(at.size, dtype=[("value", local.dtype(u.local)), ("present", bool)])
    reply["value"], reply["present"] = local.read(u.local, at)  # u(at)
    return reply


def to_owners(be, ids, values, size, monoid):
    """Partial results at global positions ``ids`` (sorted) pushed to their owners and
    combined there, ``w(j) = ⊕ partial_r(j)`` over the ranks r in order (``"any"``: the
    lowest rank's); returns this rank's block of w, a local vector."""
    ex, local = be.ex, be.local
    lo, hi = be.block(size)
    sendcounts = np.bincount(owners(ids, size, ex.size), minlength=ex.size)
    ids, counts = ex.alltoallv(ids, sendcounts)
    values, _ = ex.alltoallv(values, sendcounts, counts)
    if not ids.size:
        return local.vector(ids, values, int(hi - lo))
    order = np.argsort(ids, kind="stable")  # by position, then by source rank
    ids, values = ids[order], values[order]
    first = np.flatnonzero(np.concatenate(([True], ids[1:] != ids[:-1])))
    combined = values[first] if monoid == "any" else UFUNCS[monoid].reduceat(values, first)
    return local.vector(ids[first] - lo, combined.astype(values.dtype, copy=False), int(hi - lo))


def gather_entries(be, u, indices):
    """This rank's block of ``w = u(indices)``, a vector of ``indices.size`` entries (a
    local vector of the block's length).

    Every rank holds ``indices``, so the owner of ``u(indices[k])`` knows which rank's
    block holds position k: one exchange of values and one of presence flags, no request.
    A ``u`` smaller than a rank's share of the list (``u.size · ranks <= indices.size``:
    aggregation's sizes read at every vertex's label) is gathered whole instead, values
    and flags, and read on each rank: O(u.size) moved and O(indices.size / ranks) work a
    rank, where the owners of every index cost O(indices.size) a rank (at 200³ on one
    rank, 435 of aggregation's 590 ms).
    """
    ex, local = be.ex, be.local
    m = indices.size
    lo, hi = be.block(m)
    if u.size * ex.size <= m:
        values, present = local.read(u.local, np.arange(u.local.size))  # u's block, every position
        at = indices[lo:hi]
        present = ex.allgatherv(present)[at]
        ids = np.flatnonzero(present)
        return local.vector(ids, ex.allgatherv(values)[at[ids]], int(hi - lo))
    own = owners(indices, u.size, ex.size)
    mine = np.flatnonzero(own == ex.rank)
    values, present = local.read(u.local, indices[mine] - u.lo)  # u(indices[mine])
    sendcounts = np.bincount(owners(mine, m, ex.size), minlength=ex.size)
    recvcounts = np.bincount(own[lo:hi], minlength=ex.size)
    values, _ = ex.alltoallv(values, sendcounts, recvcounts)
    present, _ = ex.alltoallv(present, sendcounts, recvcounts)
    block = own[lo:hi]
    # the order they arrive in: by source, each source's in position order (a pass per
    # source, where a stable sort took 100 ms for 4·10⁶ positions)
    at = np.concatenate([np.empty(0, np.int64)] + [np.flatnonzero(block == r) for r in np.flatnonzero(recvcounts)])
    at = at[present]
    # placed by position (where a sort of the positions took 100 ms more)
    held = np.zeros(hi - lo, dtype=bool)
    held[at] = True
    placed = np.empty(hi - lo, dtype=values.dtype)
    placed[at] = values[present]
    ids = np.flatnonzero(held)
    return local.vector(ids, placed[ids], int(hi - lo))


def gather_rows(be, A, rows):
    """This rank's block of rows of ``C = A(rows, :)``, ``rows.size`` × ``A.ncols``: as
    :func:`gather_entries`, with the rows' lengths, columns and values. Returns
    ``(matrix, ColumnMap)``."""
    ex, local = be.ex, be.local
    m = rows.size
    own = owners(rows, A.nrows, ex.size)
    lo, hi = be.block(m)
    mine = np.flatnonzero(own == ex.rank)
    r, cols, values = local.entries(local.extract(A.local, rows[mine] - A.lo))  # A(rows[mine], :)
    cols = A.columns.ids[cols]
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
    col_lo, col_hi = be.block(A.ncols)
    return local_block(local, indptr, cols[take], values[take], col_lo, col_hi)


def transposed(be, A):
    """This rank's block of rows of ``Aᵀ``: each entry (i, j) sent to the owner of row j of
    ``Aᵀ`` (one exchange of counts, three of rows, columns and values). Returns
    ``(matrix, ColumnMap)``."""
    ex, local = be.ex, be.local
    rows, cols, values = local.entries(A.local)
    rows, cols = rows + A.lo, A.columns.ids[cols]
    dest = owners(cols, A.ncols, ex.size)
    order = np.argsort(dest, kind="stable")
    sendcounts = np.bincount(dest, minlength=ex.size)
    new_rows, counts = ex.alltoallv(cols[order], sendcounts)
    new_cols, _ = ex.alltoallv(rows[order], sendcounts, counts)
    values, _ = ex.alltoallv(values[order], sendcounts, counts)
    order = np.lexsort((new_cols, new_rows))
    lo, hi = be.block(A.ncols)
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(np.bincount(new_rows - lo, minlength=hi - lo), out=indptr[1:])
    col_lo, col_hi = be.block(A.nrows)
    return local_block(local, indptr, new_cols[order], values[order], col_lo, col_hi)


def _segment_sums(values, counts):
    """Sums of ``values`` (numbers or flags) over consecutive segments of ``counts`` entries
    each: summed segment by segment (a rank's partners are few), not by a cumulative sum
    over every value."""
    starts = _starts(counts)
    sums = np.zeros(counts.size, dtype=np.int64)
    for r in np.flatnonzero(counts):
        sums[r] = values[starts[r]:starts[r + 1]].sum()
    return sums


"""User-defined operators on the mpi backend: each rank runs the operator on its block.

The operators of :mod:`gbgraph.backends.operators` reach a rank's blocks in two ways:

* element-wise and product verbs (``apply`` with a :class:`~.operators.UnaryOp` or a bound
  :class:`~.operators.BinaryOp`, ``ewise_add``/``ewise_mult``, ``accum=``,
  ``reduce_rows``/``reduce_cols`` with a :class:`~.operators.Monoid`, ``mxv``/``mxm``
  with a :class:`~.operators.Semiring`) pass the operator to the local backend, which
  runs it on the block as it runs a named one (:class:`~gbgraph.backends.mpi.MPIBackend`);
* the verbs whose operator sees global positions or several ranks' entries run here, on
  the ``numba`` backend's compiled kernels of the operator, fed the block's rows at their
  global positions: an :class:`~.operators.IndexUnaryOp` (``apply_index``, ``select``),
  a :class:`~.operators.RowOperator` (``mxv``), a Monoid's ``reduce`` and a Semiring's
  ``vxm`` (partial results combined at their owners).

So the operator is compiled once per process, by numba, and a rank's results are those of
the single-process ``numba`` backend on its rows, values and dtype. With blocks on the GPU
(``mpi-cupy``), a row operator's ``mxv`` without ``order`` and an index-unary verb on a
vector with a scalar thunk run there instead, by the ``cupy`` backend's kernels of the
operator, whose results are numba's: the helpers below take the backend that runs the
kernel (its *target*, numba or cupy) and build the rows and vectors as its arrays, so that
nothing crosses to the host but the exchanges. What each verb moves:

=================================  ===================================================
verb                               exchange
=================================  ===================================================
``mxv(row operator)``              the vectors' entries at the ghost columns of the
                                   mask's rows (a bit per ghost column to its owner,
                                   a reply per vector, as a product's ghosts)
``mxv(row operator, order=)``      one global sequence, run in rounds: ``order`` and
                                   the other vectors at the ghosts of the mask's rows
                                   once, then each round the first vector's values and
                                   the rows still pending at the ghosts of the pending
                                   rows (as above); after :data:`ROUNDS` rounds, the
                                   rows left and the entries they read to rank 0,
                                   which runs them, and their results back
``apply_index``/``select``         the thunk vectors' entries at the block's rows and
(index-unary, vector thunks)       at its columns (a square matrix's: as ``mxv``'s
                                   ghosts; else a request to the owners, replies)
``reduce`` (Monoid)                one allgather of the ranks' partial results (float
                                   monoids: every value, reduced in position order)
``vxm`` (Semiring of a Monoid)     the partial results to the owners of their columns
                                   (a float sum, which rounds by the terms' order:
                                   A transposed once, then u's
                                   entries at the columns of Aᵀ's rows, as ``mxv``)
=================================  ===================================================

Costs beyond the exchanges: the kernels read the vectors at global positions, so a rank
holds each vector it passes as an array of the vector's size (its block and ghosts set,
the rest unread), O(n) memory per vector and call, and a copy of its rows, with global
columns under an O(n) row pointer array, made once per matrix and kept with its block.

The ordered sweep is sequential in one process; here a round runs, on each rank, every
pending row none of whose preceding neighbours is pending on another rank or waits itself
(:func:`_ordered`), in the sequence's order, so it reads what it reads in one process. A
round costs the ghost exchange of a product and a scan of the pending rows; the rounds are
at most one more than the times a chain of rows, each preceding the next and a
neighbour of it, crosses from a rank to another: rows far apart run in one round, random
priorities need a few, and a chain that crosses ranks back and forth more than
:data:`ROUNDS` times leaves its rows to rank 0 (O(nnz of those rows) moved there, run
while the other ranks wait).
"""

import numba
import numpy as np

from ..operators import Monoid, Semiring, TypingError
from .blocks import DistMatrix, DistVector
from .layout import owners
from .local import CupyLocal, SuiteSparseLocal
from .moves import Routes, _answers, fetch

__all__ = ["row_mxv", "index_unary", "reduce", "by_columns", "vxm_by_columns", "pushed"]

#: Rounds of an ordered sweep before the rows left go to rank 0 (:func:`_ordered`).
ROUNDS = 32
#: The key of a matrix's rows at global positions in its ``kept`` dict, with the backend's
#: name that holds them (:func:`_global_rows`).
_ROWS = "operators: rows at global positions"
#: The key of a matrix's distributed transpose in its ``kept`` dict (:func:`vxm_by_columns`).
_TRANSPOSE = "operators: transpose"


def row_mxv(be, op, A, vectors, *, mask, structure, complement, order):
    """This rank's block of ``w<mask>(i) = op(row i of A, vectors)``: the rows of the mask
    in its block, each run by numba's row kernel (cupy's, with blocks on the GPU) with the
    vectors' entries at the row's columns (its block and ghosts); ``order``: one sweep over
    every rank's rows (:func:`_ordered`, by numba).

    Raises
    ------
    TypeError
        If ``A`` is not this backend's.
    NotImplementedError
        If numba cannot type ``op`` for the dtypes of A and the vectors (on every rank,
        before any exchange).
    ValueError
        If the number of vectors is not the operator's, a vector's size is not one of A's,
        the mask or ``order`` is not a vector of A's rows, a vector of fill None is not
        full, or ``order`` lacks a row of the mask (on every rank).

    Examples
    --------
    The smallest color that no neighbour holds, on the path 0 - 1 - 2 whose vertex 1 is
    colored 0:

    >>> from mpi4py import MPI
    >>> from gbgraph.backends.mpi import MPIBackend
    >>> from gbgraph.backends.operators import RowOperator, _doc_smallest_free
    >>> be = MPIBackend(MPI.COMM_SELF)
    >>> A = be.matrix(np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]))
    >>> first_fit = RowOperator(_doc_smallest_free, fill=-1, constants={"LIMIT": 64})
    >>> be.values(be.mxv(first_fit, A, be.vector(np.array([1]), np.array([0]), 3))).tolist()
    [1, 0, 1]
    """
    passed, vectors = vectors, vectors if isinstance(vectors, tuple) else (vectors,)
    _check_operands(be, op, A, vectors, mask, order)
    kinds = [be.local.dtype(v.local) for v in vectors]
    try:  # before any exchange: every rank refuses the same dtypes
        dtype = op.result_dtype(be.local.dtype(A.local), kinds)
    except TypingError as error:
        names = f"({', '.join(k.name for k in kinds)})" if isinstance(passed, tuple) else kinds[0].name
        raise NotImplementedError(f"mxv with {op!r} on {be.local.dtype(A.local).name}/{names} is not supported "
                                  f"({error})") from None
    _check_full(be, op, vectors)
    # on the blocks' GPU where they are there (cupy), else numba's kernels on the host
    target = _device(be) if order is None else None
    target = target or _numba()
    if target is be.local.backend and (mask is None or structure and not complement):
        # the mask's rows at their global positions, on the device without a wait; every
        # ghost comes (nccl.py), so the rows are not asked for
        rows = None
        selected = be.local.shifted(be.local.full(A.local.nrows, True, "bool") if mask is None else mask.local,
                                    A.nrows, A.lo)
    else:
        rows = _rows(be, A, mask, structure, complement, target)
        if order is not None:
            return _ordered(be, op, A, vectors, rows, order, dtype)
        selected = target.vector(rows + A.lo, True, A.nrows)
    held = _held(be, target, A, vectors, rows, op.fill)  # at the rows' columns
    w = target.mxv(op, _global_rows(be, target, A), held, mask=selected)  # w<rows> = op(A, v), rows and columns global
    return _block_of(be, target, w, A.nrows, A.lo, A.local.nrows)


def _device(be):
    """The cupy backend that holds the blocks (``mpi-cupy``), or None."""
    return be.local.backend if isinstance(be.local, CupyLocal) else None


def _check_operands(be, op, A, vectors, mask, order):
    if not isinstance(A, DistMatrix):
        raise TypeError(f"mxv: {op!r} takes a matrix of backend {be.name!r}, got {type(A).__name__}")
    if len(vectors) != op.n_vectors:
        raise ValueError(f"mxv: {op!r} reads {op.n_vectors} vectors, got {len(vectors)}")
    if order is not None and not vectors:
        raise ValueError(f"mxv: order= writes each row's value into the first vector; {op!r} reads none")
    for k, v in enumerate(vectors):
        if not isinstance(v, DistVector) or v.size not in (A.nrows, A.ncols):
            raise ValueError(f"mxv: vector {k} of {op!r} must be a vector of size {A.nrows} (read at i) or "
                             f"{A.ncols} (read at a column), got {v!r}")
    for name, x in (("mask", mask), ("order", order)):
        if x is not None and (not isinstance(x, DistVector) or x.size != A.nrows):
            raise ValueError(f"mxv: {name} must be a vector of size {A.nrows}, got {x!r}")


def _check_full(be, op, vectors):
    """ValueError on every rank for a vector whose fill is None and that lacks an entry:
    one collective for all of them."""
    full = [k for k, fill in enumerate(op.fill) if fill is None]
    if not full:
        return
    nvals = np.sum(be.ex.allgather([be.local.nvals(vectors[k].local) for k in full]), axis=0)  # Σ over ranks
    for k, count in zip(full, nvals):
        if count != vectors[k].size:
            raise ValueError(f"mxv: vector {k} of {op!r} must be full (its fill is None), "
                             f"got {count} of {vectors[k].size} entries")


def _rows(be, A, mask, structure, complement, target):
    """The local rows of A's block that the mask selects (every row without a mask), an
    int64 array of ``target``'s (the backend that runs the operator: numpy, or cupy on
    the blocks' GPU)."""
    xp, n = target.xp, A.local.nrows
    if mask is None:
        return xp.arange(n, dtype=xp.int64)
    ids, values = _entries(be, mask.local, 0, target)
    if not structure:
        ids = ids[values.astype(bool)]
    if complement:
        kept = xp.ones(n, bool)
        kept[ids] = False
        ids = xp.flatnonzero(kept)
    return ids.astype(xp.int64, copy=False)


def _held(be, target, A, vectors, rows, fills=None):
    """Each vector as a vector of ``target``'s of its size holding the entries of its
    block and, for one of A's columns, its entries at the ghost columns that the local
    ``rows`` read (``rows`` None: the ghosts any row reads): one request of a bit per ghost
    column for all vectors, then a reply per vector (:class:`~.moves.Routes`, as
    :func:`~.moves.with_ghosts`). A vector of another size (A's rows: read at i) has its
    block, the rows' own. ``fills``: an operator's, whose vectors of fill None come full
    (:func:`_filled`).

    With ``target`` the blocks' GPU (cupy), every ghost column's values for all vectors in
    one exchange without a request (:mod:`.nccl`), placed on the device without a wait for
    it (:meth:`.local.CupyLocal.placed`)."""
    ex, local = be.ex, be.local
    fills = (0,) * len(vectors) if fills is None else fills
    ghosted = ex.size > 1 and any(v.size == A.ncols for v in vectors)
    if target is local.backend:
        routes = Routes.of(be, A) if ghosted else None
        got = iter(be.device.ghosts(routes, [v.local for v in vectors if v.size == A.ncols]) if ghosted else ())
        held = []
        for v, fill in zip(vectors, fills):
            at = (routes.on_device("ghosts", local.cupy), *next(got)) if ghosted and v.size == A.ncols else ()
            # a vector of fill None is full on every rank (_check_full): each ghost is present
            held.append(local.placed(v.local, v.size, v.lo, *at) if fill is not None else
                        local.full_placed(v.local, v.size, v.lo, *at[:2]))
        return tuple(held)
    own = [_entries(be, v.local, v.lo, target) for v in vectors]
    if ghosted:
        plan = A.plan(local)
        wanted = plan.read if rows is None else plan.marked(rows)
        routes = Routes.of(be, A)
        asked = routes.asked(ex.alltoallv(routes.ask(wanted), routes.ask_bytes, routes.asked_bytes)[0])
        ghosts = A.columns.ghosts[wanted]
        split = int(np.searchsorted(ghosts, A.columns.lo))
        served, answered = routes.served_counts(asked), routes.wanted_counts(wanted)
        for k, v in enumerate(vectors):
            if v.size != A.ncols:
                continue
            reply, _ = ex.alltoallv(_answers(local, v, routes.served[asked]), served, answered)  # v(ghosts), where present
            present = reply["present"]
            at, values = ghosts[present], reply["value"][present]
            below = int(np.count_nonzero(present[:split]))
            own[k] = (np.concatenate((at[:below], own[k][0], at[below:])),
                      np.concatenate((values[:below], own[k][1], values[below:])))
    return _filled(target, tuple(target.vector(ids, values, v.size, copy=False) for (ids, values), v in zip(own, vectors)),
                   fills)


def _entries(be, v, lo=0, target=None):
    """``(positions + lo, values)`` of a local vector's entries, new arrays: on the GPU
    when ``target`` is the blocks' backend (cupy), else numpy arrays. A SuiteSparse
    vector's own arrays are copied, unpacked and packed back, where ``extractTuples``
    copies entry by entry (35 ms against 0.1 ms for 250,000 entries)."""
    if target is not None and target is be.local.backend:
        return target.indices(v) + lo, target.values(v)
    if not isinstance(be.local, SuiteSparseLocal):
        return be.local.indices(v) + lo, be.local.values(v)
    from ..suitesparse import _vector_arrays

    with _vector_arrays(v) as (indices, values):
        ids = np.arange(lo, lo + v.size, dtype=np.int64) if indices is None else indices + lo
        return ids, np.array(values)


def _filled(target, held, fills):
    """The vectors ``held`` (``target``'s) for an operator of fills ``fills``: a vector of
    fill None (full, :func:`_check_full`) as a full vector whose positions not held are 0,
    which no row reads; the others as they are, the kernels filling their absent positions."""
    return tuple(h if fill is not None else target.full(h.size, h.dense()[0], h.dtype) for h, fill in zip(held, fills))


def _global_rows(be, target, A):
    """A's block as a matrix of ``target``'s of A's shape whose other rows are empty, its
    columns global: the rows a kernel runs see their global row and columns. Made once per
    block and target (kept with the block's other derived data, which a write into it
    clears)."""
    key = (_ROWS, target.name)
    M = A.kept.get(key)
    if M is None:
        xp = target.xp
        indptr, cols, values = target.to_csr(A.local) if target is be.local.backend else be.local.csr(A.local)
        pointers = xp.full(A.nrows + 1, int(indptr[-1]), dtype=xp.int64)  # empty rows after the block
        pointers[:A.lo] = 0  # and before it
        pointers[A.lo:A.lo + indptr.size] = indptr
        values = None if be.local.is_pattern(A.local) else values
        M = target.matrix(pointers, xp.asarray(A.columns.ids)[cols], ncols=A.ncols, values=values, copy=False)
        A.kept[key] = M
    return M


def _block_of(be, target, w, size, lo, length):
    """A vector of ``target``'s of ``size`` entries, all in ``lo .. lo + length``, as this
    rank's block of a vector."""
    if target is be.local.backend:  # on the blocks' GPU, without a wait
        return DistVector(be.local.shifted(w, length, -lo), size, lo)
    local = be.local.vector(target.indices(w) - lo, target.values(w), length)  # numba's arrays, copied into the block
    return DistVector(local, size, lo)


def _ordered(be, op, A, vectors, rows, order, dtype):
    """The ordered sweep over the mask's rows of every rank: one sequence, by decreasing
    ``order`` and then row, each row's value written into the first vector before the next
    row runs, as in one process.

    Run in rounds: a rank runs, in the sequence's order, each of its pending rows whose
    preceding neighbours (pending rows of the mask before it in the sequence, at its
    columns) are done or run before it in the same round, and no row of another rank; the
    first pending row of the sequence always runs. A row reads what it would read in one
    process: its preceding neighbours' values, written, and its following ones', not yet.
    Each round fetches the ghosts of the pending rows: the first vector's values and
    whether they are pending. After :data:`ROUNDS` rounds the rows left go to rank 0
    (:func:`_gathered`), which bounds the cost of a long chain of rows crossing ranks.
    """
    ex, local, nb = be.ex, be.local, _numba()
    if A.nrows != A.ncols:
        raise ValueError(f"mxv: order= writes row i's value into the first vector at i: A must be square, "
                         f"got {A.nrows} x {A.ncols}")
    key, present = local.read(order.local, rows)  # order(rows)
    if ex.allreduce(np.count_nonzero(~present)):
        raise ValueError(f"mxv: order has no entry at some rows computed ({be.nvals(order)} of {order.size} entries)")
    M, lo, length = _global_rows(be, nb, A), A.lo, A.local.nrows
    # what no row changes: order and the other vectors at the rows' columns
    held_key, *others = _held(be, nb, A, (order,) + vectors[1:], rows, (None,) + op.fill[1:])
    others = tuple(others)
    keys = held_key.dense()[0]
    first, kind = vectors[0], local.dtype(vectors[0].local)
    values, has = local.read(first.local, np.arange(length))  # the first vector's block, as the rows write it
    pending = np.zeros(length, bool)
    pending[rows] = True
    done_ids, done_values = [], []
    for _ in range(ROUNDS):
        if not ex.allreduce(np.count_nonzero(pending)):
            break
        waiting = np.flatnonzero(pending)
        state = (_block_vector(be, first, values, has), _block_vector(be, first, pending, pending))
        held_first, held_pending = _held(be, nb, A, state, waiting)
        is_pending = np.zeros(A.ncols, bool)
        is_pending[held_pending.indices] = True
        sequence = waiting[_by_decreasing(keys[waiting + lo])] + lo
        runs = np.zeros(length, bool)
        runs[sequence[_runnable(M.indptr, M.indices, sequence, keys, is_pending, lo, lo + length)] - lo] = True
        run = np.flatnonzero(runs) + lo  # ascending, without a sort
        w = nb.mxv(op, M, _filled(nb, (held_first,), op.fill[:1]) + others, mask=nb.vector(run, True, A.nrows),
                   order=nb.vector(run, keys[run], A.nrows))  # w<run> = op(A, v) in order
        ids, got = nb.indices(w) - lo, nb.values(w)
        values[ids], has[ids] = got.astype(kind, copy=False), True
        done_ids.append(ids)
        done_values.append(got)
        pending[run - lo] = False
    else:
        if ex.allreduce(np.count_nonzero(pending)):
            rest = np.flatnonzero(pending)
            state = (_block_vector(be, first, values, has),) + vectors[1:]
            ids, got = _gathered(be, op, A, state, rest, keys[rest + lo], dtype)
            done_ids.append(ids - lo)
            done_values.append(got)
    ids = np.concatenate([np.empty(0, np.int64)] + done_ids)
    got = np.concatenate([np.empty(0, dtype)] + done_values)
    by_row = np.argsort(ids)
    return DistVector(local.vector(ids[by_row], got[by_row], length), A.nrows, lo)


def _block_vector(be, like, values, present):
    """A vector of ``like``'s size and block holding ``values`` where ``present``."""
    at = np.flatnonzero(present)
    return DistVector(be.local.vector(at, values[at], like.local.size), like.size, like.lo)


def _by_decreasing(key):
    """The permutation that puts ``key`` in decreasing order, equal keys in their order."""
    m = key.size
    return (m - 1 - np.argsort(key[::-1], kind="stable"))[::-1]


@numba.njit(cache=True)
def _runnable(indptr, cols, sequence, keys, pending, lo, hi):
    """Which rows of ``sequence`` (global ids of this rank's pending rows, in the sweep's
    order) run this round: those without a preceding pending neighbour that another rank
    holds or that cannot run itself."""
    blocked = np.zeros(hi - lo, np.bool_)
    runs = np.empty(sequence.size, np.bool_)
    for k in range(sequence.size):
        i = sequence[k]
        stop = False
        for p in range(indptr[i], indptr[i + 1]):
            j = cols[p]
            if j != i and pending[j] and (keys[j] > keys[i] or (keys[j] == keys[i] and j < i)):
                if j < lo or j >= hi or blocked[j - lo]:
                    stop = True
                    break
        blocked[i - lo] = stop
        runs[k] = not stop
    return runs


def _gathered(be, op, A, vectors, rows, key, dtype):
    """The ordered sweep over the rows ``rows`` of every rank, ``key`` their order values,
    run by rank 0 on those rows and the vectors' entries they read, gathered; an error
    there is raised on every rank. Returns this rank's results, ``(global ids, values)``."""
    ex, nb = be.ex, _numba()
    M = _global_rows(be, nb, A)
    g = rows + A.lo
    lengths = M.indptr[g + 1] - M.indptr[g]
    take = np.repeat(M.indptr[g] - np.cumsum(lengths) + lengths, lengths) + np.arange(int(lengths.sum()))
    cols = M.indices[take].astype(np.int64, copy=False)
    parts = [g, key, lengths, cols]
    parts += [] if M.values is None else [M.values[take]]
    read = np.union1d(g, cols)  # the positions the rows read: i and their columns
    for v in _held(be, nb, A, vectors, rows):
        at = np.minimum(np.searchsorted(v.indices, read), max(v.indices.size - 1, 0))
        found = (v.indices[at] == read) if v.indices.size else np.zeros(read.size, bool)
        parts += [read[found], v.values[at[found]]]  # v(read), where present
    parts = [_to_root(ex, part) for part in parts]  # in rank order: rows ascending
    result, error = (np.empty(0, np.int64), np.empty(0, dtype)), None
    if ex.rank == 0:
        try:
            result = _sweep(nb, op, A, vectors, parts)
        except Exception as raised:  # noqa: BLE001 - the others wait for rank 0: raised everywhere below
            error = raised
    errors = ex.allgather(None if error is None else (type(error), str(error)))
    if errors[0] is not None:
        kind, message = errors[0]
        raise kind(message) from error
    ids, values = result
    sendcounts = np.bincount(owners(ids, A.nrows, ex.size), minlength=ex.size)
    ids, counts = ex.alltoallv(ids, sendcounts)
    values, _ = ex.alltoallv(values.astype(dtype, copy=False), sendcounts, counts)
    return ids, values


def _sweep(nb, op, A, vectors, parts):
    """Rank 0's ordered ``mxv`` over the gathered ``parts`` (:func:`_ordered`): the numba
    backend's sweep on the rows at their global positions. Returns the result's
    ``(ids, values)``."""
    g, key, lengths, cols = parts[:4]
    values = parts[4] if len(parts) % 2 else None
    held = parts[5:] if values is not None else parts[4:]
    indptr = np.zeros(A.nrows + 1, dtype=np.int64)
    indptr[g + 1] = lengths
    np.cumsum(indptr, out=indptr)
    M = nb.matrix(indptr, cols, ncols=A.ncols, values=values, copy=False)
    vs = []
    for k, v in enumerate(vectors):
        ids, first = np.unique(held[2 * k], return_index=True)  # a column read by several ranks' rows: once
        vs.append(nb.vector(ids, held[2 * k + 1][first], v.size, copy=False))
    vs = _filled(nb, vs, op.fill)
    w = nb.mxv(op, M, vs, mask=nb.vector(g, True, A.nrows), order=nb.vector(g, key, A.nrows))
    return nb.indices(w), nb.values(w)


def _to_root(ex, array):
    """Every rank's ``array`` on rank 0, concatenated in rank order (empty elsewhere)."""
    sendcounts = np.zeros(ex.size, dtype=np.int64)
    sendcounts[0] = array.size
    return ex.alltoallv(array, sendcounts)[0]


def index_unary(be, verb, op, u, thunk):
    """This rank's block of ``apply_index`` (``verb="apply_index"``) or ``select`` with an
    :class:`~.operators.IndexUnaryOp`: the verb on the block's entries at their global
    positions (i, j), the thunk vectors read there (their entries at the block's rows and
    columns fetched first); on the blocks' GPU for a vector with a scalar thunk (cupy's
    kernels), else by numba's on the host.

    Raises
    ------
    NotImplementedError
        If numba cannot type ``op`` for these dtypes (numba's, on every rank).
    ValueError
        If a thunk vector is not a vector of this backend, or is not full (every rank).
    """
    target = _device(be) if not isinstance(u, DistMatrix) and not isinstance(thunk, tuple) else None
    target = target or _numba()  # on the blocks' GPU (cupy) a vector with a scalar thunk, else numba's on the host
    if isinstance(u, DistMatrix):
        U = _global_rows(be, target, u)
    else:
        U = be.local.shifted(u.local, u.size, u.lo) if target is be.local.backend else \
            target.vector(*_entries(be, u.local, u.lo), u.size, copy=False)  # the block at its global positions
    if isinstance(thunk, tuple):
        thunk = _thunks(be, target, verb, op, u, thunk)
    w = getattr(target, verb)(op, U, thunk)  # w = op(u(i, j), i, j, thunk) or the entries where it holds
    if isinstance(u, DistMatrix):
        return _rows_of(be, target, w, u)
    return _block_of(be, target, w, u.size, u.lo, u.local.size)


def _thunks(be, nb, verb, op, u, thunk):
    """The thunk vectors as full numba vectors whose values at the global positions of the
    rows and columns of ``u``'s block are theirs: for a square matrix's, the ghosts of its
    columns as a product fetches them (:func:`_held`), else by request (:func:`_read_at`).
    ValueError where a vector is not full."""
    for k, v in enumerate(thunk):
        if not isinstance(v, DistVector):
            raise ValueError(f"{verb}: thunk {k} of {op!r} must be a vector of backend {be.name!r}, got {v!r}")
        nvals = be.nvals(v)
        if nvals != v.size:
            raise ValueError(f"{verb}: the thunk vectors of {op!r} must be full; vector {k} has {nvals} of {v.size} "
                             "entries")
    if isinstance(u, DistMatrix) and u.nrows == u.ncols and all(v.size == u.ncols for v in thunk):
        return _held(be, nb, u, thunk, None, (None,) * len(thunk))
    if isinstance(u, DistMatrix):
        at = np.concatenate((np.arange(u.lo, u.lo + u.local.nrows, dtype=np.int64), u.columns.ids))
    else:
        at = np.concatenate((np.arange(u.lo, u.lo + u.local.size, dtype=np.int64), [0]))  # a vector's j is 0
    return tuple(_read_at(be, nb, v, at) for v in thunk)


def _read_at(be, nb, v, at):
    """Full vector ``v`` as a full numba vector whose values at the global positions ``at``
    (those in its range) are ``v``'s, the others' fetched by request."""
    at = at[at < v.size]
    at = np.unique(at[(at < v.lo) | (at >= v.lo + v.local.size)])  # the positions other ranks hold
    dense = np.zeros(v.size, dtype=be.local.dtype(v.local))
    dense[v.lo:v.lo + v.local.size] = _entries(be, v.local)[1]  # full: every position of the block
    dense[at] = fetch(be, v, at)[0]
    return nb.full(v.size, dense, dense.dtype)


def _rows_of(be, nb, W, u):
    """A numba matrix of ``u``'s shape with entries in ``u``'s rows and columns only, as
    this rank's block of a matrix in ``u``'s column map."""
    lo, hi = u.lo, u.lo + u.local.nrows
    start = W.indptr[lo]
    indptr = W.indptr[lo:hi + 1] - start
    cols = u.columns.local(W.indices[start:W.indptr[hi]])
    values = None if W.values is None else W.values[start:W.indptr[hi]]
    return DistMatrix(be.local.matrix(u.columns.size, indptr, cols, values), u.nrows, u.ncols, u.lo, u.columns)


def reduce(be, u, monoid):
    """``⊕ u`` with a :class:`~.operators.Monoid`: numba's reduction of each block, the
    partial results combined (a float monoid, whose rounding depends on the order: every
    value, reduced in position order, as in one process). None when ``u`` has no entry."""
    nb, local = _numba(), be.local
    values = local.csr(u.local)[2] if isinstance(u, DistMatrix) else _entries(be, u.local)[1]
    if monoid.dtype.kind == "f":
        values = be.ex.allgatherv(values)
        return nb.reduce(nb.vector(np.arange(values.size), values, values.size, copy=False), monoid)
    part = nb.reduce(nb.vector(np.arange(values.size), values, values.size, copy=False), monoid)
    parts = [p for p in be.ex.allgather(part) if p is not None]
    if not parts:
        return None
    parts = np.asarray(parts, dtype=monoid.dtype)
    return nb.reduce(nb.vector(np.arange(parts.size), parts, parts.size, copy=False), monoid)


def by_columns(semiring, left, right):
    """Whether ``vxm`` with ``semiring`` on operands of dtypes ``left`` (u) and ``right``
    (A) reduces each column in one process's order (:func:`vxm_by_columns`): a
    :class:`~.operators.Semiring` whose result depends on the order of the terms (a float
    :class:`~.operators.Monoid`, a named ``plus`` or ``times`` on floats), where partial
    results of the ranks would round differently."""
    if not isinstance(semiring, Semiring):
        return False
    monoid = semiring.monoid
    if isinstance(monoid, Monoid):
        return monoid.dtype.kind == "f"
    return monoid in ("plus", "times") and semiring.result_dtype(left, right).kind == "f"


def vxm_by_columns(be, semiring, u, A):
    """This rank's block of ``u ⊕.⊗ A`` (a local vector) for a :class:`~.operators.Semiring`
    whose sums round by the order of their terms (:func:`by_columns`): each rank reduces its block of A's columns, the rows of ``Aᵀ`` (the distributed
    transpose, made once per block and kept with it), with u's entries at their columns
    fetched, by numba's ``vxm``, so that each column's terms are reduced in one process's
    order (by increasing row)."""
    nb, local = _numba(), be.local
    T = A.kept.get(_TRANSPOSE)
    if T is None:
        T = A.kept[_TRANSPOSE] = be.transpose(A)
    held, = _held(be, nb, T, (u,), None)  # u at the columns of Aᵀ's rows
    w = nb.vxm(semiring, held, _global_rows(be, nb, T), transpose=True)  # w = u ⊕.⊗ (Aᵀ's rows)ᵀ
    return local.vector(nb.indices(w) - T.lo, nb.values(w), T.local.nrows)


def pushed(be, ids, values, size, monoid):
    """Partial results at global positions ``ids`` (sorted, one per position on each rank)
    pushed to their owners and combined there with a :class:`~.operators.Monoid`, in rank
    order (numba's ``reduce_rows`` over one row per position); this rank's block of the
    result, a local vector (:func:`~.moves.to_owners` for named monoids)."""
    ex, nb = be.ex, _numba()
    lo, hi = be.block(size)
    sendcounts = np.bincount(owners(ids, size, ex.size), minlength=ex.size)
    ids, counts = ex.alltoallv(ids, sendcounts)
    values, _ = ex.alltoallv(values, sendcounts, counts)
    source = np.repeat(np.arange(ex.size, dtype=np.int64), counts)
    order = np.argsort(ids, kind="stable")  # by position, then by source rank
    indptr = np.zeros(hi - lo + 1, dtype=np.int64)
    np.cumsum(np.bincount(ids - lo, minlength=hi - lo), out=indptr[1:])
    M = nb.matrix(indptr, source[order], ncols=ex.size, values=values[order], copy=False)
    w = nb.reduce_rows(M, monoid)  # w(j) = ⊕_r partial_r(j)
    return be.local.vector(nb.indices(w), nb.values(w), hi - lo)


def _numba():
    from .. import backend

    return backend("numba")

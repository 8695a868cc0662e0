"""The ``mpi`` backend: matrices and vectors split by row blocks over MPI ranks (mpi4py),
each block held and computed on by a local backend: ``suitesparse`` (``backend="mpi"``) or
``cupy`` on one GPU per rank (``backend="mpi-cupy"``).

Every rank runs the same algorithm on the same protocol calls (SPMD). A vector or a
matrix's rows are split in contiguous blocks (:mod:`.layout`); each rank numbers its block
locally (:mod:`.blocks`: a vector of the block's length, a matrix of the block's rows with
its columns in a :class:`~.columns.ColumnMap`), so row-wise verbs are local calls that cost
the block, O(n/p + ghosts). Positions cross the protocol global: the verbs translate the
arrays they take and give, and what a positional operator reports. What crosses ranks, per
verb (:mod:`.moves`, all through :mod:`.exchange`'s collectives):

==========================================  =============================================
verb                                        exchange
==========================================  =============================================
``mxv``                                     the ghost entries of ``u`` that the mask's rows
                                            read: a bit per ghost column to its owner,
                                            values back (:class:`~.moves.Routes`)
``mxm``                                     the ghost rows of ``B`` at ``A``'s columns
``vxm`` (a push)                            partial results to their owners, combined there
                                            (one per target a rank meets)
``transpose``                               every entry to the owner of its column
``transpose=``, ``transpose_a/_b=``,        ``transpose``'s, then the verb's
``reduce_cols``                             (``reduce_cols``: ``reduce_rows`` of ``Aᵀ``)
``extract`` (vector or rows)                the listed entries or rows, owner to holder
                                            (with ``cols``: then cut on each rank)
``nvals``, ``reduce`` (vector or matrix)    one allreduce / allgather of scalars (a float
                                            ``plus``/``times``: the values, summed in order)
``mxv`` with a ``RowOperator``              the vectors' ghost entries that the mask's rows
                                            read, as ``mxv``; with ``order=``, those of the
                                            rows pending, each round of the sweep (rows
                                            left after many rounds: to rank 0, which runs
                                            them; :mod:`.operators`)
``apply_index``/``select`` with an          the thunk vectors' entries at the block's rows
``IndexUnaryOp`` of vector thunks           and columns
``indices``, ``values``, ``to_csr``,        Allgatherv: the whole array on every rank
``extract_tuples``
``matrix``, ``vector``, ``full``,           none: each rank keeps its block of the arrays
``build``, ``build_matrix``                 (of the tuples, in the order given)
ewise, ``apply``, ``select``, ``assign``,   none
``apply_index``, ``reduce_rows``
``out=``, ``accum=``, ``replace=``          none: the local backend writes each block
==========================================  =============================================

User-defined operators (:mod:`gbgraph.backends.operators`) run block by block: the local
backend runs the element-wise and product ones as it runs named operators, and the numba
backend's kernels of the operator run those that see global positions or combine several
ranks' entries (index-unary operators, row operators, a Monoid's ``reduce``, the add of a
Semiring's ``vxm``) on the block's rows at their global positions (:mod:`.operators`).

Output controls act block by block: a verb computes its result under the mask as it always
did, and the local backend writes it into ``out``'s block (``out<mask, replace> accum=
result``); matrices are written in the union of their column maps, which ``out`` keeps.
Every position an operator sees is global: the select predicates (``tril``, ``rowle``,
``colgt``, ...) and the index-unary operators by name (``rowindex``, ``colindex``,
``diagindex``, typed by the local backend's own instance). A ``NotImplementedError`` of
the local backend (an operator without a typed instance) is raised on every rank, with
this backend's name before its message.

Arrays cross the protocol whole and identical on every rank (``be.xp`` is numpy): that is
what lets the algorithm modules run unchanged, and it is the cost of this design: an
algorithm that reads a vector's entries (``indices``, ``values``) gets all of them, O(n)
per rank. MIS rounds stay within their blocks and ghosts, and so do the row operators of
aggregation and speculative coloring (``mxv`` reads their vectors' ghost entries);
aggregation and coloring still read whole vectors between them (docs/distributed.md says
where).

Results equal the ``suitesparse`` backend's bit for bit on any number of ranks: blocks run
the same GraphBLAS operations on the same rows, and partial results are combined in rank
order. With ``cupy`` blocks the protocol's arrays are still numpy arrays, identical on
every rank; the blocks stay on the GPU, and a product's exchange copies to the host only
the entries it sends and receives (:mod:`.local`). On a communicator of one rank,
``MPIBackend(comm, local="cupy")`` is a :class:`~.alone.OneRankBackend`: the ``cupy``
backend's verbs under this backend's name, its arrays CuPy arrays (nothing to exchange, so
no layer: :mod:`.alone`).
"""

import functools
import itertools

import numpy as np

try:
    from mpi4py import MPI
except ImportError as error:  # pragma: no cover - the extra names what to install
    raise ImportError('backend "mpi" needs mpi4py and an MPI library: pip install "gbgraph[mpi]" '
                      '(mpi4py and the mpich wheel, which brings mpiexec)') from error

from ..base import Backend, check_accum
from ..operators import IndexUnaryOp, Monoid, RowOperator, Semiring
from .alone import OneRankBackend
from .blocks import DistMatrix, DistVector, local_block
from .columns import ColumnMap
from ..numba import operators as compiled
from . import nccl as device_exchange, operators
from .exchange import Exchange
from .layout import bounds
from .local import local_backend
from .moves import UFUNCS, gather_entries, gather_rows, to_owners, transposed, with_ghost_rows, with_ghosts

__all__ = ["MPIBackend", "MPICupyBackend", "DistVector", "DistMatrix"]

_TOKENS = itertools.count()

#: The select operators that read an entry's global position (i, j) (a vector's entries are
#: at (i, 0)), against the thunk k.
_POSITIONAL_SELECT = {"offdiag": lambda i, j, k: j - i != k, "diag": lambda i, j, k: j - i == k,
                      "tril": lambda i, j, k: j - i <= k, "triu": lambda i, j, k: j - i >= k,
                      "rowle": lambda i, j, k: i <= k, "rowgt": lambda i, j, k: i > k,
                      "colle": lambda i, j, k: j <= k, "colgt": lambda i, j, k: j > k}


def _named(verb):
    """``verb`` with the local backend's NotImplementedError naming this backend instead
    (every rank raises it: the operands' types and the operator are the same on all)."""
    @functools.wraps(verb)
    def named(self, *args, **kwargs):
        try:
            return verb(self, *args, **kwargs)
        except NotImplementedError as error:
            message = str(error)
            if message.startswith(f"{self.name}:"):
                raise
            for local in (self.local.name, "numba"):  # the blocks' backend, or numba's kernels of an operator
                message = message.removeprefix(f"{local}: ")
            raise NotImplementedError(f"{self.name}: {message}") from error
    return named


class MPIBackend(Backend):
    """GraphBLAS verbs on row blocks of one MPI communicator, computed by a local backend.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm, optional
        The ranks that share the work; None: ``MPI.COMM_WORLD`` (what ``backend="mpi"``
        gives). Every rank of it must make the same calls.
    local : {"suitesparse", "cupy"}, optional
        What computes on a rank's blocks: SuiteSparse:GraphBLAS on the CPU (default), or
        the ``cupy`` backend on a GPU of the rank's node, the ranks of a node taking its
        GPUs in turn (``backend="mpi-cupy"``).
    nccl : bool, optional
        With ``local="cupy"``: whether a product's ghost values go GPU to GPU through NCCL
        (:mod:`.nccl`). None (default): where every rank has a GPU of its own and CuPy has
        NCCL; False: through the host and MPI. The results and the bytes are the same.

    Attributes
    ----------
    traffic : Traffic
        Bytes, messages and collectives this rank has sent (:class:`.exchange.Traffic`).

    Raises
    ------
    TypeError
        for a ``comm`` that is not an mpi4py intracommunicator.
    ValueError
        for another ``local``.

    Examples
    --------
    >>> import gbgraph as gg
    >>> from mpi4py import MPI
    >>> be = MPIBackend(MPI.COMM_SELF)
    >>> A = gg.generators.laplace3d(4)
    >>> bool((gg.mis2(A, backend=be).vertices == gg.mis2(A, backend="suitesparse").vertices).all())
    True
    """

    xp = np

    def __new__(cls, comm=None, local="suitesparse", *, nccl=None):
        comm = _communicator(comm)
        if cls in (MPIBackend, MPICupyBackend) and local == "cupy" and comm.Get_size() == 1:
            # nothing to exchange: the cupy backend's verbs, without the layer (alone.py)
            _use_node_gpu(comm)
            return OneRankBackend(comm, local_backend(local))
        return super().__new__(cls)

    def __init__(self, comm=None, local="suitesparse", *, nccl=None):
        comm = _communicator(comm)
        self.local = local_backend(local)  # a ValueError for another name
        if local == "cupy":
            _use_node_gpu(comm)
        self.name = "mpi" if local == "suitesparse" else f"mpi-{local}"
        self.comm = comm
        self.ex = Exchange(comm)
        #: With blocks on the GPU and two ranks or more, the exchange of ghost values from
        #: and to device buffers (:mod:`.nccl`): NCCL's, else through the host; else None.
        self.device = None
        if local == "cupy" and comm.Get_size() > 1:
            if nccl is not False and device_exchange.usable(comm):
                self.device = device_exchange.DeviceExchange.made(comm, self.ex.traffic)
            if self.device is None:
                self.device = device_exchange.HostExchange(self.ex)
        self._token = next(_TOKENS)

    @property
    def traffic(self):
        """This rank's :class:`~.exchange.Traffic` (``be.traffic.reset()`` between rounds)."""
        return self.ex.traffic

    def block(self, size):
        """``(lo, hi)``: this rank's block of a vector of ``size`` entries."""
        lo, hi = bounds(size, self.ex.size)[self.ex.rank:self.ex.rank + 2]
        return int(lo), int(hi)

    def rows(self, nrows, ncols, indptr, cols, values=None):
        """A :class:`DistMatrix` from this rank's rows, given as CSR with global columns
        (``indptr`` from 0)."""
        lo, _ = self.block(nrows)
        local, columns = local_block(self.local, indptr, cols, values, *self.block(ncols))
        return DistMatrix(local, nrows, ncols, lo, columns)

    # ---- containers: each rank keeps its block of the arrays it is given ------------------

    def matrix(self, indptr, indices, *, ncols=None, values=None, copy=True):
        nrows = indptr.size - 1
        ncols = nrows if ncols is None else ncols
        lo, hi = self.block(nrows)
        start, end = int(indptr[lo]), int(indptr[hi])
        values = None if values is None else np.asarray(values)[start:end]
        # A(lo:hi, :), its columns numbered locally
        return self.rows(nrows, ncols, np.asarray(indptr[lo:hi + 1], np.int64) - start, indices[start:end], values)

    def vector(self, indices, values, size, *, copy=True):
        lo, hi = self.block(size)
        a, b = np.searchsorted(indices, (lo, hi))
        values = values if np.ndim(values) == 0 else values[a:b]
        return DistVector(self.local.vector(indices[a:b] - lo, values, hi - lo), size, lo)  # w(lo:hi)

    def full(self, size, value, dtype):
        lo, hi = self.block(size)
        value = np.asarray(value, dtype)[lo:hi] if np.ndim(value) else value
        return DistVector(self.local.full(hi - lo, value, dtype), size, lo)  # w(lo:hi) = value

    def nvals(self, x):
        return self.ex.allreduce(self.local.nvals(x.local))  # Σ over ranks

    def to_csr(self, A):
        indptr, cols, values = self.local.csr(A.local)
        lengths = self.ex.allgatherv(np.diff(indptr))
        indptr = np.zeros(A.nrows + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # the column map is increasing: global columns stay sorted within rows
        return indptr, self.ex.allgatherv(A.columns.ids[cols]), self.ex.allgatherv(values)

    def indices(self, v):
        return self.ex.allgatherv(self.local.indices(v.local) + v.lo)

    def values(self, v):
        return self.ex.allgatherv(self.local.values(v.local))

    # ---- products: ghosts in, the block's rows out -------------------------------------

    @_named
    def mxv(self, semiring, A, u, *, transpose=False, mask=None, structure=True, complement=False, out=None,
            accum=None, replace=False, order=None, push=None):
        check_accum("mxv", out, accum)
        if push is not None:
            compiled.check_push("mxv", semiring, order, push, u, A.nrows if transpose else A.ncols)
            # a row's push writes at columns other ranks own, which later rows of every rank read
            raise NotImplementedError(f"{self.name}: mxv with push= (an ordered sweep that pushes) is not "
                                      f"supported; its ordered sweeps run rank by rank")
        if transpose:  # Aᵀ ⊕.⊗ u over the rows of Aᵀ, made by the distributed transpose
            A = self.transpose(A)
        if isinstance(semiring, RowOperator):
            # w<mask>(i) = op(row i of A, u...): each rank its rows (order=: the sweep, in rounds)
            w = operators.row_mxv(self, semiring, A, u, mask=mask, structure=structure, complement=complement,
                                  order=order)  # computed under the mask already
            return w if out is None else self._written(w, mask, structure, complement, out, accum, replace)
        if order is not None:
            raise ValueError(f"mxv: order= is for a RowOperator, got the semiring {semiring!r}")
        if accum is not None or replace:
            w = self.mxv(semiring, A, u, mask=mask, structure=structure, complement=complement)
            return self._written(w, mask, structure, complement, out, accum, replace)
        if out is not None and _positional(semiring):
            # the columns it reports are translated in a new vector, then written as out= writes
            w = self.mxv(semiring, A, u, mask=mask, structure=structure, complement=complement)
            self.local.assign(out.local, w.local, mask=_local(mask), structure=structure,
                              complement=complement)  # out<mask> = w
            return out
        rows = mask.local if mask is not None and structure and not complement else None
        u_ext = with_ghosts(self, u, A, rows, product=True)  # u's block and its ghosts, in A's columns
        w = self.local.mxv(semiring, A.local, u_ext, mask=_local(mask), structure=structure,
                           complement=complement, out=None if out is None else out.local)  # w<mask> = A ⊕.⊗ u
        if out is not None:
            return out
        if _positional(semiring):
            k = self.local.values(w)  # in the semiring's type: int32 operands give int32 positions
            w = self.local.vector(self.local.indices(w), A.columns.ids[k].astype(k.dtype, copy=False), w.size)  # the global k
        return DistVector(w, A.nrows, A.lo)

    @_named
    def vxm(self, semiring, u, A, *, transpose=False, mask=None, structure=True, complement=False, out=None,
            accum=None, replace=False):
        check_accum("vxm", out, accum)
        if transpose:  # u ⊕.⊗ Aᵀ: the rows of Aᵀ, made by the distributed transpose
            A = self.transpose(A)
        if out is not None:
            w = self.vxm(semiring, u, A, mask=mask, structure=structure, complement=complement)
            return self._written(w, mask, structure, complement, out, accum, replace)
        monoid = semiring.monoid if isinstance(semiring, Semiring) else semiring.split("_")[0]
        if operators.by_columns(semiring, self.local.dtype(u.local), self.local.dtype(A.local)):
            # the result depends on the order of the terms: each rank its columns, in one process's order
            w = operators.vxm_by_columns(self, semiring, u, A)  # w(j) = ⊕_i u(i) ⊗ A(i, j), j in the block
        else:
            partial = self.local.vxm(semiring, u.local, A.local)  # this rank's rows: w_r = u_r ⊕.⊗ A_r
            ids, values = self.local.indices(partial), self.local.values(partial)
            if _positional(semiring):
                values = values + A.lo  # the row of A it reports, global
            if isinstance(monoid, Monoid):
                w = operators.pushed(self, A.columns.ids[ids], values, A.ncols, monoid)  # w = ⊕_r w_r at the owners
            else:
                w = to_owners(self, A.columns.ids[ids], values, A.ncols, monoid)  # w = ⊕_r w_r at the owners
        if mask is not None:
            w = self.local.apply("identity", w, mask=mask.local, structure=structure, complement=complement)
        return DistVector(w, A.ncols, self.block(A.ncols)[0])

    @_named
    def mxm(self, semiring, A, B, *, transpose_a=False, transpose_b=False, mask=None, structure=True,
            complement=False, out=None, accum=None, replace=False):
        check_accum("mxm", out, accum)
        A = self.transpose(A) if transpose_a else A
        B = self.transpose(B) if transpose_b else B
        if out is not None:
            C = self.mxm(semiring, A, B, mask=mask, structure=structure, complement=complement)
            return self._written(C, mask, structure, complement, out, accum, replace)
        B_ext, columns = with_ghost_rows(self, B, A)  # B's rows at A's columns, numbered by `columns`
        C = self.local.mxm(semiring, A.local, B_ext, mask=_aligned(self.local, mask, columns), structure=structure,
                           complement=complement)  # C<mask> = A ⊕.⊗ B over this rank's rows
        if _positional(semiring):
            indptr, cols, values = self.local.csr(C)
            C = self.local.matrix(C.ncols, indptr, cols, A.columns.ids[values].astype(values.dtype, copy=False))  # the global k
        return DistMatrix(C, A.nrows, B.ncols, A.lo, columns)

    @_named
    def transpose(self, A, *, mask=None, structure=True, complement=False, out=None, accum=None, replace=False):
        check_accum("transpose", out, accum)
        local, columns = transposed(self, A)
        T = DistMatrix(local, A.ncols, A.nrows, self.block(A.ncols)[0], columns)
        if mask is None and out is None:
            return T
        return self._written(T, mask, structure, complement, out, accum, replace)

    # ---- element-wise verbs: the blocks alone -------------------------------------------

    @_named
    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                   replace=False):
        check_accum("ewise_mult", out, accum)
        if out is not None:
            w = self.ewise_mult(op, u, v, mask=mask, structure=structure, complement=complement)
            return self._written(w, mask, structure, complement, out, accum, replace)
        u, v, columns = _same_columns(self.local, u, v)
        return _like(u, self.local.ewise_mult(op, u.local, v.local, mask=_aligned(self.local, mask, columns),
                                              structure=structure, complement=complement), columns)  # w<mask> = u .* v

    @_named
    def ewise_add(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                  replace=False):
        check_accum("ewise_add", out, accum)
        if out is not None:
            w = self.ewise_add(op, u, v, mask=mask, structure=structure, complement=complement)
            return self._written(w, mask, structure, complement, out, accum, replace)
        u, v, columns = _same_columns(self.local, u, v)
        return _like(u, self.local.ewise_add(op, u.local, v.local, mask=_aligned(self.local, mask, columns),
                                             structure=structure, complement=complement), columns)  # w<mask> = u + v

    @_named
    def apply(self, op, u, *, left=None, right=None, mask=None, structure=True, complement=False, out=None,
              accum=None, replace=False):
        check_accum("apply", out, accum)
        if out is not None:
            w = self.apply(op, u, left=left, right=right, mask=mask, structure=structure, complement=complement)
            return self._written(w, mask, structure, complement, out, accum, replace)
        columns = getattr(u, "columns", None)
        return _like(u, self.local.apply(op, u.local, left=left, right=right, mask=_aligned(self.local, mask, columns),
                                         structure=structure, complement=complement))  # w<mask> = op(u)

    @_named
    def select(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
               replace=False):
        check_accum("select", out, accum)
        if out is not None:
            w = self.select(op, u, thunk, mask=mask, structure=structure, complement=complement)
            return self._written(w, mask, structure, complement, out, accum, replace)
        if isinstance(op, IndexUnaryOp):  # w = u where op(u(i, j), i, j, thunk), i and j global
            return self._written(operators.index_unary(self, "select", op, u, thunk), mask, structure, complement,
                                 None, None, False)
        columns = getattr(u, "columns", None)
        if op in _POSITIONAL_SELECT:
            local = _select_positions(self.local, u, _POSITIONAL_SELECT[op], 0 if thunk is None else int(thunk))
            if mask is None:
                return _like(u, local)
            return _like(u, self.local.apply("identity", local, mask=_aligned(self.local, mask, columns), structure=structure,
                                             complement=complement))  # w<mask> = the selected entries
        return _like(u, self.local.select(op, u.local, thunk, mask=_aligned(self.local, mask, columns), structure=structure,
                                          complement=complement))  # w<mask> = u where op holds

    @_named
    def apply_index(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        check_accum("apply_index", out, accum)
        if mask is not None or out is not None:
            w = self.apply_index(op, u, thunk)
            return self._written(w, mask, structure, complement, out, accum, replace)
        if isinstance(op, IndexUnaryOp):
            return operators.index_unary(self, "apply_index", op, u, thunk)  # w(i, j) = op(u(i, j), i, j, thunk)
        if callable(op):
            return DistVector(self.local.apply_index(op, u.local, u.lo, thunk), u.size, u.lo)  # w(i) = op(i), i global
        return _like(u, _index_values(self.local, u, op, thunk))  # w(i, j) = op(i, j, thunk), i and j global

    @_named
    def reduce_rows(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        check_accum("reduce_rows", out, accum)
        if mask is not None or out is not None:
            w = self.reduce_rows(A, monoid)
            return self._written(w, mask, structure, complement, out, accum, replace)
        return DistVector(self.local.reduce_rows(A.local, monoid), A.nrows, A.lo)  # w(i) = ⊕_j A(i, j)

    @_named
    def assign(self, w, value, *, mask, structure=True, complement=False, accum=None, replace=False):
        if isinstance(w, DistMatrix):
            return self._assign_rows(w, value, mask, structure, complement, accum, replace)
        # w<mask> = value: the block holds no position of another rank, so a scalar stays in it
        value = value.local if isinstance(value, DistVector) else value
        self.local.assign(w.local, value, mask=_local(mask), structure=structure, complement=complement, accum=accum,
                          replace=replace)
        return w

    def _assign_rows(self, W, value, mask, structure, complement, accum, replace):
        """:meth:`assign` into a matrix's block: ``W``, ``value`` and ``mask`` in one column
        map (every column for a scalar written outside a mask's columns), then the local
        assign."""
        columns = W.columns
        if isinstance(value, DistMatrix):
            columns = columns.union(value.columns)
        elif mask is None or complement:  # a scalar reaches every column
            lo, hi = columns.lo, columns.hi
            columns = ColumnMap(lo, hi, np.concatenate((np.arange(lo), np.arange(hi, W.ncols))))
        elif isinstance(mask, DistMatrix):
            columns = columns.union(mask.columns)
        target = _in_columns(self.local, W, columns)
        if isinstance(value, DistMatrix):
            value = _in_columns(self.local, value, columns)
        self.local.assign(target, value, mask=_aligned(self.local, mask, columns), structure=structure,
                          complement=complement, accum=accum, replace=replace)  # W<mask, replace> accum= value
        W.reset(target, columns)
        return W

    def _written(self, w, mask, structure, complement, out, accum, replace):
        """``out<mask, replace> accum= w`` by the local backend, block by block (``w``
        computed under the mask already: writing it again under the mask changes nothing);
        without ``out``, ``w`` under the mask. Matrices are written in the union of their
        column maps, which ``out`` keeps."""
        if out is None:
            if mask is None:
                return w
            columns = getattr(w, "columns", None)
            return _like(w, self.local.apply("identity", w.local, mask=_aligned(self.local, mask, columns),
                                             structure=structure, complement=complement))  # w<mask>
        if not isinstance(out, DistMatrix):
            self.local.apply("identity", w.local, mask=_local(mask), structure=structure, complement=complement,
                             out=out.local, accum=accum, replace=replace)  # out<mask, replace> accum= w
            return out
        columns = out.columns.union(w.columns)
        target = _in_columns(self.local, out, columns)
        self.local.apply("identity", _in_columns(self.local, w, columns), mask=_aligned(self.local, mask, columns),
                         structure=structure, complement=complement, out=target, accum=accum, replace=replace)
        out.reset(target, columns)
        return out

    # ---- containers from tuples: each rank keeps the tuples of its block ----------------

    @_named
    def build(self, indices, values, size, *, dup=None):
        indices, values = np.asarray(indices, np.int64), np.asarray(values)
        _check_tuples("build", (indices,), (size,), values, dup)
        lo, hi = self.block(size)
        mine = (indices >= lo) & (indices < hi)  # in the order given: dup combines in that order
        local = self._on_all(lambda: self.local.build(indices[mine] - lo, values[mine], hi - lo, dup=dup))
        return DistVector(local, size, lo)

    @_named
    def build_matrix(self, rows, cols, values, nrows, ncols, *, dup=None):
        rows, cols, values = np.asarray(rows, np.int64), np.asarray(cols, np.int64), np.asarray(values)
        _check_tuples("build_matrix", (rows, cols), (nrows, ncols), values, dup)
        lo, hi = self.block(nrows)
        mine = (rows >= lo) & (rows < hi)
        columns = ColumnMap.of_columns(cols[mine], *self.block(ncols))
        local = self._on_all(lambda: self.local.build_matrix(rows[mine] - lo, columns.local(cols[mine]), values[mine],
                                                             hi - lo, columns.size, dup=dup))
        return DistMatrix(local, nrows, ncols, lo, columns)

    def _on_all(self, make):
        """``make()``, a local build, whose error on any rank is raised on every rank: the
        local backend types ``dup`` only for a block with tuples (``bor`` on floats raises
        where a block has some, passes where it has none)."""
        try:
            made, error = make(), None
        except (NotImplementedError, ValueError) as raised:
            made, error = None, raised
        errors = [e for e in self.ex.allgather(None if error is None else (type(error), str(error))) if e is not None]
        if errors:
            kind, message = errors[0]
            raise kind(message) from error
        return made

    # ---- verbs whose result is global ----------------------------------------------------

    @_named
    def reduce(self, u, monoid):
        if isinstance(monoid, Monoid):
            return operators.reduce(self, u, monoid)  # ⊕ of the blocks' partial results
        dtype = self.local.dtype(u.local)
        if dtype.kind == "f" and monoid in ("plus", "times"):
            # rounding depends on the order: reduce every value in the single-process order
            # (a matrix's: row by row, each row's by column, as the column map is increasing)
            values = self.local.csr(u.local)[2] if isinstance(u, DistMatrix) else self.local.values(u.local)
            values = self.ex.allgatherv(values)
            return self.local.reduce(self.local.vector(np.arange(values.size), values, values.size), monoid)
        parts = [p for p in self.ex.allgather(self.local.reduce(u.local, monoid)) if p is not None]
        if not parts:
            return None
        if monoid == "any":
            return parts[0]
        return np.asarray(_combined(monoid, parts), np.asarray(parts[0]).dtype)[()]  # the monoid's type (lor: bool)

    @_named
    def extract(self, u, indices, cols=None):
        indices = np.asarray(indices, dtype=np.int64)
        lo, _ = self.block(indices.size)
        if isinstance(u, DistMatrix):
            local, columns = gather_rows(self, u, indices)
            if cols is None:
                return DistMatrix(local, indices.size, u.ncols, lo, columns)  # C = A(indices, :)
            cols = np.asarray(cols, dtype=np.int64)
            local, columns = _picked(self, local, columns, cols)  # C = A(indices, cols): the rows' columns, renumbered
            return DistMatrix(local, indices.size, cols.size, lo, columns)
        if cols is not None:
            raise ValueError(f"extract: cols= is for a matrix; got a vector and cols={cols!r}")
        return DistVector(gather_entries(self, u, indices), indices.size, lo)  # w = u(indices)

    def adjacency(self, graph, *, closed=False, weighted=False):
        """This rank's rows of the graph's matrix (see :meth:`Backend.adjacency`), cached on
        the graph: sliced from a :class:`~gbgraph.graph.Graph` every rank holds, or the
        rows a :class:`~gbgraph.distributed.DistributedGraph` holds."""
        kind = "closed" if closed else "weighted" if weighted else "pattern"
        return graph.cached((self.name, self._token, kind), lambda: self._adjacency(graph, kind))

    def _adjacency(self, graph, kind):
        from ...distributed import local_rows

        lo, hi = self.block(graph.n)
        indptr, cols, weights = local_rows(graph, lo, hi, self.comm)
        if kind == "closed":
            indptr, cols = _with_diagonal(indptr, cols, lo, hi)
        values = None
        if kind == "weighted":
            values = np.ones(cols.size, np.int64) if weights is None else weights
        return self.rows(graph.n, graph.n, indptr, cols, values)

    def __repr__(self):
        return f"<gbgraph backend {self.name!r} (rank {self.ex.rank} of {self.ex.size})>"


class MPICupyBackend(MPIBackend):
    """:class:`MPIBackend` with its blocks on the GPU (``backend="mpi-cupy"``): one GPU per
    rank, the ranks of a node taking its GPUs in turn (on one rank: the
    :class:`~.alone.OneRankBackend`)."""

    def __new__(cls, comm=None, *, nccl=None):
        return super().__new__(cls, comm, local="cupy")

    def __init__(self, comm=None, *, nccl=None):
        super().__init__(comm, local="cupy", nccl=nccl)


def _communicator(comm):
    """``comm``, or ``MPI.COMM_WORLD`` for None; TypeError for what is not an intracommunicator."""
    comm = MPI.COMM_WORLD if comm is None else comm
    if not isinstance(comm, MPI.Intracomm):
        raise TypeError(f"comm must be an mpi4py intracommunicator, got {type(comm).__name__}")
    return comm


def _use_node_gpu(comm):
    """Make the GPU numbered (rank within the node) mod (GPUs of the node) this process's
    current CuPy device."""
    import cupy

    node = comm.Split_type(MPI.COMM_TYPE_SHARED)
    cupy.cuda.Device(node.Get_rank() % cupy.cuda.runtime.getDeviceCount()).use()
    node.Free()


def _positional(semiring):
    """Whether the semiring's multiply reports a position (``secondi``: the inner index)."""
    return isinstance(semiring, str) and semiring.endswith("secondi")


def _combined(monoid, parts):
    """The parts of a reduction combined in rank order with ``monoid``'s numpy function."""
    total = parts[0]
    for p in parts[1:]:
        total = UFUNCS[monoid](total, p)
    return total


def _local(x):
    return None if x is None else x.local


def _aligned(local, mask, columns):
    """A mask's local object, a matrix's in the column map ``columns`` (its entries at
    columns outside it dropped: the output has no entry there to keep or replace)."""
    if mask is None or not isinstance(mask, DistMatrix) or mask.columns == columns:
        return _local(mask)
    return _recolumned(local, mask, columns)


def _recolumned(local, A, columns):
    """``A``'s local matrix in the column map ``columns``, dropping columns it lacks."""
    indptr, cols, values = local.csr(A.local)
    cols = A.columns.ids[cols]
    kept = columns.holds(cols)
    if not kept.all():
        rows = np.repeat(np.arange(A.local.nrows), np.diff(indptr))[kept]
        indptr = np.zeros(A.local.nrows + 1, dtype=np.int64)
        np.cumsum(np.bincount(rows, minlength=A.local.nrows), out=indptr[1:])
        cols, values = cols[kept], values[kept]
    return local.matrix(columns.size, indptr, columns.local(cols), values)


def _same_columns(local, u, v):
    """``u`` and ``v`` with one column map (matrices of two maps: both in their union), and
    that map (None for vectors)."""
    if not isinstance(u, DistMatrix):
        return u, v, None
    columns = u.columns.union(v.columns)
    u, v = (x if x.columns == columns else DistMatrix(_recolumned(local, x, columns), x.nrows, x.ncols, x.lo, columns)
            for x in (u, v))
    return u, v, columns


def _select_positions(local, u, keeps, k):
    """The local object of ``u`` with the entries whose global position (i, j) has
    ``keeps(i, j, k)`` (a vector's entries are at (i, 0)); ``local`` is the local backend."""
    if not isinstance(u, DistMatrix):
        ids, values = local.indices(u.local), local.values(u.local)
        kept = keeps(ids + u.lo, 0, k)
        return local.vector(ids[kept], values[kept], u.local.size)
    indptr, cols, values = local.csr(u.local)
    rows = np.repeat(np.arange(u.local.nrows, dtype=np.int64), np.diff(indptr))
    kept = keeps(rows + u.lo, u.columns.ids[cols], k)
    lengths = np.bincount(rows[kept], minlength=u.local.nrows)
    indptr = np.zeros(u.local.nrows + 1, dtype=np.int64)
    np.cumsum(lengths, out=indptr[1:])
    return local.matrix(u.local.ncols, indptr, cols[kept], values[kept])


def _in_columns(local, A, columns):
    """``A``'s local matrix in the column map ``columns`` (itself where it is A's)."""
    return A.local if A.columns == columns else _recolumned(local, A, columns)


def _index_values(local, u, op, thunk):
    """The local object of ``op(i, j, thunk)`` at each entry of ``u``'s block, ``op`` a name
    of the protocol's INDEX_UNARY_OPS, i and j global (a vector's entries are at (i, 0)). The local backend
    runs the operator on the block first: that types it (int64 for an integer thunk) and
    refuses the types it has no instance for (``diagindex`` on floats), and its positions,
    local, are replaced by the global ones."""
    typed = local.backend.apply_index(op, u.local, thunk)
    k = 0 if thunk is None else thunk
    if isinstance(u, DistMatrix):
        indptr, cols, _ = local.csr(u.local)
        i = np.repeat(np.arange(u.local.nrows, dtype=np.int64), np.diff(indptr)) + u.lo
        j = u.columns.ids[cols]
    else:
        cols, i = None, local.indices(u.local) + u.lo
        j = np.zeros_like(i)
    values = {"rowindex": lambda: i + k, "colindex": lambda: j + k, "diagindex": lambda: j - (i + k)}[op]()
    values = values.astype(local.dtype(typed))
    if cols is None:
        return local.vector(i - u.lo, values, u.local.size)
    return local.matrix(u.local.ncols, indptr, cols, values)


def _check_tuples(verb, positions, shape, values, dup):
    """ValueError on every rank (each holds every tuple) for positions out of ``shape``,
    arrays of other lengths, or repeated positions without ``dup``."""
    for at, size, axis in zip(positions, shape, ("indices" if len(shape) == 1 else "rows", "cols")):
        if at.size != values.size:
            raise ValueError(f"{verb}: {at.size} {axis} for {values.size} values")
        if at.size and (at.min() < 0 or at.max() >= size):
            raise ValueError(f"{verb}: {axis} must lie in [0, {size}), got {at.min()} .. {at.max()}")
    if dup is None:
        keys = positions[0] if len(positions) == 1 else positions[0] * shape[1] + positions[1]
        if np.unique(keys).size != keys.size:
            raise ValueError(f"{verb}: duplicate positions and dup=None; pass dup=, a binary op")


def _picked(be, local, columns, cols):
    """A block's rows (a local matrix in ``columns``) cut to the global columns ``cols``, in
    that order (repeats allowed): new column k is ``cols[k]``. Returns ``(matrix,
    ColumnMap)`` in the column space of ``cols.size`` columns."""
    rows, at, values = be.local.entries(local)
    ids = columns.ids[at]
    order = np.argsort(cols, kind="stable")
    first, last = np.searchsorted(cols[order], ids, "left"), np.searchsorted(cols[order], ids, "right")
    counts = last - first
    entry = np.repeat(np.arange(ids.size), counts)  # each entry once per place it takes in cols
    offsets = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
    new = order[np.repeat(first, counts) + offsets]
    rows, values = rows[entry], values[entry]
    by_row = np.lexsort((new, rows))
    indptr = np.zeros(local.nrows + 1, dtype=np.int64)
    np.cumsum(np.bincount(rows, minlength=local.nrows), out=indptr[1:])
    return local_block(be.local, indptr, new[by_row], values[by_row], *be.block(cols.size))


def _like(u, local, columns=None):
    """``local`` wrapped as ``u`` is: a vector or a matrix of ``u``'s shape, rows and column
    map (``columns`` when given)."""
    if isinstance(u, DistMatrix):
        return DistMatrix(local, u.nrows, u.ncols, u.lo, u.columns if columns is None else columns)
    return DistVector(local, u.size, u.lo)


def _with_diagonal(indptr, cols, lo, hi):
    """The CSR of rows lo..hi with each row's diagonal entry added (the graph stores none):
    each row's columns are sorted, so the diagonal goes after those below it, O(nnz) with
    no sort (a lexsort took 30 s for the 224 million entries of half of Laplace3D 400³)."""
    m = hi - lo
    rows = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(indptr))
    below = np.bincount(rows[cols < rows] - lo, minlength=m)  # each row's columns left of the diagonal
    del rows
    closed = indptr + np.arange(m + 1)
    at = closed[:-1] + below
    out = np.empty(cols.size + m, dtype=np.int64)
    others = np.ones(out.size, bool)
    others[at] = False
    out[others] = cols
    out[at] = np.arange(lo, hi)
    return closed, out

"""The ``suitesparse`` backend: python-graphblas over SuiteSparse:GraphBLAS, on the CPU.

Each verb is one python-graphblas call, typed as python-graphblas types it (the protocol's
oracle, :mod:`gbgraph.backends.base`), but for steps where the wheel is slow and a compiled
or numpy pass gives the same entries: a vector build with ``plus``, ``times``, ``first``,
``min`` or ``max`` (a scatter, where GraphBLAS sorts the tuples), a gather from a full
vector (``extract``), MIS-2's hashed statuses (:class:`gbgraph.hashing.Packing`'s kernel),
a masked ``min_second`` or ``max_second`` product of integers (the numba backend's pull
over the mask's rows, where the wheel's masked dot product is 3-10 times slower),
and ``w<v> = v`` into a full ``w`` from a full ``v`` or into an iso ``w`` (a copy or
scatter of the values).
An algorithm runs GraphBLAS with parallel regions only above ``threads.PARALLEL_WORK``
(:meth:`SuiteSparseBackend.guard`). A user-defined operator
(:mod:`gbgraph.backends.operators`) runs in the numba backend's generated kernels on the
objects' arrays (a matrix's CSR unpacked and packed back, without a copy), not as a
python-graphblas UDF: so both CPU backends give the same values and dtypes, and a second
process compiles nothing. A name the protocol lists but python-graphblas has no
typed operator for (``plus`` on bool, ``bor`` on floats) raises ``NotImplementedError``.
Three properties of the suitesparse-graphblas 9.x wheel shape the choices here (see
docs/backends.md):

* only some type/semiring pairs are precompiled; the rest run a generic kernel several times
  slower (UINT32 ``min_second`` takes ~30 ms on Laplace3D 100³, INT32 and UINT64 ~5 ms), so
  algorithms keep to INT32, INT64, UINT64, FP64 and BOOL;
* a masked accumulate into a sparse vector crashes the process
  (tests/test_mis2.py watches it), so a masked ``accum`` is computed in two steps,
  ``t<mask> = result`` and ``out<mask> = out accum t`` (an element-wise add), which is what
  GraphBLAS' accumulate means;
* python-graphblas names only some of the protocol's ``<monoid>_<multiply>`` semirings
  (``bor_second``, ``lor_plus``, ``plus_eq`` have no name there): the others are built from
  their monoid and multiply op, and SuiteSparse runs them with its generic kernel.

python-graphblas links every Vector and Matrix to its ``ss`` accessor and back, a reference
cycle, so a dropped vector waits for Python's cyclic garbage collector: an algorithm that
makes a few vectors per round then holds hundreds of megabytes it no longer uses (Laplace3D
100³: 340 MB of garbage during one MIS-2). :func:`_acyclic` turns the back references into
weak ones, so vectors are freed as soon as the algorithm drops them.
"""

import contextlib
import weakref

import numpy as np
import graphblas as gb
from graphblas.core.operator import Semiring
from graphblas.exceptions import check_status
from suitesparse_graphblas import lib

from ... import _warmup
from ..._malloc import keep_freed_blocks
from .. import operators as ops
from ..numba import generic
from ..numba import operators as compiled
from ..numba.kernels import products, sets
from ..numba.kernels.threads import PARALLEL_WORK
from ..numba.operators import check_kind as _kind
from ..base import (BINARY_OPS, DTYPES, INDEX_UNARY_OPS, MONOIDS, POSITIONAL_SEMIRINGS, SELECT_OPS, SEMIRINGS,
                    UNARY_OPS, Backend, check_accum)

__all__ = ["SuiteSparseBackend"]

_DTYPES = {name: gb.dtypes.lookup_dtype(name) for name in DTYPES}


class SuiteSparseBackend(Backend):
    """GraphBLAS verbs on ``graphblas.Matrix`` and ``graphblas.Vector`` objects."""

    name = "suitesparse"
    xp = np
    index_dtype = np.uint64  # SuiteSparse 9 stores GrB_Index (uint64) indices
    shares_arrays = False  # import with take_ownership: SuiteSparse frees the arrays it is given

    def __init__(self):
        keep_freed_blocks()

    def matrix(self, indptr, indices, *, ncols=None, values=None, copy=True):
        n = indptr.size - 1
        pattern = values is None
        if not pattern:
            _dtype(values.dtype.name, "matrix")
        return _acyclic(gb.Matrix.ss.import_csr(
            nrows=n, ncols=n if ncols is None else ncols, indptr=indptr, col_indices=indices,
            values=np.ones(1, bool) if pattern else values, is_iso=pattern, sorted_cols=True,
            take_ownership=not copy))

    def vector(self, indices, values, size, *, copy=True):
        iso = np.ndim(values) == 0
        w = _sparse(_dtype(np.asarray(values).dtype.name, "vector"), size)
        w.ss.pack_sparse(
            indices=indices, values=np.asarray(values).reshape(-1) if iso else values,
            is_iso=iso, sorted_index=True, take_ownership=not copy)
        return w

    def full(self, size, value, dtype):
        if np.ndim(value):
            w = _sparse(_dtype(dtype, "full"), size)
            w.ss.pack_full(np.asarray(value, dtype))
            return w
        return _acyclic(gb.Vector.from_scalar(np.asarray(value, dtype), size, _dtype(dtype, "full")))

    def nvals(self, x):
        return x.nvals

    def to_csr(self, A):
        indptr, indices, values = A.to_csr()
        return indptr.view(np.int64), indices.view(np.int64), values

    def indices(self, v):
        return v.to_coo(values=False)[0].view(np.int64)

    def values(self, v):
        return v.to_coo(indices=False)[1]

    def guard(self, graph):
        """GraphBLAS' threads only where a call has work for them: while an algorithm runs, a
        :class:`graphblas.ss.Context` gives each thread at least ``PARALLEL_WORK // 2``
        units of SuiteSparse's work estimate (entries, flops), so a call runs in parallel
        from ``threads.PARALLEL_WORK`` on, as the numba kernels do (docs/backends.md,
        "Threads"). SuiteSparse's own chunk (65,536) made every call on 10⁵ entries a
        parallel region, and each waits for a descheduled thread on a busy machine:
        ``coarsen`` of Laplace3D 100³ on two threads beside other work, 2.2 s against
        1.2 s (0.85 s on one thread). The caller's GraphBLAS settings are left as they are."""
        return _Chunked()

    def fused(self, algorithm):
        """``"coarse_by_sort"``: the numba backend's compiled construction of coarse graphs,
        which reads the graph's host arrays as they are (the numpy path's result, bit for
        bit); no other algorithm is fused here."""
        if algorithm != "coarse_by_sort":
            return None
        from .. import backend

        return backend("numba").fused(algorithm)

    def extract_tuples(self, x):
        if isinstance(x, gb.Matrix):
            rows, cols, values = x.to_coo()
            return rows.view(np.int64), cols.view(np.int64), values
        indices, values = x.to_coo()
        return indices.view(np.int64), values

    def build(self, indices, values, size, *, dup=None):
        w = _sparse(_dtype(np.asarray(values).dtype.name, "build"), size)
        scattered = _scattered(indices, values, size, dup)
        if scattered is not None:
            return _rebuilt("build", (size,), *scattered)
        dup_op = None if dup is None else _op(_BINARY, dup)
        try:
            w.build(indices, values, dup_op=dup_op)
        except KeyError as error:
            raise _unsupported("build", dup, (w,), error) from None
        except ValueError as error:  # python-graphblas: duplicates without dup_op
            raise ValueError(f"build: duplicate indices and dup=None; pass dup=, a binary op ({error})") from None
        return w

    def build_matrix(self, rows, cols, values, nrows, ncols, *, dup=None):
        dtype = _dtype(np.asarray(values).dtype.name, "build_matrix")
        dup_op = None if dup is None else _op(_BINARY, dup)
        try:
            return _acyclic(gb.Matrix.from_coo(rows, cols, values, nrows=nrows, ncols=ncols, dtype=dtype,
                                               dup_op=dup_op))
        except KeyError as error:
            raise _unsupported("build_matrix", dup, (values,), error) from None
        except ValueError as error:  # python-graphblas: duplicates without dup_op
            raise ValueError(f"build_matrix: duplicate positions and dup=None; pass dup=, a binary op "
                             f"({error})") from None

    @ops.accumulating
    def mxv(self, semiring, A, u, *, transpose=False, mask=None, structure=True, complement=False, out=None,
            accum=None, replace=False, order=None, push=None):
        check_accum("mxv", out, accum)
        compiled.check_push("mxv", semiring, order, push, u, A.nrows if transpose else A.ncols)
        if isinstance(semiring, (ops.RowOperator, ops.Semiring)):
            w = _user_rows("mxv", semiring, A, transpose, u, mask, structure, complement, order, push)
            return w if out is None else _store("mxv", w, _mask(mask, structure, complement), out, accum, replace)
        if order is not None:
            raise ValueError(f"mxv: order= is for a RowOperator, got {semiring!r}")
        if not transpose and _pulls_from_sparse(u, mask, complement):
            u = _bitmap(u)
        try:
            expr = (A.T if transpose else A).mxv(u, _op(_SEMIRING, semiring))
        except KeyError as error:
            raise _unsupported("mxv", semiring, (A, u), error) from None
        if not transpose and accum is None and not replace and _pulls_listed(semiring, expr, u, mask, structure,
                                                                             complement):
            w = _pulled_rows(semiring, A, u, mask)
            return w if out is None else _store("mxv", w, _mask(mask, structure, complement), out, None, False)
        if accum is not None or replace:
            return _store("mxv", expr, _mask(mask, structure, complement), out, accum, replace)
        m = _mask(mask, structure, complement)
        if mask is not None and structure and not complement and 2 * mask.nvals >= expr.size:
            if mask.nvals == expr.size:  # every row (MIS-2's first round): no mask to apply after
                m = None
            else:
                # A mask covering most rows scatters dot3's row accesses; one streaming product
                # of every row, then the mask, is faster (Laplace3D 100³: 5 ms against 8 ms).
                expr = _acyclic(expr.new())
        out = _sparse(expr.dtype, expr.size) if out is None else out
        out(mask=m) << expr
        return out

    @ops.accumulating
    def vxm(self, semiring, u, A, *, transpose=False, mask=None, structure=True, complement=False, out=None,
            accum=None, replace=False):
        check_accum("vxm", out, accum)
        if isinstance(semiring, ops.Semiring):  # w = u ⊕.⊗ A: the rows of Aᵀ, u on the left
            w = _user_rows("vxm", semiring, A, not transpose, u, mask, structure, complement, None)
            return w if out is None else _store("vxm", w, _mask(mask, structure, complement), out, accum, replace)
        if _pulls_from_sparse(u, mask, complement) if transpose else _mostly_present(u):
            u = _bitmap(u)
        try:
            expr = u.vxm(A.T if transpose else A, _op(_SEMIRING, semiring))  # saxpy over u's rows of A
        except KeyError as error:
            raise _unsupported("vxm", semiring, (u, A), error) from None
        return _store("vxm", expr, _mask(mask, structure, complement), out, accum, replace)

    @ops.accumulating
    def mxm(self, semiring, A, B, *, transpose_a=False, transpose_b=False, mask=None, structure=True,
            complement=False, out=None, accum=None, replace=False):
        check_accum("mxm", out, accum)
        if isinstance(semiring, ops.Semiring):
            C = _user_product(semiring, A, transpose_a, B, transpose_b)
            return _store("mxm", C, _mask(mask, structure, complement), out, accum, replace)
        try:
            expr = (A.T if transpose_a else A).mxm(B.T if transpose_b else B, _op(_SEMIRING, semiring))
        except KeyError as error:
            raise _unsupported("mxm", semiring, (A, B), error) from None
        return _store("mxm", expr, _mask(mask, structure, complement), out, accum, replace)

    @ops.accumulating
    def transpose(self, A, *, mask=None, structure=True, complement=False, out=None, accum=None, replace=False):
        return _store("transpose", A.T, _mask(mask, structure, complement), out, accum, replace)

    @ops.accumulating
    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                   replace=False):
        check_accum("ewise_mult", out, accum)
        if isinstance(op, ops._Operator):
            return _store("ewise_mult", _user_ewise("ewise_mult", op, u, v), _mask(mask, structure, complement), out,
                          accum, replace)
        try:
            expr = u.ewise_mult(v, _op(_BINARY, op))
        except KeyError as error:
            raise _unsupported("ewise_mult", op, (u, v), error) from None
        return _store("ewise_mult", expr, _mask(mask, structure, complement), out, accum, replace)

    @ops.accumulating
    def ewise_add(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                  replace=False):
        check_accum("ewise_add", out, accum)
        if isinstance(op, ops._Operator):
            return _store("ewise_add", _user_ewise("ewise_add", op, u, v), _mask(mask, structure, complement), out,
                          accum, replace)
        try:
            expr = u.ewise_add(v, _op(_BINARY, op))
        except KeyError as error:
            raise _unsupported("ewise_add", op, (u, v), error) from None
        return _store("ewise_add", expr, _mask(mask, structure, complement), out, accum, replace)

    @ops.accumulating
    def apply(self, op, u, *, left=None, right=None, mask=None, structure=True, complement=False, out=None,
              accum=None, replace=False):
        check_accum("apply", out, accum)
        if isinstance(op, ops._Operator):
            return _store("apply", _user_apply(op, u, left, right), _mask(mask, structure, complement), out, accum,
                          replace)
        try:
            if left is None and right is None:
                expr = u.apply(_op(_UNARY, op))
            else:
                expr = u.apply(_op(_BINARY, op), left=_bound(left, u), right=_bound(right, u))
        except KeyError as error:
            operands = (u,) if left is None and right is None else (u, left if right is None else right)
            raise _unsupported("apply", op, operands, error) from None
        return _store("apply", expr, _mask(mask, structure, complement), out, accum, replace)

    @ops.accumulating
    def apply_index(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        check_accum("apply_index", out, accum)
        if isinstance(op, ops._Operator):
            return _store("apply_index", _user_index("apply_index", op, u, thunk), _mask(mask, structure, complement),
                          out, accum, replace)
        kernel = getattr(op, "numba", None)  # a callable with a compiled kernel of its own (MIS-2's statuses)
        if kernel is not None and isinstance(u, gb.Vector) and not _warmup.compiling():  # else numpy's, uncompiled
            ids = self.indices(u)
            w = self.vector(ids, kernel(ids, thunk), u.size, copy=False)
            return w if mask is None and out is None else _store("apply_index", w, _mask(mask, structure, complement),
                                                                 out, accum, replace)
        if callable(op):
            return super().apply_index(op, u, thunk, mask=mask, structure=structure, complement=complement,
                                       out=out, accum=accum, replace=replace)
        try:
            expr = u.apply(_op(_INDEX_UNARY, op), 0 if thunk is None else _bound(thunk, u))
        except KeyError as error:
            raise _unsupported("apply_index", op, (u, thunk), error) from None
        return _store("apply_index", expr, _mask(mask, structure, complement), out, accum, replace)

    @ops.accumulating
    def select(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
               replace=False):
        check_accum("select", out, accum)
        if isinstance(op, ops._Operator):
            w = _user_index("select", op, u, thunk)
            return w if out is None and mask is None else _store("select", w, _mask(mask, structure, complement),
                                                                  out, accum, replace)
        selector = _op(_SELECT, op)
        try:
            if not op.startswith("value"):
                expr = selector(u, 0 if thunk is None else int(thunk))
            elif thunk is None:
                raise ValueError(f"select: {op} compares values with thunk=, got None")
            else:
                exact = _thunk(thunk, u)
                expr = selector(u, exact) if exact is not None else _compared(op, u, thunk)
        except KeyError as error:
            raise _unsupported("select", op, (u, thunk), error) from None
        return _store("select", expr, _mask(mask, structure, complement), out, accum, replace)

    def reduce(self, u, monoid):
        if isinstance(monoid, ops._Operator):
            values = _entries(u)[1]
            with compiled.supported("suitesparse", "reduce", monoid, u):
                return None if values.size == 0 else compiled.reduce(_monoid("reduce", monoid), values)
        try:
            if isinstance(u, gb.Matrix):
                scalar = u.reduce_scalar(_op(_MONOID, monoid)).new()
            else:
                scalar = u.reduce(_op(_MONOID, monoid)).new()
        except KeyError as error:
            raise _unsupported("reduce", monoid, (u,), error) from None
        value = scalar.value
        return None if value is None else np.asarray(value, scalar.dtype.np_type)[()]

    @ops.accumulating
    def reduce_rows(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        check_accum("reduce_rows", out, accum)
        if isinstance(monoid, ops._Operator):
            w = _user_reduce_rows("reduce_rows", monoid, A, False)
            return _store("reduce_rows", w, _mask(mask, structure, complement), out, accum, replace)
        try:
            expr = A.reduce_rowwise(_op(_MONOID, monoid))
        except KeyError as error:
            raise _unsupported("reduce_rows", monoid, (A,), error) from None
        return _store("reduce_rows", expr, _mask(mask, structure, complement), out, accum, replace)

    @ops.accumulating
    def reduce_cols(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        check_accum("reduce_cols", out, accum)
        if isinstance(monoid, ops._Operator):
            w = _user_reduce_rows("reduce_cols", monoid, A, True)
            return _store("reduce_cols", w, _mask(mask, structure, complement), out, accum, replace)
        try:
            expr = A.reduce_columnwise(_op(_MONOID, monoid))
        except KeyError as error:
            raise _unsupported("reduce_cols", monoid, (A,), error) from None
        return _store("reduce_cols", expr, _mask(mask, structure, complement), out, accum, replace)

    def extract(self, u, indices, cols=None):
        indices = np.asarray(indices, np.int64)
        if isinstance(u, gb.Matrix):
            return _new(u[indices, slice(None) if cols is None else np.asarray(cols, np.int64)], None)
        if cols is not None:
            raise ValueError(f"extract: cols= is for a matrix; got a vector and cols={cols!r}")
        gathered = _gathered(u, indices)
        return _new(u[indices], None) if gathered is None else gathered

    def assign(self, w, value, *, mask, structure=True, complement=False, accum=None, replace=False):
        if not isinstance(value, (gb.Vector, gb.Matrix)):
            value = _scalar(value, w) if accum is None else _bound(value, w)
        m = _mask(mask, structure, complement)
        if accum is None:
            if _same_pattern(w, value, mask, structure, complement):
                if not replace and _scatters_into(w, value):
                    _scatter(w, value)
                    return w
                m = value.S  # w<value> = value: in place where w is full, no bitmap (the same entries)
            w(mask=m, replace=replace) << value
            return w
        try:
            if m is None:
                w(accum=_op(_BINARY, accum)) << value
            else:
                _masked_accumulate(w, value, m, _op(_BINARY, accum), replace)
        except KeyError as error:
            raise _unsupported("assign", accum, (w, value), error) from None
        return w


#: The ``dup`` operators a vector build combines in one sequential scatter (the monoid codes
#: of the numba backend's ``kernels/products.py``; ``first`` keeps the first, as ``any`` does
#: there), and the dtype kinds each takes: ``min``/``max`` of floats are GraphBLAS' (NaN rules).
_SCATTERED = {"plus": ("plus", "iuf"), "times": ("times", "iuf"), "first": ("any", "iuf"), "min": ("min", "iu"),
              "max": ("max", "iu")}


def _scattered(indices, values, size, dup):
    """(sorted int64 indices, values) of ``build``'s vector, duplicates combined in the order
    given, by the numba backend's scatter (one pass over dense scratch arrays of ``size``), or
    None where GraphBLAS builds it: another ``dup``, a scalar value, out-of-range indices, or a
    ``size`` far above the tuples' count. ``GrB_Vector_build`` sorts the tuples first (one
    thread, a loaded machine: 10⁶ random tuples 176 ms against 24 ms; coarsen's vertex weights
    of Laplace3D 100³ 22 ms a build against under 3)."""
    indices, values = np.asarray(indices), np.asarray(values)
    code, kinds = _SCATTERED.get(dup, (None, ""))
    if code is None or values.dtype.kind not in kinds or values.ndim != 1 or not 0 < values.size == indices.size or \
            indices.dtype.kind not in "iu" or size > 8 * indices.size:
        return None
    indices = indices.astype(np.int64, copy=False)
    if indices.min() < 0 or indices.max() >= size:
        return None
    return products.scatter(indices, values, size, products.MONOIDS[code])


class _Chunked:
    """A GraphBLAS context with the caller's thread count and a chunk of
    ``PARALLEL_WORK // 2``, engaged from entry to exit (nested ones restore the outer one)."""

    def __enter__(self):
        self.context = gb.ss.Context(chunk=PARALLEL_WORK // 2)  # engaged on the caller's context
        return self

    def __exit__(self, *exc):
        self.context.disengage()
        return False


def _gathered(u, indices):
    """``u(indices)`` of a full ``u`` by a numpy gather, or None where GraphBLAS extracts it
    (``u`` not full, an index out of range): ``GrB_Vector_extract`` sorts an unsorted index
    list first (aggregation's ``size = by_group(labels + 1)`` at the first level of Laplace3D
    100³, 10⁶ labels of 142,015 aggregates: 15 ms against 2.6 ms, one thread, a loaded machine)."""
    size = u.shape[0]
    if indices.size == 0 or u.nvals != size or indices.min() < 0 or indices.max() >= size:
        return None
    with _vector_arrays(u) as (_, values):
        w = _sparse(u.dtype, indices.size)
        w.ss.pack_full(values[indices], take_ownership=True)
    return w


def _same_pattern(w, value, mask, structure, complement):
    """Whether ``w<mask> = value`` assigns into a full ``w`` from a vector with exactly the
    mask's entries (MIS-2's ``M<wl2> = A ⊕min.second T``, ``T<y> = y``): then ``value`` is
    the same mask, which SuiteSparse assigns in place, where another mask sends the full
    vector through the wheel's generic bitmap assign (Laplace3D 100³: 0.3 against 1.5-3 ms
    a call)."""
    if mask is None or not structure or complement or not isinstance(value, gb.Vector) or \
            not isinstance(w, gb.Vector) or value.nvals != mask.nvals or w.dtype != value.dtype or \
            w.nvals != w.size or mask.size != value.size:
        return False
    if mask is value:
        return True
    if value.ss.format != "sparse" or mask.ss.format != "sparse":
        return False
    parts = value.ss.unpack(sort=True)
    try:
        mask_parts = mask.ss.unpack(sort=True)
        try:
            return np.array_equal(parts["indices"], mask_parts["indices"])
        finally:
            mask.ss.pack_any(**mask_parts, take_ownership=True)
    finally:
        value.ss.pack_any(**parts, take_ownership=True)


def _scatters_into(w, value):
    """Whether ``w<value> = value`` (:func:`_same_pattern`'s case) runs as :func:`_scatter`:
    ``w`` full, ``value`` another vector of its size, and either one full (a copy of its
    values) or ``w`` iso. The wheel spends 3 ms on Laplace3D 100³'s first rounds (``M<wl2>
    = Mw``, both full) and 4.7 ms on aggregation's root ids (90,041 entries into an iso
    vector); a sparse ``value`` into a full ``w`` it assigns in place (0.7 ms for 959,218
    entries, where numpy's scatter takes several)."""
    return w is not value and value.size == w.size and w.ss.format == "full" and \
        (value.ss.format == "full" or w.ss.is_iso)


def _scatter(w, value):
    """``w(i) = value(i)`` at value's entries, on ``w``'s own values (the same dtype); an
    iso ``w`` gets an array of its value first."""
    parts = w.ss.unpack("full")
    try:
        if parts["is_iso"]:
            parts["values"], parts["is_iso"] = np.full(w.size, parts["values"][0]), False
        with _vector_arrays(value) as (indices, values):
            if indices is None:
                parts["values"][:] = values
            else:
                parts["values"][indices] = values
    finally:
        w.ss.pack_full(parts["values"], is_iso=parts["is_iso"], take_ownership=True)


def _sparse(dtype, size):
    """An empty vector held in sparse form, or full once every entry is present: SuiteSparse
    would switch a vector denser than a few percent to bitmap form, and converting back
    costs more than the operations that use it (a bitmap mask also makes mxv visit every
    row: MIS-2 on Laplace3D 60³ 50 ms against 38 ms). Full form stays allowed: a full
    vector pinned sparse carries an index per entry, and a product over it reads them
    (PageRank's push on Laplace3D 60³: 27 ms an iteration sparse, 1.3 ms full)."""
    w = _acyclic(gb.Vector(dtype, size))
    # GxB_set(w, GxB_SPARSITY_CONTROL, GxB_SPARSE + GxB_FULL) without python-graphblas'
    # option parsing (2.5 -> 0.4 us; a BFS level makes a few such vectors)
    check_status(lib.GxB_Vector_Option_set_INT32(w._carg, lib.GxB_SPARSITY_CONTROL, _SPARSE_OR_FULL), w)
    return w


_SPARSE_OR_FULL = lib.GxB_SPARSE | lib.GxB_FULL


def _pulls_from_sparse(u, mask, complement):
    """Whether ``A ⊕.⊗ u`` would read a sparse ``u`` at many rows: SuiteSparse's dot
    products then search u's index list per row, where a bitmap copy of u (a pass over n)
    answers at once (coAuthorsDBLP, BFS's pull ``q<¬visited> = A min.secondi q``: 17 -> 4 ms;
    without a mask, 5% of u present: 69 -> 7 ms). A mask of a few rows keeps u as it is."""
    if not (mask is None or complement or 256 * mask.nvals >= u.size):
        return False
    return u.nvals < u.size and u.ss.format == "sparse"


def _pulls_listed(semiring, expr, u, mask, structure, complement):
    """Whether ``w<mask> = A ⊕min.second u`` (or ``⊕max``) runs as :func:`_pulled_rows`:
    integers, u full and of the result's type, and a structural mask of some rows. The
    wheel's masked dot product (dot3) costs 3-10 times the compiled pull over the same rows
    (Laplace3D 100³, 72% of the rows: 16 ms against 2.7; 7%: 8 ms against 0.9), where MIS-2
    spends its rounds (``M<wl2> = A ⊕min.second T``); without a mask, or with every row,
    the wheel's own product (dot2) is as fast. min and max of integers give the same
    entries in any order of the terms. Not while the warm-up compiles (:func:`gbgraph._warmup.
    compiling`): the pull kernel would be compiled in a newcomer's foreground."""
    if mask is None or not structure or complement or not isinstance(semiring, str) or \
            semiring not in _LISTED_PULLS or expr.dtype != u.dtype or u.dtype.np_type.kind not in "iu" or \
            _warmup.compiling():
        return False
    return mask.size == expr.size and 0 < mask.nvals < mask.size and u.ss.format == "full"


#: The semirings :func:`_pulled_rows` computes: a monoid whose result is one of its terms,
#: and a multiply that reads only u.
_LISTED_PULLS = ("min_second", "max_second")


def _pulled_rows(semiring, A, u, mask):
    """``A ⊕.second u`` at the rows of ``mask`` (its structure), by the numba backend's pull
    kernel on the objects' own arrays: A's CSR and u's values unpacked and packed back, the
    mask's indices read in place."""
    with contextlib.ExitStack() as stack:
        unpacked = _Unpacked(stack)
        rows, _ = unpacked(mask)
        _, dense = unpacked(u)
        indptr, cols, _ = stack.enter_context(_csr(A, False))
        values = np.empty(rows.size, dense.dtype)
        found = np.empty(rows.size, bool)
        products.pull_second(indptr, cols, dense, np.empty(0, bool), False, rows, False,
                             products.MONOIDS[semiring.partition("_")[0]], False, values, found)
        if found.all():  # the mask's indices, copied as they are packed
            return _rebuilt("mxv", (A.nrows,), rows, values)
        return _rebuilt("mxv", (A.nrows,), *sets.flagged(found, rows, True, values))


def _mostly_present(u):
    """Whether ``u ⊕.⊗ A`` (a saxpy over u's rows of A) runs faster from a bitmap copy of
    ``u``: when u is sparse with most of its entries present (Bellman-Ford's
    ``t min= d min.plus A`` on coAuthorsDBLP, 95% of d present: 37 -> 19 ms; at 10%, the
    sparse form is faster)."""
    return u.size > u.nvals >= u.size / 2 and u.ss.format == "sparse"


def _bitmap(u):
    """A copy of ``u`` in bitmap form (full if every entry is present)."""
    w = _acyclic(gb.Vector(u.dtype, u.size))
    w.ss.config["sparsity_control"] = ["bitmap", "full"]
    w << u
    return w


def _new(expr, mask):
    """A new object holding ``expr`` (an expression, a transposed matrix, a vector or a
    matrix) under ``mask``: a sparse-pinned vector, or a matrix."""
    if getattr(expr, "output_type", None) is gb.Vector or isinstance(expr, gb.Vector):
        w = _sparse(expr.dtype, expr.size)
        w(mask=mask) << expr
        return w
    if isinstance(expr, gb.Matrix):
        return _acyclic(expr.dup(mask=mask))
    return _acyclic(expr.new(mask=mask))


def _compared(op, u, thunk):
    """``u<op(u, thunk)>``, the comparison typed as python-graphblas types it (u's type
    unified with the thunk's). SuiteSparse 9.4.5's value select misreads a thunk of another
    type than u's (valueeq on float32 [1.0] against the int 1 keeps nothing; valuegt on a
    sparse uint64 vector against -2 keeps nothing)."""
    keep = u.apply(_op(_BINARY, op.removeprefix("value")), right=thunk).new()
    return _new(u, keep.V)


def _thunk(value, like):
    """A value select's thunk as a numpy scalar of ``like``'s dtype, or None where that
    changes its value (0.5 for an integer vector, -2 for an unsigned one)."""
    if isinstance(value, np.generic) and value.dtype == like.dtype.np_type:
        return value
    try:
        cast = np.asarray(value, like.dtype.np_type)[()]
    except (OverflowError, ValueError, TypeError):
        return None
    return cast if cast == value else None


def _store(verb, expr, mask, out, accum, replace):
    """``out<mask, replace> accum= expr``, or a new object ``<mask> = expr`` without ``out``."""
    check_accum(verb, out, accum)
    if out is None:
        return _new(expr, mask)
    if accum is None:
        out(mask=mask, replace=replace) << expr
        return out
    try:
        if mask is None:
            out(accum=_op(_BINARY, accum)) << expr
        else:
            _masked_accumulate(out, expr, mask, _op(_BINARY, accum), replace)
    except KeyError as error:
        raise _unsupported(verb, f"accum={accum}", (out, expr), error) from None
    return out


def _masked_accumulate(out, value, mask, accum, replace):
    """``out<mask, replace> accum= value`` without the wheel's masked accumulate (it crashes on
    a sparse vector): ``t<mask> = value``, then ``out<mask, replace> = out ⊕accum t``, the
    union GraphBLAS' accumulate forms (accum where both have an entry, the one present
    elsewhere)."""
    if isinstance(out, gb.Matrix):
        t = gb.Matrix(value.dtype if hasattr(value, "dtype") else out.dtype, out.nrows, out.ncols)
    else:
        t = gb.Vector(value.dtype if hasattr(value, "dtype") else out.dtype, out.size)
    t(mask=mask) << value
    out(mask=mask, replace=replace) << out.ewise_add(t, accum)


def _unsupported(verb, op, operands, error):
    """The NotImplementedError of a listed operator python-graphblas has no typed version of."""
    types = "/".join(str(_type_name(x)) for x in operands)
    hint = ""
    if "BOOL" in str(error) and str(op).partition("_")[0] in ("plus", "times", "minus", "rminus", "div"):
        hint = "; cast the pattern first, e.g. apply('first', x, right=0) gives int64, or use plus_pair"
    elif str(op).partition("_")[0] in ("bor", "band", "bxor") or str(op).endswith(("_bor", "_band", "_bxor")):
        hint = "; bitwise operators need integer operands"
    return NotImplementedError(f"suitesparse: {verb} with {op} on {types} is not supported "
                               f"(python-graphblas: {error.args[0] if error.args else error}){hint}")


def _type_name(x):
    if hasattr(x, "dtype"):
        dtype = x.dtype
        return np.dtype(dtype.np_type if hasattr(dtype, "np_type") else dtype).name
    return type(x).__name__


def _semiring(name):
    monoid, _, multiply = name.partition("_")
    if name in POSITIONAL_SEMIRINGS:  # positional operators are SuiteSparse extensions
        return getattr(gb.semiring.ss, name)
    gb_name = f"{monoid}_{_GB_NAMES.get(multiply, multiply)}"
    if hasattr(gb.semiring, gb_name):
        return getattr(gb.semiring, gb_name)
    return Semiring.register_anonymous(getattr(gb.monoid, monoid), _binary(multiply), name=gb_name)


def _binary(name):
    return getattr(gb.binary, _GB_NAMES.get(name, name))


#: Protocol names python-graphblas spells differently: GraphBLAS' GrB_DIV is ``cdiv`` there
#: (C division for integers, with SuiteSparse's rules for a zero divisor; IEEE for floats).
_GB_NAMES = {"div": "cdiv"}
# (names, maker, made) of each operator kind: :func:`_op` keeps what the maker returns.
_SEMIRING = (SEMIRINGS, _semiring, {})
_BINARY = (BINARY_OPS, _binary, {})
_UNARY = (UNARY_OPS, lambda name: getattr(gb.unary, name), {})
_MONOID = (MONOIDS, lambda name: getattr(gb.monoid, name), {})
_SELECT = (SELECT_OPS, lambda name: getattr(gb.select, name), {})
_INDEX_UNARY = (INDEX_UNARY_OPS, lambda name: getattr(gb.indexunary, name), {})


def _op(kind, name):
    """The python-graphblas operator ``name`` of ``kind``, made once (a dict lookup after)."""
    try:
        return kind[2][name]
    except (KeyError, TypeError):
        known, make, made = kind
        if name not in known:
            raise ValueError(f"unknown operator {name!r}; the protocol has {', '.join(known)}") from None
        op = made[name] = make(name)
        return op


def _dtype(name, verb):
    try:
        return _DTYPES[name]
    except KeyError:
        raise ValueError(f"{verb}: dtype {name!r} is not one of the protocol's {', '.join(DTYPES)}") from None


def _bound(value, like):
    """A scalar bound to an operator, as python-graphblas takes it (its own typing: a Python
    int is INT64, a float FP64), but an integer beyond int64 (2**64 - 1, which
    python-graphblas rejects) in ``like``'s dtype."""
    if isinstance(value, int) and not -2**63 <= value < 2**63:
        return _scalar(value, like)
    return value


def _scalar(value, like):
    """``value`` as a numpy scalar of ``like``'s dtype (python-graphblas rejects 2**64 - 1)."""
    return None if value is None else np.asarray(value, like.dtype.np_type)[()]


def _acyclic(obj):
    """Make ``obj.ss`` refer back to ``obj`` weakly, so refcounting alone frees ``obj``."""
    proxy = weakref.proxy(obj)
    obj.ss._parent = proxy
    obj.ss.config._parent = proxy
    return obj


def _mask(v, structure, complement):
    if v is None:
        return None
    m = v.S if structure else v.V
    return ~m if complement else m


# ---- user-defined operators (gbgraph.backends.operators): the numba backend's compiled
# kernels (numba/operators.py) on the objects' arrays, so both backends give the same values.

def _entries(x):
    """(sorted int64 keys, values, shape) of a vector's entries or a matrix's (``i * ncols + j``)."""
    if isinstance(x, gb.Matrix):
        rows, cols, values = x.to_coo()
        return rows.view(np.int64) * x.ncols + cols.view(np.int64), values, (x.nrows, x.ncols)
    with _vector_arrays(x) as (indices, values):
        keys = np.arange(x.size, dtype=np.int64) if indices is None else indices.copy()
        return keys, values.copy(), (x.size,)


def _rebuilt(verb, shape, keys, values):
    """A new vector or matrix of ``shape`` holding the entries (sorted ``keys``, ``values``)."""
    dtype = _dtype(values.dtype.name, verb)
    if len(shape) == 1:
        w = _sparse(dtype, shape[0])
        w.ss.pack_sparse(indices=keys.astype(np.uint64), values=values, sorted_index=True, take_ownership=True)
        return w
    rows, cols = np.divmod(keys, max(shape[1], 1))
    return _acyclic(gb.Matrix.from_coo(rows, cols, values, nrows=shape[0], ncols=shape[1], dtype=dtype))


def _monoid(verb, monoid):
    return _kind(verb, monoid, (ops.Monoid,))


def _user_apply(op, u, left, right):
    """``apply`` of a UnaryOp, or a BinaryOp with a bound scalar."""
    if left is not None and right is not None:
        raise ValueError("apply takes a bound scalar on one side only, got both left and right")
    keys, values, shape = _entries(u)
    values = compiled.apply_values("suitesparse", op, values, u, left, right)
    return _rebuilt("apply", shape, keys, values)


def _user_ewise(verb, op, u, v):
    """``ewise_add`` (union) or ``ewise_mult`` (intersection) with a BinaryOp or Monoid."""
    _kind(verb, op, (ops.BinaryOp,))
    keys_u, a, shape = _entries(u)
    keys_v, b, other = _entries(v)
    if shape != other:
        raise ValueError(f"{verb}: the second operand has shape {other}, expected {shape}")
    with compiled.supported("suitesparse", verb, op, u, v):
        keys, values = (compiled.ewise_add if verb == "ewise_add" else compiled.ewise_mult)(op, keys_u, a, keys_v, b)
    return _rebuilt(verb, shape, keys, values)


def _thunk_arrays(verb, op, u, thunk, unpacked=None):
    """An IndexUnaryOp's thunk: a scalar, or a tuple of full vectors as arrays (each the
    size of ``u``'s dimension: ``u.size``, or a square matrix's ``nrows``): copies, or with
    ``unpacked`` (an :class:`_Unpacked`) the vectors' own values."""
    if not isinstance(thunk, (tuple, list)):
        if isinstance(thunk, (gb.Vector, gb.Matrix)):
            raise TypeError(f"{verb}: vector thunks of {op!r} are passed as a tuple, got {thunk!r}")
        return thunk
    matrix = isinstance(u, gb.Matrix)
    if matrix and u.nrows != u.ncols:
        raise ValueError(f"{verb}: vector thunks of {op!r} need a square matrix, got {u.nrows}x{u.ncols}")
    size = u.nrows if matrix else u.size
    arrays = []
    for k, v in enumerate(thunk):
        if not isinstance(v, gb.Vector) or v.size != size:
            raise ValueError(f"{verb}: thunk {k} of {op!r} must be a vector of size {size}, got {v!r}")
        arrays.append(_dense(verb, op, k, v, None, False) if unpacked is None else
                      compiled.dense(verb, op, k, v.size, *unpacked(v), None, copy=False))
    return tuple(arrays)


@contextlib.contextmanager
def _vector_arrays(v):
    """(sorted int64 indices or None when full, values) of a vector's entries: its own
    arrays, unpacked and packed back after (use them inside only), or copies of them.
    Sorted on the way out: SuiteSparse leaves some results jumbled (a push, ``vxm``), and
    the entries computed from these indices are packed as sorted
    (tests/test_suitesparse_jumbled.py)."""
    parts = v.ss.unpack(sort=True)
    try:
        values, form = parts["values"], parts["format"]
        if form == "bitmap":
            indices = np.flatnonzero(parts["bitmap"])
            values = np.full(indices.size, values[0]) if parts["is_iso"] else values[indices]
        else:
            indices = None if form == "full" else parts["indices"].view(np.int64)
            if parts["is_iso"]:
                values = np.full(v.size if indices is None else indices.size, values[0])
        yield indices, values
    finally:
        v.ss.pack_any(**parts, take_ownership=True)


def _dense(verb, op, position, v, fill, copy):
    """A vector's values at every position with ``fill`` where absent (always a copy: the
    vector's own arrays go back to it)."""
    with _vector_arrays(v) as (indices, values):
        return compiled.dense(verb, op, position, v.size, indices, values, fill)


def _user_index(verb, op, u, thunk):
    """``apply_index`` or ``select`` with an IndexUnaryOp."""
    _kind(verb, op, (ops.IndexUnaryOp,))
    if verb == "select" and isinstance(u, gb.Vector):  # one kernel on the vectors' own arrays
        with contextlib.ExitStack() as stack:
            unpacked = _Unpacked(stack)
            thunk = _thunk_arrays(verb, op, u, thunk, unpacked)
            indices, values = unpacked(u)
            with compiled.supported("suitesparse", verb, op, values, thunk):
                positions, values = compiled.select_vector(op, values, indices, thunk)
        return _rebuilt(verb, (u.size,), positions, values)
    thunk = _thunk_arrays(verb, op, u, thunk)
    keys, values, shape = _entries(u)
    rows, cols = np.divmod(keys, shape[1]) if len(shape) == 2 else (keys, np.zeros(keys.size, np.int64))
    with compiled.supported("suitesparse", verb, op, values, thunk):
        result = compiled.index_unary(op, values, rows, cols, thunk)
    if verb == "select":
        keep = generic.cast(result, bool)
        keys, result = keys[keep], values[keep]
    return _rebuilt(verb, shape, keys, result)


@contextlib.contextmanager
def _csr(A, transpose):
    """(indptr, column indices, values) of A (Aᵀ with ``transpose``) as int64, int64 and
    values (True for an iso pattern). A's own arrays, unpacked and packed back after, when
    not transposed; Aᵀ's are a copy."""
    if transpose:
        indptr, indices, values = A.to_csc()
        yield indptr.view(np.int64), indices.view(np.int64), values
        return
    parts = A.ss.unpack("csr", sort=True)
    try:
        indices, values = parts["col_indices"], parts["values"]
        if parts["is_iso"]:
            values = compiled.pattern_values(indices.size) if values.dtype == bool and values[0] else \
                np.full(indices.size, values[0])
        yield parts["indptr"].view(np.int64), indices.view(np.int64), values
    finally:
        A.ss.pack_csr(**parts, take_ownership=True)


def _user_reduce_rows(verb, monoid, A, transpose):
    """The non-empty rows of A (of Aᵀ: its columns) reduced with a Monoid."""
    monoid = _monoid(verb, monoid)
    with _csr(A, transpose) as (indptr, _, values):
        rows = np.flatnonzero(np.diff(indptr) > 0)
        with compiled.supported("suitesparse", verb, monoid, A):
            reduced = compiled.reduce_rows(monoid, indptr, values, rows)
        return _rebuilt(verb, (indptr.size - 1,), rows, reduced)


def _user_product(semiring, A, transpose_a, B, transpose_b):
    """``C = A ⊕.⊗ B`` (either transposed) with a user Semiring, by the numba kernel."""
    inner = (A.nrows if transpose_a else A.ncols), (B.ncols if transpose_b else B.nrows)
    if inner[0] != inner[1]:
        raise ValueError(f"mxm: the operands' inner dimensions differ: {inner[0]} and {inner[1]}")
    if A is B:  # A is unpacked while B is read
        B = B.dup()
    with _csr(A, transpose_a) as a, _csr(B, transpose_b) as b, compiled.supported("suitesparse", "mxm", semiring, A, B):
        ncols = B.nrows if transpose_b else B.ncols
        indptr, cols, values = compiled.semiring_product("mxm", semiring, *a, *b, ncols)
    nrows = indptr.size - 1
    rows = np.repeat(np.arange(nrows, dtype=np.int64), np.diff(indptr))
    return _rebuilt("mxm", (nrows, ncols), rows * ncols + cols, values)


def _mask_rows(mask, structure, complement, n):
    """The rows a mask lets through, sorted int64, or None for every row."""
    if mask is None:
        return None
    with _vector_arrays(mask) as (indices, values):
        rows = np.arange(n, dtype=np.int64) if indices is None else indices.copy()
        if not structure:
            rows = rows[generic.cast(values, bool)]
    if not complement:
        return rows
    allowed = np.ones(n, bool)
    allowed[rows] = False
    return np.flatnonzero(allowed)


def _user_rows(verb, op, A, transpose, u, mask, structure, complement, order, push=None):
    """``w(i)`` for the rows of A (Aᵀ) in the mask: a Semiring's product with ``u``, or a
    RowOperator on the vectors ``u`` (ordered by ``order``, pushing with ``push``)."""
    n = A.ncols if transpose else A.nrows
    ncols = A.nrows if transpose else A.ncols
    rows = _mask_rows(mask, structure, complement, n)
    if isinstance(op, ops.Semiring):
        if order is not None:
            raise ValueError(f"{verb}: order= is for a RowOperator, got {op!r}")
        if u.size != ncols:
            raise ValueError(f"{verb}: the operands' inner dimensions differ: {ncols} and {u.size}")
        with _vector_arrays(u) as (indices, values):
            dense = compiled.dense(verb, op, 0, u.size, indices, values, 0)
            present = None
            if indices is not None and indices.size != u.size:
                present = np.zeros(u.size, bool)
                present[indices] = True
        with _csr(A, transpose) as (indptr, cols, vals):
            with compiled.supported("suitesparse", verb, op, A, u):
                values, found = compiled.semiring_rows(verb, op, indptr, cols, vals, dense, present, rows,
                                                       verb == "vxm")
    else:
        with contextlib.ExitStack() as stack:  # an ordered sweep writes into a copy of its vectors
            vectors = _row_vectors(verb, op, n, ncols, u, order is not None,
                                   None if order is not None else _Unpacked(stack))
            if order is not None:
                order = _order(verb, order, n, rows)
            with _csr(A, transpose) as (indptr, cols, vals):
                with compiled.supported("suitesparse", verb, op, A, u):
                    values, found = compiled.row_operator(op, indptr, cols, vals, vectors, rows, order, push)
    if found.all():
        return _rebuilt(verb, (n,), np.arange(n, dtype=np.int64) if rows is None else rows, values)
    return _rebuilt(verb, (n,), *sets.flagged(found, np.empty(0, np.int64) if rows is None else rows, rows is not None,
                                              values))


def _row_vectors(verb, op, nrows, ncols, u, ordered, unpacked=None):
    """A RowOperator's vectors as dense arrays with its fills (the first a copy when ordered):
    copies, or with ``unpacked`` (an :class:`_Unpacked`) a full vector's own values."""
    if unpacked is None:
        return compiled.row_vectors(verb, op, u, nrows, ncols, ordered, gb.Vector,
                                    lambda k, v, fill, copy: _dense(verb, op, k, v, fill, copy))
    return compiled.row_vectors(verb, op, u, nrows, ncols, ordered, gb.Vector, lambda k, v, fill, copy:
                                compiled.dense(verb, op, k, v.size, *unpacked(v), fill, copy=copy))


class _Unpacked:
    """The arrays of vectors unpacked until ``stack`` closes, each vector once (a row operator
    may read one vector twice, a select read its input as a thunk): a full vector is read in
    place, where :func:`_dense` copies it (MIS-2's rounds: two vectors of n entries a call)."""

    def __init__(self, stack):
        self.stack, self.arrays = stack, {}

    def __call__(self, v):
        """(indices or None when full, values) of ``v``, as :func:`_vector_arrays` gives them."""
        if id(v) not in self.arrays:
            self.arrays[id(v)] = self.stack.enter_context(_vector_arrays(v))
        return self.arrays[id(v)]


def _order(verb, order, n, rows):
    """``order``'s values at the rows computed, each of which must have one."""
    if not isinstance(order, gb.Vector) or order.size != n:
        raise ValueError(f"{verb}: order must be a vector of size {n}, got {order!r}")
    with _vector_arrays(order) as (indices, values):
        if indices is None or indices.size == n:
            return values.copy() if rows is None else values[rows]
        dense = np.zeros(n, values.dtype)
        dense[indices] = values
        present = np.zeros(n, bool)
        present[indices] = True
    if not (present.all() if rows is None else present[rows].all()):
        raise ValueError(f"{verb}: order has no entry at some rows computed ({indices.size} of {n} entries)")
    return dense if rows is None else dense[rows]

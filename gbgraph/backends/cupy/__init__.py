"""The ``cupy`` backend: gbgraph's GraphBLAS protocol on an NVIDIA GPU.

Vectors and matrices live in CuPy arrays. A masked ``mxv`` is one raw CUDA kernel
(``kernels/mxv.cu``, templated by semiring and types) over the rows of its mask; element-wise
operations, selection, reductions and compaction go through CuPy (and CUB under it);
output controls, mixed dtypes, pushed vector-matrix products, masked matrix products and
builds with duplicates through :mod:`.general` (``kernels/general.cu``);
``plus_times`` matrix products through cuSPARSE (``cupyx.scipy.sparse``), other semirings by
expansion, a stable sort and a segmented reduction. Every result equals the ``suitesparse``
backend's: reductions run in a fixed order (a row in column order, sorted segments in
sequence), never in the arrival order of atomics (the push's integer min, max and plus give
one result in any order).
"""

try:
    import cupy
    import cupyx.scipy.sparse  # noqa: F401 - the backend needs it; fail here with the extras named
except ImportError as e:  # pragma: no cover - exercised only without CuPy
    raise ImportError("the 'cupy' backend needs CuPy: pip install 'gbgraph[cuda12]' or 'gbgraph[cuda13]' "
                      f"(CUDA 12 or 13 wheels); importing it failed: {e}") from e

import contextlib
import functools
import inspect

import numpy as np

from .. import operators as ops
from ..cuda_translate import Untranslatable
from ..base import BINARY_OPS, INDEX_UNARY_OPS, MONOIDS, SELECT_OPS, SEMIRINGS, UNARY_OPS, Backend, check_accum
from ..numba import generic
from ..numba.operators import check_push, supported
from .containers import Matrix, Vector
from . import general, host, kernels, program, replay
from . import operators as user

__all__ = ["CupyBackend", "Matrix", "Vector"]

_COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
# CuPy has no reduce of its bitwise ufuncs: band, bor and bxor reduce on the host
_REDUCTIONS = {"min": cupy.min, "max": cupy.max, "plus": cupy.sum, "times": cupy.prod, "any": None,
               "land": cupy.all, "lor": cupy.any}


class CupyBackend(Backend):
    """GraphBLAS verbs on :class:`Matrix` and :class:`Vector` objects held on the GPU."""

    name = "cupy"
    xp = cupy
    index_dtype = np.int64
    #: While a step of :meth:`iterate` is traced, the tracer every verb goes to (program.py).
    _tracer = None

    @contextlib.contextmanager
    def guard(self, graph):
        try:
            yield
        except cupy.cuda.memory.OutOfMemoryError as e:
            raise MemoryError(f"the GPU ran out of memory on a graph of {graph.n:,} vertices and {graph.nnz:,} "
                              f"stored entries: {e}") from e

    # ---- containers --------------------------------------------------------------------

    def matrix(self, indptr, indices, *, ncols=None, values=None, copy=True):
        indptr = cupy.asarray(indptr, dtype=cupy.int64)
        n = indptr.size - 1
        ncols = n if ncols is None else int(ncols)
        index_type = cupy.int32 if ncols < 2**31 else cupy.int64
        indices = _array(indices, index_type, copy)
        values = None if values is None else _array(values, None, copy)
        return Matrix(n, ncols, indptr, indices, values)

    def vector(self, indices, values, size, *, copy=True):
        indices = _array(indices, cupy.int64, copy)
        if np.ndim(values) == 0:
            dtype = values.dtype if hasattr(values, "dtype") else np.asarray(values).dtype
            values = cupy.full(indices.size, values, dtype=dtype)
        else:
            values = _array(values, None, copy)
        return Vector(size, indices, values)

    def full(self, size, value, dtype):
        if np.ndim(value):
            return Vector(size, None, cupy.asarray(value, dtype=dtype))
        if isinstance(value, cupy.ndarray):  # a scalar on the device
            return Vector(size, None, cupy.full(size, value, dtype=dtype))
        return Vector(size, None, _filled(size, value, dtype))

    def nvals(self, x):
        return x.nvals

    def indices(self, v):
        v.exact()
        return cupy.arange(v.size, dtype=cupy.int64) if v.indices is None else v.indices

    def values(self, v):
        return v.exact().values

    def to_csr(self, A):
        values = cupy.ones(A.indices.size, bool) if A.values is None else A.values
        return A.indptr, A.indices.astype(cupy.int64), values

    # ---- operations --------------------------------------------------------------------
    # The common cases of gbgraph's rounds (a structural mask, a sparse vector meeting a full
    # one, a selection) run as kernels that read entry counts on the device; the rest trim
    # their inputs with Vector.exact and use CuPy.

    @ops.accumulating
    def mxv(self, semiring, A, u, *, mask=None, structure=True, complement=False, out=None, accum=None,
            replace=False, transpose=False, order=None, push=None):
        _check_controls("mxv", out, accum)
        controls = dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum, replace=replace)
        check_push("mxv", semiring, order, push, u, A.nrows if transpose else A.ncols)
        if isinstance(semiring, ops.RowOperator):
            return _guarded("mxv", semiring, (A, u),
                            lambda: _user_rows(semiring, A, u, order, transpose, controls, push),
                            lambda: _on_host("mxv", semiring, A, u, transpose=transpose, order=order, push=push,
                                             **controls))
        if isinstance(semiring, ops.Semiring) or order is not None:
            return _guarded("mxv", semiring, (A, u),
                            lambda: _user_semiring("mxv", semiring, A, u, order, transpose, controls),
                            lambda: _on_host("mxv", semiring, A, u, transpose=transpose, order=order, **controls))
        monoid, multiply = _split(semiring)
        if out is not None or accum is not None or replace:  # T<mask> = A ⊕.⊗ u, then out<mask, replace> accum= T
            masking = dict(mask=mask, structure=structure, complement=complement)
            return _controlled("mxv", lambda: self.mxv(semiring, A, u, transpose=transpose, **masking),
                               (semiring, A, u), dict(transpose=transpose), masking, out, accum, replace)
        dtype = _product_type("mxv", semiring, A.dtype, u.dtype, "left" if A.values is None else None)
        if transpose and A.nrows == u.size and dtype is not None:  # Aᵀ is cached on A
            return self.mxv(semiring, A.transposed(), u, mask=mask, structure=structure, complement=complement)
        if transpose or A.ncols != u.size or dtype is None:
            return _on_host("mxv", semiring, A, u, mask=mask, structure=structure, complement=complement,
                            transpose=transpose)
        rows = _row_list(mask, structure, complement)
        dense, present = u.dense()
        capacity = A.nrows if rows is None else rows.capacity
        result = cupy.empty(capacity, dtype)
        # every row meets an entry when u is full and no row of A is empty
        found = None if present is None and A.min_degree > 0 else cupy.empty(capacity, cupy.uint8)
        count_ptr, count = (None, A.nrows) if rows is None else kernels.count_args(rows)
        if capacity:
            kernels.mxv_kernel(monoid, multiply, dtype, A, dense.dtype)(
                None if rows is None else rows.indices, count_ptr, count, capacity, A.indptr, A.indices, A.values,
                dense, present, result, found)
        w = Vector(A.nrows, None, result) if rows is None else Vector(A.nrows, rows.indices, result, rows.count)
        if found is not None:
            w = Vector(A.nrows, *kernels.compact("ne", w, 0, keys=found))
        return w

    @ops.accumulating
    def vxm(self, semiring, u, A, *, mask=None, structure=True, complement=False, out=None, accum=None,
            replace=False, transpose=False):
        # u ⊕.⊗ A = Aᵀ ⊕.⊗' u with the multiply's operands swapped; Aᵀ is cached on A
        _check_controls("vxm", out, accum)
        if isinstance(semiring, ops.Semiring):
            controls = dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum,
                            replace=replace)
            return _guarded("vxm", semiring, (u, A),
                            lambda: _user_semiring("vxm", semiring, u, A, None, transpose, controls),
                            lambda: _on_host("vxm", semiring, u, A, transpose=transpose, **controls))
        monoid, multiply = _split(semiring)
        if out is not None or accum is not None or replace:  # T<mask> = u ⊕.⊗ A, then out<mask, replace> accum= T
            masking = dict(mask=mask, structure=structure, complement=complement)
            return _controlled("vxm", lambda: self.vxm(semiring, u, A, transpose=transpose, **masking),
                               (semiring, u, A), dict(transpose=transpose), masking, out, accum, replace)
        dtype = _product_type("vxm", semiring, u.dtype, A.dtype, "right" if A.values is None else None)
        if (A.ncols if transpose else A.nrows) != u.size or dtype is None:
            return _on_host("vxm", semiring, u, A, mask=mask, structure=structure, complement=complement,
                            transpose=transpose)
        # as the pull over Aᵀ names it: the multiply's operands swapped (secondi, the inner index, stays)
        swapped = _SWAPPED_MULTIPLY.get(multiply, multiply)
        if not transpose and general.pushable(monoid, dtype) and \
                (mask is None or isinstance(mask, Vector) and mask.size == A.ncols):
            # pushed from u's entries along the rows of A: work in proportion to their edges,
            # no Aᵀ to form (FastSV's parent matrix is new each round)
            held = None if mask is None else general.mask_bytes(mask, structure)
            if held is None and complement:
                held = cupy.ones(A.ncols, bool)
            return general.push(monoid, swapped, dtype, u, A, held, complement)
        # u ⊕.⊗ A = Aᵀ ⊕.⊗' u (Aᵀ cached on A); u ⊕.⊗ Aᵀ = A ⊕.⊗' u
        return self.mxv(f"{monoid}_{swapped}", A if transpose else A.transposed(), u, mask=mask,
                        structure=structure, complement=complement)

    @ops.accumulating
    def mxm(self, semiring, A, B, *, mask=None, structure=True, complement=False, out=None, accum=None,
            replace=False, transpose_a=False, transpose_b=False):
        from .spgemm import mxm
        _check_controls("mxm", out, accum)
        if isinstance(semiring, ops.Semiring):  # the host's form: it names what it supports
            return _on_host("mxm", semiring, A, B, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace, transpose_a=transpose_a, transpose_b=transpose_b)
        inner, ncols = (B.ncols, B.nrows) if transpose_b else (B.nrows, B.ncols)
        if isinstance(mask, Matrix) and (structure or mask.values is None) and not complement and out is None and \
                accum is None and not replace and not transpose_a and A.ncols == inner and \
                (mask.nrows, mask.ncols) == (A.nrows, ncols):
            # C<M> = A ⊕.⊗ B: a dot product per entry of M (triangle counting's C<L> = L plus.pair L)
            dtype = _product_type("mxm", semiring, A.dtype, B.dtype, None, multiplies=_MASKED_MULTIPLIES)
            if dtype is not None:
                monoid, multiply = _split(semiring)
                return general.masked_product(monoid, multiply, dtype, A, B, mask, transpose_b)
        dtype = _product_type("mxm", semiring, A.dtype, B.dtype, None, multiplies=_MXM_MULTIPLIES)
        if transpose_a or transpose_b or mask is not None or out is not None or accum is not None or replace or \
                A.ncols != B.nrows or dtype is None:
            return _on_host("mxm", semiring, A, B, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace, transpose_a=transpose_a, transpose_b=transpose_b)
        return mxm(semiring, A, B, dtype)

    @ops.accumulating
    def transpose(self, A, *, mask=None, structure=True, complement=False, out=None, accum=None, replace=False):
        if mask is not None or out is not None or accum is not None or replace:
            return _on_host("transpose", A, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace)
        return A.transpose()

    @ops.accumulating
    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                   replace=False):
        if isinstance(op, ops._Operator):
            controls = dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum,
                            replace=replace)
            return _guarded("ewise_mult", op, (u, v), lambda: _user_ewise("ewise_mult", op, u, v, controls),
                            lambda: _on_host("ewise_mult", op, u, v, **controls))
        _check(op, BINARY_OPS)
        controls = dict(mask=mask, structure=structure, complement=complement)
        if out is not None or accum is not None or replace:  # T<mask> = u ⊙ v, then out<mask> accum= T
            return _controlled("ewise_mult", lambda: self.ewise_mult(op, u, v, **controls), (op, u, v), {}, controls,
                               out, accum, replace, on_device=isinstance(u, Vector))
        t = _device_ewise("ewise_mult", op, u, v)
        if t is None:
            return _on_host("ewise_mult", op, u, v, **controls)
        u, v = _as_type(u, t, op), _as_type(v, t, op)
        if mask is None and u.dtype == v.dtype and (u.indices is None) != (v.indices is None):
            sparse, full, gather = (u, v, op) if v.indices is None else (v, u, _SWAPPED.get(op, op))
            if gather in kernels.GATHER_OPS:  # sparse ⊙ full: one gather, the count stays on the device
                dtype = np.dtype(bool) if op in _COMPARISONS else u.dtype
                return Vector(u.size, sparse.indices, kernels.gather_op(gather, sparse, full.values, dtype),
                              sparse.count)
        # dense operands, their intersection compacted on the device (no host waits for a count)
        (a, in_a), (b, in_b) = general.dense(u), general.dense(v)
        present = in_b if in_a is None else in_a if in_b is None else in_a & in_b
        return general.entries(u.size, general.binary(op, a, b, t), present, **controls)

    @ops.accumulating
    def ewise_add(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                  replace=False):
        if isinstance(op, ops._Operator):
            controls = dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum,
                            replace=replace)
            return _guarded("ewise_add", op, (u, v), lambda: _user_ewise("ewise_add", op, u, v, controls),
                            lambda: _on_host("ewise_add", op, u, v, **controls))
        _check(op, BINARY_OPS)
        controls = dict(mask=mask, structure=structure, complement=complement)
        if out is not None or accum is not None or replace:  # T<mask> = u ⊕ v, then out<mask> accum= T
            return _controlled("ewise_add", lambda: self.ewise_add(op, u, v, **controls), (op, u, v), {}, controls,
                               out, accum, replace, on_device=isinstance(u, Vector))
        t = _device_ewise("ewise_add", op, u, v)
        if t is None:
            return _on_host("ewise_add", op, u, v, **controls)
        # dense operands, their union compacted on the device: op where both have an entry, the
        # one present cast to op's result type elsewhere
        (a, in_a), (b, in_b) = general.dense(u), general.dense(v)
        values = general.binary(op, a, b, t)
        if in_a is not None or in_b is not None:
            only = general.cast(b, values.dtype) if in_a is not None else general.cast(a, values.dtype)
            if in_a is not None and in_b is not None:
                only = cupy.where(in_a, general.cast(a, values.dtype), only)
            values = cupy.where(in_b if in_a is None else in_a if in_b is None else in_a & in_b, values, only)
        present = None if in_a is None or in_b is None else in_a | in_b
        return general.entries(u.size, values, present, **controls)

    @ops.accumulating
    def apply(self, op, u, *, left=None, right=None, mask=None, structure=True, complement=False, out=None,
              accum=None, replace=False):
        if left is not None and right is not None:
            raise ValueError("apply takes a bound scalar on one side only, got both left and right")
        if isinstance(op, ops._Operator):
            controls = dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum,
                            replace=replace)
            return _guarded("apply", op, (u, right if left is None else left),
                            lambda: _user_apply(op, u, left, right, controls),
                            lambda: _on_host("apply", op, u, left=left, right=right, **controls))
        _check(op, UNARY_OPS if left is None and right is None else BINARY_OPS)
        controls = dict(mask=mask, structure=structure, complement=complement)
        if out is not None or accum is not None or replace:  # T<mask> = op(u), then out<mask> accum= T
            return _controlled("apply", lambda: self.apply(op, u, left=left, right=right, **controls), (op, u),
                               dict(left=left, right=right), controls, out, accum, replace,
                               on_device=isinstance(u, Vector))
        bound = right if left is None else left
        t = u.dtype if bound is None else _bound_type(op, u.dtype, bound, left is not None)
        if t is None or u.dtype not in _KERNEL_DTYPES or t not in _KERNEL_DTYPES or \
                not (isinstance(u, Vector) or mask is None):
            return _on_host("apply", op, u, left=left, right=right, **controls)
        x = u.values if isinstance(u, Vector) or u.values is not None else cupy.ones(u.nvals, bool)
        values = generic.unary(op, x, cupy) if bound is None else \
            general.binary(op, left, x, t) if right is None else general.binary(op, x, right, t)
        if isinstance(u, Matrix):
            return Matrix(u.nrows, u.ncols, u.indptr, u.indices, values)
        return _masked(Vector(u.size, u.indices, values, u.count), mask, structure, complement)

    @ops.accumulating
    def select(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
               replace=False):
        if isinstance(op, ops._Operator):
            controls = dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum,
                            replace=replace)
            return _guarded("select", op, (u, thunk), lambda: _user_index("select", op, u, thunk, controls),
                            lambda: _on_host("select", op, u, thunk, **controls))
        _check(op, SELECT_OPS)
        if op.startswith("value") and thunk is None:
            raise ValueError(f"select: {op} compares values with thunk=, got None")
        plain = out is None and accum is None and not replace
        if isinstance(u, Matrix) and op in _POSITION_SELECTS and mask is None and plain:
            return u.select_position(op, 0 if thunk is None else int(thunk))
        if not (isinstance(u, Vector) and plain and op.startswith("value") and u.dtype in _KERNEL_DTYPES and
                generic.unify(u.dtype, generic.scalar_dtype(thunk)) == u.dtype):
            return _on_host("select", op, u, thunk, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace)
        w = Vector(u.size, *kernels.compact(op[5:], u, thunk))
        return _masked(w, mask, structure, complement)

    def assign(self, w, value, *, mask, structure=True, complement=False, accum=None, replace=False):
        scalar = not isinstance(value, (Vector, Matrix))
        if isinstance(w, Matrix) or w.dtype not in _KERNEL_DTYPES or isinstance(value, Matrix) or \
                not scalar and value.size != w.size or mask is not None and not isinstance(mask, Vector) or \
                not _finishable(w, accum) or scalar and not _is_scalar(value):
            return _on_host("assign", w, value, mask=mask, structure=structure, complement=complement, accum=accum,
                            replace=replace)
        if scalar:  # GraphBLAS casts the scalar to w's type (accum types it by w's dtype itself)
            value = np.asarray(value, generic.scalar_dtype(value))
            value = generic.cast(value, w.dtype)[()] if accum is None else value[()]
        every = mask is None or mask.indices is None and structure
        if w.indices is None and not complement and accum is None and not replace and \
                (scalar or value.dtype == w.dtype):  # a full w stays full: write in place
            if isinstance(value, Vector) and (structure or mask is None) and _covers(value, mask):
                if value.indices is None:
                    w.values[...] = value.values
                else:
                    kernels.scatter(w.values, value)
                return w
            if scalar:
                if every:
                    w.values.fill(value)
                else:
                    condition = None if structure else mask.values.astype(bool, copy=False)
                    kernels.scatter_scalar(w.values, mask, value, condition)
                return w
        # T = value (a scalar: at every position), then w<mask, replace> accum= T on the device
        t = Vector(w.size, None, cupy.full(w.size, value, value.dtype)) if scalar else value
        return _finish("assign", w, t, mask, structure, complement, accum, replace, masked=False)

    @ops.accumulating
    def apply_index(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None,
                    accum=None, replace=False):
        controls = dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum, replace=replace)
        if isinstance(op, ops._Operator):
            return _guarded("apply_index", op, (u, thunk), lambda: _user_index("apply_index", op, u, thunk, controls),
                            lambda: _on_host("apply_index", op, u, thunk, **controls))
        if isinstance(op, str):
            _check(op, INDEX_UNARY_OPS)
            t = _index_type(op, u, thunk)
            if t is None or not isinstance(u, (Vector, Matrix)):
                return _on_host("apply_index", op, u, thunk, **controls)
            if out is not None or accum is not None or replace:  # T<mask> = op(u), then out<mask> accum= T
                masking = dict(mask=mask, structure=structure, complement=complement)
                return _controlled("apply_index", lambda: self.apply_index(op, u, thunk, **masking), (op, u, thunk), {},
                                   masking, out, accum, replace, on_device=isinstance(u, Vector))
            thunk = False if thunk is None else thunk
            if isinstance(u, Matrix):
                if mask is not None:
                    return _on_host("apply_index", op, u, thunk, **controls)
                values = general.index_values(op, u.rows(), u.indices, t, thunk)
                return Matrix(u.nrows, u.ncols, u.indptr, u.indices, values)
            ids = cupy.arange(u.capacity, dtype=cupy.int64) if u.indices is None else u.indices
            values = general.index_values(op, ids, 0, t, thunk)
            return _masked(Vector(u.size, u.indices, values, u.count), mask, structure, complement)
        native = getattr(op, "cuda", None)
        if native is None or any(v is not None for v in (mask, out, accum)) or replace:
            return super().apply_index(op, u, thunk, **controls)
        count = kernels.count_args(u)[1]
        return Vector(u.size, u.indices, native(u.indices, u.count, count, u.capacity, thunk), u.count)

    def iterate(self, step, state, *, first=0, stop=None, check=None, stall=None):
        # the round as one kernel that loops on the device (program.py), else recorded once
        # and replayed (replay.py)
        if (stop is None or first < stop) and state[0].entry_count():
            compiled = program.compile_rounds(self, step, state, first)
            if compiled is not None:
                rounds, arrays = compiled
                return rounds.run(arrays, state, first, stop, check, stall)
        return replay.iterate(step, state, first, stop, check, stall)

    def fused(self, algorithm):
        return {"coarse_by_sort": self._coarse_by_sort, "visit": self._visit, "roots": self._roots,
                "jet_level": self._jet_level, "jet_judge": self._jet_judge, "jet_moves": self._jet_moves,
                "jet_update": self._jet_update, "jet_rounds": self._jet_rounds, "jet_sigma": self._jet_sigma,
                "jet_rebalance": self._jet_rebalance, "resumed_rounds": replay.resumed}.get(algorithm)

    def _jet_level(self, A, weights, c):
        """refine_jet's ``_Level`` set-up: (θ = c d / (2 - c) where the weighted degree d > 0,
        else -1, as a full vector; Σ d; Σ w) from one kernel (``kernels/jet.cu``), where the
        verbs cost a dozen launches and three host reads (about 2 ms a level on an H200). d's
        rows are added as ``reduce_rows`` adds them, and both totals are ``reduce``'s
        ``cupy.sum``, so the same values; the totals stay on the device (0-d arrays, which
        only the judge reads, ``fused("jet_judge")``), so that no level waits for the one
        before. None where ``A``'s values are not float64 (the verbs then)."""
        if A.values is None or A.values.dtype != np.float64:
            return None
        d, theta = kernels.jet_level(A, c / (2.0 - c))
        return Vector(A.nrows, None, theta), cupy.sum(d), cupy.sum(weights.values)

    def _jet_sigma(self, coarse, labels):
        """refine_jet's σ = 1 - 2 p on a finer level, p = P ⊕any.second p_c the coarse sides
        (bool or int8) projected through ``labels``, in one kernel (``kernels/jet.cu``) where
        ``project``'s verbs and the arithmetic cost some ten launches: the same values."""
        sigma = kernels.jet_sigma(cupy.asarray(coarse), cupy.asarray(labels))
        return Vector(sigma.size, None, sigma)

    def _jet_moves(self, A, theta, loss, locks, sigma, keys):
        """refine_jet's Jet round up to ℓ (``_jet_moves``, then locks<moves> = -inf, 0
        elsewhere, and σ<moves> = -σ) in two kernels and the moves' compaction
        (``kernels/jet.cu``), where the verbs cost some twenty launches a round: the moves
        (the select's vector), locks and σ written in place. The same sums in the same order
        as the verbs' (the afterburner's row operator), so the same moves."""
        if A.values is not None and A.values.dtype != np.float64:
            return None
        score = kernels.jet_moves(A, theta.values, loss.values, locks.values, sigma.values, keys.values)
        return self.select("valuege", Vector(sigma.size, None, score), 0.0)  # the moves: g' >= 0

    def _jet_update(self, A, sigma, weights, loss, wsigma):
        """refine_jet's ``_Rounds._update`` (ℓ = σ (A ⊕plus.times σ) and w σ, full vectors
        written in place) in one kernel (``kernels/jet.cu``) where the verbs cost six
        launches, each through the backend's Python (a rebalancing round runs them eagerly):
        the product's rows reduced as the cupy ``mxv`` reduces them, so the same values.
        Returns True, or None where ``A``'s values are not float64 (the verbs then)."""
        if A.values is not None and A.values.dtype != np.float64:
            return None
        kernels.jet_update(A, sigma.values, weights.values, loss.values, wsigma.values)
        return True

    def _jet_rebalance(self, sigma, loss, weights, keys, side, amount):
        """refine_jet's rebalancing round with no host read: the vertices of side ``side`` (σ
        = 1 - 2 side) with weight w > 0, by increasing ℓ (1 / w) (ties: larger key first) up
        to and including the first at which their weights reach ``amount``
        (``_rebalance_moves``' verbs and ``lightest_prefix``: the same keys, sort, prefix sums
        and search), flipped in place, σ<moves> = -σ. The sort runs over every vertex, the
        others keyed last, so that no count comes to the host. Returns how many moved, a
        device scalar for the judge (``fused("jet_judge")``). Through the verbs a round cost
        a dozen calls and three host reads."""
        s = sigma.values
        if s.size <= kernels.JET_SMALL:  # one launch, where the path below costs some fifteen
            return kernels.jet_rebalance_small(s, loss.values, weights.values, keys.values, 1.0 - 2.0 * side, amount)
        sort_keys, movable = kernels.jet_rebalance_keys(s, loss.values, weights.values, keys.values, 1.0 - 2.0 * side)
        order = cupy.lexsort(sort_keys)
        total = cupy.cumsum(weights.values[order])
        found = cupy.searchsorted(total, amount, side="left")
        return kernels.jet_rebalance_flip(order, found, movable, amount > 0, s)

    def _jet_rounds(self, A, theta, locks, keys, weights, judge, targets):
        """refine_jet's rounds of a level (the judge before each, Jet's, the rebalancing ones)
        in one cooperative launch (``kernels/jet.cu``), ``rounds()``, after the judge's set-up
        (``fused("jet_judge")``'s ``judge``). The same passes as ``fused("jet_moves")``,
        ``"jet_update"``, ``"jet_rebalance"`` and the judge's, on the same vectors in the same
        order (the rebalancing round's prefix sums in another order, the same while the weights
        are integers), where the recorded round (``"resumed_rounds"``) cost a recording, a
        while node's instantiation and host reads, 1.3-2.5 ms a level on an H200, and the
        host's rebalancing rounds 0.4-0.6 ms each. None where ``A``'s values are not float64."""
        if A.values is not None and A.values.dtype != np.float64:
            return None
        return kernels.JetRounds(judge.kernel, A, theta.values, locks.values, keys.values, weights.values, targets)

    def _jet_judge(self, loss, wsigma, sigma, degrees, total, bounds, keep, patience, max_rounds):
        """refine_jet's test between Jet rounds as device work (``kernels/jet.cu``), for a
        level's full vectors ℓ, w σ and σ: ``judge(moves)`` (the Jet round's moves, the count
        a rebalancing round moved, or None) judges the bisection with no host wait, keeps the
        best one in ``judge.best`` (bool array) and empties ``moves`` when no Jet round comes
        next;
        ``judge.read()`` gives (what comes next: "jet", "rebalance" or None, rounds judged,
        side weights) in one read. With ``"resumed_rounds"`` (:func:`replay.resumed`) a
        level's Jet rounds run recorded, the host reading nothing between them; the host
        test cost two reductions read back and a copy a round (0.25-0.4 ms on an H200)."""
        judge = kernels.JetJudge(loss.values, wsigma.values, sigma.values, degrees, total, bounds, keep, patience,
                                 max_rounds)

        def run(moves=None):
            count = moves  # None, or a rebalancing round's count (``fused("jet_rebalance")``)
            if isinstance(moves, Vector):
                if moves.count is None:  # an eager round's host-known count
                    moves.exact()
                    moves.count = cupy.full(1, moves.nvals, cupy.int64)
                count = moves.count
            judge(count)

        def read():
            state = judge.state.get()
            mode = {0: None, 1: "jet", 2: "rebalance"}[int(state[judge.MODE])]
            return mode, int(state[judge.ROUNDS]), (float(state[judge.PW0]), float(state[judge.PW1]))

        run.read, run.best, run.kernel = read, judge.best, judge
        return run

    def _visit(self, H, keys, pending):
        """heavy.py's ``visit_in_order`` in one pass (``kernels/mapping.cu``): each chain of
        H walked once by one thread, the hand-off by an atomic count. Its rounds as heavy.py's
        GraphBLAS form (:data:`~gbgraph.algorithms.heavy.VISIT`) cost a launch, a host read
        and, per call, the transpose of the waiting matrix: 0.31 against 3.7 ms a level of
        Laplace3D 100³ on an H100. Returns (the unclaimed vertices' flags, bool; the rounds,
        a device array of one element), with no host wait: the caller reads the rounds once
        it waits for its own result (HEC: the count of coarse vertices)."""
        free, rounds = kernels.unclaimed(H.astype(cupy.int64, copy=False), keys.astype(cupy.uint64, copy=False),
                                         self.indices(pending))
        return free.view(cupy.bool_), rounds[0]

    def _roots(self, parent):
        """heavy.py's ``roots_and_labels``: the root of each vertex under ``parent`` (int64
        array) by following the pointers, one thread a vertex (``kernels/mapping.cu``), then
        the roots listed in ascending order by one compaction and each vertex labelled with
        its root's place in the list. Pointer jumping by ``extract`` reads the vector back to
        the host each step (0.22 against 0.95 ms a level, as above); the numbering by a scan
        (``cumsum`` of ``root == arange``) costs five CuPy calls. Returns (labels, the count of
        roots as a device scalar)."""
        root, is_root = kernels.roots(parent.astype(cupy.int64, copy=False))
        listed, _, count = kernels.compact("ne", Vector(root.size, None, is_root), 0, with_values=False)
        return kernels.number_roots(root, listed, count), count[0]

    def _coarse_by_sort(self, graph, labels, k, low_degree_end):
        """Gilbert et al.'s construction with sort-based deduplication as one CUDA kernel
        (``kernels/coarse.cu``): the CSR arrays of :func:`gbgraph.coarse_graph`'s ``"sort"``
        method, or None when an aggregate is too large for it or the construction is
        one-sided (``low_degree_end``: the CPU kernels' rule only)."""
        if low_degree_end:
            return None
        A = self.adjacency(graph)  # cached on the device
        if graph.weights is None:  # edge counts, as float64: cupyx matrices hold floating-point values
            return kernels.coarse_by_sort(A.indptr, A.indices, None, labels, k, np.dtype(np.float64))
        weights = self.adjacency(graph, weighted=True).values
        return kernels.coarse_by_sort(A.indptr, A.indices, weights, labels, k, weights.dtype)

    def reduce(self, u, monoid):
        if isinstance(monoid, ops._Operator):
            return _guarded("reduce", monoid, (u,), lambda: _user_reduce(u, monoid),
                            lambda: _on_host("reduce", u, monoid))
        _check(monoid, MONOIDS)
        if not isinstance(u, (Vector, Matrix)) or u.dtype not in _KERNEL_DTYPES or monoid not in _REDUCTIONS or \
                _typed(generic.monoid_type, "reduce", monoid, u.dtype) != u.dtype or \
                (u.dtype.kind == "f" and monoid in ("min", "max")):  # IEEE fmin/fmax on NaN: the host's
            return _on_host("reduce", u, monoid)
        if u.nvals == 0:
            return None
        values = u.values if isinstance(u, Vector) or u.values is not None else cupy.ones(u.nvals, bool)
        if monoid == "any":
            return values[0].get()[()]
        return _REDUCTIONS[monoid](values).astype(u.dtype).get()[()]

    @ops.accumulating
    def reduce_rows(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        if isinstance(monoid, ops._Operator):
            controls = dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum,
                            replace=replace)
            return _guarded("reduce_rows", monoid, (A,), lambda: _user_reduce_rows(A, monoid, controls),
                            lambda: _on_host("reduce_rows", A, monoid, **controls))
        _check(monoid, MONOIDS)
        if mask is not None or out is not None or accum is not None or replace or A.dtype not in _KERNEL_DTYPES or \
                monoid not in _DEVICE_MONOIDS or _typed(generic.monoid_type, "reduce_rows", monoid, A.dtype) != A.dtype or \
                (A.dtype.kind == "f" and monoid in ("min", "max")):
            return _on_host("reduce_rows", A, monoid, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace)
        values = cupy.ones(A.indices.size, bool) if A.values is None else A.values
        rows = cupy.flatnonzero(cupy.diff(A.indptr) > 0)
        return Vector(A.nrows, rows, kernels.segment_reduce(monoid, values, A.indptr[rows]))

    def extract(self, u, indices, cols=None, *, mask=None, structure=True, complement=False, out=None,
                accum=None, replace=False):
        if cols is not None or mask is not None or out is not None or accum is not None or replace or \
                u.dtype not in _KERNEL_DTYPES:
            return _on_host("extract", u, indices, cols, mask=mask, structure=structure, complement=complement,
                            out=out, accum=accum, replace=replace)
        indices = cupy.asarray(indices, dtype=cupy.int64)
        if isinstance(u, Matrix):
            return u.rows_at(indices)
        dense, present = u.dense()
        if present is None:  # a full vector gives a full one: no compaction, no sync (pointer jumping)
            return Vector(indices.size, None, dense[indices])
        positions = cupy.flatnonzero(present[indices])
        return Vector(indices.size, positions, dense[indices[positions]])

    @ops.accumulating
    def reduce_cols(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        """``w(j) = ⊕_i A(i, j)``: the rows of Aᵀ (cached on A) reduced."""
        return self.reduce_rows(A.transposed(), monoid, mask=mask, structure=structure, complement=complement,
                                out=out, accum=accum, replace=replace)

    def build(self, indices, values, size, *, dup=None):
        if dup in kernels.BUILD_MONOIDS and isinstance(indices, cupy.ndarray) and isinstance(values, cupy.ndarray) \
                and values.dtype in kernels.BUILD_TYPES and values.shape == indices.shape:
            # integer max / min / plus on the device (vertex weights, aggregate sizes); the rest on the host
            indices = indices.astype(cupy.int64, copy=False)
            out, found, outside = kernels.build_atomic(indices, values, size, dup)
            ids, combined, count = kernels.compact("ne", Vector(size, None, out), 0, keys=found)
            # the one wait, for the keys out of bounds and the entries' count together (coarse vertex weights,
            # HEC's cap: two a level less)
            outside, count = (int(x) for x in cupy.concatenate((outside.view(cupy.int64), count)).get())
            if outside:
                raise ValueError(f"build: indices must lie in [0, {size}), got {int(indices.min())}.."
                                 f"{int(indices.max())}")
            return Vector(size, ids[:count], combined[:count])
        if not _device_build(dup, (indices,), values):
            return _on_host("build", indices, values, size, dup=dup)
        keys = indices.astype(cupy.int64, copy=False)
        _check_bounds("build", keys, size)
        keys, values = general.build("build", keys, values, int(size), dup)
        return Vector(size, None if keys.size == size else keys, values)

    def build_matrix(self, rows, cols, values, nrows, ncols, *, dup=None):
        if not _device_build(dup, (rows, cols), values):
            return _on_host("build_matrix", rows, cols, values, nrows, ncols, dup=dup)
        nrows, ncols = int(nrows), int(ncols)
        rows, cols = rows.astype(cupy.int64, copy=False), cols.astype(cupy.int64, copy=False)
        _check_bounds("build_matrix", rows, nrows)
        _check_bounds("build_matrix", cols, ncols)
        keys, values = general.build("build_matrix", rows * ncols + cols, values, nrows * ncols, dup)
        # the rows of sorted keys i * ncols + j: where each row's keys begin
        key_rows = keys // max(ncols, 1)
        indptr = cupy.searchsorted(key_rows, cupy.arange(nrows + 1, dtype=cupy.int64))
        index_type = cupy.int32 if ncols < 2**31 else cupy.int64
        return Matrix(nrows, ncols, indptr.astype(cupy.int64, copy=False),
                      (keys - key_rows * ncols).astype(index_type), values)

    def extract_tuples(self, x):
        if isinstance(x, Vector):
            return self.indices(x).copy(), self.values(x).copy()
        values = cupy.ones(x.nvals, bool) if x.values is None else x.values.copy()
        return x.rows(), x.indices.astype(cupy.int64), values


#: The dtypes the device kernels serve (those of gbgraph's algorithms); the others go to the host.
_KERNEL_DTYPES = frozenset(map(np.dtype, ("bool", "int32", "int64", "uint64", "float64")))
#: Multiplies of the mxv kernel (kernels/mxv.cu), of the push and of the masked product (general.cu).
_ARITHMETIC_MULTIPLIES = ("plus", "minus", "rminus", "min", "max")
_MXV_MULTIPLIES = ("first", "second", "pair", "times", "secondi", "land") + _ARITHMETIC_MULTIPLIES
#: Multiplies of the expanding matrix product (spgemm.py), and of the masked one.
_MXM_MULTIPLIES = ("first", "second", "pair", "times", "land")
_MASKED_MULTIPLIES = _MXM_MULTIPLIES + _ARITHMETIC_MULTIPLIES
_DEVICE_MONOIDS = ("min", "max", "plus", "times", "any", "land", "lor", "band", "bor")
_POSITION_SELECTS = ("offdiag", "diag", "tril", "triu")


def _check_controls(verb, out, accum):
    """Bad output controls are a ValueError before any typing (as on every backend)."""
    if accum is not None:
        _check(accum, BINARY_OPS)
    check_accum(verb, out, accum)


def _typed(rule, *args, **kwargs):
    """``rule(*args, **kwargs)``: a typing rule of :mod:`gbgraph.backends.numba.generic`, or a
    general form on the host, its NotImplementedError naming this backend."""
    try:
        return rule(*args, **kwargs)
    except NotImplementedError as e:
        raise NotImplementedError(str(e).replace("numba:", "cupy:", 1)) from None


def _on_host(verb, *args, **kwargs):
    """The general form of ``verb`` (:mod:`.host`), its errors naming this backend."""
    return _typed(host.call, verb, *args, **kwargs)


def _product_type(verb, semiring, left, right, pattern, multiplies=_MXV_MULTIPLIES):
    """The result dtype when a device kernel computes ``semiring`` on operands of dtypes
    ``left`` and ``right`` exactly, else None (the host's general form then runs it);
    NotImplementedError, naming this backend, where python-graphblas has no typed semiring.

    The kernels cast each operand they read to the result type and reduce in it: python-graphblas'
    typing wherever that type is the multiply's input type too, and an operand whose values
    they read has the result's dtype (or is the ``pattern`` side, read as ones), as the numba
    kernels' rule. A floating-point ``min``/``max`` differs from GraphBLAS' fmin/fmax on NaN
    only; the algorithms' values are checked finite.
    """
    monoid, multiply = semiring.split("_", 1)
    t_in, t_out = _typed(generic.semiring_types, verb, semiring, left, right)
    left, right = np.dtype(left), np.dtype(right)
    if monoid not in _DEVICE_MONOIDS or multiply not in multiplies or t_out not in _KERNEL_DTYPES or \
            left not in _KERNEL_DTYPES or right not in _KERNEL_DTYPES:
        return None
    if (t_in != t_out and multiply != "land") or (t_out == bool and "times" in (monoid, multiply)) or \
            (t_out == bool and multiply in _ARITHMETIC_MULTIPLIES):
        return None
    both = ("times", "land") + _ARITHMETIC_MULTIPLIES
    reads_left, reads_right = multiply in ("first",) + both, multiply in ("second",) + both
    if (reads_left and pattern != "left" and left != t_out) or (reads_right and pattern != "right" and right != t_out):
        return None
    return t_out


def _device_ewise(verb, op, u, v):
    """The dtype an element-wise verb's operator runs in on the device (python-graphblas'
    typing, :func:`generic.binary_types`), or None where the host runs it: two vectors of one
    size, of dtypes the kernels serve."""
    if not (isinstance(u, Vector) and isinstance(v, Vector) and u.size == v.size and u.dtype in _KERNEL_DTYPES and
            v.dtype in _KERNEL_DTYPES):
        return None
    t = _typed(generic.binary_types, verb, op, u.dtype, v.dtype)[0]
    return t if t in _KERNEL_DTYPES else None


def _as_type(v, t, op):
    """``v`` with its values cast to ``t`` (``pair`` reads none)."""
    if op == "pair" or v.dtype == t:
        return v
    return Vector(v.size, v.indices, general.cast(v.values, t), v.count)


def _bound_type(op, dtype, bound, left):
    """The dtype ``apply`` runs a binary operator with a bound scalar in; None where the host
    must (or must reject the scalar)."""
    if not _is_scalar(bound):
        return None
    scalar = generic.scalar_dtype(bound)
    return _typed(generic.binary_types, "apply", op, *((scalar, dtype) if left else (dtype, scalar)))[0]


def _is_scalar(value):
    try:
        generic.scalar_dtype(value)
    except TypeError:
        return False
    return True


def _index_type(op, u, thunk):
    """The dtype of ``apply_index``'s result (int32 where python-graphblas types it so, else
    int64), or None where the host must run (or reject) the call."""
    thunk = False if thunk is None else thunk
    if not isinstance(u, (Vector, Matrix)):
        return None
    if isinstance(thunk, cupy.ndarray) and thunk.ndim == 0 and thunk.dtype.kind in "iu":
        scalar = thunk.dtype  # the round number of a recorded step (Backend.iterate), left on the device
    elif _is_scalar(thunk):
        scalar = generic.scalar_dtype(thunk)
    else:
        return None
    t = generic.unify(u.dtype, scalar)
    if op == "diagindex" and t not in (np.int32, np.int64):
        return None
    return np.dtype(np.int32 if t == np.int32 else np.int64)


def _controlled(verb, plain, args, kwargs, masking, out, accum, replace, on_device=True):
    """``out<mask, replace> accum= T`` with ``T = plain()``, the verb under its mask alone: on
    the device where :func:`general.finish` writes ``out`` (and ``on_device``), else the whole
    call ``verb(*args, **kwargs)`` with its controls on the host."""
    if on_device and _finishable(out, accum):
        return _finish(verb, out, plain(), **masking, accum=accum, replace=replace)
    return _on_host(verb, *args, **kwargs, **masking, out=out, accum=accum, replace=replace)


def _finishable(out, accum):
    """Whether :func:`general.finish` writes ``out`` (a vector of a kernel dtype) with ``accum``."""
    return isinstance(out, Vector) and out.dtype in _KERNEL_DTYPES and (accum is None or accum in BINARY_OPS)


def _finish(verb, out, t, mask, structure, complement, accum, replace, masked=True):
    """``out<mask, replace> accum= t`` on the device (:func:`general.finish`); ``masked``:
    t is a verb's ``T<mask>``."""
    return _typed(general.finish, verb, out, t, mask=mask, structure=structure, complement=complement, accum=accum,
                  replace=replace, masked=masked)


def _device_build(dup, ids, values):
    """Whether ``build``/``build_matrix`` runs on the device: index and value arrays there,
    one value per index, a ``dup`` :func:`general.build` combines on the values' dtype."""
    if dup is not None:
        _check(dup, BINARY_OPS)
    return all(isinstance(x, cupy.ndarray) and x.ndim == 1 and x.dtype.kind in "iu" and x.size == values.size
               for x in ids) if isinstance(values, cupy.ndarray) and values.ndim == 1 and \
        general.buildable(dup, values.dtype) else False


def _check_bounds(verb, ids, size):
    """verbs.check_bounds on the device: one host wait, for the error message's range."""
    if ids.size and bool(((ids < 0) | (ids >= size)).any()):
        raise ValueError(f"{verb}: indices must lie in [0, {size}), got {int(ids.min())}..{int(ids.max())}")


_SWAPPED_MULTIPLY = {"first": "second", "second": "first", "minus": "rminus", "rminus": "minus"}
_SWAPPED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "minus": "rminus", "first": "second", "second": "first"}


def _covers(value, mask):
    """Whether ``value`` has an entry at every position of the structural ``mask`` (None:
    every position) and nowhere else, known without looking at the device: the same object
    or the same index buffer."""
    if mask is None:
        return value.indices is None
    if value is mask or value.indices is None and mask.indices is None:
        return True
    return value.indices is not None and value.indices is mask.indices and value.count is mask.count


def _filled(size, value, dtype):
    """``cupy.full(size, value, dtype)``, the value cast as its unsafe copy casts it, without
    that copy's host work on a NumPy scalar (about 30 µs a call under cProfile; MIS-2 makes
    three a call): a memset where every byte of the value is the same (0, -1, True), else
    the array's own fill."""
    out = cupy.empty(size, dtype)
    value = np.asarray(value).astype(out.dtype)[()]
    raw = value.tobytes()
    if raw.count(raw[:1]) == len(raw):
        if out.nbytes:
            out.data.memset_async(raw[0], out.nbytes)
    else:
        out.fill(value)
    return out


def _array(x, dtype, copy):
    """``x`` on the device as ``dtype``; without ``copy``, converted only where needed."""
    return cupy.array(x, dtype=dtype, copy=True) if copy else cupy.asarray(x, dtype=dtype)


def _split(semiring):
    _check(semiring, SEMIRINGS)
    monoid, multiply = semiring.split("_")
    return monoid, multiply


def _check(name, known):
    if name not in known:
        raise ValueError(f"unknown operator {name!r}; the protocol has {', '.join(known)}")


def _row_list(mask, structure, complement):
    """The rows a mask lets through, as a vector whose positions list them (its count may be
    on the device), or None for every row."""
    if mask is None or structure and not complement and mask.indices is None:
        return None
    if structure and not complement:
        return mask
    if not complement:
        keys = mask.values.astype(bool, copy=False)
        return Vector(mask.size, *kernels.compact("ne", mask, False, keys=keys, with_values=False))
    return Vector(mask.size, _row_array(mask, structure, complement, mask.size), None)


def _row_array(mask, structure, complement, n):
    """The rows a mask lets through, as sorted int64 ids, or None for every row."""
    if mask is None:
        return None
    mask.exact()
    rows = mask.indices
    if not structure:
        set_ = mask.values.astype(bool)
        rows = cupy.flatnonzero(set_) if rows is None else rows[set_]
    if not complement:
        return rows
    if rows is None:
        return cupy.empty(0, cupy.int64)
    allowed = cupy.ones(n, bool)
    allowed[rows] = False
    return cupy.flatnonzero(allowed)


def _masked(w, mask, structure, complement):
    """``w<mask>``: its entries compacted on the device, the count left there."""
    if mask is None:
        return w
    values, present = general.dense(w)
    return general.entries(w.size, values, present, mask, structure, complement)


# ---- user-defined operators (gbgraph.backends.operators): the kernels of cupy/operators.py
# where the operands are plain (no out, accum or replace; dtypes the translation serves), the
# numba backend's forms on host copies otherwise (which also raise the errors of bad calls)

def _guarded(verb, op, operands, device, host):
    """``device()``: an operator numba cannot type on the operands is the verb's
    NotImplementedError naming cupy (as on every backend); one numba types but the
    translation to CUDA does not take (:class:`~gbgraph.backends.cuda_translate.Untranslatable`)
    runs on the host, ``host()``."""
    try:
        with supported("cupy", verb, op, *operands):
            return device()
    except Untranslatable:
        return host()


def _plain(controls, mask=True):
    """No output controls (and no mask unless ``mask``)."""
    return controls["out"] is None and controls["accum"] is None and not controls["replace"] and \
        (mask or controls["mask"] is None)


def _castable(dtype, target):
    """Whether ``astype`` is GraphBLAS' cast here (floats to integers saturate on the host)."""
    return not (np.dtype(dtype).kind == "f" and np.dtype(target).kind in "iu")


def _dense(v):
    """(values at every position, presence bytes or None when full) of any dtype
    (Vector.dense's scatter kernels serve the algorithms' dtypes)."""
    if v.indices is None or v.dtype in kernels._C_TYPES:
        return v.dense()
    v.exact()
    values, present = cupy.zeros(v.size, v.dtype), cupy.zeros(v.size, cupy.uint8)
    values[v.indices], present[v.indices] = v.values, 1
    return values, present


def _listed(rows):
    """The row ids a row list (of :func:`_row_list`) holds, trimmed to its count."""
    n = rows.indices.size if rows.count is None else int(rows.count.get()[0])
    return rows.indices[:n]


def _found(w, found):
    """``w``'s entries where ``found`` (bytes aligned with its slots) is nonzero, in order."""
    if w.dtype in kernels._C_TYPES:
        return Vector(w.size, *kernels.compact("ne", w, 0, keys=found))
    w.exact()
    keep = found[:w.values.size].astype(bool)
    positions = cupy.arange(w.size, dtype=cupy.int64) if w.indices is None else w.indices
    return Vector(w.size, positions[keep], w.values[keep])


def _user_apply(op, u, left, right, controls):
    """``apply`` of a UnaryOp, or of a BinaryOp with a bound scalar."""
    scalar = right if left is None else left
    unary = isinstance(op, ops.UnaryOp) and scalar is None
    binary = isinstance(op, ops.BinaryOp) and scalar is not None and \
        generic.scalar_dtype(scalar) in user.DTYPES
    if not (_plain(controls, mask=isinstance(u, Vector)) and (unary or binary) and u.dtype in user.DTYPES and
            (isinstance(u, Vector) or u.values is not None)):
        return _on_host("apply", op, u, left=left, right=right, **controls)
    x = u.values
    count_ptr, count = (u.count, u.capacity) if isinstance(u, Vector) else (None, x.size)
    if unary:
        values = user.unary(op, x, count_ptr, count)
    else:
        values = user.bound(op, x, np.asarray(scalar, generic.scalar_dtype(scalar))[()], left is not None,
                            count_ptr, count)
    if isinstance(u, Matrix):
        return Matrix(u.nrows, u.ncols, u.indptr, u.indices, values)
    return _masked(Vector(u.size, u.indices, values, u.count), controls["mask"], controls["structure"],
                   controls["complement"])


def _user_ewise(verb, op, u, v, controls):
    """``ewise_add`` (union) or ``ewise_mult`` (intersection) of two vectors with a BinaryOp or
    Monoid (whose operands are cast to its dtype)."""
    monoid = op.result_dtype() if isinstance(op, ops.Monoid) else None  # its dtype, checked to be numba's
    if not (_plain(controls) and isinstance(op, ops.BinaryOp) and isinstance(u, Vector) and isinstance(v, Vector) and
            u.size == v.size and u.dtype in user.DTYPES and v.dtype in user.DTYPES and
            (monoid is None or _castable(u.dtype, monoid) and _castable(v.dtype, monoid))):
        return _on_host(verb, op, u, v, **controls)
    if verb == "ewise_mult" or u.indices is None and v.indices is None:
        indices, a, b = u.intersect(v)
        if monoid is not None:
            a, b = a.astype(monoid, copy=False), b.astype(monoid, copy=False)
        w = Vector(u.size, indices, user.binary(op, a, b))
    else:
        positions, a, b, in_a, in_b = u.union(v)
        if monoid is not None:
            a, b = a.astype(monoid, copy=False), b.astype(monoid, copy=False)
        result = monoid if monoid is not None else user.result_dtype(op, a.dtype, b.dtype)
        if not (_castable(a.dtype, result) and _castable(b.dtype, result)):
            return _on_host(verb, op, u, v, **controls)
        values = cupy.where(in_a, a.astype(result), b.astype(result))
        both = cupy.flatnonzero(in_a & in_b)
        values[both] = user.binary(op, a[both], b[both])
        w = Vector(u.size, positions, values)
    return _masked(w, controls["mask"], controls["structure"], controls["complement"])


def _thunk(op, u, thunk):
    """An IndexUnaryOp's thunk for the kernels: a numpy scalar, or a tuple of the full vectors'
    arrays; None where the host must run (or reject) the call."""
    if isinstance(thunk, (tuple, list)):
        size = u.size if isinstance(u, Vector) else u.nrows
        if isinstance(u, Matrix) and u.nrows != u.ncols or len(thunk) != op.arity - 3:
            return None
        if not all(isinstance(v, Vector) and v.size == size and v.indices is None and v.dtype in user.DTYPES
                   for v in thunk):
            return None
        return tuple(cupy.ascontiguousarray(v.values) for v in thunk)
    if isinstance(thunk, (Vector, Matrix)) or op.arity != 4:
        return None
    value = 0 if thunk is None else thunk
    try:
        dtype = generic.scalar_dtype(value)
    except TypeError:
        return None
    return np.asarray(value, dtype)[()] if dtype in user.DTYPES else None


def _user_index(verb, op, u, thunk, controls):
    """``apply_index`` or ``select`` (keep where the result is nonzero) with an IndexUnaryOp."""
    thunk_args = _thunk(op, u, thunk) if isinstance(op, ops.IndexUnaryOp) else None
    if thunk_args is None or not _plain(controls, mask=isinstance(u, Vector)) or \
            not isinstance(u, (Vector, Matrix)) or u.dtype not in user.DTYPES:
        return _on_host(verb, op, u, thunk, **controls)
    if isinstance(u, Vector):
        out = user.index_unary(op, u.values, u.dtype, u.indices, None, thunk_args, u.count, u.capacity, u.capacity)
        if verb == "apply_index":
            w = Vector(u.size, u.indices, out, u.count)
        else:
            kept = out if out.dtype == bool else out != 0  # a bool result is its own flags: no pass
            w = _found(Vector(u.size, u.indices, u.values, u.count), kept.view(cupy.uint8))
        return _masked(w, controls["mask"], controls["structure"], controls["complement"])
    out = user.index_unary(op, u.values, u.dtype, u.rows(), u.indices, thunk_args, None, u.nvals, u.nvals)
    if verb == "apply_index":
        return Matrix(u.nrows, u.ncols, u.indptr, u.indices, out)
    keep = out != 0
    kept = cupy.zeros(u.nvals + 1, cupy.int64)  # kept entries before each position
    kept[1:] = cupy.cumsum(keep)
    return Matrix(u.nrows, u.ncols, kept[u.indptr], u.indices[keep], None if u.values is None else u.values[keep])


def _user_reduce(u, monoid):
    """``reduce`` with a Monoid: the identity folded with the entries in order (None if none)."""
    if not (isinstance(monoid, ops.Monoid) and isinstance(u, (Vector, Matrix)) and u.dtype in user.DTYPES and
            _castable(u.dtype, monoid.dtype)):
        return _on_host("reduce", u, monoid)
    monoid.result_dtype()  # the monoid's dtype is numba's type of its function (TypeError otherwise)
    values = u.exact().values if isinstance(u, Vector) else \
        (cupy.ones(u.nvals, bool) if u.values is None else u.values)
    if values.size == 0:
        return None
    return user.reduce(monoid, cupy.ascontiguousarray(values.astype(monoid.dtype, copy=False)))


def _user_reduce_rows(A, monoid, controls):
    """``reduce_rows`` with a Monoid: each nonempty row folded in column order."""
    if not (_plain(controls, mask=False) and isinstance(monoid, ops.Monoid) and isinstance(A, Matrix) and
            A.dtype in user.DTYPES and _castable(A.dtype, monoid.dtype)):
        return _on_host("reduce_rows", A, monoid, **controls)
    monoid.result_dtype()
    values = cupy.ones(A.nvals, bool) if A.values is None else A.values
    rows = cupy.flatnonzero(cupy.diff(A.indptr) > 0)
    return Vector(A.nrows, rows, user.reduce_rows(monoid, A.indptr, values.astype(monoid.dtype, copy=False), rows))


def _rows_of(mask, controls, nrows):
    """(rows vector or None, count pointer, count, capacity) of the rows a mask lets through."""
    rows = _row_list(mask, controls["structure"], controls["complement"])
    if rows is None:
        return None, None, nrows, nrows
    return rows, rows.count, kernels.count_args(rows)[1], rows.capacity


def _user_semiring(verb, semiring, left, right, order, transpose, controls):
    """``mxv``/``vxm`` with a Semiring of a Monoid and a BinaryOp (or first, second, pair)."""
    A, u = (left, right) if verb == "mxv" else (right, left)
    device = isinstance(semiring, ops.Semiring) and order is None and not transpose and _plain(controls) and \
        isinstance(semiring.monoid, ops.Monoid) and \
        (type(semiring.multiply) is ops.BinaryOp or semiring.multiply in user.NAMED_MULTIPLIES) and \
        isinstance(A, Matrix) and isinstance(u, Vector) and A.dtype in user.DTYPES and u.dtype in user.DTYPES and \
        (A.ncols if verb == "mxv" else A.nrows) == u.size
    if not device:
        extra = {} if verb == "vxm" else {"order": order}
        return _on_host(verb, semiring, left, right, transpose=transpose, **controls, **extra)
    semiring.monoid.result_dtype()
    M = A if verb == "mxv" else A.transposed()
    rows, count_ptr, count, capacity = _rows_of(controls["mask"], controls, M.nrows)
    dense, present = _dense(u)
    out, found = user.semiring_rows(semiring, M, dense, present, None if rows is None else rows.indices, count_ptr,
                                    count, capacity, verb == "vxm")
    w = Vector(M.nrows, None, out) if rows is None else Vector(M.nrows, rows.indices, out, rows.count)
    return _found(w, found)


def _dense_vectors(op, A, u, ordered):
    """A RowOperator's vectors as dense arrays with its fills (the first a copy when
    ``ordered``), or None where the host must run (or reject) the call."""
    vectors = tuple(u) if isinstance(u, (tuple, list)) else (u,)
    if len(vectors) != op.n_vectors or ordered and not vectors:
        return None
    arrays = []
    for k, v in enumerate(vectors):
        if not isinstance(v, Vector) or v.size not in (A.nrows, A.ncols) or v.dtype not in user.DTYPES:
            return None
        # a count on the device stays there (a recorded round's vector): a kernel scatters it
        scattered = op.fill[k] is not None and v.count is not None and v.dtype in kernels._C_TYPES
        if not scattered:
            v.exact()
        if v.indices is None or not scattered and v.indices.size == v.size:
            arrays.append(cupy.array(v.values) if ordered and k == 0 else cupy.ascontiguousarray(v.values))
            continue
        if op.fill[k] is None:
            return None
        dense = cupy.full(v.size, generic.cast(np.asarray(op.fill[k]), v.dtype)[()], v.dtype)
        if scattered:
            kernels.scatter(dense, v)  # dense[v.indices] = v.values, over the count on the device
        else:
            dense[v.indices] = v.values
        arrays.append(dense)
    return tuple(arrays)


def _by_decreasing(keys):
    """The stable order of ``keys`` from the largest down (numba's ``by_decreasing``)."""
    return cupy.argsort(-keys if keys.dtype.kind == "f" else ~keys)


def _user_rows(op, A, u, order, transpose, controls, push=None):
    """``mxv`` with a RowOperator: a thread per row, or one thread in ``order`` (pushing
    with ``push``)."""
    vectors = _dense_vectors(op, A, u, order is not None) \
        if isinstance(A, Matrix) and A.dtype in user.DTYPES and not transpose and _plain(controls) else None
    if vectors is not None and order is not None:
        rows = _rows_of(controls["mask"], controls, A.nrows)[0]
        rows = cupy.arange(A.nrows, dtype=cupy.int64) if rows is None else _listed(rows)
        keys, present = _dense(order) if isinstance(order, Vector) and order.size == A.nrows and \
            order.dtype in user.DTYPES else (None, None)
        if keys is None or present is not None and not bool(present[rows].all()):
            vectors = None
    if vectors is None:
        return _on_host("mxv", op, A, u, transpose=transpose, order=order, push=push, **controls)
    if order is not None:
        out, found = user.row_operator(op, A, vectors, rows, None, rows.size, rows.size, _by_decreasing(keys[rows]),
                                       push)
        return _found(Vector(A.nrows, rows, out), found)
    rows, count_ptr, count, capacity = _rows_of(controls["mask"], controls, A.nrows)
    out, found = user.row_operator(op, A, vectors, None if rows is None else rows.indices, count_ptr, count,
                                   capacity)
    w = Vector(A.nrows, None, out) if rows is None else Vector(A.nrows, rows.indices, out, rows.count)
    return _found(w, found)


def _traced(verb):
    """``verb``, sent to the tracer while a round is traced (:mod:`.program`)."""
    @functools.wraps(verb)
    def call(self, *args, **kwargs):
        if self._tracer is not None:
            return self._tracer.call(verb.__name__, args, kwargs)
        return verb(self, *args, **kwargs)
    return call


for _name in dir(CupyBackend):
    _verb = getattr(CupyBackend, _name)
    if not _name.startswith("_") and inspect.isfunction(_verb):
        setattr(CupyBackend, _name, _traced(_verb))

"""The ``cupy`` backend: gbgraph's GraphBLAS protocol on an NVIDIA GPU.

Vectors and matrices live in CuPy arrays. A masked ``mxv`` is one raw CUDA kernel
(``kernels/mxv.cu``, templated by semiring and types) over the rows of its mask; element-wise
operations, selection, reductions and compaction go through CuPy (and CUB under it);
``plus_times`` matrix products through cuSPARSE (``cupyx.scipy.sparse``), other semirings by
expansion, a stable sort and a segmented reduction. Every result equals the ``suitesparse``
backend's: reductions run in a fixed order (a row in column order, sorted segments in
sequence), never in the arrival order of atomics.
"""

try:
    import cupy
    import cupyx.scipy.sparse  # noqa: F401 - the backend needs it; fail here with the extras named
except ImportError as e:  # pragma: no cover - exercised only without CuPy
    raise ImportError("the 'cupy' backend needs CuPy: pip install 'gbgraph[cuda12]' or 'gbgraph[cuda13]' "
                      f"(CUDA 12 or 13 wheels); importing it failed: {e}") from e

import contextlib

import numpy as np

from ..base import BINARY_OPS, INDEX_UNARY_OPS, MONOIDS, SELECT_OPS, SEMIRINGS, UNARY_OPS, Backend, check_accum
from ..numba import generic
from .containers import Matrix, Vector
from . import host, kernels, replay

__all__ = ["CupyBackend", "Matrix", "Vector"]

_COMPARISONS = {"eq": cupy.equal, "ne": cupy.not_equal, "lt": cupy.less, "le": cupy.less_equal,
                "gt": cupy.greater, "ge": cupy.greater_equal}
_ARITHMETIC = {"min": cupy.minimum, "max": cupy.maximum, "plus": cupy.add, "minus": cupy.subtract,
               "times": cupy.multiply, "land": cupy.logical_and, "lor": cupy.logical_or,
               "band": cupy.bitwise_and, "bor": cupy.bitwise_or, "bxor": cupy.bitwise_xor}
# CuPy has no reduce of its bitwise ufuncs: band, bor and bxor reduce on the host
_REDUCTIONS = {"min": cupy.min, "max": cupy.max, "plus": cupy.sum, "times": cupy.prod, "any": None,
               "land": cupy.all, "lor": cupy.any}


class CupyBackend(Backend):
    """GraphBLAS verbs on :class:`Matrix` and :class:`Vector` objects held on the GPU."""

    name = "cupy"
    xp = cupy
    index_dtype = np.int64

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
        return Vector(size, None, cupy.full(size, value, dtype=dtype))

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

    def mxv(self, semiring, A, u, *, mask=None, structure=True, complement=False, out=None, accum=None,
            replace=False, transpose=False):
        monoid, multiply = _split(semiring)
        _check_controls("mxv", out, accum)
        dtype = _product_type("mxv", semiring, A.dtype, u.dtype, "left" if A.values is None else None)
        if transpose or accum is not None or replace or A.ncols != u.size or dtype is None or \
                out is not None and out.dtype != dtype:
            return _on_host("mxv", semiring, A, u, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace, transpose=transpose)
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
        return w if out is None else self.assign(out, w, mask=mask, structure=structure, complement=complement)

    def vxm(self, semiring, u, A, *, mask=None, structure=True, complement=False, out=None, accum=None,
            replace=False, transpose=False):
        # u ⊕.⊗ A = Aᵀ ⊕.⊗' u with the multiply's operands swapped; Aᵀ is cached on A
        monoid, multiply = _split(semiring)
        _check_controls("vxm", out, accum)
        if transpose or out is not None or accum is not None or replace or A.nrows != u.size or \
                multiply == "secondi" or \
                _product_type("vxm", semiring, u.dtype, A.dtype, "right" if A.values is None else None) is None:
            return _on_host("vxm", semiring, u, A, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace, transpose=transpose)
        swapped = {"first": "second", "second": "first"}.get(multiply, multiply)
        return self.mxv(f"{monoid}_{swapped}", A.transposed(), u, mask=mask, structure=structure,
                        complement=complement)

    def mxm(self, semiring, A, B, *, mask=None, structure=True, complement=False, out=None, accum=None,
            replace=False, transpose_a=False, transpose_b=False):
        from .spgemm import mxm
        _check_controls("mxm", out, accum)

        dtype = _product_type("mxm", semiring, A.dtype, B.dtype, None, multiplies=_MXM_MULTIPLIES)
        if transpose_a or transpose_b or mask is not None or out is not None or accum is not None or replace or \
                A.ncols != B.nrows or dtype is None:
            return _on_host("mxm", semiring, A, B, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace, transpose_a=transpose_a, transpose_b=transpose_b)
        return mxm(semiring, A, B, dtype)

    def transpose(self, A, *, mask=None, structure=True, complement=False, out=None, accum=None, replace=False):
        if mask is not None or out is not None or accum is not None or replace:
            return _on_host("transpose", A, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace)
        return A.transpose()

    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                   replace=False):
        _check(op, BINARY_OPS)
        if not _device_ewise(op, u, v, out, accum, replace):
            return _on_host("ewise_mult", op, u, v, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace)
        if mask is None and u.dtype == v.dtype and (u.indices is None) != (v.indices is None):
            sparse, full, gather = (u, v, op) if v.indices is None else (v, u, _SWAPPED.get(op, op))
            if gather in kernels.GATHER_OPS:  # sparse ⊙ full: one gather, the count stays on the device
                dtype = np.dtype(bool) if op in _COMPARISONS else u.dtype
                return Vector(u.size, sparse.indices, kernels.gather_op(gather, sparse, full.values, dtype),
                              sparse.count)
        indices, a, b = u.intersect(v)
        return _masked(Vector(u.size, indices, _binary(op, a, b)), mask, structure, complement)

    def ewise_add(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                  replace=False):
        _check(op, BINARY_OPS)
        if not _device_ewise(op, u, v, out, accum, replace):
            return _on_host("ewise_add", op, u, v, mask=mask, structure=structure, complement=complement, out=out,
                            accum=accum, replace=replace)
        if u.indices is None or v.indices is None:  # a full operand: a full result, no positions to find
            (a, in_a), (b, in_b) = u.dense(), v.dense()
            values = _binary(op, a, b)
            if in_a is not None or in_b is not None:
                values = cupy.where(in_b.astype(bool), values, a.astype(values.dtype)) if in_a is None else \
                    cupy.where(in_a.astype(bool), values, b.astype(values.dtype))
            return _masked(Vector(u.size, None, values), mask, structure, complement)
        indices, a, b, in_a, in_b = u.union(v)
        both = in_a & in_b
        values = cupy.where(both, _binary(op, a, b), cupy.where(in_a, a, b).astype(_binary_dtype(op, a, b)))
        return _masked(Vector(u.size, indices, values), mask, structure, complement)

    def apply(self, op, u, *, left=None, right=None, mask=None, structure=True, complement=False, out=None,
              accum=None, replace=False):
        if left is not None and right is not None:
            raise ValueError("apply takes a bound scalar on one side only, got both left and right")
        _check(op, UNARY_OPS if left is None and right is None else BINARY_OPS)
        bound = right if left is None else left
        device = isinstance(u, Vector) and out is None and accum is None and not replace and \
            u.dtype in _KERNEL_DTYPES and (op in _DEVICE_UNARY and (u.dtype != bool or op != "ainv") if bound is None
                                           else op in _DEVICE_BINARY and generic.scalar_dtype(bound) == u.dtype and
                                           (u.dtype != bool or op in _BOOL_BINARY) and
                                           (op not in _BITWISE or u.dtype.kind == "u"))
        if not device:
            return _on_host("apply", op, u, left=left, right=right, mask=mask, structure=structure,
                            complement=complement, out=out, accum=accum, replace=replace)
        if left is None and right is None:
            _check(op, UNARY_OPS)
            values = _unary(op, u.values)
        else:
            _check(op, BINARY_OPS)
            values = _binary(op, cupy.asarray(left, u.dtype), u.values) if right is None \
                else _binary(op, u.values, cupy.asarray(right, u.dtype))
        return _masked(Vector(u.size, u.indices, values, u.count), mask, structure, complement)

    def select(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
               replace=False):
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
        if isinstance(w, Matrix) or accum is not None or replace or w.dtype not in _KERNEL_DTYPES or \
                not scalar and value.dtype != w.dtype:
            return _on_host("assign", w, value, mask=mask, structure=structure, complement=complement, accum=accum,
                            replace=replace)
        if scalar:  # GraphBLAS casts the scalar to w's type
            value = generic.cast(np.asarray(value, generic.scalar_dtype(value)), w.dtype)[()]
        if w.indices is None and not complement:  # a full w stays full: write in place
            if isinstance(value, Vector) and structure and _covers(value, mask):
                if value.indices is None:
                    w.values[...] = value.values
                else:
                    kernels.scatter(w.values, value)
                return w
            if not isinstance(value, Vector):
                if mask.indices is None and structure:
                    w.values.fill(value)
                else:
                    condition = None if structure else mask.values.astype(bool, copy=False)
                    kernels.scatter_scalar(w.values, mask, value, condition)
                return w
        rows = _row_array(mask, structure, complement, w.size)
        if isinstance(value, Vector):
            return w.merge(value.restrict(rows), rows)
        return w.fill(rows, cupy.asarray(value, w.dtype))

    def apply_index(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None,
                    accum=None, replace=False):
        controls = dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum, replace=replace)
        if isinstance(op, str):
            _check(op, INDEX_UNARY_OPS)
            return _on_host("apply_index", op, u, thunk, **controls)
        native = getattr(op, "cuda", None)
        if native is None or any(v is not None for v in (mask, out, accum)) or replace:
            return super().apply_index(op, u, thunk, **controls)
        count = kernels.count_args(u)[1]
        return Vector(u.size, u.indices, native(u.indices, u.count, count, u.capacity, thunk), u.count)

    def iterate(self, step, state, *, first=0, stop=None):
        return replay.iterate(step, state, first, stop)

    # ---- fused verbs: kernels of their own (GraphBLAS forms in forms.py) -----------------

    def better_group(self, A, labels, rooted, sizes, *, mask, limit=None):
        if limit is None:  # a row's groups unbounded: no fixed number of slots per thread
            return super().better_group(A, labels, rooted, sizes, mask=mask, limit=limit)
        rows = self.indices(mask)
        label, present = labels.dense()
        if present is not None:
            label = cupy.where(present.astype(bool), label, -1)
        is_root = cupy.zeros(labels.size, bool)
        is_root[self.indices(rooted)] = True
        moved = kernels.better_group(A.indptr, A.indices, label.astype(cupy.int64, copy=False), is_root,
                                     sizes.dense()[0].astype(cupy.int64, copy=False), rows, limit)
        found = cupy.flatnonzero(moved >= 0)
        return Vector(labels.size, rows[found], moved[found])

    # ---- the parallel refinement's verb: kernels/partition.cu (form in partition_forms.py)

    def mxv_ranked(self, A, u, rank, keys, *, mask):
        rows = None if mask.indices is None else mask
        out = kernels.mxv_ranked(A, u.dense()[0].astype(cupy.float64, copy=False), rank.dense()[0],
                                 keys.dense()[0].astype(cupy.uint64, copy=False), rows)
        return Vector(u.size, None, out) if rows is None else Vector(u.size, rows.indices, out, rows.count)

    # ---- the coarse mappings' verbs: kernels/mapping.cu (pair_groups, a sort, is the
    # inherited form)

    def heavy_neighbor(self, A, keys, *, mask=None):
        rows = None if mask is None else self.indices(mask)
        dense, present = keys.dense()
        column = kernels.heavy_rows(A.indptr, A.indices, A.values, dense.astype(cupy.uint64, copy=False), present, rows)
        found = cupy.flatnonzero(column >= 0)
        positions = found if rows is None else rows[found]
        return Vector(A.nrows, positions, column[found])

    def reduce_to(self, targets, u, monoid, *, size=None):
        if monoid not in kernels.REDUCE_TO_MONOIDS or u.dtype not in kernels._ATOMIC_TYPES:
            return super().reduce_to(targets, u, monoid, size=size)
        size = targets.size if size is None else size
        at = targets.dense()[0][self.indices(u)].astype(cupy.int64, copy=False)
        out, found = kernels.reduce_to(at, u.values, size, monoid)
        keep = cupy.flatnonzero(found)
        return Vector(size, keep, out[keep])

    def unclaimed(self, H, keys, pending):
        free, rounds = kernels.unclaimed(H.dense()[0].astype(cupy.int64, copy=False),
                                         keys.dense()[0].astype(cupy.uint64, copy=False), self.indices(pending))
        ids = cupy.flatnonzero(free)
        return Vector(H.size, ids, cupy.ones(ids.size, bool)), int(rounds[0])

    def roots(self, parent):
        return Vector(parent.size, None, kernels.roots(parent.dense()[0].astype(cupy.int64, copy=False)))

    def coarse_by_sort(self, graph, labels, k):
        """Gilbert et al.'s construction with sort-based deduplication as one CUDA kernel
        (``kernels/coarse.cu``): the CSR arrays of :func:`gbgraph.coarse_graph`'s ``"sort"``
        method, or None when an aggregate is too large for it."""
        A = self.adjacency(graph)  # cached on the device
        if graph.weights is None:  # edge counts, as float64: cupyx matrices hold floating-point values
            return kernels.coarse_by_sort(A.indptr, A.indices, None, labels, k, np.dtype(np.float64))
        weights = self.adjacency(graph, weighted=True).values
        return kernels.coarse_by_sort(A.indptr, A.indices, weights, labels, k, weights.dtype)

    def reduce(self, u, monoid):
        _check(monoid, MONOIDS)
        if isinstance(u, Matrix) or u.dtype not in _KERNEL_DTYPES or monoid not in _REDUCTIONS or \
                _typed(generic.monoid_type, "reduce", monoid, u.dtype) != u.dtype or \
                (u.dtype.kind == "f" and monoid in ("min", "max")):  # IEEE fmin/fmax on NaN: the host's
            return _on_host("reduce", u, monoid)
        if u.nvals == 0:
            return None
        if monoid == "any":
            return u.values[0].get()[()]
        return _REDUCTIONS[monoid](u.values).astype(u.dtype).get()[()]

    def reduce_rows(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
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
        keep = cupy.ones(indices.size, bool) if present is None else present[indices].astype(bool)
        positions = cupy.flatnonzero(keep)
        return Vector(indices.size, positions, dense[indices[positions]])

    def reduce_cols(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        """``w(j) = ⊕_i A(i, j)``: the rows of Aᵀ (cached on A) reduced."""
        return self.reduce_rows(A.transposed(), monoid, mask=mask, structure=structure, complement=complement,
                                out=out, accum=accum, replace=replace)

    def build(self, indices, values, size, *, dup=None):
        return _on_host("build", indices, values, size, dup=dup)

    def build_matrix(self, rows, cols, values, nrows, ncols, *, dup=None):
        return _on_host("build_matrix", rows, cols, values, nrows, ncols, dup=dup)

    def extract_tuples(self, x):
        if isinstance(x, Vector):
            return self.indices(x).copy(), self.values(x).copy()
        values = cupy.ones(x.nvals, bool) if x.values is None else x.values.copy()
        return x.rows(), x.indices.astype(cupy.int64), values


#: The dtypes the device kernels serve (those of gbgraph's algorithms); the others go to the host.
_KERNEL_DTYPES = frozenset(map(np.dtype, ("bool", "int32", "int64", "uint64", "float64")))
#: Multiplies of the mxv kernel (kernels/mxv.cu) and of the expanding matrix product.
_MXV_MULTIPLIES = ("first", "second", "pair", "times", "secondi", "land")
_MXM_MULTIPLIES = ("first", "second", "pair", "times", "land")
_DEVICE_MONOIDS = ("min", "max", "plus", "times", "any", "land", "lor", "band", "bor")
_DEVICE_UNARY = ("identity", "ainv", "abs", "one", "lnot")
_DEVICE_BINARY = ("eq", "ne", "lt", "le", "gt", "ge", "min", "max", "plus", "minus", "rminus", "times", "div",
                  "first", "second", "pair", "land", "lor", "band", "bor", "bxor")
#: Binary operators whose CuPy form on bool operands is GraphBLAS' (plus on bool is lor, ...: the host's).
_BOOL_BINARY = ("eq", "ne", "lt", "le", "gt", "ge", "first", "second", "pair", "land", "lor", "min", "max")
_BITWISE = ("band", "bor", "bxor")  # GraphBLAS has them on integers only; the host's typing
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
    if (t_in != t_out and multiply != "land") or (t_out == bool and "times" in (monoid, multiply)):
        return None
    reads_left, reads_right = multiply in ("first", "times", "land"), multiply in ("second", "times", "land")
    if (reads_left and pattern != "left" and left != t_out) or (reads_right and pattern != "right" and right != t_out):
        return None
    return t_out


def _device_ewise(op, u, v, out, accum, replace):
    """Whether an element-wise verb runs on the device: two vectors of one size and one dtype
    served by the kernels, an operator whose CuPy form is GraphBLAS', no output controls."""
    return isinstance(u, Vector) and isinstance(v, Vector) and u.size == v.size and u.dtype == v.dtype and \
        u.dtype in _KERNEL_DTYPES and out is None and accum is None and not replace and \
        op in _DEVICE_BINARY and (u.dtype != bool or op in _BOOL_BINARY) and (op not in _BITWISE or u.dtype.kind == "u")


_SWAPPED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le", "minus": "rminus", "first": "second", "second": "first"}


def _covers(value, mask):
    """Whether ``value`` has an entry at every position of the structural ``mask`` and
    nowhere else, known without looking at the device: the same object or the same index
    buffer."""
    if value is mask or value.indices is None and mask.indices is None:
        return True
    return value.indices is not None and value.indices is mask.indices and value.count is mask.count


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
    if mask is None:
        return w
    return w.restrict(_row_array(mask, structure, complement, w.size))


def _binary_dtype(op, a, b):
    if op in _COMPARISONS:
        return np.dtype(bool)
    if op == "first":
        return a.dtype
    if op in ("second", "pair"):
        return b.dtype if op == "second" else np.dtype(np.int64)
    return np.result_type(a.dtype, b.dtype)


def _binary(op, a, b):
    if op in _COMPARISONS:
        return _COMPARISONS[op](a, b)
    if op == "first":
        return cupy.broadcast_to(a, cupy.broadcast(a, b).shape).copy()
    if op == "second":
        return cupy.broadcast_to(b, cupy.broadcast(a, b).shape).copy()
    if op == "pair":
        return cupy.ones(cupy.broadcast(a, b).shape, cupy.int64)
    if op == "rminus":
        return cupy.subtract(b, a)
    if op == "div":
        return _divide(a, b)
    return _ARITHMETIC[op](a, b).astype(np.result_type(a.dtype, b.dtype), copy=False)


def _divide(a, b):
    """GraphBLAS division: integers truncate toward zero, and x / 0 is 0 for x = 0, else
    the extreme of the sign of x (SuiteSparse's rule), never a trap."""
    dtype = np.result_type(a.dtype, b.dtype)
    if dtype.kind == "f":
        return cupy.true_divide(a, b)
    a, b = (x.astype(dtype) for x in cupy.broadcast_arrays(a, b))
    safe = cupy.where(b == 0, 1, b)
    quotient = a // safe
    quotient += ((a % safe != 0) & ((a < 0) != (safe < 0))).astype(dtype)  # floor to truncation
    info = np.iinfo(dtype)
    by_zero = cupy.where(a > 0, dtype.type(info.max), cupy.where(a < 0, dtype.type(info.min), dtype.type(0))).astype(dtype)
    return cupy.where(b == 0, by_zero, quotient)


def _unary(op, x):
    if op == "identity":
        return x.copy()
    if op == "ainv":
        return cupy.negative(x)
    if op == "abs":
        return cupy.abs(x)
    if op == "one":
        return cupy.ones_like(x)
    return cupy.logical_not(x).astype(x.dtype)

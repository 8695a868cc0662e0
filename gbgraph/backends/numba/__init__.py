"""The ``numba`` backend: gbgraph's GraphBLAS protocol on the CPU, in numpy arrays and
gbgraph's own compiled kernels; the default for CPU inputs.

It is the cupy backend's design on the host. Vectors and matrices live in numpy arrays; a
masked ``mxv`` is one parallel kernel over the rows of its mask, reading a 32-bit CSR
(``kernels/products.py``); element-wise operations, selection and assignment are numpy;
the fused verbs of the coarse mappings are kernels of their own. Every other operator,
dtype and output control of the protocol, on vectors and matrices, takes the general numpy
forms of ``verbs.py`` with python-graphblas' typing (``generic.py``). Matrix-matrix products
go to SuiteSparse:GraphBLAS through python-graphblas. User-defined operators
(:mod:`gbgraph.backends.operators`) run in kernels generated for each operator and dtypes
(``operators.py``).

Why a second CPU backend: the suitesparse-graphblas 9.x wheel stores 64-bit indices, has no
JIT, and each python-graphblas call on a vector of a million entries costs 2-30 ms on this
project's 2-core machines (select, ewise, apply; numpy takes 0.5 ms), so a round of a dozen
verbs cost more than the products in it. The suitesparse backend stays the GraphBLAS
reference: every verb here returns what it returns, and the tests compare the two.
"""

import functools

import numpy as np

from ..._malloc import keep_freed_blocks
from .. import operators as ops
from ..base import BINARY_OPS, INDEX_UNARY_OPS, MONOIDS, SELECT_OPS, SEMIRINGS, UNARY_OPS, Backend, check_accum
from . import generic, verbs
from . import operators as compiled
from .operators import check_kind as _kind
from .containers import Matrix, Vector
from .kernels import coarse, heavy, products, semirings, sets

__all__ = ["NumbaBackend", "Matrix", "Vector"]

_EMPTY_INDICES = np.empty(0, np.int64)  # the indices a full vector passes to kernels
#: The dtypes the compiled kernels serve (those of gbgraph's algorithms); float32 and uint32
#: take the general numpy forms, which compile nothing.
_KERNEL_DTYPES = frozenset(map(np.dtype, ("bool", "int32", "int64", "uint64", "float64")))
_POSITION_SELECTS = ("offdiag", "diag", "tril", "triu")  # Matrix.select_position's


class NumbaBackend(Backend):
    """GraphBLAS verbs on :class:`Matrix` and :class:`Vector` objects in host memory."""

    name = "numba"
    xp = np
    index_dtype = np.int64

    def __init__(self):
        # each round allocates and frees arrays of n entries: glibc's freed blocks kept, as
        # the suitesparse backend keeps them, or which pages fault afresh depends on the
        # order of the round's allocations (an aggregation of Laplace3D 60³: 0 or 6,000 faults)
        keep_freed_blocks()

    # ---- containers --------------------------------------------------------------------

    def matrix(self, indptr, indices, *, ncols=None, values=None, copy=True):
        indptr = np.asarray(indptr, dtype=np.int64)
        n = indptr.size - 1
        ncols = n if ncols is None else int(ncols)
        indices = np.asarray(indices)
        index_type = indices.dtype if indices.dtype in (np.int32, np.int64) and ncols < 2**31 else np.int64
        indices = _array(indices, index_type, copy)
        values = None if values is None else _array(values, None, copy)
        return Matrix(n, ncols, indptr, indices, values)

    def vector(self, indices, values, size, *, copy=True):
        indices = _array(indices, np.int64, copy)
        if np.ndim(values) == 0:
            values = np.full(indices.size, values, dtype=np.asarray(values).dtype)
        else:
            values = _array(values, None, copy)
        return Vector(size, indices, values)

    def full(self, size, value, dtype):
        if np.ndim(value):
            return Vector(size, None, np.asarray(value, dtype=dtype))
        return Vector(size, None, np.full(size, value, dtype=dtype))

    def nvals(self, x):
        return x.nvals

    def indices(self, v):
        return v.positions()

    def values(self, v):
        return v.values

    def to_csr(self, A):
        values = np.ones(A.indices.size, bool) if A.values is None else A.values
        return A.indptr, A.indices.astype(np.int64), values

    # ---- operations --------------------------------------------------------------------
    # Each verb runs the forms gbgraph's algorithms use through kernels or short numpy code,
    # and every other operator, dtype, matrix operand or output control through verbs.py.

    @ops.accumulating
    def mxv(self, semiring, A, u, *, mask=None, structure=True, complement=False, out=None, accum=None,
            replace=False, transpose=False, order=None, push=None):
        controls = _controls("mxv", mask, structure, complement, out, accum, replace)
        A = A.transposed() if transpose else A
        compiled.check_push("mxv", semiring, order, push, u, A.ncols)
        if isinstance(semiring, (ops.RowOperator, ops.Semiring)):
            return self._into(_user_rows("mxv", semiring, A, u, controls, order, push), "mxv", controls, masked=True)
        _no_order("mxv", semiring, order)
        monoid, multiply = _split(semiring)
        _check_sizes("mxv", A.ncols, u.size)
        dtype = _kernel_dtype("mxv", semiring, A.dtype, u.dtype, ("first", "second", "pair", "times", "secondi", "land"),
                              pattern="left" if A.values is None else None)
        if dtype is None:
            return _general_product("mxv", semiring, A, u, controls)
        rows = _row_array(mask, structure, complement, A.nrows)
        dense, present = u.dense()
        result = np.empty(A.nrows if rows is None else rows.size, dtype)
        found = np.empty(result.size, bool)
        common = (_or_empty(present, bool), present is not None, _or_empty(rows, np.int64), rows is None,
                  products.MONOIDS[monoid])
        if multiply in ("second", "pair"):
            products.pull_second(A.indptr, A.indices, dense, *common, multiply == "pair", result, found)
        else:
            products.pull(A.indptr, A.indices, _or_empty(A.values, bool), A.values is not None, dense, *common,
                          products.MULTIPLIES[multiply], result, found)
        if found.all():  # the mask's own positions (shared: no object changes its indices in place)
            w = Vector(A.nrows, rows, result)
        else:
            w = Vector(A.nrows, np.flatnonzero(found) if rows is None else rows[found], result[found])
        return self._into(w, "mxv", controls, masked=True)

    @ops.accumulating
    def vxm(self, semiring, u, A, *, mask=None, structure=True, complement=False, out=None, accum=None,
            replace=False, transpose=False):
        controls = _controls("vxm", mask, structure, complement, out, accum, replace)
        A = A.transposed() if transpose else A
        if isinstance(semiring, ops.Semiring):  # w = u ⊕.⊗ A: the rows of Aᵀ, u on the left
            return self._into(_user_rows("vxm", semiring, A.transposed(), u, controls, None), "vxm", controls,
                              masked=True)
        monoid, multiply = _split(semiring)
        _check_sizes("vxm", A.nrows, u.size)
        dtype = _kernel_dtype("vxm", semiring, u.dtype, A.dtype, ("first", "second", "pair", "times", "land"),
                              pattern="right" if A.values is None else None)
        if dtype is None:
            pulled = _pulled("vxm", semiring, u, A)
            if pulled is not None:
                return self._into(pulled, "vxm", controls)
            return _general_product("vxm", semiring, u, A, controls)
        result = np.empty(A.ncols, dtype)
        found = np.zeros(A.ncols, bool)
        reached = products.push(A.indptr, A.indices, _or_empty(A.values, bool), A.values is not None,
                                u.positions(), u.values, products.MONOIDS[monoid], products.MULTIPLIES[multiply],
                                result, found)
        w = Vector(A.ncols, None, result) if reached.size == A.ncols else Vector(A.ncols, reached, result[reached])
        return self._into(w, "vxm", controls)

    @ops.accumulating
    def mxm(self, semiring, A, B, *, mask=None, structure=True, complement=False, out=None, accum=None,
            replace=False, transpose_a=False, transpose_b=False):
        if not isinstance(semiring, ops.Semiring):
            _split(semiring)
        controls = _controls("mxm", mask, structure, complement, out, accum, replace)
        A, B = (A.transposed() if transpose_a else A), (B.transposed() if transpose_b else B)
        _check_sizes("mxm", A.ncols, B.nrows)
        if isinstance(semiring, ops.Semiring):
            with compiled.supported("numba", "mxm", semiring, A, B):
                indptr, cols, values = compiled.semiring_product("mxm", semiring, A.indptr, A.indices, _values(A),
                                                                 B.indptr, B.indices, _values(B), B.ncols)
            C = Matrix(A.nrows, B.ncols, indptr, cols, values)
            return verbs.finish("mxm", (C.nrows, C.ncols), *verbs.entries(C), **controls)
        if mask is not None:
            verbs.check_like("mxm", "mask", mask, (A.nrows, B.ncols))
        t_in, t_out = generic.semiring_types("mxm", semiring, A.dtype, B.dtype)  # NotImplementedError first
        plain = out is None and accum is None
        monoid, multiply = _split(semiring)
        if plain and mask is None and monoid in ("min", "max") and multiply == "second" and B.nvals <= B.nrows and \
                B.dtype.kind in "iu" and t_in == t_out == B.dtype:
            # B of about one entry a row (a one-hot matrix: coloring's per-color maxima), whose few
            # columns SuiteSparse's saxpy runs slowly (c-55: 35 ms against 7): Gustavson's rows here
            indptr, cols, values = compiled.semiring_product("mxm", _extreme_second(monoid, B.dtype), A.indptr,
                                                             A.indices, _values(A), B.indptr, B.indices, _values(B),
                                                             B.ncols)
            return Matrix(A.nrows, B.ncols, indptr, cols, values)
        if plain and semiring == "plus_pair" and isinstance(mask, Matrix) and structure and not complement:
            return verbs.masked_pair_product(A, B, mask)  # triangle counting's product, compiled
        # a mask of at most one entry a row (an in-group lookup) by dot products over the
        # mask's rows: SuiteSparse would run saxpy, whose work is the rows' whole products
        dot = plain and isinstance(mask, Matrix) and structure and not complement and mask.nvals <= A.nrows and \
            monoid in _IDEMPOTENT
        C = _graphblas(A).mxm(_graphblas(B), _graphblas_semiring(semiring)).new(
            mask=_graphblas_mask(mask, structure, complement) if plain else None, **({"axb_method": "dot"} if dot else {}))
        indptr, indices, values = _suitesparse().to_csr(C)
        pattern = C.ss.is_iso and C.dtype.name == "BOOL"
        C = self.matrix(indptr, indices, ncols=C.ncols, values=None if pattern else values, copy=False)
        if plain:
            return C
        return verbs.finish("mxm", (C.nrows, C.ncols), *verbs.entries(C), out=out, mask=mask, structure=structure,
                            complement=complement, accum=accum, replace=replace)

    @ops.accumulating
    def transpose(self, A, *, mask=None, structure=True, complement=False, out=None, accum=None, replace=False):
        _controls("transpose", mask, structure, complement, out, accum, replace)
        T = A.transposed()
        if mask is None and out is None and accum is None:
            return Matrix(T.nrows, T.ncols, T.indptr, T.indices, T.values)  # arrays shared, never changed
        return verbs.finish("transpose", (T.nrows, T.ncols), *verbs.entries(T), out=out, mask=mask,
                            structure=structure, complement=complement, accum=accum, replace=replace)

    @ops.accumulating
    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                   replace=False):
        controls = _controls("ewise_mult", mask, structure, complement, out, accum, replace)
        if isinstance(op, ops._Operator):
            return _user_ewise("ewise_mult", op, u, v, controls)
        _check(op, BINARY_OPS)
        if not (isinstance(u, Vector) and isinstance(v, Vector) and u.size == v.size):
            return verbs.ewise("ewise_mult", op, u, v, **controls)
        if _masked_vectors(u, v, controls):
            return _masked_ewise("ewise_mult", op, u, v, controls)
        t_in = generic.binary_types("ewise_mult", op, u.dtype, v.dtype)[0]
        indices, a, b = _intersect(u, v)
        return self._into(Vector(u.size, indices, generic.binary(op, a, b, t_in)), "ewise_mult", controls)

    @ops.accumulating
    def ewise_add(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                  replace=False):
        controls = _controls("ewise_add", mask, structure, complement, out, accum, replace)
        if isinstance(op, ops._Operator):
            return _user_ewise("ewise_add", op, u, v, controls)
        _check(op, BINARY_OPS)
        if _masked_vectors(u, v, controls):
            return _masked_ewise("ewise_add", op, u, v, controls)
        return verbs.ewise("ewise_add", op, u, v, **controls)  # one merge of sorted keys, none for full vectors

    @ops.accumulating
    def apply(self, op, u, *, left=None, right=None, mask=None, structure=True, complement=False, out=None,
              accum=None, replace=False):
        if left is not None and right is not None:
            raise ValueError("apply takes a bound scalar on one side only, got both left and right")
        controls = _controls("apply", mask, structure, complement, out, accum, replace)
        if isinstance(op, ops._Operator):
            return _user_apply(op, u, left, right, controls)
        _check(op, UNARY_OPS if left is None and right is None else BINARY_OPS)
        if not isinstance(u, Vector):
            return verbs.apply(op, u, left, right, **controls)
        if left is None and right is None:
            values = generic.unary(op, u.values)
        elif right is None:
            values = generic.binary(op, left, u.values, generic.binary_types(
                "apply", op, generic.scalar_dtype(left), u.dtype)[0])
        else:
            values = generic.binary(op, u.values, right, generic.binary_types(
                "apply", op, u.dtype, generic.scalar_dtype(right))[0])
        return self._into(Vector(u.size, u.indices, values), "apply", controls)

    @ops.accumulating
    def select(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
               replace=False):
        controls = _controls("select", mask, structure, complement, out, accum, replace)
        if isinstance(op, ops._Operator):
            return _user_index("select", op, u, thunk, controls)
        _check(op, SELECT_OPS)
        if op.startswith("value") and thunk is None:
            raise ValueError(f"select: {op} compares values with thunk=, got None")
        if isinstance(u, Matrix) and op in _POSITION_SELECTS and mask is None and out is None:
            return u.select_position(op, 0 if thunk is None else int(thunk))
        kernel = isinstance(u, Vector) and op.startswith("value") and u.dtype in _KERNEL_DTYPES and \
            generic.unify(u.dtype, generic.scalar_dtype(thunk)) == u.dtype
        if not kernel:
            return verbs.select(op, u, thunk, **controls)
        full = u.indices is None
        positions, values = sets.select(u.values, _EMPTY_INDICES if full else u.indices, not full,
                                        sets.COMPARISONS[op[5:]], u.values.dtype.type(thunk))
        return self._into(Vector(u.size, positions, values), "select", controls)

    def reduce(self, u, monoid):
        if isinstance(monoid, ops._Operator):
            values = verbs.entries(u)[1]
            with compiled.supported("numba", "reduce", monoid, u):
                return None if values.size == 0 else compiled.reduce(_monoid("reduce", monoid), values)
        _check(monoid, MONOIDS)
        return verbs.reduce(u, monoid)

    @ops.accumulating
    def reduce_rows(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        controls = _controls("reduce_rows", mask, structure, complement, out, accum, replace)
        if isinstance(monoid, ops._Operator):
            rows = np.flatnonzero(np.diff(A.indptr) > 0)
            with compiled.supported("numba", "reduce_rows", monoid, A):
                reduced = compiled.reduce_rows(_monoid("reduce_rows", monoid), A.indptr, _values(A), rows)
            return self._into(Vector(A.nrows, rows, reduced), "reduce_rows", controls)
        _check(monoid, MONOIDS)
        values = np.ones(A.indices.size, bool) if A.values is None else A.values
        if monoid not in products.MONOIDS or values.dtype not in _KERNEL_DTYPES or \
                generic.monoid_type("reduce_rows", monoid, values.dtype) != values.dtype or \
                (values.dtype.kind == "f" and monoid in ("min", "max")):  # IEEE fmin/fmax: numpy
            return verbs.reduce_rows(A, monoid, **controls)
        rows = np.flatnonzero(np.diff(A.indptr) > 0)
        reduced = np.empty(rows.size, values.dtype)
        products.segment_reduce(values, A.indptr[rows], A.indptr[rows + 1], products.MONOIDS[monoid], reduced)
        return self._into(Vector(A.nrows, rows, reduced), "reduce_rows", controls)

    @ops.accumulating
    def reduce_cols(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        """``w(j) = ⊕_i A(i, j)``: the rows of Aᵀ reduced."""
        return self.reduce_rows(A.transposed(), monoid, mask=mask, structure=structure, complement=complement,
                                out=out, accum=accum, replace=replace)

    def extract(self, u, indices, cols=None, *, mask=None, structure=True, complement=False, out=None,
                accum=None, replace=False):
        _controls("extract", mask, structure, complement, out, accum, replace)
        indices = np.asarray(indices, dtype=np.int64)
        plain = mask is None and out is None and accum is None
        if not plain or cols is not None:
            return verbs.extract(u, indices, cols, mask=mask, structure=structure, complement=complement, out=out,
                                 accum=accum, replace=replace)
        verbs.check_bounds("extract", indices, u.size if isinstance(u, Vector) else u.nrows)
        if isinstance(u, Matrix):
            return u.rows_at(indices)
        dense, present = u.dense()
        if present is None:
            return Vector(indices.size, None, dense[indices])
        positions = np.flatnonzero(present[indices])
        return Vector(indices.size, positions, dense[indices[positions]])

    def assign(self, w, value, *, mask, structure=True, complement=False, accum=None, replace=False):
        _controls("assign", mask, structure, complement, w, accum, replace)
        scalar = not isinstance(value, (Vector, Matrix))
        if scalar:
            value = generic.cast(np.asarray(value, generic.scalar_dtype(value)), w.dtype)[()] if accum is None \
                else value
        if isinstance(w, Matrix) or w.indices is not None or accum is not None or replace or \
                (not scalar and value.dtype != w.dtype):  # a sparse w: one merge of sorted keys (verbs.py)
            controls = dict(mask=mask, structure=structure, complement=complement, accum=accum, replace=replace)
            if scalar:
                return verbs.assign_scalar(w, value, **controls)
            return verbs.finish("assign", verbs.shape(w), *verbs.entries(value), out=w, **controls)
        rows = _row_array(mask, structure, complement, w.size)
        if w.indices is None:  # a full w stays full where value covers the rows: write in place
            target = slice(None) if rows is None else rows
            if scalar:
                w.values[target] = value
                return w
            if value.indices is None:
                w.values[target] = value.values[target]
                return w
            if rows is not None and (value.indices is rows or np.array_equal(value.indices, rows)):
                if value.size == w.size and w.dtype in _KERNEL_DTYPES and w.values.flags.writeable:  # inside w
                    sets.scatter(w.values, rows, value.values)
                else:
                    w.values[rows] = value.values
                return w
        if scalar:
            value = Vector(w.size, rows, np.full(w.size if rows is None else rows.size, value, w.dtype))
        return _merge(w, value.restrict(rows), rows)

    @ops.accumulating
    def apply_index(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None,
                    accum=None, replace=False):
        controls = _controls("apply_index", mask, structure, complement, out, accum, replace)
        if isinstance(op, ops._Operator):
            return _user_index("apply_index", op, u, thunk, controls)
        if isinstance(op, str):
            _check(op, INDEX_UNARY_OPS)
            if isinstance(u, Vector) and op in ("rowindex", "colindex"):  # w(i) = i + thunk, or thunk
                t = generic.unify(u.dtype, generic.scalar_dtype(False if thunk is None else thunk))
                t = np.dtype(np.int32 if t == np.int32 else np.int64)
                shift = generic.cast(0 if thunk is None else thunk, t)
                with np.errstate(all="ignore"):
                    values = u.positions().astype(t) + shift if op == "rowindex" else np.full(u.nvals, shift, t)
                return self._into(Vector(u.size, u.indices, values), "apply_index", controls)
            return verbs.apply_index(op, u, thunk, **controls)
        compiled = getattr(op, "numba", None)  # an index-unary op with a kernel of its own
        ids = u.positions()
        w = self.vector(ids, op(ids, thunk), u.size, copy=False) if compiled is None else \
            Vector(u.size, ids, compiled(ids, thunk))
        return self._into(w, "apply_index", controls)

    # ---- building and reading objects ---------------------------------------------------

    def build(self, indices, values, size, *, dup=None):
        if dup is not None:
            _check(dup, BINARY_OPS)
        indices = np.asarray(indices, np.int64)
        values = _build_values(values, indices.size)
        keys, values = verbs.build("build", indices, values, int(size), dup)
        return Vector(size, None if keys.size == size else keys, values)

    def build_matrix(self, rows, cols, values, nrows, ncols, *, dup=None):
        if dup is not None:
            _check(dup, BINARY_OPS)
        rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
        if rows.size != cols.size:
            raise ValueError(f"build_matrix: {rows.size} rows and {cols.size} columns given")
        verbs.check_bounds("build_matrix", rows, nrows)
        verbs.check_bounds("build_matrix", cols, ncols)
        values = _build_values(values, rows.size)
        keys, values = verbs.build("build_matrix", rows * ncols + cols, values, int(nrows) * int(ncols), dup)
        return verbs.rebuild((int(nrows), int(ncols)), keys, values)

    def extract_tuples(self, x):
        if isinstance(x, Vector):
            return x.positions().copy(), x.values.copy()
        values = np.ones(x.nvals, bool) if x.values is None else x.values.copy()
        return x.rows(), x.indices.astype(np.int64), values

    def _into(self, w, verb, controls, masked=False):
        """A vector computed under its mask, given its output controls: itself, or written
        into ``out`` (``out<mask> = w`` in place: :meth:`assign`'s fast paths; with accumulate
        or replace, :func:`verbs.finish`)."""
        out, accum, replace = controls["out"], controls["accum"], controls["replace"]
        mask, structure, complement = controls["mask"], controls["structure"], controls["complement"]
        if out is None and accum is None:
            return w if masked else _masked(w, mask, structure, complement)
        if accum in _IN_PLACE and mask is None and not replace and isinstance(out, Vector) and \
                out.indices is None and w.indices is None and out.dtype == w.dtype and out.dtype.kind in "iuf":
            _IN_PLACE[accum](out.values, w.values, out=out.values)  # out = out accum w, in place (PageRank's r += ...)
            return out
        if accum is not None or replace or not isinstance(out, Vector) or out.dtype != w.dtype:
            return verbs.finish(verb, (w.size,), *verbs.entries(w), **controls)
        return self.assign(out, w, mask=mask, structure=structure, complement=complement)

    def fused(self, algorithm):
        return {"coarse_by_sort": self._coarse_by_sort, "capped_hec": self._capped_hec}.get(algorithm)

    def _capped_hec(self, graph, keys, alike, weights, cap, passes):
        """``heavy.hec`` (``cap`` None) or ``heavy.capped_hec`` as one compiled loop
        (``kernels/heavy.py``): the same (labels, count, rounds), bit for bit, without a call
        from Python per round, which was most of the time of a small level."""
        w = np.empty(0) if alike else graph.weights
        capped = cap is not None
        vw = weights if capped else np.empty(0, np.int64)
        labels, count, rounds = heavy.capped_hec(graph.indptr, graph.indices, w, alike, keys, vw,
                                                 float(cap) if capped else 0.0, capped, passes)
        return labels, int(count), int(rounds)

    def _coarse_by_sort(self, graph, labels, k, low_degree_end):
        """Gilbert et al.'s construction with sort-based deduplication as numba kernels
        (``kernels/coarse.py``): the CSR arrays of :func:`gbgraph.coarse_graph`'s ``"sort"``
        method, bit for bit, two-sided or (``low_degree_end``) one-sided; None for weights
        that are not float64, which the kernels do not sum."""
        if graph.weights is not None and graph.weights.dtype != np.float64:
            return None
        return coarse.coarse_by_sort(graph.indptr, graph.indices, labels, k, graph.weights, low_degree_end)


#: Accumulators a full ``out`` takes from a full result of its dtype in one pass, as
#: :func:`verbs.finish` would write them (GraphBLAS' ``z = out ⊙ t``, integers wrapping).
_IN_PLACE = {"plus": np.add, "minus": np.subtract, "times": np.multiply}


def _suitesparse():
    from .. import backend

    return backend("suitesparse")


def _graphblas(M):
    """The python-graphblas copy of a :class:`Matrix`, made once (matrices are not changed
    in place)."""
    if M._graphblas is None:  # SuiteSparse takes over the fresh copies instead of copying them again
        M._graphblas = _suitesparse().matrix(
            M.indptr.astype(np.uint64), M.indices.astype(np.uint64), ncols=M.ncols,
            values=None if M.values is None else M.values.copy(), copy=False)
    return M._graphblas


def _or_empty(x, dtype):
    """``x``, or an empty array standing for an absent one (kernels take arrays only)."""
    return np.empty(0, dtype) if x is None else x


def _array(x, dtype, copy):
    return np.array(x, dtype=dtype, copy=True) if copy else np.asarray(x, dtype=dtype)


def _larger(x, y):
    return max(x, y)


def _smaller(x, y):
    return min(x, y)


@functools.lru_cache(maxsize=None)
def _extreme_second(monoid, dtype):
    """``min_second``/``max_second`` on integers of ``dtype`` as a Semiring of a Monoid, for
    the compiled Gustavson product (the named semiring's values and dtype)."""
    info = np.iinfo(dtype)
    if monoid == "max":
        return ops.Semiring(ops.Monoid(_larger, dtype.type(info.min), name="max"), "second")
    return ops.Semiring(ops.Monoid(_smaller, dtype.type(info.max), name="min"), "second")


#: Monoids whose result does not depend on the order of the terms (a dot product's or saxpy's).
_IDEMPOTENT = ("min", "max", "lor", "land", "bor", "band")


def _split(semiring):
    _check(semiring, SEMIRINGS)
    monoid, multiply = semiring.split("_")
    return monoid, multiply


def _check(name, known):
    if name not in known:
        raise ValueError(f"unknown operator {name!r}; the protocol has {', '.join(known)}")


def _kernel_dtype(verb, semiring, left, right, multiplies, *, pattern=None):
    """The result dtype when a compiled product kernel computes ``semiring`` exactly on
    operands of dtypes ``left`` and ``right``, else None (the general form in verbs.py then
    runs it); NotImplementedError where python-graphblas has no typed semiring.

    The kernels cast each operand they read to the result type and reduce in it, which is
    python-graphblas' typing wherever that type is the multiply's input type too; their
    ``min`` and ``max`` are not IEEE's fmin and fmax on NaN, so floating-point ones go to
    numpy. They serve the dtypes the algorithms use; an operand whose values they read must
    have the result's dtype (or be the ``pattern`` side, a pattern matrix read as ones), so
    that each dtype compiles one kernel, not one per pair of dtypes.
    """
    monoid, multiply = semiring.split("_", 1)
    t_in, t_out = generic.semiring_types(verb, semiring, left, right)
    if monoid not in products.MONOIDS or multiply not in multiplies or t_out not in _KERNEL_DTYPES:
        return None
    if left not in _KERNEL_DTYPES or right not in _KERNEL_DTYPES:
        return None
    if (t_in != t_out and multiply != "land") or (t_out == bool and "times" in (monoid, multiply)) or \
            (t_out.kind == "f" and monoid in ("min", "max")):
        return None
    reads_left, reads_right = multiply in ("first", "times", "land"), multiply in ("second", "times", "land")
    if (reads_left and pattern != "left" and left != t_out) or (reads_right and pattern != "right" and right != t_out):
        return None
    return t_out


def _controls(verb, mask, structure, complement, out, accum, replace):
    """The output controls of a verb, checked: accumulate is an operator and needs ``out``."""
    if accum is not None:
        _check(accum, BINARY_OPS)
    check_accum(verb, out, accum)
    return dict(mask=mask, structure=structure, complement=complement, out=out, accum=accum, replace=replace)


def _check_sizes(verb, expected, got):
    if expected != got:
        raise ValueError(f"{verb}: the operands' inner dimensions differ: {expected} and {got}")


@functools.cache
def _graphblas_semiring(name):
    """python-graphblas' semiring of a protocol name; one it has no name for (``bor_second``,
    ``min_band``, ...) is built from its monoid and multiply, as an anonymous semiring."""
    import graphblas as gb

    monoid, multiply = name.split("_", 1)
    if multiply in ("firsti", "firstj", "secondi", "secondj"):
        return getattr(gb.semiring.ss, name)
    multiply = "cdiv" if multiply == "div" else multiply  # GrB_DIV
    named = getattr(gb.semiring, f"{monoid}_{multiply}", None)
    if named is not None:
        return named
    return gb.core.operator.Semiring.register_anonymous(getattr(gb.monoid, monoid), getattr(gb.binary, multiply),
                                                        name=name)


def _graphblas_mask(mask, structure, complement):
    if mask is None:
        return None
    m = _graphblas(mask)
    m = m.S if structure else m.V
    return ~m if complement else m


def _build_values(values, n):
    """The values of a build: an array of ``n``, or a scalar for all (its python-graphblas dtype)."""
    if np.ndim(values) == 0:
        return np.full(n, values, generic.scalar_dtype(values))
    values = np.asarray(values)
    if values.size != n:
        raise ValueError(f"build: {n} indices and {values.size} values given")
    return values


def _row_array(mask, structure, complement, n):
    """The rows a mask lets through, as sorted int64 ids, or None for every row."""
    if mask is None:
        return None
    rows = mask.indices
    if not structure:
        set_ = mask.values.astype(bool, copy=False)
        rows = np.flatnonzero(set_) if rows is None else rows[set_]
    if not complement:
        return rows
    if rows is None:
        return np.empty(0, np.int64)
    allowed = np.ones(n, bool)
    allowed[rows] = False
    return np.flatnonzero(allowed)


def _masked_vectors(u, v, controls):
    """Whether an element-wise verb on ``u`` and ``v`` is one of vectors under a vector mask
    with no accumulate, whose result replaces ``out`` if there is one: the form
    :func:`_masked_ewise` computes."""
    mask, out = controls["mask"], controls["out"]
    return isinstance(mask, Vector) and isinstance(u, Vector) and isinstance(v, Vector) and \
        mask.size == u.size == v.size and controls["accum"] is None and \
        (out is None or (controls["replace"] and isinstance(out, Vector) and out.size == u.size))


def _masked_ewise(verb, op, u, v, controls):
    """``w<mask> = u ⊕ v`` (or ``out<mask, replace> = u ⊕ v``) with each operand trimmed to
    the mask before the merge: a pass over each operand's entries reading a flag per
    position (k-core's ``deg<¬done, replace> = deg - delta`` on Laplace3D 60³: 0.3 ms a
    round, 2 ms merging first and trimming the result by searching the mask's positions)."""
    mask, structure, complement, out = controls["mask"], controls["structure"], controls["complement"], \
        controls["out"]
    allowed = _allowed(mask, structure)
    w = verbs.ewise(verb, op, _allowed_part(u, allowed, complement), _allowed_part(v, allowed, complement))
    if out is None:
        return w
    values = generic.cast(w.values, out.dtype)
    if values is u.values or values is v.values:  # out must not share an operand's arrays
        values = values.copy()
    out.indices, out.values = w.indices, values
    return out


def _allowed(mask, structure):
    """A flag per position of where the mask holds (by structure or by value), or None
    where it holds at every position."""
    if mask.indices is None:
        return None if structure else mask.values.astype(bool, copy=False)
    allowed = np.full(mask.size, False)
    allowed[mask.indices] = True if structure else mask.values.astype(bool, copy=False)
    return allowed


def _allowed_part(u, allowed, complement):
    """The entries of ``u`` at the positions the mask lets through (``allowed`` complemented
    or not: None, every position)."""
    if allowed is None:
        return Vector(u.size, np.empty(0, np.int64), u.values[:0]) if complement else u
    if u.indices is None:
        rows = np.flatnonzero(allowed != complement)
        return Vector(u.size, None, u.values) if rows.size == u.size else Vector(u.size, rows, u.values[rows])
    return Vector(u.size, *sets.allowed_entries(u.indices, u.values, allowed, complement))


#: A term u(k) ⊗ A(k, j) of ``u ⊕.⊗ A`` as the term Aᵀ(j, k) ⊗' u(k) of ``Aᵀ ⊕.⊗' u``: the
#: multiplies whose operands swap exactly (``secondi`` is the inner index k either way).
_SWAPPED = {"first": "second", "second": "first", "pair": "pair", "plus": "plus", "times": "times",
            "minus": "rminus", "rminus": "minus", "secondi": "secondi"}


def _pulled(verb, semiring, u, A):
    """``w = u ⊕.⊗ A`` pulled over the rows of Aᵀ (made once per matrix) when most of u is
    present, or None. Each w(j) reduces its terms in the order of k, as the push from u's
    entries does, so the two give the same bits; the pull writes each output once where the
    push scatters every term (Bellman-Ford's ``d min.plus A`` on coAuthorsDBLP with d full:
    ~8 ms against ~16 ms)."""
    monoid, multiply = semiring.split("_", 1)
    if 2 * u.nvals < u.size or monoid not in semirings.MONOIDS or multiply not in _SWAPPED:
        return None
    t_in, t = generic.semiring_types(verb, semiring, u.dtype, A.dtype)
    if t_in != t or t not in (np.int64, np.float64) or not (np.can_cast(u.dtype, t) and np.can_cast(A.dtype, t)):
        return None
    T = A.transposed()
    dense, present = u.dense()
    out, found = np.empty(T.nrows, t), np.empty(T.nrows, bool)
    semirings.pull(T.indptr, T.indices, _or_empty(T.values, bool), T.values is not None, dense,
                   _or_empty(present, bool), present is not None, _EMPTY_INDICES, True, semirings.MONOIDS[monoid],
                   semirings.MULTIPLIES[_SWAPPED[multiply]], out, found)
    return Vector(T.nrows, None, out) if found.all() else Vector(T.nrows, np.flatnonzero(found), out[found])


def _general_product(verb, semiring, left, right, controls):
    """A matrix-vector product in verbs.py's general form; a new vector under a vector mask
    is masked here (:func:`_masked`: flags read at the product's entries, where the general
    form lists the mask's positions, a pass over n for BFS's ``q<¬visited>`` each level)."""
    mask, out, accum = controls["mask"], controls["out"], controls["accum"]
    if out is None and accum is None and isinstance(mask, Vector):
        w = verbs.product(verb, semiring, left, right)
        verbs.check_like(verb, "mask", mask, w)
        return _masked(w, mask, controls["structure"], controls["complement"])
    return verbs.product(verb, semiring, left, right, **controls)


def _masked(w, mask, structure, complement):
    if mask is None:
        return w
    if w.indices is not None and (complement or mask.indices is None):
        # a flag per position read at w's entries, not the list of the rows a complemented
        # mask lets through (a pass over n): BFS's push q<¬visited> costs its frontier
        return _allowed_part(w, _allowed(mask, structure), complement)
    return w.restrict(_row_array(mask, structure, complement, w.size))


def _intersect(u, v):
    """(positions, u's values, v's values) where both have entries."""
    if u.indices is None and v.indices is None:
        return None, u.values, v.values
    if v.indices is None:
        return u.indices, u.values, v.values[u.indices]
    if u.indices is None:
        return v.indices, u.values[v.indices], v.values
    at_u, at_v = sets.matches(u.indices, v.indices)
    return u.indices[at_u], u.values[at_u], v.values[at_v]


def _merge(w, value, rows):
    """``w<rows> = value`` in place: positions in ``rows`` (None: all) take value's entry,
    or lose theirs where it has none; returns w."""
    own, own_present = w.dense()
    new, new_present = value.dense()
    own_present = np.ones(w.size, bool) if own_present is None else own_present
    new_present = np.ones(w.size, bool) if new_present is None else new_present
    if rows is None:
        own_present = np.zeros(w.size, bool)
    else:
        own_present = own_present.copy()
        own_present[rows] = False
    present = own_present | new_present
    values = np.where(new_present, new.astype(w.dtype, copy=False), own)
    if present.all():
        w.indices, w.values = None, values
    else:
        w.indices = np.flatnonzero(present)
        w.values = values[w.indices]
    return w


# ---- user-defined operators (gbgraph.backends.operators), compiled by numba/operators.py --

def _values(A):
    """A matrix's values, True for a pattern's."""
    return compiled.pattern_values(A.nvals) if A.values is None else A.values


def _monoid(verb, monoid):
    return _kind(verb, monoid, (ops.Monoid,))


def _no_order(verb, op, order):
    if order is not None:
        raise ValueError(f"{verb}: order= is for a RowOperator, got {op!r}")


def _user_apply(op, u, left, right, controls):
    """``apply`` of a UnaryOp, or a BinaryOp with a bound scalar."""
    keys, values = verbs.entries(u)
    values = compiled.apply_values("numba", op, values, u, left, right)
    return verbs.finish("apply", verbs.shape(u), keys, values, **controls)


def _listed(x):
    """(keys, values) of :func:`verbs.entries` with a full vector's keys listed too."""
    keys, values = verbs.entries(x)
    return (x.positions() if keys is None else keys), values


def _user_ewise(verb, op, u, v, controls):
    """``ewise_add`` (union) or ``ewise_mult`` (intersection) with a BinaryOp or Monoid."""
    _kind(verb, op, (ops.BinaryOp,))
    verbs.check_like(verb, "the second operand", v, u)
    keys_u, a = _listed(u)
    keys_v, b = _listed(v)
    with compiled.supported("numba", verb, op, u, v):
        keys, values = (compiled.ewise_add if verb == "ewise_add" else compiled.ewise_mult)(op, keys_u, a, keys_v, b)
    return verbs.finish(verb, verbs.shape(u), keys, values, **controls)


def _thunk_arrays(verb, op, u, thunk):
    """An IndexUnaryOp's thunk: a scalar, or a tuple of full vectors as arrays (each the
    size of ``u``'s dimension: ``u.size``, or a square matrix's ``nrows``)."""
    if not isinstance(thunk, (tuple, list)):
        if isinstance(thunk, (Vector, Matrix)):
            raise TypeError(f"{verb}: vector thunks of {op!r} are passed as a tuple, got {thunk!r}")
        return thunk
    size = u.size if isinstance(u, Vector) else u.nrows
    if isinstance(u, Matrix) and u.nrows != u.ncols:
        raise ValueError(f"{verb}: vector thunks of {op!r} need a square matrix, got {u.nrows}x{u.ncols}")
    arrays = []
    for k, v in enumerate(thunk):
        if not isinstance(v, Vector) or v.size != size:
            raise ValueError(f"{verb}: thunk {k} of {op!r} must be a vector of size {size}, got {v!r}")
        arrays.append(compiled.dense(verb, op, k, v.size, v.indices, v.values, None, copy=False))
    return tuple(arrays)


def _user_index(verb, op, u, thunk, controls):
    """``apply_index`` or ``select`` with an IndexUnaryOp."""
    _kind(verb, op, (ops.IndexUnaryOp,))
    thunk = _thunk_arrays(verb, op, u, thunk)
    if verb == "select" and isinstance(u, Vector):  # one kernel: the flags and the kept entries
        with compiled.supported("numba", verb, op, u.values, thunk):
            positions, values = compiled.select_vector(op, u.values, u.indices, thunk)
        return verbs.finish(verb, (u.size,), positions, values, **controls)
    keys, values = _listed(u)
    if isinstance(u, Vector):
        rows, cols = keys, np.zeros(keys.size, np.int64)
    else:
        rows, cols = u.rows(), u.indices
    with compiled.supported("numba", verb, op, values, thunk):
        result = compiled.index_unary(op, values, rows, cols, thunk)
    if verb == "select":
        keep = generic.cast(result, bool)
        keys, result = keys[keep], values[keep]
    return verbs.finish(verb, verbs.shape(u), keys, result, **controls)


def _user_rows(verb, op, A, u, controls, order, push=None):
    """``w(i)`` for the rows of A in the mask: a Semiring's product with u, or a
    RowOperator on the vectors ``u`` (ordered by ``order``, pushing with ``push``)."""
    rows = _row_array(controls["mask"], controls["structure"], controls["complement"], A.nrows)
    if isinstance(op, ops.Semiring):
        _no_order(verb, op, order)
        _check_sizes(verb, A.ncols, u.size)
        dense, present = u.dense()
        with compiled.supported("numba", verb, op, A, u):
            values, found = compiled.semiring_rows(verb, op, A.indptr, A.indices, _values(A), dense, present, rows,
                                                   verb == "vxm")
    else:
        vectors = _row_vectors(verb, op, A, u, order is not None)
        if order is not None:
            order = _order(verb, order, A.nrows, rows)
        with compiled.supported("numba", verb, op, A, u):
            values, found = compiled.row_operator(op, A.indptr, A.indices, _values(A), vectors, rows, order, push)
    if found.all():  # the mask's positions, or every row: kept as they are
        return Vector(A.nrows, rows, values)
    return Vector(A.nrows, *sets.flagged(found, _EMPTY_INDICES if rows is None else rows, rows is not None, values))


def _row_vectors(verb, op, A, u, ordered):
    """A RowOperator's vectors as dense arrays with its fills (the first a copy when ordered)."""
    return compiled.row_vectors(verb, op, u, A.nrows, A.ncols, ordered, Vector, lambda k, v, fill, copy: compiled.dense(
        verb, op, k, v.size, v.indices, v.values, fill, copy=copy))


def _order(verb, order, n, rows):
    """``order``'s values at the rows computed, each of which must have one."""
    if not isinstance(order, Vector) or order.size != n:
        raise ValueError(f"{verb}: order must be a vector of size {n}, got {order!r}")
    values, present = order.dense()
    if present is not None and not (present.all() if rows is None else present[rows].all()):
        raise ValueError(f"{verb}: order has no entry at some rows computed ({order.nvals} of {n} entries)")
    return values if rows is None else values[rows]

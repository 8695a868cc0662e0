"""The ``numba`` backend: gbgraph's GraphBLAS protocol on the CPU, in numpy arrays and
gbgraph's own compiled kernels; the default for CPU inputs.

It is the cupy backend's design on the host. Vectors and matrices live in numpy arrays; a
masked ``mxv`` is one parallel kernel over the rows of its mask, reading a 32-bit CSR
(``kernels/products.py``); element-wise operations, selection and assignment are numpy;
the fused verbs (first fit, in-group products, Jones-Plassmann depths) are kernels of their
own. Matrix-matrix products go to SuiteSparse:GraphBLAS, through the suitesparse backend.

Why a second CPU backend: the suitesparse-graphblas 9.x wheel stores 64-bit indices, has no
JIT, and each python-graphblas call on a vector of a million entries costs 2-30 ms on this
project's 2-core machines (select, ewise, apply; numpy takes 0.5 ms), so a round of a dozen
verbs cost more than the products in it. The suitesparse backend stays the GraphBLAS
reference: every verb here returns what it returns, and the tests compare the two.
"""

import numpy as np

from ..base import BINARY_OPS, MONOIDS, SELECT_OPS, SEMIRINGS, UNARY_OPS, Backend
from .containers import Matrix, Vector
from .kernels import aggregation, coarse, coloring, products, sets

__all__ = ["NumbaBackend", "Matrix", "Vector"]

_EMPTY_INDICES = np.empty(0, np.int64)  # the indices a full vector passes to kernels
_COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
                "ge": np.greater_equal}
_ARITHMETIC = {"min": np.minimum, "max": np.maximum, "plus": np.add, "minus": np.subtract, "times": np.multiply,
               "land": np.logical_and, "lor": np.logical_or, "band": np.bitwise_and, "bor": np.bitwise_or,
               "bxor": np.bitwise_xor}
_REDUCTIONS = {"min": np.min, "max": np.max, "plus": np.sum, "times": np.prod, "land": np.all, "lor": np.any,
               "band": np.bitwise_and.reduce, "bor": np.bitwise_or.reduce}
_SWAPPED = {"lt": "gt", "gt": "lt", "le": "ge", "ge": "le"}


class NumbaBackend(Backend):
    """GraphBLAS verbs on :class:`Matrix` and :class:`Vector` objects in host memory."""

    name = "numba"
    xp = np
    index_dtype = np.int64

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

    def mxv(self, semiring, A, u, *, mask=None, structure=True, complement=False, out=None):
        monoid, multiply = _split(semiring)
        rows = _row_array(mask, structure, complement, A.nrows)
        dense, present = u.dense()
        result = np.empty(A.nrows if rows is None else rows.size, _product_dtype(multiply, A, u.dtype))
        found = np.empty(result.size, bool)
        common = (_or_empty(present, bool), present is not None, _or_empty(rows, np.int64), rows is None,
                  products.MONOIDS[monoid])
        if multiply in ("second", "pair"):
            products.pull_second(A.indptr, A.indices, dense, *common, multiply == "pair", result, found)
        else:
            products.pull(A.indptr, A.indices, _or_empty(A.values, bool), A.values is not None, dense, *common,
                          products.MULTIPLIES[multiply], result, found)
        positions = np.arange(A.nrows, dtype=np.int64) if rows is None else rows
        w = Vector(A.nrows, None, result) if rows is None and found.all() else \
            Vector(A.nrows, positions[found], result[found])
        return w if out is None else self.assign(out, w, mask=mask, structure=structure, complement=complement)

    def vxm(self, semiring, u, A, *, mask=None, structure=True, complement=False):
        monoid, multiply = _split(semiring)
        if multiply == "secondi":
            raise NotImplementedError("the numba backend has no vxm with a positional multiply")
        dtype = _product_dtype({"first": "second", "second": "first"}.get(multiply, multiply), A, u.dtype)
        result = np.empty(A.ncols, dtype)
        found = np.zeros(A.ncols, bool)
        reached = products.push(A.indptr, A.indices, _or_empty(A.values, bool), A.values is not None,
                                u.positions(), u.values, products.MONOIDS[monoid], products.MULTIPLIES[multiply],
                                result, found)
        return _masked(Vector(A.ncols, reached, result[reached]), mask, structure, complement)

    def mxm(self, semiring, A, B, *, mask=None, structure=True, complement=False):
        ss = _suitesparse()
        C = ss.mxm(semiring, _graphblas(A), _graphblas(B), mask=None if mask is None else _graphblas(mask),
                   structure=structure, complement=complement)
        indptr, indices, values = ss.to_csr(C)
        pattern = C.ss.is_iso and C.dtype.name == "BOOL"
        return self.matrix(indptr, indices, ncols=C.ncols, values=None if pattern else values, copy=False)

    def transpose(self, A):
        return A.transposed()

    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False):
        _check(op, BINARY_OPS)
        indices, a, b = _intersect(u, v)
        return _masked(Vector(u.size, indices, _binary(op, a, b)), mask, structure, complement)

    def ewise_add(self, op, u, v, *, mask=None, structure=True, complement=False):
        _check(op, BINARY_OPS)
        a, pa = u.dense()
        b, pb = v.dense()
        present_a = np.ones(u.size, bool) if pa is None else pa
        present_b = np.ones(u.size, bool) if pb is None else pb
        either = present_a | present_b
        indices = None if either.all() else np.flatnonzero(either)
        pick = slice(None) if indices is None else indices
        a, b, in_a, in_b = a[pick], b[pick], present_a[pick], present_b[pick]
        values = np.where(in_a & in_b, _binary(op, a, b), np.where(in_a, a, b).astype(_binary_dtype(op, a, b)))
        return _masked(Vector(u.size, indices, values), mask, structure, complement)

    def apply(self, op, u, *, left=None, right=None, mask=None, structure=True, complement=False):
        if left is None and right is None:
            _check(op, UNARY_OPS)
            values = _unary(op, u.values)
        else:
            _check(op, BINARY_OPS)
            values = _binary(op, np.asarray(left, u.dtype), u.values) if right is None \
                else _binary(op, u.values, np.asarray(right, u.dtype))
        return _masked(Vector(u.size, u.indices, values), mask, structure, complement)

    def select(self, op, u, thunk=None, *, mask=None, structure=True, complement=False):
        _check(op, SELECT_OPS)
        if isinstance(u, Matrix):
            if mask is not None:
                raise NotImplementedError("the numba backend takes no mask on matrix select")
            return u.select_position(op, 0 if thunk is None else int(thunk))
        full = u.indices is None
        positions, values = sets.select(u.values, _EMPTY_INDICES if full else u.indices, not full,
                                        sets.COMPARISONS[op[5:]], u.values.dtype.type(thunk))
        return _masked(Vector(u.size, positions, values), mask, structure, complement)

    def reduce(self, u, monoid):
        _check(monoid, MONOIDS)
        if u.nvals == 0:
            return None
        if monoid == "any":
            return u.values[0]
        return np.asarray(_REDUCTIONS[monoid](u.values)).astype(u.dtype)[()]

    def reduce_rows(self, A, monoid):
        _check(monoid, MONOIDS)
        values = np.ones(A.indices.size, bool) if A.values is None else A.values
        rows = np.flatnonzero(np.diff(A.indptr) > 0)
        out = np.empty(rows.size, values.dtype)
        products.segment_reduce(values, A.indptr[rows], A.indptr[rows + 1], products.MONOIDS[monoid], out)
        return Vector(A.nrows, rows, out)

    def extract(self, u, indices):
        indices = np.asarray(indices, dtype=np.int64)
        if isinstance(u, Matrix):
            return u.rows_at(indices)
        dense, present = u.dense()
        if present is None:
            return Vector(indices.size, None, dense[indices])
        positions = np.flatnonzero(present[indices])
        return Vector(indices.size, positions, dense[indices[positions]])

    def assign(self, w, value, *, mask, structure=True, complement=False):
        rows = _row_array(mask, structure, complement, w.size)
        if w.indices is None:  # a full w stays full where value covers the rows: write in place
            target = slice(None) if rows is None else rows
            if not isinstance(value, Vector):
                w.values[target] = value
                return w
            if value.indices is None:
                w.values[target] = value.values[target]
                return w
            if rows is not None and (value.indices is rows or np.array_equal(value.indices, rows)):
                w.values[rows] = value.values
                return w
        if not isinstance(value, Vector):
            value = Vector(w.size, rows, np.full(w.size if rows is None else rows.size, value, w.dtype))
        return _merge(w, value.restrict(rows), rows)

    def apply_index(self, op, u, thunk=None):
        compiled = getattr(op, "numba", None)  # an index-unary op with a kernel of its own
        if compiled is None:
            return super().apply_index(op, u, thunk)
        ids = u.positions()
        return Vector(u.size, ids, compiled(ids, thunk))

    # ---- fused verbs: kernels of their own (GraphBLAS forms in base.py) ------------------

    def first_fit(self, A, colors, *, mask, hops=1, priority=None):
        rows = mask.positions()
        dense = colors.dense(-1)[0].astype(np.int64, copy=False)
        if priority is None:
            chosen = coloring.first_fit_rows(A.indptr, A.indices, dense, rows, hops)
        else:
            by = coloring.by_decreasing(priority.dense()[0][rows])
            chosen = np.empty(rows.size, np.int64)
            chosen[by] = coloring.first_fit_in_order(A.indptr, A.indices, dense, rows[by], hops)
        return Vector(colors.size, rows, chosen)

    def chain_depth(self, A, priority, *, hops=1):
        rows = priority.positions()
        by = coloring.by_decreasing(priority.dense()[0][rows])
        depth = np.empty(rows.size, np.int64)
        depth[by] = coloring.chain_depth_in_order(A.indptr, A.indices, rows[by], hops)
        return Vector(priority.size, rows, depth)

    def mxv_grouped(self, semiring, A, u, groups, *, mask=None, hops=1):
        monoid, multiply = _split(semiring)
        integral = u.dtype.kind in "biu" or multiply == "pair"
        if monoid not in ("max", "plus") or multiply not in ("second", "pair") or not integral:
            return super().mxv_grouped(semiring, A, u, groups, mask=mask, hops=hops)
        values, present = u.dense()
        if multiply == "pair":
            values = np.ones(u.size, np.int64)
        present = np.ones(u.size, bool) if present is None else present
        rows = (groups if mask is None else mask).positions()
        out, found = coloring.grouped_reduce(A.indptr, A.indices, values, present, groups.dense()[0], rows, hops,
                                             monoid == "max")
        return Vector(u.size, rows[found], out[found])

    def coarse_by_sort(self, graph, labels, k, *, low_degree_end=False):
        """Gilbert et al.'s construction with sort-based deduplication as numba kernels
        (``kernels/coarse.py``): the CSR arrays of :func:`gbgraph.coarse_graph`'s ``"sort"``
        method, bit for bit, two-sided or (``low_degree_end``) one-sided; None for weights
        that are not float64, which the kernels do not sum, or a graph of 2³² entries."""
        if graph.weights is not None and graph.weights.dtype != np.float64:
            return None
        return coarse.coarse_by_sort(graph.indptr, graph.indices, labels, k, graph.weights, low_degree_end)

    def better_group(self, A, labels, rooted, sizes, *, mask, limit=None):
        rows = mask.positions()
        is_root = np.zeros(labels.size, bool)
        is_root[rooted.positions()] = True
        group = aggregation.better_group_rows(A.indptr, A.indices, labels.dense(-1)[0], is_root, sizes.dense()[0],
                                              rows, 0 if limit is None else limit)
        found = group >= 0
        return Vector(labels.size, rows[found], group[found])

    # ---- fused verb of the parallel refinement: kernels/partition.py (form in partition_forms.py)

    def mxv_ranked(self, A, u, rank, keys, *, mask):
        from .kernels import partition

        rows = mask.positions()
        weighted = A.values is not None
        out = partition.ranked_rows(A.indptr, A.indices, A.values if weighted else np.empty(0, np.int64), weighted,
                                    u.dense()[0].astype(np.float64, copy=False), rank.dense()[0],
                                    keys.dense()[0].astype(np.uint64, copy=False), rows)
        return Vector(u.size, None if mask.indices is None else rows.copy(), out)

    # ---- fused verbs of the coarse mappings: kernels/mapping.py (GraphBLAS forms in forms.py;
    # pair_groups, a sort, is the inherited form)

    def heavy_neighbor(self, A, keys, *, mask=None):
        from .kernels import mapping

        rows = _row_array(mask, True, False, A.nrows)
        dense, present = keys.dense()
        weighted = A.values is not None
        out, found = mapping.heavy_rows(A.indptr, A.indices, A.values if weighted else np.empty(0, np.int64), weighted,
                                        dense.astype(np.uint64, copy=False), _or_empty(present, bool),
                                        present is not None, _or_empty(rows, np.int64), rows is None)
        positions = np.arange(A.nrows, dtype=np.int64) if rows is None else rows
        return Vector(A.nrows, positions[found], out[found])

    def reduce_to(self, targets, u, monoid, *, size=None):
        from .kernels import mapping

        _check(monoid, tuple(mapping.MONOIDS))
        size = targets.size if size is None else size
        at = targets.values if targets.indices is None else targets.dense()[0]
        out, found = mapping.reduce_to(at[u.positions()].astype(np.int64, copy=False), u.values, size,
                                       mapping.MONOIDS[monoid])
        return Vector(size, np.flatnonzero(found), out[found])

    def unclaimed(self, H, keys, pending):
        from .kernels import mapping

        free, rounds = mapping.unclaimed(H.dense()[0].astype(np.int64, copy=False),
                                         keys.dense()[0].astype(np.uint64, copy=False), pending.positions())
        return Vector(H.size, np.flatnonzero(free), np.ones(int(free.sum()), bool)), rounds

    def roots(self, parent):
        from .kernels import mapping

        return Vector(parent.size, None, mapping.roots(parent.dense()[0].astype(np.int64, copy=False)))


def _suitesparse():
    from .. import backend

    return backend("suitesparse")


def _graphblas(M):
    """The python-graphblas copy of a :class:`Matrix`, made once (matrices are not changed
    in place)."""
    if M._graphblas is None:
        M._graphblas = _suitesparse().matrix(
            M.indptr.astype(np.uint64), M.indices.astype(np.uint64), ncols=M.ncols,
            values=M.values)
    return M._graphblas


def _or_empty(x, dtype):
    """``x``, or an empty array standing for an absent one (kernels take arrays only)."""
    return np.empty(0, dtype) if x is None else x


def _array(x, dtype, copy):
    return np.array(x, dtype=dtype, copy=True) if copy else np.asarray(x, dtype=dtype)


def _split(semiring):
    _check(semiring, SEMIRINGS)
    monoid, multiply = semiring.split("_")
    return monoid, multiply


def _check(name, known):
    if name not in known:
        raise ValueError(f"unknown operator {name!r}; the protocol has {', '.join(known)}")


def _product_dtype(multiply, A, u_dtype):
    """python-graphblas' typing of ``A ⊕.⊗ u``: second and first take their operand's
    type, pair and the positional secondi give int64, times and land unify."""
    if multiply == "second":
        return np.dtype(u_dtype)
    if multiply == "first":
        return A.dtype
    if multiply in ("pair", "secondi"):
        return np.dtype(np.int64)
    if multiply == "land":
        return np.dtype(bool)
    return np.result_type(A.dtype, u_dtype)


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


def _masked(w, mask, structure, complement):
    if mask is None:
        return w
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
    shape = np.broadcast(a, b).shape
    if op == "first":
        return np.broadcast_to(a, shape).copy()
    if op == "second":
        return np.broadcast_to(b, shape).copy()
    if op == "pair":
        return np.ones(shape, np.int64)
    if op == "rminus":
        return np.subtract(b, a)
    if op == "div":
        return _divide(a, b)
    return _ARITHMETIC[op](a, b).astype(np.result_type(a.dtype, b.dtype), copy=False)


def _divide(a, b):
    """GraphBLAS division: integers truncate toward zero, and x / 0 is 0 for x = 0, else
    the extreme of the sign of x (SuiteSparse's rule), never a trap."""
    dtype = np.result_type(a.dtype, b.dtype)
    if dtype.kind == "f":
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.true_divide(a, b)
    a, b = (x.astype(dtype) for x in np.broadcast_arrays(a, b))
    safe = np.where(b == 0, 1, b)
    quotient = a // safe
    quotient += ((a % safe != 0) & ((a < 0) != (safe < 0))).astype(dtype)  # floor to truncation
    info = np.iinfo(dtype)
    by_zero = np.where(a > 0, info.max, np.where(a < 0, info.min, 0)).astype(dtype)
    return np.where(b == 0, by_zero, quotient)


def _unary(op, x):
    if op == "identity":
        return x.copy()
    if op == "ainv":
        return np.negative(x)
    if op == "abs":
        return np.abs(x)
    if op == "one":
        return np.ones_like(x)
    return np.logical_not(x).astype(x.dtype)

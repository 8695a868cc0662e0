"""The numba backend's verbs in their general form: any protocol operator and dtype, vectors
and matrices, and GraphBLAS's output controls (mask, accumulate, replace).

The backend (``__init__.py``) runs the forms its algorithms use through compiled kernels and
comes here for the rest. A matrix is handled through the sorted keys ``i * ncols + j`` of its
entries (:func:`entries`), so one set of functions serves both kinds of object; products are
expanded into one term per pair of entries, sorted by output position (stably, so that each
output reduces its terms in the order of the inner index, as SuiteSparse's dot products and
saxpy loops do) and reduced by segment.
"""

import numpy as np

from . import generic
from .containers import Matrix, Vector
from .kernels import products
from .kernels.sets import matches

__all__ = ["shape", "entries", "rebuild", "check_like", "check_bounds", "positions_kept", "finish", "ewise", "apply",
           "select", "apply_index", "reduce", "reduce_rows", "product", "extract", "assign_scalar", "build"]

_SELECT_VALUES = {"valueeq": "eq", "valuene": "ne", "valuelt": "lt", "valuele": "le", "valuegt": "gt",
                  "valuege": "ge"}


def shape(x):
    return (x.size,) if isinstance(x, Vector) else (x.nrows, x.ncols)


def entries(x):
    """(sorted int64 keys, values) of a vector's entries, or of a matrix's (key ``i * ncols + j``)."""
    if isinstance(x, Vector):
        return x.positions(), x.values
    values = np.ones(x.nvals, bool) if x.values is None else x.values
    return x.rows() * x.ncols + x.indices, values


def rebuild(like, keys, values):
    """A new object of ``like``'s kind and shape holding the entries (sorted ``keys``, ``values``)."""
    like = like if isinstance(like, tuple) else shape(like)
    if len(like) == 1:
        return Vector(like[0], None if keys.size == like[0] else keys, values)
    nrows, ncols = like
    rows, cols = np.divmod(keys, max(ncols, 1))
    indptr = np.zeros(nrows + 1, np.int64)
    np.cumsum(np.bincount(rows, minlength=nrows), out=indptr[1:])
    return Matrix(nrows, ncols, indptr, cols.astype(np.int32 if ncols < 2**31 else np.int64), values)


def check_like(verb, name, x, like):
    like = like if isinstance(like, tuple) else shape(like)
    if shape(x) != like:
        raise ValueError(f"{verb}: {name} has shape {shape(x)}, expected {like}")


def positions_kept(keys, mask, structure, complement):
    """Which of the sorted ``keys`` the mask lets through (None: no mask)."""
    if mask is None:
        return None
    mask_keys, mask_values = entries(mask)
    if not structure:
        mask_keys = mask_keys[generic.cast(mask_values, bool)]
    inside = np.zeros(keys.size, bool)
    inside[matches(keys, mask_keys)[0]] = True
    return ~inside if complement else inside


def finish(verb, like, keys, values, *, out=None, mask=None, structure=True, complement=False, accum=None,
           replace=False):
    """The result ``T`` (entries ``keys``, ``values`` of shape ``like``) under the output
    controls: a new object ``T<mask>``, or ``out<mask, replace> accum= T`` written in place.

    GraphBLAS: ``Z = out ⊙accum T`` (or ``T``); inside the mask ``out`` takes Z's entries
    (losing those Z lacks), outside it keeps its own unless ``replace``. ``accum`` runs in
    ``out``'s dtype, as python-graphblas types it, and Z is cast to that dtype.
    """
    if mask is not None:
        check_like(verb, "mask", mask, like)
    if out is None:
        if accum is not None:
            raise ValueError(f"{verb}: accum={accum!r} needs out=")
        kept = positions_kept(keys, mask, structure, complement)
        return rebuild(like, keys, values) if kept is None else rebuild(like, keys[kept], values[kept])
    check_like(verb, "out", out, like)
    kept = positions_kept(keys, mask, structure, complement)
    if kept is not None:
        keys, values = keys[kept], values[kept]
    own_keys, own_values = entries(out)
    inside = positions_kept(own_keys, mask, structure, complement)
    inside = np.ones(own_keys.size, bool) if inside is None else inside
    dtype = out.dtype
    if accum is None:
        z_keys, z_values = keys, generic.cast(values, dtype)
    else:
        z_keys, z_values = _union(verb, accum, own_keys[inside], own_values[inside], keys, values, dtype)
        z_values = generic.cast(z_values, dtype)
    if not replace and not inside.all():
        z_keys = np.concatenate([z_keys, own_keys[~inside]])
        z_values = np.concatenate([z_values, own_values[~inside]])
        order = np.argsort(z_keys, kind="stable")
        z_keys, z_values = z_keys[order], z_values[order]
    return _write(out, z_keys, z_values)


def _write(out, keys, values):
    """Replace ``out``'s entries in place (a matrix forgets what it cached)."""
    new = rebuild(out, keys, values)
    if isinstance(out, Vector):
        out.indices, out.values = new.indices, new.values
    else:
        out.indptr, out.indices, out.values = new.indptr, new.indices, new.values
        out._transposed = out._graphblas = None
    return out


def _union(verb, op, keys_a, a, keys_b, b, accum_dtype=None):
    """The entries of ``a ∪ b`` with ``op`` where both have one: an element-wise add, or an
    accumulate in ``accum_dtype`` (both operands cast to it, python-graphblas' typing of accum)."""
    if accum_dtype is None:
        t_in, t_out = generic.binary_types(verb, op, a.dtype, b.dtype)
    else:
        t_in = np.dtype(accum_dtype)
        t_out = generic.binary_types(verb, op, t_in, t_in)[1]
        if op == "pair":  # pair typed by one dtype is pair in that dtype
            t_in = t_out = np.dtype(accum_dtype)
    at_a, at_b = matches(keys_a, keys_b)
    keys = np.union1d(keys_a, keys_b)
    values = np.empty(keys.size, t_out)
    where_a, where_b = np.searchsorted(keys, keys_a), np.searchsorted(keys, keys_b)
    values[where_a] = generic.cast(a, t_out)
    values[where_b] = generic.cast(b, t_out)
    values[where_a[at_a]] = generic.binary(op, a[at_a], b[at_b], t_in)
    return keys, values


def ewise(verb, op, x, y, **controls):
    """``ewise_add`` (union) or ``ewise_mult`` (intersection) of two vectors or two matrices."""
    check_like(verb, "the second operand", y, x)
    keys_x, x_values = entries(x)
    keys_y, y_values = entries(y)
    if verb == "ewise_add":
        keys, values = _union(verb, op, keys_x, x_values, keys_y, y_values)
    else:
        t_in = generic.binary_types(verb, op, x.dtype, y.dtype)[0]
        at_x, at_y = matches(keys_x, keys_y)
        keys, values = keys_x[at_x], generic.binary(op, x_values[at_x], y_values[at_y], t_in)
    return finish(verb, shape(x), keys, values, **controls)


def apply(op, x, left, right, **controls):
    """Unary ``op(x)``, or binary ``op(left, x)`` / ``op(x, right)`` with a bound scalar."""
    keys, values = entries(x)
    if left is None and right is None:
        result = generic.unary(op, values)
    elif right is None:
        t_in = generic.binary_types("apply", op, generic.scalar_dtype(left), x.dtype)[0]
        result = generic.binary(op, left, values, t_in)
    else:
        t_in = generic.binary_types("apply", op, x.dtype, generic.scalar_dtype(right))[0]
        result = generic.binary(op, values, right, t_in)
    return finish("apply", shape(x), keys, result, **controls)


def _ij(x, keys):
    """Row and column of each entry: (i, 0) for a vector, a column vector."""
    if isinstance(x, Vector):
        return keys, np.zeros(keys.size, np.int64)
    return np.divmod(keys, max(x.ncols, 1))


def select(op, x, thunk, **controls):
    """The entries of ``x`` where the select operator holds."""
    keys, values = entries(x)
    if op in _SELECT_VALUES:
        t = generic.unify(x.dtype, generic.scalar_dtype(thunk))
        keep = generic.binary(_SELECT_VALUES[op], values, thunk, t)
    else:
        k = 0 if thunk is None else int(thunk)
        i, j = _ij(x, keys)
        keep = {"offdiag": j - i != k, "diag": j - i == k, "tril": j - i <= k, "triu": j - i >= k,
                "rowle": i <= k, "rowgt": i > k, "colle": j <= k, "colgt": j > k}[op]
    return finish("select", shape(x), keys[keep], values[keep], **controls)


def apply_index(op, x, thunk, **controls):
    """``w(i, j) = op(i, j, thunk)``: rowindex ``i + thunk``, colindex ``j + thunk``,
    diagindex ``j - (i + thunk)``, in int32 when python-graphblas types them so, else int64."""
    thunk = False if thunk is None else thunk
    t = generic.unify(x.dtype, generic.scalar_dtype(thunk))
    if op == "diagindex" and t not in (np.int32, np.int64):
        raise generic.unsupported("apply_index", op, (x.dtype, generic.scalar_dtype(thunk)),
                                  "diagindex has int32 and int64 instances only")
    t = np.dtype(np.int32 if t == np.int32 else np.int64)
    keys, _ = entries(x)
    i, j = _ij(x, keys)
    thunk = generic.cast(thunk, t)
    with np.errstate(all="ignore"):  # SuiteSparse's diagindex is j - (i + thunk)
        values = {"rowindex": i.astype(t) + thunk, "colindex": j.astype(t) + thunk,
                  "diagindex": j.astype(t) - (i.astype(t) + thunk)}[op]
    return finish("apply_index", shape(x), keys, values.astype(t), **controls)


def reduce(x, monoid):
    """All entries reduced with ``monoid``: a numpy scalar, None when there is none."""
    t = generic.monoid_type("reduce", monoid, x.dtype)
    values = x.values if isinstance(x, Vector) or x.values is not None else np.ones(x.nvals, bool)
    return None if values.size == 0 else generic.reduce_all(monoid, generic.cast(values, t))


def reduce_rows(A, monoid, verb="reduce_rows", **controls):
    """``w(i) = ⊕_j A(i, j)`` over the non-empty rows."""
    t = generic.monoid_type(verb, monoid, A.dtype)
    values = generic.cast(np.ones(A.nvals, bool) if A.values is None else A.values, t)
    rows = np.flatnonzero(np.diff(A.indptr) > 0)
    reduced = generic.reduce_segments(monoid, values, A.indptr[rows]) if rows.size else values[:0]
    return finish(verb, (A.nrows,), rows, reduced, **controls)


def product(verb, semiring, A, B, **controls):
    """``C = A ⊕.⊗ B`` for a matrix or a vector on either side (a vector on the left is a
    1 x n row, on the right an n x 1 column): one term per pair of entries A(i, k), B(k, j),
    reduced per (i, j) in the order of k."""
    monoid, mult = semiring.split("_", 1)
    t_in, t_out = generic.semiring_types(verb, semiring, A.dtype, B.dtype)
    a_rows, a_cols, a_values, nrows = _as_rows(A, left=True)
    b_indptr, b_cols, b_values, ncols = _as_rows(B, left=False)
    inner = b_indptr.size - 1
    if (A.size if isinstance(A, Vector) else A.ncols) != inner:
        raise ValueError(f"{verb}: inner dimensions differ: {shape(A)} and {shape(B)}")
    counts = b_indptr[a_cols + 1] - b_indptr[a_cols]
    term_a = np.repeat(np.arange(a_cols.size), counts)  # each entry of A once per entry of its row of B
    first = np.repeat(b_indptr[a_cols] - np.cumsum(counts) + counts, counts)
    term_b = first + np.arange(term_a.size)
    i, k, j = a_rows[term_a], a_cols[term_a], b_cols[term_b]
    terms = generic.multiply(mult, a_values[term_a], b_values[term_b], t_in, i, k, j)
    terms = generic.cast(terms, t_out)
    keys = i * ncols + j
    order = np.argsort(keys, kind="stable")  # terms of an output stay in the order of k
    keys, terms = keys[order], terms[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if keys.size else keys
    reduced = generic.reduce_segments(monoid, terms, starts) if keys.size else terms
    result_shape = (ncols,) if isinstance(A, Vector) else (nrows,) if isinstance(B, Vector) else (nrows, ncols)
    return finish(verb, result_shape, keys[starts], reduced, **controls)


def _as_rows(x, left):
    """(row of each entry, column of each entry, values, rows) of the left operand; (row
    pointers, columns, values, columns) of the right one. A vector is a 1 x n row on the left,
    an n x 1 column on the right."""
    if isinstance(x, Vector):
        keys, values = entries(x)
        if left:
            return np.zeros(keys.size, np.int64), keys, values, 1
        indptr = np.zeros(x.size + 1, np.int64)
        indptr[keys + 1] = 1
        return np.cumsum(indptr), np.zeros(keys.size, np.int64), values, 1
    values = np.ones(x.nvals, bool) if x.values is None else x.values
    cols = x.indices.astype(np.int64)
    return (x.rows(), cols, values, x.nrows) if left else (x.indptr, cols, values, x.ncols)


def extract(x, rows, cols, **controls):
    """``w = u(rows)``, ``C = A(rows, cols)`` (cols None: every column), in the order given."""
    rows = np.asarray(rows, np.int64)
    if isinstance(x, Vector):
        check_bounds("extract", rows, x.size)
        keys, values = entries(x)
        at_keys, at_rows = _lookup(keys, rows)
        return finish("extract", (rows.size,), at_rows, values[at_keys], **controls)
    check_bounds("extract", rows, x.nrows)
    C = x.rows_at(rows)
    if cols is None:
        return finish("extract", (C.nrows, C.ncols), *entries(C), **controls)
    cols = np.asarray(cols, np.int64)
    check_bounds("extract", cols, x.ncols)
    by_col = np.argsort(cols, kind="stable")
    lo = np.searchsorted(cols[by_col], C.indices, "left")
    hi = np.searchsorted(cols[by_col], C.indices, "right")
    counts = hi - lo
    entry = np.repeat(np.arange(C.nvals), counts)
    slot = by_col[np.repeat(lo - np.cumsum(counts) + counts, counts) + np.arange(entry.size)]
    keys = C.rows()[entry] * cols.size + slot
    order = np.argsort(keys, kind="stable")
    values = entries(C)[1][entry]
    return finish("extract", (rows.size, cols.size), keys[order], values[order], **controls)


def _lookup(keys, wanted):
    """(positions in sorted ``keys``, positions in ``wanted``) of the wanted keys present."""
    at = np.searchsorted(keys, wanted)
    at = np.minimum(at, max(keys.size - 1, 0))
    found = (keys[at] == wanted) if keys.size else np.zeros(wanted.size, bool)
    return at[found], np.flatnonzero(found)


def check_bounds(verb, ids, size):
    if ids.size and (ids.min() < 0 or ids.max() >= size):
        raise ValueError(f"{verb}: indices must lie in [0, {size}), got {ids.min()}..{ids.max()}")


def assign_scalar(w, value, **controls):
    """``w<mask> accum= value``: the scalar at every position the mask lets through."""
    mask, structure, complement = controls["mask"], controls["structure"], controls["complement"]
    size = int(np.prod(shape(w)))
    if mask is None or complement:
        keys = np.arange(size, dtype=np.int64)  # every position (the mask then trims them)
    else:
        keys, mask_values = entries(mask)
        if not structure:
            keys = keys[generic.cast(mask_values, bool)]
    scalar = np.asarray(value, generic.scalar_dtype(value))
    return finish("assign", shape(w), keys, np.full(keys.size, scalar, scalar.dtype), out=w, **controls)


#: The ``dup`` operators a vector build combines in one compiled pass (the monoid codes of
#: kernels/products.py): ``min``/``max`` of floats are ``fmin``/``fmax`` here, not there.
_SCATTER = {"plus": "plus", "times": "times", "first": "any", "min": "min", "max": "max"}


def build(verb, keys, values, size, dup):
    """Sorted unique keys and their values from (``keys``, ``values``) with duplicates
    combined by the binary operator ``dup``, in the order given (None: duplicates are an error)."""
    if keys.size and (keys.min() < 0 or keys.max() >= size):
        raise ValueError(f"{verb}: indices must lie in [0, {size}), got {keys.min()}..{keys.max()}")
    if verb == "build" and dup in _SCATTER and values.dtype.kind in ("iuf" if dup not in ("min", "max") else "iu"):
        return products.scatter(keys, values, size, products.MONOIDS[_SCATTER[dup]])
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]]) if keys.size else keys
    if starts.size == keys.size:
        return keys, values
    if dup is None:
        raise ValueError(f"{verb}: duplicate indices and dup=None; pass dup, a binary operator, to combine them")
    t_in, t_out = generic.binary_types(verb, dup, values.dtype, values.dtype)
    if dup == "pair":
        t_in = t_out = values.dtype
    if t_out != values.dtype:
        raise generic.unsupported(verb, f"dup={dup}", (values.dtype,),
                                  "dup must take and give the values' dtype (GraphBLAS domain rule)")
    combined = values[starts].copy()
    lengths = np.diff(np.append(starts, keys.size))
    for offset in range(1, int(lengths.max())):  # left to right: ((v0 dup v1) dup v2) ...
        more = lengths > offset
        combined[more] = generic.binary(dup, combined[more], values[starts[more] + offset], t_in)
    return keys[starts], combined

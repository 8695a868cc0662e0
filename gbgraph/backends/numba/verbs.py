"""The numba backend's verbs in their general form: any protocol operator and dtype, vectors
and matrices, and GraphBLAS's output controls (mask, accumulate, replace).

The backend (``__init__.py``) runs the forms its algorithms use through compiled kernels and
comes here for the rest. A matrix is handled through the sorted keys ``i * ncols + j`` of its
entries (:func:`entries`), so one set of functions serves both kinds of object; a full vector
has no keys (None), and every step takes the shortcut that allows (two full operands combine
element by element, a sparse one is scattered into a full one's copy). Products are expanded
into one term per pair of entries, sorted by output position (stably, so that each output
reduces its terms in the order of the inner index, as SuiteSparse's dot products and saxpy
loops do) and reduced by segment; a matrix times a vector over the semirings of
``kernels/semirings.py`` (``min_plus``, ``min_secondi``, ``plus_min`` ... on int64 and
float64) runs that kernel instead, with the same order.

Cost: each output control is one pass over sorted keys, never a sort. The index work is in
compiled primitives (``kernels/merges.py``: :func:`~.kernels.merges.union`, a galloping
:func:`~.kernels.merges.search`, :func:`~.kernels.merges.keep_outside`; ``kernels/positions.py``;
``kernels/semirings.py``); everything else is numpy array code on whole arrays. The cupy backend's device
forms (``cupy/general.py``) follow these rules over dense arrays of a vector's length instead
of merges of sorted keys (a pass over n costs a GPU little, a merge a sort); the forms here
serve it on the host for what those do not cover (``cupy/host.py`` lists it).
"""

import numpy as np

from . import generic
from .containers import Matrix, Vector
from .kernels import merges, positions, products, semirings
from .kernels.sets import matches

__all__ = ["shape", "entries", "rebuild", "check_like", "check_bounds", "finish", "ewise", "apply",
           "select", "apply_index", "reduce", "reduce_rows", "product", "masked_pair_product", "extract", "assign_scalar",
           "build"]

_SELECT_VALUES = {"valueeq": "eq", "valuene": "ne", "valuelt": "lt", "valuele": "le", "valuegt": "gt",
                  "valuege": "ge"}


def shape(x):
    return (x.size,) if isinstance(x, Vector) else (x.nrows, x.ncols)


def entries(x):
    """(sorted int64 keys, values) of a vector's entries, or of a matrix's (key ``i * ncols + j``);
    the keys are None for a full vector (an entry at every position)."""
    if isinstance(x, Vector):
        return x.indices, x.values
    values = np.ones(x.nvals, bool) if x.values is None else x.values
    return x.rows() * x.ncols + x.indices, values


def rebuild(like, keys, values):
    """A new object of ``like``'s kind and shape holding the entries (sorted ``keys``, None
    for every position, and ``values``)."""
    like = like if isinstance(like, tuple) else shape(like)
    if len(like) == 1:
        return Vector(like[0], None if keys is None or keys.size == like[0] else keys, values)
    nrows, ncols = like
    if keys is None:
        keys = np.arange(nrows * ncols, dtype=np.int64)
    indptr = np.empty(nrows + 1, np.int64)
    cols = np.empty(keys.size, np.int32 if ncols < 2**31 else np.int64)
    positions.csr_from_keys(keys, max(ncols, 1), indptr, cols)
    return Matrix(nrows, ncols, indptr, cols, values)


def check_like(verb, name, x, like):
    like = like if isinstance(like, tuple) else shape(like)
    if shape(x) != like:
        raise ValueError(f"{verb}: {name} has shape {shape(x)}, expected {like}")


def _mask_keys(mask, structure):
    """The sorted keys of the positions a mask holds (None: every position)."""
    keys, values = entries(mask)
    if structure:
        return keys
    set_ = generic.cast(values, bool)
    if set_.all():
        return keys
    return np.flatnonzero(set_) if keys is None else keys[set_]


def _inside(keys, size, mask_keys, complement):
    """Which entries (sorted ``keys``, None: all ``size`` positions) lie inside the mask of
    keys ``mask_keys`` (complemented or not): a boolean array, or None when all of them do."""
    if mask_keys is None:
        return np.zeros(size if keys is None else keys.size, bool) if complement else None
    if keys is None:
        inside = np.zeros(size, bool)
        inside[mask_keys] = True
    else:
        inside = merges.search(mask_keys, keys)[1]
    return np.logical_not(inside, out=inside) if complement else inside


def _take(keys, values, kept):
    """The entries (``keys`` None: every position) where ``kept`` holds (None: all)."""
    if kept is None:
        return keys, values
    return np.flatnonzero(kept) if keys is None else keys[kept], values[kept]


def finish(verb, like, keys, values, *, out=None, mask=None, structure=True, complement=False, accum=None,
           replace=False):
    """The result ``T`` (entries ``keys``, None for every position, and ``values``, of shape
    ``like``) under the output controls: a new object ``T<mask>``, or
    ``out<mask, replace> accum= T`` written in place.

    GraphBLAS: ``Z = out ⊙accum T`` (or ``T``); inside the mask ``out`` takes Z's entries
    (losing those Z lacks), outside it keeps its own unless ``replace``. ``accum`` runs in
    ``out``'s dtype, as python-graphblas types it, and Z is cast to that dtype. Each step is
    one pass over sorted keys, and none where an operand is full.
    """
    like = like if isinstance(like, tuple) else shape(like)
    size = int(np.prod(like))
    if mask is not None:
        check_like(verb, "mask", mask, like)
    if out is None and accum is not None:
        raise ValueError(f"{verb}: accum={accum!r} needs out=")
    if out is not None:
        check_like(verb, "out", out, like)
    given = values
    mask_keys = None if mask is None else _mask_keys(mask, structure)
    if mask is not None and not (keys is mask_keys and not complement):
        keys, values = _take(keys, values, _inside(keys, size, mask_keys, complement))
    if out is None:
        return rebuild(like, keys, values)
    own_keys, own_values = entries(out)
    dtype = out.dtype
    if mask is None and own_keys is None and keys is None and _accumulated_in_place(accum, own_values, values):
        return out
    if accum is None:
        z_keys, z_values = keys, generic.cast(values, dtype)
    else:
        inside = None if mask is None else _inside(own_keys, size, mask_keys, complement)
        in_keys, in_values = _take(own_keys, own_values, inside)
        z_keys, z_values = _union(verb, accum, in_keys, in_values, keys, values, size, dtype)
        z_values = generic.cast(z_values, dtype)
    if z_values is given:  # out must not share the arrays of an operand
        z_values = z_values.copy()
    if not replace and mask is not None and z_keys is not None:
        z_keys, z_values = _keep_outside(own_keys, own_values, mask_keys, complement, z_keys, z_values, size)
    return _write(out, z_keys, z_values)


#: accumulators that run in place on a full out and a full result of its dtype: numpy's ufunc
#: of generic.binary, fmin and fmax on floats
_IN_PLACE = {"plus": np.add, "minus": np.subtract, "times": np.multiply, "min": np.minimum, "max": np.maximum}


def _accumulated_in_place(accum, own, values):
    """``out accum= T`` in place for a full out and a full T of out's dtype (PageRank's
    ``r += Aᵀ w``, FastSV's ``mngp min= A w``): no new array; False where it does not apply."""
    if accum not in _IN_PLACE or values.dtype != own.dtype or own.dtype == bool or not own.flags.writeable:
        return False
    ufunc = {"min": np.fmin, "max": np.fmax}.get(accum, _IN_PLACE[accum]) if own.dtype.kind == "f" else \
        _IN_PLACE[accum]
    with np.errstate(all="ignore"):
        ufunc(own, values, out=own)
    return True


def _keep_outside(own_keys, own_values, mask_keys, complement, keys, values, size):
    """The entries (``keys``, ``values``) of Z, all inside the mask, with out's own
    (``own_keys`` None: every position) outside it."""
    if mask_keys is None and not complement:  # every position is in the mask
        return keys, values
    own_keys = np.arange(size, dtype=np.int64) if own_keys is None else own_keys
    at, found = merges.search(own_keys, keys)
    if complement:
        dropped = np.flatnonzero(_inside(own_keys, size, mask_keys, complement))
    elif mask_keys is keys:  # Z under its own mask (w<q> = q): out loses its entries at Z's keys
        dropped = at[found]
    else:
        mask_at, found = merges.search(own_keys, mask_keys)
        dropped = mask_at[found]
    return merges.keep_outside(own_keys, own_values, dropped, keys, values, at)


def _write(out, keys, values):
    """Replace ``out``'s entries in place (a matrix forgets what it cached)."""
    new = rebuild(out, keys, values)
    if isinstance(out, Vector):
        out.indices, out.values = new.indices, new.values
    else:
        out.indptr, out.indices, out.values = new.indptr, new.indices, new.values
        out._transposed = out._graphblas = None
    return out


def _union(verb, op, keys_a, a, keys_b, b, size, accum_dtype=None):
    """The entries of ``a ∪ b`` (keys None: every one of ``size`` positions) with ``op``
    where both have one: an element-wise add, or an accumulate in ``accum_dtype`` (both
    operands cast to it, python-graphblas' typing of accum)."""
    if accum_dtype is None:
        t_in, t_out = generic.binary_types(verb, op, a.dtype, b.dtype)
    else:
        # an entry of one side only keeps its value in out's dtype (SuiteSparse's: a
        # comparison's bool result applies where both sides have one)
        t_in = t_out = np.dtype(accum_dtype)
        generic.binary_types(verb, op, t_in, t_in)
    if keys_a is None and keys_b is None:
        return None, generic.binary(op, a, b, t_in).astype(t_out, copy=False)
    if keys_a is None or keys_b is None:  # one full operand: the other's entries combine into it
        full, keys, sparse, full_left = (a, keys_b, b, True) if keys_a is None else (b, keys_a, a, False)
        values = generic.cast(full, t_out)
        values = values.copy() if values is full else values
        pair = (full[keys], sparse) if full_left else (sparse, full[keys])
        values[keys] = generic.binary(op, *pair, t_in)
        return None, values
    if 8 * keys_b.size < keys_a.size or 8 * keys_a.size < keys_b.size:
        return _insert(op, keys_a, a, keys_b, b, t_in, t_out)
    keys, where_a, where_b, both_a, both_b = merges.union(keys_a, keys_b)
    values = np.empty(keys.size, t_out)
    values[where_a] = generic.cast(a, t_out)
    values[where_b] = generic.cast(b, t_out)
    values[where_a[both_a]] = generic.binary(op, a[both_a], b[both_b], t_in)
    return keys, values


def _insert(op, keys_a, a, keys_b, b, t_in, t_out):
    """``a ∪ b`` (op where both have an entry) for lists of very different lengths: the
    shorter one's keys are searched in the longer one, which is copied once with the new
    entries inserted (a small update of a large vector costs a copy, not a merge's pass)."""
    left = keys_a.size >= keys_b.size
    big_keys, big, small_keys, small = (keys_a, a, keys_b, b) if left else (keys_b, b, keys_a, a)
    at, found = merges.search(big_keys, small_keys)
    new = ~found
    keys, values = merges.keep_outside(big_keys, generic.cast(big, t_out), big_keys[:0], small_keys[new],
                                       generic.cast(small[new], t_out), at[new])
    shared = np.flatnonzero(found)  # the big list's entry at at[j] moves by the new ones before it
    both = (big[at[shared]], small[shared]) if left else (small[shared], big[at[shared]])
    values[at[shared] + shared - np.arange(shared.size)] = generic.binary(op, *both, t_in)
    return keys, values


def ewise(verb, op, x, y, **controls):
    """``ewise_add`` (union) or ``ewise_mult`` (intersection) of two vectors or two matrices."""
    check_like(verb, "the second operand", y, x)
    keys_x, x_values = entries(x)
    keys_y, y_values = entries(y)
    if verb == "ewise_add":
        keys, values = _union(verb, op, keys_x, x_values, keys_y, y_values, int(np.prod(shape(x))))
        return finish(verb, shape(x), keys, values, **controls)
    t_in = generic.binary_types(verb, op, x.dtype, y.dtype)[0]
    if keys_x is None or keys_y is None:  # a full operand: the other's positions
        keys = keys_y if keys_x is None else keys_x
        at_x = slice(None) if keys_x is not None or keys is None else keys
        at_y = slice(None) if keys_y is not None or keys is None else keys
    else:
        at_x, at_y = matches(keys_x, keys_y)
        keys = keys_x[at_x]
    return finish(verb, shape(x), keys, generic.binary(op, x_values[at_x], y_values[at_y], t_in), **controls)


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
    """Row and column of each entry (``keys`` None: every position): (i, 0) for a vector,
    a column vector."""
    if isinstance(x, Vector):
        keys = x.positions() if keys is None else keys
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
    return finish("select", shape(x), *_take(keys, values, keep), **controls)


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
    if (A.size if isinstance(A, Vector) else A.ncols) != (B.size if isinstance(B, Vector) else B.nrows):
        raise ValueError(f"{verb}: inner dimensions differ: {shape(A)} and {shape(B)}")
    if isinstance(A, Vector) != isinstance(B, Vector) and _compiled(semiring, A, B, t_in, t_out):
        return finish(verb, (B.ncols,) if isinstance(A, Vector) else (A.nrows,),
                      *_matrix_vector(semiring, A, B, t_out), **controls)
    a_rows, a_cols, a_values, nrows = _as_rows(A, left=True)
    b_indptr, b_cols, b_values, ncols = _as_rows(B, left=False)
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


def _compiled(semiring, A, B, t_in, t_out):
    """Whether ``kernels/semirings.py`` computes this matrix-vector product exactly: a
    monoid and multiply it has, an int64 or float64 result the multiply computes in, and
    operands that cast to it exactly."""
    monoid, mult = semiring.split("_", 1)
    if monoid not in semirings.MONOIDS or mult not in semirings.MULTIPLIES:
        return False
    if t_in != t_out or t_out not in (np.int64, np.float64):
        return False
    return np.can_cast(A.dtype, t_out) and np.can_cast(B.dtype, t_out)


def _matrix_vector(semiring, A, B, t):
    """(keys, values) of ``A ⊕.⊗ u`` (pulled row by row) or ``u ⊕.⊗ A`` (pushed from u's
    entries) in dtype ``t``, by the kernels of ``kernels/semirings.py``."""
    monoid, mult = (code[name] for code, name in zip((semirings.MONOIDS, semirings.MULTIPLIES),
                                                     semiring.split("_", 1)))
    M, u = (B, A) if isinstance(A, Vector) else (A, B)
    a = np.empty(0, bool) if M.values is None else M.values
    if isinstance(A, Vector):
        out, found = np.empty(M.ncols, t), np.zeros(M.ncols, bool)
        reached = semirings.push(M.indptr, M.indices, a, M.values is not None, u.positions(), u.values, monoid,
                                 mult, out, found)
        return (None, out) if reached.size == M.ncols else (reached, out[reached])
    dense, present = u.dense()
    out, found = np.empty(M.nrows, t), np.empty(M.nrows, bool)
    semirings.pull(M.indptr, M.indices, a, M.values is not None, dense, np.empty(0, bool) if present is None else present,
                   present is not None, np.empty(0, np.int64), True, monoid, mult, out, found)
    return (None, out) if found.all() else (np.flatnonzero(found), out[found])


def masked_pair_product(A, B, mask):
    """``C<mask> = A ⊕plus.pair B`` under a structural mask (triangle counting's
    ``C<L> = L ⊕plus.pair L``): the int64 count of the terms of each entry of the mask, an
    entry of C where there is one."""
    indptr, indices, counts = positions.masked_pair_counts(A.indptr, A.indices, B.indptr, B.indices, mask.indptr,
                                                           mask.indices, B.ncols)
    return Matrix(mask.nrows, mask.ncols, indptr, indices, counts)


def _as_rows(x, left):
    """(row of each entry, column of each entry, values, rows) of the left operand; (row
    pointers, columns, values, columns) of the right one. A vector is a 1 x n row on the left,
    an n x 1 column on the right."""
    if isinstance(x, Vector):
        keys, values = x.positions(), x.values
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
        if x.indices is None:
            return finish("extract", (rows.size,), None, x.values[rows], **controls)
        at_keys, at_rows = _lookup(x.indices, rows)
        return finish("extract", (rows.size,), at_rows, x.values[at_keys], **controls)
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
    # every position (the mask then trims them), or the mask's own
    keys = None if mask is None or complement else _mask_keys(mask, structure)
    scalar = np.asarray(value, generic.scalar_dtype(value))
    count = size if keys is None else keys.size
    return finish("assign", shape(w), keys, np.full(count, scalar, scalar.dtype), out=w, **controls)


#: The ``dup`` operators a vector build combines in one compiled pass (the monoid codes of
#: kernels/products.py): ``min``/``max`` of floats are ``fmin``/``fmax`` here, not there.
_SCATTER = {"plus": "plus", "times": "times", "first": "any", "min": "min", "max": "max"}


def build(verb, keys, values, size, dup):
    """Sorted unique keys and their values from (``keys``, ``values``) with duplicates
    combined by the binary operator ``dup``, in the order given (None: duplicates are an error)."""
    if keys.size and (keys.min() < 0 or keys.max() >= size):
        raise ValueError(f"{verb}: indices must lie in [0, {size}), got {keys.min()}..{keys.max()}")
    if keys.size < 2 or (keys[1:] > keys[:-1]).all():  # sorted and unique already (one row each, ...)
        return keys.copy(), values.copy()  # the caller's arrays are not the result's
    if verb == "build" and dup in _SCATTER and values.dtype.kind in ("iuf" if dup not in ("min", "max") else "iu"):
        return products.scatter(keys, values, size, products.MONOIDS[_SCATTER[dup]])
    order = np.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    starts = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
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

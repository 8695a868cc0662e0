"""The ``suitesparse`` backend: python-graphblas over SuiteSparse:GraphBLAS, on the CPU.

Each verb is one python-graphblas call, typed as python-graphblas types it (the protocol's
oracle, :mod:`gbgraph.backends.base`). A name the protocol lists but python-graphblas has no
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

import weakref

import numpy as np
import graphblas as gb
from graphblas.core.operator import Semiring

from ..._malloc import keep_freed_blocks
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

    def extract_tuples(self, x):
        if isinstance(x, gb.Matrix):
            rows, cols, values = x.to_coo()
            return rows.view(np.int64), cols.view(np.int64), values
        indices, values = x.to_coo()
        return indices.view(np.int64), values

    def build(self, indices, values, size, *, dup=None):
        w = _sparse(_dtype(np.asarray(values).dtype.name, "build"), size)
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

    def mxv(self, semiring, A, u, *, transpose=False, mask=None, structure=True, complement=False, out=None,
            accum=None, replace=False):
        check_accum("mxv", out, accum)
        try:
            expr = (A.T if transpose else A).mxv(u, _op(_SEMIRING, semiring))
        except KeyError as error:
            raise _unsupported("mxv", semiring, (A, u), error) from None
        if accum is not None or replace:
            return _store("mxv", expr, _mask(mask, structure, complement), out, accum, replace)
        if mask is not None and structure and not complement and 2 * mask.nvals >= expr.size:
            # A mask covering most rows scatters dot3's row accesses; one streaming product
            # of every row, then the mask, is faster (Laplace3D 100³: 5 ms against 8 ms).
            expr = _acyclic(expr.new())
        out = _sparse(expr.dtype, expr.size) if out is None else out
        out(mask=_mask(mask, structure, complement)) << expr
        return out

    def vxm(self, semiring, u, A, *, transpose=False, mask=None, structure=True, complement=False, out=None,
            accum=None, replace=False):
        check_accum("vxm", out, accum)
        try:
            expr = u.vxm(A.T if transpose else A, _op(_SEMIRING, semiring))  # saxpy over u's rows of A
        except KeyError as error:
            raise _unsupported("vxm", semiring, (u, A), error) from None
        return _store("vxm", expr, _mask(mask, structure, complement), out, accum, replace)

    def mxm(self, semiring, A, B, *, transpose_a=False, transpose_b=False, mask=None, structure=True,
            complement=False, out=None, accum=None, replace=False):
        check_accum("mxm", out, accum)
        try:
            expr = (A.T if transpose_a else A).mxm(B.T if transpose_b else B, _op(_SEMIRING, semiring))
        except KeyError as error:
            raise _unsupported("mxm", semiring, (A, B), error) from None
        return _store("mxm", expr, _mask(mask, structure, complement), out, accum, replace)

    def transpose(self, A, *, mask=None, structure=True, complement=False, out=None, accum=None, replace=False):
        return _store("transpose", A.T, _mask(mask, structure, complement), out, accum, replace)

    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                   replace=False):
        check_accum("ewise_mult", out, accum)
        try:
            expr = u.ewise_mult(v, _op(_BINARY, op))
        except KeyError as error:
            raise _unsupported("ewise_mult", op, (u, v), error) from None
        return _store("ewise_mult", expr, _mask(mask, structure, complement), out, accum, replace)

    def ewise_add(self, op, u, v, *, mask=None, structure=True, complement=False, out=None, accum=None,
                  replace=False):
        check_accum("ewise_add", out, accum)
        try:
            expr = u.ewise_add(v, _op(_BINARY, op))
        except KeyError as error:
            raise _unsupported("ewise_add", op, (u, v), error) from None
        return _store("ewise_add", expr, _mask(mask, structure, complement), out, accum, replace)

    def apply(self, op, u, *, left=None, right=None, mask=None, structure=True, complement=False, out=None,
              accum=None, replace=False):
        check_accum("apply", out, accum)
        try:
            if left is None and right is None:
                expr = u.apply(_op(_UNARY, op))
            else:
                expr = u.apply(_op(_BINARY, op), left=_bound(left, u), right=_bound(right, u))
        except KeyError as error:
            operands = (u,) if left is None and right is None else (u, left if right is None else right)
            raise _unsupported("apply", op, operands, error) from None
        return _store("apply", expr, _mask(mask, structure, complement), out, accum, replace)

    def apply_index(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        check_accum("apply_index", out, accum)
        if callable(op):
            return super().apply_index(op, u, thunk, mask=mask, structure=structure, complement=complement,
                                       out=out, accum=accum, replace=replace)
        try:
            expr = u.apply(_op(_INDEX_UNARY, op), 0 if thunk is None else _bound(thunk, u))
        except KeyError as error:
            raise _unsupported("apply_index", op, (u, thunk), error) from None
        return _store("apply_index", expr, _mask(mask, structure, complement), out, accum, replace)

    def select(self, op, u, thunk=None, *, mask=None, structure=True, complement=False, out=None, accum=None,
               replace=False):
        check_accum("select", out, accum)
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
        try:
            if isinstance(u, gb.Matrix):
                scalar = u.reduce_scalar(_op(_MONOID, monoid)).new()
            else:
                scalar = u.reduce(_op(_MONOID, monoid)).new()
        except KeyError as error:
            raise _unsupported("reduce", monoid, (u,), error) from None
        value = scalar.value
        return None if value is None else np.asarray(value, scalar.dtype.np_type)[()]

    def reduce_rows(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        check_accum("reduce_rows", out, accum)
        try:
            expr = A.reduce_rowwise(_op(_MONOID, monoid))
        except KeyError as error:
            raise _unsupported("reduce_rows", monoid, (A,), error) from None
        return _store("reduce_rows", expr, _mask(mask, structure, complement), out, accum, replace)

    def reduce_cols(self, A, monoid, *, mask=None, structure=True, complement=False, out=None, accum=None,
                    replace=False):
        check_accum("reduce_cols", out, accum)
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
        return _new(u[indices], None)

    def assign(self, w, value, *, mask, structure=True, complement=False, accum=None, replace=False):
        if not isinstance(value, (gb.Vector, gb.Matrix)):
            value = _scalar(value, w) if accum is None else _bound(value, w)
        m = _mask(mask, structure, complement)
        if accum is None:
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


def _sparse(dtype, size):
    """An empty vector held in sparse form, or full once every entry is present: SuiteSparse
    would switch a vector denser than a few percent to bitmap form, and converting back
    costs more than the operations that use it (a bitmap mask also makes mxv visit every
    row: MIS-2 on Laplace3D 60³ 50 ms against 38 ms). Full form stays allowed: a full
    vector pinned sparse carries an index per entry, and a product over it reads them
    (PageRank's push on Laplace3D 60³: 27 ms an iteration sparse, 1.3 ms full)."""
    w = _acyclic(gb.Vector(dtype, size))
    w.ss.config["sparsity_control"] = ["sparse", "full"]
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

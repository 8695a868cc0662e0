"""The ``suitesparse`` backend: python-graphblas over SuiteSparse:GraphBLAS, on the CPU.

Each verb is one python-graphblas call. Two properties of the suitesparse-graphblas 9.x wheel
shape the choices here (see docs/backends.md):

* only some type/semiring pairs are precompiled; the rest run a generic kernel several times
  slower (UINT32 ``min_second`` takes ~30 ms on Laplace3D 100³, INT32 and UINT64 ~5 ms), so
  algorithms keep to INT32, INT64, UINT64, FP64 and BOOL;
* a masked accumulate into a sparse vector crashes the process, so no verb accumulates;
* python-graphblas has no name for the ``bor_second`` semiring: it is built from its monoid
  and multiply op, and SuiteSparse runs it with its generic kernel.

python-graphblas links every Vector and Matrix to its ``ss`` accessor and back, a reference
cycle, so a dropped vector waits for Python's cyclic garbage collector: an algorithm that
makes a few vectors per round then holds hundreds of megabytes it no longer uses (Laplace3D
100³: 340 MB of garbage during one MIS-2). :func:`_acyclic` turns the back references into
weak ones, so vectors are freed as soon as the algorithm drops them.
"""

import functools
import weakref

import numpy as np
import graphblas as gb

from ..._malloc import keep_freed_blocks
from ..base import BINARY_OPS, MONOIDS, SELECT_OPS, SEMIRINGS, UNARY_OPS, Backend

__all__ = ["SuiteSparseBackend"]

_DTYPES = {"bool": gb.dtypes.BOOL, "int32": gb.dtypes.INT32, "int64": gb.dtypes.INT64,
           "uint64": gb.dtypes.UINT64, "float64": gb.dtypes.FP64}


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
        return _acyclic(gb.Matrix.ss.import_csr(
            nrows=n, ncols=n if ncols is None else ncols, indptr=indptr, col_indices=indices,
            values=np.ones(1, bool) if pattern else values, is_iso=pattern, sorted_cols=True,
            take_ownership=not copy))

    def vector(self, indices, values, size, *, copy=True):
        iso = np.ndim(values) == 0
        w = _sparse(_DTYPES[np.asarray(values).dtype.name], size)
        w.ss.pack_sparse(
            indices=indices, values=np.asarray(values).reshape(-1) if iso else values,
            is_iso=iso, sorted_index=True, take_ownership=not copy)
        return w

    def full(self, size, value, dtype):
        if np.ndim(value):
            w = _sparse(_DTYPES[dtype], size)
            w.ss.pack_full(np.asarray(value, dtype))
            return w
        return _acyclic(gb.Vector.from_scalar(np.asarray(value, dtype), size, _DTYPES[dtype]))

    def nvals(self, x):
        return x.nvals

    def to_csr(self, A):
        indptr, indices, values = A.to_csr()
        return indptr.view(np.int64), indices.view(np.int64), values

    def indices(self, v):
        return v.to_coo(values=False)[0].view(np.int64)

    def values(self, v):
        return v.to_coo(indices=False)[1]

    def mxv(self, semiring, A, u, *, mask=None, structure=True, complement=False, out=None):
        expr = A.mxv(u, _semiring(semiring))
        if mask is not None and structure and not complement and 2 * mask.nvals >= A.nrows:
            # A mask covering most rows scatters dot3's row accesses; one streaming product
            # of every row, then the mask, is faster (Laplace3D 100³: 5 ms against 8 ms).
            expr = _acyclic(expr.new())
        out = _sparse(expr.dtype, A.nrows) if out is None else out
        out(mask=_mask(mask, structure, complement)) << expr
        return out

    def vxm(self, semiring, u, A, *, mask=None, structure=True, complement=False):
        expr = u.vxm(A, _op(gb.semiring, semiring, SEMIRINGS))  # saxpy over u's rows of A
        return _new(expr, _mask(mask, structure, complement))

    def mxm(self, semiring, A, B, *, mask=None, structure=True, complement=False):
        expr = A.mxm(B, _semiring(semiring))
        return _acyclic(expr.new(mask=_mask(mask, structure, complement)))

    def transpose(self, A):
        return _acyclic(A.T.new())

    def ewise_mult(self, op, u, v, *, mask=None, structure=True, complement=False):
        expr = u.ewise_mult(v, _op(gb.binary, op, BINARY_OPS))
        return _new(expr, _mask(mask, structure, complement))

    def ewise_add(self, op, u, v, *, mask=None, structure=True, complement=False):
        expr = u.ewise_add(v, _op(gb.binary, op, BINARY_OPS))
        return _new(expr, _mask(mask, structure, complement))

    def apply(self, op, u, *, left=None, right=None, mask=None, structure=True, complement=False):
        if left is None and right is None:
            expr = u.apply(_op(gb.unary, op, UNARY_OPS))
        else:
            expr = u.apply(_op(gb.binary, op, BINARY_OPS), left=_scalar(left, u), right=_scalar(right, u))
        return _new(expr, _mask(mask, structure, complement))

    def select(self, op, u, thunk=None, *, mask=None, structure=True, complement=False):
        selector = _op(gb.select, op, SELECT_OPS)
        if op.startswith("value"):
            expr = selector(u, _scalar(thunk, u))
        else:
            expr = selector(u, 0 if thunk is None else int(thunk))
        return _new(expr, _mask(mask, structure, complement))

    def reduce(self, u, monoid):
        value = u.reduce(_op(gb.monoid, monoid, MONOIDS)).new().value
        return None if value is None else np.asarray(value, u.dtype.np_type)[()]

    def reduce_rows(self, A, monoid):
        return _new(A.reduce_rowwise(_op(gb.monoid, monoid, MONOIDS)), None)

    def extract(self, u, indices):
        indices = np.asarray(indices, np.int64)
        return _new(u[indices, :] if isinstance(u, gb.Matrix) else u[indices], None)

    def assign(self, w, value, *, mask, structure=True, complement=False):
        if not isinstance(value, gb.Vector):
            value = _scalar(value, w)
        w(mask=_mask(mask, structure, complement)) << value
        return w


def _sparse(dtype, size):
    """An empty vector held in sparse form: SuiteSparse would switch a vector denser than a
    few percent to bitmap form, and converting back costs more than the operations that
    use it (a bitmap mask also makes mxv visit every row)."""
    w = _acyclic(gb.Vector(dtype, size))
    w.ss.config["sparsity_control"] = "sparse"
    return w


def _new(expr, mask):
    """A new object holding ``expr`` under ``mask``: a sparse-pinned vector, or a matrix."""
    if expr.output_type is gb.Matrix:
        return _acyclic(expr.new(mask=mask))
    w = _sparse(expr.dtype, expr.size)
    w(mask=mask) << expr
    return w


# Protocol semirings python-graphblas has no name for: (monoid, multiply op, type).
_BUILT_SEMIRINGS = {"bor_second": (gb.monoid.bor, gb.binary.second, gb.dtypes.UINT64)}


@functools.cache
def _semiring(name):
    """The python-graphblas semiring of a protocol name, built once when it has no name there."""
    if name in _BUILT_SEMIRINGS:
        monoid, multiply, dtype = _BUILT_SEMIRINGS[name]
        return gb.core.operator.Semiring.register_anonymous(monoid, multiply, name=name)[dtype]
    return _op(gb.semiring, name, SEMIRINGS)


def _op(namespace, name, known):
    if name not in known:
        raise ValueError(f"unknown operator {name!r}; the protocol has {', '.join(known)}")
    if name.endswith(("secondi", "firstj")):  # positional operators are SuiteSparse extensions
        namespace = namespace.ss
    return getattr(namespace, name)


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

"""The protocol's general forms on the device: output controls, typecasts, builds, index
operators, a pushed vector-matrix product and masked matrix products.

The ``cupy`` backend's verbs compute a result ``T`` on the device and hand it here with
their output controls: :func:`finish` forms GraphBLAS' ``out<mask, replace> accum= T`` as
the numba backend's ``verbs.finish`` does (``Z = out ⊙accum T`` in out's dtype, out's
entries kept outside the mask unless ``replace``), over dense arrays of the vector's length
-- a few passes over n on the device instead of merges of sorted keys -- and leaves the
entry count of a sparse result on the device, so that no host waits. The typing rules are
:mod:`gbgraph.backends.numba.generic`'s; the operators here are their CuPy forms, checked
against python-graphblas by the conformance suite. Matrix outputs, operators and dtypes
without a form here go to the host (:mod:`.host`).
"""

import functools

import cupy
import numpy as np

from ..numba import generic
from . import kernels
from .containers import Matrix, Vector

__all__ = ["cast", "binary", "unary", "dense", "presence", "mask_bytes", "inside", "entries", "check_shape", "finish", "push", "PUSH_MONOIDS", "masked_product", "build",
           "BUILD_DUPS", "index_values"]

_COMPARISONS = {"eq": cupy.equal, "ne": cupy.not_equal, "lt": cupy.less, "le": cupy.less_equal,
                "gt": cupy.greater, "ge": cupy.greater_equal}
_ARITHMETIC = {"plus": cupy.add, "minus": cupy.subtract, "times": cupy.multiply, "land": cupy.logical_and,
               "lor": cupy.logical_or, "lxor": cupy.logical_xor, "band": cupy.bitwise_and, "bor": cupy.bitwise_or,
               "bxor": cupy.bitwise_xor}
#: bool instances of the arithmetic operators (generic.py's table: SuiteSparse's GrB_PLUS_BOOL is lor, ...)
_ON_BOOL = {"plus": "lor", "times": "land", "min": "land", "max": "lor", "minus": "ne", "rminus": "ne"}


def cast(values, dtype):
    """``values`` as ``dtype`` with GraphBLAS' typecast, on the device (:func:`generic.cast`)."""
    return generic.cast(values, dtype, cupy)


def binary(op, a, b, t):
    """``op(a, b)`` with both operands (arrays or numpy scalars) cast to ``t``, as
    :func:`generic.binary` computes it."""
    t = np.dtype(t)
    a = cast(a, t) if isinstance(a, cupy.ndarray) else generic.cast(a, t)[()]
    b = cast(b, t) if isinstance(b, cupy.ndarray) else generic.cast(b, t)[()]
    shape = (a if isinstance(a, cupy.ndarray) else b).shape if not isinstance(a, cupy.ndarray) or \
        not isinstance(b, cupy.ndarray) else cupy.broadcast(a, b).shape
    if op == "first":
        return _spread(a, shape, t)
    if op == "second":
        return _spread(b, shape, t)
    if op == "pair":
        return cupy.ones(shape, t)
    if op == "rminus":
        op, a, b = "minus", b, a
    if t == bool:
        if op == "div":  # GrB_DIV_BOOL is first
            return _spread(a, shape, t)
        op = _ON_BOOL.get(op, op)
    if op in _COMPARISONS:
        return _COMPARISONS[op](a, b)
    if op in ("min", "max"):  # IEEE fmin / fmax on floats, as numpy's and SuiteSparse's
        f = {"min": (cupy.fmin, cupy.minimum), "max": (cupy.fmax, cupy.maximum)}[op][t.kind != "f"]
        return f(a, b).astype(t, copy=False)
    if op in ("land", "lor", "lxor"):
        return _ARITHMETIC[op](a != 0, b != 0).astype(t)
    if op in _ARITHMETIC:
        return _ARITHMETIC[op](a, b).astype(t, copy=False)
    return _divide(a, b, t)


def _spread(x, shape, t):
    """An array of ``shape`` holding ``x`` (an array broadcast to it, or a scalar)."""
    return cupy.broadcast_to(x, shape).copy() if isinstance(x, cupy.ndarray) else cupy.full(shape, x, t)


def _divide(a, b, t):
    """GraphBLAS division (:func:`generic.binary`'s): floats by IEEE, integers by
    :func:`generic._integer_divide` on the device."""
    if t.kind == "f":
        return cupy.true_divide(a, b).astype(t, copy=False)
    return generic._integer_divide(cupy.asarray(a, t), cupy.asarray(b, t), t, cupy)


def dense(v):
    """(values at every position, bool presence or None when full) of any vector; a count
    on the device stays there where the kernels serve the dtype (one scatter of both)."""
    if v.indices is None:
        return v.values, None
    if v.dtype not in kernels._C_TYPES:
        v.exact()
        values, present = cupy.zeros(v.size, v.dtype), cupy.zeros(v.size, bool)
        values[v.indices], present[v.indices] = v.values, True
        return values, present
    values, present = cupy.zeros(v.size, v.dtype), cupy.zeros(v.size, cupy.uint8)
    _scatter_dense(v, values, present)
    return values, present.view(bool)


def presence(v):
    """A bool per position: whether ``v`` has an entry there; None when it is full."""
    if v.indices is None:
        return None
    present = cupy.zeros(v.size, cupy.uint8)
    _scatter_dense(v, None, present)
    return present.view(bool)


def _scatter_dense(v, values, present):
    if v.capacity:
        t = kernels.c_type(v.dtype) if v.dtype in kernels._C_TYPES else "unsigned char"
        kernels._get("general.cu", f"gbgraph::scatter_dense<{t}>")(
            (kernels._blocks(v.capacity),), (kernels._THREADS,),
            (v.indices, kernels._ptr(None if values is None else v.values), *kernels.count_args(v),
             kernels._ptr(values), present))


def mask_bytes(mask, structure, known=None):
    """A bool per position: whether the mask holds it (an entry, nonzero unless
    ``structure``); None where it holds every position. ``known``: the mask's dense form
    (:func:`dense`), when the caller has it."""
    if structure and known is None:
        return presence(mask)
    values, present = dense(mask) if known is None else known
    if structure:
        return present
    nonzero = values if values.dtype == bool else values != 0
    return nonzero if present is None else nonzero & present


def inside(mask, structure, complement, size, known=None):
    """A bool per position: whether the mask (complemented or not) lets it through; None
    where it lets every position through. ``known``: as for :func:`mask_bytes`."""
    if mask is None:
        return None
    held = mask_bytes(mask, structure, known)
    return held if not complement else (cupy.zeros(size, bool) if held is None else ~held)


def entries(size, values, present, mask=None, structure=True, complement=False):
    """The vector of the dense ``values`` where ``present`` (None: everywhere) and the mask
    lets the position through; a sparse one keeps its entry count on the device."""
    through = inside(mask, structure, complement, size)
    if through is not None:
        present = through if present is None else present & through
    if present is None:
        return Vector(size, None, values)
    if values.dtype not in kernels._C_TYPES:
        ids = cupy.flatnonzero(present)
        return Vector(size, ids, values[ids])
    return Vector(size, *kernels.compact("ne", Vector(size, None, values), 0, keys=present.view(cupy.uint8)))


def _same_entries(a, b):
    """Whether vectors ``a`` and ``b`` are known, without looking at the device, to hold
    the same entries: one object, or views of the same buffers and count."""
    return a is b or a.indices is not None and a.indices is b.indices and a.count is b.count and \
        a.values is b.values


def check_shape(verb, name, x, size):
    """The ValueError of verbs.check_like for a vector operand of the wrong length."""
    if not isinstance(x, Vector) or x.size != size:
        shape = (x.size,) if isinstance(x, Vector) else (x.nrows, x.ncols)
        raise ValueError(f"{verb}: {name} has shape {shape}, expected {(size,)}")


def finish(verb, out, t, *, mask, structure, complement, accum, replace, masked=False):
    """``out<mask, replace> accum= T`` in place on the device vectors ``out`` and ``t``;
    returns ``out``. ``masked``: T has entries only where the mask lets them through (a
    verb's ``T<mask>``); otherwise T is masked here."""
    dtype = out.dtype
    if mask is not None:
        check_shape(verb, "mask", mask, t.size)
    check_shape(verb, "out", out, t.size)
    if accum is None and (mask is None or masked and replace):  # out takes T's entries, keeps none of its own
        values = cast(t.values, dtype)
        out.values = values.copy() if values is t.values else values  # out shares no operand's arrays
        out.indices = None if t.indices is None else t.indices.copy()
        out.count = None if t.count is None else t.count.copy()
        return out
    t_values, t_present = dense(t)
    # w<v> = v (BFS's pi<q> = q): the mask's positions are t's own
    same = mask is not None and _same_entries(mask, t)
    inside_ = inside(mask, structure, complement, out.size, (t_values, t_present) if same else None)
    own, own_present = dense(out)
    if accum is None:
        z, z_present = cast(t_values, dtype), t_present
    else:
        # accum runs in out's dtype (python-graphblas' typing); an entry of one side only keeps
        # its value, cast to out's dtype (SuiteSparse's, not through a comparison's bool)
        generic.binary_types(verb, accum, dtype, dtype)  # the typing error of an accum without this instance
        combined = cast(binary(accum, own, t_values, dtype), dtype)
        t_only, own_only = cast(t_values, dtype), own
        if t_present is None:
            z = combined if own_present is None else cupy.where(own_present, combined, t_only)
        elif own_present is None:
            z = cupy.where(t_present, combined, own_only)
        else:
            z = cupy.where(t_present, cupy.where(own_present, combined, t_only), own_only)
        z_present = None if t_present is None or own_present is None else t_present | own_present
    if inside_ is None:
        return _write(out, z, z_present)
    return _write(out, cupy.where(inside_, z, own), _kept(inside_, z_present, own_present, replace))


def _kept(inside_, z_present, own_present, replace):
    """The positions of ``out<mask, replace> = Z``: Z's inside the mask, out's own outside it
    unless ``replace`` (presence None: every position)."""
    if replace:
        return inside_ if z_present is None else z_present & inside_
    if own_present is None:
        return None if z_present is None else z_present | ~inside_
    if z_present is None:
        return inside_ | own_present
    return cupy.where(inside_, z_present, own_present)


def _write(out, values, present):
    """``out`` made to hold the dense ``values`` where ``present``, in place."""
    w = entries(out.size, values, present)
    out.indices, out.values, out.count = w.indices, w.values, w.count
    return out


#: the monoids of :func:`push`, whose integer atomics give one result in any order
PUSH_MONOIDS = {"min": 0, "max": 1, "plus": 2}
_PUSH_TYPES = frozenset(map(np.dtype, ("int32", "int64", "uint64")))


def pushable(monoid, dtype):
    return monoid in PUSH_MONOIDS and np.dtype(dtype) in _PUSH_TYPES


def push(monoid, multiply, dtype, u, A, held, complement):
    """``w<mask> = u ⊕.⊗ A`` from u's entries (kernels/general.cu's ``push``): ``multiply``
    as the pull over Aᵀ names it, ``held`` the mask's bool per position (None: no mask).
    Needs no Aᵀ, and a row of Aᵀ as long as FastSV's root's is no one thread's loop."""
    n = A.ncols
    identity = {0: np.iinfo(dtype).max, 1: np.iinfo(dtype).min, 2: 0}[PUSH_MONOIDS[monoid]]
    out = cupy.full(n, identity, dtype)
    found = cupy.zeros(n, cupy.uint8)
    if u.capacity:
        tw = kernels.c_type(dtype)
        lanes = kernels.lanes_for(A.nvals / max(A.nrows, 1))
        name = (f"gbgraph::push<{PUSH_MONOIDS[monoid]}, gbgraph::{kernels._MULTIPLIES[multiply]}<{tw}>, {tw}, "
                f"{kernels.c_type(A.dtype)}, {kernels.c_type(u.dtype)}, {kernels.c_type(A.indices.dtype)}, {lanes}>")
        kernels._get("general.cu", name)(
            (kernels._blocks(lanes * u.capacity),), (kernels._THREADS,),
            (kernels._ptr(u.indices), u.values, *kernels.count_args(u), A.indptr, A.indices, kernels._ptr(A.values),
             kernels._ptr(None if held is None else held.view(cupy.uint8)), np.int32(complement), out, found))
    return Vector(n, *kernels.compact("ne", Vector(n, None, out), 0, keys=found))


def masked_product(monoid, multiply, dtype, A, B, M, transpose_b):
    """``C<M> = A ⊕.⊗ B`` (B transposed first when ``transpose_b``) under the structural
    mask M: a dot product per entry of M (kernels/general.cu's ``masked_dot``)."""
    BT = B if transpose_b else B.transposed()
    b_indices = BT.indices.astype(A.indices.dtype, copy=False)
    nnz = M.nvals
    out, found = cupy.empty(nnz, dtype), cupy.empty(nnz, cupy.uint8)
    if nnz:
        tw = kernels.c_type(dtype)
        name = (f"gbgraph::masked_dot<gbgraph::{kernels._MONOIDS[monoid]}<{tw}>, "
                f"gbgraph::{kernels._MULTIPLIES[multiply]}<{tw}>, {tw}, {kernels.c_type(A.dtype)}, "
                f"{kernels.c_type(BT.dtype)}, {kernels.c_type(A.indices.dtype)}, {kernels.c_type(M.indices.dtype)}>")
        kernels._get("general.cu", name)(
            (kernels._blocks(nnz),), (kernels._THREADS,),
            (M.rows(), M.indices, np.int64(nnz), A.indptr, A.indices, kernels._ptr(A.values), BT.indptr, b_indices,
             kernels._ptr(BT.values), out, found))
    keep = found.view(bool)
    kept = cupy.zeros(nnz + 1, cupy.int64)  # kept entries before each position
    cupy.cumsum(keep, out=kept[1:])
    return Matrix(M.nrows, M.ncols, kept[M.indptr], M.indices[keep], out[keep])


#: ``dup`` operators of :func:`build`: a segmented reduction in the given order
#: (kernels/segments.cu), or the last value
BUILD_DUPS = {"plus": "plus", "times": "times", "min": "min", "max": "max", "first": "any", "second": None,
              "land": "land", "lor": "lor", "bor": "bor", "band": "band"}


def buildable(dup, dtype):
    """Whether :func:`build` combines duplicates with ``dup`` on values of ``dtype`` (float
    min / max are IEEE's fmin / fmax: the host's)."""
    dtype = np.dtype(dtype)
    if dup is None:
        return True
    dup = _ON_BOOL.get(dup, dup) if dtype == bool else dup
    return dup in BUILD_DUPS and dtype in kernels._C_TYPES and \
        not (dtype.kind == "f" and dup in ("min", "max")) and not (dtype.kind != "u" and dup in ("bor", "band"))


def build(verb, keys, values, size, dup):
    """Sorted unique keys and their values from (``keys``, ``values``), duplicates combined
    by ``dup`` in the order given (:func:`verbs.build`'s rules; bounds checked by the caller)."""
    if keys.size < 2 or bool((keys[1:] > keys[:-1]).all()):  # sorted and unique already
        return keys.copy(), values.copy()
    order = cupy.argsort(keys, kind="stable")
    keys, values = keys[order], values[order]
    boundary = cupy.ones(keys.size, bool)
    cupy.not_equal(keys[1:], keys[:-1], out=boundary[1:])
    starts = cupy.flatnonzero(boundary)
    if starts.size == keys.size:
        return keys, values
    if dup is None:
        raise ValueError(f"{verb}: duplicate indices and dup=None; pass dup, a binary operator, to combine them")
    t_out = generic.binary_types(verb, dup, values.dtype, values.dtype)[1]
    if t_out != values.dtype and dup != "pair":
        raise generic.unsupported(verb, f"dup={dup}", (values.dtype,),
                                  "dup must take and give the values' dtype (GraphBLAS domain rule)")
    name = BUILD_DUPS[_ON_BOOL.get(dup, dup) if values.dtype == bool else dup]
    if name is None:  # second: the last of each run
        ends = cupy.empty(starts.size, cupy.int64)
        ends[:-1], ends[-1] = starts[1:] - 1, keys.size - 1
        return keys[starts], values[ends]
    return keys[starts], kernels.segment_reduce(name, values, starts)


def index_values(op, i, j, t, thunk):
    """``op(i, j, thunk)`` of an index-unary operator in dtype ``t``, in one kernel: rowindex
    ``i + thunk``, colindex ``j + thunk``, diagindex ``j - (i + thunk)``
    (:func:`verbs.apply_index`); ``i`` and ``j`` are integer arrays, or 0 (a vector's column)."""
    thunk = thunk.astype(t) if isinstance(thunk, cupy.ndarray) else generic.cast(thunk, t)[()]  # a device round number stays there
    i, j = (cupy.full((), x, cupy.int64) if isinstance(x, int) else x for x in (i, j))  # R and C need arrays
    return _index_kernel(op)(i, j, thunk, cupy.empty(cupy.broadcast(i, j).shape, t))


_INDEX_FORMS = {"rowindex": "(T)row + thunk", "colindex": "(T)col + thunk", "diagindex": "(T)col - ((T)row + thunk)"}


@functools.lru_cache(maxsize=None)
def _index_kernel(op):
    return cupy.ElementwiseKernel("R row, C col, T thunk", "T out", f"out = {_INDEX_FORMS[op]}",
                                  f"gbgraph_{op}")

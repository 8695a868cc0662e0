"""The protocol's general forms the ``cupy`` backend has no device form for, run by the
``numba`` backend on copies of the operands.

The device runs every verb of gbgraph's algorithms and of ``gbgraph.lagraph`` (the kernels
and :mod:`.general`: output controls on vectors, mixed dtypes, pushed and masked products,
builds with duplicates, index operators). What still comes here, and why:

* dtypes without kernel instances (int8/16, uint8/16/32, float32): the kernels are templated
  by the five dtypes of gbgraph's algorithms (bool, int32, int64, uint64, float64);
* output controls (``out``/``accum``/``replace``) and masks on matrices, ``extract`` with
  columns or controls, a masked ``transpose``: :mod:`.general` forms the controls over dense
  arrays of a vector's length, which a matrix's n x m positions rule out;
* floating-point ``min``/``max`` reductions and build duplicates (IEEE ``fmin``/``fmax`` on
  NaN), bitwise reductions (CuPy has no reduce of its bitwise ufuncs), ``lxor``;
* semirings outside the kernels' monoids and multiplies (``any`` pushes, comparison,
  division and positional multiplies other than ``secondi``), and an unmasked ``mxm`` other
  than cupyx's ``plus_times`` and the expansion's semirings;
* user-defined operators the CUDA translation does not take.

Each copies its operands to the host, runs the ``numba`` backend's general form (whose values
and dtypes the conformance suite checks against python-graphblas), and copies the result
back: the caller gets CuPy objects, equal to every other backend's, at the price of the
copies. ``out`` and the ``w`` of ``assign`` are written in place on the device.
"""

import cupy

from ..numba import NumbaBackend
from ..numba.containers import Matrix as HostMatrix, Vector as HostVector
from .containers import Matrix, Vector

__all__ = ["call"]

_HOST = NumbaBackend()


def call(verb, *args, **kwargs):
    """``verb(*args, **kwargs)`` of the numba backend on host copies of the device
    operands; device objects (or arrays, or a scalar) back."""
    host_args = [_to_host(a) for a in args]
    host_kwargs = {k: _to_host(v) for k, v in kwargs.items()}
    result = getattr(_HOST, verb)(*host_args, **host_kwargs)
    target = kwargs.get("out") if verb != "assign" else args[0]
    if target is not None:
        return _write(target, result)
    return _to_device(result)


def _to_host(x):
    if isinstance(x, Vector):
        x.exact()
        return HostVector(x.size, None if x.indices is None else cupy.asnumpy(x.indices), cupy.asnumpy(x.values))
    if isinstance(x, Matrix):
        return HostMatrix(x.nrows, x.ncols, cupy.asnumpy(x.indptr), cupy.asnumpy(x.indices),
                          None if x.values is None else cupy.asnumpy(x.values))
    if isinstance(x, cupy.ndarray):
        return cupy.asnumpy(x)
    if isinstance(x, (tuple, list)):  # an operator's vectors (thunks, a row operator's operands)
        return tuple(_to_host(a) for a in x)
    return x


def _to_device(x):
    if isinstance(x, HostVector):
        return Vector(x.size, None if x.indices is None else cupy.asarray(x.indices), cupy.asarray(x.values))
    if isinstance(x, HostMatrix):
        return Matrix(x.nrows, x.ncols, cupy.asarray(x.indptr), cupy.asarray(x.indices),
                      None if x.values is None else cupy.asarray(x.values))
    if isinstance(x, tuple):
        return tuple(_to_device(a) for a in x)
    if hasattr(x, "__array__") and getattr(x, "ndim", 0):
        return cupy.asarray(x)
    return x


def _write(target, result):
    """Make the device object ``target`` hold the host object ``result``'s entries."""
    new = _to_device(result)
    if isinstance(target, Vector):
        target.indices, target.values, target.count = new.indices, new.values, None
    else:
        target.indptr, target.indices, target.values = new.indptr, new.indices, new.values
        target._degrees = target._transposed = None
    return target

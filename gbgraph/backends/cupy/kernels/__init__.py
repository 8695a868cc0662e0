"""gbgraph's CUDA kernels: sources (``*.cu``, ``*.cuh``) and their compiled instances.

``RawModule`` takes source text (``code=``), so each kernel instance is compiled from a
one-line translation unit that includes its family's file, with this folder on the include
path; instances are cached per device and type signature.
"""

import functools
from importlib import resources

import cupy
import numpy as np

__all__ = ["mxv_kernel", "segment_reduce", "KERNEL_DIR"]

KERNEL_DIR = str(resources.files(__name__))
_THREADS = 256
_NULL = np.uint64(0)  # a null pointer argument

_C_TYPES = {np.dtype(bool): "bool", np.dtype(np.uint8): "unsigned char", np.dtype(np.int32): "int",
            np.dtype(np.int64): "long long", np.dtype(np.uint64): "unsigned long long",
            np.dtype(np.float64): "double"}
_MONOIDS = {"min": "Min", "max": "Max", "plus": "Plus", "times": "Times", "any": "Any", "lor": "Lor",
            "land": "Land"}
_MULTIPLIES = {"first": "First", "second": "Second", "pair": "Pair", "times": "TimesOp", "secondi": "SecondI",
               "land": "LandOp"}


def c_type(dtype):
    dtype = np.dtype(dtype)
    if dtype not in _C_TYPES:
        raise NotImplementedError(f"the cupy backend has no kernels for {dtype}")
    return _C_TYPES[dtype]


@functools.lru_cache(maxsize=None)
def _function(source, name, device):
    module = cupy.RawModule(code=f'#include "{source}"\n', options=("-std=c++17", f"-I{KERNEL_DIR}"),
                            name_expressions=(name,))
    return module.get_function(name)


def mxv_kernel(monoid, multiply, out_dtype, A, u_dtype, avg_degree):
    """A launcher ``f(rows, count, indptr, indices, a, u, present, out, found)`` of the
    masked product kernel for this semiring and these types; rows, a, present and found
    may be None. Rows get a warp each when the average degree is 16 or more."""
    if monoid not in _MONOIDS or multiply not in _MULTIPLIES:
        raise NotImplementedError(f"the cupy backend has no kernel for the semiring {monoid}_{multiply}")
    warps = avg_degree >= 16
    tw = c_type(out_dtype)
    name = (f"gbgraph::mxv_{'warps' if warps else 'rows'}<gbgraph::{_MONOIDS[monoid]}<{tw}>, "
            f"gbgraph::{_MULTIPLIES[multiply]}<{tw}>, {tw}, {c_type(A.dtype)}, {c_type(u_dtype)}, "
            f"{c_type(A.indices.dtype)}>")
    kernel = _function("mxv.cu", name, cupy.cuda.Device().id)

    def launch(rows, count, indptr, indices, a, u, present, out, found):
        threads = count * 32 if warps else count
        blocks = max(1, min((threads + _THREADS - 1) // _THREADS, 1 << 20))
        kernel((blocks,), (_THREADS,), (_NULL if rows is None else rows, np.int64(count), indptr, indices,
                                        _NULL if a is None else a, u, _NULL if present is None else present,
                                        out, _NULL if found is None else found))

    return launch


def segment_reduce(monoid, values, starts):
    """``out[k]`` = ``values[starts[k]:starts[k + 1]]`` reduced in order with ``monoid``
    (``"any"`` takes the first); every segment must be non-empty."""
    out = cupy.empty(starts.size, values.dtype)
    if starts.size == 0:
        return out
    if monoid == "any":
        return values[starts]
    if monoid not in _MONOIDS:
        raise NotImplementedError(f"the cupy backend has no segmented reduction for {monoid}")
    t = c_type(values.dtype)
    name = f"gbgraph::segment_reduce<gbgraph::{_MONOIDS[monoid]}<{t}>, {t}>"
    kernel = _function("segments.cu", name, cupy.cuda.Device().id)
    blocks = max(1, min((starts.size + _THREADS - 1) // _THREADS, 1 << 20))
    kernel((blocks,), (_THREADS,), (cupy.ascontiguousarray(values), starts.astype(cupy.int64), np.int64(starts.size),
                                    np.int64(values.size), out))
    return out

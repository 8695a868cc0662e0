"""The native backend's CUDA sources and what compiles and launches them.

Each algorithm is a few whole-algorithm kernels (``mis.cu``, ``ecl.cu``, ``aggregation.cu``,
``color.cu``, ``heavy.cu``); the round loops run on the device, in cooperative kernels
whose phases meet at grid-wide barriers, so that no host waits between rounds. Sources may
include the cupy backend's (``hashing.cu``'s priorities, ``aggregation.cu``'s group scan):
the two backends share every formula that decides a result.
"""

import functools
from importlib import resources

import cupy
import numpy as np

from ...cupy.kernels import KERNEL_DIR as CUPY_KERNEL_DIR, c_type, cooperative_blocks, sources_digest

__all__ = ["function", "cooperative_blocks", "blocks", "ptr", "head", "warp_span", "c_type", "THREADS",
           "NATIVE_KERNEL_DIR"]

NATIVE_KERNEL_DIR = str(resources.files(__name__))
#: Threads per block of every native kernel.
THREADS = 256


@functools.lru_cache(maxsize=None)
def _function(source, name, cooperative, device):
    digest = sources_digest(NATIVE_KERNEL_DIR, CUPY_KERNEL_DIR)  # a new binary whenever a source changes
    module = cupy.RawModule(code=f'// gbgraph kernels {digest}\n#include "{source}"\n',
                            options=("-std=c++17", f"-I{NATIVE_KERNEL_DIR}", f"-I{CUPY_KERNEL_DIR}"),
                            name_expressions=(name,), enable_cooperative_groups=cooperative)
    return module.get_function(name)


def function(source, name, *, cooperative=False):
    """The kernel ``name`` (a C++ name expression) of ``source``, compiled once per device;
    a cooperative one is launched with ``cuLaunchCooperativeKernel``."""
    return _function(source, name, cooperative, cupy.cuda.runtime.getDevice())


@functools.lru_cache(maxsize=None)
def _multiprocessors(device):
    return cupy.cuda.Device(device).attributes["MultiProcessorCount"]


def blocks(work):
    """Blocks of an ordinary grid-stride kernel over ``work`` items (8 per multiprocessor
    at most)."""
    return max(1, min(-(-int(work) // THREADS), 8 * _multiprocessors(cupy.cuda.runtime.getDevice())))


def ptr(array):
    """A kernel argument for an optional array: the array, or a null pointer."""
    return np.uint64(0) if array is None else array


def head(array, count):
    """A new array of ``array[:count]``, copied by one ``cudaMemcpyAsync``: the copy of a
    slice launches an element-wise kernel, which took 76 against 9 µs for the 296,000
    vertices of Laplace3D 200³'s MIS-2 on the H100."""
    out = cupy.empty(count, array.dtype)
    if count:
        out.data.copy_from_device_async(array.data, count * array.itemsize)
    return out


def warp_span(n, grid):
    """List entries per warp of a kernel of ``grid`` blocks in which warp w owns the chunks
    w, w + W, w + 2W, ... of 32 vertices (W warps): the vertices of its chunks."""
    warps = grid * (THREADS // 32)
    return -(-(-(-n // 32)) // warps) * 32

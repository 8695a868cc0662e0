"""Packed MIS-2 statuses of the listed vertices in one parallel pass, hashes included: the
CPU twin of ``backends/cupy/kernels/hashing.cu``
(:class:`gbgraph.hashing.Packing` is the reference and documents the formula).
"""

import numba
import numpy as np

from .threads import parallel_above

__all__ = ["packed_statuses"]

_MULTIPLIER = np.uint64(2685821657736338717)


@numba.njit(cache=True, inline="always")
def _xorshift(x):
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    return x


@numba.njit(cache=True, inline="always")
def _hash(x, bits, star):
    """Kokkos Kernels' xorshiftHash<uint32_t or uint64_t> (star), or the plain xorshift."""
    x = _xorshift(x)
    if star:
        x = x * _MULTIPLIER - np.uint64(1)
    if bits == 32:
        x = (x >> np.uint64(16)) & np.uint64(0xFFFFFFFF)
    return x


@parallel_above(np.size, "ids")
@numba.njit(cache=True, parallel=True)
def packed_statuses(ids, r, nv, bits, star, high_bits):
    """Statuses of the vertices ``ids`` in round ``r``: int32 (the top bit flipped) for 32
    bits, else uint64, as :class:`~gbgraph.hashing.Packing` stores them."""
    round_part = _xorshift(_hash(np.uint64(r), bits, star))
    out32 = np.empty(ids.size if bits == 32 else 0, np.int32)
    out64 = np.empty(0 if bits == 32 else ids.size, np.uint64)
    for k in numba.prange(ids.size):
        i = np.uint64(ids[k])
        x = _xorshift(_hash(i, bits, star)) ^ round_part
        if star:
            x = x * _MULTIPLIER - np.uint64(1)
        if bits == 32:
            shift = nv - 16
            x = x << np.uint64(shift) if shift >= 0 else x >> np.uint64(-shift)
            x = (x & high_bits) | (i + np.uint64(1))
            out32[k] = np.int32(np.uint32(x ^ np.uint64(0x80000000)))  # wraps, as numpy's astype
        else:
            out64[k] = (x << np.uint64(nv)) | (i + np.uint64(1))
    return out32, out64

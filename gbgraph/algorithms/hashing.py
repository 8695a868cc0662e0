"""Deterministic vertex priorities: Kokkos Kernels' hash and (priority, id) packing.

This is the determinism contract of ../../docs/determinism.md in code. It is array code on
numpy or CuPy arrays (pass the array module as ``xp``), so every backend computes the same
bits, and it never imports CuPy itself.

Packed statuses (Kokkos Kernels ``graph_d2_mis``, 32-bit ordinals)
------------------------------------------------------------------
``nv = bit_length(n + 1)`` low bits hold ``i + 1``, the high bits a priority that changes
every round ``r``::

    f(x)    = uint32((xorshift(x) * 2685821657736338717 - 1) >> 16)     (64-bit arithmetic)
    T_i(r)  = (i + 1) | ((f(f(i) ^ f(r)) << nv) mod 2**32)

with ``xorshift(x) = x ^= x >> 12; x ^= x << 25; x ^= x >> 27`` on 64 bits. Because
``2**nv >= n + 2``, the low ``nv`` bits never read all ones, so ``T`` lies strictly between
IN = 0 and OUT = the all-ones value and ids break every tie.

The 64-bit packing
------------------
A graph with ``n + 2 > 2**32`` does not fit; then, as Kokkos Kernels does with 64-bit
ordinals, ``f`` keeps all 64 bits, ``f(x) = xorshift(x) * 2685821657736338717 - 1`` mod
2**64, and ``T_i(r) = (i + 1) | (f(f(i) ^ f(r)) << nv)`` mod 2**64. ``packing=64`` forces it
on any graph (then results equal Kokkos Kernels built with 64-bit ordinals).

Containers
----------
SuiteSparse's wheel precompiles semiring kernels for INT32 and UINT64 but not UINT32 (its
UINT32 ``min_second`` runs a generic kernel several times slower). So a 32-bit tuple ``x`` is
stored as the int32 ``x - 2**31`` (its top bit flipped), which keeps the order: IN becomes
-2**31 and OUT 2**31 - 1. 64-bit tuples are stored as they are, in uint64.
"""

import numpy as np

__all__ = ["MULTIPLIER", "packing_bits", "xorshift_star", "Packing"]

MULTIPLIER = np.uint64(2685821657736338717)

_ONE = np.uint64(1)
_LOW32 = np.uint64(0xFFFFFFFF)
_TOP32 = np.uint64(0x80000000)


def packing_bits(n, packing=None):
    """Width of the packed status tuples for a graph of ``n`` vertices.

    Parameters
    ----------
    n : int
    packing : {None, 32, 64}
        None picks 32 when ``n + 2 <= 2**32`` (Kokkos Kernels with 32-bit ordinals), else 64.

    Raises
    ------
    ValueError
        for another ``packing``, or ``packing=32`` with ``n + 2 > 2**32``.

    Examples
    --------
    >>> packing_bits(10), packing_bits(2**32 - 1), packing_bits(10, packing=64)
    (32, 64, 64)
    """
    if packing is None:
        return 32 if n + 2 <= 2**32 else 64
    if packing not in (32, 64):
        raise ValueError(f"packing must be None, 32 or 64, got {packing!r}")
    if packing == 32 and n + 2 > 2**32:
        raise ValueError(f"packing=32 holds at most 2**32 - 2 vertices, the graph has n = {n:,}")
    return packing


def _xorshift(x):
    """Marsaglia's 64-bit xorshift (12, 25, 27), in place on a uint64 array."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    return x


def _finish(x, bits):
    """xorshift* output from an already xorshifted word, in place: ``x * M - 1`` (>> 16)."""
    x *= MULTIPLIER
    x -= _ONE
    if bits == 32:
        x >>= np.uint64(16)
        x &= _LOW32
    return x


def xorshift_star(x, bits, xp=np):
    """Kokkos Kernels' ``xorshiftHash`` of each element of ``x``, as uint64 values.

    Parameters
    ----------
    x : array_like of non-negative integers below 2**64
    bits : {32, 64}
        32 gives ``xorshiftHash<uint32_t>``, values below 2**32; 64 gives
        ``xorshiftHash<uint64_t>``.
    xp : module
        numpy or cupy.

    Examples
    --------
    >>> xorshift_star([0, 1], 32).tolist()
    [4294967295, 3461056876]
    """
    return _finish(_xorshift(xp.array(x, dtype=xp.uint64)), bits)


class Packing:
    """Packed statuses ``T_i(r)`` of Kokkos Kernels' ``graph_d2_mis`` for one graph.

    ``xorshift`` is linear over GF(2), so ``xorshift(f(i) ^ f(r))`` equals
    ``xorshift(f(i)) ^ xorshift(f(r))``: the per-vertex half is computed once here and each
    round costs a gather and six element-wise operations per vertex.

    Parameters
    ----------
    n : int
        Number of vertices.
    bits : {32, 64}
        Tuple width, see :func:`packing_bits`.
    xp : module
        numpy or cupy.

    Attributes
    ----------
    dtype : {"int32", "uint64"}
        Container type of the statuses (see the module docstring).
    IN, OUT : numpy scalar
        The statuses of decided vertices, least and greatest of the container order.

    Examples
    --------
    >>> import numpy as np
    >>> pk = Packing(4, 32)
    >>> T = pk(np.arange(4), 0)
    >>> pk.dtype, pk.tuples(T).tolist()   # i + 1 in the low nv = 3 bits
    ('int32', [4294967289, 3015378754, 1735790219, 3700501572])
    >>> bool(pk.IN < T.min()) and bool(T.max() < pk.OUT)
    True
    """

    def __init__(self, n, bits, xp=np):
        self.n, self.bits, self.xp = n, bits, xp
        self.nv = (n + 1).bit_length()
        on_gpu = xp.__name__ == "cupy"  # the device version computes both halves in its kernel
        self._vertex_part = None if on_gpu else _xorshift(xorshift_star(xp.arange(n, dtype=xp.uint64), bits, xp))
        if bits == 32:
            self.dtype, self.IN, self.OUT = "int32", np.int32(-2**31), np.int32(2**31 - 1)
            self._high_bits = (_LOW32 >> np.uint64(self.nv)) << np.uint64(self.nv)
        else:
            self.dtype, self.IN, self.OUT = "uint64", np.uint64(0), np.uint64(2**64 - 1)

    def __call__(self, ids, r):
        """Statuses of the vertices ``ids`` (int64 array, each < n) in round ``r``."""
        xp = self.xp
        if self._vertex_part is None:
            return self.cuda(ids, None, ids.size, ids.size, r)
        round_part = _xorshift(xorshift_star([r], self.bits, xp))
        x = self._vertex_part[ids]
        x ^= round_part
        x = _finish(x, 64)
        if self.bits == 32:
            # ((x >> 16) << nv) mod 2**32, in one shift: bits 16.. of x move to nv..31
            shift = self.nv - 16
            if shift >= 0:
                x <<= np.uint64(shift)
            else:
                x >>= np.uint64(-shift)
            x &= self._high_bits
        else:
            x <<= np.uint64(self.nv)
        id1 = ids.astype(xp.uint64)
        id1 += _ONE
        x |= id1
        del id1
        if self.bits == 32:
            x ^= _TOP32
            return x.astype(xp.uint32).view(xp.int32)  # below 2**32: an exact reinterpretation
        return x

    def cuda(self, indices, count_ptr, count, capacity, r):
        """:meth:`__call__` as one CUDA kernel (``kernels/hashing.cu``), for the cupy backend's
        ``apply_index``: the vertices are ``indices[:count]`` (positions 0.. when None), the
        count may be on the device (``count_ptr``), and so may ``r`` (a captured round)."""
        from ..backends.cupy.kernels import packed_statuses

        return packed_statuses(self, indices, count_ptr, count, capacity, r)

    def tuples(self, statuses):
        """The packed tuples as Kokkos Kernels writes them (uint64 values), from statuses."""
        if self.bits == 32:
            return self.xp.asarray(statuses).view(self.xp.uint32).astype(self.xp.uint64) ^ _TOP32
        return self.xp.asarray(statuses, dtype=self.xp.uint64)


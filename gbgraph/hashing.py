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

The "Xor hash" of Table I
-------------------------
Kelley & Rajamanickam compare ``f`` = xorshift* with plain xorshift (their Table I, "Xor
Hash"): the same formulas without the multiplication, ``f(x) = uint32(xorshift(x) >> 16)``
(32 bits) or ``xorshift(x)`` (64 bits). MIS-2 then needs two to three times the rounds
(../../docs/mis_family.md); ``Packing`` takes ``priority_hash="xorshift"`` for that
experiment only.

Containers
----------
SuiteSparse's wheel precompiles semiring kernels for INT32 and UINT64 but not UINT32 (its
UINT32 ``min_second`` runs a generic kernel several times slower). So a 32-bit tuple ``x`` is
stored as the int32 ``x - 2**31`` (its top bit flipped), which keeps the order: IN becomes
-2**31 and OUT 2**31 - 1. 64-bit tuples are stored as they are, in uint64.
"""

import numpy as np

from ._checks import check_integer

__all__ = ["MULTIPLIER", "HASHES", "packing_bits", "xorshift_star", "xorshift", "Packing", "FixedPacking"]

MULTIPLIER = np.uint64(2685821657736338717)
#: Names of the priority hashes: Kokkos Kernels' xorshift* and Table I's plain xorshift.
HASHES = ("xorshift*", "xorshift")

_ONE = np.uint64(1)
_LOW32 = np.uint64(0xFFFFFFFF)
_TOP32 = np.uint64(0x80000000)


def packing_bits(n, packing=None, priority_bits=0):
    """Width of the packed status tuples for a graph of ``n`` vertices.

    Parameters
    ----------
    n : int
    packing : {None, 32, 64}
        None picks 32 when the id ``i + 1`` and ``priority_bits`` bits fit in 32 bits, that is
        ``n + 2 <= 2**(32 - priority_bits)`` (Kokkos Kernels with 32-bit ordinals), else 64.
    priority_bits : int
        Bits the priorities need beside the id: 0 for hashed priorities (they take what is
        left), 7 for ECL-MIS's 127 degree levels.

    Raises
    ------
    ValueError
        for another ``packing``, or ``packing=32`` on a graph too large for it.
    TypeError
        for a ``packing`` that is not an integer (numpy integers are).

    Examples
    --------
    >>> packing_bits(10), packing_bits(2**32 - 1), packing_bits(10, packing=64)
    (32, 64, 64)
    >>> packing_bits(2**25 - 2, priority_bits=7), packing_bits(2**25 - 1, priority_bits=7)
    (32, 64)
    """
    fits_32 = (n + 1).bit_length() + priority_bits <= 32
    if packing is None:
        return 32 if fits_32 else 64
    packing = check_integer("packing", packing)
    if packing not in (32, 64):
        raise ValueError(f"packing must be None, 32 or 64, got {packing!r}")
    if packing == 32 and not fits_32:
        raise ValueError(f"packing=32 holds at most 2**{32 - priority_bits} - 2 vertices here, "
                         f"the graph has n = {n:,}")
    return packing


def _xorshift(x):
    """Marsaglia's 64-bit xorshift (12, 25, 27), in place on a uint64 array."""
    x ^= x >> np.uint64(12)
    x ^= x << np.uint64(25)
    x ^= x >> np.uint64(27)
    return x


def _finish(x, bits, star=True):
    """Hash output from an already xorshifted word, in place: xorshift* multiplies by M and
    subtracts 1 (plain xorshift does not); the 32-bit hashes keep bits 16..47."""
    if star:
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


def xorshift(x, bits, xp=np):
    """Table I's "Xor hash": :func:`xorshift_star` without the multiplication, as uint64.

    Parameters are those of :func:`xorshift_star`.

    Examples
    --------
    >>> xorshift([0, 1], 32).tolist()   # 1 -> 1 ^ 1 << 25 = 0x2000001, then bits 16..47
    [0, 512]
    """
    return _finish(_xorshift(xp.array(x, dtype=xp.uint64)), bits, star=False)


def _stored(tuples, bits, xp):
    """Container statuses from uint64 tuples (consumed): int32 with the top bit flipped, or
    the uint64 values themselves."""
    if bits == 32:
        tuples ^= _TOP32
        return tuples.astype(xp.int32)
    return tuples


class _Statuses:
    """What every kind of packed status shares: the id field, IN, OUT and the container."""

    def __init__(self, n, bits, xp):
        self.n, self.bits, self.xp = n, bits, xp
        self.nv = (n + 1).bit_length()
        if bits == 32:
            self.dtype, self.IN, self.OUT = "int32", np.int32(-2**31), np.int32(2**31 - 1)
        else:
            self.dtype, self.IN, self.OUT = "uint64", np.uint64(0), np.uint64(2**64 - 1)

    def tuples(self, statuses):
        """The packed tuples as Kokkos Kernels writes them (uint64 values), from statuses."""
        if self.bits == 32:
            return self.xp.asarray(statuses).view(self.xp.uint32).astype(self.xp.uint64) ^ _TOP32
        return self.xp.asarray(statuses, dtype=self.xp.uint64)


class Packing(_Statuses):
    """Packed statuses ``T_i(r)`` of Kokkos Kernels' ``graph_d2_mis`` for one graph.

    They change every round (``refresh`` is True). ``xorshift`` is linear over GF(2), so
    ``xorshift(f(i) ^ f(r))`` equals ``xorshift(f(i)) ^ xorshift(f(r))``: the per-vertex half
    is computed once and each round costs a gather and six element-wise operations per
    vertex. It is computed at the first call, for the range of ids asked for (widened when
    a later call asks outside it): a rank of the mpi backend, which asks for its block only,
    computes its block only.

    Parameters
    ----------
    n : int
        Number of vertices.
    bits : {32, 64}
        Tuple width, see :func:`packing_bits`.
    xp : module
        numpy or cupy.
    priority_hash : {"xorshift*", "xorshift"}
        ``f`` of the module docstring: Kokkos Kernels' xorshift* (default), or Table I's
        plain xorshift.

    Attributes
    ----------
    dtype : {"int32", "uint64"}
        Container type of the statuses (see the module docstring).
    IN, OUT : numpy scalar
        The statuses of decided vertices, least and greatest of the container order.
    priority_hash : str
        The ``f`` in use.

    Raises
    ------
    ValueError
        for an unknown ``priority_hash``.

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

    refresh = True

    def __init__(self, n, bits, xp=np, priority_hash="xorshift*"):
        if priority_hash not in HASHES:
            raise ValueError(f"priority_hash must be 'xorshift*' or 'xorshift', got {priority_hash!r}")
        super().__init__(n, bits, xp)
        self.priority_hash = priority_hash
        self._star = priority_hash == "xorshift*"
        self._f = xorshift_star if self._star else xorshift
        self._on_gpu = xp.__name__ == "cupy"  # the device version computes both halves in its kernel
        self._lo, self._vertex_part = 0, xp.empty(0, xp.uint64)  # xorshift(f(i)) for ids _lo, _lo + 1, ...
        if bits == 32:
            self._high_bits = (_LOW32 >> np.uint64(self.nv)) << np.uint64(self.nv)

    def __call__(self, ids, r):
        """Statuses of the vertices ``ids`` (int64 array, each < n) in round ``r``."""
        xp = self.xp
        if self._on_gpu:
            return self.cuda(ids, None, ids.size, ids.size, r)
        round_part = _xorshift(self._f([r], self.bits, xp))
        x = self._vertex_parts(ids)
        x ^= round_part
        x = _finish(x, 64, self._star)
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
        return _stored(x, self.bits, xp)

    def _vertex_parts(self, ids):
        """``xorshift(f(i))`` of each id of ``ids`` (sorted), from the range computed so far,
        widened to hold them."""
        xp = self.xp
        if not ids.size:
            return xp.empty(0, xp.uint64)
        first, stop = int(ids[0]), int(ids[-1]) + 1
        end = self._lo + self._vertex_part.size
        if first < self._lo or stop > end:
            lo, hi = (first, stop) if not self._vertex_part.size else (min(first, self._lo), max(stop, end))
            self._lo, self._vertex_part = lo, _xorshift(self._f(xp.arange(lo, hi, dtype=xp.uint64), self.bits, xp))
        return self._vertex_part[ids - self._lo if self._lo else ids]

    def numba(self, ids, r):
        """:meth:`__call__` as one parallel numba kernel (``backends/numba/kernels/hashing.py``),
        for the numba backend's ``apply_index``."""
        from .backends.numba.kernels.hashing import packed_statuses

        high = self._high_bits if self.bits == 32 else np.uint64(0)
        out32, out64 = packed_statuses(ids, int(r), self.nv, self.bits, self._star, high)
        return out32 if self.bits == 32 else out64

    def cuda(self, indices, count_ptr, count, capacity, r):
        """:meth:`__call__` as one CUDA kernel (``kernels/hashing.cu``), for the cupy backend's
        ``apply_index``: the vertices are ``indices[:count]`` (positions 0.. when None), the
        count may be on the device (``count_ptr``), and so may ``r`` (a recorded round)."""
        from .backends.cupy.kernels import packed_statuses

        return packed_statuses(self, indices, count_ptr, count, capacity, r, star=self._star)


class FixedPacking(_Statuses):
    """Statuses fixed for the whole run (``refresh`` is False): Bell et al.'s MIS-k, the
    random-permutation MIS, ECL-MIS and Kokkos Kernels' ``MIS2_QUALITY``.

    Parameters
    ----------
    statuses : array
        Container statuses of every vertex (dtype of :class:`Packing` for ``bits``).
    bits : {32, 64}
    xp : module
        numpy or cupy.

    Attributes
    ----------
    values : array
        ``statuses``: the status of every vertex, in every round.

    Examples
    --------
    >>> import numpy as np
    >>> fp = FixedPacking.from_priorities(np.array([3, 0, 3], np.uint64), 32)
    >>> fp.tuples(fp(np.arange(3), 5)).tolist()   # (p << nv) | (i + 1), nv = 3; any round
    [25, 2, 27]
    """

    refresh = False

    def __init__(self, statuses, bits, xp=np):
        super().__init__(statuses.size, bits, xp)
        self.values = statuses
        self._device_values = None

    @classmethod
    def from_priorities(cls, priorities, bits, xp=np):
        """Statuses ``(p_i << nv) | (i + 1)`` from uint64 priorities (lower wins, ids break ties).

        Raises
        ------
        ValueError
            if a priority does not fit in the ``bits - nv`` bits beside the id.
        """
        n = priorities.size
        nv = (n + 1).bit_length()
        if n and int(priorities.max()) >> (bits - nv):
            raise ValueError(f"priorities must be below 2**{bits - nv} for n = {n:,} and {bits}-bit "
                             f"statuses, got {int(priorities.max())}")
        x = priorities.astype(xp.uint64) << np.uint64(nv)
        x |= xp.arange(1, n + 1, dtype=xp.uint64)
        return cls(_stored(x, bits, xp), bits, xp)

    def __call__(self, ids, r):
        """Statuses of the vertices ``ids``; the same in every round ``r``."""
        return self.values[ids]

    def cuda(self, indices, count_ptr, count, capacity, r):
        """:meth:`__call__` for the cupy backend's ``apply_index``, with the count of
        ``indices`` possibly on the device (see :meth:`Packing.cuda`); statuses held on the
        host (the mpi backend's, whose blocks may be on the GPU) are copied there once."""
        import cupy

        from .backends.cupy.kernels import gather

        if self._device_values is None:
            self._device_values = cupy.asarray(self.values)  # the same array when it is on the device
        return gather(self._device_values, indices, count_ptr, count, capacity)

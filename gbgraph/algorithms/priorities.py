"""Fixed vertex priorities of the MIS family, packed as statuses (numpy or cupy arrays).

Each function returns a :class:`~gbgraph.hashing.FixedPacking`: vertex ``i``'s
status ``(p_i << nv) | (i + 1)`` stays the same in every round, the lower status wins, and
the id in the low bits breaks ties. The rules are those of ../../docs/determinism.md:

* :func:`fixed_random`: the round-0 statuses of Kokkos Kernels' hash (Bell, Dalton and
  Olson's fixed random priorities; the random-permutation MIS of CUSP, PBBS and Pannotia).
* :func:`ecl_degree`: ECL-MIS's ``f(x) = d_avg / (d_avg + x)``, ``x = d(v) - rand(v)``,
  rounded to 127 levels as ECL-MIS rounds it into a byte; lower degree wins.
* :func:`kokkos_quality`: Kokkos Kernels' ``MIS2_QUALITY`` normalised degree, in float32 as
  Kokkos Kernels computes it; lower degree wins.

Like :mod:`~gbgraph.hashing`, this is array code written against ``xp`` so that
every backend computes the same bits; it never imports CuPy.
"""

import numpy as np

from ..hashing import FixedPacking, Packing, xorshift_star

__all__ = ["ECL_LEVELS", "ECL_PRIORITY_BITS", "fixed_random", "ecl_degree", "kokkos_quality"]

#: ECL-MIS's largest priority: a byte holds IN = 254, OUT = 0 and the odd values
#: ``2 * level + 1`` for ``level`` in 0..126, where ``level = round(126 * f(x))``.
ECL_LEVELS = 126
#: Bits the ECL-MIS levels 0..126 take beside the vertex id.
ECL_PRIORITY_BITS = 7


def fixed_random(n, bits, xp=np, priority_hash="xorshift*"):
    """The statuses of round 0 of :class:`~gbgraph.hashing.Packing`, kept fixed.

    Parameters
    ----------
    n : int
        Number of vertices.
    bits : {32, 64}
        Status width.
    xp : module
        numpy or cupy.
    priority_hash : {"xorshift*", "xorshift"}
        The hash ``f`` of ``h(0, i) = f(f(0) ^ f(i))``.

    Returns
    -------
    FixedPacking

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph.hashing import Packing
    >>> ids = np.arange(5)
    >>> bool(np.all(fixed_random(5, 32)(ids, 7) == Packing(5, 32)(ids, 0)))
    True
    """
    statuses = Packing(n, bits, xp, priority_hash)(xp.arange(n, dtype=xp.int64), 0)
    return FixedPacking(statuses, bits, xp)


def ecl_degree(degrees, bits, xp=np):
    """ECL-MIS's degree priorities [1]_: the level of ``f(x) = d_avg / (d_avg + x)``.

    With ``x = d(v) - rand(v)`` and ``rand(v) = f32(v) / 2**32`` in [0, 1) (``f32`` is
    Kokkos Kernels' 32-bit xorshift* hash), ECL-MIS stores ``level = round(126 * f(x))``
    and lets the higher level win. gbgraph's priority is ``p = 126 - level`` (the lower
    wins). A vertex of degree d >= 1 has ``d - 1 < x <= d``: every vertex of lower degree
    has at least the level of any vertex of higher degree, and ``rand`` orders vertices of
    equal degree. ``d_avg`` is the number of stored entries over n (both directions of
    each edge).

    Parameters
    ----------
    degrees : array of int
        Degree of every vertex (``xp`` array).
    bits : {32, 64}
        Status width; 32 needs ``n + 2 <= 2**25`` (7 bits for the level).
    xp : module
        numpy or cupy.

    Returns
    -------
    FixedPacking

    Notes
    -----
    ECL-MIS computes in float32, where ``rand`` can round up to 1.0; gbgraph computes
    ``(126 * d_avg) / (d_avg + x)`` in float64, which keeps ``rand < 1``, and rounds half to
    even (``rint``, as CUDA's ``__float2int_rn`` in ECL-MIS's GPU code). Isolated vertices,
    which ECL-MIS puts in the set at once, get the best priority 0. Ties in the level go to
    the lower id (ECL-MIS: the higher id).

    References
    ----------
    .. [1] M. Burtscher, S. Devale, S. Azimi, J. Jaiganesh and E. Powers, "A high-quality
       and fast maximal independent set implementation for GPUs," ACM Trans. Parallel
       Comput. 5(2), 8:1-8:27, 2018. https://doi.org/10.1145/3291525

    Examples
    --------
    >>> import numpy as np
    >>> fp = ecl_degree(np.array([1, 3, 1, 1]), 32)    # a star: the centre has degree 3
    >>> p = fp.tuples(fp(np.arange(4), 0)) >> np.uint64(fp.nv)
    >>> p.tolist(), bool(p[1] > p[[0, 2, 3]].max())   # the leaves come first
    ([0, 75, 26, 35], True)
    """
    n = degrees.size
    priorities = xp.zeros(n, xp.uint64)
    linked = xp.flatnonzero(degrees > 0)
    if linked.size:
        average = float(degrees.sum()) / n
        rand = xorshift_star(linked, 32, xp).astype(xp.float64)
        rand /= 2.0**32
        x = degrees[linked] - rand
        x += average
        level = xp.rint(ECL_LEVELS * average / x)
        priorities[linked] = (ECL_LEVELS - level).astype(xp.uint64)
    return FixedPacking.from_priorities(priorities, bits, xp)


def kokkos_quality(degrees, bits, xp=np):
    """Kokkos Kernels' ``MIS2_QUALITY`` priorities: the degree normalised to [0, 1], in float32.

    ``D2_MIS_FixedPriority::InitRowStatus`` computes, with ``R = 2**(bits - nv) - 2``,
    ``score = float32(d - d_min) * (1.f / (d_max - d_min))`` and the priority
    ``uint(score * float32(R))``. gbgraph does the same float32 operations, with two
    definitions where Kokkos Kernels' result is not a degree order:

    * all degrees equal (``d_max == d_min``, where Kokkos Kernels computes 0 * inf): every
      priority is 0, so the lower id wins;
    * ``float32(R)`` rounds up to ``2**(bits - nv)`` when ``R`` needs more than 24 bits
      (graphs with n + 1 < 128 in 32 bits, every graph in 64 bits), and the highest
      degrees' priorities then wrap around to the best one in Kokkos Kernels; gbgraph clamps
      them to ``R``.

    Elsewhere the statuses equal Kokkos Kernels' bit for bit.

    Parameters
    ----------
    degrees : array of int
        Degree of every vertex (``xp`` array). Kokkos Kernels counts the stored row, which
        differs by one only where the diagonal is stored; gbgraph counts neighbours.
    bits : {32, 64}
        Status width.
    xp : module
        numpy or cupy.

    Returns
    -------
    FixedPacking

    Examples
    --------
    >>> import numpy as np
    >>> fp = kokkos_quality(np.array([1, 3, 1, 1]), 32)
    >>> (fp.tuples(fp(np.arange(4), 0)) >> np.uint64(fp.nv)).tolist()   # R = 2**29 - 2
    [0, 536870910, 0, 0]
    """
    n = degrees.size
    top = max((1 << (bits - (n + 1).bit_length())) - 2, 0)
    priorities = xp.zeros(n, xp.uint64)
    if n and int(degrees.max()) > int(degrees.min()):
        low = int(degrees.min())
        inverse = np.float32(1) / np.float32(int(degrees.max()) - low)
        score = (degrees - low).astype(xp.float32)
        score *= inverse
        score *= np.uint64(top).astype(np.float32)
        priorities = xp.minimum(score.astype(xp.uint64), np.uint64(top))
    return FixedPacking.from_priorities(priorities, bits, xp)

"""Maximal independent sets as semiring rounds.

``mis2`` is Algorithm 1 of Kelley & Rajamanickam [1]_ (Kokkos Kernels ``graph_d2_mis`` with
``MIS2_FAST``), bit for bit: read it beside the paper, the comments give its line numbers.
"""

from dataclasses import dataclass

from .. import backends
from ..errors import StallError
from ..graph import as_graph
from .hashing import Packing, packing_bits

__all__ = ["MISResult", "mis2"]


@dataclass(frozen=True)
class MISResult:
    """An independent set and the number of rounds that found it.

    Attributes
    ----------
    vertices : array
        Sorted int64 vertex ids (numpy on CPU backends).
    iterations : int
        Rounds of the main loop (Kokkos Kernels counts the same).
    """

    vertices: object
    iterations: int

    def __repr__(self):
        return f"MISResult(|vertices|={len(self.vertices):,}, iterations={self.iterations})"


def mis2(A, backend=None, *, packing=None, max_iter=None):
    """Distance-2 maximal independent set, deterministic, equal to Kokkos Kernels'.

    No two chosen vertices are joined by a path of one or two edges, and every other vertex
    has a chosen vertex within two edges. The set is the one Kokkos Kernels'
    ``graph_d2_mis(..., MIS2_FAST)`` returns on the same graph (Kokkos Kernels >= 3.6 with
    32-bit ordinals), on every backend and thread count.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its pattern must be symmetric.
    backend : str or Backend, optional
        ``"suitesparse"`` or ``"cupy"``; None picks ``"cupy"`` for GPU input (cupyx sparse,
        CuPy arrays), else ``"suitesparse"``.
    packing : {None, 32, 64}, optional
        Width of the packed (priority, id) statuses, see
        :func:`gbgraph.algorithms.hashing.packing_bits`. None: 32 bits when
        ``n + 2 <= 2**32``, else 64 (Kokkos Kernels with 64-bit ordinals).
    max_iter : int, optional
        Most rounds to run. The default, ``n + 1``, is never reached: each round decides at
        least the undecided vertex of least status.

    Returns
    -------
    MISResult
        ``vertices`` (sorted int64: numpy on the CPU, CuPy on the GPU) and ``iterations``.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.
    ValueError
        for a bad ``packing`` or ``max_iter``.
    StallError
        if ``max_iter`` rounds leave vertices undecided (the message says how many).
    MemoryError
        if the GPU runs out of memory (the message gives the graph's size).

    Notes
    -----
    Each round costs two masked ``min_second`` products over the closed neighbourhoods
    (pattern of A + I): about two SpMVs while the worklists are dense, less as they shrink.
    Expect O(log n) rounds (Luby's bound, [1]_ section IV).

    References
    ----------
    .. [1] B. Kelley and S. Rajamanickam, "Parallel, portable algorithms for distance-2
       maximal independent set and graph coarsening," IPDPS 2022, pp. 280-290.
       https://doi.org/10.1109/IPDPS53621.2022.00035

    Examples
    --------
    >>> import gbgraph as gg
    >>> r = gg.mis2(gg.generators.laplace3d(5))
    >>> r.vertices[:6].tolist(), len(r.vertices), r.iterations
    ([4, 5, 12, 23, 26, 33], 16, 6)
    >>> gg.validate.is_mis(gg.generators.laplace3d(5), r.vertices, distance=2)
    True
    """
    graph = as_graph(A, weights=False)
    be = backends.for_graph(backend, graph)
    bits = packing_bits(graph.n, packing)
    max_iter = graph.n + 1 if max_iter is None else _positive(max_iter)
    with be.guard(graph):
        return _mis2(be, graph, bits, max_iter)


def _mis2(be, graph, bits, max_iter, candidates=None):
    """[1] Algorithm 1 with the two worklists as masks.

    ``candidates`` (a boolean vector, structure used) restricts the set to those vertices,
    as Kokkos Kernels' ``D2_MIS_RandomPriority::compute(mask)`` does: the others start OUT,
    distances still run through the whole graph.

    ``T`` holds row statuses: IN (least), OUT (greatest), else the packed priority of the
    round. ``M`` holds column statuses as the plain minimum of T over the closed
    neighbourhood, so IN in M means "an IN vertex is adjacent", which Kokkos Kernels writes
    as OUT_SET (l.19-20): then one ``min_second`` product decides both tests of l.25-30.
    Each step is a function, so that its temporaries are freed when it returns.
    """
    n = graph.n
    if n == 0:
        return MISResult(be.xp.empty(0, be.xp.int64), 0)
    A = be.adjacency(graph, closed=True)
    status = Packing(n, bits, be.xp)
    T = be.full(n, status.OUT, status.dtype)
    M = be.full(n, status.IN, status.dtype)
    wl2 = be.full(n, True, "bool")  # l.6-7
    wl1 = wl2 if candidates is None else candidates

    def round_(wl1, wl2, it, shrink=True):  # l.10-34
        _refresh_rows(be, T, wl1, status, it)
        wl2 = _refresh_columns(be, A, T, M, wl2, status, shrink)
        return _decide(be, A, T, M, wl1, status), wl2

    rounds = 0
    if be.nvals(wl1):  # l.9
        # in round 0 without candidates every T is a priority, so no column can leave
        wl1, wl2 = round_(wl1, wl2, 0, shrink=candidates is not None)
        (wl1, wl2), rounds = be.iterate(round_, (wl1, wl2), first=1, stop=max_iter)
    if be.nvals(wl1):
        raise StallError(f"mis2: {be.nvals(wl1):,} of {n:,} vertices undecided after max_iter={max_iter} rounds")
    return MISResult(be.indices(be.select("valueeq", T, status.IN)), rounds)


def _refresh_rows(be, T, wl1, status, it):
    """l.11-15: ``T<wl1> = (h(it, i) << nv) | (i + 1)``, an index-unary apply."""
    P = be.apply_index(status, wl1, it)
    be.assign(T, P, mask=P)


def _refresh_columns(be, A, T, M, wl2, status, shrink):
    """l.17-22 and l.34: ``M<wl2> = A ⊕min.second T``; returns the next wl2.

    The next wl2 keeps the columns with IN < M < OUT: no IN vertex adjacent and not all
    neighbours OUT. In round 0 without candidates every T is a priority, so no column can
    leave (``shrink`` is False): all of Mw is the next wl2 (a closed neighbourhood is never
    empty), a mask of the same type as the later ones.
    """
    Mw = be.mxv("min_second", A, T, mask=wl2)
    be.assign(M, Mw, mask=wl2)
    if not shrink:
        return Mw
    return be.select("valuelt", be.select("valuegt", Mw, status.IN), status.OUT)


def _decide(be, A, T, M, wl1, status):
    """l.24-31 and l.33: mark rows IN or OUT; returns the next wl1 (the undecided rows).

    ``D<wl1> = A ⊕min.second M`` is IN if an IN vertex is within distance 2 (l.25-27), and
    equals T_v if every M_w in N[v] does, since M_w <= T_v always (l.28-30).
    """
    D = be.mxv("min_second", A, M, mask=wl1)
    be.assign(T, status.IN, mask=be.ewise_mult("eq", D, T), structure=False)
    be.assign(T, status.OUT, mask=be.select("valueeq", D, status.IN))
    # undecided: min(D, T) > IN, now that T is IN or OUT wherever D decided
    return be.select("valuegt", be.ewise_mult("min", D, T), status.IN)


def _positive(max_iter):
    if isinstance(max_iter, bool) or not isinstance(max_iter, int) or max_iter < 1:
        raise ValueError(f"max_iter must be a positive integer, got {max_iter!r}")
    return max_iter

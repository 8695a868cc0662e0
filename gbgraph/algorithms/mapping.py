"""Fine-to-coarse vertex mappings of multilevel coarsening, as semiring algebra.

``coarse_mapping(A, method)`` gives each vertex its coarse vertex by one of the mappings
Gilbert et al. compare [1]_: heavy edge coarsening (HEC and HEC3, ``heavy.py``), heavy edge
matching and mt-Metis' two-hop matching (``matching.py``), GOSH and the GOSH/HEC hybrid
(``gosh.py``), and MIS-2 aggregation (``aggregation.py``). Every decision is a function of
the graph and the seed, so the result is the same on every run, thread count and backend.
"""


import numpy as np

from .. import backends
from .._checks import check_integer
from .._labels import labelled
from ..results import CoarseMapping
from ..graph import as_graph, check_symmetric_values
from . import gosh, heavy, matching
from .aggregation import aggregate

__all__ = ["CoarseMapping", "coarse_mapping", "METHODS", "WEIGHTED_METHODS"]

_ALGORITHMS = {"hec": heavy.hec, "hec3": heavy.hec3, "hem": matching.hem, "mtmetis": matching.mtmetis,
               "gosh": gosh.gosh, "gosh_hec": gosh.gosh_hec}
#: The mappings of :func:`coarse_mapping`.
METHODS = tuple(_ALGORITHMS) + ("mis2", "mis2_basic")
#: The mappings that read edge weights (the others read the pattern).
WEIGHTED_METHODS = ("hec", "hec3", "hem", "mtmetis", "gosh_hec")
_SEEDS = 2**63  # the GPU's hash kernel takes the seed as a signed 64-bit round number



def coarse_mapping(A, method="hec", *, seed=0, backend=None):
    """The fine-to-coarse vertex mapping of one coarsening level.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts. Its values are edge weights (a pattern
        weighs 1 everywhere); the mappings that read them need them finite, non-negative and
        symmetric.
    method : {"hec", "hec3", "hem", "mtmetis", "gosh", "gosh_hec", "mis2", "mis2_basic"}
        ``"hec"``: heavy edge coarsening, [1]_ Algorithm 3 exactly, visiting the vertices
        by decreasing hash: each vertex still unmapped when visited joins the coarse vertex
        of its heaviest neighbour. ``"hec3"``: [1]_ Algorithm 5, the heavy-edge
        pseudoforest with mutual pairs collapsed. ``"hem"``: heavy edge matching ([1]_
        Algorithm 2's rule) by rounds of mutual heaviest proposals; maximal, groups of one
        or two adjacent vertices. ``"mtmetis"``: HEM, then mt-Metis' two-hop matching of
        leaves, twins and relatives while more than 25% of the vertices are unmatched
        [2]_. ``"gosh"``: GOSH's clusters around an independent set of centres chosen by
        decreasing degree, no two vertices above the mean degree merged [3]_.
        ``"gosh_hec"``: the GOSH/HEC hybrid ([1]_'s report, Algorithm 16). ``"mis2"``,
        ``"mis2_basic"``: :func:`gbgraph.aggregate`, Kokkos Kernels' labels.
    seed : int
        Shifts the hash that orders vertices and breaks ties (equal weights, unweighted
        graphs), from 0 to 2**63 - 1; the MIS-2 aggregations take none (0 only).
    backend : str or Backend, optional
        None picks ``"cupy"`` for GPU input, else ``"numba"``.

    Returns
    -------
    CoarseMapping
        ``labels`` (int64, on the input's device; a dict node -> coarse vertex for a
        networkx graph), ``n_coarse``, ``rounds``.

    Raises
    ------
    ValueError
        for an unknown method, a seed out of range (or not 0 with ``"mis2"``,
        ``"mis2_basic"``), negative, NaN or infinite weights with a method that reads them
        (the message gives their count), asymmetric weights with such a method
        (:class:`~gbgraph.errors.AsymmetricValuesError`, naming the largest difference
        ``|A[i, j] - A[j, i]|``; :func:`gbgraph.symmetrize` with ``values="max"`` or
        ``"sum"`` makes them symmetric), or a graph too large for the packed keys.
    TypeError
        for a seed that is not an integer (numpy integers are).
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    Notes
    -----
    Heavy neighbours are one row-wise max-reduction of (weight, key) pairs, with keys
    ``hash(v, seed) << nv | (v + 1)``; proposals, mutual checks and the order of
    Algorithm 3 are masked products over the heavy-neighbour matrix, and pointer jumping
    is a gather by the vector's own values. ``docs/coarsening.md`` says which mapping to
    use for what.

    References
    ----------
    .. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
       "Performance-portable graph coarsening for efficient multilevel graph analysis,"
       IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030; extended
       report https://doi.org/10.26207/mwqw-fb88
    .. [2] D. LaSalle, M. M. A. Patwary, N. Satish, N. Sundaram, P. Dubey and G. Karypis,
       "Improving graph partitioning for modern graphs and architectures," IA3 2015.
       https://doi.org/10.1145/2833179.2833188
    .. [3] T. A. Akyildiz, A. A. Aljundi and K. Kaya, "GOSH: Embedding big graphs on small
       hardware," ICPP 2020. https://doi.org/10.1145/3404397.3404456

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> A = gg.generators.laplace3d(10) != 0             # the pattern: every edge weighs 1
    >>> m = gg.coarse_mapping(A, "hem")
    >>> counts = np.bincount(m.labels)
    >>> bool(counts.max() <= 2), counts.size == m.n_coarse   # pairs and singletons
    (True, True)
    >>> h = gg.coarse_mapping(A, "hec")
    >>> h.n_coarse < m.n_coarse                         # HEC coarsens faster than a matching
    True
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    seed = check_integer("seed", seed, 0, _SEEDS - 1)
    if seed and method in ("mis2", "mis2_basic"):
        raise ValueError(f"method {method!r} has Kokkos Kernels' fixed priorities and takes no seed, got seed={seed}")
    graph = as_graph(A, weights=method in WEIGHTED_METHODS)
    be = backends.for_graph(backend, graph)
    graph = graph.on_device_of(be.xp)
    with be.guard(graph):
        return labelled(A, map_vertices(be, graph, method, seed), maps=("labels",))


def map_vertices(be, graph, method, seed, cap=None, weights=None):
    """:func:`coarse_mapping` on a canonical graph already on the backend's device; with a
    ``cap`` (method ``"hec"`` only), :func:`~gbgraph.algorithms.heavy.capped_hec` over the
    vertex ``weights`` (int64)."""
    xp = be.xp
    if method in ("mis2", "mis2_basic"):
        agg = aggregate(graph, method, backend=be)
        return CoarseMapping(agg.labels, agg.n_aggregates, method)
    if graph.n == 0:
        return CoarseMapping(xp.empty(0, xp.int64), 0, method, 0)
    if method in WEIGHTED_METHODS:
        check_weights(graph)
        check_symmetric_values(graph, _HEAVY_REMEDY)
    weighted = graph.weights is not None and method in WEIGHTED_METHODS
    host = be.fused("capped_hec") if method == "hec" and graph.nnz <= COMPILED_HEC_ENTRIES else None
    if host is not None:  # backend="numba": HEC and its cap in one compiled call, the verbs' labels and rounds
        alike = not weighted or _equal_weights(graph)
        labels, count, rounds = host(graph, heavy.host_keys(graph, seed), alike, weights, cap, heavy.CAP_PASSES)
        return CoarseMapping(labels, count, method, rounds)
    fused = be.fused(method)
    if fused is not None:  # backend="native": Algorithm 3 as fused kernels, the verbs' labels and rounds
        labels, count, rounds = fused(graph, seed)
        if cap is None or heavy.within_cap(be, labels, count, weights, cap):  # then capped_hec's own result
            return CoarseMapping(labels, count, method, rounds)
    A = be.adjacency(graph, weighted=weighted)
    alike = not weighted or _equal_weights(graph)  # then keys alone decide heavy neighbours
    keys = heavy.Keys(be, graph, seed, alike)
    if cap is not None:
        labels, count, rounds = heavy.capped_hec(be, graph, A, keys, weights, cap)
    else:
        labels, count, rounds = _ALGORITHMS[method](be, graph, A, keys)
    return CoarseMapping(labels, count, method, rounds)


#: Levels of at most this many stored entries take the numba backend's compiled HEC
#: (``fused("capped_hec")``, sequential) instead of the verbs: on small levels the verbs'
#: calls from Python were most of the time (one thread, levels of 50-1,400 vertices: 0.13-0.17
#: ms -> 0.005-0.04 ms), on large ones the verbs' products run on every thread (one thread:
#: about even at 10⁶ entries; docs/partitioning_history.md, "Session 11").
COMPILED_HEC_ENTRIES = 1 << 20


def _equal_weights(graph):
    """Whether every weight equals the first (decided once per graph; a prefix first, so that
    a coarse level of summed weights is seldom read through)."""
    def check():
        w = graph.weights
        return w.size == 0 or (bool((w[:64] == w[0]).all()) and bool((w == w[0]).all()))

    return graph.cached(("mapping", "equal weights"), check)


#: Why heavy edges need symmetric weights, and what to do (ends the error message).
_HEAVY_REMEDY = ("heavy edge mappings read an edge's weight from both of its ends, which must agree; make the values "
                 "symmetric with gg.symmetrize(A, values=\"max\") or values=\"sum\", or use the pattern, "
                 "gg.as_graph(A, weights=False)")

#: The Graph cache key of :func:`check_weights`' count (coarse levels inherit a zero).
BAD_WEIGHTS = ("mapping", "bad weights")


def check_weights(graph):
    """Weights decide which edge is heaviest: negative, NaN and infinite ones raise."""
    bad = graph.cached(BAD_WEIGHTS, lambda: _count_bad(graph.weights))
    if bad:
        raise ValueError(f"A has {bad:,} negative, NaN or infinite weights among its {graph.nnz:,} off-diagonal entries; "
                         "coarse mappings look for the heaviest edges, so weights must be finite and >= 0 (use the "
                         "pattern, gg.as_graph(A, weights=False), or abs(A))")


def _count_bad(weights):
    if weights is None:
        return 0
    xp = np if isinstance(weights, np.ndarray) else __import__("cupy")
    return int(weights.size - xp.count_nonzero(xp.isfinite(weights) & (weights >= 0)))

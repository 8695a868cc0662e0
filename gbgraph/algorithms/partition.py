"""Multilevel graph bisection and k-way partitioning, by recursive bisection or directly.

Gilbert et al.'s partitioner (section III-C of [1]_, after the multilevel template of [2]_):
coarsen the graph until about 50 vertices are left (:func:`gbgraph.coarsen`), bisect the
coarsest graph, then project the parts level by level, ``parts = parts_c(labels)`` (``p =
P ⊕any.second p_c``), refining at every level with the vertex weights of that level. Three
refinements:

* ``"fm"``: greedy graph growing from several seeds on the coarsest graph
  (:mod:`~gbgraph.algorithms.initial`), Fiduccia–Mattheyses passes with rollback at every
  level (:mod:`~gbgraph.algorithms.refine_fm`), sequential on the host.
* ``"jet"``: the same initial bisection, then Jet-style label propagation as semiring
  algebra at every level (:mod:`~gbgraph.algorithms.refine_jet`), on the backend's device.
* ``"spectral"``: the Fiedler vector of the coarsest graph, interpolated and improved by
  power iteration at every level, split at the weighted median
  (:mod:`~gbgraph.algorithms.spectral`).

``partition(A, k, method="recursive")`` bisects recursively: a part of k' parts splits into
⌊k'/2⌋ and ⌈k'/2⌉ parts with target weights in that ratio, and each of the ⌈log2 k⌉ steps has
the share ``(1 + ε)^(1 / ⌈log2 k⌉) - 1`` of the imbalance, so the parts meet
``(1 + ε) W / k``. ``partition(A, k, method="kway")`` coarsens once and refines all k parts
together (:mod:`~gbgraph.algorithms.refine_kway`: k-way FM on the host with ``refine="fm"``,
Jet's rounds on the backend with ``"jet"``). By default ``partition(A, 2)`` is
:func:`bisect` and, with FM, k > 2 is direct k-way (one hierarchy, one try): measured in
docs/partitioning.md ("Direct k-way or recursive bisection: the default").

References
----------
.. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030
.. [2] G. Karypis and V. Kumar, "A fast and high quality multilevel scheme for partitioning
   irregular graphs," SIAM J. Sci. Comput. 20(1), 1998, pp. 359-392.
   https://doi.org/10.1137/S1064827595287997
"""

import math
import time
import warnings
from dataclasses import dataclass, field

import numba
import numpy as np

from .. import backends
from .._checks import check_integer
from .._labels import labelled, node_values
from ..backends.operators import RowOperator
from ..graph import SYMMETRIC_VALUES, Graph, as_graph, check_weights_option, choose_weights, csr_on_device
from .coarsen import CoarseningStallWarning, coarsen
from .heavy import host_keys
from .initial import greedy_growing
from .mapping import METHODS as MAPPINGS
from .refine_fm import HostGraph, bisection_key, cut_and_weights, refine_projected

__all__ = ["PartitionResult", "bisect", "partition", "chosen", "REFINEMENTS", "METHODS"]

#: The refinements of :func:`bisect` and :func:`partition`.
REFINEMENTS = ("fm", "jet", "spectral")
#: How :func:`partition` makes k parts: by recursive bisection, or directly
#: (:mod:`~gbgraph.algorithms.refine_kway`).
METHODS = ("recursive", "kway")
#: Multilevel bisections run by default, each from its own hierarchy; the best is kept. A graph
#: of at least :data:`SMALL_ENTRIES` stored entries gets :data:`LARGE_TRIES` instead.
TRIES = 3
#: The default (tries, finalists) of a bisection of a graph of at least :data:`SMALL_ENTRIES`
#: entries: two hierarchies, the better at level 1 refined on the input. Against three tries
#: and two finalists: k = 2 about 1.6 times faster on the 15 shared graphs of >= 30,000
#: vertices, with 1.5-6% more cut on five of them (docs/partitioning_history.md, "Session 13").
LARGE_TRIES = (2, 1)
#: Graphs below this many stored entries keep :data:`TRIES` and :data:`FINALISTS`: their
#: three tries take a few milliseconds, and their cuts vary most with the seed (delaunay_n14's
#: two tries cut one edge more than METIS).
SMALL_ENTRIES = 2**17
#: Whole k-way partitions run by default by ``method="kway"`` (one hierarchy: its speed is
#: the point; docs/partitioning_history.md, "Session 10", has 2 and 3 tries' cuts and times).
KWAY_TRIES = 1
#: With HEC coarsening, no coarse vertex stands for more than this fraction of a part's share
#: of the vertices (n / 2 for a bisection, n / k for ``"kway"``): ``coarsen``'s ``max_weight``.
#: None: uncapped. docs/partitioning.md has the measurements behind the choice.
COARSE_CAP = 0.5
_SEEDS = 2**63


@dataclass(frozen=True)
class PartitionResult:
    """Parts of the vertices and what they cost.

    Attributes
    ----------
    parts : array or dict
        int64 part of each vertex, ``0 .. k - 1``, on the input's device (numpy or CuPy); a
        dict node -> part for a networkx input.
    cut : int or float
        Total weight of the edges between parts (an edge count for a pattern).
    part_weights : numpy.ndarray
        Vertex weight of each part (int64 for integer vertex weights, else float64).
    imbalance : float
        Heaviest part over the ideal weight ``W / k``, minus 1 (0.0: perfectly balanced).
    k : int
    levels : tuple of int
        Vertices of each level of the (first) hierarchy, finest first.
    seconds : dict
        Wall time in ``"coarsen"`` (the hierarchies: of which ``"map"`` in the coarse
        mappings and ``"build"`` in the coarse graphs), ``"initial"``, ``"refine"`` (every
        level's projection and refinement, and the ranking of the tries) and ``"split"``
        (the induced subgraphs of the recursion), summed over the bisections.
    """

    parts: object
    cut: object
    part_weights: np.ndarray
    imbalance: float
    k: int
    levels: tuple = ()
    seconds: dict = field(default_factory=dict)

    def __repr__(self):
        return (f"PartitionResult(k={self.k}, cut={self.cut}, imbalance={self.imbalance:.4f}, "
                f"levels={len(self.levels)})")


def bisect(A, *, coarsening="hec", refine="fm", imbalance=0.03, seed=0, tries=None, vertex_weights=None,
           weights="abs", backend=None):
    """Multilevel bisection: two parts of nearly equal weight joined by few edges.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its values, as ``weights`` says, are the
        edge weights that the cut sums (a pattern weighs 1 per edge).
    coarsening : str
        The coarse mapping of :func:`gbgraph.coarsen` (``"hec"``, ``"hem"``, ``"mis2"``, ...).
    refine : {"fm", "jet", "spectral"}
        See the module docstring; ``docs/partitioning.md`` compares them.
    imbalance : float
        ε >= 0: each side weighs at most ``(1 + ε) W / 2`` (at least ``⌈W / 2⌉`` with
        integer vertex weights, where ``W`` is the total vertex weight).
    seed : int
        Seed of the hash that orders vertices and breaks ties, 0 to 2**63 - 1.
    tries : int, optional
        Multilevel bisections to run, with the seeds ``seed, seed + 1, ...`` (each its own
        hierarchy); the best (least overload, then least cut) is kept. The cut of one
        hierarchy varies by several percent with the seed. With ``refine="fm"`` the tries
        are ranked on the first coarse level and only the best two are refined on the input
        (:data:`SELECT_LEVEL`, :data:`FINALISTS`), so three tries cost less than three times
        one. Default: :data:`TRIES`, 3, on a graph of fewer than :data:`SMALL_ENTRIES`
        (2**17) stored entries, else two tries of which the better at the first coarse level
        is refined on the input (:data:`LARGE_TRIES`).
    vertex_weights : array_like or dict, optional
        Non-negative finite weight of each vertex (default: 1 each), on the graph's device;
        for a networkx graph also a dict node -> weight.
    weights : {"abs", "values", "pattern"}
        The edge weights: ``"abs"`` (default) ``|A(i, j)|``, the values themselves when none
        is negative, so that a Laplacian or a stiffness matrix, whose edges are negative
        off-diagonal entries, partitions as it is; ``"values"`` the values, where a negative
        one is an error; ``"pattern"`` 1 per edge. The command line's ``--weights``.
    backend : str or Backend, optional
        None picks ``"cupy"`` for GPU input, else ``"numba"``.

    Returns
    -------
    PartitionResult
        ``parts`` in {0, 1}, ``cut`` (an int when the edge weights are whole numbers, as a
        pattern's are), ``part_weights``, ``imbalance``, ``levels``, ``seconds``.

    Raises
    ------
    ValueError
        for an unknown coarsening, refinement or ``weights``, a graph of fewer than 2
        vertices, ``tries < 1``, ``imbalance`` negative or not finite, NaN or infinite edge
        weights, negative ones with ``weights="values"``, negative, NaN or infinite vertex
        weights (the messages give their count), or vertex weights of the wrong length.
        Every argument is checked before the graph is read.
    TypeError
        for a non-integer seed, a non-numeric imbalance, or vertex weights on another device
        than the graph.

    Notes
    -----
    The balance is repaired wherever a level breaks it: a level's coarse vertices may be too
    heavy to balance exactly, so each finer level first moves vertices of best gain off the
    overweight side until it fits, then refines; with unit vertex weights the finest level
    always meets the bound. The result is identical on every run, thread count and backend.

    References
    ----------
    .. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
       "Performance-portable graph coarsening for efficient multilevel graph analysis,"
       IPDPS 2021, section III-C. https://doi.org/10.1109/IPDPS49936.2021.00030

    Examples
    --------
    >>> import gbgraph as gg
    >>> r = gg.bisect(gg.generators.laplace3d(8, 8, 16) != 0)   # an 8 × 8 × 16 grid
    >>> r.cut, r.part_weights.tolist()                     # cut across the long axis
    (64, [512, 512])
    """
    return partition(A, 2, coarsening=coarsening, refine=refine, imbalance=imbalance, seed=seed, tries=tries,
                     vertex_weights=vertex_weights, weights=weights, backend=backend)


def partition(A, k, *, method=None, coarsening="hec", refine="fm", imbalance=0.03, seed=0, tries=None,
              vertex_weights=None, weights="abs", backend=None):
    """k parts by direct k-way refinement or by recursive multilevel bisection.

    Parameters
    ----------
    A : graph
        As in :func:`bisect`.
    k : int
        Number of parts, 1 <= k <= n.
    method : {None, "recursive", "kway"}
        ``"recursive"``: bisect, then bisect each side (a hierarchy per bisection).
        ``"kway"``: coarsen once, partition the coarsest graph recursively, then refine all
        k parts at once at every finer level: with ``refine="fm"`` by k-way FM on the host
        (:func:`~gbgraph.algorithms.refine_kway.kway_fm`; the hierarchy stops at about
        :data:`~gbgraph.algorithms.refine_kway.FM_PER_PART`, 1,024, vertices per part), with
        ``"jet"`` by Jet's k-way label propagation, afterburner and rebalancing on the
        backend (about :data:`~gbgraph.algorithms.refine_kway.PER_PART`, 64, per part)
        (:mod:`~gbgraph.algorithms.refine_kway`); ``refine`` also refines the coarsest
        graph's bisections. None (default): ``"kway"`` for k > 2 with ``refine="fm"``,
        else ``"recursive"``. ``docs/partitioning.md`` compares the two.
    tries : int, optional
        ``"recursive"``: multilevel bisections per bisection step, as in :func:`bisect`
        (its default by the input's entries: :data:`TRIES` or :data:`LARGE_TRIES`).
        ``"kway"``: whole multilevel partitions, each from its own hierarchy (seeds ``seed,
        seed + 1, ...``); with FM they are ranked on the first coarse level and only the
        best is refined on the input (default :data:`KWAY_TRIES`, 1; with FM the next seed's
        hierarchy replaces a first one that HEC collapsed into a vertex at its cap,
        :data:`~gbgraph.algorithms.refine_kway.AT_CAP`).
    coarsening, refine, seed, vertex_weights, weights, backend
        As in :func:`bisect`.
    imbalance : float
        ε >= 0: each part weighs at most ``(1 + ε) W / k``; each bisection step gets the
        share ``(1 + ε)^(1 / ⌈log2 k⌉) - 1``.

    Returns
    -------
    PartitionResult
        ``parts`` in ``0 .. k - 1`` (parts ``0 .. ⌊k/2⌋ - 1`` on side 0 of the first
        bisection), ``cut`` (total weight of edges between different parts: an int when the
        edge weights are whole numbers), and the rest as in :func:`bisect`.

    Raises
    ------
    ValueError
        for ``k < 1`` or ``k > n``, ``tries < 1``, and as :func:`bisect`.
    TypeError
        as :func:`bisect`, and for a non-integer k.

    Notes
    -----
    With HEC coarsening, every hierarchy caps its coarse vertices at :data:`COARSE_CAP`
    (0.5) of a part's share of the vertices, ``0.5 n / 2`` for a bisection of n vertices
    and ``0.5 n / k`` for ``"kway"`` (:func:`gbgraph.coarsen`'s ``max_weight``): HEC alone
    can merge most of a graph into one coarse vertex (c-55: 91%), which no balanced
    partition of that level can hold.

    References
    ----------
    .. [1] G. Karypis and V. Kumar, "A fast and high quality multilevel scheme for
       partitioning irregular graphs," SIAM J. Sci. Comput. 20(1), 1998, pp. 359-392.
       https://doi.org/10.1137/S1064827595287997

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> r = gg.partition(gg.generators.laplace3d(16), 4)   # direct k-way; weights |A(i, j)| = 1
    >>> np.bincount(r.parts).tolist(), bool(r.imbalance <= 0.03), r.cut
    ([1024, 1024, 1024, 1024], True, 512)
    >>> r = gg.partition(gg.generators.laplace3d(16), 4, method="recursive")   # 3 bisections
    >>> sorted(set(r.parts.tolist())), bool(r.imbalance <= 0.03)
    ([0, 1, 2, 3], True)
    """
    k = check_integer("k", k, minimum=1)
    given = tries
    method, tries = chosen(k, method, refine, tries)
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    tries = check_integer("tries", tries, minimum=1)
    graph, be, vw, eps, seed = _checked(A, coarsening, refine, imbalance, seed, vertex_weights, weights, backend)
    large = _large(method, refine, given, graph.nnz)  # the default by the graph's size, now that it is read
    if large:
        tries = LARGE_TRIES[0]
    finalists = LARGE_TRIES[1] if large else FINALISTS
    if k > graph.n:
        raise ValueError(f"k must be at most the number of vertices, {graph.n:,}; got k={k}")
    steps = math.ceil(math.log2(k)) if k > 1 else 0
    step_eps = (1.0 + eps) ** (1.0 / steps) - 1.0 if steps else eps
    seconds = {"coarsen": 0.0, "map": 0.0, "build": 0.0, "initial": 0.0, "refine": 0.0, "split": 0.0}
    with be.guard(graph):
        if method == "kway" and k > 1:
            from .refine_kway import kway_partition

            parts, levels = kway_partition(be, graph, vw, k, _Options(coarsening, refine, eps, seed, tries, seconds,
                                                                      graph.n, COARSE_CAP))
        else:
            opt = _Options(coarsening, refine, step_eps, seed, tries, seconds, graph.n, COARSE_CAP, finalists)
            if k == 2:  # one bisection: its sides are the parts
                sides, levels, key = multilevel_bisection(be, graph, vw, (1, 1), opt)
                parts = sides.astype(be.xp.int64)
            else:
                pieces, levels = _split(be, graph, vw, k, 0, be.xp.arange(graph.n, dtype=be.xp.int64), opt)
                parts = pieces[0]
                for piece in pieces[1:]:
                    parts = be.ewise_add("plus", parts, piece)  # the pieces cover disjoint vertices
                parts = be.values(parts)
        # FM's key on the host holds the input's cut, exact for whole weights: no sweep to count it again
        exact = k == 2 and method == "recursive" and refine == "fm" and be.xp is np and HostGraph.whole_weights(graph)
        cut, weights = int(key[1]) if exact else _cut(be, graph, parts, k), _part_weights(be, parts, vw, k)
    total = float(weights.sum())
    worst = float(weights.max()) * k / total - 1.0 if total > 0 else 0.0
    return labelled(A, PartitionResult(parts, cut, weights, worst, k, levels, seconds), maps=("parts",))


def chosen(k, method=None, refine="fm", tries=None, entries=0):
    """The (method, tries) that :func:`partition` runs for these arguments on a graph of
    ``entries`` stored entries: its defaults filled in (the command line prints them).

    Examples
    --------
    >>> chosen(2), chosen(2, entries=2**20), chosen(8), chosen(8, refine="jet"), chosen(8, "recursive", tries=1)
    (('recursive', 3), ('recursive', 2), ('kway', 1), ('recursive', 3), ('recursive', 1))
    """
    if method is None:
        method = "kway" if k > 2 and refine == "fm" else "recursive"
    if tries is None:
        tries = KWAY_TRIES if method == "kway" else LARGE_TRIES[0] if _large(method, refine, tries, entries) else TRIES
    return method, tries


def _large(method, refine, tries, entries):
    """Whether recursive FM bisections take :data:`LARGE_TRIES` (no ``tries`` given, a graph
    of at least :data:`SMALL_ENTRIES` entries)."""
    return method == "recursive" and refine == "fm" and tries is None and entries >= SMALL_ENTRIES


@dataclass(frozen=True)
class _Options:
    coarsening: str
    refine: str
    eps: float
    seed: int
    tries: int
    seconds: dict
    n: int
    cap: float = None
    finalists: int = None  # None: FINALISTS

    def max_weight(self, n, k):
        """``coarsen``'s cap for a hierarchy of n vertices to cut into k parts (None: none)."""
        return None if self.cap is None or self.coarsening != "hec" else max(self.cap * n / k, 1.0)


def _checked(A, coarsening, refine, imbalance, seed, vertex_weights, weights, backend):
    """The canonical graph (with the edge weights ``weights`` asks for), its backend, vertex
    weights, ε and seed: every argument checked, then the graph."""
    if coarsening not in MAPPINGS:
        raise ValueError(f"unknown coarsening {coarsening!r}; expected one of {', '.join(MAPPINGS)}")
    if refine not in REFINEMENTS:
        raise ValueError(f"unknown refine {refine!r}; expected one of {', '.join(REFINEMENTS)}")
    if isinstance(imbalance, (bool, np.bool_)) or not isinstance(imbalance, (int, float, np.integer, np.floating)):
        raise TypeError(f"imbalance must be a number, got {imbalance!r} ({type(imbalance).__name__})")
    if not (math.isfinite(imbalance) and imbalance >= 0):
        raise ValueError(f"imbalance must be a finite number >= 0, got {imbalance!r}")
    seed = check_integer("seed", seed, 0, _SEEDS - 1)
    check_weights_option(weights)
    if backend is not None:
        backends.backend(backend)  # an unknown name is an argument error: before the graph is read
    graph = as_graph(A)
    be = backends.for_graph(backend, graph)
    graph = choose_weights(graph.on_device_of(be.xp), weights, "the cut sums edge weights")
    if graph.weights is None:  # a pattern's ones are symmetric: recorded, its coarse levels' counts need no check
        graph.cached(SYMMETRIC_VALUES, lambda: (0, None, None))
    vertex_weights = node_values(A, vertex_weights, "vertex_weights")  # a dict node -> weight for networkx input
    return graph, be, _vertex_weights(vertex_weights, graph, be.xp), float(imbalance), seed


def _vertex_weights(vertex_weights, graph, xp):
    """int64 ones by default, else the given weights checked (int64 or float64)."""
    if vertex_weights is None:
        return xp.ones(graph.n, xp.int64)
    on_gpu = hasattr(vertex_weights, "__cuda_array_interface__")
    if on_gpu != (xp is not np):
        raise TypeError(f"vertex_weights are a {'GPU' if on_gpu else 'CPU'} array but the graph is on the "
                        f"{'CPU' if on_gpu else 'GPU'}; move one of them (cupy.asarray or .get())")
    vw = xp.asarray(vertex_weights)
    if vw.ndim != 1 or vw.size != graph.n:
        raise ValueError(f"vertex_weights has shape {vw.shape}, the graph has {graph.n:,} vertices")
    if vw.dtype.kind not in "biuf":
        raise TypeError(f"vertex_weights must be numbers, got {vw.dtype}")
    vw = vw.astype(xp.int64 if vw.dtype.kind in "biu" else xp.float64)
    bad = int(vw.size - xp.count_nonzero(xp.isfinite(vw) & (vw >= 0))) if vw.dtype.kind == "f" else \
        int(xp.count_nonzero(vw < 0))
    if bad:
        raise ValueError(f"vertex_weights has {bad:,} negative, NaN or infinite entries; they must be finite and >= 0")
    return vw


def _split(be, graph, vw, k, first, ids, opt):
    """Parts ``first .. first + k - 1`` of the input vertices ``ids`` of ``graph``: bisect
    into ⌊k/2⌋ and ⌈k/2⌉ parts' weight, recurse into each side. Returns a list of sparse
    vectors (part of each listed input vertex) and the level sizes of this split's
    hierarchy."""
    n_input = opt.n
    if k == 1:
        return [be.vector(ids, be.xp.int64(first), n_input)], (graph.n,)  # parts<ids> = first
    k0 = k // 2
    sides, levels, _ = multilevel_bisection(be, graph, vw, (k0, k - k0), opt)
    sides = _full(be, sides.astype(be.xp.int64))
    pieces = []
    for side, kk, offset in ((0, k0, first), (1, k - k0, first + k0)):
        members = be.indices(be.select("valueeq", sides, side))  # S = {v : side(v) = side}
        sub_ids = be.values(be.extract(_full(be, ids), members))  # ids(S): the input vertices of S
        if kk == 1 or members.size == 0:  # a whole part, or an empty side (heavy coarse vertices)
            pieces.append(be.vector(sub_ids, be.xp.int64(offset), n_input))  # parts<ids(S)> = offset
            continue
        start = time.perf_counter()
        sub = _induced(be, graph, members)
        sub_vw = be.values(be.extract(_full(be, vw), members))  # w(S)
        opt.seconds["split"] += time.perf_counter() - start
        pieces += _split(be, sub, sub_vw, kk, offset, sub_ids, opt)[0]
    return pieces, levels


def _full(be, values):
    """A vector with every entry, from an array the caller keeps (so it is copied)."""
    n = values.size
    return be.vector(be.xp.arange(n, dtype=be.xp.int64), values, n)


def _induced(be, graph, members):
    """``A(S, S) = E A Eᵀ`` with E the |S| × n selection of the rows ``members``, carrying
    the finding that the weights are symmetric: a coarse level's two sums of one edge may
    round apart (``coarsen``'s ``_carry_checks``), and a side of such a level is bisected
    as a graph of its own, whose check would otherwise refuse those last bits."""
    sub = _picked(be, graph, members)
    if (graph.known(SYMMETRIC_VALUES) or (None,))[0] == 0:
        sub.cached(SYMMETRIC_VALUES, lambda: (0, None, None))
    return sub


def _picked(be, graph, members):
    """:func:`_induced`'s ``A(S, S)``: two products on the device, the rows and columns
    picked directly on the host (the same entries, in order; the products' calls cost more
    than the work on a coarsest graph's sides)."""
    xp, n, m = be.xp, graph.n, members.size
    if xp is np:  # on the host, the rows and columns of S picked directly: the product's entries, in order
        weighted = graph.weights is not None
        sub_indptr, sub_indices, weights = _induced_host(graph.indptr, graph.indices, graph.weights.astype(
            np.float64, copy=False) if weighted else np.zeros(0), members, n)
        index_dtype = np.int32 if max(m, sub_indices.size) < 2**31 else np.int64
        return Graph(m, sub_indptr, sub_indices.astype(index_dtype), weights if weighted else None)
    A = be.adjacency(graph, weighted=True)
    rows = be.extract(A, members)  # E A: the rows of S
    indptr = xp.zeros(n + 1, xp.int64)
    indptr[members + 1] = 1
    Et = be.matrix(xp.cumsum(indptr), xp.arange(m, dtype=xp.int64), ncols=m, values=xp.ones(m, xp.int64))
    sub = be.mxm("plus_times", rows, Et)  # A(S, S) = (E A) Eᵀ: one product per entry, exact
    sub_indptr, sub_indices, values = be.to_csr(sub)
    weights = None if graph.weights is None else values.astype(xp.float64)
    return as_graph(csr_on_device(xp, sub_indptr, sub_indices,
                                  xp.ones(sub_indices.size) if weights is None else weights, (m, m)),
                    weights=graph.weights is not None)


@numba.njit(cache=True)
def _induced_host(indptr, indices, weights, members, n):
    """CSR of ``A(S, S)`` for the sorted ``members`` S: each member's row keeps its columns in
    S, renumbered by their place in S (an increasing map, so rows stay sorted), with their
    weights (none for an empty ``weights``), as the product ``(E A) Eᵀ`` gives them: one term
    per entry. Returns (indptr, indices, weights), int64 and float64."""
    place = np.full(n, -1, np.int64)
    for i in range(members.size):
        place[members[i]] = i
    sub_indptr = np.zeros(members.size + 1, np.int64)
    for i in range(members.size):
        v = members[i]
        kept = 0
        for t in range(indptr[v], indptr[v + 1]):
            kept += place[indices[t]] >= 0
        sub_indptr[i + 1] = sub_indptr[i] + kept
    sub_indices = np.empty(sub_indptr[-1], np.int64)
    sub_weights = np.empty(sub_indptr[-1] if weights.size else 0)
    o = 0
    for i in range(members.size):
        v = members[i]
        for t in range(indptr[v], indptr[v + 1]):
            j = place[indices[t]]
            if j >= 0:
                sub_indices[o] = j
                if weights.size:
                    sub_weights[o] = weights[t]
                o += 1
    return sub_indptr, sub_indices, sub_weights


def bounds_of(total, counts, eps, integral, unit=False):
    """(bounds, targets) of two sides that will hold ``counts`` parts: targets ``W k_s / k``,
    bounds ``(1 + ε)`` times that, at least ``⌈W k_s / k⌉`` for integer vertex weights (so
    that an exact split is always allowed); with unit vertex weights, low enough to leave
    the other side a vertex for each of its parts."""
    k = sum(counts)
    targets = [total * c / k for c in counts]
    bounds = [(1.0 + eps) * t for t in targets]
    if integral:
        bounds = [max(b, math.ceil(t - 1e-9)) for b, t in zip(bounds, targets)]
    if unit:
        bounds = [min(b, total - c) for b, c in zip(bounds, counts[::-1])]
    return bounds, targets


def multilevel_bisection(be, graph, vw, counts, opt):
    """Sides (int8, 0/1, an array of ``be.xp``) of the best of ``opt.tries`` multilevel
    bisections whose sides will hold ``counts`` parts, and aim at those shares of the total
    vertex weight; the level sizes of the best one's hierarchy; and its key (overload, cut)
    on the input (None for a single try refined by Jet or spectral, which no other ranks
    against: on the GPU its reductions cost four host reads).

    Each try coarsens the input with its own seed. With FM, a try is refined only up to
    level :data:`SELECT_LEVEL`, where the tries are ranked (least overload, then cut: a
    level's cut is the cut of its sides projected onto the input); the best
    :data:`FINALISTS` (``opt.finalists`` where given) are refined on the finer levels and the
    best of them is kept (ties: the earlier try)."""
    # Σ w, max w and min w in one read (on the GPU, three host waits apart)
    total, largest, smallest = be.xp.stack((be.xp.sum(vw), vw.max(), vw.min())).tolist() if vw.size else (0, 0, 0)
    total = float(total)
    integral = vw.dtype.kind in "iu"
    unit = integral and largest == smallest == 1
    bounds, targets = bounds_of(total, counts, opt.eps, integral, unit)
    seeded = opt.coarsening not in ("mis2", "mis2_basic")  # the MIS-2 aggregations take no seed
    finalists, hierarchy = [], None
    for t in range(opt.tries):
        seed = (opt.seed + t) % _SEEDS
        if hierarchy is None or seeded:
            start = time.perf_counter()
            with warnings.catch_warnings():  # a stalled hierarchy is still a hierarchy to partition
                warnings.simplefilter("ignore", CoarseningStallWarning)
                hierarchy = coarsen(graph, opt.coarsening, seed=seed if seeded else 0,
                                    max_weight=opt.max_weight(graph.n, 2), backend=_hierarchy_backend(be, opt))
            # unit weights are coarsen's own: its levels carry their sums already
            weights = [level.vertex_weights for level in hierarchy] if unit else _level_weights(be, hierarchy, vw)
            opt.seconds["coarsen"] += time.perf_counter() - start
            opt.seconds["map"] += sum(level.seconds[0] for level in hierarchy.levels[:-1])
            opt.seconds["build"] += sum(level.seconds[1] for level in hierarchy.levels[:-1])
        if opt.refine == "fm":  # on the host: the key is one sweep over the level FM holds
            stop = min(SELECT_LEVEL, len(hierarchy) - 1)
            sides, key, ext = _fm_levels(be, hierarchy, weights, bounds, targets, seed, opt.seconds, stop=stop)
        else:
            stop, ext = 0, None
            sides = _refiner(opt.refine)(be, hierarchy, weights, bounds, targets, seed, opt.seconds)
            key = _quality(be, graph, vw, sides, bounds) if opt.tries > 1 else None  # one try: none to rank
        finalists.append((key, t, sides, hierarchy, weights, seed, stop, ext))
        finalists = sorted(finalists, key=lambda c: c[:2])[:opt.finalists or FINALISTS]  # the others' hierarchies are freed
    best, best_key = None, None
    for key, t, sides, hierarchy, weights, seed, stop, ext in sorted(finalists, key=lambda c: c[1]):
        if stop:
            sides, key, _ = _fm_levels(be, hierarchy, weights, bounds, targets, seed, opt.seconds, sides=sides,
                                       top=stop, ext=ext)
        if best_key is None or key < best_key:
            best, best_key, levels = sides, key, tuple(level.n for level in hierarchy)
    return best, levels, best_key


def _hierarchy_backend(be, opt):
    """The backend that coarsens a bisection's input: on the cupy backend, HEC's mapping
    from the native backend's fused kernels (``fused("hec")``: the verbs' labels, count and
    rounds in five launches and one host read, where the verbs' capped HEC costs some thirty
    calls and five reads a level, 1.0 ms on each GPU level of an H200, profile_coarse.py
    gpu); the levels' coarse graphs are the cupy backend's own either way."""
    if be.name == "cupy" and opt.coarsening == "hec":
        return backends.backend("native")
    return be


#: The level at which :func:`multilevel_bisection` ranks its FM tries. HEC's first level
#: shrinks the graph 3 to 7 times, so the input level's FM passes and host copies are most
#: of a try's refinement; a try that ranks below the :data:`FINALISTS` at level 1 skips them.
#: The tries still coarsen the input each with its own seed: sharing the first level cost
#: c-55 and debian_bookworm_deps 19-60% of cut at k = 2 (docs/partitioning_history.md, "Tries ranked
#: at level 1").
SELECT_LEVEL = 1
#: Tries refined on the levels below :data:`SELECT_LEVEL`: level 1's ranking is a noisy
#: forecast (on 8 of the 22 shared graphs at k = 2 the best try at the input was not the
#: best at level 1, whose cut there was 0.7-7% larger), and refining two kept issue 40's k = 2
#: quality targets where one did not.
FINALISTS = 2


def _quality(be, graph, vw, sides, bounds):
    """(overload, cut) of a bisection: with x = 1 on side 1, ``s = A ⊕plus.times x`` and the
    cut ``Σ x (d - s)``, the weight from side 1 to side 0."""
    n, xp = graph.n, be.xp
    A = be.adjacency(graph, weighted=True)
    x = _full(be, sides.astype(xp.float64))
    s = be.ewise_add("plus", be.full(n, 0.0, "float64"), be.mxv("plus_times", A, x))  # s = A ⊕plus.times x
    d = be.ewise_add("plus", be.full(n, 0.0, "float64"), be.reduce_rows(A, "plus"))  # weighted degrees
    cut = float(be.reduce(be.ewise_mult("times", x, be.ewise_add("minus", d, s)), "plus") or 0.0)  # Σ x (d - s)
    heavy = float(be.reduce(be.ewise_mult("times", x, _full(be, vw.astype(xp.float64))), "plus") or 0.0)  # Σ x w
    light = float(xp.sum(vw)) - heavy
    return max(light - bounds[0], 0.0) + max(heavy - bounds[1], 0.0), cut


def _level_weights(be, h, vw):
    """The vertex weights of every level: ``w_c = Pᵀ ⊕plus.second w`` down the hierarchy."""
    weights = [vw]
    for level in h.levels[:-1]:
        n = level.n
        if isinstance(level.labels, np.ndarray) and isinstance(vw, np.ndarray):  # on the host: one compiled loop
            weights.append(_summed(level.labels, weights[-1], int(level.labels.max()) + 1 if n else 0))
            continue
        summed = be.build(level.labels, weights[-1], n, dup="plus")  # Pᵀ w: w_c(labels(i)) += w(i), in order of i
        coarse = be.xp.zeros(int(level.labels.max()) + 1 if n else 0, weights[-1].dtype)
        coarse[be.indices(summed)] = be.values(summed)
        weights.append(coarse)
    return weights


@numba.njit(cache=True)
def _summed(labels, w, k):
    """``Pᵀ ⊕plus.second w`` on the host: ``w_c(labels(i)) += w(i)`` in order of i, as the
    backend's build sums duplicates (the same numbers, without its calls)."""
    coarse = np.zeros(k, w.dtype)
    for i in range(labels.size):
        coarse[labels[i]] += w[i]
    return coarse


def host_graph(level, weights, seed, whole=None):
    """A level on the host with its tie-breaking keys (the project's hash with the seed);
    ``whole``: :meth:`HostGraph.whole_weights`, where the caller knows it."""
    return HostGraph(level.graph, weights, host_keys(level.graph, seed), whole)


def initial_bisection(h, weights, bounds, targets, seed, seconds, whole=None):
    """Greedy graph growing on the coarsest level (host), as int8 sides."""
    start = time.perf_counter()
    sides = greedy_growing(host_graph(h[-1], weights[-1], seed, whole), bounds, targets)
    seconds["initial"] += time.perf_counter() - start
    return sides


def project(be, coarse, labels):
    """``p = P ⊕any.second p_c``: each vertex takes its coarse vertex's value (int8 sides
    travel as int64, a protocol type)."""
    coarse = be.xp.asarray(coarse)
    coarse = coarse.astype(be.xp.int64) if coarse.dtype.kind in "biu" else coarse
    return be.values(be.extract(_full(be, coarse), labels))  # p = p_c(labels)


def _fm_levels(be, h, weights, bounds, targets, seed, seconds, *, stop=0, sides=None, top=None, ext=None):
    """Initial bisection on the coarsest level (or the given ``sides`` of level ``top``, whose
    refinement left ``ext``), then at each finer level down to ``stop``: project, repair the
    balance, FM passes. Sequential on the host; the sides go back to the device, with their
    (overload, cut) on level ``stop`` counted on the host (the same arrays on every backend,
    so the same key) and that level's ``ext`` (None where no level was refined)."""
    top = len(h) - 1 if top is None else top
    # a coarse edge weight sums fine ones: whole numbers with an exact total on the input, so on every level
    whole = HostGraph.whole_weights(h[0].graph) if isinstance(h[0].graph.indptr, np.ndarray) else None
    if sides is None:
        sides = initial_bisection(h, weights, bounds, targets, seed, seconds, whole)
    sides = _host(sides).astype(np.int8, copy=False)
    start = time.perf_counter()
    key = None
    for i in range(top - 1, stop - 1, -1):
        labels = h[i].labels
        on_host = isinstance(labels, np.ndarray)
        # p = P ⊕any.second p_c, a gather: on the host directly where the labels are
        sides = sides[labels] if on_host else _host(project(be, sides, labels)).astype(np.int8)
        # the coarse level's boundary where the labels are on the host (on the device: every row summed)
        key, ext = refine_projected(host_graph(h[i], weights[i], seed, whole), sides, bounds, targets, labels,
                                    ext if on_host else None)
    if key is None:
        key = bisection_key(host_graph(h[stop], weights[stop], seed, whole), sides, bounds)
    seconds["refine"] += time.perf_counter() - start
    return be.xp.asarray(sides), key, ext


def _refiner(name):
    """The level-by-level driver of jet or spectral refinement (they import this module's
    level helpers, hence the late import)."""
    if name == "jet":
        from .refine_jet import jet_levels

        return jet_levels
    from .spectral import spectral_levels

    return spectral_levels


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


def _same_part_sum(i, start, stop, cols, vals, u, parts):
    """``⊕plus`` of ``A(i, j) u(j)`` over the columns j in the part of i, in column order (a
    pattern's values are True: counts); no entry when none is."""
    g = parts[i]
    total = u[i] * 0  # u's type, the product's here: one type, so the cupy backend translates it (not read)
    hit = False
    for p in range(start, stop):
        j = cols[p]
        if parts[j] == g:
            x = vals[p] * u[j]
            total = total + x if hit else x
            hit = True
    return total, hit


#: ``w = (A ∘ [p_i = p_j]) ⊕plus.times u``: the weight each row keeps inside its part.
SAME_PART_SUM = RowOperator(_same_part_sum, fill=None, name="same_part_sum")


def _cut(be, graph, parts, k):
    """``½ Σ_ij A(i, j) [p(i) ≠ p(j)]``: the weighted degrees minus the weight inside each
    part (the product over same-part neighbours), halved. A pattern counts edges with
    ``plus_pair``. An int for whole-number weights (a sum of them below 2**53 is exact in
    float64), so that a cut prints the same for a pattern and for its weights of 1.0; on the
    host those are summed in one compiled sweep over the edges (the same number in any
    order, without two products' calls)."""
    n = graph.n
    if be.xp is np and HostGraph.whole_weights(graph):
        return int(cut_and_weights(graph.indptr, graph.indices, HostGraph.edge_weights(graph), np.zeros(n), parts,
                                   k)[0])
    if graph.weights is None:
        A, semiring, ones = be.adjacency(graph), "plus_pair", be.full(n, 1, "int64")
    else:
        A, semiring, ones = be.adjacency(graph, weighted=True), "plus_times", be.full(n, 1.0, "float64")
    degree = be.reduce(be.mxv(semiring, A, ones), "plus")  # Σ_i (A ⊕.⊗ 1)(i)
    inside = be.reduce(be.mxv(SAME_PART_SUM, A, (ones, _full(be, parts))), "plus")  # Σ_i ((A ∘ [p_i = p_j]) ⊕.⊗ 1)(i)
    cut = ((degree or 0) - (inside or 0)) / 2
    if graph.weights is None:
        return int(cut)
    whole = graph.cached(("weights", "whole"), lambda: bool(be.xp.all(graph.weights == be.xp.floor(graph.weights))))
    return int(cut) if whole and abs(cut) < 2**53 else float(cut)


def _part_weights(be, parts, vw, k):
    """``Pᵀ ⊕plus.second w`` with P the n × k matrix of the parts."""
    summed = be.build(parts, vw, k, dup="plus")  # w_p = Pᵀ w: w_p(parts(i)) += w(i), in order of i
    weights = np.zeros(k, np.int64 if vw.dtype.kind in "iu" else np.float64)
    weights[_host(be.indices(summed))] = _host(be.values(summed))
    return weights

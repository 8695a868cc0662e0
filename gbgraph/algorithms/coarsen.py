"""Coarse graphs ``Pᵀ A P`` from aggregates, three ways, and multilevel hierarchies.

``coarse_graph`` builds the graph of aggregates: coarse vertices a and b are joined when a
fine edge joins their aggregates, with the fine weights summed (edge counts for a pattern).
``"spgemm"`` is two semiring products; ``"sort"`` and ``"hash"`` are Gilbert et al.'s
vertex-centric construction (Algorithm 6 of [1]_) with sort- or hash-based deduplication.
``coarsen`` applies a coarse mapping and the construction level after level (their
Algorithm 1), with the paper's rules for stopping.
"""

import time
import warnings
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from .. import _progress, _warmup, backends
from .._checks import check_integer
from .._labels import labelled, node_values
from ..errors import GBGraphError
from ..graph import (SYMMETRIC_VALUES, Graph, array_module, as_graph, check_symmetric_values, check_weights_option,
                     choose_weights, csr_on_device, to_container)
from .heavy import coarse_weights
from .mapping import BAD_WEIGHTS, WEIGHTED_METHODS, coarse_mapping, map_vertices
from .mapping import METHODS as MAPPINGS

__all__ = ["aggregation_operator", "coarse_graph", "coarsen", "Hierarchy", "Level", "COARSE_METHODS",
           "CoarseningStallWarning", "STOPS"]

COARSE_METHODS = ("spgemm", "sort", "hash")
_SEEDS = 2**63  # as coarse_mapping's: the GPU's hash takes the seed as a signed 64-bit number

#: Degree skew (maximum over mean degree) above which "sort" and "hash" store each coarse
#: edge once, at its lower-degree end, as Gilbert et al. do for skewed graphs.
SKEWED = 8.0


#: A level that would keep more than this fraction of the one above is not added.
STALL_FRACTION = 0.95


class CoarseningStallWarning(GBGraphError, RuntimeWarning):
    """A level shrank by less than 5%, so coarsening stopped."""


def _stalled(kept, total, depth, what):
    """Whether a level of ``kept`` out of ``total`` rows stalls coarsening, and then warn
    (:class:`CoarseningStallWarning`) that the hierarchy stops at ``depth`` levels."""
    if kept <= STALL_FRACTION * total:
        return False
    warnings.warn(f"level {depth} would keep {kept:,} of {total:,} {what} (less than 5% fewer); coarsening "
                  f"stops at {depth} levels", CoarseningStallWarning, stacklevel=3)
    return True


def aggregation_operator(labels, n_aggregates=None):
    """The n × n_aggregates 0/1 matrix with a one at (i, labels[i]): pyamg's ``AggOp``.

    Parameters
    ----------
    labels : array_like of int
        Aggregate of each vertex, ``0 .. n_aggregates - 1`` (e.g. ``gg.aggregate(A).labels``).
    n_aggregates : int, optional
        Number of columns; default ``labels.max() + 1``.

    Returns
    -------
    scipy.sparse.csr_array, or cupyx.scipy.sparse.csr_matrix for CuPy labels
        float64 ones, one per row.

    Raises
    ------
    TypeError
        for labels that are not integers, or an ``n_aggregates`` that is not an integer.
    ValueError
        for labels that are negative, not one-dimensional, or not below ``n_aggregates``.

    Examples
    --------
    >>> aggregation_operator([0, 0, 1, 2, 1]).toarray().astype(int).tolist()
    [[1, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1], [0, 1, 0]]
    """
    xp = array_module(labels)
    labels, k = _checked_labels(labels, None, n_aggregates, xp)
    n = labels.size
    return csr_on_device(xp, xp.arange(n + 1), labels, xp.ones(n), (n, k))


def coarse_graph(A, labels, method="spgemm", *, low_degree_end=None, backend=None):
    """The graph of aggregates, ``Pᵀ A P`` without its diagonal.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its values are edge weights, a pattern
        counts every edge as 1.
    labels : array_like of int, or dict
        The aggregate of each vertex, as ``gg.aggregate(A).labels``: for a networkx graph a
        dict node -> aggregate, or an array in the graph's node order.
    method : {"spgemm", "sort", "hash"}
        ``"spgemm"``: ``Pᵀ ⊕plus.second (A ⊕plus.first P)`` on the backend. ``"sort"``,
        ``"hash"``: Gilbert et al.'s Algorithm 6, deduplicating coarse edges by sorting or
        in per-vertex hash tables.
    low_degree_end : bool, optional
        For ``"sort"`` and ``"hash"``: write each coarse edge once, from the end with the
        smaller degree estimate, and add the transpose at the end (the paper's optimisation
        for skewed graphs). None decides by skew (max degree > 8 × mean degree).
    backend : str or Backend, optional
        For ``"spgemm"``.

    Returns
    -------
    same kind as ``A``
        scipy input gives the same scipy class, a graphblas Matrix gives a Matrix, networkx
        a ``networkx.Graph`` over the aggregates 0..k-1 with ``weight`` attributes, numpy a
        dense array, a path a ``scipy.sparse.csr_array``, cupyx a ``cupyx`` CSR matrix.
        Weights are float64 (int64 edge counts for a pattern; float64 counts in cupyx,
        which holds floating-point values only).

    Raises
    ------
    ValueError
        for an unknown method, labels of the wrong length or with negative ids (or, for a
        networkx graph, a dict without some node), NaN or infinite weights (the message
        gives their count), or asymmetric weights, A[i, j] != A[j, i], which would make an
        asymmetric coarse graph (:class:`~gbgraph.errors.AsymmetricValuesError`, naming the
        largest difference; :func:`gbgraph.symmetrize` with ``values="max"`` or ``"sum"``
        makes them symmetric).
    TypeError
        for non-integer labels.

    Notes
    -----
    All methods sum the same terms; with integer weights (and patterns) they equal each
    other and ``scipy``'s ``P.T @ A @ P`` exactly. With general float weights the summation
    orders differ, so results agree to rounding; ``"sort"`` adds each coarse edge's fine
    weights in row-major order the way ``numpy.add.reduceat`` does, on either device, so its
    results are the same bit for bit on the CPU and the GPU.

    ``"sort"`` is the fastest method on both backends: compiled kernels on the CPU (the
    crossing entries scattered by coarse row, then each row deduplicated and sorted,
    ``backends/numba/kernels/coarse.py``), one CUDA kernel on the GPU. ``"spgemm"`` pays the fixed cost of a few GraphBLAS calls, which
    dominates below about 50,000 vertices; ``"hash"`` is array code.

    References
    ----------
    .. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
       "Performance-portable graph coarsening for efficient multilevel graph analysis,"
       IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> path = np.diag(np.ones(4), 1) + np.diag(np.ones(4), -1)   # 0 - 1 - 2 - 3 - 4
    >>> gg.coarse_graph(path.astype(bool), [0, 0, 1, 1, 2]).tolist()
    [[0, 1, 0], [1, 0, 1], [0, 1, 0]]
    """
    if method not in COARSE_METHODS:
        raise ValueError(f"method must be one of {COARSE_METHODS}, got {method!r}")
    graph = as_graph(A)
    be = backends.for_graph(backend, graph)
    graph = graph.on_device_of(be.xp)
    labels = node_values(A, labels, "labels")
    _check_device(labels, graph)
    labels, k = _checked_labels(labels, graph.n, None, be.xp)
    with be.guard(graph):
        return to_container(_coarse_csr(be, graph, labels, k, method, low_degree_end), graph.container)


def _coarse_csr(be, graph, labels, k, method, low_degree_end):
    """The coarse graph as a CSR array of the backend's device (scipy or cupyx)."""
    return csr_on_device(be.xp, *_coarse_arrays(be, graph, labels, k, method, low_degree_end), (k, k))


def _coarse_arrays(be, graph, labels, k, method, low_degree_end):
    """The coarse graph's CSR arrays (int64 row pointers) on the backend's device."""
    _check_finite(graph)
    check_symmetric_values(graph, _COARSE_REMEDY)
    if method == "spgemm":
        return _by_spgemm(be, graph, labels, k)
    one_sided = _one_sided(graph) if low_degree_end is None else bool(low_degree_end)
    csr = None
    kernel = be.fused("coarse_by_sort") if method == "sort" else None  # the same arrays from compiled kernels
    if kernel is not None and _unit_weights(graph):  # sums of ones are the counts: no weights to move
        csr = kernel(_pattern(be, graph), labels, k, one_sided)
        csr = None if csr is None else (csr[0], csr[1], csr[2].astype(graph.weights.dtype))
    elif kernel is not None:
        csr = kernel(graph, labels, k, one_sided)  # None where the kernel cannot take the case
    return _by_construction(graph, labels, k, method, one_sided, be.xp) if csr is None else csr


def _unit_weights(graph):
    """Whether every weight is the float64 1.0 (a pattern read as ones, a Laplacian's
    ``|A|``): each coarse weight is then its count of fine edges, exactly, whatever the order
    of the additions, and the construction counts instead of moving and adding 8 bytes an
    entry (Laplace3D 100³'s first HEC level: 25-35% less time). Decided once per graph."""
    def check():
        w = graph.weights
        return w is not None and w.dtype == np.float64 and bool((w == 1).all())

    return graph.cached(_UNIT, check)


def _unit_ones(graph):
    """:func:`_unit_weights` (the "sort" construction's test, made first): where every weight
    is 1.0, the checks of the weights are recorded instead of run, since ones are finite,
    non-negative and, on a graph's symmetric pattern, symmetric (on the GPU, the symmetry
    check's transpose and three host reads on the input level)."""
    if not _unit_weights(graph):
        return False
    for key, value in ((_NONFINITE, 0), (BAD_WEIGHTS, 0), (SYMMETRIC_VALUES, (0, None, None))):
        graph.cached(key, lambda value=value: value)
    return True


#: The Graph cache key of :func:`_unit_weights`' answer (a coarse level records False).
_UNIT = ("coarsen", "unit weights")


def _pattern(be, graph):
    """The graph without its weights, sharing its arrays and its pattern matrix on ``be``."""
    def view():
        pattern = Graph(graph.n, graph.indptr, graph.indices, None, graph.container)
        pattern.cached((be.name, "pattern"), lambda: be.adjacency(graph))
        return pattern

    return graph.cached(("coarsen", "pattern", be.name), view)


def _coarse_level(be, graph, labels, k, method):
    """The next level of a hierarchy, as the Graph ``as_graph`` would make of its CSR.

    The Graph is assembled from the arrays directly: they are sorted, free of duplicates
    and of the diagonal, and ``Pᵀ A P`` of a symmetric pattern is symmetric, so
    ``as_graph``'s copies and transpose check (on the GPU, several synchronisations per
    level) would only confirm what the construction guarantees.
    """
    indptr, indices, values = _coarse_arrays(be, graph, labels, k, method, None)
    index_dtype = np.int32 if max(k, indices.size) < 2**31 else np.int64
    coarse = Graph(k, indptr.astype(np.int64, copy=False), indices.astype(index_dtype, copy=False),
                   values.astype(np.float64, copy=False), container=_container(be.xp))
    coarse.cached(_UNIT, lambda: False)  # counts or sums: where all are 1.0, summing them gives the counts anyway
    if method != "spgemm" and _one_sided(graph):  # S + Sᵀ: each coarse edge's two weights are one sum
        coarse.cached(_ASYMMETRIC, lambda: 0)
    if graph.known(_EXACT):  # exact sums of symmetric weights: symmetric, exact sums again
        coarse.cached(_ASYMMETRIC, lambda: 0)
        coarse.cached(_EXACT, lambda: True)
    return coarse


def _container(xp):
    """What a coarse level's graph is, as :func:`as_graph` would say of its CSR."""
    return "scipy.csr_array" if xp is np else "cupyx"


#: The Graph cache key of :func:`_check_finite`'s count (coarse levels inherit a zero).
_NONFINITE = ("coarsen", "nonfinite")


def _check_finite(graph):
    """Coarse weights are sums of fine ones: a NaN or an infinity would spread silently."""
    bad = graph.cached(_NONFINITE, lambda: _count_nonfinite(graph.weights))
    if bad:
        raise ValueError(f"A has {bad:,} NaN or infinite weights among its {graph.nnz:,} off-diagonal entries; coarse "
                         f"graphs sum the weights, which must be finite")


def _count_nonfinite(weights):
    return 0 if weights is None else int(weights.size - np.count_nonzero(np.isfinite(weights)))


#: Why coarse graphs need symmetric weights, and what to do (ends the error message).
_COARSE_REMEDY = ("the coarse graph Pᵀ A P would be asymmetric too (and the one-sided construction wrong); make the "
                  "values symmetric with gg.symmetrize(A, values=\"max\") or values=\"sum\", or use the pattern, "
                  "gg.as_graph(A, weights=False)")


def _check_device(labels, graph):
    """Labels and graph must live on the same side: no silent copies across the bus."""
    on_gpu, graph_on_gpu = array_module(labels) is not np, graph.container == "cupyx"
    if on_gpu != graph_on_gpu:
        raise TypeError(f"labels are a {'GPU' if on_gpu else 'CPU'} array but the graph is on the "
                        f"{'GPU' if graph_on_gpu else 'CPU'}; move one of them (cupy.asarray or .get())")


def _checked_labels(labels, n, n_aggregates, xp=np):
    labels = xp.asarray(labels)
    if labels.ndim != 1:
        raise ValueError(f"labels must be one-dimensional, got shape {labels.shape}")
    if labels.size and labels.dtype.kind not in "iu":
        raise TypeError(f"labels must be integers, got {labels.dtype}")
    if n is not None and labels.size != n:
        raise ValueError(f"labels has {labels.size:,} entries, the graph has {n:,} vertices")
    labels = labels.astype(np.int64, copy=False)
    if labels.size and int(labels.min()) < 0:
        raise ValueError(f"labels must be >= 0, got {int(labels.min())} at vertex {int(xp.argmin(labels))}")
    k = int(labels.max()) + 1 if labels.size else 0
    if n_aggregates is not None:
        n_aggregates = check_integer("n_aggregates", n_aggregates, minimum=0)
        if k > n_aggregates:
            raise ValueError(f"labels reach {k - 1}, beyond n_aggregates = {n_aggregates}")
        k = n_aggregates
    return labels, k


def _weights(graph, xp):
    """Edge values, or int64 ones for a pattern (coarse edges then count fine edges)."""
    return xp.ones(graph.nnz, np.int64) if graph.weights is None else xp.asarray(graph.weights)


def _by_spgemm(be, graph, labels, k):
    """``Pᵀ ⊕plus.second (A ⊕plus.first P)``, diagonal dropped."""
    xp = be.xp
    n = graph.n
    A = be.adjacency(graph, weighted=True)
    P = be.matrix(xp.arange(n + 1), labels, ncols=k)
    Pt = be.transpose(P)  # Pᵀ
    AP = be.mxm("plus_first", A, P)  # AP(i, b) = sum of A(i, j) over j in aggregate b
    Ac = be.select("offdiag", be.mxm("plus_second", Pt, AP))  # Ac(a, b) = sum over i in a
    indptr, indices, values = be.to_csr(Ac)
    return indptr, indices, values


def _one_sided(graph):
    """Store each coarse edge once when the graph is skewed, its weights symmetric and their
    sums inexact (decided once per graph)."""
    return graph.cached(("coarsen", "one_sided"), lambda: _skewed_and_symmetric(graph))


def _skewed_and_symmetric(graph):
    """Where every sum of the weights is exact (:func:`_exact_sums`), the one-sided
    construction's ``S(a, b) + S(b, a)`` and the two-sided one's sum of the same weights in
    row-major order are the same number, and the two-sided one, without a transpose and a
    merge of S, is the faster on the CPU (coAuthorsDBLP's first HEC level: 41 -> 30 ms)."""
    if graph.n == 0 or graph.nnz == 0 or graph.known(_EXACT):
        return False
    degree = np.diff(graph.indptr) if isinstance(graph.indptr, np.ndarray) else graph.indptr[1:] - graph.indptr[:-1]
    if float(degree.max()) <= SKEWED * graph.nnz / graph.n:
        return False
    return not _exact_sums(graph) and _asymmetric_weights(graph) == 0


#: The Graph cache key of :func:`_exact_sums`' answer (a coarse level inherits True).
_EXACT = ("coarsen", "exact sums")


def _exact_sums(graph):
    """Whether every sum of the graph's weights is exact, in any order of the additions: a
    pattern (edge counts), integer weights, or floating-point weights of integer values whose
    absolute total is below ``2**p`` (p: the significand's bits), which bounds every partial
    sum, and none -0.0. A sum of exact terms is then the same number however it is added,
    and a zero sum is +0.0 (-0.0 only when every term is -0.0; the symmetry checks take
    -0.0 and +0.0 for equal, so a -0.0 could make the two constructions' zeros differ)."""
    def check():
        w = graph.weights
        if w is None or w.dtype.kind in "iu":
            return True
        if w.dtype.kind != "f":
            return False
        xp = array_module(w)
        limit = 2.0 ** (np.finfo(w.dtype).nmant + 1)
        integral = bool(xp.all(w == xp.trunc(w))) and not bool(xp.any((w == 0) & xp.signbit(w)))
        return integral and float(xp.abs(w).sum(dtype=np.float64)) < limit / 2

    return graph.cached(_EXACT, check)


#: The Graph cache key of :func:`_asymmetric_weights`' count. A level built one-sided holds
#: ``S(a, b) + S(b, a)`` at (a, b) and ``S(b, a) + S(a, b)`` at (b, a), equal bit for bit, so
#: the hierarchy records a zero instead of a transpose of the level's weights.
_ASYMMETRIC = ("coarsen", "asymmetric")


def _asymmetric_weights(graph):
    """Entries A[i, j] whose weight differs from A[j, i]'s (counted once per graph, on the host)."""
    def count():
        if graph.weights is None:
            return 0
        host = graph.on_device_of(np)
        W = sp.csr_array((host.weights, host.indices, host.indptr), shape=(graph.n, graph.n))
        return int((W != W.T).nnz)

    return graph.cached(_ASYMMETRIC, count)


def _by_construction(graph, labels, k, method, one_sided, xp):
    """[1] Algorithm 6: coarse edges of every fine edge, deduplicated, as CSR arrays."""
    indptr = xp.asarray(graph.indptr)
    rows = xp.repeat(xp.arange(graph.n, dtype=np.int64), xp.diff(indptr))
    cols = xp.asarray(graph.indices).astype(np.int64)
    cu, cv = labels[rows], labels[cols]
    crossing = cu != cv  # l.4: self loops of the coarse graph are dropped
    w = _weights(graph, xp)[crossing]
    u, v, cu, cv = rows[crossing], cols[crossing], cu[crossing], cv[crossing]
    if one_sided:
        # l.1-10: degree estimates C'; each fine edge kept at its lower-estimate end
        estimate = xp.bincount(cu, minlength=k)
        keep = (estimate[cu] < estimate[cv]) | ((estimate[cu] == estimate[cv]) & (u < v))
        cu, cv, w = cu[keep], cv[keep], w[keep]
    dedup = _dedup_by_sort if method == "sort" else _dedup_by_hash
    cu, cv, w = dedup(cu, cv, w, k, xp)  # l.20-21
    if one_sided:  # l.22: the other end of every coarse edge
        cu, cv, w = dedup(xp.concatenate((cu, cv)), xp.concatenate((cv, cu)), xp.concatenate((w, w)), k, xp)
    indptr = xp.zeros(k + 1, np.int64)
    indptr[1:] = xp.cumsum(xp.bincount(cu, minlength=k))
    return indptr, cv, w


def _dedup_by_sort(cu, cv, w, k, xp):
    """Sum the weights of equal (cu, cv) pairs: a stable sort keeps the fine order."""
    key = cu * k + cv
    order = xp.argsort(key, kind="stable")
    key, w = key[order], w[order]
    start = xp.flatnonzero(xp.concatenate((xp.ones(min(key.size, 1), bool), key[1:] != key[:-1])))
    total = _reduceat_sum(w, start, xp) if start.size else w[:0]
    return key[start] // k, key[start] % k, total


def _reduceat_sum(w, start, xp):
    """``add.reduceat`` with numpy's order of additions on either device (CuPy's own
    reduceat adds in another order, so float sums would differ in the last bits)."""
    if xp is np:
        return np.add.reduceat(w, start)
    from ..backends.cupy.kernels import reduceat_sum

    return reduceat_sum(w, start)


def _dedup_by_hash(cu, cv, w, k, xp):
    """Sum the weights of equal (cu, cv) pairs in one open-addressing table per coarse
    vertex (capacity a power of two >= twice its entries, linear probing).

    All copies of a pair probe together, so on the CPU each table slot adds its weights in
    the order of the fine edges, as the sort does; on the GPU the additions are atomic, so
    real weights may round differently (integer weights and counts are exact). Rows come out
    sorted by column.
    """
    counts = xp.bincount(cu, minlength=k)
    capacity = xp.where(counts > 0, 2 ** xp.ceil(xp.log2(xp.maximum(2 * counts, 1))).astype(np.int64), 0)
    base = xp.cumsum(capacity) - capacity
    slots_key = xp.full(int(capacity.sum()), -1, np.int64)
    slots_w = xp.zeros(slots_key.size, w.dtype)
    home = base[cu]
    probe = (cv * np.int64(0x9E3779B1)) & (capacity[cu] - 1)
    pending = xp.arange(cu.size)
    while pending.size:
        slot = home[pending] + probe[pending]
        free = slots_key[slot] == -1
        slots_key[slot[free]] = cv[pending[free]]  # one writer per slot wins the claim
        placed = slots_key[slot] == cv[pending]
        xp.add.at(slots_w, slot[placed], w[pending[placed]])
        pending = pending[~placed]
        probe[pending] = (probe[pending] + 1) & (capacity[cu[pending]] - 1)
    used = xp.flatnonzero(slots_key >= 0)
    owner = xp.repeat(xp.arange(k), capacity)[used]
    order = xp.lexsort(xp.stack((slots_key[used], owner)))
    return owner[order], slots_key[used][order], slots_w[used][order]


@dataclass(frozen=True)
class Level:
    """One level of a :class:`Hierarchy`.

    Attributes
    ----------
    graph : Graph
        The level's graph (level 0: the input, canonicalised; weights summed below).
    labels : array, dict or None
        Coarse vertex of each vertex in the next level (numpy on the CPU, CuPy on the GPU;
        on the first level of a networkx input's hierarchy, a dict node -> coarse vertex);
        None on the coarsest level.
    vertex_weights : array
        int64: the input vertices each vertex stands for (ones on level 0).
    seconds : tuple of float
        (mapping, construction): the time taken to map this level's vertices and to build
        the next level; (0, 0) on the coarsest level.
    """

    graph: Graph
    labels: object = None
    vertex_weights: object = None
    seconds: tuple = (0.0, 0.0)

    @property
    def n(self):
        return self.graph.n

    @property
    def nnz(self):
        return self.graph.nnz


#: Why a :class:`Hierarchy` ended: its coarsest level has at most ``cutoff`` vertices, it
#: has ``max_levels``, the next level stalled (kept over 95%), or fell below ``minimum``.
STOPS = ("cutoff", "max_levels", "stall", "minimum")


class Hierarchy:
    """Graphs from fine to coarse, each the graph of the previous level's coarse vertices.

    Index it (``h[0]`` is the finest :class:`Level`) or iterate over it; ``ratios`` are the
    coarsening ratios n_i / n_(i+1), ``average_ratio`` their geometric mean; ``stopped``
    says why the hierarchy ended (:data:`STOPS`); ``repr`` prints a table.
    """

    def __init__(self, levels, method, stopped="cutoff"):
        self.levels = tuple(levels)
        self.method = method
        self.stopped = stopped

    def __len__(self):
        return len(self.levels)

    def __getitem__(self, i):
        return self.levels[i]

    def __iter__(self):
        return iter(self.levels)

    @property
    def ratios(self):
        """Coarsening ratio of each step, n_i / n_(i+1)."""
        return [a.n / b.n for a, b in zip(self.levels, self.levels[1:])]

    @property
    def average_ratio(self):
        """Geometric mean of the ratios, ``(n_0 / n_(l-1)) ** (1 / (l - 1))`` for l levels
        (Gilbert et al.'s average coarsening ratio); 1.0 for a single level."""
        if len(self) < 2:
            return 1.0
        return (self.levels[0].n / self.levels[-1].n) ** (1.0 / (len(self) - 1))

    def __repr__(self):
        lines = [f"Hierarchy({self.method!r}, {len(self)} levels, stopped by {self.stopped}, average ratio "
                 f"{self.average_ratio:.2f})",
                 f"{'level':>5} {'vertices':>12} {'edges':>14} {'ratio':>7} {'map ms':>9} {'build ms':>9}"]
        for i, level in enumerate(self.levels):
            ratio = f"{self.levels[i - 1].n / level.n:7.2f}" if i else f"{'':>7}"
            times = f"{level.seconds[0] * 1e3:9.1f} {level.seconds[1] * 1e3:9.1f}" if level.labels is not None else ""
            lines.append(f"{i:>5} {level.n:>12,} {level.nnz // 2:>14,} {ratio} {times}".rstrip())
        return "\n".join(lines)


def coarsen(A, method="mis2", *, cutoff=50, minimum=None, max_levels=None, construction="sort", seed=0,
            weights="abs", max_weight=None, backend=None):
    """Coarsen a graph level by level until it has at most ``cutoff`` vertices.

    Gilbert et al.'s Algorithm 1 [1]_: map the vertices (:func:`gbgraph.coarse_mapping`),
    build the graph of the coarse vertices (:func:`coarse_graph`, weights summed), repeat.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its values, as ``weights`` says, are the
        edge weights that the heavy-edge mappings compare and the coarse graphs sum.
    method : {"mis2", "mis2_basic", "hec", "hec3", "hem", "mtmetis", "gosh", "gosh_hec"}
        The mapping, see :func:`gbgraph.coarse_mapping`.
    cutoff : int
        Stop when a level has at most this many vertices (the paper: 50).
    minimum : int, optional
        A level that would drop from above ``cutoff`` to fewer than ``minimum`` vertices is
        discarded and coarsening stops (the paper: 10 below a cutoff of 50). None: 10, or
        ``cutoff`` if that is smaller.
    max_levels : int, optional
        Most levels, the input included.
    construction : {"sort", "spgemm", "hash"}
        The :func:`coarse_graph` method; ``"sort"`` (default) is one compiled kernel on the
        CPU and on the GPU.
    seed : int
        The mapping's seed (:func:`gbgraph.coarse_mapping`), the same on every level.
    weights : {"abs", "values", "pattern"}
        The edge weights: ``"abs"`` (default) ``|A(i, j)|``, the values themselves when none
        is negative, so that a Laplacian or a stiffness matrix, whose edges are negative
        off-diagonal entries, coarsens by the strength of its connections; ``"values"`` the
        values (negative ones are an error for the mappings that read weights, and coarse
        graphs sum them with their signs); ``"pattern"`` 1 per edge (coarse weights count
        edges). The command line's ``--weights``.
    max_weight : float, optional
        With ``"hec"`` only: no coarse vertex stands for more than this many input vertices
        (its ``vertex_weights``). A vertex at the cap neither joins nor is joined (Jet's rule
        [2]_); a coarse vertex that would go over keeps the subtree of its HEC forest that
        fits, and the vertices it lets go map by HEC among themselves (or alone). None (the
        default) is Algorithm 3 unchanged; so is any cap no coarse vertex reaches.
        :func:`gbgraph.partition` passes one.
    backend : str or Backend, optional

    Returns
    -------
    Hierarchy
        Levels with their graphs, labels, vertex weights and times; ``stopped`` says why
        it ended. For a networkx graph, the first level's labels are a dict node -> coarse
        vertex (coarse vertices are 0, 1, ... on every level).

    Warns
    -----
    CoarseningStallWarning
        when a level would keep more than 95% of the vertices of the one above; coarsening
        stops without it.

    Raises
    ------
    ValueError
        for a bad method, construction or ``weights``, a ``cutoff``, ``minimum`` or
        ``max_levels`` below 1, a ``minimum`` above ``cutoff``, a bad seed, a
        ``max_weight`` that is not a finite number > 0 or comes with a method other than
        ``"hec"``, or weights the
        method or the coarse graphs cannot use: NaN or infinite ones (negative ones with
        ``weights="values"`` and a mapping that reads them), with their count, or
        asymmetric ones, naming the largest difference. Every argument is checked before
        the graph is read.
    TypeError
        for an integer option that is not an integer (numpy integers are), or a
        ``max_weight`` that is not a number.

    References
    ----------
    .. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
       "Performance-portable graph coarsening for efficient multilevel graph analysis,"
       IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030
    .. [2] M. S. Gilbert, K. Madduri, E. G. Boman and S. Rajamanickam, "Jet: Multilevel
       graph partitioning on graphics processing units," SIAM J. Sci. Comput. 46(5), 2024.
       https://doi.org/10.1137/23M1559129

    Examples
    --------
    >>> import gbgraph as gg
    >>> h = gg.coarsen(gg.generators.laplace3d(20), cutoff=100)
    >>> h[0].n, len(h) > 2, h[-1].n <= 100 < h[-2].n
    (8000, True, True)
    >>> all(level.labels.max() + 1 == coarse.n for level, coarse in zip(h, h[1:]))
    True
    >>> h = gg.coarsen(gg.generators.laplace3d(20), "hec")   # weights |A(i, j)| = 1
    >>> int(h[-1].vertex_weights.sum()), h.average_ratio > 2
    (8000, True)
    >>> c = gg.coarsen(gg.generators.laplace3d(20), "hec", max_weight=400)
    >>> max(int(level.vertex_weights.max()) for level in c) <= 400
    True
    """
    cutoff = check_integer("cutoff", cutoff, minimum=1)
    minimum = min(10, cutoff) if minimum is None else check_integer("minimum", minimum, 1, cutoff)
    if max_levels is not None:
        max_levels = check_integer("max_levels", max_levels, minimum=1)
    if construction not in COARSE_METHODS:
        raise ValueError(f"construction must be one of {COARSE_METHODS}, got {construction!r}")
    if method not in MAPPINGS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(MAPPINGS)}")
    seed = check_integer("seed", seed, 0, _SEEDS - 1)
    if seed and method in ("mis2", "mis2_basic"):
        raise ValueError(f"method {method!r} has Kokkos Kernels' fixed priorities and takes no seed, got seed={seed}")
    check_weights_option(weights)
    _check_max_weight(max_weight, method)
    if backend is not None:
        backends.backend(backend)  # an unknown name is an argument error: before the graph is read
    graph = as_graph(A)
    be = backends.for_graph(backend, graph)
    why = "coarse mappings look for the heaviest edges" if method in WEIGHTED_METHODS else None
    graph = choose_weights(graph.on_device_of(be.xp), weights, why)
    unit = construction == "sort" and _unit_ones(graph)
    vertex_weights = be.xp.ones(graph.n, be.xp.int64)
    levels, stopped = [], "cutoff"
    bounded = unit or _sums_are_bounded(graph)  # the input's total bounds every coarse level's sums
    _progress.report("hierarchy", n=graph.n)
    host, moved, device = _host_backend(be), None, None
    while graph.n > cutoff:  # l.2
        if max_levels is not None and len(levels) + 1 >= max_levels:
            stopped = "max_levels"
            break
        if host is not None and moved is None and graph.nnz <= HOST_LEVEL_ENTRIES:  # the small levels: on the host
            moved, device = len(levels), (be.xp, graph)
            be, graph, vertex_weights = host, _on_host(graph), vertex_weights.get()
        start = time.perf_counter()
        if max_weight is None:
            mapping = coarse_mapping(graph, method, seed=seed, backend=be)  # l.4
        else:
            with be.guard(graph):
                mapping = map_vertices(be, graph, method, seed, float(max_weight), vertex_weights)  # l.4, capped
        mapped = time.perf_counter()
        if _stalled(mapping.n_coarse, graph.n, len(levels) + 1, "vertices"):
            stopped = "stall"
            break
        if mapping.n_coarse < minimum:  # [1] section IV: a level that drops below the minimum is discarded
            stopped = "minimum"
            break
        with be.guard(graph):
            coarse = _coarse_level(be, graph, mapping.labels, mapping.n_coarse, construction)  # l.5
        levels.append(Level(graph, mapping.labels, vertex_weights, (mapped - start, time.perf_counter() - mapped)))
        vertex_weights = coarse_weights(be, mapping.labels, vertex_weights, mapping.n_coarse)
        _carry_checks(graph, coarse, bounded)
        graph = coarse
        _progress.report("level", level=len(levels), n=graph.n)
    levels.append(Level(graph, None, vertex_weights))
    if moved is not None:  # back where the input lives
        levels[moved:] = _on_device(levels[moved:], *device)
    if levels[0].labels is not None:  # the input's own vertices: nodes for networkx input
        levels[0] = labelled(A, levels[0], maps=("labels",))
    return Hierarchy(levels, method, stopped)


#: A hierarchy on the cupy backend moves to the host once a level has at most this many
#: stored entries (:func:`_host_backend`).
HOST_LEVEL_ENTRIES = 1 << 16

#: The checks a level records instead of computing (:func:`_carry_checks`, :func:`_coarse_level`),
#: which a level moved to the host keeps.
_RECORDED = (_NONFINITE, BAD_WEIGHTS, SYMMETRIC_VALUES, _ASYMMETRIC, _EXACT)


def _host_backend(be):
    """The backend that takes a GPU hierarchy's small levels, or None.

    On the cupy backend (and the native one, cupy's with fused kernels) a level costs about
    the same whatever its size: 2.8-3.0 ms for each
    of the HEC levels of Laplace3D 100³ (8 levels, from 10⁶ vertices down to 64; H100, each
    step synchronised), 5.2-5.6 ms for each MIS-2 aggregation level, nearly all of it
    launches and host waits (``results/session-9/gpu``). numba's kernels take a level of
    a few thousand vertices in a fraction of that, and every backend gives the same
    result, so :func:`coarsen` moves a hierarchy to the host once a level has at most
    :data:`HOST_LEVEL_ENTRIES` entries and returns its levels to the device at the end. Only
    where numba's kernels are ready (compiled and cached by the warm-up, or the warm-up is
    off, :func:`gbgraph._warmup.default_cpu_backend`), so that a GPU call compiles nothing
    for the host.
    """
    if be.name not in ("cupy", "native") or _warmup.default_cpu_backend() != "numba":
        return None
    return backends.backend("numba")


def _on_host(graph):
    """A GPU level's graph in host memory, with the checks it records."""
    host = Graph(graph.n, graph.indptr.get(), graph.indices.get(), None if graph.weights is None else graph.weights.get())
    for key in _RECORDED:
        if graph.known(key) is not None:
            host.cached(key, lambda value=graph.known(key): value)
    return host


def _on_device(levels, xp, first):
    """Host levels on the device again, the first one as the graph it was moved from."""
    graphs = [level.graph for level in levels[1:]]
    moved = iter(_to_device(xp, [x for level in levels for x in (level.labels, level.vertex_weights)] +
                            [x for g in graphs for x in (g.indptr, g.indices, g.weights)]))
    vectors = [(next(moved), next(moved)) for _ in levels]
    graphs = [first] + [_kept_on_host(Graph(g.n, next(moved), next(moved), next(moved), _container(xp)), g)
                        for g in graphs]
    return [Level(graph, labels, weights, level.seconds)
            for graph, (labels, weights), level in zip(graphs, vectors, levels)]


def _kept_on_host(graph, host):
    """``graph`` (on the device) with ``host``, the same graph in host memory, as its
    ``on_device_of(numpy)``: the initial bisection reads the coarsest level there."""
    graph.cached(("on", np.__name__), lambda: host)
    return graph


def _to_device(xp, arrays):
    """The host ``arrays`` (None stays None) on the device by one copy: packed at 8-byte
    aligned offsets into one buffer, viewed there as themselves. A copy each cost some 20 µs,
    0.5-0.6 ms for the host levels of a bisection's hierarchy (H200, profile_coarse.py gpu)."""
    present = [np.ascontiguousarray(x) for x in arrays if x is not None]
    offsets = np.cumsum([0] + [-(-x.nbytes // 8) * 8 for x in present])
    packed = np.empty(int(offsets[-1]), np.uint8)
    for x, at in zip(present, offsets):
        packed[at:at + x.nbytes] = x.reshape(-1).view(np.uint8)
    device = xp.asarray(packed)
    views = iter(device[at:at + x.nbytes].view(x.dtype) for x, at in zip(present, offsets))
    return [None if x is None else next(views) for x in arrays]


def _check_max_weight(max_weight, method):
    if max_weight is None:
        return
    if isinstance(max_weight, (bool, np.bool_)) or not isinstance(max_weight, (int, float, np.integer, np.floating)):
        raise TypeError(f"max_weight must be a number, got {max_weight!r} ({type(max_weight).__name__})")
    if not (np.isfinite(max_weight) and max_weight > 0):
        raise ValueError(f"max_weight must be a finite number > 0, got {max_weight!r}")
    if method != "hec":
        raise ValueError(f"max_weight caps method 'hec' only, got method={method!r}")


def _sums_are_bounded(graph):
    """Whether no sum of the graph's weights can overflow: their count times their largest
    magnitude, a bound on their absolute total, is below half the largest value of their
    type (a pattern's coarse weights count its edges). Two reductions, no temporary array."""
    w = graph.weights
    if w is None or w.size == 0:
        return True
    limit = np.finfo(w.dtype).max if w.dtype.kind == "f" else np.iinfo(w.dtype).max
    largest = max(abs(float(w.max())), abs(float(w.min())))  # NaN compares false: not bounded
    return largest * w.size < float(limit) / 2


def _carry_checks(fine, coarse, bounded):
    """A coarse weight sums fine ones, so a check that found no NaN, infinite or negative
    weight on the fine level holds on the coarse one (given bounded sums), and ``Pᵀ A P`` of
    symmetric weights is symmetric: the hierarchy records the checks instead of a pass and a
    synchronisation per level (a coarse level's two sums of one edge may round apart)."""
    for key in (_NONFINITE, BAD_WEIGHTS) if bounded else ():
        if fine.known(key) == 0:
            coarse.cached(key, lambda: 0)
    if (fine.known(SYMMETRIC_VALUES) or (None,))[0] == 0:
        coarse.cached(SYMMETRIC_VALUES, lambda: (0, None, None))

"""Positions in the plane for graphs without coordinates, by gbgraph's own coarsening.

A multilevel force-directed layout (Walshaw [1]_, Hu [2]_): coarsen the graph with heavy edge
coarsening (:func:`gbgraph.coarsen`, ``"hec"``) down to a few dozen vertices, lay out the
coarsest graph by spring-electrical forces with every repulsion computed, then go back up the
hierarchy: each vertex starts at its coarse vertex's position (spread by a fixed spiral and
averaged with its neighbours), and a few sweeps of the same forces smooth the level. On the
finer levels a vertex is pushed only by its nearest vertices (from a k-d tree): the coarse
levels have already placed the distant ones. Attraction is a
sparse matrix-vector product with the graph; nothing is factorised, and the cost of a
sweep is linear in the edges and vertices.

Groups (aggregates, parts) can steer the hierarchy: its first levels then merge vertices of
one group only, so that every vertex of those levels belongs to one group, and each group is
laid out where its coarse vertices, the quotient graph's, are. Connected components are laid
out apart and set side by side in rows, largest first. The same graph gives the same
positions on every run.
"""

import dataclasses
import warnings

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
from scipy.spatial import cKDTree

from . import _progress
from .graph import as_graph

__all__ = ["layout"]

#: Coarsening stops at this many vertices; the coarsest graph's repulsions are all computed.
COARSEST = 64
#: Levels of up to this many vertices compute every repulsion (a pair list of ~n²/2), so that
#: the coarse levels, which fix the picture's overall shape, can still unfold.
_EXACT = 600
#: Natural edge length of the force model.
_K = 1.0
#: Strength of the repulsion against the attraction (Hu's C [2]_).
_C = 0.2
#: On the levels of nearest repulsion, an edge between two groups pulls this much of an edge
#: inside one, so that groups part where their edges allow. Not on the coarse levels: a piece
#: of a group tied to it only through other groups would be flung away there.
_CUT_PULL = 0.1
#: On the finer levels each vertex is pushed by this many nearest vertices only.
_NEAREST = 10
#: Sweeps, first step (times the square root of the level's input vertices, or of their mean
#: per vertex on the finer levels) and the factor that cools the step after each sweep. The
#: coarsest level starts from a spectral drawing, the others from the level below theirs.
_COARSEST_SWEEPS, _COARSEST_COOLING = 300, 0.985
_EXACT_SWEEPS, _EXACT_COOLING, _EXACT_STEP = 100, 0.97, 0.1
_FINE_SWEEPS, _FINE_COOLING, _FINE_STEP = 30, 0.9, 2.0
#: Levels above this many vertices get proportionally fewer sweeps, down to a third: their
#: vertices only add local detail to the shape the levels below fixed.
_FINE_FULL = 20_000
#: A group-respecting level that keeps more than this fraction of the vertices above it ends
#: the group-respecting part of a hierarchy.
_STALL = 0.95


@dataclasses.dataclass
class Levels:
    """A hierarchy for drawing: graphs from fine to coarse and the maps between them.

    ``graphs[l]`` is the pattern of level l (scipy CSR, symmetric, no diagonal); ``maps[l]``
    gives each vertex of level l its vertex of level l + 1; ``groups[l]`` is each vertex's
    group on the levels that respect groups (``None`` beyond them, or without groups).
    """

    graphs: list
    maps: list
    groups: list

    def __len__(self):
        return len(self.graphs)

    def to_level(self, level):
        """Each input vertex's vertex on ``level``."""
        owner = np.arange(self.graphs[0].shape[0])
        for labels in self.maps[:level]:
            owner = labels[owner]
        return owner


def layout(A):
    """Positions in the plane for a graph without coordinates: a multilevel force layout.

    The graph is coarsened by heavy edge coarsening (:func:`gbgraph.coarsen`) to at most
    64 vertices; the coarsest graph gets a spring-electrical layout, and each finer level
    starts from the positions of its coarse vertices and is smoothed by a few force sweeps
    (Walshaw's and Hu's multilevel scheme [1]_ [2]_). Components are laid out apart and set
    side by side in rows, largest first. Deterministic: the same positions on every run.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; the pattern is used.

    Returns
    -------
    numpy.ndarray
        ``(n, 2)`` float64 positions; neighbours are about one unit apart.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    Notes
    -----
    No matrix is factorised: a sweep costs a sparse product with the graph and a k-d tree
    query of each vertex's ten nearest vertices, linear in the graph's size. A mesh of
    100,000 vertices takes a few seconds; memory stays within a few times the graph's.

    References
    ----------
    .. [1] C. Walshaw, "A multilevel algorithm for force-directed graph-drawing," Journal of
       Graph Algorithms and Applications 7(3), 2003, pp. 253-285.
       https://doi.org/10.7155/jgaa.00070
    .. [2] Y. Hu, "Efficient, high-quality force-directed graph drawing," The Mathematica
       Journal 10(1), 2005, pp. 37-71.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, gbgraph as gg
    >>> A = gg.generators.laplace3d(20, 20, 1)                  # a 20 × 20 grid
    >>> xy = gg.plot.layout(A)
    >>> rows, cols = sp.triu(A, k=1).nonzero()
    >>> edge = np.linalg.norm(xy[rows] - xy[cols], axis=1).mean()
    >>> spread = np.linalg.norm(xy - xy.mean(axis=0), axis=1).mean()
    >>> xy.shape, bool(edge < spread / 4)
    ((400, 2), True)
    """
    graph = as_graph(A, weights=False).on_device_of(np)
    levels = hierarchy(pattern(graph))
    return positions(levels)


def pattern(graph):
    """The graph's pattern as a scipy CSR array of float64 ones."""
    return sp.csr_array((np.ones(graph.nnz), graph.indices, graph.indptr), shape=(graph.n, graph.n))


def hierarchy(S, groups=None, *, cutoff=COARSEST):
    """The :class:`Levels` of pattern ``S`` down to ``cutoff`` vertices (or a stall).

    With ``groups`` (an int array, one group per vertex), the first levels map vertices to
    coarse vertices of their own group only (heavy edge coarsening of the graph without the
    edges between groups), until that stalls; the coarse graphs keep every edge. The levels
    below are :func:`gbgraph.coarsen`'s.
    """
    from .algorithms.coarsen import CoarseningStallWarning, coarse_graph, coarsen
    from .algorithms.mapping import coarse_mapping

    graphs, maps, kept = [S], [], [groups]
    with _progress.listening(None), warnings.catch_warnings():  # the caller's bars count other work
        warnings.simplefilter("ignore", CoarseningStallWarning)
        W = S
        while groups is not None and W.shape[0] > cutoff:
            rows, cols = _ends(W)
            inside = W.copy()
            inside.data = np.where(groups[rows] == groups[cols], W.data, 0.0)
            inside.eliminate_zeros()
            if inside.nnz == 0:
                break
            mapping = coarse_mapping(inside, "hec")
            if mapping.n_coarse > _STALL * W.shape[0]:
                break
            labels = np.asarray(mapping.labels, dtype=np.int64)
            groups = _coarse_groups(labels, groups, mapping.n_coarse)
            W = sp.csr_array(coarse_graph(W, labels))  # edge weights: the fine edges merged
            graphs.append(_ones(W))
            maps.append(labels)
            kept.append(groups)
        if groups is not None and W.shape[0] > cutoff:
            ids, labels = np.unique(groups, return_inverse=True)
            if ids.size < W.shape[0]:  # the quotient graph: one vertex per group
                W = sp.csr_array(coarse_graph(W, labels))
                graphs.append(_ones(W))
                maps.append(labels.astype(np.int64))
                kept.append(ids)
        if W.shape[0] > cutoff:
            h = coarsen(W, "hec", cutoff=cutoff)
            for level in h.levels[1:]:
                g = level.graph
                graphs.append(sp.csr_array((np.ones(g.nnz), g.indices, g.indptr), shape=(g.n, g.n)))
                kept.append(None)
            maps.extend(np.asarray(level.labels, dtype=np.int64) for level in h.levels[:-1])
    return Levels(graphs, maps, kept)


def positions(levels, level=0):
    """Positions of the vertices of ``levels.graphs[level]``: lay out the coarsest level,
    then interpolate and smooth level by level up to ``level``. Reports ``"plot"`` events
    (see :mod:`gbgraph._progress`) as the levels are done."""
    steps = len(levels) - level
    components = _components(levels)
    weights = [np.ones(levels.graphs[0].shape[0])]
    for labels, S in zip(levels.maps, levels.graphs[1:]):
        weights.append(np.bincount(labels, weights[-1], S.shape[0]))
    coarsest = len(levels) - 1
    x = _coarsest(levels.graphs[coarsest], weights[coarsest], components[coarsest])
    _progress.report("plot", done=1, total=steps, what=f"level {coarsest}: {x.shape[0]:,} vertices")
    for fine in range(coarsest - 1, level - 1, -1):
        S, w, comp, groups = levels.graphs[fine], weights[fine], components[fine], levels.groups[fine]
        x = _interpolate(S, x, levels.maps[fine], w, groups)
        if S.shape[0] <= _EXACT:
            x = _sweeps(S, x, w, comp, _EXACT_SWEEPS, _EXACT_STEP * np.sqrt(w.sum()), _EXACT_COOLING, exact=True)
            x = _normalised(S, x, w, comp)
        else:
            sweeps = int(np.clip(_FINE_SWEEPS * _FINE_FULL / S.shape[0], _FINE_SWEEPS / 3, _FINE_SWEEPS))
            x = _sweeps(S, x, w, comp, sweeps, _FINE_STEP * np.sqrt(w.mean()), _FINE_COOLING ** (_FINE_SWEEPS / sweeps),
                        exact=False, groups=groups)
        _progress.report("plot", done=coarsest - fine + 1, total=steps, what=f"level {fine}: {x.shape[0]:,} vertices")
    return _pack(x, components[level])


def _ones(W):
    """The pattern of W, as float64 ones."""
    return sp.csr_array((np.ones(W.nnz), W.indices, W.indptr), shape=W.shape)


def _ends(S):
    """(rows, cols) of every stored entry of CSR ``S``."""
    return np.repeat(np.arange(S.shape[0]), np.diff(S.indptr)), S.indices


def _coarse_groups(labels, groups, k):
    """Each coarse vertex's group (its vertices share one)."""
    coarse = np.empty(k, dtype=groups.dtype)
    coarse[labels] = groups
    return coarse


def _components(levels):
    """Connected component of each vertex of each level (a coarse vertex lies in one)."""
    _, comp = csgraph.connected_components(levels.graphs[0], directed=False)
    comps = [comp]
    for labels, S in zip(levels.maps, levels.graphs[1:]):
        coarse = np.empty(S.shape[0], dtype=comp.dtype)
        coarse[labels] = comps[-1]
        comps.append(coarse)
    return comps


def _coarsest(S, w, comp):
    """Spring-electrical layout of the coarsest graph from each component's spectral drawing
    (Koren's, dense), which is folded at worst, never tangled as scattered points can be.
    Every pair of a component repels, unless a component is too large for that (a hierarchy
    that stalled early, on a graph of many isolated vertices): then the nearest do."""
    order = np.argsort(comp, kind="stable")
    size = np.bincount(comp)
    starts = np.r_[0, np.cumsum(size)]
    P = S[order][:, order]  # components in contiguous blocks
    x = np.zeros((S.shape[0], 2))
    for c in np.flatnonzero(size > 1):
        a, b = starts[c], starts[c + 1]
        x[order[a:b]] = (_spectral(P[a:b, a:b]) - 0.5) * np.sqrt(w[order[a:b]].sum()) * _K
    exact = size.max(initial=0) <= _EXACT
    x = _sweeps(S, x, w, comp, _COARSEST_SWEEPS, _EXACT_STEP * np.sqrt(w.sum()), _COARSEST_COOLING, exact=exact)
    return _normalised(S, x, w, comp)


def _spectral(S):
    """Positions of a small connected graph in the unit square: the generalized eigenvectors
    2 and 3 of ``L x = λ D x`` (dense), each scaled to [0, 1], signs fixed."""
    n = S.shape[0]
    if n <= 2:
        return np.array([[0.5, 0.5]]) if n == 1 else np.array([[0.0, 0.5], [1.0, 0.5]])
    d = S.sum(axis=1)
    L = np.diag(d) - S.toarray()
    _, vectors = scipy.linalg.eigh(L, np.diag(d), subset_by_index=[1, min(2, n - 1)])
    if vectors.shape[1] == 1:  # a graph of 3 vertices has only one nontrivial eigenvector
        vectors = np.column_stack((vectors[:, 0], np.zeros(n)))
    vectors = vectors * np.where(vectors[np.argmax(np.abs(vectors), axis=0), [0, 1]] < 0, -1.0, 1.0)
    low, high = vectors.min(axis=0), vectors.max(axis=0)
    return (vectors - low) / np.where(high > low, high - low, 1.0)


def _normalised(S, x, w, comp, groups=None):
    """``x`` scaled about each component's centre so that its edges are on average as long
    as their natural lengths: the sum of every repulsion spreads a level more than its
    neighbours' forces alone would. Edges between ``groups`` (stretched on purpose) do not
    count."""
    rows, cols = _ends(S)
    if groups is not None and np.any(groups[rows] == groups[cols]):
        inside = groups[rows] == groups[cols]
        rows, cols = rows[inside], cols[inside]
    ratio = np.linalg.norm(x[rows] - x[cols], axis=1) / _natural(w, rows, cols)
    count = np.bincount(comp[rows], minlength=int(comp.max()) + 1 if comp.size else 0)
    mean = np.bincount(comp[rows], weights=ratio, minlength=count.size) / np.maximum(count, 1)
    scale = 1.0 / np.where(mean > 0, mean, 1.0)
    centre = _centres(x, comp)
    return centre[comp] + (x - centre[comp]) * scale[comp][:, None]


def _natural(w, i, j):
    """Natural length of pair (i, j): a vertex standing for w input vertices covers an area of
    about w K², so two such vertices sit about K √((w_i + w_j) / 2) apart (Walshaw's weighted
    vertices [1]_)."""
    return _K * np.sqrt(0.5 * (w[i] + w[j]))


def _interpolate(S, coarse_x, labels, w, groups=None):
    """Fine positions from coarse ones: the vertices of a coarse vertex start spread over the
    disc it stands for (area: their weight, in K²) on a golden-angle spiral, then move halfway
    to the mean of their neighbours (of their group, with ``groups``): a product with the
    graph."""
    order = np.argsort(labels, kind="stable")
    count = np.bincount(labels, minlength=coarse_x.shape[0])
    rank = np.empty(labels.size)
    rank[order] = np.arange(labels.size) - np.repeat(np.cumsum(count) - count, count)
    area = np.bincount(labels, w, coarse_x.shape[0])[labels]
    radius = 0.5 * _K * np.sqrt(area * (rank + 0.5) / count[labels])
    angle = rank * (np.pi * (3.0 - np.sqrt(5.0)))
    x = coarse_x[labels] + radius[:, None] * np.column_stack((np.cos(angle), np.sin(angle)))
    if groups is not None:
        rows, cols = _ends(S)
        S = sp.csr_array(((groups[rows] == groups[cols]).astype(np.float64), S.indices, S.indptr), shape=S.shape)
    degree = S.sum(axis=1)
    mean = (S @ x) / np.maximum(degree, 1)[:, None]
    return np.where(degree[:, None] > 0, 0.5 * (x + mean), x)


def _centres(x, comp):
    count = np.maximum(np.bincount(comp), 1)
    return np.column_stack([np.bincount(comp, weights=x[:, d]) / count for d in range(2)])


def _sweeps(S, x, w, comp, sweeps, step, cooling, *, exact, groups=None):
    """Move each vertex along its spring-electrical force, by at most ``step``, which cools
    after each sweep (Fruchterman and Reingold's temperature). With ``l`` a pair's natural
    length: attraction ``d² / l`` along each edge, a sparse product with the graph;
    repulsion ``C l² / d`` on each vertex from the others of its component: all of them if
    ``exact``, else its ``_NEAREST`` nearest. Edges between ``groups`` pull ``_CUT_PULL`` as
    hard, so that groups part where their edges allow."""
    x = np.array(x, dtype=np.float64)
    n = x.shape[0]
    if n < 2:
        return x
    rows, cols = _ends(S)
    edge_length = _natural(w, rows, cols)
    if groups is not None:
        edge_length = np.where(groups[rows] == groups[cols], edge_length, edge_length / _CUT_PULL)
    if exact:
        i, j = _all_pairs(comp)
        i, j = np.r_[i, j], np.r_[j, i]
        length2 = _natural(w, i, j) ** 2
    for _ in range(sweeps):
        d = x[cols] - x[rows]
        W = sp.csr_array((np.hypot(d[:, 0], d[:, 1]) / edge_length, S.indices, S.indptr), shape=S.shape)
        force = W @ x - W.sum(axis=1)[:, None] * x  # f_i = Σ_j |x_j - x_i| / l_ij (x_j - x_i)
        if not exact:
            i, j = _near_pairs(x, comp)
            length2 = _natural(w, i, j) ** 2
        v = x[i] - x[j]
        push = v * (_C * length2 / np.maximum(np.einsum("ij,ij->i", v, v), 1e-9 * length2))[:, None]
        force += np.column_stack([np.bincount(i, push[:, k], n) for k in range(2)])
        size = np.hypot(force[:, 0], force[:, 1])
        x += force * (np.minimum(size, step) / np.maximum(size, 1e-12))[:, None]
        step *= cooling
    return x


def _all_pairs(comp):
    """Every pair (i < j) of vertices of one component, of the coarsest graph."""
    order = np.argsort(comp, kind="stable")
    starts = np.r_[0, np.flatnonzero(np.diff(comp[order])) + 1, comp.size]
    first, second = [], []
    for a, b in zip(starts[:-1], starts[1:]):
        if b - a > 1:
            i, j = np.triu_indices(b - a, k=1)
            first.append(order[a + i])
            second.append(order[a + j])
    if not first:
        return np.empty(0, np.int64), np.empty(0, np.int64)
    return np.concatenate(first), np.concatenate(second)


def _near_pairs(x, comp):
    """Each vertex with its ``_NEAREST`` nearest vertices of its component (a k-d tree query:
    n × k pairs however dense the picture)."""
    n = x.shape[0]
    k = min(_NEAREST, n - 1)
    _, near = cKDTree(x).query(x, k=k + 1)
    i = np.repeat(np.arange(n), k)
    j = near[:, 1:].ravel()
    same = comp[i] == comp[j]
    return i[same], j[same]


def _pack(x, comp):
    """Components side by side in rows, largest first, one unit apart."""
    count = np.bincount(comp)
    if count.size < 2:
        return x - x.min(axis=0) if x.size else x
    low = np.full((count.size, 2), np.inf)
    high = np.full((count.size, 2), -np.inf)
    np.minimum.at(low, comp, x)
    np.maximum.at(high, comp, x)
    side = high - low
    width = max(np.sqrt(np.prod(side + 1.0, axis=1).sum()) * 1.2, side[:, 0].max())
    offset = np.empty_like(low)
    at_x = at_y = row_height = 0.0
    for c in np.argsort(-count, kind="stable"):
        if at_x > 0 and at_x + side[c, 0] > width:
            at_x, at_y, row_height = 0.0, at_y - row_height - 1.0, 0.0
        offset[c] = (at_x, at_y - side[c, 1])
        at_x, row_height = at_x + side[c, 0] + 1.0, max(row_height, side[c, 1])
    return x - low[comp] + offset[comp]

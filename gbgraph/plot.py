"""Pictures of graphs and of what gbgraph computes on them, drawn with matplotlib.

``pip install gbgraph[plot]`` installs matplotlib; this module imports it on the first
call, so ``import gbgraph`` does not need it. Every function draws on ``ax`` (new axes of a
new pyplot figure when None) and returns the axes; ``ax.figure.savefig("file.png")`` writes
the picture. Graphs and arrays may be on the GPU (cupyx sparse, CuPy arrays): they are
copied to the host for drawing.

Vertices are placed at ``coords`` when given (an ``(n, 2)`` array, or ``(n, 3)`` for 3-D
axes: :func:`gbgraph.generators.grid_coordinates` gives the points of a generated grid),
else by :func:`layout`, a multilevel force layout computed with gbgraph's own coarsening
(:mod:`gbgraph.layout`).

A graph of more than :data:`MAX_DRAWN` vertices is more than a picture can show: its
vertices would be smaller than a pixel and its edges a grey fog. :func:`aggregates` and
:func:`partition` then draw a coarse level of a hierarchy instead, each drawn vertex standing
for input vertices of one group where the hierarchy allows it, and say so in the title and
with a :class:`CoarseDrawingWarning`.
"""

import dataclasses
import warnings

import numpy as np
import scipy.sparse as sp

from . import _progress
from .errors import GBGraphError
from .graph import as_graph
from .layout import hierarchy as _hierarchy
from .layout import COARSEST, layout, pattern, positions

__all__ = ["aggregates", "CoarseDrawingWarning", "hierarchy", "layout", "MAX_DRAWN", "partition", "spy"]

#: Most vertices drawn: above, :func:`aggregates` and :func:`partition` draw a coarse level.
#: 50,000 vertices on a picture of about a million pixels (150 dpi) are some 20 pixels each.
MAX_DRAWN = 50_000
#: Edges inside a group take its colour; edges between aggregates are this grey, darker than
#: the background so that the groups' borders show, lighter than the colours.
_BETWEEN = "0.55"
#: Pixels along the longer side of the map of the groups' regions.
_REGION_PIXELS = 800


class CoarseDrawingWarning(GBGraphError, UserWarning):
    """The graph had more than :data:`MAX_DRAWN` vertices, so a coarse level was drawn."""


def aggregates(A, labels, coords=None, *, ax=None):
    """Draw a graph with its vertices and the edges inside each aggregate coloured by aggregate.

    Aggregates take the colors of a greedy coloring of the graph of aggregates
    (:func:`gbgraph.color` on ``Pᵀ A P``), so that neighbouring aggregates differ; edges
    between aggregates are grey. On 2-D pictures each aggregate's region (the points nearer
    to its vertices than to others) is shaded in its colour, with dark borders. Without
    ``coords`` the layout keeps each aggregate's vertices together (:func:`layout` over a
    hierarchy whose first levels merge vertices of one aggregate only). Above
    :data:`MAX_DRAWN` vertices a coarse level is drawn (the graph of the aggregates when it
    is small enough), with a :class:`CoarseDrawingWarning` and a second title line.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its pattern is drawn.
    labels : array_like of int
        Aggregate of each vertex, ``>= 0`` (``gg.aggregate(A).labels``,
        ``gg.coarse_mapping(A).labels``, a level's ``labels`` of :func:`gbgraph.coarsen`);
        numpy or CuPy.
    coords : array_like, optional
        ``(n, 2)`` or ``(n, 3)`` vertex positions; default :func:`layout`.
    ax : matplotlib.axes.Axes, optional
        Where to draw (3-D axes for 3-D coordinates); default new axes.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        without matplotlib (the message names ``pip install gbgraph[plot]``).
    ValueError
        for labels or coordinates whose shape does not match the graph, negative labels,
        or 2-D axes given for 3-D coordinates.
    TypeError
        for labels that are not integers.

    Warns
    -----
    CoarseDrawingWarning
        for a graph of more than :data:`MAX_DRAWN` vertices: which level was drawn.

    Examples
    --------
    >>> import gbgraph as gg
    >>> A = gg.generators.laplace3d(12, 12, 1)                 # a 12 × 12 grid
    >>> agg = gg.aggregate(A)
    >>> ax = gg.plot.aggregates(A, agg.labels, gg.generators.grid_coordinates(12, 12, 1))
    >>> ax.get_title() == f"{agg.n_aggregates} aggregates of 144 vertices"
    True
    """
    graph = _host_graph(A)
    labels = _checked_labels(labels, graph.n, "labels")
    coords = _checked_coords(graph, coords)
    k = int(labels.max()) + 1 if labels.size else 0
    view = _view(graph, labels, coords, f"{k:,} aggregates")
    colors = _palette(_quotient_colors(graph, labels, k))[view.groups]
    ax = _axes(ax, view.xy.shape[1])
    _draw_regions(ax, view, colors)
    rows, cols = _edges(view.S)
    inside = view.groups[rows] == view.groups[cols]
    _draw_edges(ax, view.xy, rows[~inside], cols[~inside], _BETWEEN, view.n)
    _draw_edges(ax, view.xy, rows[inside], cols[inside], colors[rows[inside]], view.n, width=2.0)
    _draw_vertices(ax, view.xy, colors, view.n)
    ax.set_title(f"{k:,} aggregates of {graph.n:,} vertices{view.caption}")
    return ax


def partition(A, parts, coords=None, *, ax=None):
    """Draw a graph with its vertices coloured by part and its cut edges in black.

    Edges inside a part take its colour; on 2-D pictures each part's region is shaded, with
    dark borders. Without ``coords`` the layout keeps each part's vertices together, and above
    :data:`MAX_DRAWN` vertices a coarse level is drawn, each drawn vertex inside one part, as
    :func:`aggregates` does.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its pattern is drawn.
    parts : array_like of int
        Part of each vertex, ``>= 0`` (``gg.partition(A, k).parts``); numpy or CuPy. Up to 10
        parts have the colors ``C0 .. C9`` of matplotlib's cycle in order; more take the
        colors of a greedy coloring of the graph of parts, so that neighbouring parts differ.
    coords : array_like, optional
        ``(n, 2)`` or ``(n, 3)`` vertex positions; default :func:`layout`.
    ax : matplotlib.axes.Axes, optional
        Where to draw (3-D axes for 3-D coordinates); default new axes.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        without matplotlib (the message names ``pip install gbgraph[plot]``).
    ValueError
        for parts or coordinates whose shape does not match the graph, negative parts,
        or 2-D axes given for 3-D coordinates.
    TypeError
        for parts that are not integers.

    Warns
    -----
    CoarseDrawingWarning
        for a graph of more than :data:`MAX_DRAWN` vertices: which level was drawn.

    Examples
    --------
    >>> import gbgraph as gg
    >>> A = gg.generators.laplace3d(16, 8, 1) != 0             # a 16 × 8 grid, unit weights
    >>> r = gg.bisect(A)
    >>> gg.plot.partition(A, r.parts, gg.generators.grid_coordinates(16, 8, 1)).get_title()
    '2 parts of 128 vertices, 8 cut edges'
    """
    graph = _host_graph(A)
    parts = _checked_labels(parts, graph.n, "parts")
    coords = _checked_coords(graph, coords)
    k = int(parts.max()) + 1 if parts.size else 0
    cut = _cut(graph, parts)
    view = _view(graph, parts, coords, f"{k:,} parts")
    colors = _palette(np.arange(k) if k <= 10 else _quotient_colors(graph, parts, k))[view.groups]
    ax = _axes(ax, view.xy.shape[1])
    _draw_regions(ax, view, colors)
    rows, cols = _edges(view.S)
    across = view.groups[rows] != view.groups[cols]
    _draw_edges(ax, view.xy, rows[~across], cols[~across], colors[rows[~across]], view.n, width=0.6)
    _draw_edges(ax, view.xy, rows[across], cols[across], "black", view.n, width=1.5)
    _draw_vertices(ax, view.xy, colors, view.n)
    ax.set_title(f"{k:,} parts of {graph.n:,} vertices, {cut:,} cut edges{view.caption}")
    return ax


def hierarchy(h, *, ax=None):
    """Plot the vertices and edges of every level of a coarsening hierarchy, log scale.

    Parameters
    ----------
    h : Hierarchy
        From :func:`gbgraph.coarsen`.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default new axes.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        without matplotlib (the message names ``pip install gbgraph[plot]``).
    TypeError
        if ``h`` is not a :class:`gbgraph.Hierarchy`.

    Examples
    --------
    >>> import gbgraph as gg
    >>> h = gg.coarsen(gg.generators.laplace3d(10), cutoff=20)
    >>> ax = gg.plot.hierarchy(h)
    >>> [line.get_label() for line in ax.get_lines()]
    ['vertices', 'edges']
    """
    from .algorithms.coarsen import Hierarchy

    if not isinstance(h, Hierarchy):
        raise TypeError(f"h must be a gbgraph Hierarchy (from gg.coarsen), got {type(h).__name__}")
    ax = _axes(ax, 2)
    levels = np.arange(len(h))
    ax.plot(levels, [level.n for level in h], "o-", label="vertices")
    ax.plot(levels, [level.nnz // 2 for level in h], "s-", label="edges")
    ax.set_yscale("log")
    ax.set_xticks(levels)
    ax.set_xlabel("level")
    ax.set_ylabel("count")
    ax.grid(True, which="major", alpha=0.4)
    ax.legend()
    ax.set_title(f"{h.method}: {len(h)} levels, average ratio {h.average_ratio:.2f}")
    return ax


def spy(C, *, ax=None, bins=512):
    """Draw the pattern of a sparse matrix, shading by the number of entries per pixel.

    Unlike ``matplotlib.pyplot.spy``, the picture has at most ``bins × bins`` cells whatever
    the order of the matrix: each cell shows how many stored entries fall in it (log scale),
    so a matrix of millions of rows draws as fast as a small one.

    Parameters
    ----------
    C : sparse matrix or array
        scipy sparse (any format), cupyx sparse, a numpy or CuPy 2-D array (its nonzeros),
        a ``graphblas.Matrix``, or anything else :func:`gbgraph.as_graph` accepts (its
        off-diagonal pattern). Need not be square or symmetric.
    ax : matplotlib.axes.Axes, optional
        Where to draw; default new axes.
    bins : int
        Most cells along each side; a matrix with fewer rows and columns gets one cell
        per entry.

    Returns
    -------
    matplotlib.axes.Axes

    Raises
    ------
    ImportError
        without matplotlib (the message names ``pip install gbgraph[plot]``).
    ValueError
        for ``bins < 1``.

    Examples
    --------
    >>> import gbgraph as gg
    >>> A = gg.generators.laplace3d(4)
    >>> gg.plot.spy(A).get_title() == f"64 × 64, {A.nnz} stored entries"
    True
    """
    from ._checks import check_integer

    bins = check_integer("bins", bins, minimum=1)
    M = _host_coo(C)
    (rows, cols), (nr, nc) = M.coords, M.shape
    br, bc = min(nr, bins), min(nc, bins)
    cells = np.zeros((br, bc))
    if M.nnz:
        np.add.at(cells, (rows.astype(np.int64) * br // nr, cols.astype(np.int64) * bc // nc), 1.0)
    ax = _axes(ax, 2)
    ax.imshow(np.log1p(cells), cmap="Greys", vmin=0, interpolation="nearest", aspect="equal",
              extent=(-0.5, nc - 0.5, nr - 0.5, -0.5))
    ax.set_title(f"{nr:,} × {nc:,}, {M.nnz:,} stored entries")
    return ax


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise ImportError(f"gbgraph.plot needs matplotlib: pip install gbgraph[plot] ({e})") from e
    return plt


def _axes(ax, dimensions):
    """``ax``, checked against the coordinates' dimensions, or new axes of a new figure."""
    plt = _pyplot()
    if ax is None:
        fig = plt.figure(figsize=(6.4, 6.4) if dimensions == 3 else None)
        return fig.add_subplot(projection="3d" if dimensions == 3 else None)
    if dimensions == 3 and ax.name != "3d":
        raise ValueError("3-D coordinates need 3-D axes: fig.add_subplot(projection='3d')")
    return ax


def _host_graph(A):
    return as_graph(A, weights=False).on_device_of(np)


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


def _checked_labels(values, n, name):
    values = _host(values)
    if values.ndim != 1 or values.size != n:
        raise ValueError(f"{name} must have one entry per vertex, {n:,}; got shape {values.shape}")
    if values.size and values.dtype.kind not in "iu":
        raise TypeError(f"{name} must be integers, got {values.dtype}")
    values = values.astype(np.int64, copy=False)
    if values.size and int(values.min()) < 0:
        raise ValueError(f"{name} must be >= 0, got {int(values.min())} at vertex {int(np.argmin(values))}")
    return values


def _checked_coords(graph, coords):
    """(n, 2) or (n, 3) float positions, or None; a third coordinate that never varies is
    dropped."""
    if coords is None:
        return None
    xy = _host(coords).astype(np.float64)
    if xy.ndim != 2 or xy.shape[0] != graph.n or xy.shape[1] not in (2, 3):
        raise ValueError(f"coords must have shape ({graph.n:,}, 2) or ({graph.n:,}, 3), got {xy.shape}")
    if xy.shape[1] == 3 and (graph.n == 0 or np.ptp(xy[:, 2]) == 0):
        return xy[:, :2]
    return xy


@dataclasses.dataclass
class _View:
    """What is drawn: the pattern ``S`` of a level, its positions, each vertex's group, and
    the title's note of the level (empty for the input itself)."""

    S: object
    xy: np.ndarray
    groups: np.ndarray
    caption: str = ""

    @property
    def n(self):
        return self.S.shape[0]


def _view(graph, groups, coords, what):
    """The input itself when it has at most :data:`MAX_DRAWN` vertices, else the finest level
    that has few enough of a hierarchy whose first levels keep groups apart. Positions: the
    coordinates (averaged over each drawn vertex's input vertices), else the multilevel
    layout of that hierarchy, in which each group lies where its coarse vertices do."""
    S = pattern(graph)
    if coords is not None and graph.n <= MAX_DRAWN:
        return _View(S, coords, groups)
    _progress.report("plot", done=0, total=None, what="coarsening")
    levels = _hierarchy(S, groups, cutoff=MAX_DRAWN if coords is not None else COARSEST)
    level = next(i for i, G in enumerate(levels.graphs) if G.shape[0] <= MAX_DRAWN or i == len(levels) - 1)
    owner = levels.to_level(level)
    if coords is None:
        xy = positions(levels, level)
    else:
        count = np.bincount(owner, minlength=levels.graphs[level].shape[0])
        xy = np.column_stack([np.bincount(owner, coords[:, d], count.size) / count for d in range(coords.shape[1])])
    if level == 0:
        return _View(S, xy, groups)
    n = levels.graphs[level].shape[0]
    drawn = levels.groups[level]
    mixed = drawn is None
    if mixed:  # the level merged groups: each drawn vertex takes the group most of its vertices are in
        drawn = sp.csr_array((np.ones(graph.n), (owner, groups)), shape=(n, int(groups.max()) + 1)).argmax(axis=1)
        drawn = np.asarray(drawn).ravel()
    quotient = not mixed and np.unique(drawn).size == n
    kind = (f"one vertex per group: the graph of the {what}" if quotient else
            f"coloured by the group most of their vertices are in" if mixed else f"each inside one of the {what}")
    warnings.warn(f"{graph.n:,} vertices are more than a picture shows ({MAX_DRAWN:,}): drawing level {level} of "
                  f"a coarsening hierarchy instead, {n:,} vertices standing for {graph.n / n:.1f} each ({kind})",
                  CoarseDrawingWarning, stacklevel=3)
    caption = (f"\ndrawn: the graph of the {what}" if quotient else
               f"\ndrawn: level {level} of a coarsening, {n:,} vertices{' (majority colours)' if mixed else ''}")
    return _View(levels.graphs[level], xy, np.asarray(drawn, dtype=np.int64), caption)


def _cut(graph, parts):
    rows, cols = _edges(pattern(graph))
    return int(np.count_nonzero(parts[rows] != parts[cols]))


def _edges(S):
    """Each edge of CSR pattern ``S`` once, as (rows, cols) with row < col."""
    rows = np.repeat(np.arange(S.shape[0]), np.diff(S.indptr))
    upper = rows < S.indices
    return rows[upper], S.indices[upper].astype(np.int64)


def _quotient_colors(graph, labels, k):
    """A greedy coloring of the graph of the groups (``Pᵀ A P``): neighbouring groups differ."""
    from .algorithms.coloring import color

    S = sp.csr_array((np.ones(graph.nnz), graph.indices, graph.indptr), shape=(graph.n, graph.n))
    P = sp.csr_array((np.ones(graph.n), labels, np.arange(graph.n + 1)), shape=(graph.n, k))
    return color((P.T @ S @ P) != 0).colors


def _palette(indices):
    """RGBA colors of matplotlib's default cycle (10 colors; tab20 for more, repeating)."""
    plt = _pyplot()
    cmap = plt.get_cmap("tab10" if indices.size == 0 or indices.max() < 10 else "tab20")
    return cmap(np.asarray(indices) % cmap.N)


def _size(n, largest):
    """Marker sizes and line widths that shrink as the graph grows, so that it stays legible."""
    return float(np.clip(largest * 12.0 / np.sqrt(max(n, 1)), 0.05 * largest, largest))


def _draw_edges(ax, xy, rows, cols, colors, n, width=1.0):
    from matplotlib.collections import LineCollection

    segments = np.stack((xy[rows], xy[cols]), axis=1)
    if xy.shape[1] == 3:
        from mpl_toolkits.mplot3d.art3d import Line3DCollection

        ax.add_collection(Line3DCollection(segments, colors=colors, linewidths=_size(n, width)))
    else:
        ax.add_collection(LineCollection(segments, colors=colors, linewidths=_size(n, width), zorder=1))


def _draw_regions(ax, view, colors):
    """Each group's region, light in its colour, with dark borders: every pixel of a grid
    over the picture takes the group of its nearest vertex (a Voronoi map of the groups [1]_),
    pixels farther than twice the usual gap between vertices from every vertex stay blank, and pixels whose
    right or upper neighbour lies in another group are its border. So a group shows as one
    patch even where its vertices are specks; 2-D pictures only.

    .. [1] E. R. Gansner, Y. Hu and S. Kobourov, "GMap: Visualizing graphs and clusters as
       maps," IEEE Pacific Visualization Symposium, 2010, pp. 201-208.
       https://doi.org/10.1109/PACIFICVIS.2010.5429590
    """
    from scipy.spatial import cKDTree

    xy = view.xy
    if xy.shape[1] != 2 or view.n < 3:
        return
    tree = cKDTree(xy)
    reach = 2.0 * float(np.median(tree.query(xy, k=2)[0][:, 1]))  # twice the usual gap between vertices
    if not reach > 0:
        return
    low, high = xy.min(axis=0) - reach, xy.max(axis=0) + reach
    pixel = max(high - low) / _REGION_PIXELS
    shape = np.maximum(np.ceil((high - low) / pixel).astype(int), 1)
    gx, gy = np.meshgrid(low[0] + (np.arange(shape[0]) + 0.5) * pixel, low[1] + (np.arange(shape[1]) + 0.5) * pixel)
    distance, nearest = tree.query(np.column_stack((gx.ravel(), gy.ravel())), distance_upper_bound=reach)
    nearest = np.minimum(nearest, view.n - 1).reshape(gx.shape)  # n: no vertex within reach
    owner = np.where(np.isfinite(distance).reshape(gx.shape), view.groups[nearest], -1)
    image = np.zeros(gx.shape + (4,))
    filled = owner >= 0
    image[filled] = 0.55 + 0.45 * colors[nearest[filled]]  # the group's colour, lightened
    image[filled, 3] = 1.0
    border = np.zeros(gx.shape, bool)
    border[:, :-1] |= (owner[:, :-1] != owner[:, 1:]) & filled[:, :-1] & filled[:, 1:]
    border[:-1, :] |= (owner[:-1, :] != owner[1:, :]) & filled[:-1, :] & filled[1:, :]
    image[border] = (0.2, 0.2, 0.2, 1.0)
    ax.imshow(image, origin="lower", extent=(low[0], low[0] + shape[0] * pixel, low[1], low[1] + shape[1] * pixel),
              interpolation="nearest", zorder=0)


def _draw_vertices(ax, xy, colors, n):
    ax.scatter(*xy.T, c=colors, s=_size(n, 30.0), linewidths=0, zorder=2)
    if xy.shape[1] == 2:
        ax.set_aspect("equal")
    ax.set_axis_off()


def _host_coo(C):
    """A scipy COO array of any matrix spy accepts, on the host."""
    if hasattr(C, "get") and (hasattr(C, "__cuda_array_interface__") or hasattr(C, "tocsr")):
        C = C.get()  # a CuPy array or cupyx sparse matrix
    if sp.issparse(C):
        return sp.coo_array(C)
    if isinstance(C, np.ndarray):
        return sp.coo_array(C)
    if type(C).__module__.split(".")[0] == "graphblas":
        rows, cols, values = C.to_coo()
        return sp.coo_array((values, (rows, cols)), shape=C.shape)
    graph = _host_graph(C)
    return sp.coo_array(sp.csr_array((np.ones(graph.nnz), graph.indices, graph.indptr), shape=(graph.n, graph.n)))

"""Pictures of graphs and of what gbgraph computes on them, drawn with matplotlib.

``pip install gbgraph[plot]`` installs matplotlib; this module imports it on the first
call, so ``import gbgraph`` does not need it. Every function draws on ``ax`` (new axes of a
new pyplot figure when None) and returns the axes; ``ax.figure.savefig("file.png")`` writes
the picture. Graphs and arrays may be on the GPU (cupyx sparse, CuPy arrays): they are
copied to the host for drawing.

Vertices are placed at ``coords`` when given (an ``(n, 2)`` array, or ``(n, 3)`` for 3-D
axes: :func:`gbgraph.generators.grid_coordinates` gives the points of a generated grid),
else by :func:`layout`, a spectral layout computed from the graph.
"""

import numpy as np
import scipy.linalg
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph
import scipy.sparse.linalg as spla

from .graph import as_graph

__all__ = ["aggregates", "hierarchy", "layout", "partition", "spy"]

#: Graphs up to this many vertices get their layout from a dense eigensolver; larger ones
#: from ARPACK in shift-invert mode (a sparse LU factorisation of the Laplacian).
_DENSE_LAYOUT = 400
#: Edges between aggregates or parts: a light grey that leaves the coloured ones in front.
_FAINT = "0.82"


def aggregates(A, labels, coords=None, *, ax=None):
    """Draw a graph with its vertices and the edges inside each aggregate coloured by aggregate.

    Aggregates take the colors of a greedy coloring of the graph of aggregates
    (:func:`gbgraph.color` on ``Pᵀ A P``), so that neighbouring aggregates differ; edges
    between aggregates are light grey.

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
    xy = _positions(graph, coords)
    k = int(labels.max()) + 1 if labels.size else 0
    colors = _palette(_quotient_colors(graph, labels, k))[labels]
    ax = _axes(ax, xy.shape[1])
    rows, cols = _edges(graph)
    inside = labels[rows] == labels[cols]
    _draw_edges(ax, xy, rows[~inside], cols[~inside], _FAINT, graph.n)
    _draw_edges(ax, xy, rows[inside], cols[inside], colors[rows[inside]], graph.n, width=2.0)
    _draw_vertices(ax, xy, colors, graph.n)
    ax.set_title(f"{k:,} aggregates of {graph.n:,} vertices")
    return ax


def partition(A, parts, coords=None, *, ax=None):
    """Draw a graph with its vertices coloured by part and its cut edges in black.

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
    xy = _positions(graph, coords)
    k = int(parts.max()) + 1 if parts.size else 0
    colors = _palette(np.arange(k) if k <= 10 else _quotient_colors(graph, parts, k))[parts]
    ax = _axes(ax, xy.shape[1])
    rows, cols = _edges(graph)
    cut = parts[rows] != parts[cols]
    _draw_edges(ax, xy, rows[~cut], cols[~cut], _FAINT, graph.n)
    _draw_edges(ax, xy, rows[cut], cols[cut], "black", graph.n, width=1.5)
    _draw_vertices(ax, xy, colors, graph.n)
    ax.set_title(f"{k:,} parts of {graph.n:,} vertices, {int(cut.sum()):,} cut edges")
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


def layout(A):
    """Positions in the plane from the Laplacian's eigenvectors, for graphs without coordinates.

    Each connected component is placed by its two smallest nontrivial generalized
    eigenvectors, ``L x = λ D x`` (Koren's spectral drawing [1]_, which spreads the vertices
    better than the plain Laplacian's), scaled to a square whose side grows with the square
    root of its size; the components are then set side by side in rows, largest first.
    Deterministic: the same positions on every run.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; the pattern is used.

    Returns
    -------
    numpy.ndarray
        ``(n, 2)`` float64 positions.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    Notes
    -----
    Components of up to 400 vertices are solved densely; larger ones with ARPACK in
    shift-invert mode, a sparse LU factorisation of the Laplacian: a second or two for a mesh
    of 100,000 vertices, much longer for 3-D graphs of millions, which are no picture anyway.

    References
    ----------
    .. [1] Y. Koren, "Drawing graphs by eigenvectors: theory and practice," Computers &
       Mathematics with Applications 49(11-12), 2005, pp. 1867-1888.
       https://doi.org/10.1016/j.camwa.2004.08.015

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> xy = gg.plot.layout(np.diag(np.ones(9), 1) + np.diag(np.ones(9), -1))   # a path
    >>> xy.shape, bool(np.all(np.diff(xy[:, 0]) > 0) or np.all(np.diff(xy[:, 0]) < 0))
    ((10, 2), True)
    """
    graph = _host_graph(A)
    S = sp.csr_array((np.ones(graph.nnz), graph.indices, graph.indptr), shape=(graph.n, graph.n))
    count, component = csgraph.connected_components(S, directed=False)
    members = np.argsort(component, kind="stable")
    sizes = np.bincount(component, minlength=count)
    xy = np.zeros((graph.n, 2))
    x = y = row_height = 0.0
    width = np.sqrt(graph.n) * 1.2  # rows of components about as wide as the whole is tall
    for c in np.argsort(-sizes, kind="stable"):
        ids = members[np.searchsorted(component[members], c):][:sizes[c]]
        side = np.sqrt(sizes[c])
        if x > 0 and x + side > width:
            x, y, row_height = 0.0, y - row_height - 1.0, 0.0
        xy[ids] = _spectral(S[ids][:, ids]) * side + (x, y - side)
        x, row_height = x + side + 1.0, max(row_height, side)
    return xy


def _spectral(S):
    """Positions of a connected graph in the unit square: the generalized eigenvectors 2 and 3
    of ``L x = λ D x``, each scaled to [0, 1], their signs fixed (largest entry positive)."""
    n = S.shape[0]
    if n <= 2:  # a vertex, or an edge: nothing to solve
        return np.array([[0.5, 0.5]]) if n == 1 else np.array([[0.0, 0.5], [1.0, 0.5]])
    d = S.sum(axis=1)
    L = sp.diags_array(d) - S
    if n <= _DENSE_LAYOUT:
        _, vectors = scipy.linalg.eigh(L.toarray(), np.diag(d), subset_by_index=[1, min(2, n - 1)])
    else:
        v0 = np.random.default_rng(0).standard_normal(n)  # ARPACK's default start is random
        values, vectors = spla.eigsh(L.tocsc(), k=3, M=sp.diags_array(d).tocsc(), sigma=-1e-3, which="LM", v0=v0)
        vectors = vectors[:, np.argsort(values)[1:]]
    if vectors.shape[1] == 1:  # a graph of 3 vertices has only one nontrivial eigenvector
        vectors = np.column_stack((vectors[:, 0], np.zeros(n)))
    vectors = vectors * np.where(vectors[np.argmax(np.abs(vectors), axis=0), [0, 1]] < 0, -1.0, 1.0)
    low, high = vectors.min(axis=0), vectors.max(axis=0)
    return (vectors - low) / np.where(high > low, high - low, 1.0)


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


def _positions(graph, coords):
    """(n, 2) or (n, 3) float positions; a third coordinate that never varies is dropped."""
    if coords is None:
        return layout(graph)
    xy = _host(coords).astype(np.float64)
    if xy.ndim != 2 or xy.shape[0] != graph.n or xy.shape[1] not in (2, 3):
        raise ValueError(f"coords must have shape ({graph.n:,}, 2) or ({graph.n:,}, 3), got {xy.shape}")
    if xy.shape[1] == 3 and (graph.n == 0 or np.ptp(xy[:, 2]) == 0):
        return xy[:, :2]
    return xy


def _edges(graph):
    """Each edge once, as (rows, cols) with row < col."""
    rows = np.repeat(np.arange(graph.n), np.diff(graph.indptr))
    upper = rows < graph.indices
    return rows[upper], graph.indices[upper].astype(np.int64)


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

"""Checks of results, independent of the backends: numpy and scipy code only.

Tests use these to assert properties instead of comparing with stored outputs. Distances
count edges: vertices u and v are within distance k when a path of at most k edges joins
them.
"""

import numpy as np

from ._checks import check_integer
from ._labels import node_ids, node_values
from .graph import as_graph

__all__ = ["is_coloring", "is_independent", "is_maximal", "is_mis"]


def is_independent(A, S, *, distance=1):
    """True if no two vertices of ``S`` lie within ``distance`` of each other.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts.
    S : array_like or collection
        Vertex ids, or a boolean mask of length n; for a networkx graph also a set (or other
        non-array collection) of its nodes, as ``gg.mis2(G).vertices``.
    distance : int
        1 for an ordinary independent set, 2 for a distance-2 one, and so on.

    Raises
    ------
    ValueError
        if ``S`` holds ids outside ``0..n-1`` or ``distance`` is below 1.
    TypeError
        if ``distance`` is not an integer (numpy integers are).

    Examples
    --------
    >>> import numpy as np
    >>> path = np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1)   # 0 - 1 - 2 - 3
    >>> is_independent(path, [0, 2]), is_independent(path, [0, 2], distance=2)
    (True, False)
    """
    graph, member, distance = _setup(A, S, distance)
    ids = np.arange(graph.n)
    labels = np.where(member, ids, graph.n)
    lowest = _ball(graph, labels, distance, np.minimum)
    highest = _ball(graph, np.where(member, ids, -1), distance, np.maximum)
    return bool(np.all((lowest[member] == ids[member]) & (highest[member] == ids[member])))


def is_maximal(A, S, *, distance=1):
    """True if every vertex lies within ``distance`` of ``S``.

    Then no vertex can join ``S`` without breaking distance-``distance`` independence: for
    an independent ``S`` this is maximality.

    Parameters and Raises as in :func:`is_independent`.

    Examples
    --------
    >>> import numpy as np
    >>> path = np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1)   # 0 - 1 - 2 - 3
    >>> is_maximal(path, [0, 2]), is_maximal(path, [0]), is_maximal(path, [0], distance=3)
    (True, False, True)
    """
    graph, member, distance = _setup(A, S, distance)
    return bool(np.all(_ball(graph, member, distance, np.logical_or)))


def is_mis(A, S, *, distance=1):
    """True if ``S`` is a maximal distance-``distance`` independent set of ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> path = np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1)   # 0 - 1 - 2 - 3
    >>> is_mis(path, [0, 3], distance=2), is_mis(path, [1, 3])
    (True, True)
    >>> import networkx as nx, gbgraph as gg
    >>> G = nx.path_graph(["a", "b", "c", "d"])
    >>> is_mis(G, {"a", "c"}), is_mis(G, gg.mis2(G).vertices, distance=2)
    (True, True)
    """
    return is_independent(A, S, distance=distance) and is_maximal(A, S, distance=distance)


def is_coloring(A, colors, *, distance=1):
    """True if no two vertices within ``distance`` of each other share a color.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts.
    colors : array_like of int, or dict
        One non-negative color per vertex (length n); for a networkx graph also a dict node
        -> color, as ``gg.color(G).colors``.
    distance : int
        1 for an ordinary coloring, 2 for a distance-2 one (every closed neighbourhood holds
        distinct colors), and so on.

    Raises
    ------
    ValueError
        if ``colors`` does not hold n non-negative integers, or ``distance`` is below 1.
    TypeError
        if ``distance`` is not an integer (numpy integers are).

    Notes
    -----
    Distance 1 compares the two ends of every edge and distance 2 sorts the colors of each
    closed neighbourhood: O(nnz log nnz). Larger distances check each color class with
    :func:`is_independent`.

    Examples
    --------
    >>> import numpy as np
    >>> path = np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1)   # 0 - 1 - 2 - 3
    >>> is_coloring(path, [0, 1, 0, 1]), is_coloring(path, [0, 1, 0, 1], distance=2)
    (True, False)
    >>> is_coloring(path, [0, 1, 2, 0], distance=2)
    True
    >>> import networkx as nx
    >>> is_coloring(nx.path_graph("abc"), {"a": 0, "b": 1, "c": 0})
    True
    """
    distance = check_integer("distance", distance, minimum=1)
    graph = as_graph(A, weights=False).on_device_of(np)
    colors = _colors(node_values(A, colors, "colors"), graph.n)
    if distance == 1:
        rows = np.repeat(np.arange(graph.n), np.diff(graph.indptr))
        return bool(np.all(colors[rows] != colors[graph.indices]))
    if distance == 2:
        indptr, indices = graph.closed_csr()
        rows = np.repeat(np.arange(graph.n), np.diff(indptr))
        seen = colors[indices]
        order = np.lexsort((seen, rows))
        repeated = (np.diff(rows[order]) == 0) & (np.diff(seen[order]) == 0)
        return not bool(repeated.any())
    return all(is_independent(graph, colors == c, distance=distance) for c in np.unique(colors))




def _colors(colors, n):
    colors = np.asarray(colors.get() if hasattr(colors, "__cuda_array_interface__") else colors)
    if colors.shape != (n,) or (n and colors.dtype.kind not in "iu"):
        raise ValueError(f"colors must hold one integer per vertex, shape ({n},); got {colors.dtype} "
                         f"values of shape {colors.shape}")
    if n and colors.min() < 0:
        raise ValueError(f"colors must be non-negative; vertex {int(np.argmin(colors))} has color {colors.min()}")
    return colors.astype(np.int64, copy=False)


def _setup(A, S, distance):
    distance = check_integer("distance", distance, minimum=1)
    graph = as_graph(A, weights=False).on_device_of(np)
    return graph, _membership(node_ids(A, S, "S"), graph.n), distance


def _membership(S, n):
    S = np.asarray(S.get() if hasattr(S, "__cuda_array_interface__") else S)
    if S.dtype == bool:
        if S.shape != (n,):
            raise ValueError(f"a boolean S must have shape ({n},), got {S.shape}")
        return S
    S = S.reshape(-1)
    member = np.zeros(n, bool)
    if S.size == 0:
        return member
    if S.dtype.kind not in "iu" or S.min() < 0 or S.max() >= n:
        raise ValueError(f"S must hold vertex ids in 0..{n - 1}, got values in [{S.min()}, {S.max()}]")
    member[S] = True
    return member


def _ball(graph, x, radius, ufunc):
    """Reduce ``x`` over the ball of ``radius`` around every vertex with ``ufunc``."""
    indptr, indices = graph.closed_csr()
    # a ball of radius n - 1 holds a vertex's whole component: larger radii change nothing
    for _ in range(min(radius, max(graph.n - 1, 0))):
        x = ufunc.reduceat(x[indices], indptr[:-1]) if graph.n else x
    return x

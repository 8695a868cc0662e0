"""Checks of results, independent of the backends: numpy and scipy code only.

Tests use these to assert properties instead of comparing with stored outputs. Distances
count edges: vertices u and v are within distance k when a path of at most k edges joins
them.
"""

import numpy as np

from .graph import as_graph

__all__ = ["is_independent", "is_maximal", "is_mis"]


def is_independent(A, S, *, distance=1):
    """True if no two vertices of ``S`` lie within ``distance`` of each other.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts.
    S : array_like
        Vertex ids, or a boolean mask of length n.
    distance : int
        1 for an ordinary independent set, 2 for a distance-2 one, and so on.

    Raises
    ------
    ValueError
        if ``S`` holds ids outside ``0..n-1`` or ``distance`` is not a positive integer.

    Examples
    --------
    >>> import numpy as np
    >>> path = np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1)   # 0 - 1 - 2 - 3
    >>> is_independent(path, [0, 2]), is_independent(path, [0, 2], distance=2)
    (True, False)
    """
    graph, member = _setup(A, S, distance)
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
    graph, member = _setup(A, S, distance)
    return bool(np.all(_ball(graph, member, distance, np.logical_or)))


def is_mis(A, S, *, distance=1):
    """True if ``S`` is a maximal distance-``distance`` independent set of ``A``.

    Examples
    --------
    >>> import numpy as np
    >>> path = np.diag(np.ones(3), 1) + np.diag(np.ones(3), -1)   # 0 - 1 - 2 - 3
    >>> is_mis(path, [0, 3], distance=2), is_mis(path, [1, 3])
    (True, True)
    """
    return is_independent(A, S, distance=distance) and is_maximal(A, S, distance=distance)


def _setup(A, S, distance):
    if isinstance(distance, bool) or not isinstance(distance, (int, np.integer)) or distance < 1:
        raise ValueError(f"distance must be a positive integer, got {distance!r}")
    graph = as_graph(A)
    return graph, _membership(S, graph.n)


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
    for _ in range(radius):
        x = ufunc.reduceat(x[indices], indptr[:-1]) if graph.n else x
    return x

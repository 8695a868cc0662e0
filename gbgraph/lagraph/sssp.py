"""Single-source shortest paths by Bellman-Ford over the ``min_plus`` semiring.

LAGraph's ``LAGraph_BF_basic``: ``d min= d ⊕min.plus A`` until nothing changes; a change in
round n means a negative cycle reachable from the source.
"""

from ._inputs import adjacency, dense, in_input_terms, vertex

__all__ = ["sssp"]


def sssp(A, source, *, backend=None):
    """Shortest-path distances from ``source`` over the edge weights (Bellman-Ford).

    Parameters
    ----------
    A : graph or backend matrix
        Anything :func:`gbgraph.as_graph` accepts, weighted (a pattern weighs 1 per edge), or
        a square matrix of the backend named by ``backend`` (edge i -> j of weight A(i, j)).
    source : int
        The vertex the paths start from (a node, for a networkx graph).
    backend : str or Backend, optional
        Any backend name; None: as :func:`gbgraph.mis2`.

    Returns
    -------
    array or dict
        float64 distance of each vertex, ``inf`` where unreached (a dict node -> distance
        of the reached nodes for a networkx graph).

    Raises
    ------
    ValueError
        for a ``source`` outside the graph, or a negative cycle reachable from it (in an
        undirected graph, any negative edge it reaches).
    TypeError
        for a ``source`` that is not an integer.
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    Notes
    -----
    At most n rounds, each a ``vxm`` over the reached vertices' rows: O(n · nnz) at worst,
    the number of edges on the longest shortest path times nnz in practice.

    References
    ----------
    .. [1] R. Bellman, "On a routing problem," Quart. Appl. Math. 16(1), 87-90, 1958.
       https://doi.org/10.1090/qam/102435
    .. [2] J. Kepner and J. Gilbert (eds.), Graph Algorithms in the Language of Linear
       Algebra, SIAM 2011, ch. 3. https://doi.org/10.1137/1.9780898719918
    .. [3] J. Chen, T. A. Davis, ``LAGraph_BF_basic.c``, LAGraph
       (https://github.com/GraphBLAS/LAGraph).

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph import lagraph
    >>> W = np.zeros((4, 4)); W[0, 1] = W[1, 0] = 5; W[0, 2] = W[2, 0] = 1; W[2, 1] = W[1, 2] = 2
    >>> lagraph.sssp(W, 0).tolist()
    [0.0, 3.0, 1.0, inf]
    """
    be, M, n, _ = adjacency(A, backend, weighted=True)
    source = vertex(A, "source", source, n)
    d = _bellman_ford(be, M, n, source)
    return in_input_terms(A, dense(be, d, n, float("inf"), "float64"), absent=float("inf"))


def _bellman_ford(be, A, n, source):
    """The distance vector (float64, an entry per reached vertex)."""
    d = be.vector(be.xp.asarray([source], dtype="int64"), 0.0, n)  # d(s) = 0  [3]
    for _ in range(n):  # n - 1 rounds settle every path without a cycle  [1]
        t = be.apply("identity", d)  # t = d  [3]
        be.vxm("min_plus", d, A, out=t, accum="min")  # t min= d min.plus A  [3]
        # unchanged: no new entry and no smaller value  [3]
        if be.nvals(t) == be.nvals(d) and not be.reduce(be.ewise_mult("lt", t, d), "lor"):
            return d
        d = t
    raise ValueError(f"sssp: a negative cycle is reachable from vertex {source}")

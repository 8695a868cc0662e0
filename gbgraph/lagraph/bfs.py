"""Breadth-first search: levels and parents, by push, pull or Beamer's direction optimisation.

LAGraph's ``LAGr_BreadthFirstSearch`` (``LG_BreadthFirstSearch_SSGrB.c``) written against
gbgraph's protocol. Each level is one product of the frontier ``q`` with the adjacency
matrix under the complemented mask of the visited vertices; the ``secondi`` multiply turns
the product into the parent of each newly reached vertex.
"""

from dataclasses import dataclass

from ._inputs import adjacency, in_input_terms, vertex

__all__ = ["BFSResult", "BFS_METHODS", "bfs"]

#: ``method`` values of :func:`bfs`, the default first.
BFS_METHODS = ("direction", "push", "pull")
#: Beamer's thresholds, LAGraph's values: go to pull once the frontier's edges exceed the
#: unexplored ones over ALPHA (or, after a pull, once the frontier grows past n / BETA1);
#: back to push once it shrinks to n / BETA2.
ALPHA, BETA1, BETA2 = 8.0, 8.0, 512.0


@dataclass(frozen=True)
class BFSResult:
    """Levels and parents of a breadth-first search.

    Attributes
    ----------
    levels : array or dict
        int64 number of edges from the source to each vertex, -1 where unreached (for a
        networkx input: a dict node -> level of the reached nodes).
    parents : array or dict
        int64 parent of each vertex in a BFS tree, the source its own parent, -1 where
        unreached (networkx input: a dict node -> parent node of the reached nodes).
    """

    levels: object
    parents: object


def bfs(A, source, *, method="direction", backend=None):
    """Breadth-first search from ``source``: the level and a parent of every vertex.

    Parameters
    ----------
    A : graph or backend matrix
        Anything :func:`gbgraph.as_graph` accepts, or a square matrix of the backend named
        by ``backend`` (then edges go from row to column, and a pull reads its transpose).
    source : int
        The vertex the search starts from (a node, for a networkx graph).
    method : {"direction", "push", "pull"}
        ``"push"``: each level is ``q ⊕.⊗ A`` over the frontier's rows (work proportional to
        the frontier's edges). ``"pull"``: ``Aᵀ ⊕.⊗ q`` over the unvisited rows.
        ``"direction"`` (default): Beamer's direction optimisation [2]_ with LAGraph's
        thresholds, pulling while the frontier is large.
    backend : str or Backend, optional
        Any backend name (:func:`gbgraph.backends.names`); None: as :func:`gbgraph.mis2`.

    Returns
    -------
    BFSResult
        ``levels`` and ``parents`` (int64 arrays of the backend's array module, -1 where
        unreached; dicts for a networkx graph). The parent is the smallest neighbour one
        level up, so every backend and method returns the same tree.

    Raises
    ------
    ValueError
        for an unknown ``method`` or a ``source`` outside the graph.
    TypeError
        for a ``source`` that is not an integer.
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    References
    ----------
    .. [1] T. A. Davis, S. McMillan et al., ``LG_BreadthFirstSearch_SSGrB.c``, LAGraph
       (https://github.com/GraphBLAS/LAGraph); G. Szárnyas et al., "LAGraph: Linear algebra,
       network analysis libraries, and the study of graph algorithms," IPDPSW 2021.
       https://doi.org/10.1109/IPDPSW52791.2021.00046
    .. [2] S. Beamer, K. Asanović and D. Patterson, "Direction-optimizing breadth-first
       search," SC 2012. https://doi.org/10.1109/SC.2012.50
    .. [3] C. Yang, A. Buluç and J. D. Owens, "Implementing push-pull efficiently in
       GraphBLAS," ICPP 2018. https://doi.org/10.1145/3225058.3225122

    Examples
    --------
    >>> import gbgraph as gg
    >>> from gbgraph import lagraph
    >>> r = lagraph.bfs(gg.generators.laplace3d(4, 2, 1), 0)  # a 4 x 2 grid
    >>> r.levels.tolist()
    [0, 1, 2, 3, 1, 2, 3, 4]
    >>> r.parents.tolist()
    [0, 0, 1, 2, 0, 1, 2, 3]
    """
    if method not in BFS_METHODS:
        raise ValueError(f"method must be one of {', '.join(BFS_METHODS)}, got {method!r}")
    be, M, n, symmetric = adjacency(A, backend)
    source = vertex(A, "source", source, n)
    MT = M if symmetric or method == "push" else be.transpose(M)
    levels, parents = _search(be, M, MT, n, source, method)
    return BFSResult(in_input_terms(A, be.values(levels), absent=-1),
                     in_input_terms(A, be.values(parents), absent=-1, ids=True))


def _search(be, A, AT, n, source, method):
    """The level and the parent vectors (full int64, -1 where unreached) of a search from
    ``source``.

    LAGraph pins ``pi`` to bitmap form; its portable equivalent here is full vectors
    written in place under the frontier's mask, and a full boolean ``visited`` read as a
    value mask: so a level costs its frontier, not a merge into a growing sparse ``pi``."""
    src = be.xp.asarray([source], dtype="int64")
    q = be.vector(src, src, n)  # q(s) = s: the frontier, each entry valued by its parent
    pi = be.full(n, -1, "int64")
    be.assign(pi, q, mask=q)  # pi = -1, pi(s) = s
    level = be.full(n, -1, "int64")
    be.assign(level, 0, mask=q)  # level = -1, level(s) = 0
    visited = be.full(n, False, "bool")
    be.assign(visited, True, mask=q)  # visited = false, visited(s) = true
    if method == "direction":
        _directed(be, A, AT, n, q, pi, level, visited)
    else:
        def level_(q, k):  # one level; k is the level's number (a device scalar on a GPU)
            q = _next(be, A, AT, q, visited, method == "push")
            _visit(be, q, k, pi, level, visited)
            return (q,)

        be.iterate(level_, (q,), first=1, stop=n)  # n - 1 levels at most: a level adds a vertex
    return level, pi


def _next(be, A, AT, q, visited, push):
    """The next frontier, each new vertex valued by its smallest parent in ``q``."""
    if push:
        return be.vxm("min_secondi", q, A, mask=visited, structure=False, complement=True)  # q<¬visited,replace> = q min.secondi A  [1]
    return be.mxv("min_secondi", AT, q, mask=visited, structure=False, complement=True)  # q<¬visited,replace> = Aᵀ min.secondi q  [1]


def _visit(be, q, k, pi, level, visited):
    """The frontier ``q`` (valued by parents) reached at level ``k``: written in place into
    the full ``pi``, ``level`` and ``visited``."""
    be.assign(pi, q, mask=q)  # pi<q> = q  [1]
    # level<q> = k: GrB_COLINDEX of a vector is 0 + thunk, so k also as a device scalar
    be.assign(level, be.apply_index("colindex", q, k), mask=q)
    be.assign(visited, True, mask=q)  # visited<q> = true


def _directed(be, A, AT, n, q, pi, level, visited):
    """Beamer's rounds from the frontier ``q``: each level reads the frontier's size (and,
    while pushing, its edges) on the host to choose the direction, so they run one by one;
    the fixed directions run as :meth:`~gbgraph.backends.base.Backend.iterate` rounds, which
    the cupy backend records once and replays for ``"push"`` (Laplace3D 100³ on an H100: 22
    against 86 ms level by level); a pull level still reads the host there, so it runs one
    by one."""
    push, beamer, nq = True, _Beamer(be, A, n), 1
    for k in range(1, n):  # a level adds a vertex, so n - 1 levels reach every one
        push = beamer.push_next(q, nq, push)
        q = _next(be, A, AT, q, visited, push)
        nq = be.nvals(q)
        if nq == 0:
            break
        _visit(be, q, k, pi, level, visited)


class _Beamer:
    """The direction choice of ``LG_BreadthFirstSearch_SSGrB.c`` [2]_: the frontier's edges
    against the unexplored ones while pushing, the frontier's size while pulling."""

    def __init__(self, be, A, n):
        self.be, self.n = be, n
        self.degree = be.mxv("plus_pair", A, be.full(n, 0, "int64"))  # degree = A plus.pair 0
        self.unexplored = be.nvals(A)
        self.last_nq, self.any_pull, self.enabled = 0, False, True

    def push_next(self, q, nq, push):
        be = self.be
        growing, shrinking = nq > self.last_nq, nq < self.last_nq
        self.last_nq = nq
        if not self.enabled:
            return True
        if not push:
            return shrinking and nq <= self.n / BETA2
        if self.unexplored < self.n:  # little of the graph is left: push to the end
            self.enabled = False
            return True
        if self.any_pull:  # edges are no longer counted after a pull: the frontier's size decides
            pull = growing and nq > self.n / BETA1
        else:
            # Σ degree(q): the frontier's degrees by an intersection, not a copy of every degree
            frontier_edges = be.reduce(be.ewise_mult("first", self.degree, q), "plus") or 0
            self.unexplored -= frontier_edges
            pull = growing and frontier_edges > self.unexplored / ALPHA
        self.any_pull |= pull
        return not pull

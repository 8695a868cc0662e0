"""Breadth-first search: levels and parents, by push, pull or Beamer's direction optimisation.

LAGraph's ``LAGr_BreadthFirstSearch`` (``LG_BreadthFirstSearch_SSGrB.c``) written against
gbgraph's protocol. Each level is one product of the frontier ``q`` with the adjacency
matrix under the complemented mask of the visited vertices; the ``secondi`` multiply turns
the product into the parent of each newly reached vertex.
"""

from dataclasses import dataclass

import numpy as np

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
        be.iterate(_level(be, A, AT, pi, level, visited, method == "push"), (q,), first=1, stop=n)
    return level, pi


def _level(be, A, AT, pi, level, visited, push):
    """One level, as :meth:`~gbgraph.backends.base.Backend.iterate`'s step: the next frontier
    (its new vertices valued by their smallest parent in ``q``) written in place into the
    full ``pi``, ``level`` and ``visited``. ``k`` is the level's number, a device scalar
    where the backend records the step."""
    def level_(q, k):
        if push:
            q = be.vxm("min_secondi", q, A, mask=visited, structure=False, complement=True)  # q<¬visited,replace> = q min.secondi A  [1]
        else:
            q = be.mxv("min_secondi", AT, q, mask=visited, structure=False, complement=True)  # q<¬visited,replace> = Aᵀ min.secondi q  [1]
        be.assign(pi, q, mask=q)  # pi<q> = q  [1]
        # level<q> = k: GrB_COLINDEX of a vector is 0 + thunk, so k also as a device scalar
        be.assign(level, be.apply_index("colindex", q, k), mask=q)
        be.assign(visited, True, mask=q)  # visited<q> = true
        return (q,)

    return level_


def _directed(be, A, AT, n, q, pi, level, visited):
    """Beamer's direction optimisation from the frontier ``q``: the levels of one direction
    run as :meth:`~gbgraph.backends.base.Backend.iterate` rounds, which the cupy backend
    records once and runs on the device, and Beamer's test, which reads the host, is their
    ``check``: before every level while the frontier is near a threshold, and at doubling
    intervals (up to :data:`SPAN` levels) while it is far from both. A test that comes a
    few levels late costs time only: every direction gives the same levels and parents."""
    beamer, k = _Beamer(be, A, n, visited), 1
    beamer.push = beamer.push_next(q, 1, True, k)
    while True:
        (q,), k = be.iterate(_level(be, A, AT, pi, level, visited, beamer.push), (q,), first=k, stop=n,
                             check=beamer.check())
        if k >= n or not be.nvals(q):
            return


#: The most levels between two of Beamer's tests, far from both thresholds.
SPAN = 64


class _Beamer:
    """The direction choice of ``LG_BreadthFirstSearch_SSGrB.c`` [2]_: the frontier's edges
    against the unexplored ones while pushing, the frontier's size while pulling. The
    unexplored edges are LAGraph's count, which subtracts each frontier's edges; after
    levels without a test they are those of the unvisited vertices, the same number."""

    def __init__(self, be, A, n, visited):
        self.be, self.n, self.visited = be, n, visited
        self.degree = be.mxv("plus_pair", A, be.full(n, 0, "int64"))  # degree = A plus.pair 0
        self.last_nq, self.any_pull, self.enabled, self.far, self.push = 0, False, True, 0, True
        self.unexplored, self.tested = 0, None  # the unexplored edges at the test before level ``tested``

    def push_next(self, q, nq, push, k):
        """Whether level ``k``, after frontier ``q`` (``nq`` entries), pushes; sets ``far``,
        the factor by which the frontier is below the threshold that would change it."""
        be = self.be
        growing, shrinking = nq > self.last_nq, nq < self.last_nq
        self.last_nq, self.far = nq, 0
        if not self.enabled:
            self.far = np.inf
            return True
        if not push:
            self.far = nq / (self.n / BETA2)
            return not (shrinking and nq <= self.n / BETA2)
        # Σ degree(q): the frontier's degrees by an intersection, not a copy of every degree
        frontier_edges = be.reduce(be.ewise_mult("first", self.degree, q), "plus") or 0
        if self.tested == k - 1:  # LAGraph's count: the last test's, less this frontier's edges
            unexplored = self.unexplored - frontier_edges
        else:  # Σ degree(¬visited): after levels without a test, from the unvisited vertices
            unvisited = be.select("valueeq", self.visited, False)
            unexplored = be.reduce(be.ewise_mult("first", self.degree, unvisited), "plus") or 0
        self.unexplored, self.tested = unexplored, k
        if unexplored + frontier_edges < self.n:  # little of the graph is left: push to the end
            self.enabled, self.far = False, np.inf
            return True
        if self.any_pull:  # after a pull, LAGraph lets the frontier's size decide
            self.far = (self.n / BETA1) / max(nq, 1)
            pull = growing and nq > self.n / BETA1
        else:
            self.far = (unexplored / ALPHA) / max(frontier_edges, 1)
            pull = growing and frontier_edges > unexplored / ALPHA
        self.any_pull |= pull
        return not pull

    def check(self):
        """``iterate``'s check for levels in direction ``push`` (the test that chose it has
        just run): 0 once Beamer's test changes the direction, else the levels until the
        next test (1 within a factor 4 of a threshold, then doubling up to :data:`SPAN`)."""
        span = [0]

        def check(state, k):
            if span[0]:
                push = self.push_next(state[0], self.be.nvals(state[0]), self.push, k)
                if push != self.push:
                    self.push = push
                    return 0
            span[0] = 1 if self.far < 4 else min(2 * max(span[0], 1), SPAN)
            return span[0]

        return check

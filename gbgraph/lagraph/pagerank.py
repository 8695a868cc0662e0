"""PageRank: LAGraph's ``LAGr_PageRank``, power iteration with dangling vertices.

Each iteration ``r = teleport + Aᵀ ⊕plus.second (t ./ d)`` with ``d = outdegree / damping``;
the rank of the vertices without out-edges (sinks, dangling nodes) is spread over every
vertex through the teleport term, as LAGraph and networkx do.
"""

from dataclasses import dataclass

from .._checks import check_integer
from ..errors import StallError
from ._inputs import adjacency, in_input_terms

__all__ = ["PageRankResult", "pagerank"]


@dataclass(frozen=True)
class PageRankResult:
    """PageRank scores and the iterations that found them.

    Attributes
    ----------
    ranks : array or dict
        float64 score of each vertex, summing to 1 (a dict node -> score for networkx input).
    iterations : int
    """

    ranks: object
    iterations: int


def pagerank(A, *, damping=0.85, tol=1e-4, max_iter=100, backend=None):
    """PageRank by power iteration, LAGraph's ``LAGr_PageRank`` in float64.

    Parameters
    ----------
    A : graph or backend matrix
        Anything :func:`gbgraph.as_graph` accepts, or a square matrix of the backend named
        by ``backend`` (edges from row to column; its transpose is read with a descriptor).
    damping : float
        Probability of following an edge, in [0, 1); 0.85 by default.
    tol : float
        Stop once ``Σ |r - r_previous| <= tol`` (LAGraph's test; networkx's ``tol`` is this
        over n).
    max_iter : int
        Most iterations.
    backend : str or Backend, optional
        Any backend name; None: as :func:`gbgraph.mis2`.

    Returns
    -------
    PageRankResult
        ``ranks`` (float64 array of the backend's array module, or a dict for a networkx
        graph) and ``iterations``.

    Raises
    ------
    ValueError
        for a ``damping`` outside [0, 1), a negative ``tol`` or a ``max_iter`` below 1.
    TypeError
        for a ``max_iter`` that is not an integer.
    StallError
        if ``max_iter`` iterations leave ``Σ |r - r_previous|`` above ``tol``.
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    References
    ----------
    .. [1] L. Page, S. Brin, R. Motwani and T. Winograd, "The PageRank citation ranking:
       bringing order to the web," Stanford InfoLab technical report 1999-66.
       http://ilpubs.stanford.edu:8090/422/
    .. [2] T. A. Davis, G. Szárnyas et al., ``LAGr_PageRank.c``, LAGraph
       (https://github.com/GraphBLAS/LAGraph).

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph import lagraph
    >>> star = np.zeros((4, 4)); star[0, 1:] = star[1:, 0] = 1
    >>> r = lagraph.pagerank(star, tol=1e-10, max_iter=200)
    >>> np.round(r.ranks, 4).tolist(), round(float(r.ranks.sum()), 12)  # networkx.pagerank's too
    ([0.4797, 0.1734, 0.1734, 0.1734], 1.0)
    """
    if not 0 <= damping < 1:
        raise ValueError(f"damping must be in [0, 1), got {damping!r}")
    if not tol >= 0:
        raise ValueError(f"tol must be at least 0, got {tol!r}")
    max_iter = check_integer("max_iter", max_iter, 1)
    be, M, n, symmetric = adjacency(A, backend)
    if n == 0:
        return PageRankResult(in_input_terms(A, be.xp.zeros(0)), 0)
    r, iterations = _power_iteration(be, M, not symmetric, n, damping, tol, max_iter)
    return PageRankResult(in_input_terms(A, be.values(r)), iterations)


def _power_iteration(be, A, transpose, n, damping, tol, max_iter):
    """The rank vector (full float64) and the iterations it took."""
    # d_out = A plus.pair 0: out-degrees, no entry at a sink  [2] LAGraph_Cached_OutDegree
    d_out = be.mxv("plus_pair", A, be.full(n, 0, "int64"))
    d = be.apply("div", d_out, right=damping)  # d = d_out / damping  [2]
    # sink<¬d_out> = true: the vertices without out-edges, found once  [2]
    sink = be.apply("one", be.full(n, True, "bool"), mask=d_out, complement=True)
    r = be.full(n, 1.0 / n, "float64")  # r = 1/n  [2]
    for k in range(1, max_iter + 1):
        # teleport = (1 - damping)/n + damping/n Σ r(sink): the sinks' rank spread evenly  [2]
        sinks = be.reduce(be.ewise_mult("first", r, sink), "plus") or 0.0
        teleport = (1 - damping) / n + damping / n * float(sinks)
        t = r
        w = be.ewise_mult("div", t, d)  # w = t ./ d  [2]
        r = be.full(n, teleport, "float64")  # r = teleport  [2]
        be.mxv("plus_second", A, w, transpose=transpose, out=r, accum="plus")  # r += Aᵀ plus.second w  [2]
        rdiff = be.reduce(be.apply("abs", be.ewise_add("minus", t, r)), "plus")  # rdiff = Σ |t - r|  [2]
        if rdiff <= tol:
            return r, k
    raise StallError(f"pagerank: sum |r - r_previous| = {rdiff:.3g} above tol={tol} after max_iter={max_iter}")

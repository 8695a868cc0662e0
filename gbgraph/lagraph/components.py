"""Connected components by FastSV (Zhang, Azad and Hu), as LAGraph's ``LAGr_ConnectedComponents``.

A forest of parent pointers ``f`` starts with every vertex its own root; each round hooks
trees onto the smallest grandparent seen across an edge and shortcuts the pointers, until
the grandparents stop changing. This is ``LG_CC_FastSV5.c`` without its sampling, with the
stochastic hooking (a scatter with duplicates, hand-written there) as a product with the
parent matrix.
"""

from .._checks import check_integer
from ..errors import StallError
from ._inputs import adjacency, in_input_terms

__all__ = ["connected_components"]


def connected_components(A, *, backend=None, max_iter=None):
    """The connected component of every vertex, labelled by its smallest vertex.

    Parameters
    ----------
    A : graph or backend matrix
        Anything :func:`gbgraph.as_graph` accepts, or a square matrix of the backend named
        by ``backend`` with a symmetric pattern.
    backend : str or Backend, optional
        Any backend name; None: as :func:`gbgraph.mis2`.
    max_iter : int, optional
        Most rounds; the default, n + 1, is never reached (FastSV takes O(log n) rounds
        [1]_, and each round lowers a grandparent until none changes).

    Returns
    -------
    array or dict
        int64 label of each vertex, the smallest vertex of its component (for a networkx
        graph, a dict node -> that smallest node).

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.
    ValueError, TypeError
        for a ``max_iter`` that is not an integer of at least 1.
    StallError
        if ``max_iter`` rounds leave grandparents changing.

    References
    ----------
    .. [1] Y. Zhang, A. Azad and Z. Hu, "FastSV: A distributed-memory connected component
       algorithm with fast convergence," SIAM PP 2020, pp. 46-57.
       https://doi.org/10.1137/1.9781611976137.5
    .. [2] T. A. Davis, Y. Zhang et al., ``LG_CC_FastSV5.c``, LAGraph
       (https://github.com/GraphBLAS/LAGraph).

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph import lagraph
    >>> A = np.zeros((5, 5)); A[0, 3] = A[3, 0] = A[1, 2] = A[2, 1] = 1
    >>> lagraph.connected_components(A).tolist()
    [0, 1, 1, 0, 4]
    """
    be, M, n, _ = adjacency(A, backend)
    max_iter = n + 1 if max_iter is None else check_integer("max_iter", max_iter, 1)
    f = _fastsv(be, M, n, max_iter)
    return in_input_terms(A, be.values(f), ids=True)


def _fastsv(be, A, n, max_iter):
    """The converged parent vector (full int64): each vertex's smallest-id root."""
    f = be.apply_index("rowindex", be.full(n, 0, "int64"))  # f(i) = i  [2]
    gp = be.apply("identity", f)  # gp = f
    mngp = be.apply("identity", f)  # mngp = f
    for _ in range(max_iter):
        # mngp min= A min.second gp: the smallest grandparent across an edge  [2]
        be.mxv("min_second", A, gp, out=mngp, accum="min")
        # P(i, f(i)) = f(i): the forest as a matrix
        ids, parents = be.extract_tuples(f)
        P = be.build_matrix(ids, parents, parents, n, n)
        # f min= mngp min.first P, i.e. f(f(i)) min= mngp(i): stochastic hooking  [1]
        be.vxm("min_first", mngp, P, out=f, accum="min")
        # f min= min(mngp, gp): aggressive hooking and shortcutting  [1]
        be.ewise_add("min", mngp, gp, out=f, accum="min")
        # gp' = f(f)  [2]
        grand = be.extract(f, be.values(f))
        # changed = lor(gp' != gp)  [2]
        changed = be.reduce(be.ewise_mult("ne", grand, gp), "lor")
        gp = grand
        if not changed:
            return f
    raise StallError(f"connected_components: grandparents still changing after max_iter={max_iter} rounds")

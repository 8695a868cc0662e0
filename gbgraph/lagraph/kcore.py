"""k-cores by peeling: LAGraph's ``LAGraph_KCore_All`` and ``LAGraph_KCore``.

Vertices of degree below k leave, which lowers their neighbours' degrees (a product of the
leaving set with A), until every vertex left has degree at least k (Batagelj and
Zaversnik's peeling, one level of k at a time).
"""

from .._checks import check_integer
from .._labels import is_networkx
from ._inputs import adjacency, in_input_terms

__all__ = ["core_number", "kcore"]


def core_number(A, *, backend=None):
    """The core number of every vertex: the largest k with the vertex in the k-core.

    Parameters
    ----------
    A : graph or backend matrix
        Anything :func:`gbgraph.as_graph` accepts, or a square matrix of the backend named
        by ``backend`` with a symmetric pattern and no diagonal.
    backend : str or Backend, optional
        Any backend name; None: as :func:`gbgraph.mis2`.

    Returns
    -------
    array or dict
        int64 core number of each vertex (0 for an isolated one); a dict node -> core
        number for a networkx graph, as ``networkx.core_number``.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    References
    ----------
    .. [1] V. Batagelj and M. Zaversnik, "An O(m) algorithm for cores decomposition of
       networks," arXiv:cs/0310049, 2003. https://arxiv.org/abs/cs/0310049
    .. [2] P. Konduri and T. A. Davis, ``LAGraph_KCore_All.c``, LAGraph
       (https://github.com/GraphBLAS/LAGraph).

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph import lagraph
    >>> A = np.ones((4, 4)) - np.eye(4); A = np.pad(A, (0, 2)); A[3, 4] = A[4, 3] = 1
    >>> lagraph.core_number(A).tolist()  # K4, a pendant vertex, an isolated one
    [3, 3, 3, 3, 1, 0]
    """
    be, M, n, _ = adjacency(A, backend)
    deg = be.mxv("plus_pair", M, be.full(n, 0, "int64"))  # deg = A plus.pair 0; no entry if isolated  [2]
    decomp = be.full(n, 0, "int64")  # decomp = 0
    done = be.full(n, False, "bool")  # done = false  [2]
    level = 0
    while be.nvals(deg):
        level += 1
        be.assign(decomp, level, mask=deg)  # decomp<deg> = level  [2]
        _peel(be, M, deg, done, level)
    return in_input_terms(A, be.values(decomp))


def kcore(A, k, *, backend=None):
    """The vertices of the k-core: the largest subgraph whose every vertex has degree >= k.

    Parameters
    ----------
    A : graph or backend matrix
        As in :func:`core_number`.
    k : int
        At least 0.
    backend : str or Backend, optional
        Any backend name; None: as :func:`gbgraph.mis2`.

    Returns
    -------
    array or set
        Sorted int64 vertex ids (a set of nodes for a networkx graph), those of
        ``core_number(A) >= k``.

    Raises
    ------
    ValueError, TypeError
        for a ``k`` that is not an integer of at least 0.
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    References
    ----------
    .. [1] T. A. Davis, P. Konduri, ``LAGraph_KCore.c``, LAGraph
       (https://github.com/GraphBLAS/LAGraph).

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph import lagraph
    >>> A = np.ones((4, 4)) - np.eye(4); A = np.pad(A, (0, 2)); A[3, 4] = A[4, 3] = 1
    >>> lagraph.kcore(A, 2).tolist(), lagraph.kcore(A, 0).tolist()
    ([0, 1, 2, 3], [0, 1, 2, 3, 4, 5])
    """
    k = check_integer("k", k, 0)
    be, M, n, _ = adjacency(A, backend)
    if k == 0:
        alive = be.full(n, True, "bool")
    else:
        alive = be.mxv("plus_pair", M, be.full(n, 0, "int64"))  # deg = A plus.pair 0  [1]
        _peel(be, M, alive, be.full(n, False, "bool"), k - 1)
    ids = be.indices(alive)
    return {nodes[i] for nodes in (list(A),) for i in ids.tolist()} if is_networkx(A) else ids


def _peel(be, A, deg, done, level):
    """Remove from ``deg`` (in place) every vertex whose degree is or falls to ``level`` or
    below, lowering its neighbours' degrees; the removed ones become true in ``done``.

    ``done`` is a full boolean vector read as a value mask, the portable form of the
    bitmap LAGraph pins it to: a structural mask of a sparse ``done`` makes SuiteSparse
    merge its growing index list into every update of ``deg`` (Laplace3D 60³: 2.6x
    python-graphblas' time)."""
    q = be.select("valuele", deg, level)  # q = deg <= level  [2]
    while be.nvals(q):
        be.assign(done, True, mask=q)  # done<q> = true  [2]
        delta = be.vxm("plus_pair", q, A)  # delta = q plus.pair A: the edges each vertex loses  [2]
        # deg<¬done,replace> = deg - delta  [2]
        be.ewise_add("minus", deg, delta, mask=done, structure=False, complement=True, out=deg, replace=True)
        q = be.select("valuele", deg, level)  # q = deg <= level  [2]

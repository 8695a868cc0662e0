"""Triangle counting: LAGraph's ``LAGr_TriangleCount``, the Sandia methods.

With ``L`` the strictly lower triangle of a symmetric pattern, ``C<L> = L ⊕plus.pair L``
counts, at each edge (i, j) with i > j, the k with i > k > j closing a triangle: each
triangle exactly once. The mask makes it one masked product (Wolf et al.'s Sandia method;
Azad, Buluç and Gilbert's masked formulation).
"""

from ._inputs import adjacency

__all__ = ["TRIANGLE_METHODS", "triangle_count"]

#: ``method`` values of :func:`triangle_count`, the default first.
TRIANGLE_METHODS = ("sandia_ll", "sandia_lut")


def triangle_count(A, *, method="sandia_ll", backend=None):
    """The number of triangles of an undirected graph.

    Parameters
    ----------
    A : graph or backend matrix
        Anything :func:`gbgraph.as_graph` accepts, or a square matrix of the backend named
        by ``backend`` with a symmetric pattern (its diagonal is ignored).
    method : {"sandia_ll", "sandia_lut"}
        ``"sandia_ll"`` (default): ``C<L> = L ⊕plus.pair L`` (a saxpy product);
        ``"sandia_lut"``: ``C<L> = L ⊕plus.pair Uᵀ`` with U the upper triangle (dot
        products along the mask's entries: LAGraph's default method).
    backend : str or Backend, optional
        Any backend name; None: as :func:`gbgraph.mis2`.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        for an unknown ``method``.
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    References
    ----------
    .. [1] M. M. Wolf, M. Deveci, J. W. Berry, S. D. Hammond and S. Rajamanickam, "Fast
       linear algebra-based triangle counting with KokkosKernels," HPEC 2017.
       https://doi.org/10.1109/HPEC.2017.8091043
    .. [2] A. Azad, A. Buluç and J. Gilbert, "Parallel triangle counting and enumeration
       using matrix algebra," IPDPSW 2015. https://doi.org/10.1109/IPDPSW.2015.75
    .. [3] T. A. Davis, ``LAGr_TriangleCount.c``, LAGraph (https://github.com/GraphBLAS/LAGraph).

    Examples
    --------
    >>> import numpy as np
    >>> from gbgraph import lagraph
    >>> K4 = np.ones((4, 4)) - np.eye(4)  # four triangles
    >>> lagraph.triangle_count(K4), lagraph.triangle_count(K4, method="sandia_lut")
    (4, 4)
    """
    if method not in TRIANGLE_METHODS:
        raise ValueError(f"method must be one of {', '.join(TRIANGLE_METHODS)}, got {method!r}")
    be, A, _, _ = adjacency(A, backend)
    L = be.select("tril", A, -1)  # L = tril(A, -1)  [3]
    if method == "sandia_ll":
        C = be.mxm("plus_pair", L, L, mask=L)  # C<L> = L plus.pair L  [3] Sandia_LL
    else:
        U = be.select("triu", A, 1)  # U = triu(A, 1)  [3]
        C = be.mxm("plus_pair", L, U, transpose_b=True, mask=L)  # C<L> = L plus.pair Uᵀ  [3] Sandia_LUT
    total = be.reduce(C, "plus")  # ntri = Σ C  [3]
    return 0 if total is None else int(total)

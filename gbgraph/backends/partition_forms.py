"""The partitioner's two steps that the GraphBLAS API has no single operation for, in their
GraphBLAS forms.

Like :mod:`gbgraph.backends.forms`, each function computes its step with the backend's own
verbs and array code of its ``xp`` where GraphBLAS has no operation (a comparison of a row's
and a column's values, a sort), so it runs on every backend. :func:`mxv_ranked` is the form
of :meth:`Backend.mxv_ranked <gbgraph.backends.base.Backend.mxv_ranked>`, which the numba
and cupy backends run as one kernel; :func:`lightest_prefix` (a sort and a prefix sum, a
few array calls on any device) is called as it is.
"""

__all__ = ["mxv_ranked", "lightest_prefix"]


def mxv_ranked(be, A, u, rank, keys, *, mask):
    """The GraphBLAS form of :meth:`Backend.mxv_ranked <gbgraph.backends.base.Backend.mxv_ranked>`:
    ``w<mask>(i) = Σ_j A(i, j) u(j)`` over the j ranked above i, ``(rank(j), keys(j)) >
    (rank(i), keys(i))``.

    Jet's afterburner [1]_ scores each move as if the moves ranked above it had happened.
    ``T = select(A, (rank, keys)(j) > (rank, keys)(i))``, an index-unary select that reads
    two vectors (here array code over the rows of the mask), then ``w<mask> = T ⊕plus.times
    u``.

    Arguments and result as the verb's.

    References
    ----------
    .. [1] M. S. Gilbert, K. Madduri, E. G. Boman and S. Rajamanickam, "Jet: multilevel graph
       partitioning on graphics processing units," SIAM J. Sci. Comput. 46(5), 2024.
       https://doi.org/10.1137/23M1559129
    """
    xp = be.xp
    n = rank.size
    rows = be.indices(mask)
    sub = be.extract(A, rows)  # the rows of the mask
    indptr, cols, values = be.to_csr(sub)
    segment = xp.searchsorted(indptr[1:], xp.arange(cols.size), side="right")  # the row of each entry
    owner = rows[segment]
    r, k = be.values(rank), be.values(keys)
    above = (r[cols] > r[owner]) | ((r[cols] == r[owner]) & (k[cols] > k[owner]))
    dense = xp.zeros(n)
    dense[be.indices(u)] = be.values(u)
    terms = xp.where(above, values.astype(xp.float64) * dense[cols], 0.0)
    w = xp.bincount(segment, weights=terms, minlength=rows.size) if rows.size else xp.zeros(0)
    return be.vector(rows, w, n, copy=False)


def lightest_prefix(be, score, weights, keys, *, mask, amount):
    """The entries of ``mask`` by increasing ``score`` (ties: larger key first), up to and
    including the first at which their ``weights`` reach ``amount``.

    Jet's rebalancing and the median split of spectral bisection take vertices in score
    order until enough weight has moved; the GraphBLAS form is a sort of the masked
    entries, a prefix sum of their weights and a ``select`` at the threshold.

    Parameters
    ----------
    score : vector
        float64, full.
    weights : vector
        Full; non-negative.
    keys : vector
        uint64, full, distinct.
    mask : vector
        The entries that may be taken.
    amount : float
        Weight to reach; everything in ``mask`` when it is never reached.

    Returns
    -------
    vector
        bool (true) at the entries taken.
    """
    xp = be.xp
    n = score.size
    ids = be.indices(mask)
    s, k = be.values(score)[ids], be.values(keys)[ids]
    order = xp.lexsort(xp.stack((~k, s)))  # by score, then by decreasing key
    total = xp.cumsum(be.values(weights)[ids][order].astype(xp.float64))
    count = int(xp.searchsorted(total, amount, side="left")) + 1 if amount > 0 else 0
    taken = xp.sort(ids[order[:min(count, ids.size)]])
    return be.vector(taken, True, n, copy=False)

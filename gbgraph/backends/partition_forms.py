"""The partitioner's step that the GraphBLAS API has no single operation for, in its
GraphBLAS form.

Like :mod:`gbgraph.backends.forms`, :func:`lightest_prefix` computes its step with the
backend's own verbs and array code of its ``xp`` where GraphBLAS has no operation (a sort
and a prefix sum, a few array calls on any device), so it runs on every backend.
"""

__all__ = ["lightest_prefix"]


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

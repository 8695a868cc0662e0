"""The partitioner's steps that the GraphBLAS API has no single operation for, in their
GraphBLAS form.

Like :mod:`gbgraph.backends.forms`, :func:`lightest_prefix` and :func:`evictions` compute
their steps with the backend's own verbs and array code of its ``xp`` where GraphBLAS has no
operation (a sort and a prefix sum, a few array calls on any device), so they run on every
backend.
"""

import numpy as np

__all__ = ["lightest_prefix", "evictions"]


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


def evictions(be, ids, parts, dest, score, weights, keys, part_weights, bound, target):
    """Which vertices leave the overweight parts, and for which part (Jet's strong
    rebalancing).

    Each overweight part p (``part_weights[p] > bound``) gives up its candidates by
    increasing ``score`` (ties: larger key first) until it has shed ``part_weights[p] -
    (target + bound) / 2``, halfway between its target and its bound; each receiving part q
    then takes those headed for it (``dest = q``) in the same order while it stays within
    ``bound``; the ones turned away go, in the same order, to the parts with room left, most
    room first. A sort, prefix sums and a ``searchsorted`` per part: a few array calls of
    ``be.xp`` on any device.

    Parameters
    ----------
    ids : array of int64
        The candidates, sorted.
    parts, dest : arrays of int64
        Each candidate's part and the part it would enter (-1: none).
    score, weights : arrays of float64
        Each candidate's loss per weight (lower leaves first) and weight (non-negative).
    keys : array of uint64
        Distinct tie-breaking keys.
    part_weights : numpy.ndarray
        The weight of each part (host, float64).
    bound, target : float
        The most a part may weigh and its ideal weight.

    Returns
    -------
    (array, array)
        The candidates that move (sorted) and the part each enters.
    """
    xp = be.xp
    order = xp.lexsort(xp.stack((~keys, score)))  # by score, then by decreasing key
    leave = xp.zeros(ids.size, dtype=bool)
    movable = dest[order] >= 0
    for p in np.flatnonzero(part_weights > bound):
        sel = order[movable & (parts[order] == p)]
        shed = xp.cumsum(weights[sel])
        count = int(xp.searchsorted(shed, part_weights[p] - (target + bound) / 2, side="left")) + 1
        leave[sel[:count]] = True
    room = bound - part_weights
    go = order[leave[order]]
    into = dest.copy()
    taken = xp.zeros(ids.size, dtype=bool)
    for q in np.flatnonzero(room > 0):
        room[q] -= _fill(xp, go[dest[go] == q], weights, room[q], taken, into, q)
    for q in np.argsort(-room, kind="stable"):
        rest = go[~taken[go]]
        if room[q] <= 0 or rest.size == 0:
            break
        room[q] -= _fill(xp, rest, weights, room[q], taken, into, q)
    chosen = xp.flatnonzero(taken)
    return ids[chosen], into[chosen]


def _fill(xp, sel, weights, room, taken, into, q):
    """Take the prefix of ``sel`` whose weight fits in ``room`` into part q; its weight."""
    if sel.size == 0:
        return 0.0
    total = xp.cumsum(weights[sel])
    count = int(xp.searchsorted(total, room, side="right"))
    taken[sel[:count]] = True
    into[sel[:count]] = q
    return float(total[count - 1]) if count else 0.0

"""The GraphBLAS forms of the protocol's fused verbs (:mod:`gbgraph.backends.base`).

Each function computes a fused verb with the backend's own GraphBLAS verbs, and array code
of its ``xp`` where the GraphBLAS API has no operation (bit shifts, a sort). Every backend
inherits them; the numba and cupy backends run the common cases as kernels of their own,
and the tests check that both agree.
"""

import numpy as np

__all__ = ["first_fit", "chain_depth", "mxv_grouped", "better_group"]

_LOW32 = np.uint64(0xFFFFFFFF)


def first_fit(be, A, colors, mask, hops, priority):
    """:meth:`~gbgraph.backends.base.Backend.first_fit`: per window of 64 colors, the bit
    words of the colors, ``f<mask> = A ⊕bor.second words`` (twice for ``hops=2``) and the
    lowest bit not set."""
    if priority is not None:
        return _first_fit_in_order(be, A, colors, mask, hops, priority)
    xp = be.xp
    n = colors.size
    rows = be.indices(mask)
    dense = xp.full(n, -1, xp.int64)
    dense[be.indices(colors)] = be.values(colors)
    chosen = xp.full(rows.size, -1, xp.int64)
    for base in range(0, int(dense.max()) + 2, 64):  # a row forbids at most max + 1 colors
        pending = xp.flatnonzero(chosen < 0)
        inside = xp.flatnonzero((dense >= base) & (dense < base + 64))
        words = be.vector(inside, xp.left_shift(xp.uint64(1), (dense[inside] - base).astype(xp.uint64)), n)
        if hops == 2:
            words = be.mxv("bor_second", A, words)  # words = A ⊕bor.second words: each net's colors
        f = be.mxv("bor_second", A, words, mask=be.vector(rows[pending], True, n))  # f<rows> = A ⊕bor.second words
        forbidden = xp.zeros(pending.size, xp.uint64)  # a row that reaches no color has no entry
        forbidden[xp.searchsorted(rows[pending], be.indices(f))] = be.values(f)
        free = ~forbidden
        found = free != 0
        lowest = free[found] & (~free[found] + xp.uint64(1))  # w & -w: a power of two, exact in float64
        chosen[pending[found]] = base + xp.frexp(lowest.astype(xp.float64))[1].astype(xp.int64) - 1
        if bool(found.all()):
            break
    return be.vector(rows, chosen, n, copy=False)


def _first_fit_in_order(be, A, colors, mask, hops, priority):
    """First fit by decreasing priority: Jones and Plassmann's rounds, in which a row takes
    its first fit once every row of higher priority within reach has taken its own, give the
    sequential greedy coloring in that order."""
    colors = be.apply("identity", colors)  # a copy: rounds add to it
    left = _rank(be, mask, priority)
    while be.nvals(left):
        won = _unbeaten(be, A, left, hops)
        be.assign(colors, be.first_fit(A, colors, mask=won, hops=hops), mask=won)  # colors<won> = first fit
        left = be.select("valuege", left, 0, mask=won, complement=True)  # left<¬won> = left
    return be.apply("identity", colors, mask=mask)


def chain_depth(be, A, priority, hops):
    """:meth:`~gbgraph.backends.base.Backend.chain_depth` by the rounds it stands for."""
    left = _rank(be, priority, priority)
    depth = be.apply("identity", be.full(priority.size, 0, "int64"), mask=priority)
    r = 0
    while be.nvals(left):
        won = _unbeaten(be, A, left, hops)
        be.assign(depth, be.xp.int64(r), mask=won)  # depth<won> = r
        left = be.select("valuege", left, 0, mask=won, complement=True)  # left<¬won> = left
        r += 1
    return depth


def _rank(be, mask, priority):
    """Unique int64 ranks at the positions of ``mask``: higher priority, higher rank (equal
    priorities: the lower index ranks higher)."""
    xp = be.xp
    ids = be.indices(mask)
    values = be.values(be.extract(priority, ids))
    by_index = ids.size - 1 - xp.arange(ids.size)  # descending index, then a stable sort by priority
    order = by_index[_stable_argsort(xp, values[by_index])]
    rank = xp.empty(ids.size, xp.int64)
    rank[order] = xp.arange(ids.size, dtype=xp.int64)
    return be.vector(ids, rank, mask.size, copy=False)


def _unbeaten(be, A, rank, hops):
    """The entries of ``rank`` that no other entry within reach outranks."""
    m = be.mxv("max_second", A, rank) if hops == 2 else rank  # m = A ⊕max.second rank: each net's best
    m = be.mxv("max_second", A, m, mask=rank)  # m<rank> = A ⊕max.second m
    beaten = be.select("valueeq", be.ewise_mult("gt", m, rank), True)  # select(m > rank)
    return be.select("valuege", rank, 0, mask=beaten, complement=True)  # rank<¬beaten>


def mxv_grouped(be, semiring, A, u, groups, mask, hops):
    """:meth:`~gbgraph.backends.base.Backend.mxv_grouped`: ``C = A ⊕.⊗ K`` (twice for
    ``hops=2``) and each row's entry in its own group's column."""
    xp = be.xp
    ncols = int(be.reduce(groups, "max")) + 1 if be.nvals(groups) else 1
    C = be.mxm(semiring, A, _onehot(be, groups, u, ncols))  # C = A ⊕.⊗ K
    if hops == 2:
        C = be.mxm(semiring, A, C)  # C = A ⊕.⊗ (A ⊕.⊗ K)
    indptr, cols, values = be.to_csr(C)
    rows = be.indices(groups if mask is None else mask)
    # w(i) = C(i, groups(i)): find each key i * ncols + groups(i) among C's sorted keys
    keys = xp.repeat(xp.arange(indptr.size - 1, dtype=xp.int64), xp.diff(indptr).astype(xp.int64)) * ncols + cols
    wanted = rows * ncols + be.values(be.extract(groups, rows))
    at = xp.minimum(xp.searchsorted(keys, wanted), max(keys.size - 1, 0))
    hit = (keys[at] == wanted) if keys.size else xp.zeros(rows.size, bool)
    return be.vector(rows[hit], values[at[hit]], groups.size, copy=False)


def _onehot(be, groups, u, ncols):
    """The n × ncols matrix with ``u(j)`` at ``(j, groups(j))`` for every entry of ``u``."""
    xp = be.xp
    ids = be.indices(u)
    cols = be.values(be.extract(groups, ids))
    indptr = xp.zeros(u.size + 1, xp.int64)
    indptr[1:] = xp.cumsum(xp.bincount(ids, minlength=u.size))
    return be.matrix(indptr, cols.astype(xp.int64), ncols=ncols, values=be.values(u))


def better_group(be, A, labels, rooted, sizes, mask, limit):
    """:meth:`~gbgraph.backends.base.Backend.better_group`: ``C = A(mask, :) ⊕plus.second P``
    with P's entries packed ``rooted << 32 | 1``, ``F = A(mask, :) ⊕min.secondi P`` (the first
    neighbour in each group), the ``limit`` applied to the rows it affects, two row-wise
    max-reductions of packed keys over the other groups, and the comparison with the
    incumbent ``C(i, labels(i))``."""
    xp = be.xp
    n = labels.size
    rows = be.indices(mask)
    label = xp.full(n, -1, xp.int64)
    label[be.indices(labels)] = be.values(labels)
    is_root = xp.zeros(n, bool)
    is_root[be.indices(rooted)] = True
    size = be.values(sizes)
    R = be.extract(A, rows)  # R = A(rows, :)
    member = xp.flatnonzero(label >= 0)
    pointer = xp.zeros(n + 1, dtype=xp.int64)
    pointer[1:] = xp.cumsum(label >= 0)
    P = be.matrix(pointer, label[member], ncols=size.size,
                  values=is_root[member].astype(xp.uint64) << np.uint64(32) | np.uint64(1))
    c_indptr, cols, coupling = be.to_csr(be.mxm("plus_second", R, P))  # C = R ⊕plus.second P
    first = be.to_csr(be.mxm("min_secondi", R, P))[2].astype(xp.int64)  # F = R ⊕min.secondi P
    owner = xp.repeat(rows, xp.diff(c_indptr))
    coupling = coupling.astype(xp.uint64)
    candidate = cols != label[owner]
    own_key = xp.zeros(n, xp.uint64)  # the incumbent: C(i, labels(i)), 0 where unlabelled
    own_key[owner[~candidate]] = coupling[~candidate]
    if limit is not None:
        candidate, coupling = _track_at_most(be, R, rows, label, is_root, owner, cols, candidate, coupling, first, limit)
    best_key, seen_at = _best_of(be, n, owner, cols, coupling, first, candidate, size)
    best = label[seen_at]
    own_size = xp.where(label >= 0, size[xp.maximum(label, 0)], 0)
    key, incumbent = best_key[rows], own_key[rows]
    moves = (key > incumbent) | ((key == incumbent) & (key > 0) & (size[xp.maximum(best[rows], 0)] < own_size[rows]))
    chosen = rows[moves]
    return be.vector(chosen, best[chosen], n, copy=False)


def _track_at_most(be, R, rows, label, is_root, owner, cols, candidate, coupling, first, limit):
    """The ``limit``-group scan for the rows that meet more groups: each stops reading at
    the first neighbour of its (limit + 1)-th group; later neighbours count for nothing and
    later groups are not considered. Returns the candidate mask and couplings with that
    applied."""
    xp = be.xp
    n = label.size
    seen = xp.bincount(owner[candidate], minlength=n)
    crowded = xp.flatnonzero(seen > limit)
    if crowded.size == 0:
        return candidate, coupling
    # stop(i) = the first-seen position of i's (limit + 1)-th group
    local = candidate & (seen[owner] > limit)
    order = xp.lexsort(xp.stack((first[local], owner[local])))
    r, f = owner[local][order], first[local][order]
    extra = (xp.arange(r.size) - xp.searchsorted(r, r)) == limit
    stop = xp.full(n, n, dtype=xp.int64)
    stop[r[extra]] = f[extra]
    kept = local & (first < stop[owner])
    # the couplings over the neighbours the crowded rows read before their stop
    r_indptr, j, _ = be.to_csr(be.extract(R, xp.searchsorted(rows, crowded)))
    reader = xp.repeat(crowded, xp.diff(r_indptr))
    read = (j < stop[reader]) & (label[j] >= 0)
    reader, j = reader[read], j[read]
    keys, counts = xp.unique(reader * n + label[j], return_counts=True)
    packed = counts.astype(xp.uint64)
    rooted_keys = reader[is_root[j]] * n + label[j[is_root[j]]]
    packed[xp.searchsorted(keys, rooted_keys)] |= np.uint64(1) << np.uint64(32)
    coupling = coupling.copy()
    coupling[kept] = packed[xp.searchsorted(keys, owner[kept] * n + cols[kept])]
    return candidate & ~(local & ~kept), coupling


def _best_of(be, n, owner, cols, coupling, first, candidate, size):
    """Per row, the best candidate's packed key and its first-seen neighbour: largest key,
    then smallest size, then first seen: two max-reductions of packed keys, the second over
    the entries reaching the first's maximum, with key ``(largest size - size) << 32 |
    (n - 1 - first)``."""
    xp = be.xp
    indptr = xp.zeros(n + 1, dtype=xp.int64)
    indptr[1:] = xp.cumsum(xp.bincount(owner, minlength=n))
    key = xp.where(candidate, coupling, np.uint64(0))
    best = _row_max(be, indptr, cols, key, n, int(size.size))
    top = candidate & (key == best[owner])
    biggest = np.uint64(int(size.max()) if size.size else 0)
    tie = xp.where(top, (biggest - size[cols].astype(xp.uint64)) << np.uint64(32)
                   | (np.uint64(n - 1) - first.astype(xp.uint64)), np.uint64(0))
    seen_at = (n - 1) - (_row_max(be, indptr, cols, tie, n, int(size.size)) & _LOW32).astype(xp.int64)
    return best, xp.where(best > 0, seen_at, 0)


def _row_max(be, indptr, cols, values, n, ncols):
    """``m(i) = max_j K(i, j)`` for the matrix K with the given CSR (0 for empty rows)."""
    xp = be.xp
    m = be.reduce_rows(be.matrix(indptr, cols, ncols=ncols, values=values), "max")  # m = K ⊕max.reduce_rows
    out = xp.zeros(n, dtype=values.dtype)
    out[be.indices(m)] = be.values(m)
    return out


def _stable_argsort(xp, x):
    """A stable argsort on numpy or CuPy (whose sorts are all stable and take no ``kind``)."""
    return xp.argsort(x, kind="stable") if xp.__name__ == "numpy" else xp.argsort(x)

"""The GraphBLAS forms of the protocol's fused verbs (:mod:`gbgraph.backends.base`).

Each function computes a fused verb with the backend's own GraphBLAS verbs, and array code
of its ``xp`` where the GraphBLAS API has no operation (bit shifts, a sort). Every backend
inherits them; the numba and cupy backends run the common cases as kernels of their own,
and the tests check that both agree.
"""

__all__ = ["first_fit", "chain_depth", "mxv_grouped"]


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


def _stable_argsort(xp, x):
    """A stable argsort on numpy or CuPy (whose sorts are all stable and take no ``kind``)."""
    return xp.argsort(x, kind="stable") if xp.__name__ == "numpy" else xp.argsort(x)

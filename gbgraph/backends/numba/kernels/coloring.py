"""First fit, Jones-Plassmann depths and in-group products: the verbs of the coloring rounds.

Each function computes one verb of :class:`gbgraph.backends.base.Backend` (whose docstring
gives its GraphBLAS form) over a CSR pattern ``(indptr, indices)``. ``hops=2`` reads the
pattern as closed neighbourhoods, "nets" in Taş et al.'s terms [1]_: j is within reach of i
when both lie in the net N[w] of some w in N[i]. The net-based forms below cost the sum of
the net sizes, once, where visiting N(N(i)) row by row would cost the square of a hub's
degree for every vertex next to it (a star of 200,000 leaves: 4·10¹⁰ visits).

References
----------
.. [1] M. K. Taş, K. Kaya and E. Saule, "Greed is good: parallel algorithms for
   bipartite-graph partial coloring on multicore architectures," ICPP 2017, pp. 503-512.
   https://doi.org/10.1109/ICPP.2017.59
"""

import numba
import numpy as np

from .threads import net_work, parallel_above, row_work

__all__ = ["first_fit_rows", "first_fit_in_order", "chain_depth_in_order", "grouped_reduce", "by_decreasing"]

_FULL = np.uint64(0xFFFFFFFFFFFFFFFF)


@numba.njit(cache=True, inline="always")
def _lowest_zero(word):
    """Index of the lowest bit not set in ``word`` (which is not all ones)."""
    c = 0
    while (word >> np.uint64(c)) & np.uint64(1):
        c += 1
    return c


def first_fit_rows(indptr, indices, colors, rows, hops):
    """``w(i) = min{c >= 0 : no colors(j) = c within reach}`` for each i of ``rows``.

    ``colors`` is dense, -1 where uncolored. Windows of 64 colors: ``f = A ⊕bor.second words``
    and its lowest zero bit; with ``hops=2`` each net's word is formed once per window. A
    kernel per distance, so that distance-1 coloring compiles no net code.
    """
    return (_first_fit_rows if hops == 1 else _first_fit_net_rows)(indptr, indices, colors, rows)


@parallel_above(row_work, "indptr", "rows")
@numba.njit(cache=True, parallel=True)
def _first_fit_rows(indptr, indices, colors, rows):
    chosen = np.full(rows.size, -1, np.int64)
    pending = np.arange(rows.size)
    base = 0
    while pending.size:
        for k in numba.prange(pending.size):
            i = rows[pending[k]]
            word = np.uint64(0)
            for p in range(indptr[i], indptr[i + 1]):
                offset = colors[indices[p]] - base
                if offset >= 0 and offset < 64:
                    word |= np.uint64(1) << np.uint64(offset)
            if word != _FULL:
                chosen[pending[k]] = base + _lowest_zero(word)
        pending = pending[chosen[pending] < 0]
        base += 64
    return chosen


@parallel_above(net_work, "indptr", "rows")
@numba.njit(cache=True, parallel=True)
def _first_fit_net_rows(indptr, indices, colors, rows):
    chosen = np.full(rows.size, -1, np.int64)
    pending = np.arange(rows.size)
    base = 0
    while pending.size:
        net_word = _net_words(indptr, indices, colors, rows[pending], base)
        for k in numba.prange(pending.size):
            i = rows[pending[k]]
            word = np.uint64(0)
            for p in range(indptr[i], indptr[i + 1]):
                word |= net_word[indices[p]]
            if word != _FULL:
                chosen[pending[k]] = base + _lowest_zero(word)
        pending = pending[chosen[pending] < 0]
        base += 64
    return chosen


@numba.njit(cache=True, parallel=True)
def _net_words(indptr, indices, colors, rows, base):
    """The colors base..base+63 in each net N[w] next to ``rows``, as bit words."""
    n = indptr.size - 1
    needed = np.zeros(n, np.bool_)
    for k in range(rows.size):
        i = rows[k]
        for p in range(indptr[i], indptr[i + 1]):
            needed[indices[p]] = True
    nets = np.flatnonzero(needed)
    net_word = np.zeros(n, np.uint64)
    for t in numba.prange(nets.size):
        w = nets[t]
        word = np.uint64(0)
        for p in range(indptr[w], indptr[w + 1]):
            offset = colors[indices[p]] - base
            if offset >= 0 and offset < 64:
                word |= np.uint64(1) << np.uint64(offset)
        net_word[w] = word
    return net_word


def first_fit_in_order(indptr, indices, colors, order, hops):
    """Sequential first fit: the vertices of ``order``, one after another, each take the
    smallest color not within reach, seeing ``colors`` (dense, -1 = uncolored) and the
    colors given before it. Returns their colors, aligned with ``order``."""
    chosen = np.empty(order.size, np.int64)
    if hops == 2:
        return _first_fit_nets(indptr, indices, colors.copy(), order, chosen)
    return _first_fit_order(indptr, indices, colors.copy(), order, chosen)


@numba.njit(cache=True)
def _first_fit_order(indptr, indices, colors, order, chosen):
    degree = 0
    for k in range(order.size):
        degree = max(degree, indptr[order[k] + 1] - indptr[order[k]])
    # a first fit is at most the degree; seen[c] == k + 1: c is forbidden for the k-th vertex
    seen = np.zeros(max(colors.max(), degree) + 2, np.int64)
    for k in range(order.size):
        i = order[k]
        for p in range(indptr[i], indptr[i + 1]):
            c = colors[indices[p]]
            if c >= 0:
                seen[c] = k + 1
        c = 0
        while seen[c] == k + 1:
            c += 1
        colors[i] = chosen[k] = c
    return chosen


@numba.njit(cache=True)
def _first_fit_nets(indptr, indices, colors, order, chosen):
    """Distance-2 sequential first fit over nets: each net N[w] keeps the set of its colors
    (an open-addressing table of twice its size) and ``mex[w]``, its smallest absent color.
    A vertex starts from the largest ``mex`` of its nets and steps past colors that one of
    its nets holds; so a leaf of a star finds its color at once, however many leaves came
    before."""
    n = indptr.size - 1
    needed = np.zeros(n, np.bool_)
    for k in range(order.size):
        i = order[k]
        for p in range(indptr[i], indptr[i + 1]):
            needed[indices[p]] = True
    start = np.zeros(n + 1, np.int64)
    for w in range(n):
        capacity = 0
        if needed[w]:
            capacity = 2
            while capacity < 2 * (indptr[w + 1] - indptr[w]):
                capacity *= 2
        start[w + 1] = start[w] + capacity
    table = np.full(start[n], -1, np.int64)
    mex = np.zeros(n, np.int64)
    for w in range(n):
        if needed[w]:
            for p in range(indptr[w], indptr[w + 1]):
                c = colors[indices[p]]
                if c >= 0:
                    _insert(table, start, w, c)
            while _contains(table, start, w, mex[w]):
                mex[w] += 1
    for k in range(order.size):
        i = order[k]
        c = 0
        for p in range(indptr[i], indptr[i + 1]):
            c = max(c, mex[indices[p]])
        clash = True
        while clash:
            clash = False
            for p in range(indptr[i], indptr[i + 1]):
                if _contains(table, start, indices[p], c):
                    clash = True
                    c += 1
                    break
        chosen[k] = c
        for p in range(indptr[i], indptr[i + 1]):
            w = indices[p]
            _insert(table, start, w, c)
            while _contains(table, start, w, mex[w]):
                mex[w] += 1
    return chosen


@numba.njit(cache=True, inline="always")
def _slot(table, start, w, c):
    """The slot of color ``c`` in net w's table, or the empty slot where it would go."""
    mask = start[w + 1] - start[w] - 1
    s = (c * 0x9E3779B1) & mask
    while table[start[w] + s] != -1 and table[start[w] + s] != c:
        s = (s + 1) & mask
    return start[w] + s


@numba.njit(cache=True, inline="always")
def _contains(table, start, w, c):
    return table[_slot(table, start, w, c)] == c


@numba.njit(cache=True, inline="always")
def _insert(table, start, w, c):
    table[_slot(table, start, w, c)] = c


@numba.njit(cache=True)
def chain_depth_in_order(indptr, indices, order, hops):
    """Jones-Plassmann depths: for the vertices of ``order`` (highest priority first),
    ``d = 1 + max d`` of the earlier ones within reach (0 if none); aligned with ``order``.
    With ``hops=2`` each net keeps the largest depth among its members so far."""
    n = indptr.size - 1
    best = np.full(n, -1, np.int64)  # hops 1: each vertex's depth; hops 2: each net's largest
    depth = np.empty(order.size, np.int64)
    for k in range(order.size):
        i = order[k]
        d = 0
        for p in range(indptr[i], indptr[i + 1]):
            d = max(d, best[indices[p]] + 1)
        depth[k] = d
        if hops == 1:
            best[i] = d
        else:
            for p in range(indptr[i], indptr[i + 1]):
                w = indices[p]
                best[w] = max(best[w], d)
    return depth


def grouped_reduce(indptr, indices, values, present, groups, rows, hops, use_max):
    """``w(i) = ⊕ values(j)`` over the j within reach with ``groups(j) = groups(i)`` and
    ``present(j)``, for each i of ``rows``; ⊕ is max (``use_max``) or plus. Returns the
    results and whether each row met any j. ``hops=2``: ``A ⊕ (A ⊕ K)`` at (i, groups(i)),
    from each net's (group, sum) list, sorted by group."""
    if hops == 1:
        return _grouped_reduce(indptr, indices, values, present, groups, rows, use_max)
    return _grouped_net_reduce(indptr, indices, values, present, groups, rows, use_max)


@parallel_above(row_work, "indptr", "rows")
@numba.njit(cache=True, parallel=True)
def _grouped_reduce(indptr, indices, values, present, groups, rows, use_max):
    out = np.zeros(rows.size, values.dtype)
    found = np.zeros(rows.size, np.bool_)
    for k in numba.prange(rows.size):
        i = rows[k]
        g = groups[i]
        acc = values[0]
        hit = False
        for p in range(indptr[i], indptr[i + 1]):
            j = indices[p]
            if present[j] and groups[j] == g:
                acc = _combine(acc, values[j], hit, use_max)
                hit = True
        if hit:
            out[k] = acc
            found[k] = True
    return out, found


@parallel_above(net_work, "indptr", "rows")
@numba.njit(cache=True, parallel=True)
def _grouped_net_reduce(indptr, indices, values, present, groups, rows, use_max):
    out = np.zeros(rows.size, values.dtype)
    found = np.zeros(rows.size, np.bool_)
    net_start, net_groups, net_values = _net_lists(indptr, indices, values, present, groups, use_max)
    for k in numba.prange(rows.size):
        i = rows[k]
        g = groups[i]
        acc = values[0]
        hit = False
        for p in range(indptr[i], indptr[i + 1]):
            w = indices[p]
            lo, hi = net_start[w], net_start[w + 1]
            at = lo + np.searchsorted(net_groups[lo:hi], g)
            if at < hi and net_groups[at] == g:
                acc = _combine(acc, net_values[at], hit, use_max)
                hit = True
        if hit:
            out[k] = acc
            found[k] = True
    return out, found


@numba.njit(cache=True, inline="always")
def _combine(acc, value, started, use_max):
    if not started:
        return value
    if use_max:
        return max(acc, value)
    return acc + value


@numba.njit(cache=True, parallel=True)
def _net_lists(indptr, indices, values, present, groups, use_max):
    """For every net: its groups, ascending, and the ⊕ of its present members' values in
    each (``A ⊕ K`` in CSR)."""
    n = indptr.size - 1
    counts = np.zeros(n + 1, np.int64)
    for w in numba.prange(n):
        g, _ = _net_groups(indptr, indices, values, present, groups, w, use_max)
        counts[w + 1] = g.size
    start = np.cumsum(counts)
    net_groups = np.empty(start[n], np.int64)
    net_values = np.empty(start[n], values.dtype)
    for w in numba.prange(n):
        g, v = _net_groups(indptr, indices, values, present, groups, w, use_max)
        for t in range(g.size):  # a loop: a slice assignment compiles numba's shape-error messages
            net_groups[start[w] + t] = g[t]
            net_values[start[w] + t] = v[t]
    return start, net_groups, net_values


@numba.njit(cache=True)
def _net_groups(indptr, indices, values, present, groups, w, use_max):
    members = indices[indptr[w]:indptr[w + 1]]
    members = members[present[members]]
    member_groups = groups[members]
    order = np.argsort(member_groups, kind="mergesort")
    keys = np.empty(order.size, np.int64)
    sums = np.empty(order.size, values.dtype)
    m = -1
    for t in range(order.size):
        j = members[order[t]]
        if m >= 0 and keys[m] == member_groups[order[t]]:
            sums[m] = _combine(sums[m], values[j], True, use_max)
        else:
            m += 1
            keys[m] = member_groups[order[t]]
            sums[m] = values[j]
    return keys[:m + 1], sums[:m + 1]


def by_decreasing(values):
    """The stable order of ``values`` from the largest down (equal values keep their order):
    a counting sort where the values span at most a few times their number (colors, as the
    recoloring's priority), numpy's stable sort of the reversed keys otherwise."""
    if values.size == 0 or values.dtype.kind not in "iu":
        return np.argsort(~values if values.dtype.kind == "b" else -values, kind="stable")
    low = values.min()
    if int(values.max()) - int(low) <= 4 * values.size + 1024:
        # offsets from the least, in int64: uint64 hash priorities reach 2**64 - 1
        return _counting_order((values - low).astype(np.int64))
    return np.argsort(~values, kind="stable")  # ~ reverses the order of either signedness


@numba.njit(cache=True)
def _counting_order(offsets):
    high = offsets.max()
    start = np.zeros(high + 2, np.int64)
    for v in offsets:
        start[high - v + 1] += 1
    for k in range(1, start.size):
        start[k] += start[k - 1]
    order = np.empty(offsets.size, np.int64)
    for k in range(offsets.size):
        slot = high - offsets[k]
        order[start[slot]] = k
        start[slot] += 1
    return order

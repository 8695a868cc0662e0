"""Heavy edge coarsening (HEC, with or without a cap on coarse-vertex weight) in one
compiled call: the CPU twin of ``gbgraph.algorithms.heavy``'s ``hec`` and ``capped_hec``.

Those build HEC from verbs: the heavy neighbours ``H`` (a row max-reduction), the visit of
[1]_'s Algorithm 3 in rounds (a masked row operator over the matrix of waiting vertices per
round), pointer jumping to the roots, and, with a cap, the release of the members a coarse
vertex cannot hold, each step a call from Python. On the small levels of a partitioner's
hierarchies (the coarsest graph's bisections: thousands of vertices, a few rounds each)
these calls were most of the time (docs/partitioning_history.md, "Session 11"). Here the same steps
run as sequential loops with the same results, bit for bit, and the same count of rounds:

* ``H(u)``: the candidate neighbour v of largest ``(W(u, v), key(v))`` (the first, then any
  heavier one or one as heavy with a larger key); with ``alike`` (a pattern, or equal
  weights) the largest key;
* the visit: a pending u is unmapped when visited unless a vertex waiting on it (pending,
  ``H(w) = u``, ``key(w) > key(u)``) is; the waiting relation is a forest whose keys fall
  towards the roots, so one pass in topological order (leaves first, Kahn's algorithm)
  decides every vertex, and a vertex's round is one more than its waiting vertices' last;
* roots by following the pointers, numbered in ascending order;
* the cap: each coarse vertex over it keeps its members by (depth, key descending) while
  their total fits, the rest run HEC among themselves, as ``capped_hec`` does.

References
----------
.. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030
"""

import numba
import numpy as np


@numba.njit(cache=True)
def capped_hec(indptr, indices, w, alike, keys, vw, cap, capped, passes):
    """HEC's (labels, count, rounds); with ``capped``, no coarse vertex heavier than ``cap``
    (vertex weights ``vw``) save a single vertex that is, after at most ``passes`` rounds of
    HEC among the released vertices (``heavy.CAP_PASSES``)."""
    n = indptr.size - 1
    pending = np.ones(n, np.bool_)
    light = n
    if capped:
        for v in range(n):
            pending[v] = vw[v] < cap  # Jet's rule: a vertex at the cap neither joins nor is joined
            light -= not pending[v]
    H, target = np.empty(n, np.int64), np.empty(n, np.int64)
    free = np.zeros(n, np.bool_)
    _heavy(indptr, indices, w, alike, keys, pending, light == n, H, target)
    rounds = _visit(H, target, pending, free)
    parent = np.arange(n)
    for v in range(n):
        if free[v]:
            parent[v] = H[v]
    labels, count = _roots(parent)
    if not capped:
        return labels, count, rounds
    for p in range(passes + 1):
        released = _overflow(keys, parent, labels, count, vw, cap)
        if released.size == 0:
            return labels, count, rounds
        for v in released:
            parent[v] = v
        if p == passes:  # the last ones over stay alone
            labels, count = _roots(parent)
            return labels, count, rounds
        pending[:] = False
        pending[released] = True
        free[:] = False
        _heavy(indptr, indices, w, alike, keys, pending, False, H, target)  # HEC among the released
        rounds += _visit(H, target, pending, free)
        for v in released:
            if free[v]:
                parent[v] = H[v]
        labels, count = _roots(parent)
    return labels, count, rounds


@numba.njit(cache=True)
def _heavy(indptr, indices, w, alike, keys, pending, every, H, target):
    """``H(u)`` for the pending rows over the pending neighbours (u itself where there is
    none, and for the other rows), and ``target(u) = H(u)`` where u waits on it (``key(u) >
    key(H(u))``; the candidates are pending), else -1. ``every``: all are pending. As
    ``heavy._heaviest``, the columns are read as unsigned integers (keys are nonzero: a
    non-candidate reads key 0; weights are >= 0, so the first candidate is heavier than the
    start, -1). With ``alike`` the comparison is computed rather than branched on; with
    weights an entry lighter than the row's heaviest so far, most of them once the heaviest
    is seen, is passed over on a branch before its key is read (the same test: ``w >
    heaviest or (w == heaviest and key > top)`` is ``w >= heaviest and (w > heaviest or key
    > top)``): one thread, the capped HEC of cond-mat-2005's partition at k = 8 5.1 -> 3.5
    ms, of coAuthorsDBLP's 11.2 -> 5.8, usroads' 5.3 -> 5.6 (short rows of tied weights)."""
    for u in range(indptr.size - 1):
        H[u] = u
        target[u] = -1
        if not (every or pending[u]):
            continue
        best = np.int64(-1)
        heaviest = -1.0
        top = np.uint64(0)
        for p in range(np.uint64(indptr[u]), np.uint64(indptr[u + 1])):
            v = np.uint64(indices[p])
            if alike:
                key = keys[v] if every or pending[v] else np.uint64(0)
                better = key > top
                top = key if better else top
                best = np.int64(v) if better else best
            elif w[p] >= heaviest:
                key = keys[v] if every or pending[v] else np.uint64(0)
                if key != 0 and (w[p] > heaviest or key > top):
                    heaviest = w[p]
                    top = key
                    best = np.int64(v)
        if best >= 0:
            H[u] = best
            if keys[u] > top:
                target[u] = best


@numba.njit(cache=True)
def _visit(H, target, pending, free):
    """Algorithm 3's visit of the pending vertices by decreasing key: ``free`` set where a
    vertex is unmapped when visited; returns the rounds ``visit_in_order`` takes (0 when no
    pending vertex has a heavy neighbour)."""
    n = H.size
    waiting = np.zeros(n, np.int64)  # vertices waiting on each one, not yet decided
    moving = False
    for u in range(n):
        if pending[u] and H[u] != u:
            moving = True
            if target[u] >= 0:
                waiting[target[u]] += 1
    if not moving:
        for u in range(n):
            free[u] = pending[u]
        return 0
    claimed, decided = np.zeros(n, np.bool_), np.zeros(n, np.bool_)
    depth = np.zeros(n, np.int64)
    deepest = 0
    for s in range(n):
        if not pending[s] or waiting[s] != 0 or decided[s]:
            continue
        u = s  # a leaf: nothing waits on it; follow its chain while it decides the next vertex
        while True:
            decided[u] = True
            free[u] = not claimed[u]
            deepest = max(deepest, depth[u])
            t = target[u]
            if t < 0:
                break
            if free[u]:
                claimed[t] = True  # l.11-12: H(u) is mapped with u
            depth[t] = max(depth[t], depth[u] + 1)
            waiting[t] -= 1
            if waiting[t] != 0:
                break
            u = t
    return 1 + deepest


@numba.njit(cache=True)
def _roots(parent):
    """Each vertex's root under ``parent``, the roots numbered in ascending order: (labels,
    count)."""
    n = parent.size
    labels = np.empty(n, np.int64)
    count = 0
    for v in range(n):
        if parent[v] == v:
            labels[v] = count
            count += 1
    for v in range(n):
        r = v
        while parent[r] != r:
            r = parent[r]
        labels[v] = labels[r]
    return labels, count


@numba.njit(cache=True)
def _overflow(keys, parent, labels, count, vw, cap):
    """``heavy._overflow``: the members to let go of the coarse vertices over ``cap``, sorted."""
    n = parent.size
    coarse = np.zeros(count, vw.dtype)
    for v in range(n):
        coarse[labels[v]] += vw[v]
    m = 0
    for v in range(n):
        if coarse[labels[v]] > cap:
            m += 1
    members = np.empty(m, np.int64)
    m = 0
    for v in range(n):
        if coarse[labels[v]] > cap:
            members[m] = v
            m += 1
    if m == 0:
        return members
    depth = np.empty(m, np.int64)
    for i in range(m):
        d, r = 0, members[i]
        while parent[r] != r:
            r = parent[r]
            d += 1
        depth[i] = d
    by_key = np.empty(m, np.int64)  # 0: the largest key among the members
    by_key[np.argsort(keys[members])] = np.arange(m - 1, -1, -1)
    within = np.empty(m, np.int64)
    within[np.argsort(depth * m + by_key)] = np.arange(m)
    order = members[np.argsort(labels[members] * m + within)]
    out = np.empty(m, np.int64)
    released = 0
    upto = 0
    for i in range(m):
        v = order[i]
        if i == 0 or labels[v] != labels[order[i - 1]]:
            upto = vw[v]  # a coarse vertex's first member, its root, stays
            continue
        upto += vw[v]
        if upto > cap:
            out[released] = v
            released += 1
    return np.sort(out[:released])

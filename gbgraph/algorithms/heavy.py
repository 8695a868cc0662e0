"""Heavy-edge coarse mappings: HEC as Gilbert et al.'s Algorithm 3 in a hashed order, HEC
with a cap on coarse-vertex weight (Jet's rule [2]_ made strict), HEC3 (their Algorithm 5),
and the pieces the other mappings share.

Every vertex v has a unique key ``hash(v, seed) << nv | (v + 1)`` (the project's hash,
:class:`~gbgraph.hashing.Packing`); the heavy neighbour of u is the neighbour v
with the largest ``(W(u, v), key(v))``, one row-wise max-reduction (the row operator
:data:`HEAVIEST`), and keys decide every other order. Line numbers ``l.N`` are those of the
paper's listings [1]_.

References
----------
.. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030
.. [2] M. S. Gilbert, K. Madduri, E. G. Boman and S. Rajamanickam, "Jet: Multilevel graph
   partitioning on graphics processing units," SIAM J. Sci. Comput. 46(5), 2024,
   pp. B700-B724. https://doi.org/10.1137/23M1559129
"""

import numpy as np

from ..backends.operators import RowOperator
from ..hashing import Packing

__all__ = ["hec", "capped_hec", "within_cap", "coarse_weights", "hec3", "Keys", "full_vector", "heavy_targets",
           "visit_in_order", "roots_and_labels", "HEAVIEST", "VISIT"]


class Keys:
    """Unique uint64 keys of the vertices, larger first: ``hash(v, seed) << nv | (v + 1)``.

    ``led(ids, field, bits)`` puts a ``bits``-wide field above the hash (keeping its top
    bits), so that comparing keys compares fields first: ``field << (64 - bits) |
    (hash >> bits) << nv | (v + 1)``. The keys of a graph are made once per seed and backend.

    ``alike=True`` says that every edge the mapping reads weighs the same (a pattern, or
    equal weights): keys alone then decide heavy neighbours, and ``pattern`` holds the
    graph's pattern matrix for :func:`heavy_targets` (None otherwise).
    """

    def __init__(self, be, graph, seed, alike=False):
        self.be, self.xp, self.n = be, be.xp, graph.n
        self.pattern = be.adjacency(graph) if alike else None
        self.nv = (graph.n + 1).bit_length()
        self.low = np.uint64((1 << self.nv) - 1)
        self.values = host_keys(graph, seed) if be.xp is np else graph.cached(
            ("mapping", "keys", be.name, seed),
            lambda: Packing(graph.n, 64, be.xp)(be.xp.arange(graph.n, dtype=be.xp.int64), seed))
        self.all = graph.cached(("mapping", "key vector", be.name, seed), lambda: full_vector(be, self.values))

    def vector(self, ids):
        """The keys of the vertices ``ids`` (sorted) as a backend vector."""
        return self.be.vector(ids, self.values[ids], self.n, copy=False)

    def ids(self, keys):
        """The vertices whose keys these are (an int64 array; the low bits, below 2**63, read
        as int64 in place)."""
        return (keys & self.low).view(self.xp.int64) - 1

    def led(self, ids, field, bits):
        """Keys of ``ids`` ordered by ``field`` (integers below ``2**bits``), then by the hash."""
        if bits + self.nv > 64:
            raise ValueError(f"keys led by a {bits}-bit field need bits + bit_length(n + 1) <= 64; the graph has "
                             f"{bits} + {self.nv}")
        u = self.xp.uint64
        key = self.values[ids]
        tail = key & self.low
        key = (key >> u(self.nv + bits)) << u(self.nv)
        return key | tail | (field.astype(u) << u(64 - bits))


def host_keys(graph, seed):
    """The values of :class:`Keys` on the host, ``hash(v, seed)`` packed above ``v + 1``
    (uint64), made once per graph and seed by one compiled call: the verbs on a host backend,
    the compiled HEC and the partitioner's FM of a level share them."""
    return graph.cached(("keys", "host", seed),
                        lambda: Packing(graph.n, 64, np).numba(np.arange(graph.n, dtype=np.int64), seed))


def full_vector(be, values):
    """``w = values``: a backend vector with an entry at every position."""
    return be.full(values.size, values, values.dtype.name)


# The row operators read a row's positions and columns as unsigned integers: numba tests a
# signed index for wraparound on every read, which keeps LLVM from unrolling the scan (numba,
# one thread: HEC's mapping of |Elasticity3D 30³| 31.6 -> 29.8 ms, HEM's 85.7 -> 81.4 ms).


def _heaviest(i, start, stop, cols, vals, keys):
    """Row i's column j maximising ``(A(i, j), keys(j))`` among the j with a key (keys are
    nonzero; 0 is the fill of an absent one): the first candidate, then any heavier one or
    one of equal weight and a larger key. A pattern's values are all True, so keys decide.
    The comparison is computed, not branched on, so that the compiler selects without
    jumps: equal weights leave it to the keys, whose order is as good as random."""
    p = np.uint64(start)
    end = np.uint64(stop)
    while p < end and keys[np.uint64(cols[p])] == 0:
        p += np.uint64(1)
    if p == end:
        return np.int64(-1), False
    at = p
    heaviest = vals[p]
    best = keys[np.uint64(cols[p])]
    for q in range(p + np.uint64(1), end):
        key = keys[np.uint64(cols[q])]
        w = vals[q]
        better = (key != 0) & ((w > heaviest) | ((w == heaviest) & (key > best)))
        heaviest = w if better else heaviest
        best = key if better else best
        at = q if better else at
    return np.int64(cols[at]), True


#: ``h(i) = argmax_j (A(i, j), keys(j))``, the heavy neighbour: a row operator over ``A``
#: and the vector of candidate keys (an absent key reads 0: no candidate), ``A ⊕max.(W,
#: key) keys`` keeping the column ([1] Alg.4 l.3-8); int64.
HEAVIEST = RowOperator(_heaviest, fill=0, name="heaviest")


def heavy_targets(be, A, keys, n, mask=None, among=None):
    """H(u) = the v maximising (W(u, v), key(v)) over the neighbours v in ``among`` (sorted
    ids; None: all), for the rows of ``mask``; u itself where there is none. An int64 array."""
    xp = be.xp
    candidates = keys.all if among is None else keys.vector(among)
    if keys.pattern is None:
        h = be.mxv(HEAVIEST, A, candidates, mask=mask)  # h<mask> = A ⊕max.(W, key) candidates: [1] Alg.4 l.3-8
        target = be.values(h).astype(xp.int64, copy=False)
    else:  # equal weights: the largest key wins, a built-in product (Laplace3D 100³: 20 -> 9 ms)
        h = be.mxv("max_second", keys.pattern, candidates, mask=mask)  # h<mask> = A ⊕max.second candidates
        target = keys.ids(be.values(h))
    if be.nvals(h) == n:  # every vertex has a candidate neighbour: h is H (no scatter into a fresh range)
        return target
    H = xp.arange(n, dtype=xp.int64)
    H[be.indices(h)] = target
    return H


#: A vertex's state in :func:`visit_in_order`: claimed (mapped before its visit), unclaimed
#: (mapped by its visit), or not decided yet.
CLAIMED, UNCLAIMED, UNDECIDED = 0, 1, 2


def _visit(i, start, stop, cols, vals, state):
    """Row u of the matrix of waiting in-neighbours: u is undecided while one of them is,
    else claimed when one of them is unclaimed ([1] Alg.3 l.11-12 maps H(w) with w)."""
    value = np.int64(UNCLAIMED)
    for p in range(np.uint64(start), np.uint64(stop)):
        s = state[np.uint64(cols[p])]
        if s == UNDECIDED:
            value = np.int64(UNDECIDED)
            break
        if s == UNCLAIMED:
            value = np.int64(CLAIMED)
    return value, True


#: ``d(u) = visit(Wᵀ(u, :), state)``: the state a vertex takes once its waiting in-neighbours
#: are decided, a row operator over ``Wᵀ`` (int64).
VISIT = RowOperator(_visit, fill=None, constants={"CLAIMED": CLAIMED, "UNCLAIMED": UNCLAIMED, "UNDECIDED": UNDECIDED},
                    name="visit")


def visit_in_order(be, H, keys, pending):
    """[1] Alg.3 l.3-14 on the vertices of the vector ``pending``, visited by decreasing
    key: flags of the ones still unmapped when visited (a bool array of length n, so that
    the caller's ``parent<free> = H`` needs no list of them, which a GPU counts on the host),
    and the rounds it took (an int, or an integer array of one element on the device, read
    when the caller waits anyway).

    A pending u with H(u) ≠ u *waits on* H(u) when H(u) is pending and comes later
    (``key(u) > key(H(u))``). A pending u is mapped before its visit exactly when a vertex
    waiting on it is unmapped when visited, since l.11-12 map H(w) along with w; so the
    vertices nothing waits on are unmapped, and the others are decided in rounds, each
    deciding the vertices whose waiting in-neighbours are all decided
    (``d<U> = visit(Wᵀ, state)``, the row operator :data:`VISIT` over the matrix ``Wᵀ`` of
    waiting in-neighbours, built once). A vertex is decided in round 1 + the last round of
    its waiting in-neighbours (round 1 without any), and the rounds are those of the
    vertices with H(u) ≠ u, 0 when there are none; the cupy backend replays them as a CUDA
    graph (:meth:`~gbgraph.backends.base.Backend.iterate`). A vertex with H(u) = u is
    unmapped (it has no neighbour, so nothing waits on it)."""
    fused = be.fused("visit")
    if fused is not None:  # the cupy backend: the same result, each chain of H walked once
        return fused(H, keys.values, pending)
    xp = be.xp
    n = H.size
    if be.nvals(pending) == n:  # HEC's: every vertex, no scatter of its n indices
        visited = xp.ones(n, bool)
    else:
        visited = xp.zeros(n, bool)
        visited[be.indices(pending)] = True  # the structure of pending
    moving = visited & (H != xp.arange(n))  # pending, with a heavy neighbour
    waits = moving & visited[H]
    waits &= keys.values > keys.values[H]
    waiting = xp.flatnonzero(waits)
    target = H[waiting]
    indptr = xp.zeros(n + 1, xp.int64)
    xp.cumsum(waits, out=indptr[1:])
    W = be.matrix(indptr, target, copy=False)  # W(w, H(w)) for each w waiting on H(w)
    waited = be.transpose(W)  # Wᵀ: row u lists the vertices waiting on u
    state = visited.astype(xp.int64)  # CLAIMED 0 where not pending, UNCLAIMED 1 where nothing waits
    state[target] = UNDECIDED
    worklist = be.vector(xp.flatnonzero(state == UNDECIDED), xp.int64(UNDECIDED), n)  # U: what something waits on
    state = full_vector(be, state)

    def round_(worklist, r):  # state, full, is updated in place: a replayed round writes the same buffer
        d = be.mxv(VISIT, waited, state, mask=worklist)  # d<U> = visit(Wᵀ, state): l.11-13
        be.assign(state, d, mask=d)  # state<d> = d
        return (be.select("valueeq", d, UNDECIDED),)  # U = select(d == undecided)

    rounds = be.iterate(round_, (worklist,), first=1)[1] if bool(moving.any()) else 0  # rounds while U has entries
    return be.values(state) == UNCLAIMED, rounds  # state == unclaimed


def roots_and_labels(be, parent):
    """Pointer jumping to the root of every vertex ([1] Alg.5 l.17-21: ``p = p(p)``, a
    gather of the vector by its own values, until nothing changes), then the roots
    numbered in ascending order (l.22, FINDUNIQUEANDRELABEL: a scan over the roots and a
    gather). Returns (labels, count)."""
    xp = be.xp
    fused = be.fused("roots")
    if fused is not None:  # the cupy backend: each vertex follows its pointers, one host read (the count)
        labels, count = fused(parent)
        return labels, int(count)
    p = full_vector(be, parent)
    while True:
        q = be.extract(p, be.values(p))  # q = p(p)
        if not bool((be.values(q) != be.values(p)).any()):
            break
        p = q
    root = be.values(q)
    number = xp.cumsum(root == xp.arange(root.size))  # each root's rank among the roots, from 1
    labels = number[root]
    labels -= 1
    return labels, int(number[-1]) if root.size else 0


def hec(be, graph, A, keys):
    """[1] Algorithm 3 with the visiting order P of decreasing key: each vertex u still
    unmapped when visited joins the coarse vertex of its heaviest neighbour H(u), which is
    created if H(u) is unmapped. Returns (labels, count, rounds)."""
    xp = be.xp
    n = graph.n
    H = heavy_targets(be, A, keys, n)  # l.5-10: H(u), the heaviest neighbour
    free, rounds = visit_in_order(be, H, keys, be.full(n, True, "bool"))  # l.3-5: u unmapped when visited
    # l.14: M(u) = M(H(u)) where free; a vertex mapped before its visit is a root (l.12)
    parent = xp.where(free, H, xp.arange(n, dtype=xp.int64))
    labels, count = roots_and_labels(be, parent)
    return labels, count, int(rounds)


#: Rounds of HEC among the vertices an over-cap coarse vertex let go, after which those still
#: over stay on their own (each round keeps at least the root of every over-cap coarse vertex).
CAP_PASSES = 8


def capped_hec(be, graph, A, keys, weights, cap):
    """HEC with no coarse vertex heavier than ``cap`` (the vertex ``weights``, int64), save a
    single vertex that is. Jet's rule [2]_: a vertex at the cap neither joins nor is joined
    (Jet: 6× the mean weight). Then each coarse vertex over the cap keeps its members in
    order of depth in the HEC forest, then of visit, while their total fits (a connected
    subtree with the root); the rest run HEC among themselves, up to :data:`CAP_PASSES`
    times, then stay alone. Where no coarse vertex reaches the cap, this is :func:`hec`'s
    mapping. Returns (labels, count, rounds)."""
    xp = be.xp
    n = graph.n
    light = xp.flatnonzero(weights < cap)
    if light.size == n:  # the first pass is HEC's own (the same product and visit, no scatter)
        pending = be.full(n, True, "bool")
        H = heavy_targets(be, A, keys, n)  # l.5-10: H(u), the heaviest neighbour
    else:
        pending = be.vector(light, True, n)
        H = heavy_targets(be, A, keys, n, mask=pending, among=light)  # H<light> over the light vertices
    free, rounds = visit_in_order(be, H, keys, pending)  # l.3-5 over the light vertices
    parent = xp.where(free, H, xp.arange(n, dtype=xp.int64))  # l.14: M(u) = M(H(u)) where free
    for passes in range(CAP_PASSES + 1):
        labels, count = roots_and_labels(be, parent)
        released = _overflow(be, keys, parent, labels, count, weights, cap)
        if released.size == 0:
            return labels, count, int(rounds)
        parent[released] = released
        if passes == CAP_PASSES:  # the last ones over stay alone: a tree's root stays, its tail goes
            labels, count = roots_and_labels(be, parent)
            return labels, count, int(rounds)
        pending = be.vector(released, True, n)
        H = heavy_targets(be, A, keys, n, mask=pending, among=released)  # H<R> over R: HEC among the released
        free, more = visit_in_order(be, H, keys, pending)
        xp.copyto(parent, H, where=free)  # parent<free> = H
        rounds = rounds + more


def within_cap(be, labels, count, weights, cap):
    """Whether HEC's mapping is :func:`capped_hec`'s too: no vertex is at the cap (Jet's rule
    leaves none out) and no coarse vertex is over it."""
    if bool((weights >= cap).any()):
        return False
    return not bool((coarse_weights(be, labels, weights, count) > cap).any())


def coarse_weights(be, labels, weights, k):
    """``w_c = Pᵀ ⊕plus.second w``: the input vertices of each coarse vertex, the vector of
    size k built from the tuples (labels(i), w(i)) with their duplicates summed (every coarse
    vertex has a member, so it is full)."""
    return be.values(be.build(labels, weights, k, dup="plus"))  # w_c(labels(i)) += w(i)


def _overflow(be, keys, parent, labels, count, weights, cap):
    """The members to let go of the coarse vertices over ``cap``: in each, its members sorted
    by (depth, key descending), those past the longest prefix that fits (never the root, so
    a vertex heavier than the cap stays on its own). A prefix by depth holds each member's
    parent, so what stays is a subtree of the root. Sorted ids."""
    xp = be.xp
    members = xp.flatnonzero(coarse_weights(be, labels, weights, count)[labels] > cap)
    if members.size == 0:
        return members
    m = np.int64(members.size)
    depth = _depths(be, parent)[members]
    by_key = xp.empty(members.size, xp.int64)  # every sort key below is unique: one order on every device
    by_key[xp.argsort(keys.values[members])] = xp.arange(m - 1, -1, -1, dtype=xp.int64)  # 0: largest key
    within = xp.empty(members.size, xp.int64)
    within[xp.argsort(depth * m + by_key)] = xp.arange(m, dtype=xp.int64)
    order = members[xp.argsort(labels[members] * m + within)]
    w = weights[order]
    upto = xp.cumsum(w)
    first = xp.ones(order.size, bool)
    first[1:] = labels[order[1:]] != labels[order[:-1]]
    base = (upto - w)[xp.flatnonzero(first)]
    upto -= base[xp.cumsum(first) - 1]  # each coarse vertex's running total
    return xp.sort(order[(upto > cap) & ~first])


def _depths(be, parent):
    """Each vertex's distance to its root along ``parent``: pointer jumping with the
    distances summed (``d = d + d(p)``, ``p = p(p)``) until every pointer is a root."""
    xp = be.xp
    p = full_vector(be, parent)
    d = full_vector(be, (parent != xp.arange(parent.size)).astype(xp.int64))
    while True:
        q = be.extract(p, be.values(p))  # q = p(p)
        if not bool((be.values(q) != be.values(p)).any()):
            return be.values(d)
        d = be.ewise_add("plus", d, be.extract(d, be.values(p)))  # d = d + d(p)
        p = q


def hec3(be, graph, A, keys):
    """[1] Algorithm 5: mutual heavy neighbours pair up under the smaller id, every other
    heavy neighbour roots its own coarse vertex, the rest join theirs, and pointer jumping
    settles the chains. Returns (labels, count, rounds), one round."""
    xp = be.xp
    n = graph.n
    ids = xp.arange(n, dtype=xp.int64)
    H = heavy_targets(be, A, keys, n)  # l.1: H as in Alg.4
    twice = be.values(be.extract(full_vector(be, H), H))  # l.6-7: H(H(u))
    M = xp.where(twice == ids, xp.minimum(ids, H), -1)  # l.8: a mutual pair takes the smaller id
    source = xp.flatnonzero(H != ids)
    indegree = be.build(H[source], source, n, dup="max")  # Hᵀ ⊕max.second ids: an entry at every target
    targets = xp.zeros(n, bool)
    targets[be.indices(indegree)] = True  # l.9-12: a heavy neighbour of someone roots itself
    M = xp.where((M < 0) & targets, ids, M)
    M = xp.where(M < 0, M[H], M)  # l.13-16: the others join their heavy neighbour's
    labels, count = roots_and_labels(be, M)  # l.17-22
    return labels, count, 1

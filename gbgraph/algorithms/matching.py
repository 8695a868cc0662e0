"""Matchings for coarsening: heavy edge matching by rounds of mutual proposals, and
mt-Metis' two-hop matching of the vertices it leaves unmatched.

HEM follows Gilbert et al.'s Algorithm 2 [1]_ (a vertex matches its heaviest unmatched
neighbour) as synchronous rounds: every unmatched vertex proposes to its heaviest
unmatched neighbour (ties by key) and mutual proposals match. The two-hop matching is
LaSalle et al.'s [2]_ (leaves, twins, relatives), with mt-Metis' thresholds.

References
----------
.. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030
.. [2] D. LaSalle, M. M. A. Patwary, N. Satish, N. Sundaram, P. Dubey and G. Karypis,
   "Improving graph partitioning for modern graphs and architectures," IA3 2015.
   https://doi.org/10.1145/2833179.2833188
"""

from ..errors import StallError
from ..hashing import xorshift_star
from .heavy import full_vector, heavy_targets, roots_and_labels

__all__ = ["hem", "mtmetis", "LEAF_RATIO", "LEAF_DEGREE", "TWIN_DEGREE", "RELATIVE_DEGREE"]

#: mt-Metis' ``LEAF_MATCH_RATIO``: two-hop matching starts when more than this fraction of
#: the vertices is unmatched; relatives follow past 1.5 and 2 times it.
LEAF_RATIO = 0.25
#: mt-Metis' ``MAXDEG_LEAF`` and ``MAXDEG_TWIN``; relatives of degree up to
#: ``2 * MAXDEG_LEAF`` come first, then (METIS' last stage) those of any degree.
LEAF_DEGREE, TWIN_DEGREE, RELATIVE_DEGREE = 1, 64, 2


def hem(be, graph, A, keys):
    """[1] Algorithm 2 as rounds of mutual proposals. Returns (labels, count, rounds)."""
    mate, rounds = _match(be, graph, A, keys)
    labels, count = roots_and_labels(be, be.xp.minimum(mate, be.xp.arange(graph.n)))
    return labels, count, rounds


def _match(be, graph, A, keys):
    """The heavy edge matching: ``mate[u]`` is u's partner, u itself when unmatched.

    Each round, every free vertex u holds its proposal H(u), its heaviest free neighbour
    (``h<U> = A ⊕max.(W, key) key(F)`` over the free vertices F, l.6-10), and u and H(u)
    match when ``H(H(u)) = u`` (l.12-13). Among the heaviest free-free edges, the vertex of
    largest key and its best neighbour always propose to each other, so every round
    matches a pair; only proposals whose target matched are recomputed. The rounds stop
    when no free vertex has a free neighbour: the matching is maximal.
    """
    xp = be.xp
    n = graph.n
    ids = xp.arange(n, dtype=xp.int64)
    mate = ids.copy()
    target = heavy_targets(be, A, keys, n)  # H = A ⊕max.(W, key) key: [1] Alg.2 l.6-10
    rounds = 0
    while True:
        proposer = xp.flatnonzero(target != ids)
        if not proposer.size:
            return mate, rounds
        wanted = target[proposer]
        back = be.values(be.extract(full_vector(be, target), wanted))  # H(H(u)): whom the target wants
        mutual = proposer[back == proposer]  # l.12-13: u and H(u) choose each other
        if not mutual.size:
            raise StallError(f"heavy edge matching: a round with {proposer.size:,} proposals matched none")
        mate[mutual] = target[mutual]
        stale = proposer[mate[wanted] != wanted]  # a matched vertex or one whose choice is taken
        target[stale] = stale
        free = xp.flatnonzero(mate == ids)
        redo = stale[mate[stale] == stale]
        H = heavy_targets(be, A, keys, n, mask=be.vector(redo, True, n), among=free)  # H<redo> over F
        target[redo] = H[redo]
        rounds += 1


def mtmetis(be, graph, A, keys):
    """HEM, then [2]'s two-hop matching while too many vertices stay unmatched, with
    mt-Metis' thresholds: past ``LEAF_RATIO`` of the vertices, leaves (degree 1) sharing
    a neighbour, then twins (degree 2 to ``TWIN_DEGREE``, equal neighbour lists); past 1.5
    times it, relatives of degree up to ``RELATIVE_DEGREE`` sharing a neighbour; past twice
    it, relatives of any degree. Returns (labels, count, rounds)."""
    xp = be.xp
    n = graph.n
    mate, rounds = _match(be, graph, A, keys)
    pattern = be.adjacency(graph)
    degree = xp.diff(xp.asarray(graph.indptr))
    for factor, stage in ((1.0, "leaves"), (1.0, "twins"), (1.5, RELATIVE_DEGREE), (2.0, None)):
        if int((mate == xp.arange(n)).sum()) <= factor * LEAF_RATIO * n:
            continue
        if stage == "twins":
            mate = _twins(be, pattern, mate, keys, degree)
        else:
            mate, more = _relatives(be, pattern, mate, keys, degree, LEAF_DEGREE if stage == "leaves" else stage)
            rounds += more
    labels, count = roots_and_labels(be, xp.minimum(mate, xp.arange(n)))
    return labels, count, rounds


def _relatives(be, A, mate, keys, degree, most):
    """Pair unmatched vertices of degree 1 to ``most`` (None: any) that share a neighbour.

    Each round, ``c = A ⊕plus.pair E`` counts each vertex's eligible neighbours E; the
    vertices with ``c >= 2`` are pivots, ``p<E> = A ⊕max.second key(pivots)`` gives every
    eligible vertex its pivot of largest key, and the vertices of a pivot pair up by key
    (:func:`_pair_groups`). All eligible neighbours of the pivot of largest key choose it,
    so every round pairs two; the rounds stop when no two eligible vertices share a
    neighbour. Returns (mate, rounds).
    """
    xp = be.xp
    n = mate.size
    rounds = 0
    while True:
        free = (mate == xp.arange(n)) & (degree >= 1) & ((degree <= most) if most is not None else True)
        E = be.vector(xp.flatnonzero(free), True, n)
        c = be.mxv("plus_pair", A, E)  # c = A ⊕plus.pair E
        pivots = be.indices(be.select("valuege", c, 2))  # select(c >= 2)
        p = be.mxv("max_second", A, keys.vector(pivots), mask=E)  # p<E> = A ⊕max.second key(pivots)
        if not be.nvals(p):
            return mate, rounds
        pivot = be.vector(be.indices(p), keys.ids(be.values(p)), n)
        partner = _pair_groups(be, pivot, keys.vector(be.indices(p)))  # pairs around each pivot, by key
        mate[be.indices(partner)] = be.values(partner)
        rounds += 1


def _twins(be, A, mate, keys, degree):
    """Pair unmatched vertices of degree 2 to ``TWIN_DEGREE`` with equal neighbour lists.

    ``s<E> = A ⊕plus.second hash`` (a uint64 sum, so the order of the row does not
    matter) groups the eligible vertices E by neighbourhood; the members of a group pair
    up by key, and a pair stays only if its rows are equal, entry for entry (a sum can
    collide).
    """
    xp = be.xp
    n = mate.size
    ids = xp.arange(n, dtype=xp.int64)
    eligible = xp.flatnonzero((mate == ids) & (degree >= 2) & (degree <= TWIN_DEGREE))
    E = be.vector(eligible, True, n)
    s = be.mxv("plus_second", A, be.vector(ids, xorshift_star(ids, 64, xp), n), mask=E)  # s<E> = A ⊕plus.second hash
    partner = _pair_groups(be, s, keys.vector(eligible))  # pairs of equal sums, by key
    u, v = be.indices(partner), be.values(partner)
    equal = _same_rows(be, A, u, v, degree)
    mate[u[equal]] = v[equal]
    return mate


def _same_rows(be, A, u, v, degree):
    """Whether rows u[k] and v[k] of A hold the same columns: the pairs of equal degree,
    ``A(u, :)`` and ``A(v, :)`` compared entry by entry (rows are sorted)."""
    xp = be.xp
    same = degree[u] == degree[v]
    u, v = u[same], v[same]
    pu, cu, _ = be.to_csr(be.extract(A, u))  # A(u, :)
    _, cv, _ = be.to_csr(be.extract(A, v))  # A(v, :)
    owner = xp.repeat(xp.arange(u.size), xp.diff(pu))
    same[xp.flatnonzero(same)] = xp.bincount(owner[cu != cv], minlength=u.size) == 0
    return same


def _pair_groups(be, groups, keys):
    """Pairs inside groups: ``w(i) = j`` for the partner j of i, where the entries of
    ``groups`` with equal values form a group whose members pair up by decreasing key
    (first with second, third with fourth, ...; an odd last member gets no entry).

    A member's rank in its group is no semiring product, and GraphBLAS has no sort: a row
    operator over the group-by-member matrix would compare every member with every other
    (quadratic in a group's size: a star's leaves form one group), and rounds pairing each
    group's top two would take half the largest group's size. So this step is a stable
    sort by (group, decreasing key), array code on the backend's arrays, as
    python-graphblas leaves sorting to numpy. ``keys``: uint64, distinct, an entry at every
    position of ``groups``; returns an int64 vector.
    """
    xp = be.xp
    ids = be.indices(groups)
    group = be.values(groups)
    key = be.values(be.extract(keys, ids))
    by_key = _stable_argsort(xp, ~key)  # decreasing key
    order = by_key[_stable_argsort(xp, group[by_key])]
    ids, group = ids[order], group[order]
    first = xp.ones(ids.size, bool)
    first[1:] = group[1:] != group[:-1]
    start = xp.flatnonzero(first)
    rank = xp.arange(ids.size) - xp.repeat(start, xp.diff(xp.append(start, ids.size)))
    lead = xp.flatnonzero((rank % 2 == 0) & (xp.arange(ids.size) + 1 < ids.size))
    lead = lead[group[lead] == group[xp.minimum(lead + 1, ids.size - 1)]]
    members = xp.concatenate((ids[lead], ids[lead + 1]))
    partners = xp.concatenate((ids[lead + 1], ids[lead]))
    order = xp.argsort(members)
    return be.vector(members[order], partners[order], groups.size, copy=False)


def _stable_argsort(xp, x):
    """A stable argsort on numpy or CuPy (whose sorts are all stable and take no ``kind``)."""
    return xp.argsort(x, kind="stable") if xp.__name__ == "numpy" else xp.argsort(x)

"""GOSH's coarse mapping and Gilbert et al.'s GOSH/HEC hybrid.

GOSH [1]_ (Algorithm 15 of Gilbert et al.'s report [2]_, Kokkos Kernels'
``GOSH_clusters``) grows clusters around a maximal independent set of centres chosen by
decreasing degree, and never lets two vertices above the mean degree merge: an edge between
two of them does not count. The hybrid (Algorithm 16 of [2]_, Kokkos Kernels'
``coarsen_GOSH_v2``) roots every vertex above ``max(nnz / n, 50)`` neighbours, attaches the
vertices around them, and maps the rest by HEC. Both decide from the previous round's state
only and break ties by the project's hash, where the peers let threads race.

References
----------
.. [1] T. A. Akyildiz, A. A. Aljundi and K. Kaya, "GOSH: Embedding big graphs on small
   hardware," ICPP 2020. https://doi.org/10.1145/3404397.3404456
.. [2] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030
"""

from .heavy import heavy_targets, roots_and_labels, visit_in_order

__all__ = ["gosh", "gosh_hec", "hub_threshold", "HYBRID_THRESHOLD"]

#: The hybrid's least hub threshold (Kokkos Kernels' ``coarsen_GOSH_v2``).
HYBRID_THRESHOLD = 50

_OUT, _UNDECIDED, _CENTRE = 0, 1, 2  # the state field of GOSH's tuples, in their order


def hub_threshold(graph, least=0):
    """Degree above which a vertex is a hub: the mean degree ``nnz // n`` (integer, as
    Kokkos Kernels computes it), at least ``least``."""
    return max(graph.nnz // max(graph.n, 1), least)


def gosh(be, graph, A, keys):
    """GOSH's mapping: centres by rounds over (state, degree, key) tuples, each other vertex
    with its centre of largest degree. Returns (labels, count, rounds)."""
    xp = be.xp
    n = graph.n
    ids = xp.arange(n, dtype=xp.int64)
    degree = xp.diff(xp.asarray(graph.indptr))
    centres, rounds = _centres(be, A, keys, degree, degree > hub_threshold(graph))
    bits = max(1, int(degree.max()).bit_length())
    chosen = be.mxv("max_second", A, be.vector(centres, keys.led(centres, degree[centres], bits), n),
                    mask=be.vector(centres, True, n), complement=True)  # c<¬C> = A ⊕max.second (degree, key)(C)
    parent = ids.copy()
    parent[be.indices(chosen)] = keys.ids(be.values(chosen))
    labels, count = roots_and_labels(be, parent)
    return labels, count, rounds


def _centres(be, A, keys, degree, hub):
    """GOSH's independent set of centres (sorted ids) and its rounds.

    Each undecided vertex u takes the largest tuple (state, degree, key) of its closed
    neighbourhood, where a hub sees no other hub: ``m<U∩hubs> = A ⊕max.second t(¬hubs)``,
    ``m<U∖hubs> = A ⊕max.second t``. It becomes a centre when the maximum is its own, and
    leaves when the maximum's holder is a centre or becomes one in this round. The largest
    undecided tuple always decides, so rounds progress; every hub is a centre, since it
    sees only vertices of lower degree.
    """
    xp = be.xp
    n = degree.size
    bits = max(1, int(degree.max()).bit_length()) + 2
    ids = xp.arange(n, dtype=xp.int64)
    state = xp.full(n, _UNDECIDED, xp.int64)
    t = keys.led(ids, (state << (bits - 2)) | degree, bits)
    undecided = ids
    low = xp.flatnonzero(~hub)
    rounds = 0
    while undecided.size:
        on_hub = hub[undecided]
        m_hub = be.mxv("max_second", A, be.vector(low, t[low], n), mask=be.vector(undecided[on_hub], True, n))
        m_low = be.mxv("max_second", A, be.vector(ids, t, n), mask=be.vector(undecided[~on_hub], True, n))
        m = be.ewise_add("max", m_hub, m_low)  # m<U> = A ⊕max.second t, hubs seeing no hub
        best = t.copy()  # closed neighbourhoods: the vertex's own tuple
        best[be.indices(m)] = xp.maximum(best[be.indices(m)], be.values(m))
        holder = keys.ids(best[undecided])
        centre = state == _CENTRE
        centre[undecided[holder == undecided]] = True  # the maximum is its own: a centre
        state[undecided] = xp.where(holder == undecided, _CENTRE, xp.where(centre[holder], _OUT, _UNDECIDED))
        t[undecided] = keys.led(undecided, (state[undecided] << (bits - 2)) | degree[undecided], bits)
        undecided = undecided[state[undecided] == _UNDECIDED]
        rounds += 1
    return xp.flatnonzero(state == _CENTRE), rounds


def gosh_hec(be, graph, A, keys):
    """[2] Algorithm 16: hubs (degree above ``max(nnz // n, 50)``) root their own coarse
    vertices; the vertices next to a mapped one join it in three steps (heaviest edge,
    largest degree, heaviest edge, each from the previous step's snapshot); the rest are
    mapped by HEC, with the mapped vertices as they are. Returns (labels, count, rounds)."""
    xp = be.xp
    n = graph.n
    ids = xp.arange(n, dtype=xp.int64)
    degree = xp.diff(xp.asarray(graph.indptr))
    bits = max(1, int(degree.max()).bit_length()) if n else 1
    mapped = degree > hub_threshold(graph, HYBRID_THRESHOLD)  # hubs: coarse vertices of their own
    parent = ids.copy()
    pattern = be.adjacency(graph)
    for step in ("weight", "degree", "weight"):
        rows = be.vector(xp.flatnonzero(~mapped), True, n)
        among = xp.flatnonzero(mapped)
        if step == "weight":  # the heaviest edge to a mapped vertex
            target = heavy_targets(be, A, keys, n, mask=rows, among=among)
        else:  # c<¬mapped> = A ⊕max.second (degree, key)(mapped): the mapped neighbour of largest degree
            c = be.mxv("max_second", pattern, be.vector(among, keys.led(among, degree[among], bits), n), mask=rows)
            target = ids.copy()
            target[be.indices(c)] = keys.ids(be.values(c))
        joined = xp.flatnonzero(target != ids)
        parent[joined] = target[joined]
        mapped[joined] = True
    remaining = xp.flatnonzero(~mapped)
    H = heavy_targets(be, A, keys, n, mask=be.vector(remaining, True, n))  # H over every neighbour
    free, rounds = visit_in_order(be, H, keys, be.vector(remaining, True, n))  # HEC on the rest, prefilled mapped
    xp.copyto(parent, H, where=free)  # parent<free> = H
    labels, count = roots_and_labels(be, parent)
    return labels, count, int(rounds)

"""Slow oracles written independently of gbgraph's algorithms and backends.

``kokkos_d2_mis`` transcribes Kokkos Kernels' ``D2_MIS_RandomPriority::compute``
(graph/impl/KokkosGraph_Distance2MIS_impl.hpp, Kokkos Kernels 4.x) functor by functor, in
its own encoding: OUT_SET is the all-ones status, and a column whose minimum is IN_SET
becomes OUT_SET. The hash is recomputed here from its C++ definition with Python integers.
``kokkos_d2_mis_fixed`` transcribes ``D2_MIS_FixedPriority`` (``MIS2_QUALITY``) the same
way, its float32 arithmetic with numpy float32 scalars.

The MIS family's other oracles work on plain Python lists: statuses from the papers'
formulas (``hashed_status``, ``ecl_statuses``), the greedy set in a fixed order
(``greedy_mis``, which a fixed-priority parallel MIS must equal), and synchronous rounds
that take the minimum over each distance-k ball by breadth-first search
(``synchronous_mis``).
"""

import numpy as np
import scipy.sparse as sp

_M64 = 2**64 - 1


def xorshift_hash(v, bits, star=True):
    """KokkosKernels::Impl::xorshiftHash<uint32_t or uint64_t>, on a Python int.

    ``star=False`` leaves out the multiplication: Table I's "Xor hash" of Kelley &
    Rajamanickam (IPDPS 2022).
    """
    x = v & _M64
    x ^= x >> 12
    x = (x ^ (x << 25)) & _M64
    x ^= x >> 27
    y = (x * 2685821657736338717 - 1) & _M64 if star else x
    return (y >> 16) & 0xFFFFFFFF if bits == 32 else y


def kokkos_d2_mis(A, bits=32, candidates=None):
    """(sorted vertex ids, rounds) of Kokkos Kernels' MIS2_FAST on the pattern of A.

    ``candidates`` (vertex ids) gives ``compute(mask)``: the others start OUT_SET.
    """
    A = sp.csr_array(A)
    n = A.shape[0]
    rowmap, entries = A.indptr, A.indices
    status_max = 2**bits - 1
    IN_SET, OUT_SET = 0, status_max
    nv_bits = (n + 1).bit_length()
    row_status = [0 if candidates is None else OUT_SET] * n
    col_status = [0] * n
    row_wl = list(range(n)) if candidates is None else sorted(set(int(c) for c in candidates))
    col_wl = list(range(n))
    rounds = 0
    if not row_wl:
        return np.zeros(0, np.int64), 0
    while True:
        hashed_round = xorshift_hash(rounds, bits)
        for i in row_wl:  # RefreshRowStatus
            priority = xorshift_hash(xorshift_hash(i, bits) ^ hashed_round, bits)
            status = ((i + 1) | (priority << nv_bits)) & status_max
            row_status[i] = status - 1 if status == OUT_SET else status
        for i in col_wl:  # RefreshColStatus
            s = row_status[i]
            for nei in entries[rowmap[i]:rowmap[i + 1]]:
                if nei != i:
                    s = min(s, row_status[nei])
            col_status[i] = OUT_SET if s == IN_SET else s
        for i in row_wl:  # DecideSetFunctor
            s = row_status[i]
            nei_out = mismatch = False
            for nei in list(entries[rowmap[i]:rowmap[i + 1]]) + [i]:
                if col_status[nei] == OUT_SET:
                    nei_out = True
                    break
                if col_status[nei] != s:
                    mismatch = True
            if nei_out:
                row_status[i] = OUT_SET
            elif not mismatch:
                row_status[i] = IN_SET
        rounds += 1
        row_wl = [i for i in row_wl if row_status[i] not in (IN_SET, OUT_SET)]
        if not row_wl:
            break
        col_wl = [i for i in col_wl if col_status[i] not in (IN_SET, OUT_SET)]
    return np.array([i for i in range(n) if row_status[i] == IN_SET], np.int64), rounds


def within_distance(A, k):
    """Dense boolean matrix: True where a path of at most k edges joins i and j (i != j)."""
    import networkx as nx

    G = nx.from_scipy_sparse_array(sp.csr_array(A))
    n = G.number_of_nodes()
    near = np.zeros((n, n), bool)
    for source, lengths in nx.all_pairs_shortest_path_length(G, cutoff=k):
        for target in lengths:
            near[source, target] = source != target
    return near


def kokkos_mis2_aggregate(A, secondary=True):
    """(labels, n_aggregates) of Kokkos Kernels' graph_mis2_aggregate (secondary=True) or
    graph_mis2_coarsen (False): D2_MIS_Aggregation::compute, functor by functor, on the CSR
    with rows sorted by column (what the issue's label-for-label contract assumes)."""
    A = sp.csr_array(A).sorted_indices()
    n = A.shape[0]
    row = [A.indices[A.indptr[i]:A.indptr[i + 1]].tolist() for i in range(n)]
    labels, roots = [-1] * n, [False] * n
    m1, _ = kokkos_d2_mis(A)
    for agg, root in enumerate(m1.tolist()):  # Phase1Functor
        roots[root] = True
        labels[root] = agg
        for nei in row[root]:
            labels[nei] = agg
    n_aggs = len(m1)
    if secondary:
        m2, _ = kokkos_d2_mis(A, candidates=[i for i in range(n) if labels[i] == -1])
        sizes = [1 + sum(1 for nei in row[r] if nei != r and labels[nei] == -1) for r in m2.tolist()]
        new = 0
        for r, size in zip(m2.tolist(), sizes):  # ChoosePhase2AggsFunctor (a scan)
            if size < 3:
                continue
            labels[r] = n_aggs + new
            roots[r] = True
            for nei in row[r]:
                if nei != r and labels[nei] == -1:
                    labels[nei] = n_aggs + new
            new += 1
        n_aggs += new
    old = labels[:]  # aggregateLeftovers
    agg_sizes = [0] * n_aggs
    for a in old:
        if a != -1:
            agg_sizes[a] += 1
    conn = [sum(1 for nei in row[i] if nei != i and old[nei] == old[i]) if old[i] != -1 else 0 for i in range(n)]
    for i in range(n):  # AssignLeftoverFunctor
        agg = old[i]
        if roots[i]:
            labels[i] = agg
            continue
        tracked, connect, root_adj = [], [], []
        for nei in row[i]:
            if nei == i:
                continue
            nei_agg = old[nei]
            if nei_agg == -1 or nei_agg == agg:
                continue
            if nei_agg in tracked:
                k = tracked.index(nei_agg)
            elif len(tracked) < 8:
                k = len(tracked)
                tracked.append(nei_agg)
                connect.append(0)
                root_adj.append(0)
            else:
                break
            if roots[nei]:
                root_adj[k] = 1
            connect[k] += 1
        best_root, best_agg, best_conn = (1 if agg >= 0 else 0), agg, conn[i]
        best_size = agg_sizes[agg] if agg >= 0 else 0
        for k, a in enumerate(tracked):
            s = agg_sizes[a]
            if root_adj[k] > best_root or (root_adj[k] == best_root and (
                    connect[k] > best_conn or (connect[k] == best_conn and s < best_size))):
                best_root, best_conn, best_size, best_agg = root_adj[k], connect[k], s, a
        labels[i] = best_agg
    return np.array(labels, np.int64), n_aggs


def _neighbours(A):
    A = sp.csr_array(A)
    return [[int(j) for j in A.indices[A.indptr[i]:A.indptr[i + 1]] if j != i] for i in range(A.shape[0])]


def _ball(adj, v, k):
    """Vertices within k edges of v, v included (breadth-first search)."""
    seen, frontier = {v}, [v]
    for _ in range(k):
        frontier = [w for u in frontier for w in adj[u] if w not in seen]
        seen.update(frontier)
    return seen


def hashed_status(i, r, n, bits, star=True):
    """Status of undecided vertex i in round r: Kokkos Kernels' RefreshRowStatus."""
    nv = (n + 1).bit_length()
    priority = xorshift_hash(xorshift_hash(i, bits, star) ^ xorshift_hash(r, bits, star), bits, star)
    status = ((i + 1) | (priority << nv)) & (2**bits - 1)
    return status - 1 if status == 2**bits - 1 else status


def ecl_statuses(A):
    """ECL-MIS's priorities (Burtscher et al. 2018, section 3) as (p << nv) | (i + 1), lower
    first: p = 126 - round(126 * d_avg / (d_avg + d - rand)), rand = f32(i) / 2**32."""
    adj = _neighbours(A)
    n = len(adj)
    nv = (n + 1).bit_length()
    average = sum(map(len, adj)) / n if n else 0.0
    statuses = []
    for i, nbrs in enumerate(adj):
        p = 0
        if nbrs:
            x = len(nbrs) - xorshift_hash(i, 32) / 2**32
            p = 126 - round(126 * average / (average + x))
        statuses.append((p << nv) | (i + 1))
    return statuses


def kokkos_quality_statuses(A, bits, clamp):
    """D2_MIS_FixedPriority::InitRowStatus; float32 as in C++.

    ``clamp=False`` is Kokkos Kernels literally, including the unsigned wrap-around of the
    shifted score. All-equal degrees (Kokkos Kernels: 0 * inf) give score 0 here.
    """
    adj = _neighbours(A)
    n = len(adj)
    nv = (n + 1).bit_length()
    deg_bits = bits - nv
    degrees = [len(a) for a in adj]
    if deg_bits == 0:
        return [i + 1 for i in range(n)]
    max_deg_range = ((1 << deg_bits) - 2) % 2**bits
    low, high = min(degrees), max(degrees)
    statuses = []
    for i in range(n):
        score = 0
        if high > low:
            inv = np.float32(1) / np.float32(high - low)
            deg_score = np.float32(degrees[i] - low) * inv
            score = int(deg_score * np.array(max_deg_range, np.uint64).astype(np.float32))
            if clamp:
                score = min(score, max_deg_range)
        statuses.append(((i + 1) + (score << nv)) % 2**bits)
    return statuses


def kokkos_d2_mis_fixed(A, statuses, bits=32):
    """(sorted ids, iterations) of D2_MIS_FixedPriority::compute with the given row statuses."""
    A = sp.csr_array(A)
    n = A.shape[0]
    adj = _neighbours(A)
    IN_SET, OUT_SET = 0, 2**bits - 1
    row = list(statuses)
    col = [min([row[i]] + [row[j] for j in adj[i]]) for i in range(n)]  # InitColStatus
    worklist, iterations = list(range(n)), 0
    while worklist:
        update = set()
        for i in worklist:  # IterateStatusFunctor
            s = row[i]
            out = any(col[j] == OUT_SET for j in adj[i] + [i])
            mismatch = any(col[j] != s for j in adj[i] + [i])
            if out:
                row[i] = OUT_SET
            elif not mismatch:
                row[i] = IN_SET
            if out or not mismatch:
                update.update(j for j in adj[i] + [i] if col[j] == s)
        for c in sorted(update):  # RefreshColStatus
            m = min([row[c]] + [row[j] for j in adj[c]])
            col[c] = OUT_SET if m == IN_SET else m
        worklist = [i for i in worklist if row[i] not in (IN_SET, OUT_SET)]
        iterations += 1
    return np.array([i for i in range(n) if row[i] == IN_SET], np.int64), iterations


def greedy_mis(A, order, k=1):
    """The distance-k MIS that visits vertices in ``order`` and keeps each one still free."""
    adj = _neighbours(A)
    blocked, chosen = set(), []
    for v in order:
        if v not in blocked:
            chosen.append(v)
            blocked |= _ball(adj, v, k)
    return np.array(sorted(chosen), np.int64)


def synchronous_mis(A, k, status):
    """(sorted ids, rounds) of synchronous rounds with ball minima found by search.

    Round r gives each undecided vertex i the status ``status(i, r)``; IN is below and OUT
    above every status. A vertex whose status is the least in its distance-k ball joins,
    and one with an IN vertex in that ball leaves. Each decision is seen by the others in
    the next round.
    """
    adj = _neighbours(A)
    n = len(adj)
    IN, OUT = -1, float("inf")
    T = [OUT] * n
    balls = [_ball(adj, v, k) for v in range(n)]
    undecided, rounds = list(range(n)), 0
    while undecided:
        for v in undecided:
            T[v] = status(v, rounds)
        least = {v: min(T[w] for w in balls[v]) for v in undecided}
        for v in undecided:
            if least[v] == IN:
                T[v] = OUT
            elif least[v] == T[v]:
                T[v] = IN
        undecided = [v for v in undecided if T[v] not in (IN, OUT)]
        rounds += 1
    return np.array([v for v in range(n) if T[v] == IN], np.int64), rounds


# ---- coloring ---------------------------------------------------------------------------
# Transcriptions of the coloring papers' listings with Python loops, and the priorities of
# docs/coloring.md recomputed from their definition with Python integers.


def coloring_keys(A, seed=0, field=None, bits=None):
    """Priority keys of docs/coloring.md: ``h << nv | (i + 1)``, or led by ``field``."""
    n = sp.csr_array(A).shape[0]
    nv = (n + 1).bit_length()
    keys = []
    for i in range(n):
        h = xorshift_hash(xorshift_hash(i, 64) ^ xorshift_hash(seed, 64), 64) % 2 ** (64 - nv)
        if field is None:
            keys.append(h * 2**nv + i + 1)
        else:
            keys.append(int(field[i]) * 2 ** (64 - bits) + (h >> bits) * 2**nv + i + 1)
    return keys


def neighbour_lists(A, distance=1):
    """For each vertex, the other vertices within ``distance`` (sorted lists)."""
    A = sp.csr_array(A)
    near = [set(A.indices[A.indptr[i]:A.indptr[i + 1]].tolist()) - {i} for i in range(A.shape[0])]
    if distance == 2:
        near = [set().union(s, *(near[j] for j in s)) - {i} for i, s in enumerate(near)]
    return [sorted(s) for s in near]


def che_base_coloring(A, keys, distance=1):
    """(colors, rounds) of Che et al.'s Algorithm 1 (BASECOLORING), round r coloring with r.

    For distance 2, the neighbour lists are the vertices within two edges."""
    near = neighbour_lists(A, distance)
    n = len(near)
    color = [-1] * n
    cur_color = 0
    while -1 in color:
        max_array = {}
        for i in range(n):
            if color[i] == -1:
                best = -1
                for j in near[i]:
                    if color[j] == -1 and keys[j] > best:
                        best = keys[j]
                max_array[i] = best
        for i in max_array:
            if keys[i] > max_array[i]:
                color[i] = cur_color
        cur_color += 1
    return np.array(color, np.int64), cur_color


def che_hybrid_coloring(A, degree_keys, random_keys, degree_bits, degree_rounds=None):
    """(colors, rounds) of Che et al.'s Algorithm 3 (HYBRID), colors numbered without gaps.

    DEGREECOLORING compares ``degree_keys >> (64 - degree_bits)`` (the degree) with the
    uncolored neighbours' and needs it strictly larger; an empty round or ``degree_rounds``
    rounds switch to BASECOLORING with ``random_keys``.
    """
    near = neighbour_lists(A)
    n = len(near)
    degree = [k >> (64 - degree_bits) for k in degree_keys]
    color = [-1] * n
    rounds = n_colors = 0
    by_degree = degree_rounds != 0
    while -1 in color:
        keys = degree if by_degree else random_keys
        winners = [i for i in range(n) if color[i] == -1
                   and all(color[j] != -1 or keys[j] < keys[i] for j in near[i])]
        for i in winners:
            color[i] = n_colors
        n_colors += bool(winners)
        rounds += 1
        if by_degree and (not winners or rounds == degree_rounds):
            by_degree = False
    return np.array(color, np.int64), rounds


def sequential_greedy_coloring(A, keys, distance=1):
    """Greedy first-fit coloring visiting vertices by decreasing key."""
    near = neighbour_lists(A, distance)
    color = [-1] * len(near)
    for i in sorted(range(len(near)), key=lambda v: -keys[v]):
        used = {color[j] for j in near[i]}
        c = 0
        while c in used:
            c += 1
        color[i] = c
    return np.array(color, np.int64)


def speculative_greedy_coloring(A, keys, distance=1, tail=32):
    """(colors, rounds) of gbgraph's greedy: synchronous speculative first-fit rounds, a
    sequential finish by decreasing key once a round colors under 1/tail of what is left,
    then Culberson's recoloring of the classes, the highest color first."""
    near = neighbour_lists(A, distance)
    n = len(near)
    color = [-1] * n
    left = set(range(n))
    rounds = 0

    def first_fit(i):
        used = {color[j] for j in near[i]}
        c = 0
        while c in used:
            c += 1
        return c

    while left:
        tentative = {i: first_fit(i) for i in left}
        won = [i for i in left if not any(j in left and tentative[j] == tentative[i] and keys[j] > keys[i]
                                          for j in near[i])]
        for i in won:
            color[i] = tentative[i]
        left -= set(won)
        rounds += 1
        if left and len(won) * tail < len(left):
            for i in sorted(left, key=lambda v: -keys[v]):
                color[i] = first_fit(i)
            left = set()
    recolored = [-1] * n
    for i in sorted(range(n), key=lambda v: (-color[v], v)):
        used = {recolored[j] for j in near[i]}
        c = 0
        while c in used:
            c += 1
        recolored[i] = c
    return np.array(recolored, np.int64), rounds


def mis_peeling_coloring(A, seed=0):
    """(colors, rounds): color k is the random-permutation MIS of the uncolored vertices,
    found in rounds, with keys led by (max degree - degree among the uncolored)."""
    near = neighbour_lists(A)
    n = len(near)
    max_degree = max((len(s) for s in near), default=0)
    bits = max(1, max_degree.bit_length())
    color = [-1] * n
    rounds = k = 0
    while -1 in color:
        left = {i for i in range(n) if color[i] == -1}
        field = [max_degree - len([j for j in near[i] if j in left]) for i in range(n)]
        keys = coloring_keys(A, seed, field, bits)
        undecided = set(left)
        while undecided:
            joined = {i for i in undecided if all(j not in undecided or keys[j] < keys[i] for j in near[i])}
            for i in joined:
                color[i] = k
            undecided -= joined | {j for i in joined for j in near[i]}
            rounds += 1
        k += 1
    return np.array(color, np.int64), rounds


# ---- Gauss-Seidel -----------------------------------------------------------------------


def cluster_gauss_seidel_reference(A, b, labels, cluster_colors, symmetric, sweeps):
    """Kelley and Rajamanickam's Algorithm 4 as written: for each color, for each cluster of
    that color, for each row of the cluster (ascending; descending in the backward sweep of
    the symmetric variant), ``x_i = (b_i - sum_{j != i} A_ij x_j) / A_ii``; from x = 0.

    Point multicolor Gauss-Seidel is the case of one row per cluster."""
    A = sp.csr_array(A)
    n = A.shape[0]
    clusters = {}
    for i in range(n):
        clusters.setdefault(int(labels[i]), []).append(i)
    by_color = {}
    for c in sorted(clusters):
        by_color.setdefault(int(cluster_colors[c]), []).append(c)
    x = [0.0] * n

    def update(i):
        s = b[i]
        for k in range(A.indptr[i], A.indptr[i + 1]):
            if A.indices[k] != i:
                s -= A.data[k] * x[A.indices[k]]
        x[i] = s / A[i, i]

    for _ in range(sweeps):
        for colour in sorted(by_color):
            for c in by_color[colour]:
                for i in clusters[c]:
                    update(i)
        if symmetric:
            for colour in sorted(by_color, reverse=True):
                for c in by_color[colour]:
                    for i in reversed(clusters[c]):
                        update(i)
    return np.array(x)


# ---- coarse mappings (Gilbert et al., IPDPS 2021) -----------------------------------------

def mapping_keys(n, seed=0):
    """gbgraph's vertex keys for the coarse mappings: the 64-bit hashed status of vertex v
    in round ``seed``, ``hash << nv | (v + 1)`` (distinct; larger keys come first)."""
    return [hashed_status(v, seed, n, 64) for v in range(n)]


def _weighted_lists(A):
    """Neighbour lists {v: weight} of each vertex, diagonal dropped, a pattern weighing 1."""
    A = sp.csr_array(A)
    values = np.ones(A.nnz) if A.dtype == bool else A.data
    lists = [{} for _ in range(A.shape[0])]
    for u in range(A.shape[0]):
        for p in range(A.indptr[u], A.indptr[u + 1]):
            v = int(A.indices[p])
            if v != u:
                lists[u][v] = lists[u].get(v, 0.0) + float(values[p])
    return lists


def sequential_hec(A, keys):
    """Gilbert et al.'s Algorithm 3 line by line, visiting the vertices by decreasing key
    (P); the heaviest neighbour is the v of largest (W(u, v), key(v)), and a vertex without
    neighbours is its own (the paper assumes none). Returns M with ids 0 .. n_c - 1."""
    adj = _weighted_lists(A)
    n = len(adj)
    P = sorted(range(n), key=lambda v: -keys[v])  # l.1
    M, nc = [-1] * n, 0  # l.2
    for u in P:  # l.3-4
        if M[u] < 0:  # l.5
            x = max(adj[u], key=lambda v: (adj[u][v], keys[v]), default=u)  # l.6-10
            if M[x] < 0:  # l.11
                M[x] = nc  # l.12
                nc += 1  # l.13
            M[u] = M[x]  # l.14
    return M


def sequential_hem(A, keys):
    """Gilbert et al.'s Algorithm 2 line by line, with line 4's next vertex u taken as an
    endpoint of the heaviest remaining edge between unmatched vertices (edges ordered by
    (W, larger key, smaller key)); then l.6-10's heaviest unmatched neighbour of u is the
    other endpoint. This is the order in which Algorithm 2 gives a locally dominant
    matching, the one that rounds of mutual heaviest proposals reach. Unmatched vertices
    left at the end become singletons (l.13). Returns M with ids 0 .. n_c - 1."""
    adj = _weighted_lists(A)
    n = len(adj)
    M, nc = [-1] * n, 0  # l.2
    edges = sorted(((w, max(keys[u], keys[v]), min(keys[u], keys[v]), u, v) for u in range(n) for v, w in adj[u].items()),
                   reverse=True)
    for _, _, _, u, v in edges:  # l.3-4: u, an endpoint of the heaviest edge left between unmatched vertices
        if M[u] < 0 and M[v] < 0:  # l.5
            free = [v for v in adj[u] if M[v] < 0]
            if free:  # l.6-10: the heaviest unmatched neighbour, ties to the larger key
                x = max(free, key=lambda v: (adj[u][v], keys[v]))
                M[x] = M[u] = nc  # l.12-13
                nc += 1  # l.14
    for u in range(n):
        if M[u] < 0:  # no unmatched neighbour: a singleton
            M[u], nc = nc, nc + 1
    return M


def same_partition(a, b):
    """Whether two labelings group the vertices alike (ids may differ)."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    pairs = set(zip(a.tolist(), b.tolist()))
    return len(pairs) == len(set(a.tolist())) == len(set(b.tolist()))

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

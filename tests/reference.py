"""Slow oracles written independently of gbgraph's algorithms and backends.

``kokkos_d2_mis`` transcribes Kokkos Kernels' ``D2_MIS_RandomPriority::compute``
(graph/impl/KokkosGraph_Distance2MIS_impl.hpp, Kokkos Kernels 4.x) functor by functor, in
its own encoding: OUT_SET is the all-ones status, and a column whose minimum is IN_SET
becomes OUT_SET. The hash is recomputed here from its C++ definition with Python integers.
"""

import numpy as np
import scipy.sparse as sp

_M64 = 2**64 - 1


def xorshift_hash(v, bits):
    """KokkosKernels::Impl::xorshiftHash<uint32_t or uint64_t>, on a Python int."""
    x = v & _M64
    x ^= x >> 12
    x = (x ^ (x << 25)) & _M64
    x ^= x >> 27
    y = (x * 2685821657736338717 - 1) & _M64
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

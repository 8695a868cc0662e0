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

"""Coarse mappings (gg.coarse_mapping), checked by their properties and against slow
sequential transcriptions of Gilbert et al.'s Algorithms 2 and 3 (tests/reference.py)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from scipy.sparse.csgraph import connected_components

import gbgraph as gg
from gbgraph.generators import laplace3d

from conftest import backend_params, real_graph, shared_graphs
from reference import mapping_keys, same_partition, sequential_hec, sequential_hem
from strategies import graphs

METHODS = ["hec", "hec3", "hem", "mtmetis", "gosh", "gosh_hec", "mis2", "mis2_basic"]
WEIGHTED = ["hec", "hec3", "hem", "mtmetis", "gosh_hec"]
PAIRS = ["hem", "mtmetis"]


@st.composite
def weighted_graphs(draw, max_weight=4):
    """A hypothesis graph with small integer weights (ties are frequent), or its pattern."""
    A = sp.csr_array(draw(graphs()))
    if draw(st.booleans()):
        return A
    upper = sp.triu(A, 1).tocoo()
    w = np.array(draw(st.lists(st.integers(1, max_weight), min_size=upper.nnz, max_size=upper.nnz)), float)
    W = sp.coo_array((w, (upper.row, upper.col)), shape=A.shape)
    return sp.csr_array(W + W.T)


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


def _lists(A):
    A = sp.csr_array(A)
    return A.indptr, A.indices, (np.ones(A.nnz) if A.dtype == bool else A.data)


def heavy_neighbours(A, seed=0):
    """H(u): the neighbour of largest (W(u, v), key(v)); u itself without neighbours."""
    indptr, indices, values = _lists(A)
    keys = mapping_keys(A.shape[0], seed)
    H = np.arange(A.shape[0])
    for u in range(A.shape[0]):
        row = [(values[p], keys[indices[p]], indices[p]) for p in range(indptr[u], indptr[u + 1]) if indices[p] != u]
        if row:
            H[u] = max(row)[2]
    return H


def assert_is_mapping(A, m):
    labels = _host(m.labels)
    assert labels.dtype == np.int64 and labels.shape == (A.shape[0],)
    assert m.n_coarse == (int(labels.max()) + 1 if labels.size else 0)
    assert np.array_equal(np.unique(labels), np.arange(m.n_coarse)), "labels must be 0 .. n_coarse - 1"
    return labels


def assert_pairs(A, labels, adjacent):
    """Groups of one or two vertices; a pair adjacent, or (two-hop) sharing a neighbour."""
    counts = np.bincount(labels)
    assert counts.max(initial=0) <= 2, f"a group of {counts.max()} vertices"
    A = sp.csr_array(A).astype(bool)
    order = np.argsort(labels, kind="stable")
    pairs = order[np.repeat(counts, counts) == 2].reshape(-1, 2)  # sorted labels: each pair's two vertices
    for u, v in pairs:
        if A[u, v]:
            continue
        assert not adjacent, f"matched vertices {u} and {v} are not adjacent"
        shared = np.intersect1d(A.indices[A.indptr[u]:A.indptr[u + 1]], A.indices[A.indptr[v]:A.indptr[v + 1]])
        assert shared.size, f"paired vertices {u} and {v} are neither adjacent nor share a neighbour"


def assert_maximal(A, labels):
    """No edge joins two unmatched vertices."""
    single = np.bincount(labels)[labels] == 1
    C = sp.coo_array(A)
    off = C.row != C.col
    assert not np.any(single[C.row[off]] & single[C.col[off]]), "two adjacent vertices are both unmatched"


def assert_connected_by_heavy_edges(A, labels, H):
    """Each group is connected through edges (u, H(u)) inside it."""
    n = labels.size
    u = np.arange(n)
    keep = (H != u) & (labels[H] == labels)
    G = sp.coo_array((np.ones(int(keep.sum())), (u[keep], H[keep])), shape=(n, n))
    pieces, which = connected_components(G, directed=False)
    assert pieces == labels.max(initial=-1) + 1, "a group is not connected through heavy edges"


def degrees(A):
    C = sp.coo_array(A)
    return np.bincount(C.row[C.row != C.col], minlength=A.shape[0])


@pytest.mark.parametrize("method", METHODS)
@given(A=weighted_graphs())
def test_every_vertex_mapped_to_contiguous_labels(method, A):
    assert_is_mapping(A, gg.coarse_mapping(A, method))


@given(A=weighted_graphs(), seed=st.integers(0, 3))
def test_hec_is_algorithm_3_in_key_order(A, seed):
    labels = assert_is_mapping(A, gg.coarse_mapping(A, "hec", seed=seed))
    assert same_partition(labels, sequential_hec(A, mapping_keys(A.shape[0], seed)))


@pytest.mark.parametrize("method", ["hec", "hec3"])
@given(A=weighted_graphs())
def test_hec_groups_are_connected_through_heavy_edges(method, A):
    labels = assert_is_mapping(A, gg.coarse_mapping(A, method))
    assert_connected_by_heavy_edges(A, labels, heavy_neighbours(A))


@given(A=weighted_graphs(), seed=st.integers(0, 3))
def test_hem_is_maximal_heavy_matching_of_algorithm_2(A, seed):
    labels = assert_is_mapping(A, gg.coarse_mapping(A, "hem", seed=seed))
    assert_pairs(A, labels, adjacent=True)
    assert_maximal(A, labels)
    assert same_partition(labels, sequential_hem(A, mapping_keys(A.shape[0], seed)))


@given(A=weighted_graphs())
def test_mtmetis_pairs_are_one_or_two_hops(A):
    labels = assert_is_mapping(A, gg.coarse_mapping(A, "mtmetis"))
    assert_pairs(A, labels, adjacent=False)
    hem = _host(gg.coarse_mapping(A, "hem").labels)
    assert np.bincount(labels).size <= np.bincount(hem).size, "two-hop matching only merges more"


def test_mtmetis_matches_leaves_and_twins_that_hem_cannot():
    n = 12  # a star: HEM matches the centre with one leaf, two-hop matching pairs the others
    star = sp.csr_array((np.ones(n - 1), (np.zeros(n - 1, np.int64), np.arange(1, n))), shape=(n, n))
    star = star + star.T
    assert gg.coarse_mapping(star, "hem").n_coarse == n - 1
    labels = assert_is_mapping(star, gg.coarse_mapping(star, "mtmetis"))
    assert_pairs(star, labels, adjacent=False)
    assert gg.coarse_mapping(star, "mtmetis").n_coarse == n // 2
    # K_{2,8}: two hubs, eight twins with the same two neighbours
    K = sp.csr_array(np.block([[np.zeros((2, 2)), np.ones((2, 8))], [np.ones((8, 2)), np.zeros((8, 8))]]))
    labels = assert_is_mapping(K, gg.coarse_mapping(K, "mtmetis"))
    assert_pairs(K, labels, adjacent=False)
    assert gg.coarse_mapping(K, "mtmetis").n_coarse == 5


@pytest.mark.parametrize("method", ["gosh", "gosh_hec"])
@given(A=graphs())
def test_gosh_never_merges_two_hubs(method, A):
    labels = assert_is_mapping(A, gg.coarse_mapping(A, method))
    degree = degrees(A)
    threshold = max(int(degree.sum()) // max(A.shape[0], 1), 50 if method == "gosh_hec" else 0)
    hubs = labels[degree > threshold]
    assert np.unique(hubs).size == hubs.size, f"two vertices of degree above {threshold} merged"


@pytest.mark.parametrize("method", ["gosh", "gosh_hec"])
def test_gosh_keeps_hubs_apart_on_a_skewed_graph(method):
    rng = np.random.default_rng(7)  # three hubs of degree ~ 60-70 among 400 vertices of degree ~ 2
    rows = np.concatenate([np.repeat([0, 1, 2], 70), rng.integers(3, 400, 400)])
    cols = np.concatenate([rng.integers(0, 400, 210), rng.integers(3, 400, 400)])
    A = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(400, 400)).tocsr()
    A = ((A + A.T) > 0).astype(float)
    A.setdiag(0)
    A.eliminate_zeros()
    labels = assert_is_mapping(A, gg.coarse_mapping(A, method))
    assert np.unique(labels[:3]).size == 3
    assert gg.coarse_mapping(A, method).n_coarse < 0.8 * 400


def test_mis2_methods_are_the_aggregations():
    A = laplace3d(9, 8, 7)
    for method in ("mis2", "mis2_basic"):
        m = gg.coarse_mapping(A, method)
        agg = gg.aggregate(A, method)
        np.testing.assert_array_equal(m.labels, agg.labels)
        assert m.n_coarse == agg.n_aggregates


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    A = gg.io.read_matrix_market(path)[0]
    A = sp.csr_array(A)
    A.data = np.abs(A.data) if A.dtype != bool else A.data
    n_coarse = {}
    for method in METHODS:
        m = gg.coarse_mapping(A, method)
        labels = assert_is_mapping(A, m)
        n_coarse[method] = m.n_coarse
        if A.shape[0] <= 20_000:  # the GraphBLAS forms are slow; test_same_labels_on_every_backend covers more
            other = gg.coarse_mapping(A, method, backend="suitesparse")
            np.testing.assert_array_equal(_host(other.labels), labels, err_msg=f"{method}: numba != suitesparse")
        if method == "hem":
            assert_pairs(A, labels, adjacent=True)
            assert_maximal(A, labels)
        elif method == "mtmetis":
            assert_pairs(A, labels, adjacent=False)
        elif method in ("hec", "hec3"):
            assert_connected_by_heavy_edges(A, labels, heavy_neighbours(A))
    assert n_coarse["hec"] <= n_coarse["hem"]


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("method", METHODS)
def test_same_labels_on_every_backend(backend, method):
    A = laplace3d(11, 10, 9)
    W = A.copy()
    W.data = np.abs(W.data) * (1 + (np.arange(W.nnz) % 3 == 0))  # asymmetric values are not weights
    W = sp.csr_array(W + W.T)
    for graph in (A != 0, W) if method in WEIGHTED else (A,):
        expected = gg.coarse_mapping(graph, method)
        got = gg.coarse_mapping(graph, method, backend=backend)
        np.testing.assert_array_equal(_host(got.labels), _host(expected.labels))
        assert (got.n_coarse, got.rounds) == (expected.n_coarse, expected.rounds)


@given(A=weighted_graphs(), method=st.sampled_from(METHODS[:6]))
def test_numba_equals_suitesparse(A, method):
    expected = gg.coarse_mapping(A, method)
    got = gg.coarse_mapping(A, method, backend="suitesparse")
    np.testing.assert_array_equal(got.labels, expected.labels)
    assert got.rounds == expected.rounds


@given(A=weighted_graphs(), seed=st.integers(0, 3), cap=st.integers(1, 12), data=st.data())
def test_compiled_capped_hec_is_the_verbs(A, seed, cap, data):
    # numba runs HEC and its cap as one compiled loop (kernels/heavy.py), suitesparse as verbs
    from gbgraph.algorithms.mapping import map_vertices

    n = A.shape[0]
    weights = np.array(data.draw(st.lists(st.integers(1, 6), min_size=n, max_size=n)), np.int64)
    got, expected = (map_vertices(gg.backends.backend(name), gg.as_graph(A), "hec", seed, float(cap), weights)
                     for name in ("numba", "suitesparse"))
    np.testing.assert_array_equal(got.labels, expected.labels)
    assert (got.n_coarse, got.rounds) == (expected.n_coarse, expected.rounds)


@pytest.mark.parametrize("method", METHODS)
def test_deterministic_across_runs_and_threads(method, graphblas_threads):
    A = sp.csr_array(abs(sp.csr_array(gg.io.read_matrix_market(real_graph("PGPgiantcompo"))[0])))
    graphblas_threads(1)
    first = _host(gg.coarse_mapping(A, method).labels)
    for threads in (2, 1, 2):
        graphblas_threads(threads)
        np.testing.assert_array_equal(_host(gg.coarse_mapping(A, method).labels), first)


def test_seed_changes_ties_only():
    A = laplace3d(10) != 0
    a, b = gg.coarse_mapping(A, "hec", seed=0), gg.coarse_mapping(A, "hec", seed=1)
    assert not np.array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(gg.coarse_mapping(A, "hec", seed=1).labels, b.labels)
    path = sp.diags([[1.0, 5.0, 1.0, 5.0, 1.0]] * 2, [-1, 1], shape=(6, 6), format="csr")  # heavy edges 1-2 and 3-4
    for seed in range(4):
        np.testing.assert_array_equal(gg.coarse_mapping(path, "hem", seed=seed).labels, [0, 1, 1, 2, 2, 3])


@pytest.mark.parametrize("method", WEIGHTED)
@pytest.mark.parametrize(("value", "count"), [(-1.0, 2), (np.nan, 2), (np.inf, 2)])
def test_bad_weights_raise_with_their_count(method, value, count):
    A = sp.csr_array(laplace3d(3) != 0, dtype=float)
    A[0, 1] = A[1, 0] = value
    with pytest.raises(ValueError, match=f"A has {count} negative, NaN or infinite weights"):
        gg.coarse_mapping(A, method)


@pytest.mark.parametrize("method", WEIGHTED)
def test_asymmetric_weights_raise_with_the_largest_difference(method):
    A = sp.csr_array(laplace3d(3) != 0, dtype=float)
    A[0, 1], A[3, 4] = 3.0, 1.5  # A[1, 0] = A[4, 3] = 1
    with pytest.raises(gg.AsymmetricValuesError, match=r"4 of its 108 off-diagonal entries .* \|A\[0, 1\] - "
                       r"A\[1, 0\]\| = \|3.0 - 1.0\| = 2.0; heavy edge mappings read an edge's weight from both"):
        gg.coarse_mapping(A, method)
    labels = gg.coarse_mapping(gg.symmetrize(A, values="max"), method).labels
    assert labels.shape == (27,)
    gg.coarse_mapping(A, "gosh")  # the pattern mappings read no weights


def test_pattern_weighs_one_and_bad_arguments():
    A = laplace3d(5)
    ones = sp.csr_array(A != 0, dtype=float)
    for method in WEIGHTED:
        np.testing.assert_array_equal(gg.coarse_mapping(A != 0, method).labels, gg.coarse_mapping(ones, method).labels)
    with pytest.raises(ValueError, match="unknown method 'heavy'"):
        gg.coarse_mapping(A, "heavy")
    with pytest.raises(ValueError, match="takes no seed"):
        gg.coarse_mapping(A, "mis2", seed=3)
    with pytest.raises(TypeError, match="seed must be an integer"):
        gg.coarse_mapping(A, "hec", seed=1.5)
    with pytest.raises(ValueError, match="seed"):
        gg.coarse_mapping(A, "hec", seed=-1)


@pytest.mark.parametrize("method", METHODS)
def test_empty_isolated_and_single_edge(method):
    assert gg.coarse_mapping(sp.csr_array((0, 0)), method).n_coarse == 0
    m = gg.coarse_mapping(sp.csr_array((5, 5)), method)
    assert m.n_coarse == 5 and sorted(_host(m.labels).tolist()) == list(range(5))
    edge = sp.csr_array(np.array([[0.0, 2.0], [2.0, 0.0]]))
    assert gg.coarse_mapping(edge, method).n_coarse == 1


def test_coarse_weights_that_overflow_raise():
    # each coarse edge sums several fine edges of 1e308: the coarse level's weights are
    # infinite, which the next mapping must reject rather than take as heaviest
    A = sp.csr_array(abs(laplace3d(10, 10, 1)))
    A.data[:] = 1e308
    with pytest.raises(ValueError, match="infinite"):
        gg.coarsen(A, "hec", cutoff=5)
    A.data[:] = 1e300  # far from overflowing: the same hierarchy as the pattern's
    assert [level.n for level in gg.coarsen(A, "hec", cutoff=5)] == [level.n for level in gg.coarsen(A != 0, "hec", cutoff=5)]


@pytest.mark.parametrize("method", METHODS)
def test_coarsen_carries_vertex_weights(method):
    A = abs(laplace3d(14, 13, 12))
    h = gg.coarsen(A, method, cutoff=50)
    assert h.method == method and h[-1].labels is None
    assert h[-1].n <= 50 or h.stopped in ("stall", "minimum")
    np.testing.assert_array_equal(h[0].vertex_weights, np.ones(A.shape[0], np.int64))
    for fine, coarse in zip(h, h[1:]):
        np.testing.assert_array_equal(coarse.vertex_weights, np.bincount(fine.labels, fine.vertex_weights))
        assert int(coarse.vertex_weights.sum()) == A.shape[0]
        assert fine.seconds[0] >= 0 and fine.seconds[1] >= 0
        rows = np.repeat(np.arange(fine.n), np.diff(fine.graph.indptr))
        crossing = fine.labels[rows] != fine.labels[fine.graph.indices]
        assert coarse.graph.weights.sum() == pytest.approx(fine.graph.weights[crossing].sum())
    assert h.average_ratio == pytest.approx((h[0].n / h[-1].n) ** (1 / (len(h) - 1)))


def test_coarsen_discards_a_level_below_the_minimum():
    n = 60  # a star of 60 vertices: HEC maps it onto one vertex, below the minimum of 10
    star = sp.csr_array((np.ones(n - 1), (np.zeros(n - 1, np.int64), np.arange(1, n))), shape=(n, n))
    star = star + star.T
    h = gg.coarsen(star, "hec", cutoff=50)
    assert len(h) == 1 and h.stopped == "minimum"
    h = gg.coarsen(star, "hec", cutoff=50, minimum=1)
    assert len(h) == 2 and h[-1].n == 1 and h.stopped == "cutoff"


# ---- the mappings' operators through the generic verbs, on every backend -----------------

def _tied_weights(A):
    """|A| with values 1 and 2 (ties everywhere), symmetric."""
    W = sp.csr_array(abs(A))
    W.data = 1.0 + (np.arange(W.nnz) % 2)
    W = sp.csr_array(W + W.T)
    W.setdiag(0)
    W.eliminate_zeros()
    return W


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("weighted", [True, False])
def test_heaviest_is_the_heavy_neighbour(backend, weighted):
    from gbgraph.algorithms.heavy import HEAVIEST, Keys

    be = gg.backend(backend)
    W = _tied_weights(laplace3d(7, 5, 4))
    W = W if weighted else sp.csr_array(W != 0)
    G = gg.as_graph(W)
    M = be.adjacency(G, weighted=weighted)
    keys = Keys(be, G, 0)
    n = G.n
    h = be.mxv(HEAVIEST, M, keys.all)  # h = A ⊕max.(W, key) keys
    assert be.values(h).dtype == np.int64
    np.testing.assert_array_equal(_host(be.values(h)), heavy_neighbours(W)[_host(be.indices(h))])
    assert _host(be.indices(h)).tolist() == list(range(n))
    among, rows = np.arange(0, n, 3), np.arange(1, n, 2)
    h = be.mxv(HEAVIEST, M, keys.vector(be.xp.asarray(among)), mask=be.vector(be.xp.asarray(rows), True, n))
    Wm = sp.csr_array(W[:, among].toarray())  # candidates: the columns of `among` only
    expected = {}
    for u in rows:
        row = [(Wm[u, k] if weighted else 1, mapping_keys(n)[among[k]], among[k]) for k in range(among.size)
               if Wm[u, k] and among[k] != u]
        if row:
            expected[int(u)] = int(max(row)[2])
    assert dict(zip(_host(be.indices(h)).tolist(), _host(be.values(h)).tolist())) == expected


def _visit_reference(H, keys, pending):
    """(free, rounds): Algorithm 3's visit by decreasing key, one vertex at a time, and the
    synchronous rounds in which each pending vertex with a neighbour could be decided (one
    after every earlier-visited pending in-neighbour's)."""
    n = H.size
    mapped = [u not in pending for u in range(n)]
    free = []
    for u in sorted(range(n), key=lambda v: -keys[v]):
        if u in pending and not mapped[u]:
            free.append(u)
            mapped[u] = mapped[H[u]] = True
    depth = {}
    for u in sorted(pending, key=lambda v: -keys[v]):
        if H[u] != u:
            earlier = [depth[w] for w in pending if H[w] == u and w != u and keys[w] > keys[u]]
            depth[u] = 1 + max(earlier, default=0)
    return sorted(free), max(depth.values(), default=0)


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("every", [1, 3])
def test_visit_decides_algorithm_3_in_rounds(backend, every):
    from gbgraph.algorithms.heavy import Keys, heavy_targets, visit_in_order

    be = gg.backend(backend)
    W = _tied_weights(laplace3d(6, 5, 4))
    W = sp.csr_array(sp.block_diag((W, sp.csr_array((3, 3)))))  # three isolated vertices: H(u) = u
    G = gg.as_graph(W)
    keys = Keys(be, G, 0)
    H = heavy_targets(be, be.adjacency(G, weighted=True), keys, G.n)
    pending = np.arange(0, G.n, every)
    free, rounds = visit_in_order(be, H, keys, be.vector(be.xp.asarray(pending), True, G.n))
    expected, expected_rounds = _visit_reference(_host(H), mapping_keys(G.n), set(pending.tolist()))
    assert np.flatnonzero(_host(free)).tolist() == expected and int(rounds) == expected_rounds and int(rounds) > 1


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_visit_follows_long_chains_of_waiting_vertices(backend, seed):
    """A path through the vertices by decreasing key, its weights rising, makes each vertex
    wait on the next (plus random chords that cut it into pieces): chains of hundreds of
    waiting vertices, where a mesh has 2-6 rounds."""
    from gbgraph.algorithms.heavy import Keys, heavy_targets, visit_in_order

    be = gg.backend(backend)
    rng = np.random.default_rng(seed)
    n = 600
    reference_keys = mapping_keys(n, seed)
    path = np.array(sorted(range(n), key=lambda v: -reference_keys[v]))
    chords = rng.integers(0, n, (2, 20))
    rows, cols = np.concatenate([path[:-1], chords[0]]), np.concatenate([path[1:], chords[1]])
    weights = np.concatenate([np.arange(1.0, n), rng.integers(1, n, 20).astype(float)])
    W = sp.coo_array((weights, (rows, cols)), shape=(n, n)).tocsr()
    W = sp.csr_array(W.maximum(W.T))
    W.setdiag(0)
    W.eliminate_zeros()
    G = gg.as_graph(W)
    keys = Keys(be, G, seed)
    H = heavy_targets(be, be.adjacency(G, weighted=True), keys, n)
    for pending in (np.arange(n), np.flatnonzero(rng.random(n) < 0.8)):
        free, rounds = visit_in_order(be, H, keys, be.vector(be.xp.asarray(pending), True, n))
        expected, expected_rounds = _visit_reference(_host(H), reference_keys, set(pending.tolist()))
        assert np.flatnonzero(_host(free)).tolist() == expected and int(rounds) == expected_rounds and int(rounds) > 10


@pytest.mark.parametrize("backend", backend_params())
def test_roots_by_pointer_jumping(backend):
    from gbgraph.algorithms.heavy import roots_and_labels

    be = gg.backend(backend)
    rng = np.random.default_rng(3)
    n = 3000
    parent = np.arange(n)
    order = rng.permutation(n)
    for k in range(1, n):  # chains of up to 300 along a random order, and a few trees
        if k % 300 and rng.random() < 0.97:
            parent[order[k]] = order[k - 1] if rng.random() < 0.9 else order[rng.integers(k - (k % 300), k)]
    labels, count = roots_and_labels(be, be.xp.asarray(parent))
    root = np.empty(n, np.int64)
    for u in range(n):
        r = u
        while parent[r] != r:
            r = parent[r]
        root[u] = r
    roots = np.unique(root)
    assert count == roots.size
    np.testing.assert_array_equal(_host(labels), np.searchsorted(roots, root))


@pytest.mark.parametrize("backend", backend_params())
def test_pair_groups_pairs_by_key_within_groups(backend):
    from gbgraph.algorithms.matching import _pair_groups

    be = gg.backend(backend)
    rng = np.random.default_rng(11)
    n = 400
    ids = np.flatnonzero(rng.random(n) < 0.7)
    group = rng.integers(0, 30, ids.size) ** 2  # sparse group values, one group of many
    key = rng.choice(2**40, size=n, replace=False).astype(np.uint64) + 1  # distinct
    w = _pair_groups(be, be.vector(be.xp.asarray(ids), be.xp.asarray(group), n),
                     be.vector(be.xp.arange(n), be.xp.asarray(key), n))
    expected = {}
    for g in np.unique(group):
        members = sorted(ids[group == g].tolist(), key=lambda v: -int(key[v]))
        for a, b in zip(members[0::2], members[1::2]):
            expected[a], expected[b] = b, a
    assert dict(zip(_host(be.indices(w)).tolist(), _host(be.values(w)).tolist())) == expected

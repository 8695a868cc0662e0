"""Direct k-way partitioning (``gg.partition(A, k, method="kway")``): parts, balance, cuts
counted by scipy, the incremental cut, rebalancing, determinism, errors."""

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gbgraph as gg
from gbgraph.algorithms import refine_kway
from gbgraph.algorithms.refine_fm import HostGraph
from gbgraph.backends.partition_forms import evictions

from conftest import real_graph
from strategies import random_graphs
from test_partition import assert_valid, grid2d, path_graph, scipy_cut


def delaunay_n14():
    """The shared 2D mesh as a pattern (it is connected)."""
    return sp.csr_array(scipy.io.mmread(real_graph("delaunay_n14")) != 0)


@given(A=random_graphs(max_n=120), data=st.data())
@settings(max_examples=25, deadline=None)
def test_parts_cover_every_vertex_and_hold_balance(A, data):
    n = A.shape[0]
    k = data.draw(st.integers(2, min(8, max(2, n))))
    if n < k:
        return
    r = gg.partition(A, k, method="kway", tries=1)
    parts = assert_valid(A, r, k, 0.03)
    assert r.imbalance <= 0.03 + 1e-12 or np.bincount(parts, minlength=k).max() <= np.ceil(n / k)


@pytest.mark.parametrize("k", [2, 3, 4, 8, 13])
def test_grid_parts_balance_and_cut_from_scipy(k):
    A = grid2d(40, 50)
    r = gg.partition(A, k, method="kway")
    parts = assert_valid(A, r, k, 0.03)
    assert set(parts.tolist()) == set(range(k))
    assert r.imbalance <= 0.03 + 1e-12
    assert r.cut == scipy_cut(A, parts)


@pytest.mark.parametrize("k", [3, 8])
def test_real_weights_whose_coarse_sums_round_apart(k):
    """Random real weights on a grid: a coarse level's two sums of one edge differ in their
    last bits, and the coarsest graph's sides, bisected as graphs of their own, must not be
    refused as asymmetric (the default for k > 2 raised AsymmetricValuesError here)."""
    A = sp.csr_array(grid2d(120, 120))
    upper = sp.triu(A, 1).tocsr()
    upper.data = np.random.default_rng(0).random(upper.nnz) + 0.5
    W = (upper + upper.T).tocsr()
    r = gg.partition(W, k)
    parts = assert_valid(W, r, k, 0.03)
    assert set(parts.tolist()) == set(range(k))
    assert r.imbalance <= 0.03 + 1e-12


@pytest.mark.parametrize("k", [4, 8])
def test_cut_no_worse_than_slabs(k):
    """Slabs of whole grid rows (an independent, balanced partition) cut (k - 1) · 60 edges;
    k-way must do at least as well."""
    A = grid2d(64, 60)
    r = gg.partition(A, k, method="kway")
    slabs = np.arange(64 * 60) // 60 * k // 64
    assert r.imbalance <= 0.03 + 1e-12
    assert r.cut <= scipy_cut(A, slabs) == (k - 1) * 60


def test_real_graph_beats_a_random_partition_by_far():
    A = delaunay_n14()
    r = gg.partition(A, 8, method="kway", tries=1)
    parts = assert_valid(A, r, 8, 0.03)
    random = np.random.default_rng(0).permutation(A.shape[0]) % 8
    assert r.imbalance <= 0.03 + 1e-12
    assert r.cut < 0.1 * scipy_cut(A, random)


def test_vertex_weights_are_honoured():
    A = grid2d(30, 30)
    w = np.arange(900) % 4 + 1
    r = gg.partition(A, 6, method="kway", vertex_weights=w)
    assert_valid(A, r, 6, 0.03, w)
    assert r.part_weights.max() <= 1.03 * w.sum() / 6 + 1e-9


def test_edge_weights_decide_the_cut():
    A = sp.csr_array(grid2d(20, 20), dtype=np.float64)
    A.data[:] = np.where(np.arange(A.nnz) % 3 == 0, 5.0, 1.0)
    A = sp.csr_array(A + A.T)  # symmetric weights 2, 6 or 10
    r = gg.partition(A, 4, method="kway", weights="values")
    assert r.cut == pytest.approx(scipy_cut(A, r.parts))


def test_one_part_and_k_equals_n():
    A = grid2d(5, 6)
    assert gg.partition(A, 1, method="kway").parts.tolist() == [0] * 30
    r = gg.partition(A, 30, method="kway")
    assert sorted(r.parts.tolist()) == list(range(30))


@pytest.mark.parametrize("make", [lambda: grid2d(30, 40), delaunay_n14])
def test_deterministic_and_backends_identical(make):
    A = make()
    first = gg.partition(A, 8, method="kway", tries=2, backend="numba")
    again = gg.partition(A, 8, method="kway", tries=2, backend="numba")
    other = gg.partition(A, 8, method="kway", tries=2, backend="suitesparse")
    np.testing.assert_array_equal(first.parts, again.parts)
    np.testing.assert_array_equal(first.parts, other.parts)
    assert first.cut == other.cut


@pytest.mark.parametrize("backend", ["numba", "suitesparse"])
def test_independent_of_thread_count(backend, graphblas_threads):
    A = delaunay_n14()
    one = gg.partition(A, 5, method="kway", backend=backend)
    graphblas_threads(2)
    np.testing.assert_array_equal(gg.partition(A, 5, method="kway", backend=backend).parts, one.parts)


@pytest.mark.parametrize("backend", ["numba", "suitesparse"])
def test_incremental_cut_equals_scipy(backend):
    """The cut kept from the moved rows only (``2 Δcut = -Σ (g + g')``) equals scipy's count
    after every label-propagation and rebalancing round, from a random start."""
    A = sp.csr_array(grid2d(12, 14), dtype=np.float64)
    A.data[:] = np.arange(A.nnz) % 3 + 1.0
    A = sp.csr_array(A + A.T)
    be, n, k = gg.backend(backend), A.shape[0], 4
    start = np.random.default_rng(1).integers(0, k, n)
    bound = 1.03 * n / k
    lv = refine_kway._Level(be, gg.as_graph(A), np.ones(n, np.int64), be.full(n, start, "int64"), k, bound, 0, 0.75)
    assert lv.cut == scipy_cut(A, start)
    locked = be.vector(np.zeros(0, np.int64), True, n)
    kinds = set()
    for _ in range(12):
        if lv.overload(bound) > 0:
            moves, dest, gain = refine_kway._rebalance_moves(be, lv, bound, n / k)
            kinds.add("rebalance")
        else:
            moves, dest, gain = refine_kway._jet_moves(be, lv, locked)
            locked = moves
            kinds.add("jet")
        if be.nvals(moves) == 0:
            break
        lv.move(moves, dest, gain)
        parts = be.values(lv.parts)
        assert lv.cut == scipy_cut(A, parts)
        np.testing.assert_allclose(lv.part_weights, np.bincount(parts, minlength=k))
    assert "jet" in kinds


def host_graph(A, vertex_weights=None):
    n = A.shape[0]
    vw = np.ones(n) if vertex_weights is None else np.asarray(vertex_weights, np.float64)
    return HostGraph(gg.as_graph(A), vw, np.arange(n, dtype=np.uint64)[::-1] * 7919 + 1)


@given(A=random_graphs(max_n=80, min_n=2), data=st.data())
@settings(max_examples=40, deadline=None)
def test_kway_fm_key_is_scipys_and_a_balanced_start_never_gets_worse(A, data):
    """kway_fm's (overload, cut) are the parts' own, counted by scipy; from a balanced start
    the cut does not grow and the parts stay within the bound."""
    n = A.shape[0]
    k = data.draw(st.integers(2, min(6, n)))
    start = np.arange(n) % k  # balanced: every part n / k rounded
    data.draw(st.randoms(use_true_random=False)).shuffle(start)
    parts = start.copy()
    bound = float(np.ceil(1.03 * n / k))
    over, cut = refine_kway.kway_fm(host_graph(A), parts, k, bound)
    counts = np.bincount(parts, minlength=k)
    assert over == np.maximum(counts - bound, 0).sum() == 0
    assert cut == scipy_cut(A, parts) <= scipy_cut(A, start)
    assert parts.min() >= 0 and parts.max() < k


@pytest.mark.parametrize("k", [2, 5, 8])
def test_kway_fm_rebalances_an_overweight_part(k):
    """Every vertex starts in part 0: the parts end within the bound, and FM then finds
    a cut far below a random balanced partition's."""
    A = grid2d(24, 25)
    n = A.shape[0]
    parts = np.zeros(n, np.int64)
    bound = 1.03 * n / k
    over, cut = refine_kway.kway_fm(host_graph(A), parts, k, bound)
    assert over == 0 and np.bincount(parts, minlength=k).max() <= bound
    assert cut == scipy_cut(A, parts) < 0.5 * scipy_cut(A, np.random.default_rng(0).permutation(n) % k)


def test_kway_fm_vertex_weights_bound_the_parts():
    A = grid2d(20, 20)
    w = np.arange(400) % 5 + 1.0
    parts = np.arange(400) * 4 // 400  # bands: balanced by count, not by weight
    bound = 1.03 * w.sum() / 4
    over, cut = refine_kway.kway_fm(host_graph(A, w), parts, 4, bound)
    weights = np.bincount(parts, w, minlength=4)
    assert over == pytest.approx(np.maximum(weights - bound, 0).sum()) == 0
    assert cut == scipy_cut(A, parts)


@given(A=random_graphs(max_n=80, min_n=2), data=st.data())
@settings(max_examples=40, deadline=None)
def test_localized_searches_alone_keep_balance_and_never_get_worse(A, data):
    """Localized searches without FM passes (the boundary found by a sweep): from a balanced
    start the cut, counted by scipy, does not grow and the parts stay within the bound."""
    n = A.shape[0]
    k = data.draw(st.integers(2, min(6, n)))
    start = np.arange(n) % k
    data.draw(st.randoms(use_true_random=False)).shuffle(start)
    parts = start.copy()
    bound = float(np.ceil(1.03 * n / k))
    over, cut = refine_kway.kway_fm(host_graph(A), parts, k, bound, max_passes=0, local_rounds=3)
    assert over == 0 and np.bincount(parts, minlength=k).max() <= bound
    assert cut == scipy_cut(A, parts) <= scipy_cut(A, start)


@pytest.mark.parametrize("k", [4, 8])
def test_localized_searches_alone_improve_a_random_partition(k):
    """On a grid, rounds of localized searches from a random balanced partition take a
    quarter or more off its cut (each search improves its own region; their edge budget
    stops them long before FM passes would stop)."""
    A = grid2d(30, 30)
    n = A.shape[0]
    start = np.random.default_rng(1).permutation(n) % k
    parts = start.copy()
    over, cut = refine_kway.kway_fm(host_graph(A), parts, k, 1.03 * n / k, max_passes=0, local_rounds=4)
    assert over == 0 and cut == scipy_cut(A, parts) < 0.75 * scipy_cut(A, start)


@given(A=random_graphs(max_n=60, min_n=2), data=st.data())
@settings(max_examples=40, deadline=None)
def test_later_rounds_seed_the_boundary_near_the_changed_vertices(A, data):
    """A round of searches after the first seeds the boundary vertices at most ``reach`` edges
    from a vertex the round before moved: scipy's reachability, ``(I + A)^reach``, and a
    boundary counted from the rows."""
    n = A.shape[0]
    k = data.draw(st.integers(2, min(4, n)))
    parts = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), np.int64)
    changed = np.flatnonzero(data.draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    reach = data.draw(st.integers(1, 2))
    hg = host_graph(A)
    boundary = (np.empty(n, np.int64), np.full(1, -1, np.int64), np.zeros(n, np.bool_), np.empty(n, np.int64))
    refine_kway._find_boundary(hg.indptr, hg.indices, hg.weights, parts, boundary[0], boundary[1], np.empty((0, k)),
                               np.zeros(n, np.bool_))
    seeds = refine_kway._near(hg.indptr, hg.indices, changed, reach, *boundary)
    rows = [slice(hg.indptr[v], hg.indptr[v + 1]) for v in range(n)]
    on_boundary = np.array([np.any((parts[hg.indices[r]] != parts[v]) & (hg.weights[r] > 0))
                            for v, r in enumerate(rows)])
    near = np.zeros(n)
    near[changed] = 1
    step = sp.eye_array(n, format="csr") + sp.csr_array((np.ones(hg.indices.size), hg.indices, hg.indptr), (n, n))
    for _ in range(reach):
        near = step @ near
    assert seeds.tolist() == np.flatnonzero(on_boundary & (near > 0)).tolist()
    assert not boundary[2].any()  # the stamps are clear for the next round


def test_later_rounds_of_searches_never_undo_the_first(monkeypatch):
    """Rounds after the first search only near the moved vertices and keep a search only when
    it improves: three rounds cut less than the first alone (with an edge budget that leaves
    the later rounds work)."""
    monkeypatch.setattr(refine_kway, "LOCAL_BUDGET", 20.0)
    A = delaunay_n14()
    n = A.shape[0]
    start = np.random.default_rng(5).permutation(n) % 8
    cuts = []
    for rounds in (1, 3):
        parts = start.copy()
        over, cut = refine_kway.kway_fm(host_graph(A), parts, 8, 1.03 * n / 8, max_passes=0, local_rounds=rounds)
        assert over == 0 and cut == scipy_cut(A, parts)
        cuts.append(cut)
    assert cuts[1] < cuts[0]


def test_kway_fm_is_deterministic():
    A = delaunay_n14()
    start = np.random.default_rng(3).integers(0, 8, A.shape[0])
    first, again = start.copy(), start.copy()
    assert refine_kway.kway_fm(host_graph(A), first, 8, 1.03 * A.shape[0] / 8) == \
        refine_kway.kway_fm(host_graph(A), again, 8, 1.03 * A.shape[0] / 8)
    np.testing.assert_array_equal(first, again)


def test_kway_fm_given_the_cut_refines_as_from_its_sweep():
    """A caller's cut (scipy's count, whole weights) gives the same parts and key as kway_fm's own sweep."""
    A = delaunay_n14()
    start = np.random.default_rng(5).integers(0, 8, A.shape[0])
    swept, given_cut = start.copy(), start.copy()
    bound = 1.03 * A.shape[0] / 8
    assert refine_kway.kway_fm(host_graph(A), swept, 8, bound) == \
        refine_kway.kway_fm(host_graph(A), given_cut, 8, bound, cut=float(scipy_cut(A, start)))
    np.testing.assert_array_equal(swept, given_cut)


def test_fm_tries_keep_one_of_the_single_tries():
    """Tries are ranked on the first coarse level and the best is refined on: the kept parts
    are those of one of the single tries with the seeds ``seed + t``."""
    A = delaunay_n14()
    singles = [gg.partition(A, 6, method="kway", seed=4 + t, tries=1).parts for t in range(3)]
    kept = gg.partition(A, 6, method="kway", seed=4, tries=3).parts
    assert any(np.array_equal(kept, s) for s in singles)


def counted_hierarchies(monkeypatch):
    """The hierarchies k-way coarsens from the input (its coarsest graph's bisections coarsen
    through partition.py's own name)."""
    calls = []
    original = refine_kway.coarsen
    monkeypatch.setattr(refine_kway, "coarsen", lambda *a, **kw: calls.append(kw["seed"]) or original(*a, **kw))
    return calls


def undirected_pattern(name):
    A = sp.csr_array(scipy.io.mmread(real_graph(name)) != 0)
    A = sp.csr_array(A + A.T)
    A.setdiag(False)
    A.eliminate_zeros()
    return A


def test_a_collapsed_hierarchy_is_replaced_by_the_next_seeds(monkeypatch):
    """c-55's first HEC hierarchy (seed 0) runs into the cap and stops far below the cutoff
    (fewer than AT_CAP_SIZE of its vertices), so k-way coarsens with seed 1, which does not
    collapse, and refines that one alone: the parts of a single try with seed 1. A mesh far
    below the cap builds one hierarchy."""
    A = undirected_pattern("c-55")
    calls = counted_hierarchies(monkeypatch)
    kept = gg.partition(A, 8).parts
    assert calls == [0, 1]
    monkeypatch.setattr(refine_kway, "AT_CAP", np.inf)  # one hierarchy each
    singles = [gg.partition(A, 8, seed=s, tries=1).parts for s in (0, 1)]
    assert np.array_equal(kept, singles[1]) and not np.array_equal(*singles)
    monkeypatch.undo()
    calls = counted_hierarchies(monkeypatch)
    gg.partition(delaunay_n14(), 8)
    assert calls == [0]


def test_a_hub_at_the_cap_alone_keeps_one_hierarchy(monkeypatch):
    """debian_bookworm_deps' seed-0 hierarchy holds a hub at the cap, but its coarsest level is
    near the cutoff (not collapsed): one hierarchy. Counting the vertices at the cap alone
    (AT_CAP_SIZE = inf), seed 0's and seed 1's hierarchies both collapse, and both tries are
    refined and ranked: one of the two single tries is kept."""
    A = undirected_pattern("debian_bookworm_deps")
    calls = counted_hierarchies(monkeypatch)
    one = gg.partition(A, 8).parts
    assert calls == [0]
    monkeypatch.setattr(refine_kway, "AT_CAP_SIZE", np.inf)
    calls.clear()
    both = gg.partition(A, 8).parts
    assert calls == [0, 1]
    monkeypatch.setattr(refine_kway, "AT_CAP", np.inf)  # one hierarchy each
    second = gg.partition(A, 8, seed=1).parts
    assert np.array_equal(both, one) or np.array_equal(both, second)


@pytest.mark.parametrize("refine", ["fm", "jet"])
def test_level_refinements_both_balance_and_count_the_cut(refine):
    """``refine="fm"`` refines the levels with host k-way FM, ``"jet"`` with Jet's rounds."""
    A = grid2d(30, 32)
    r = gg.partition(A, 6, method="kway", refine=refine, tries=1)
    parts = assert_valid(A, r, 6, 0.03)
    assert r.imbalance <= 0.03 + 1e-12 and r.cut == scipy_cut(A, parts)


@given(data=st.data())
@settings(max_examples=40, deadline=None)
def test_evictions_never_overfill_a_receiver(data):
    k = data.draw(st.integers(2, 6))
    m = data.draw(st.integers(1, 60))
    parts = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=m, max_size=m)), np.int64)
    dest = np.array([data.draw(st.sampled_from([q for q in range(-1, k) if q != p])) for p in parts], np.int64)
    weights = np.array(data.draw(st.lists(st.integers(0, 5), min_size=m, max_size=m)), np.float64)
    score = np.array(data.draw(st.lists(st.floats(-3, 3), min_size=m, max_size=m)))
    part_weights = np.array(data.draw(st.lists(st.integers(0, 40), min_size=k, max_size=k)), np.float64)
    bound = float(data.draw(st.integers(1, 30)))
    ids = np.arange(m, dtype=np.int64) * 3
    keys = np.arange(m, dtype=np.uint64)[::-1].copy()
    taken, into = evictions(gg.backend("numba"), ids, parts, dest, score, weights, keys, part_weights, bound,
                            bound / 1.1)
    where = np.searchsorted(ids, taken)
    assert np.all(np.diff(taken) > 0) and np.all(part_weights[parts[where]] > bound)  # only overweight parts give
    assert np.all(into != parts[where]) and np.all(into >= 0)
    after = part_weights + np.bincount(into, weights[where], minlength=k)
    receivers = np.unique(into)
    assert np.all(after[receivers] <= bound + 1e-9)


def test_bad_method_names_the_value():
    with pytest.raises(ValueError, match="unknown method 'direct'"):
        gg.partition(grid2d(4, 4), 2, method="direct")


@pytest.mark.parametrize("method", ["recursive", "kway"])
@pytest.mark.parametrize("weights", [[1000, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 1000]])
def test_one_vertex_holding_all_the_weight(method, weights):
    """A side of a bisection may be empty when one vertex outweighs the rest (as a coarse
    vertex can): its parts stay empty, and every vertex still gets a part."""
    A = path_graph(6)
    r = gg.partition(A, 4, method=method, vertex_weights=np.array(weights), tries=1)
    assert_valid(A, r, 4, 0.03, weights)
    assert r.part_weights.max() == 1000


def whole_weights(A, data):
    """A's pattern with whole weights 1-5, symmetric (duplicates summed by scipy)."""
    upper = sp.triu(sp.csr_array(A), 1).tocoo()
    w = np.array(data.draw(st.lists(st.integers(1, 5), min_size=upper.nnz, max_size=upper.nnz)), np.float64)
    U = sp.csr_array((w, (upper.row, upper.col)), shape=A.shape)
    return sp.csr_array(U + U.T)


@given(A=random_graphs(max_n=80, min_n=2), data=st.data())
@settings(max_examples=40, deadline=None)
def test_kway_fm_with_the_table_moves_as_with_the_row_sums(A, data):
    """Whole positive weights: kway_fm keeping the parts' connections in a table (rows kept at
    each neighbour's move) gives the parts and key of summing each row when needed, from an
    overweight start (rebalancing first) and from a balanced one."""
    A = whole_weights(A, data)
    n = A.shape[0]
    k = data.draw(st.integers(2, min(8, n)))
    start = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), np.int64)
    bound = float(np.ceil(1.03 * n / k))
    results = []
    for degree in (0.0, np.inf):  # the table always, never
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(refine_kway, "TABLE_DEGREE", degree)
            parts = start.copy()
            results.append((refine_kway.kway_fm(host_graph(A), parts, k, bound), parts))
    assert results[0][0] == results[1][0]
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][0][1] == scipy_cut(A, results[0][1])


@given(A=random_graphs(max_n=60, min_n=2), data=st.data())
@settings(max_examples=30, deadline=None)
def test_the_table_rows_of_the_boundary_are_its_connections(A, data):
    """_find_boundary's table rows, summed for the boundary alone, are scipy's ``A P`` (P the
    parts' indicator, a self-loop left out) there; no other row is kept."""
    A = whole_weights(A, data)
    n = A.shape[0]
    k = data.draw(st.integers(2, min(6, n)))
    parts = np.array(data.draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)), np.int64)
    hg = host_graph(A)
    boundary, count, table, valid = np.empty(n, np.int64), np.zeros(1, np.int64), np.empty((n, k)), np.zeros(n, bool)
    refine_kway._find_boundary(hg.indptr, hg.indices, hg.weights, parts, boundary, count, table, valid)
    off = sp.csr_array(A - sp.diags_array(A.diagonal()))
    conn = off @ np.eye(k)[parts]
    external = conn.sum(axis=1) - conn[np.arange(n), parts]
    assert boundary[:count[0]].tolist() == np.flatnonzero(external > 0).tolist() == np.flatnonzero(valid).tolist()
    np.testing.assert_array_equal(table[valid], conn[valid])


@given(ops=st.lists(st.tuples(st.integers(0, 29), st.integers(-3, 3), st.booleans()), max_size=200))
@settings(max_examples=50, deadline=None)
def test_the_heap_top_is_the_largest_gain_then_key(ops):
    """k-way FM's heap after any sequence of pushes, gain changes and removals (``_place``),
    and after Floyd's ordering of what it holds: its top is the largest (gain, key) of the
    entries a dict holds for the same operations."""
    n = 30
    key = (np.arange(n, dtype=np.uint64) * 7919) % 101
    heap, hg, hk, pos, sizes = np.empty(n, np.int64), np.empty(n), np.empty(n, np.uint64), np.full(n, -1), \
        np.zeros(1, np.int64)
    held = {}
    for v, g, keep in ops:
        refine_kway._place(heap, hg, hk, sizes, pos, v, float(g), key[v], keep)
        if keep:
            held[v] = g
        else:
            held.pop(v, None)
        assert sizes[0] == len(held) and sorted(heap[:sizes[0]].tolist()) == sorted(held)
        assert all(pos[heap[i]] == i for i in range(sizes[0])) and (pos >= 0).sum() == len(held)
        if held:
            assert heap[0] == max(held, key=lambda u: (held[u], key[u]))
    order = np.random.default_rng(0).permutation(sizes[0])  # any layout, then ordered bottom-up
    heap[:sizes[0]] = heap[:sizes[0]][order]
    hg[:sizes[0]], hk[:sizes[0]] = [held[u] for u in heap[:sizes[0]]], key[heap[:sizes[0]]]
    pos[heap[:sizes[0]]] = np.arange(sizes[0])
    refine_kway._heapify(heap, hg, hk, sizes[0], pos)
    if held:
        assert heap[0] == max(held, key=lambda u: (held[u], key[u]))
        assert all(pos[heap[i]] == i for i in range(sizes[0]))

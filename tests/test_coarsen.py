import re
import warnings

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components
from hypothesis import given
from hypothesis import strategies as st

import gbgraph as gg
from gbgraph.algorithms.coarsen import CoarseningStallWarning
from gbgraph.generators import elasticity3d, laplace3d

from conftest import backend_params, gpu_available, real_graph, shared_graphs
from strategies import graphs

METHODS = ["spgemm", "sort", "hash"]


def scipy_reference(A, labels):
    """Pᵀ A P without its diagonal, by scipy: every stored off-diagonal entry (u, v) adds its
    value to (labels[u], labels[v]) (COO duplicates summed). A coarse entry exists when a fine
    edge crosses, even if its values cancel, as stored entries are edges."""
    A = sp.coo_array(A)
    values = A.data if A.dtype != bool else np.ones(A.nnz, np.int64)
    off = (A.row != A.col) & (labels[A.row] != labels[A.col])
    k = int(labels.max()) + 1 if labels.size else 0
    C = sp.coo_array((values[off], (labels[A.row[off]], labels[A.col[off]])), shape=(k, k)).tocsr()
    C.sort_indices()
    return C


def test_reference_is_scipy_triple_product():
    A = laplace3d(6, 5, 4)
    labels = gg.aggregate(A).labels
    P = gg.aggregation_operator(labels)
    C = (P.T @ A @ P).tocsr()
    C.setdiag(0)
    C.eliminate_zeros()
    assert (as_csr(C) != scipy_reference(A, labels)).nnz == 0


def as_csr(C):
    C = sp.csr_array(C)
    C.sort_indices()
    return C


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("low_degree_end", [None, True, False])
@given(A=graphs(), data=st.data())
def test_equals_scipy_with_integer_weights(A, data, method, low_degree_end):
    n = A.shape[0]
    labels = np.array(data.draw(st.lists(st.integers(0, max(n // 2, 0)), min_size=n, max_size=n)), np.int64)
    weights = sp.triu(A, 1).tocoo()
    values = np.array(data.draw(st.lists(st.integers(1, 9), min_size=weights.nnz, max_size=weights.nnz)), float)
    W = sp.coo_array((values, (weights.row, weights.col)), shape=A.shape)
    W = sp.csr_array(W + W.T)
    expected = scipy_reference(W, labels)
    got = as_csr(gg.coarse_graph(W, labels, method, low_degree_end=low_degree_end))
    assert got.shape == expected.shape
    assert (got != expected).nnz == 0 and got.nnz == expected.nnz


@pytest.mark.parametrize("method", METHODS)
def test_pattern_input_counts_edges(method):
    A = laplace3d(9, 8, 7) != 0
    labels = gg.aggregate(A).labels
    got = as_csr(gg.coarse_graph(A, labels, method))
    assert got.dtype == np.int64
    assert (got != scipy_reference(A, labels)).nnz == 0


@pytest.mark.parametrize("method", METHODS)
def test_float_weights_agree_to_rounding(method):
    rng = np.random.default_rng(0)
    A = sp.triu(elasticity3d(5, 4, 4), 1).tocoo()
    A = sp.coo_array((rng.random(A.nnz), (A.row, A.col)), shape=A.shape)
    A = sp.csr_array(A + A.T)
    labels = gg.aggregate(A).labels
    got, expected = as_csr(gg.coarse_graph(A, labels, method)), scipy_reference(A, labels)
    np.testing.assert_array_equal(got.indices, expected.indices)
    np.testing.assert_allclose(got.data, expected.data, rtol=1e-13)


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    A, weighted = gg.io.read_matrix_market(path)
    labels = gg.aggregate(A).labels
    expected = scipy_reference(A if weighted else A.astype(bool), labels)
    for method in METHODS:
        got = as_csr(gg.coarse_graph(A if weighted else A.astype(bool), labels, method))
        np.testing.assert_array_equal(got.indptr, expected.indptr, err_msg=method)
        np.testing.assert_array_equal(got.indices, expected.indices, err_msg=method)
        if weighted:  # c-55 holds real values: sums agree to rounding
            np.testing.assert_allclose(got.data, expected.data, rtol=1e-12, atol=1e-12 * abs(expected.data).max())
        else:
            np.testing.assert_array_equal(got.data, expected.data, err_msg=method)


def _star_and_path(weights):
    """A star joined to a path (max degree far above the mean), symmetric ``weights``."""
    n = 60
    r = np.r_[np.zeros(40, np.int64), np.arange(40, n - 1)]
    c = np.r_[np.arange(1, 41), np.arange(41, n)]
    A = sp.csr_array(sp.coo_array((weights[:r.size], (r, c)), shape=(n, n)))
    return A + A.T


def test_skewed_graph_uses_one_sided_construction_and_agrees():
    from gbgraph.algorithms.coarsen import _one_sided

    A = _star_and_path(np.random.default_rng(3).random(59) + 0.1)
    assert _one_sided(gg.as_graph(A))
    labels = np.arange(A.shape[0]) // 3
    for method in METHODS:
        assert abs(as_csr(gg.coarse_graph(A, labels, method)) - scipy_reference(A, labels)).max() < 1e-12


@pytest.mark.parametrize("weights", [np.ones(59), np.arange(1.0, 60.0), -np.arange(1.0, 60.0)])
def test_skewed_graph_with_exact_sums_is_built_two_sided_with_the_one_sided_bits(weights):
    # integer weights: every order of the additions gives the same sums, so the faster
    # two-sided construction stands in for the one-sided one
    from gbgraph.algorithms.coarsen import _one_sided

    A = _star_and_path(weights)
    assert not _one_sided(gg.as_graph(A))
    labels = np.arange(A.shape[0]) // 3
    reference = scipy_reference(A, labels)
    for one_sided in (False, True):
        C = as_csr(gg.coarse_graph(A, labels, "sort", low_degree_end=one_sided))
        assert (C != reference).nnz == 0 and C.nnz == reference.nnz


def test_negative_zero_weights_are_not_exact_sums():
    # a sum of -0.0 terms is -0.0, of +0.0 terms +0.0, and the symmetry check takes them
    # for equal: the two constructions could store zeros of different signs
    from gbgraph.algorithms.coarsen import _exact_sums

    A = sp.csr_array((np.array([-0.0, -0.0, 1.0, 1.0]), np.array([1, 0, 2, 1]), np.array([0, 1, 3, 4])), shape=(3, 3))
    assert not _exact_sums(gg.as_graph(A))
    assert _exact_sums(gg.as_graph(abs(A)))


@pytest.mark.parametrize("low_degree_end", [False, True])
def test_unit_weights_are_counted_to_float64_sums(low_degree_end):
    # weights all 1.0: the construction counts the fine edges, which are the float sums
    from gbgraph.algorithms.coarsen import _unit_weights

    A = sp.csr_array(laplace3d(6) != 0).astype(np.float64)
    assert _unit_weights(gg.as_graph(A))
    labels = np.arange(A.shape[0]) * 7 % 23
    reference = scipy_reference(A, labels)
    C = as_csr(gg.coarse_graph(A, labels, "sort", low_degree_end=low_degree_end))
    assert C.dtype == np.float64 and C.nnz == reference.nnz and (C != reference).nnz == 0


def test_only_ones_are_unit_weights():
    from gbgraph.algorithms.coarsen import _unit_weights

    A = sp.csr_array(laplace3d(4) != 0)
    assert not _unit_weights(gg.as_graph(A.astype(np.float64) * 2))
    assert not _unit_weights(gg.as_graph(A))  # a pattern has no weights to skip


def test_non_integer_or_huge_weights_are_not_exact_sums():
    from gbgraph.algorithms.coarsen import _exact_sums

    assert not _exact_sums(gg.as_graph(_star_and_path(np.full(59, 0.5))))
    assert not _exact_sums(gg.as_graph(_star_and_path(np.full(59, 2.0 ** 50))))
    assert _exact_sums(gg.as_graph(_star_and_path(np.full(59, 2.0 ** 40))))


def test_container_types():
    import graphblas as gb
    import networkx as nx

    A = laplace3d(5)
    labels = gg.aggregate(A).labels
    assert isinstance(gg.coarse_graph(A, labels), sp.csr_array)
    assert isinstance(gg.coarse_graph(sp.csr_matrix(A), labels), sp.csr_matrix)
    assert isinstance(gg.coarse_graph(A.toarray(), labels), np.ndarray)
    Ag = gb.Matrix.from_csr(A.indptr, A.indices, A.data, ncols=A.shape[1])
    assert isinstance(gg.coarse_graph(Ag, labels), gb.Matrix)
    G = nx.from_scipy_sparse_array(A)
    C = gg.coarse_graph(G, labels)
    assert isinstance(C, nx.Graph) and C.number_of_nodes() == labels.max() + 1
    assert nx.to_scipy_sparse_array(C, nodelist=range(C.number_of_nodes()), weight="weight").sum() == \
        scipy_reference(A, labels).sum()


def test_aggregation_operator():
    P = gg.aggregation_operator(np.array([2, 0, 0, 1]))
    assert P.shape == (4, 3) and P.toarray().tolist() == [[0, 0, 1], [1, 0, 0], [1, 0, 0], [0, 1, 0]]
    assert gg.aggregation_operator([0, 1], n_aggregates=4).shape == (2, 4)


@pytest.mark.parametrize(("labels", "error", "message"), [
    ([0, -1, 1], ValueError, "must be >= 0"), ([0.5, 1, 2], TypeError, "must be integers"),
    ([[0, 1]], ValueError, "one-dimensional"),
])
def test_bad_labels(labels, error, message):
    with pytest.raises(error, match=message):
        gg.aggregation_operator(labels)
    with pytest.raises(error, match=message):
        gg.coarse_graph(np.zeros((3, 3)) if np.ndim(labels) == 1 else np.zeros((1, 1)), labels)


def test_labels_of_wrong_length_and_unknown_method():
    with pytest.raises(ValueError, match="labels has 2 entries, the graph has 3 vertices"):
        gg.coarse_graph(np.zeros((3, 3)), [0, 1])
    with pytest.raises(ValueError, match="method must be one of"):
        gg.coarse_graph(np.zeros((3, 3)), [0, 1, 2], "dense")
    with pytest.raises(ValueError, match="beyond n_aggregates = 2"):
        gg.aggregation_operator([0, 5], n_aggregates=2)


@pytest.mark.parametrize("method", ["mis2", "mis2_basic"])
@pytest.mark.parametrize("construction", METHODS)
def test_hierarchy_invariants(method, construction):
    A = laplace3d(16, 15, 14)
    h = gg.coarsen(A, method, cutoff=40, construction=construction)
    assert h[0].n == A.shape[0] and h[-1].labels is None
    # the cutoff ends it, or the paper's rule: a next level under 10 vertices is discarded
    assert (h.stopped == "cutoff" and h[-1].n <= 40 < h[-2].n) or (h.stopped == "minimum" and h[-1].n > 40)
    for fine, coarse in zip(h, h[1:]):
        labels = fine.labels
        assert labels.shape == (fine.n,) and labels.max() + 1 == coarse.n
        weights = sp.csr_array((fine.graph.weights, fine.graph.indices, fine.graph.indptr), shape=(fine.n,) * 2)
        C = sp.csr_array((coarse.graph.weights, coarse.graph.indices, coarse.graph.indptr), shape=(coarse.n,) * 2)
        assert (C != scipy_reference(weights, labels)).nnz == 0
    assert all(r > 1 for r in h.ratios)
    text = repr(h)
    assert text.splitlines()[0] == (f"Hierarchy({method!r}, {len(h)} levels, stopped by {h.stopped}, average ratio "
                                    f"{h.average_ratio:.2f})") and f"{h[-1].n:>12,}" in text


def test_max_levels_and_stall_warning():
    assert len(gg.coarsen(laplace3d(20), cutoff=1, max_levels=2)) == 2
    star = sp.csr_array((np.ones(9), (np.zeros(9, np.int64), np.arange(1, 10))), shape=(10, 10))
    star = star + star.T
    path = sp.diags([np.ones(99), np.ones(99)], [-1, 1], shape=(100, 100), format="csr")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        gg.coarsen(path, cutoff=5)
    # isolated vertices never merge: coarsening cannot shrink the graph
    with pytest.warns(CoarseningStallWarning, match="less than 5% fewer"):
        h = gg.coarsen(sp.csr_array((30, 30)), cutoff=5)
    assert len(h) == 1
    assert gg.coarsen(star, cutoff=1)[-1].n == 1


@pytest.mark.parametrize(("bad", "error", "message"), [
    (0, ValueError, "cutoff must be a positive integer, got 0"),
    (-3, ValueError, "cutoff must be a positive integer, got -3"),
    (2.5, TypeError, r"cutoff must be an integer, got 2.5 \(float\)"),
])
def test_bad_cutoff(bad, error, message):
    with pytest.raises(error, match=message):
        gg.coarsen(laplace3d(3), cutoff=bad)


# The compiled "sort" construction of the numba backend against the numpy one


def _random_weights(A, rng):
    """A's pattern with symmetric random float weights of mixed magnitudes (rounding shows)."""
    upper = sp.triu(A, 1).tocoo()
    values = rng.standard_normal(upper.nnz) * 10.0 ** rng.integers(-8, 8, upper.nnz)
    W = sp.coo_array((values, (upper.row, upper.col)), shape=A.shape)
    return sp.csr_array(W + W.T)


def assert_kernel_equals_numpy(graph, labels, one_sided):
    from gbgraph.algorithms.coarsen import _by_construction

    k = int(labels.max()) + 1 if labels.size else 0
    got = gg.backend("numba").fused("coarse_by_sort")(graph, labels, k, one_sided)
    expected = _by_construction(graph, labels, k, "sort", one_sided, np)
    for name, g, e in zip(("indptr", "indices", "values"), got, expected):
        assert g.dtype == e.dtype, name
        np.testing.assert_array_equal(g, e, err_msg=name)


@pytest.mark.parametrize("one_sided", [False, True])
@given(A=graphs(), data=st.data())
def test_sort_kernel_equals_numpy_path_bit_for_bit(A, data, one_sided):
    n = A.shape[0]
    labels = np.array(data.draw(st.lists(st.integers(0, max(n // 3, 0)), min_size=n, max_size=n)), np.int64)
    rng = np.random.default_rng(data.draw(st.integers(0, 2**32 - 1)))
    for W in (A, _random_weights(A, rng), A.astype(bool)):
        assert_kernel_equals_numpy(gg.as_graph(W), labels, one_sided)


@pytest.mark.parametrize("one_sided", [False, True])
@pytest.mark.parametrize("size", [5, 9, 40, 200, 700])
def test_sort_kernel_sums_long_groups_as_numpy(size, one_sided):
    # two halves of a random dense graph: every coarse edge sums about size²/2 fine weights,
    # past numpy's 8-value and 128-value blocks and into its recursive halving
    rng = np.random.default_rng(size)
    A = sp.csr_array(sp.triu(rng.random((size, size)) < 0.5, 1), dtype=float)
    A = _random_weights(A + A.T, rng)
    labels = rng.integers(0, 2, size)
    assert_kernel_equals_numpy(gg.as_graph(A), labels, one_sided)
    assert_kernel_equals_numpy(gg.as_graph(A), rng.integers(0, 9, size), one_sided)


@pytest.mark.parametrize("spread", [1, 3, 5, 600])
@pytest.mark.parametrize("leaves", [12, 300])
def test_sort_kernel_sorts_long_rows_as_numpy(leaves, spread):
    # a star whose centre's coarse row has ``leaves`` columns in shuffled order, ``spread``
    # labels apart: its span is leaves * spread / 64 words, so the kernel sorts it as bits (up
    # to 8 words a column) or by insertion (12) or numba's sort (300); the leaves' rows are
    # single columns
    rng = np.random.default_rng(spread)
    A = sp.csr_array((np.ones(leaves), (np.zeros(leaves, int), np.arange(1, leaves + 1))), shape=(leaves + 1,) * 2)
    A = _random_weights(A + A.T, rng)
    labels = np.concatenate(([0], spread * (1 + rng.permutation(leaves))))
    for one_sided in (False, True):
        assert_kernel_equals_numpy(gg.as_graph(A), labels, one_sided)
        assert_kernel_equals_numpy(gg.as_graph(A.astype(bool)), labels, one_sided)


@pytest.mark.parametrize("path", shared_graphs())
def test_sort_kernel_equals_numpy_path_on_shared_graphs(path):
    A, weighted = gg.io.read_matrix_market(path)
    A = A if weighted else A.astype(bool)
    graph = gg.as_graph(A)
    labels = np.asarray(gg.aggregate(graph).labels)
    reweighted = gg.as_graph(_random_weights(sp.csr_array(A, dtype=float), np.random.default_rng(0)))
    for one_sided in (False, True):
        assert_kernel_equals_numpy(graph, labels, one_sided)
        assert_kernel_equals_numpy(reweighted, labels, one_sided)


def test_sort_kernel_does_not_depend_on_threads(monkeypatch):
    from gbgraph.backends.numba.kernels import coarse

    monkeypatch.setattr(coarse, "_ENTRIES_PER_THREAD", 1)  # a thread per entry: small graphs go parallel too
    A = _random_weights(elasticity3d(6, 5, 4), np.random.default_rng(1))
    graph = gg.as_graph(A)
    labels = np.asarray(gg.aggregate(graph).labels)
    k = int(labels.max()) + 1
    be = gg.backend("numba")
    before = gg.backends.set_threads(1)
    try:
        one = [be.fused("coarse_by_sort")(graph, labels, k, s) for s in (False, True)]
    finally:
        gg.backends.set_threads(before)
    gg.backends.set_threads(2)
    try:
        two = [be.fused("coarse_by_sort")(graph, labels, k, s) for s in (False, True)]
    finally:
        gg.backends.set_threads(before)
    for x, y in zip(one, two):
        for a, b in zip(x, y):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 9, 15, 16, 17, 128, 129, 130, 137, 255, 256, 257, 1000, 5000])
def test_reduceat_sum_adds_in_numpy_order(n):
    from gbgraph.backends.numba.kernels.coarse import reduceat_sum

    rng = np.random.default_rng(n)
    x = rng.standard_normal(n + 5) * 10.0 ** rng.integers(-12, 12, n + 5)
    assert reduceat_sum(x, 3, n) == np.add.reduceat(x, [3, 3 + n])[0]


@pytest.mark.parametrize("weights", ["integers", "floats"])
def test_sort_equals_scipy_triple_product(weights):
    rng = np.random.default_rng(2)
    A = sp.triu(laplace3d(11, 9, 7), 1).tocoo()
    values = rng.integers(1, 9, A.nnz).astype(float) if weights == "integers" else rng.random(A.nnz)
    A = sp.coo_array((values, (A.row, A.col)), shape=A.shape)
    A = sp.csr_array(A + A.T)
    labels = gg.aggregate(A).labels
    P = gg.aggregation_operator(labels)
    expected = sp.csr_array(P.T @ A @ P)
    expected.setdiag(0)
    expected.eliminate_zeros()  # positive weights: only the diagonal is zero
    expected.sort_indices()
    got = as_csr(gg.coarse_graph(A, labels, "sort"))
    np.testing.assert_array_equal(got.indptr, expected.indptr)
    np.testing.assert_array_equal(got.indices, expected.indices)
    if weights == "integers":
        np.testing.assert_array_equal(got.data, expected.data)
    else:
        np.testing.assert_allclose(got.data, expected.data, rtol=1e-14)


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_nonfinite_weights_raise(method, bad):
    A = sp.csr_array(laplace3d(4))
    A.data[[3, 7, 11]] = bad  # three off-diagonal entries
    assert all(A.indices[p] != np.searchsorted(A.indptr, p, side="right") - 1 for p in (3, 7, 11))
    with pytest.raises(ValueError, match="A has 3 NaN or infinite weights among its 288 off-diagonal entries"):
        gg.coarse_graph(A, np.arange(64) // 4, method)
    with pytest.raises(ValueError, match="3 NaN or infinite"):
        gg.coarsen(A, construction=method, cutoff=2)


ASYMMETRIC = np.array([[0.0, 1.0, 0.0], [5.0, 0.0, 2.0], [0.0, 2.5, 0.0]])  # a symmetric pattern, values 4 and 0.5 apart


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("low_degree_end", [None, False, True])
def test_asymmetric_weights_raise_naming_the_largest_difference(method, low_degree_end):
    message = (r"A has asymmetric values: 4 of its 4 off-diagonal entries A\[i, j\] differ from A\[j, i\]; the largest "
               r"difference is \|A\[0, 1\] - A\[1, 0\]\| = \|1.0 - 5.0\| = 4.0; the coarse graph .*"
               r"gg.symmetrize\(A, values=\"max\"\) or values=\"sum\"")
    with pytest.raises(gg.AsymmetricValuesError, match=message) as e:
        gg.coarse_graph(ASYMMETRIC, [0, 1, 1], method, low_degree_end=low_degree_end)
    assert (e.value.position, e.value.values) == ((0, 1), (1.0, 5.0))
    # the remedy: max(1, 5) joins {0} and {1, 2}; the sum gives 1 + 5
    symmetric = gg.coarse_graph(gg.symmetrize(ASYMMETRIC, values="max"), [0, 1, 1], method, low_degree_end=low_degree_end)
    assert symmetric.tolist() == [[0, 5], [5, 0]]
    assert gg.coarse_graph(gg.symmetrize(ASYMMETRIC, values="sum"), [0, 1, 1], method).tolist() == [[0, 6], [6, 0]]
    assert gg.coarse_graph(ASYMMETRIC != 0, [0, 1, 1], method).tolist() == [[0, 1], [1, 0]]  # the pattern counts edges


@pytest.mark.parametrize("mapping", ["mis2", "hec"])
def test_coarsen_rejects_asymmetric_weights_once(mapping):
    A = _random_weights(laplace3d(6), np.random.default_rng(5))
    A = abs(A)
    A[0, 1] = A[1, 0] + 0.25  # one pair apart by 0.25
    with pytest.raises(gg.AsymmetricValuesError, match=r"2 of its 1,080 off-diagonal.*\|A\[0, 1\] - A\[1, 0\]\|"):
        gg.coarsen(A, mapping)
    h = gg.coarsen(gg.symmetrize(A, values="max"), mapping, cutoff=10)
    for level in h:  # symmetric weights give symmetric coarse levels (up to rounding in the sums)
        W = sp.csr_array((level.graph.weights, level.graph.indices, level.graph.indptr), shape=(level.n, level.n))
        np.testing.assert_allclose(W.toarray(), W.T.toarray(), rtol=1e-12)


@pytest.mark.parametrize("mapping", ["mis2", "hec"])
def test_unit_weights_skip_the_checks_of_the_weights(mapping, monkeypatch):
    # ones on a symmetric pattern are finite, non-negative and symmetric: the hierarchy is the
    # same without the checks' passes, which a weight of 2.0 still brings back
    from gbgraph import graph as graph_module
    from gbgraph.algorithms import coarsen as coarsen_module
    from gbgraph.algorithms import mapping as mapping_module

    A = abs(laplace3d(7, 6, 5))
    A.setdiag(0)
    A.eliminate_zeros()
    expected = gg.coarsen(A, mapping, cutoff=10)
    checked = []
    for module, name in ((graph_module, "_value_asymmetry"), (mapping_module, "_count_bad"),
                         (coarsen_module, "_count_nonfinite")):
        monkeypatch.setattr(module, name, lambda *a, f=getattr(module, name), n=name: checked.append(n) or f(*a))
    h = gg.coarsen(A, mapping, cutoff=10)
    assert checked == []
    assert [level.n for level in h] == [level.n for level in expected]
    for got, want in zip(h, expected):
        np.testing.assert_array_equal(got.graph.weights, want.graph.weights)
    A = A.tocsr()
    A.data[:2] = 2.0  # A[0, 1] and A[0, 7]: no longer symmetric
    with pytest.raises(gg.AsymmetricValuesError):
        gg.coarsen(A, mapping)
    assert "_value_asymmetry" in checked


@pytest.mark.parametrize("construction", METHODS)
def test_hierarchy_levels_equal_as_graph_of_their_csr(construction):
    A = _random_weights(laplace3d(12, 10, 9), np.random.default_rng(3))
    for pattern in (A, A != 0):
        h = gg.coarsen(pattern, cutoff=20, construction=construction)
        assert len(h) > 2
        for fine, coarse in zip(h, h[1:]):
            csr = gg.coarse_graph(fine.graph, fine.labels, construction)
            expected = gg.as_graph(csr)
            got = coarse.graph
            assert (got.n, got.container) == (expected.n, expected.container)
            for name in ("indptr", "indices", "weights"):
                g, e = getattr(got, name), getattr(expected, name)
                assert g.dtype == e.dtype, name
                np.testing.assert_array_equal(g, e, err_msg=name)


@pytest.mark.parametrize("method", ["hec", "mis2"])
def test_levels_built_one_sided_have_symmetric_weights(method):
    # a level built from a skewed one by the one-sided construction is recorded as symmetric
    # (no transpose of its weights): S(a, b) + S(b, a) must equal S(b, a) + S(a, b) bit for bit
    from conftest import real_graph

    A = sp.csr_array(gg.io.read_matrix_market(real_graph("PGPgiantcompo"))[0], dtype=float)
    W = _random_weights(A, np.random.default_rng(5))
    h = gg.coarsen(W, method, cutoff=20)
    one_sided = [coarse.graph for fine, coarse in zip(h, h[1:]) if fine.graph.known(("coarsen", "one_sided"))]
    assert one_sided, "PGPgiantcompo's first level is skewed"
    for graph in one_sided:
        C = sp.csr_array((graph.weights, graph.indices, graph.indptr), shape=(graph.n, graph.n))
        assert (C != C.T).nnz == 0


def _input_sizes(h):
    """How many input vertices each coarse vertex of every level holds, from the labels alone
    (composed down the hierarchy, counted by numpy), not from the levels' vertex weights."""
    to_level = np.arange(h[0].n)
    sizes = [np.bincount(to_level, minlength=h[0].n)]
    for level in h.levels[:-1]:
        to_level = np.asarray(level.labels)[to_level]
        sizes.append(np.bincount(to_level))
    return sizes


def _coarse_vertices_connected(A, labels):
    """Whether the input vertices of each coarse vertex induce a connected subgraph."""
    A = sp.csr_array(A)
    within = sp.coo_array(A)
    keep = labels[within.row] == labels[within.col]
    inner = sp.csr_array((np.ones(keep.sum()), (within.row[keep], within.col[keep])), shape=A.shape)
    n_components = connected_components(inner, directed=False)[0]
    return n_components == int(labels.max()) + 1


def _hubs(n_hubs=3, leaves=300):
    """Hubs joined in a path, each with its leaves, the leaves of a hub in a path: HEC pulls
    every leaf into its hub's coarse vertex."""
    edges = [(h * (leaves + 1), (h + 1) * (leaves + 1)) for h in range(n_hubs - 1)]
    for h in range(n_hubs):
        hub = h * (leaves + 1)
        edges += [(hub, hub + 1 + i) for i in range(leaves)]
        edges += [(hub + 1 + i, hub + 2 + i) for i in range(leaves - 1)]
    rows, cols = np.array(edges).T
    n = n_hubs * (leaves + 1)
    A = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(n, n))
    return sp.csr_array(A + A.T)


@pytest.mark.parametrize("backend", ["numba", "suitesparse"])
@pytest.mark.parametrize("graph, cap", [("star", 30), ("hubs", 50), ("hubs", 7.5), ("c-55", 32780 / 4),
                                        ("c-55", 32780 / 16)])
def test_hec_cap_holds(graph, cap, backend):
    if graph == "star":
        A = sp.csr_array(nx.to_scipy_sparse_array(nx.star_graph(400)))
    elif graph == "hubs":
        A = _hubs()
    else:
        A = gg.io.read_matrix_market(real_graph(graph))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoarseningStallWarning)
        uncapped = _input_sizes(gg.coarsen(A, "hec", cutoff=1, minimum=1, backend=backend))
        h = gg.coarsen(A, "hec", cutoff=1, minimum=1, max_weight=cap, backend=backend)
    assert max(s.max() for s in uncapped) > cap  # the case the cap is for
    for sizes, level in zip(_input_sizes(h), h):
        assert sizes.max() <= cap
        np.testing.assert_array_equal(sizes, level.vertex_weights)
    assert _coarse_vertices_connected(A, np.asarray(h[0].labels))
    assert h[1].n < h[0].n


def test_hec_cap_never_reached_is_hec():
    A = laplace3d(12)
    expected = gg.coarsen(A, "hec")
    got = gg.coarsen(A, "hec", max_weight=A.shape[0])
    assert len(got) == len(expected)
    for a, b in zip(got.levels[:-1], expected.levels[:-1]):
        np.testing.assert_array_equal(a.labels, b.labels)


@given(A=graphs(), cap=st.integers(1, 12))
def test_hec_cap_holds_on_random_graphs(A, cap):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoarseningStallWarning)
        h = gg.coarsen(A, "hec", max_weight=cap, cutoff=1, minimum=1)
    assert all(sizes.max(initial=0) <= cap for sizes in _input_sizes(h)[1:])


@pytest.mark.parametrize("backend", backend_params() + [
    pytest.param("native", id="native", marks=[pytest.mark.gpu, pytest.mark.skipif(
        not gpu_available(), reason="needs CuPy and an NVIDIA GPU")])])
@pytest.mark.parametrize("graph", ["hubs", "laplace3d"])
def test_hec_cap_same_on_every_backend(backend, graph):
    # native: a level under the cap is its fused HEC (laplace3d(12)'s first), one over it the verbs
    A = _hubs(n_hubs=4, leaves=200) if graph == "hubs" else laplace3d(12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoarseningStallWarning)
        expected = gg.coarsen(A, "hec", cutoff=1, minimum=1, max_weight=40)
        got = gg.coarsen(A, "hec", cutoff=1, minimum=1, max_weight=40, backend=backend)
    assert len(got) == len(expected)
    for a, b in zip(got.levels[:-1], expected.levels[:-1]):
        host = a.labels.get() if hasattr(a.labels, "get") else np.asarray(a.labels)
        np.testing.assert_array_equal(host, b.labels)


def test_hec_cap_is_deterministic_across_backends_and_threads(graphblas_threads):
    A = gg.io.read_matrix_market(real_graph("c-55"))[0]
    first = None
    for backend, threads in (("numba", 1), ("numba", 2), ("suitesparse", 1), ("suitesparse", 2)):
        graphblas_threads(threads)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", CoarseningStallWarning)
            h = gg.coarsen(A, "hec", max_weight=4000, backend=backend)
        labels = [np.asarray(level.labels) for level in h.levels[:-1]]
        if first is None:
            first = labels
        assert len(labels) == len(first)
        for a, b in zip(labels, first):
            np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("cap, error", [(0, ValueError), (-3.5, ValueError), (float("nan"), ValueError),
                                        (float("inf"), ValueError), ("10", TypeError), (True, TypeError)])
def test_hec_bad_cap_raises_naming_it(cap, error):
    with pytest.raises(error, match=f"max_weight.*{re.escape(repr(cap))}"):
        gg.coarsen(laplace3d(4), "hec", max_weight=cap)


def test_cap_with_another_mapping_raises():
    with pytest.raises(ValueError, match="method='mis2'"):
        gg.coarsen(laplace3d(4), "mis2", max_weight=10)

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla
from hypothesis import given
from hypothesis import strategies as st

import gbgraph as gg
from gbgraph.generators import laplace3d

from reference import cluster_gauss_seidel_reference
from strategies import graphs


def _matrix(G, seed, symmetric=False):
    """A diagonally dominant matrix with the pattern of G: unsymmetric values, or symmetric
    ones (the upper triangle mirrored), which the symmetric sweeps need."""
    G = sp.csr_array(G)
    rng = np.random.default_rng(seed)
    A = sp.csr_array((rng.uniform(-1, 1, G.nnz), G.indices, G.indptr), shape=G.shape)
    if symmetric:
        upper = sp.triu(A, 1)
        A = sp.csr_array(upper + upper.T)
    return sp.csr_array(A + sp.diags_array(abs(A).sum(axis=1) + rng.uniform(0.5, 2, G.shape[0])))


def _coarse_coupled(A, labels):
    """Pairs of distinct clusters joined by an entry of A or Aᵀ."""
    coo = sp.coo_array(A)
    return {(labels[i], labels[j]) for i, j in zip(coo.row, coo.col) if labels[i] != labels[j]}


@given(graphs(), st.integers(0, 2**32 - 1), st.booleans(), st.integers(1, 2))
def test_point_equals_sequential_reference(G, seed, symmetric, sweeps):
    A = _matrix(G, seed, symmetric)
    b = np.random.default_rng(seed + 1).standard_normal(A.shape[0])
    M = gg.solvers.multicolor_gauss_seidel(A, symmetric=symmetric, sweeps=sweeps)
    assert gg.validate.is_coloring(G, M.colors)
    expected = cluster_gauss_seidel_reference(A, b, np.arange(A.shape[0]), M.colors, symmetric, sweeps)
    np.testing.assert_allclose(M @ b, expected, rtol=1e-12, atol=1e-12)


@given(graphs(), st.integers(0, 2**32 - 1), st.booleans(), st.integers(1, 2), st.data())
def test_cluster_equals_algorithm_4(G, seed, symmetric, sweeps, data):
    A = _matrix(G, seed, symmetric)
    n = A.shape[0]
    labels = np.asarray(data.draw(st.lists(st.integers(0, max(1, n // 3)), min_size=n, max_size=n)), np.int64)
    b = np.random.default_rng(seed + 1).standard_normal(n)
    M = gg.solvers.cluster_gauss_seidel(A, labels, symmetric=symmetric, sweeps=sweeps)
    compact = np.unique(labels, return_inverse=True)[1]
    np.testing.assert_array_equal(M.labels, compact)
    assert all(M.colors[p] != M.colors[q] for p, q in _coarse_coupled(A, compact))
    expected = cluster_gauss_seidel_reference(A, b, compact, M.colors, symmetric, sweeps)
    np.testing.assert_allclose(M @ b, expected, rtol=1e-12, atol=1e-12)


def test_cluster_steps_follow_the_largest_cluster_of_each_color():
    A = laplace3d(6, 5, 4)
    labels = np.arange(A.shape[0]) // 7
    M = gg.solvers.cluster_gauss_seidel(A, labels)
    sizes = np.bincount(labels)
    assert M.steps == sum(sizes[M.colors == c].max() for c in range(M.n_colors))


def test_singleton_clusters_are_point_gauss_seidel():
    A = _matrix(laplace3d(5), 0, symmetric=True)
    b = np.random.default_rng(0).standard_normal(A.shape[0])
    cluster = gg.solvers.cluster_gauss_seidel(A, np.arange(A.shape[0])[::-1])
    point = gg.solvers.multicolor_gauss_seidel(A, colors=cluster.colors[::-1])
    np.testing.assert_allclose(cluster @ b, point @ b, rtol=1e-13)


def test_aggregation_object_with_labels():
    class Aggregation:
        labels = np.arange(125) // 5

    A = laplace3d(5)
    b = np.ones(125)
    np.testing.assert_array_equal(gg.solvers.cluster_gauss_seidel(A, Aggregation()) @ b,
                                  gg.solvers.cluster_gauss_seidel(A, Aggregation.labels) @ b)


@pytest.mark.skipif(not hasattr(gg, "aggregate"), reason="gg.aggregate (the aggregation issue) is not merged")
def test_default_aggregation_is_mis2_aggregation():
    A = laplace3d(8)
    M = gg.solvers.cluster_gauss_seidel(A)
    np.testing.assert_array_equal(M.labels, np.asarray(gg.aggregate(A, "mis2").labels))
    assert M.colors.size < A.shape[0] / 4


@pytest.mark.parametrize("make", [
    lambda A: gg.solvers.multicolor_gauss_seidel(A),
    lambda A: gg.solvers.multicolor_gauss_seidel(A, sweeps=2),
    lambda A: gg.solvers.cluster_gauss_seidel(A, np.arange(A.shape[0]) // 8),
])
def test_symmetric_variants_are_symmetric_positive_definite(make):
    A = laplace3d(5)
    M = make(A)
    dense = M @ np.eye(A.shape[0])
    np.testing.assert_allclose(dense, dense.T, atol=1e-13)
    assert np.linalg.eigvalsh((dense + dense.T) / 2).min() > 0


@pytest.mark.parametrize("make", [
    lambda A: gg.solvers.multicolor_gauss_seidel(A),
    lambda A: gg.solvers.cluster_gauss_seidel(A, np.arange(A.shape[0]) // 10),
])
def test_preconditioned_krylov_converges(make):
    A = laplace3d(10)
    b = np.ones(A.shape[0])
    M = make(A)
    iterations = {}
    for name, solver, kwargs in [("cg", sla.cg, {}), ("gmres", sla.gmres, {"restart": 50, "callback_type": "pr_norm"})]:
        count = []
        x, info = solver(A, b, M=M, rtol=1e-8, callback=lambda _: count.append(1), **kwargs)
        assert info == 0 and np.linalg.norm(b - A @ x) <= 1e-7 * np.linalg.norm(b)
        plain = []
        solver(A, b, rtol=1e-8, callback=lambda _: plain.append(1), **kwargs)
        iterations[name] = (len(count), len(plain))
    assert all(with_m < without for with_m, without in iterations.values()), iterations


def test_accepts_dense_and_other_sparse_formats():
    A = _matrix(laplace3d(4), 3, symmetric=True)
    b = np.arange(A.shape[0], dtype=float)
    expected = gg.solvers.multicolor_gauss_seidel(A) @ b
    for variant in (A.toarray(), sp.csc_matrix(A), sp.coo_array(A)):
        np.testing.assert_allclose(gg.solvers.multicolor_gauss_seidel(variant) @ b, expected, rtol=1e-14)
    assert (gg.solvers.multicolor_gauss_seidel(A) @ b[:, None]).shape == (A.shape[0], 1)


@pytest.mark.parametrize(("make", "error", "message"), [
    (lambda: gg.solvers.multicolor_gauss_seidel(sp.csr_array(np.ones((2, 3)))), ValueError, r"square, got shape \(2, 3\)"),
    (lambda: gg.solvers.multicolor_gauss_seidel(sp.diags_array([1.0, 0.0, 2.0, 0.0])), ValueError,
     r"zero diagonal entry in row 1 \(2 such rows\)"),
    (lambda: gg.solvers.cluster_gauss_seidel(sp.diags_array([0.0, 1.0]), [0, 1]), ValueError, "row 0"),
    (lambda: gg.solvers.multicolor_gauss_seidel(sp.eye(3, dtype=complex)), TypeError, "real values, got complex128"),
    (lambda: gg.solvers.multicolor_gauss_seidel([[1.0]]), TypeError, "got list"),
    (lambda: gg.solvers.multicolor_gauss_seidel(laplace3d(2), colors=[0] * 8), ValueError,
     "rows 0 and 1 are coupled and both have color 0"),
    (lambda: gg.solvers.multicolor_gauss_seidel(laplace3d(2), colors=[0, 1]), ValueError, r"shape \(8,\)"),
    (lambda: gg.solvers.cluster_gauss_seidel(laplace3d(2), [0, 1]), ValueError, r"one non-negative integer per row"),
    (lambda: gg.solvers.cluster_gauss_seidel(laplace3d(2), [-1] * 8), ValueError, "non-negative"),
    (lambda: gg.solvers.multicolor_gauss_seidel(laplace3d(2), sweeps=0), ValueError, "sweeps must be a positive"),
])
def test_bad_input(make, error, message):
    with pytest.raises(error, match=message):
        make()


BUILDERS = [gg.solvers.multicolor_gauss_seidel, gg.solvers.cluster_gauss_seidel]


@pytest.mark.parametrize("build", BUILDERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize("dense", [False, True])
def test_non_finite_entries_are_rejected(build, bad, dense):
    A = sp.lil_array(laplace3d(3))
    A[1, 4] = A[4, 1] = A[20, 20] = bad
    A = A.toarray() if dense else sp.csr_array(A)
    with pytest.raises(ValueError, match=rf"A has 3 NaN or infinite entries; the first is A\[1, 4\] = {bad}"):
        build(A)


@pytest.mark.parametrize("build", BUILDERS, ids=lambda f: f.__name__)
def test_duplicates_summing_to_infinity_are_rejected(build):
    rows, cols = np.array([0, 0, 1, 1, 0]), np.array([0, 0, 1, 0, 1])
    A = sp.coo_array((np.array([1e308, 1e308, 2.0, -1.0, -1.0]), (rows, cols)), shape=(2, 2))
    with pytest.raises(ValueError, match=r"A has 1 NaN or infinite entries; the first is A\[0, 0\] = inf"):
        build(A)


@pytest.mark.parametrize("build", BUILDERS, ids=lambda f: f.__name__)
def test_empty_matrix(build):
    M = build(sp.csr_array((0, 0)))
    assert M.shape == (0, 0) and M.steps == 0 and M.n_colors == 0
    assert (M @ np.zeros(0)).shape == (0,)


@pytest.mark.parametrize("build", BUILDERS, ids=lambda f: f.__name__)
def test_symmetric_sweeps_reject_asymmetric_values(build):
    A = sp.lil_array(laplace3d(3))
    A[0, 1], A[1, 0] = -1.0, -5.0  # a symmetric pattern, values 4 apart
    A[2, 5] = -1.5  # and 0.5 apart (a 3 × 3 × 3 grid has 54 edges, 108 off-diagonal entries)
    A = sp.csr_array(A)
    with pytest.raises(gg.AsymmetricValuesError, match=r"4 of its 108 off-diagonal entries A\[i, j\] differ from "
                       r"A\[j, i\]; the largest difference is \|A\[0, 1\] - A\[1, 0\]\| = \|-1.0 - -5.0\| = 4.0; "
                       r"symmetric Gauss-Seidel.*gg.symmetrize\(A, values=\"max\"\).*symmetric=False") as e:
        build(A)
    assert (e.value.position, e.value.values, e.value.count) == ((0, 1), (-1.0, -5.0), 4)
    b = np.arange(27.0)
    forward = build(A, symmetric=False)  # forward sweeps take any matrix
    assert np.linalg.norm(b - A @ (forward @ b)) < np.linalg.norm(b)
    M = build(gg.symmetrize(A, values="max"))  # the remedy the message names
    dense = M @ np.eye(27)
    np.testing.assert_allclose(dense, dense.T, atol=1e-13)


def test_symmetric_sweeps_reject_one_way_entries():
    A = sp.lil_array(np.eye(3) * 4)
    A[0, 2] = 1.0  # no A[2, 0]: it reads 0
    with pytest.raises(gg.AsymmetricValuesError, match=r"\|A\[0, 2\] - A\[2, 0\]\| = \|1.0 - 0.0\| = 1.0"):
        gg.solvers.multicolor_gauss_seidel(sp.csr_array(A))

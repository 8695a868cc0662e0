import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.generators import elasticity3d, laplace3d

JACOBI = ("jacobi", {"omega": 2.0 / 3.0, "iterations": 2})


@pytest.mark.parametrize("aggregation", ["mis2", "mis2_basic"])
def test_levels_use_gbgraph_aggregates(aggregation):
    A = laplace3d(14, 12, 10)
    ml = gg.amg.smoothed_aggregation_solver(A, aggregation, keep=True, max_coarse=20)
    assert len(ml.levels) >= 3
    for fine, coarse in zip(ml.levels, ml.levels[1:]):
        agg = gg.aggregate(fine.C, aggregation)
        np.testing.assert_array_equal(fine.AggOp.indices, agg.labels)  # one entry per row
        assert fine.P.shape == (fine.A.shape[0], agg.n_aggregates)
        expected = (fine.R @ fine.A @ fine.P).toarray()
        np.testing.assert_allclose(coarse.A.toarray(), expected, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("aggregation", ["mis2", "mis2_basic"])
def test_solves_to_tolerance_with_cg(aggregation):
    A = laplace3d(20)
    ml = gg.amg.smoothed_aggregation_solver(A, aggregation, presmoother=JACOBI, postsmoother=JACOBI)
    b = np.random.default_rng(0).random(A.shape[0])
    residuals = []
    x = ml.solve(b, tol=1e-10, accel="cg", residuals=residuals)
    assert np.linalg.norm(b - A @ x) <= 1e-10 * np.linalg.norm(b)
    assert len(residuals) < 40


def test_levels_are_pyamgs_construction_on_our_aggregates():
    """Each level is pyamg's smoothed aggregation on our AggOp: candidates relaxed by pyamg,
    pyamg's fit_candidates, P = (I - ω/ρ D⁻¹A) T with our estimate ρ, and R A P."""
    from pyamg.aggregation import fit_candidates
    from pyamg.relaxation.utils import relaxation_as_linear_operator

    A = sp.csr_array(elasticity3d(6, 5, 4))
    ml = gg.amg.smoothed_aggregation_solver(A, max_levels=2, keep=True)
    fine, coarse = ml.levels
    relax = relaxation_as_linear_operator(("block_gauss_seidel", {"sweep": "symmetric", "iterations": 4}), A,
                                          np.zeros((A.shape[0], 1)))
    T, B = fit_candidates(fine.AggOp, relax @ np.ones((A.shape[0], 1)))
    P = T - (4.0 / 3.0 / fine.A.rho_D_inv) * (sp.diags(1.0 / A.diagonal()) @ A @ T)
    np.testing.assert_allclose(fine.P.toarray(), P.toarray(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(coarse.A.toarray(), (P.T @ A @ P).toarray(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(coarse.B, B, rtol=1e-12)


@pytest.mark.parametrize("matrix", [lambda: laplace3d(9, 8, 7), lambda: elasticity3d(4, 3, 5),
                                    lambda: sp.diags(np.linspace(1, 3, 50), format="csr") + laplace3d(50, 1, 1)])
def test_spectral_radius_estimate_is_within_pyamgs_tolerance_below_the_radius(matrix):
    from gbgraph.amg import _spectral_radius

    A = sp.csr_array(matrix())
    scale = 1.0 / np.sqrt(A.diagonal())
    exact = np.linalg.eigvalsh((A.toarray() * scale[:, None]) * scale[None, :]).max()
    rho = _spectral_radius(A, A.diagonal())
    assert 0.99 * exact <= rho <= exact * (1 + 1e-12)


def test_setup_does_not_depend_on_numpys_global_random_state():
    A = laplace3d(12, 11, 10)
    hierarchies = []
    for seed in (0, 1):
        np.random.seed(seed)  # pyamg's own estimator would draw its start vector here
        ml = gg.amg.smoothed_aggregation_solver(A, presmoother=JACOBI, postsmoother=JACOBI, max_coarse=20)
        hierarchies.append([(level.A, level.A.rho_D_inv) for level in ml.levels[:-1]])
    for (A0, rho0), (A1, rho1) in zip(*hierarchies):
        assert rho0 == rho1 and (A0 != A1).nnz == 0


_HIERARCHY_HASH = """
import hashlib, sys
import gbgraph as gg
ml = gg.amg.smoothed_aggregation_solver(gg.generators.laplace3d(30), max_coarse=20)
h = hashlib.sha256()
for level in ml.levels:
    h.update(level.A.data.tobytes())
    h.update(repr(getattr(level.A, "rho_D_inv", None)).encode())
print(h.hexdigest())
"""


def test_setup_does_not_depend_on_the_blas_threads():
    """ρ's dot products are numpy's pairwise sums, not BLAS's: OpenBLAS splits a dot of 27,000
    entries by its thread count, which moved ρ, P and every coarse operator in the last bits."""
    import os
    import subprocess
    import sys

    digests = set()
    for threads in ("1", "2"):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": threads, "OMP_NUM_THREADS": threads, "MKL_NUM_THREADS": threads}
        run = subprocess.run([sys.executable, "-c", _HIERARCHY_HASH], capture_output=True, text=True, env=env,
                             check=True)
        digests.add(run.stdout.split()[-1])
    assert len(digests) == 1


def test_strength_options_and_callable():
    from gbgraph.algorithms.coarsen import CoarseningStallWarning

    A = laplace3d(10)
    for strength in ("symmetric", "classical", lambda M: abs(M)):
        ml = gg.amg.smoothed_aggregation_solver(A, strength=strength, max_coarse=30)
        assert len(ml.levels) > 1
    # theta = 0.1 drops most couplings of the second level's operator: its aggregation stalls
    with pytest.warns(CoarseningStallWarning, match="level 2 would keep"):
        ml = gg.amg.smoothed_aggregation_solver(A, strength=("symmetric", {"theta": 0.1}), max_coarse=30)
    assert len(ml.levels) == 2


@pytest.mark.parametrize(("kwargs", "error", "message"), [
    ({"aggregation": "standard"}, ValueError, "aggregation must be one of"),
    ({"strength": "ode"}, ValueError, "strength must be None"),
    ({"symmetry": "nonsymmetric"}, ValueError, "symmetry must be"),
    ({"B": np.ones(5)}, ValueError, "B must have 1000 rows"),
])
def test_bad_arguments(kwargs, error, message):
    with pytest.raises(error, match=message):
        gg.amg.smoothed_aggregation_solver(laplace3d(10), **kwargs)


def test_bad_matrices():
    with pytest.raises(ValueError, match=r"must be square, got shape \(3, 4\)"):
        gg.amg.smoothed_aggregation_solver(sp.csr_array((3, 4)))
    with pytest.raises(TypeError, match="must be real"):
        gg.amg.smoothed_aggregation_solver(sp.csr_array(np.eye(3, dtype=complex)))


def test_nonfinite_and_asymmetric_matrices_are_rejected():
    A = sp.lil_array(laplace3d(4))
    A[0, 1] = np.nan
    with pytest.raises(ValueError, match=r"A has 1 NaN or infinite entries; the first is A\[0, 1\] = nan"):
        gg.amg.smoothed_aggregation_solver(sp.csr_array(A))
    A[0, 1] = -3.0  # A[1, 0] = -1
    with pytest.raises(gg.AsymmetricValuesError, match=r"\|A\[0, 1\] - A\[1, 0\]\| = \|-3.0 - -1.0\| = 2.0; "
                       r"symmetry='hermitian' declares A symmetric"):
        gg.amg.smoothed_aggregation_solver(sp.csr_array(A))
    ml = gg.amg.smoothed_aggregation_solver(gg.symmetrize(sp.csr_array(A), values="max"))
    assert len(ml.levels) >= 2


def test_stalled_aggregation_stops_the_hierarchy():
    # 4·I: no edges, every row its own aggregate; the hierarchy used to repeat 36-row levels
    from gbgraph.algorithms.coarsen import CoarseningStallWarning

    A = sp.csr_array(4.0 * np.eye(36))
    with pytest.warns(CoarseningStallWarning, match="level 1 would keep 36 of 36 rows"):
        ml = gg.amg.smoothed_aggregation_solver(A, max_coarse=10)
    assert len(ml.levels) == 1
    b = np.arange(36.0)
    np.testing.assert_allclose(ml.solve(b, tol=1e-12), b / 4)


def test_stall_after_coarsening_keeps_the_levels_before():
    # a path coarsens, then its coarse operator is made diagonal: the second level stalls
    from gbgraph.algorithms.coarsen import CoarseningStallWarning

    path = sp.diags([-np.ones(99), 2 * np.ones(100), -np.ones(99)], [-1, 0, 1], format="csr")
    ml = gg.amg.smoothed_aggregation_solver(path, max_coarse=10, max_levels=2)
    coarse = ml.levels[1].A.shape[0]
    diagonal = lambda M: sp.diags(M.diagonal(), format="csr") if M.shape[0] == coarse else M
    with pytest.warns(CoarseningStallWarning, match=f"level 2 would keep {coarse} of {coarse} rows"):
        ml = gg.amg.smoothed_aggregation_solver(path, strength=diagonal, max_coarse=10)
    assert [level.A.shape[0] for level in ml.levels] == [100, coarse]


def test_large_galerkin_products_have_sorted_rows(monkeypatch):
    # large levels get sorted rows and int64 indices; here every level does
    monkeypatch.setattr(gg.amg, "_SORTED_GALERKIN", 0)
    A = laplace3d(11, 10, 9)
    ml = gg.amg.smoothed_aggregation_solver(A, max_coarse=20)
    assert len(ml.levels) >= 3
    for fine, coarse in zip(ml.levels, ml.levels[1:]):
        assert isinstance(coarse.A, sp.csr_array) and coarse.A.indices.dtype == np.int64
        assert all(np.all(np.diff(coarse.A.indices[a:b]) > 0) for a, b in zip(coarse.A.indptr, coarse.A.indptr[1:]))
        np.testing.assert_allclose(coarse.A.toarray(), (fine.R @ fine.A @ fine.P).toarray(), rtol=1e-12, atol=1e-12)

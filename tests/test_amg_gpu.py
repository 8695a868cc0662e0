"""Smoothed-aggregation AMG and the smoothers on the GPU against the CPU path: the same
aggregates level by level, the operators to rounding, CG iterations within one; and the
CPU's errors for bad input. The setup's device-independent half (gbgraph.amg.setup) also
runs here on the CPU, against pyamg's construction."""

import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from conftest import gpu_available
from gbgraph.amg import _checked_matrix
from gbgraph.amg.multilevel import MultilevelSolver
from gbgraph.amg.setup import build_levels
from gbgraph.solvers.polynomial import product
from gbgraph.generators import elasticity3d, laplace3d, rigid_body_modes

JACOBI = ("jacobi", {"omega": 2.0 / 3.0, "iterations": 2})
OPTIONS = {
    "jacobi": dict(presmoother=JACOBI, postsmoother=JACOBI, improve_candidates=None),
    "chebyshev": dict(presmoother="chebyshev", postsmoother="chebyshev",
                      improve_candidates=[("jacobi", {"iterations": 3}), None]),
}
def _gpu(f):
    return pytest.mark.gpu(pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")(f))




def _host(M):
    return sp.csr_array(M.get() if hasattr(M, "get") else M)


def _same_operators(cpu_levels, levels, rtol=1e-11):
    assert len(levels) == len(cpu_levels)
    for a, b in zip(cpu_levels, levels):
        for name in ("A", "P"):
            if hasattr(a, name):
                x, y = _host(getattr(a, name)), _host(getattr(b, name))
                assert x.shape == y.shape
                assert abs(x - y).max() <= rtol * abs(x).max()


def _matrices():
    yield "laplace3d", sp.csr_array(laplace3d(14, 12, 10)), None
    yield "elasticity3d", sp.csr_array(elasticity3d(6)), rigid_body_modes(6)


@pytest.mark.parametrize("options", sorted(OPTIONS))
@pytest.mark.parametrize("name, A, B", list(_matrices()), ids=["laplace3d", "elasticity3d"])
def test_setup_on_host_arrays_is_pyamgs_construction(options, name, A, B):
    cpu = gg.amg.smoothed_aggregation_solver(A, B=B, **OPTIONS[options])
    levels = build_levels(sp.csr_matrix(_checked_matrix(A, "hermitian")), B=B, **OPTIONS[options])
    _same_operators(cpu.levels, levels)
    b = np.random.default_rng(1).random(A.shape[0])
    r_cpu, r_here = [], []
    cpu.solve(b, tol=1e-10, accel="cg", residuals=r_cpu)
    MultilevelSolver(levels).solve(b, tol=1e-10, accel="cg", residuals=r_here)
    assert abs(len(r_cpu) - len(r_here)) <= 1


def test_rigid_body_modes_are_in_the_kernel_away_from_the_boundary():
    A, B = elasticity3d(7, 6, 5), rigid_body_modes(7, 6, 5)
    p = gg.generators.grid_coordinates(7, 6, 5, dofs=3)
    inside = np.all((p >= 2) & (p <= np.array([4, 3, 2])), axis=1)  # two points from every face
    assert inside.any()
    assert np.abs((A @ B)[inside]).max() < 1e-12 * abs(A).max()
    assert np.linalg.matrix_rank(B) == 6


@_gpu
@pytest.mark.parametrize("options", sorted(OPTIONS))
@pytest.mark.parametrize("name, A, B", list(_matrices()), ids=["laplace3d", "elasticity3d"])
@pytest.mark.parametrize("aggregation", ["mis2", "mis2_basic"])
def test_gpu_hierarchy_is_the_cpus(aggregation, name, A, B, options):
    import cupy
    import cupyx.scipy.sparse as csp

    cpu = gg.amg.smoothed_aggregation_solver(A, aggregation, B=B, keep=True, **OPTIONS[options])
    ml = gg.amg.smoothed_aggregation_solver(csp.csr_matrix(A), aggregation, B=B, keep=True, **OPTIONS[options])
    assert isinstance(ml, MultilevelSolver)
    for a, b in zip(cpu.levels[:-1], ml.levels[:-1]):
        np.testing.assert_array_equal(a.AggOp.indices, b.labels.get())  # the same aggregates
    _same_operators(cpu.levels, ml.levels)
    b = np.random.default_rng(2).random(A.shape[0])
    r_cpu, r_gpu = [], []
    cpu.solve(b, tol=1e-10, accel="cg", residuals=r_cpu)
    x = ml.solve(cupy.asarray(b), tol=1e-10, accel="cg", residuals=r_gpu)
    assert isinstance(x, cupy.ndarray)
    assert abs(len(r_cpu) - len(r_gpu)) <= 1
    assert np.linalg.norm(b - A @ x.get()) <= 1e-10 * np.linalg.norm(b)
    assert ml.operator_complexity() == pytest.approx(cpu.operator_complexity(), rel=1e-4)
    assert ml.grid_complexity() == pytest.approx(cpu.grid_complexity(), rel=1e-4)


def _candidates():
    yield "laplace3d", sp.csr_array(laplace3d(14, 12, 10)), np.ones((1680, 1))
    yield "elasticity3d", sp.csr_array(elasticity3d(6)), rigid_body_modes(6)
    # a seventh candidate in the span of the first: Gram-Schmidt drops it in every aggregate
    yield "dropped", sp.csr_array(elasticity3d(6)), np.hstack((rigid_body_modes(6), 2.0 * rigid_body_modes(6)[:, :1]))


@_gpu
@pytest.mark.parametrize("name, A, B", list(_candidates()), ids=["laplace3d", "elasticity3d", "dropped"])
def test_gpu_prolongators_are_the_cpus_bit_for_bit(name, A, B):
    """The GPU's kernels for T and P = T - ω/ρ D⁻¹A T (a thread per aggregate or row) against
    the CPU's vectorised sums and scipy's products, given the same ρ: the same bits."""
    import cupy
    import cupyx.scipy.sparse as csp

    from gbgraph.amg.setup import fit_candidates, smoothed_prolongator

    labels = gg.aggregate(A, "mis2").labels
    k = int(labels.max()) + 1
    T, R = fit_candidates(labels, k, B)
    dT, dR = fit_candidates(cupy.asarray(labels), k, cupy.asarray(B))
    np.testing.assert_array_equal(dR.get(), R)
    for field in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(dT, field).get(), getattr(T, field))
    if name == "dropped":
        assert not R.reshape(k, 7, 7)[:, 6, 6].any() and not T.data.reshape(-1, 7)[:, 6].any()
    P, rho = smoothed_prolongator(sp.csr_matrix(A), T)
    dP, _ = smoothed_prolongator(csp.csr_matrix(A), dT, rho=rho)
    _assert_same_bits(P, dP)


def _assert_same_bits(cpu, gpu):
    cpu = sp.csr_matrix(cpu)
    cpu.sort_indices()  # scipy's products leave the columns of a row in the order first met
    assert gpu.nnz == cpu.nnz and not (cpu.data == 0).any()
    for field in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(gpu, field).get(), getattr(cpu, field))


@_gpu
@pytest.mark.parametrize("smoother", ["gauss_seidel", ("cluster_gauss_seidel", {"sweep": "symmetric"}), "chebyshev"])
def test_gpu_defaults_and_smoothers_solve_to_tolerance(smoother):
    import cupy
    import cupyx.scipy.sparse as csp
    from cupyx.scipy.sparse.linalg import LinearOperator

    A = laplace3d(20)
    ml = gg.amg.smoothed_aggregation_solver(csp.csr_matrix(A), presmoother=smoother, postsmoother=smoother)
    b = cupy.asarray(np.random.default_rng(3).random(A.shape[0]))
    residuals = []
    x, info = ml.solve(b, tol=1e-8, accel="cg", residuals=residuals, return_info=True)
    assert info == 0 and residuals[-1] < 1e-8 * float(cupy.linalg.norm(b)) and len(residuals) < 30
    assert float(cupy.linalg.norm(b - csp.csr_matrix(A) @ x)) <= 1e-8 * float(cupy.linalg.norm(b))
    M = ml.aspreconditioner()
    assert isinstance(M, LinearOperator) and isinstance(M @ b, cupy.ndarray)
    assert "Operator Complexity" in repr(ml)


@_gpu
@pytest.mark.parametrize("smoother", [JACOBI, ("jacobi", {"omega": 0.8, "iterations": 3}), None,
                                      ("cluster_gauss_seidel", {"sweep": "symmetric"}), "chebyshev"])
def test_gpu_cycle_kernels_are_the_reference_cycle(smoother):
    """The cycle as a CUDA graph of gbgraph's kernels (or, with Chebyshev, the same kernels
    uncaptured) is MultilevelSolver.cycle through cupyx's products, to rounding, from zero
    and from a given x; and every replay gives the same bits."""
    import cupy
    import cupyx.scipy.sparse as csp

    A = csp.csr_matrix(elasticity3d(6))
    ml = gg.amg.smoothed_aggregation_solver(A, B=rigid_body_modes(6), presmoother=smoother, postsmoother=smoother,
                                            improve_candidates=None, max_coarse=40)
    assert len(ml.levels) >= 3 and ml._device_cycle.captured == (smoother != "chebyshev")
    rng = np.random.default_rng(6)
    b, x0 = cupy.asarray(rng.random(A.shape[0])), cupy.asarray(rng.random(A.shape[0]))
    for start in (None, x0):
        reference = cupy.zeros_like(b) if start is None else start.copy()
        ml.cycle(reference, b)
        first, again = ml._device_cycle(b, start), ml._device_cycle(b, start)
        scale = float(cupy.abs(reference).max())
        assert float(cupy.abs(first - reference).max()) <= 1e-12 * scale
        assert bool((first == again).all())
    np.testing.assert_allclose(product(A)(b).get(), (A @ b).get(), rtol=1e-13, atol=1e-13)


@_gpu
def test_gpu_stationary_solve_reaches_the_tolerance():
    import cupy
    import cupyx.scipy.sparse as csp

    A = csp.csr_matrix(laplace3d(16))
    ml = gg.amg.smoothed_aggregation_solver(A, presmoother=JACOBI, postsmoother=JACOBI, improve_candidates=None)
    b = cupy.asarray(np.random.default_rng(7).random(A.shape[0]))
    residuals = []
    x, info = ml.solve(b, tol=1e-8, maxiter=200, residuals=residuals, return_info=True)
    assert info == 0 and all(later < earlier for earlier, later in zip(residuals, residuals[1:]))
    assert float(cupy.linalg.norm(b - A @ x)) < 1e-8 * float(cupy.linalg.norm(b))


@pytest.mark.parametrize("device", ["cpu", pytest.param("gpu", marks=[
    pytest.mark.gpu, pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")])])
def test_galerkin_product_in_row_blocks_is_the_whole_product(device, monkeypatch):
    """The setup's sparse products, split into blocks of rows when they would have many
    intermediate products, equal scipy's product of the whole matrices."""
    import gbgraph.amg.setup as setup

    A = sp.csr_matrix(laplace3d(12))
    P = sp.random(A.shape[0], 90, density=0.05, format="csr", random_state=3)
    expected = (A @ P).tocsr()
    if device == "gpu":
        import cupyx.scipy.sparse as csp

        A, P = csp.csr_matrix(A), csp.csr_matrix(P)
    for most in (10**9, 500, 1):  # one product, blocks of rows, a row at a time
        monkeypatch.setattr(setup, "_PRODUCTS_AT_ONCE", most)
        product = _host(setup._product(A, P))
        assert product.shape == expected.shape
        assert abs(product - expected).max() <= 1e-14 * abs(expected).max()


@_gpu
@pytest.mark.parametrize("kind", ["point", "cluster"])
@pytest.mark.parametrize("symmetric", [True, False])
def test_gpu_gauss_seidel_is_the_cpus(kind, symmetric):
    import cupy
    import cupyx.scipy.sparse as csp

    A = sp.csr_array(elasticity3d(5))
    build = gg.solvers.multicolor_gauss_seidel if kind == "point" else gg.solvers.cluster_gauss_seidel
    cpu, gpu_op = build(A, symmetric=symmetric, sweeps=2), build(csp.csr_matrix(A), symmetric=symmetric, sweeps=2)
    b = np.random.default_rng(4).random(A.shape[0])
    y = gpu_op @ cupy.asarray(b)
    assert isinstance(y, cupy.ndarray)
    np.testing.assert_allclose(y.get(), cpu @ b, rtol=1e-12, atol=1e-12 * np.abs(cpu @ b).max())
    assert gpu_op.n_colors == cpu.n_colors
    with pytest.raises(TypeError, match="cupy array"):
        gpu_op @ b


@_gpu
@pytest.mark.parametrize("size", [400, 3375])  # clusters in shared memory; one cluster too large for it
def test_gpu_cluster_gauss_seidel_with_large_clusters(size):
    """Clusters of hundreds of rows, and one of the whole matrix (its scratch in global
    memory), against the CPU's sweeps with the same clusters; each application gives the
    same bits."""
    import cupy
    import cupyx.scipy.sparse as csp

    A = sp.csr_array(laplace3d(15))
    labels = np.arange(A.shape[0]) // size
    cpu = gg.solvers.cluster_gauss_seidel(A, labels, sweeps=2)
    gpu_op = gg.solvers.cluster_gauss_seidel(csp.csr_matrix(A), cupy.asarray(labels), sweeps=2)
    assert gpu_op.layout.width == min(size, A.shape[0])
    b = cupy.asarray(np.random.default_rng(8).random(A.shape[0]))
    first, again = gpu_op @ b, gpu_op @ b
    expected = cpu @ b.get()
    np.testing.assert_allclose(first.get(), expected, rtol=1e-12, atol=1e-12 * np.abs(expected).max())
    assert bool((first == again).all())


@_gpu
@pytest.mark.parametrize("name", ["jacobi", "chebyshev"])
def test_gpu_polynomial_smoothers_are_the_cpus(name):
    import cupy
    import cupyx.scipy.sparse as csp

    A = sp.csr_array(laplace3d(10))
    build = getattr(gg.solvers, name)
    b = np.random.default_rng(5).random(A.shape[0])
    y = build(csp.csr_matrix(A), sweeps=2) @ cupy.asarray(b)
    np.testing.assert_allclose(y.get(), build(A, sweeps=2) @ b, rtol=1e-12)


@_gpu
def test_gpu_bad_input_raises_the_cpus_errors():
    import cupy
    import cupyx.scipy.sparse as csp

    from gbgraph.errors import AsymmetricValuesError

    A = sp.csr_array(laplace3d(6))
    with pytest.raises(ValueError, match="square"):
        gg.amg.smoothed_aggregation_solver(csp.csr_matrix(sp.random(5, 6, density=0.5, random_state=0)))
    with pytest.raises(ValueError, match="B must have 216 rows"):
        gg.amg.smoothed_aggregation_solver(csp.csr_matrix(A), B=np.ones((5, 1)))
    asymmetric = sp.lil_array(A)
    asymmetric[0, 1] = -3.0
    with pytest.raises(AsymmetricValuesError, match=r"\|A\[0, 1\] - A\[1, 0\]\|"):
        gg.amg.smoothed_aggregation_solver(csp.csr_matrix(sp.csr_array(asymmetric)))
    infinite = A.copy()
    infinite.data[3] = np.inf
    with pytest.raises(ValueError, match="NaN or infinite"):
        gg.amg.smoothed_aggregation_solver(csp.csr_matrix(infinite))
    ml = gg.amg.smoothed_aggregation_solver(csp.csr_matrix(A))
    with pytest.raises(TypeError, match="cupy array"):
        ml.solve(np.ones(A.shape[0]))
    with pytest.raises(ValueError, match="accel"):
        ml.solve(cupy.ones(A.shape[0]), accel="bicgstab")
    zero = sp.lil_array(A)
    zero[4, 4] = 0.0
    for build in (gg.solvers.multicolor_gauss_seidel, gg.solvers.cluster_gauss_seidel):
        with pytest.raises(ValueError, match="zero diagonal entry in row 4"):
            build(csp.csr_matrix(sp.csr_array(zero)))

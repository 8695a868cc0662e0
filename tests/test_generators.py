import numpy as np
import pytest
import scipy.sparse as sp

from gbgraph.generators import elasticity3d, laplace3d


def _laplace_by_kron(nx, ny, nz):
    def second_difference(m):
        return sp.diags([-np.ones(m - 1), -np.ones(m - 1)], [-1, 1], shape=(m, m))
    I = sp.identity
    return (sp.kron(I(nz), sp.kron(I(ny), second_difference(nx))) + sp.kron(I(nz), sp.kron(second_difference(ny), I(nx)))
            + sp.kron(second_difference(nz), sp.kron(I(ny), I(nx))) + 6 * sp.identity(nx * ny * nz))


def _elasticity_by_kron(nx, ny, nz):
    """K ⊗ B with K = 27 I - (T_z ⊗ T_y ⊗ T_x), T the tridiagonal pattern of ones."""
    def tridiagonal(m):
        return sp.diags([np.ones(m - 1), np.ones(m), np.ones(m - 1)], [-1, 0, 1], shape=(m, m))
    K = 27 * sp.identity(nx * ny * nz) - sp.kron(tridiagonal(nz), sp.kron(tridiagonal(ny), tridiagonal(nx)))
    B = np.array([[1.0, 0.5, 0.5], [0.5, 1.0, 0.5], [0.5, 0.5, 1.0]])
    return sp.kron(K, B)


def assert_same_csr(A, reference):
    """Equal CSR arrays, dtypes included: the reference in canonical form (sorted, summed)."""
    reference = sp.csr_array(reference)
    reference.sum_duplicates()
    assert isinstance(A, sp.csr_array) and A.shape == reference.shape
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(A, name), getattr(reference, name), err_msg=name)
    assert A.indptr.dtype == A.indices.dtype == np.int32 and A.data.dtype == np.float64


DIMS = [(1, 1, 1), (3, 1, 1), (1, 6, 2), (2, 3, 4), (7, 5, 3), (4, 9, 2), (10, 10, 10)]


@pytest.mark.parametrize("dims", DIMS)
def test_laplace3d_equals_kronecker_sum(dims):
    assert_same_csr(laplace3d(*dims), _laplace_by_kron(*dims))


@pytest.mark.parametrize("dims", DIMS)
def test_elasticity3d_equals_kronecker_product(dims):
    assert_same_csr(elasticity3d(*dims), _elasticity_by_kron(*dims))


def test_threads_do_not_change_the_matrices():
    import gbgraph as gg

    previous = gg.backends.set_threads(1)
    try:
        one = laplace3d(13, 11, 9), elasticity3d(6, 5, 7)
    finally:
        gg.backends.set_threads(previous)
    for A, B in zip(one, (laplace3d(13, 11, 9), elasticity3d(6, 5, 7))):
        assert_same_csr(A, B)


def test_laplace3d_galeri_numbering():
    A = laplace3d(4, 3, 2)
    x, y, z = 1, 1, 0
    i = x + y * 4 + z * 12
    assert sorted(A[[i]].indices.tolist()) == [i - 4, i - 1, i, i + 1, i + 4, i + 12]


def test_elasticity3d_pattern_and_values():
    nx, ny, nz = 4, 3, 5
    A = elasticity3d(nx, ny, nz)
    assert A.shape == (3 * nx * ny * nz,) * 2 and A.has_sorted_indices
    assert abs(A - A.T).max() == 0
    node = lambda x, y, z: x + y * nx + z * nx * ny
    centre = node(1, 1, 1)
    row = A[[3 * centre + 2]]
    neighbours = sorted(node(1 + dx, 1 + dy, 1 + dz) for dx in (-1, 0, 1) for dy in (-1, 0, 1) for dz in (-1, 0, 1))
    assert row.indices.tolist() == [3 * j + d for j in neighbours for d in range(3)]
    assert A[3 * centre + 2, 3 * centre + 2] == 26 and A[3 * centre + 2, 3 * centre] == 13
    assert A[3 * centre, 3 * node(2, 2, 2)] == -1 and A[3 * centre, 3 * node(2, 2, 2) + 1] == -0.5
    corner = A[[0]]
    assert corner.nnz == 3 * 8


def test_elasticity3d_is_positive_definite():
    assert np.linalg.eigvalsh(elasticity3d(3, 2, 2).toarray()).min() > 0


@pytest.mark.parametrize(("bad", "error", "message"), [
    (0, ValueError, "must be a positive integer, got 0"), (-2, ValueError, "must be a positive integer, got -2"),
    (2.0, TypeError, r"must be an integer, got 2.0 \(float\)"), (True, TypeError, r"must be an integer, got True"),
])
def test_bad_dimensions(bad, error, message):
    with pytest.raises(error, match=f"nx {message}"):
        laplace3d(bad)
    with pytest.raises(error, match=f"ny {message}"):
        elasticity3d(3, bad, 3)

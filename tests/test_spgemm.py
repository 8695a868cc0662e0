"""The numba SpGEMM against scipy's ``A @ B``: the same arrays, bit for bit."""

import numba
import numpy as np
import pytest
import scipy.sparse as sp

from gbgraph.backends.numba.kernels import spgemm, threads
from gbgraph.generators import laplace3d


def _random(rng, shape, density, *, index_type=np.int32, shuffle=True, duplicates=False, dtype=np.float64):
    """A CSR array of small integer values (many sums cancel to exactly 0), some empty rows,
    rows in a random column order, and repeated columns if ``duplicates``."""
    rows, cols = shape
    nnz = int(rows * cols * density)
    r = rng.integers(0, rows, nnz)
    r[r % 7 == 3] = 0  # leaves those rows empty
    c = rng.integers(0, cols, nnz)
    v = rng.integers(-2, 3, nnz).astype(dtype)
    if dtype == np.complex128:
        v = v + 1j * rng.integers(-1, 2, nnz)
    A = sp.csr_array(sp.coo_array((v, (r, c)), shape=shape))
    indices, data = A.indices.copy(), A.data.copy()
    if duplicates:  # each row's first column repeated with another value
        starts = A.indptr[:-1][np.diff(A.indptr) > 1]
        indices[starts + 1] = indices[starts]
    if shuffle:
        for a, b in zip(A.indptr[:-1], A.indptr[1:]):
            order = rng.permutation(b - a)
            indices[a:b], data[a:b] = indices[a:b][order], data[a:b][order]
    return sp.csr_array((data, indices.astype(index_type), A.indptr.astype(index_type)), shape=shape)


def _same(X, Y):
    assert type(X) is type(Y) and X.shape == Y.shape
    for x, y in [(X.indptr, Y.indptr), (X.indices, Y.indices), (X.data, Y.data)]:
        assert x.dtype == y.dtype
        assert x.tobytes() == y.tobytes()


@pytest.fixture(params=["serial", "parallel"])
def twin(request, monkeypatch):
    """Runs each product as the serial twin, or as a parallel region of two threads."""
    count = numba.get_num_threads()
    if request.param == "parallel":
        monkeypatch.setattr(threads, "PARALLEL_WORK", 0)
        numba.set_num_threads(min(2, numba.config.NUMBA_NUM_THREADS))
    yield request.param
    numba.set_num_threads(count)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("options", [{}, {"shuffle": False}, {"duplicates": True}, {"index_type": np.int64},
                                     {"dtype": np.complex128}])
def test_product_is_scipys_bit_for_bit(twin, seed, options):
    rng = np.random.default_rng(seed)
    A = _random(rng, (60, 45), 0.15, **options)
    B = _random(rng, (45, 70), 0.12, **options)
    C = A @ B
    assert np.count_nonzero(np.abs(A.toarray()) @ np.abs(B.toarray())) > C.nnz  # some sums are exactly 0
    _same(spgemm.matmat(A, B), C)
    C.sort_indices()
    _same(spgemm.matmat(A, B, ordered=True), C)
    C64 = sp.csr_array((C.data, C.indices.astype(np.int64), C.indptr.astype(np.int64)), shape=C.shape)
    _same(spgemm.matmat(A, B, ordered=True, index_type=np.int64), C64)


def test_mixed_index_and_value_types(twin):
    rng = np.random.default_rng(5)
    A = _random(rng, (30, 40), 0.2, index_type=np.int64, dtype=np.float32)
    B = _random(rng, (40, 20), 0.2)
    _same(spgemm.matmat(A, B), A @ B)


@pytest.mark.parametrize("room", [0.0, 0.3, spgemm.ROOM, 100.0])  # every row counted first .. none
def test_galerkin_product_of_a_laplacian(twin, room, monkeypatch):
    monkeypatch.setattr(spgemm, "ROOM", room)
    A = laplace3d(12)
    T = sp.csr_array((np.ones(A.shape[0]), np.arange(A.shape[0]) // 8, np.arange(A.shape[0] + 1)),
                     shape=(A.shape[0], A.shape[0] // 8))
    P = T - 0.3 * (A @ T)
    AP = spgemm.matmat(A, P)
    _same(AP, A @ P)
    _same(spgemm.matmat(sp.csr_array(P.T), AP), sp.csr_array(P.T) @ (A @ P))


def test_empty_products_and_other_formats_are_scipys():
    A = sp.csr_array((3, 4))
    B = sp.csr_array(np.eye(4))
    _same(spgemm.matmat(A, B), A @ B)
    row, column = sp.csr_array(np.array([[1.0, 0.0]])), sp.csr_array(np.array([[0.0], [1.0]]))
    _same(spgemm.matmat(row, column), row @ column)  # no entry reached
    M = sp.csr_matrix(np.eye(4))
    _same(spgemm.matmat(M, M), sp.csr_array(M @ M))


def _numpy_lanczos(A, scale, v, steps):
    """The host recurrence in numpy and scipy operations: (α, β, v, previous)."""
    previous, beta = np.zeros_like(v), 0.0
    alphas, betas = np.zeros(steps), np.zeros(steps)
    for j in range(steps):
        w = A @ (scale * v)
        w *= scale
        w -= beta * previous
        alphas[j] = alpha = np.add.reduce(w * v)
        w -= alpha * v
        betas[j] = beta = np.sqrt(np.add.reduce(w * w))
        if beta:
            w /= beta
        previous, v = v, w
    return alphas, betas, v, previous


@pytest.mark.parametrize("n", [5, 100, 130, 1000, 5000, 40000])
def test_lanczos_steps_are_numpys_and_scipys_operations_bit_for_bit(twin, n):
    from gbgraph.backends.numba.kernels import lanczos

    rng = np.random.default_rng(n)
    M = sp.random_array((n, n), density=min(1.0, 9.0 / n), rng=rng, format="csr")
    M.data *= np.exp(rng.uniform(-20, 20, M.nnz))  # wide magnitudes: any other summation order shows
    A = sp.csr_array(M + M.T + sp.eye_array(n))
    if n == 5000:  # unsorted rows, int64 indices
        A = sp.csr_array((A.data[::-1].copy(), A.indices[::-1].astype(np.int64), A.indptr.astype(np.int64)),
                         shape=A.shape)
        A = sp.csr_array(A[np.arange(n)[::-1]])
    scale = rng.uniform(0.5, 2.0, n)
    v = rng.random(n)
    v /= np.linalg.norm(v)
    steps = min(n, 23)
    expected = _numpy_lanczos(A, scale, v, steps)
    vectors = np.zeros((4, n))
    vectors[0] = v
    alphas, betas, beta = np.zeros(steps), np.zeros(steps), 0.0
    for first in range(0, steps, 10):  # in batches, as spectral_radius runs them
        beta = lanczos.lanczos_steps(A.indptr, A.indices, A.data, scale, vectors, beta, first, min(first + 10, steps),
                      lanczos.tasks(n), alphas, betas)
    for got, want in zip((alphas, betas, vectors[0], vectors[1]), expected):
        assert np.array_equal(got, want)


@pytest.mark.parametrize("n", [1, 7, 8, 127, 128, 129, 1031, 8 * 128 + 1, 100003])
def test_pairwise_sum_is_numpys(n):
    from gbgraph.backends.numba.kernels import lanczos

    rng = np.random.default_rng(n)
    w, v = rng.standard_normal(n) * np.exp(rng.uniform(-30, 30, n)), rng.standard_normal(n)
    bounds = lanczos.tasks(n)
    partial = np.array([lanczos._pairwise(w, v, 0.0, bounds[t], bounds[t + 1] - bounds[t], False)
                        for t in range(bounds.size - 1)])
    assert lanczos._up_the_tree(partial) == np.add.reduce(w * v)

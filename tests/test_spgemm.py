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


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("density", [0.005, 0.3])
def test_sorted_rows_long_and_short_are_scipys(twin, seed, density):
    # rows of tens of entries are ranked, rows longer than spgemm.RANKED sorted
    rng = np.random.default_rng(seed)
    A = _random(rng, (40, 30), 0.3)
    B = _random(rng, (30, 600), density)
    C = A @ B
    C.sort_indices()
    assert (np.diff(C.indptr).max() > spgemm.RANKED) == (density > 0.1)
    _same(spgemm.matmat(A, B, ordered=True), C)


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

"""The host Lanczos steps on a symmetric A's upper triangle (kernels/lanczos.py) against numpy's
and scipy's operations, bit for bit."""

import numpy as np
import pytest
import scipy.sparse as sp

from gbgraph.backends.numba.kernels import lanczos
from gbgraph.solvers import polynomial


def _numpy_lanczos(A, scale, v, steps):
    """The recurrence in numpy's and scipy's operations (A's whole rows): (α, β, v, previous)."""
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


def _symmetric(n, rng, index_type=np.int32, empty_rows=0, zeros=0):
    """A random A = Aᵀ bit for bit, magnitudes over many decades (another order of summation
    shows), canonical rows, some rows empty and some stored zeros."""
    M = sp.random_array((n, n), density=min(1.0, 9.0 / n), rng=rng, format="csr")
    M.data *= np.exp(rng.uniform(-20, 20, M.nnz))
    A = sp.csr_array(M + M.T + sp.diags_array(rng.uniform(0, 3, n)))
    if empty_rows:
        keep = np.ones(n, bool)
        keep[rng.choice(n, empty_rows, replace=False)] = False
        A = sp.csr_array(sp.diags_array(keep.astype(float)) @ A @ sp.diags_array(keep.astype(float)))
        A.eliminate_zeros()
    if zeros:
        A.data[rng.choice(A.nnz, zeros, replace=False)] = 0.0
        A = sp.csr_array(A + A.T) * 0.5  # the stored zeros' mirrors: zeros too, still stored
    A.sort_indices()
    return sp.csr_array((A.data, A.indices.astype(index_type), A.indptr.astype(index_type)), shape=A.shape)


def _triangle_lanczos(A, scale, v, steps):
    triangle = lanczos.upper_triangle(A.indptr, A.indices, A.data)
    recurrence = polynomial._TriangleLanczos(triangle, scale, v, steps)
    for first in range(0, steps, 7):  # in batches, a step's update left pending between them
        alphas, betas = recurrence.run(first, min(first + 7, steps))
    vectors = recurrence.vectors.copy()
    _, _, parity = lanczos.symmetric_steps(*triangle, scale, vectors, recurrence.parity, recurrence.alpha,
                                           recurrence.beta, True, 0, 1, *recurrence.plan, np.zeros(1), np.zeros(1))
    return alphas, betas, vectors[parity], vectors[1 - parity]  # one more step settled the last one's v


@pytest.mark.parametrize("n, index_type, empty_rows, zeros",
                         [(1, np.int32, 0, 0), (5, np.int32, 1, 0), (129, np.int64, 0, 3), (1000, np.int32, 30, 10),
                          (5000, np.int64, 100, 0), (40000, np.int32, 0, 50)])
def test_triangle_steps_are_numpys_and_scipys_bit_for_bit(n, index_type, empty_rows, zeros):
    rng = np.random.default_rng(n)
    A = _symmetric(n, rng, index_type, empty_rows, zeros)
    scale = rng.uniform(0.5, 2.0, n)
    v = rng.random(n)
    v /= np.linalg.norm(v)
    steps = min(n, 23)
    for got, want in zip(_triangle_lanczos(A, scale, v, steps), _numpy_lanczos(A, scale, v, steps)):
        assert np.array_equal(got, want)


def test_spectral_radius_keeps_numpys_steps_below_the_threshold():
    A = _symmetric(3000, np.random.default_rng(3))
    assert A.nnz < lanczos.TRIANGLE_ENTRIES
    assert isinstance(polynomial._host_recurrence(A, A.diagonal(), np.ones(3000), 5), polynomial._HostLanczos)


def test_spectral_radius_takes_the_triangle_where_it_may(monkeypatch):
    monkeypatch.setattr(lanczos, "TRIANGLE_ENTRIES", 0)  # a small A, as a large one takes it
    rng = np.random.default_rng(3)
    A = _symmetric(3000, rng)
    d = A.diagonal()
    taken = polynomial._host_recurrence(A, d, np.ones(3000), 5)
    assert isinstance(taken, polynomial._TriangleLanczos)
    scale = polynomial.inverse(np.sqrt(d))
    v = polynomial.start_vector(np, 3000)
    v /= np.linalg.norm(v)
    host = polynomial._HostLanczos(A, scale, v.copy(), 30)
    triangle = polynomial._host_recurrence(A, scale, v.copy(), 30)
    for first in (0, 10, 20):
        for got, want in zip(triangle.run(first, first + 10), host.run(first, first + 10)):
            assert np.array_equal(got, want)


@pytest.mark.parametrize("case", ["asymmetric value", "one bit", "unsorted", "left entry alone", "right entry alone",
                                  "duplicate"])
def test_upper_triangle_refuses_what_the_product_cannot_read_alone(case):
    rng = np.random.default_rng(7)
    A = _symmetric(200, rng)
    if case == "asymmetric value":
        A.data[A.indices > np.repeat(np.arange(200), np.diff(A.indptr))] *= 2.0  # the right entries only
    elif case == "one bit":
        k = int(np.flatnonzero(A.indices < np.repeat(np.arange(200), np.diff(A.indptr)))[5])
        A.data[k] = np.nextafter(A.data[k], np.inf)
    elif case == "unsorted":
        row = int(np.argmax(np.diff(A.indptr)))  # its last two columns swapped: right of the diagonal
        last = slice(A.indptr[row + 1] - 2, A.indptr[row + 1])
        assert A.indices[last][0] > row
        A.indices[last], A.data[last] = A.indices[last][::-1].copy(), A.data[last][::-1].copy()
    elif case.endswith("alone"):  # an entry whose mirror is not stored
        i, j = (150, 3) if case.startswith("left") else (3, 150)
        assert A[i, j] == 0 and A[j, i] == 0
        A = sp.csr_array(A + sp.csr_array(([1.0], ([i], [j])), shape=A.shape))
    else:
        row = int(np.argmax(np.diff(A.indptr)))
        A = sp.csr_array((np.insert(A.data, A.indptr[row + 1] - 1, A.data[A.indptr[row + 1] - 1]),
                          np.insert(A.indices, A.indptr[row + 1] - 1, A.indices[A.indptr[row + 1] - 1]),
                          A.indptr + (np.arange(201) > row)), shape=A.shape)
    assert lanczos.upper_triangle(A.indptr, A.indices, A.data) is None


@pytest.mark.parametrize("n", [1, 7, 8, 127, 128, 129, 130, 1031, 8 * 128 + 1, 100003])
def test_pairwise_plan_sums_as_numpy(n):
    rng = np.random.default_rng(n)
    w, v = rng.standard_normal(n) * np.exp(rng.uniform(-30, 30, n)), rng.standard_normal(n)
    ends, program = lanczos.pairwise_plan(n)
    starts = np.concatenate(([0], ends[:-1]))
    leaves = np.array([lanczos._leaf(w, v, 0.0, s, e, False) for s, e in zip(starts, ends)])
    assert ends[-1] == n and np.all(np.diff(ends) <= lanczos.BLOCK)
    assert lanczos._summed(leaves, program) == np.add.reduce(w * v)
    squares = np.array([lanczos._leaf(w, v, 0.5, s, e, True) for s, e in zip(starts, ends)])
    assert lanczos._summed(squares, program) == np.add.reduce((w - 0.5 * v) * (w - 0.5 * v))

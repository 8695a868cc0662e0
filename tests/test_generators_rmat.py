"""gbgraph.generators.rmat: properties of Graph500's R-MAT graphs, checked with scipy and
numpy on the result (and on the drawn endpoints, for the quadrant probabilities)."""

import numpy as np
import pytest
import scipy.sparse as sp

from conftest import gpu_available
from gbgraph.generators import _quadrant_thresholds, _rmat_endpoints, rmat


def degrees(A):
    return np.diff(A.indptr)


@pytest.mark.parametrize(("scale", "edge_factor", "seed"), [(1, 1, 0), (2, 3, 5), (5, 16, 0), (9, 8, 7), (12, 16, 3)])
def test_symmetric_simple_graph(scale, edge_factor, seed):
    A = rmat(scale, edge_factor, seed=seed)
    n = 2**scale
    assert isinstance(A, sp.csr_array) and A.shape == (n, n)
    assert A.indptr.dtype == A.indices.dtype == np.int32 and A.dtype == np.float64
    assert (A != A.T).nnz == 0  # symmetric pattern
    assert not A.diagonal().any()  # no self loops
    canonical = sp.csr_array(A, copy=True)
    canonical.sum_duplicates()
    assert canonical.nnz == A.nnz and np.all(canonical.data == 1)  # no duplicates, unit weights
    rows = np.repeat(np.arange(n), degrees(A))
    assert np.all((np.diff(A.indices) > 0) | (np.diff(rows) > 0))  # columns sorted within rows
    assert A.nnz % 2 == 0 and A.nnz <= 2 * edge_factor * n


def test_edge_count_close_to_graph500():
    """Graph500 draws edge_factor * 2**scale edges; at scale 14 (16 per vertex) self loops and
    duplicates remove a minority of them."""
    scale, edge_factor = 14, 16
    undirected = rmat(scale, edge_factor).nnz // 2
    assert 0.7 * edge_factor * 2**scale < undirected < edge_factor * 2**scale


def test_skewed_degrees():
    A = rmat(14)
    d = degrees(A)
    assert d.max() > 50 * d.mean()  # hubs: an Erdős–Rényi graph of this mean degree stays under 3x
    assert np.count_nonzero(d == 0) > 0.1 * A.shape[0]  # and many vertices left without edges
    assert np.median(d) < d.mean()


def test_quadrant_probabilities():
    """Before the labels are scrambled, bit l of an endpoint is 1 with probability c + d (the
    row) or b + d (the column), at every level, independently of the other levels."""
    a, b, c = 0.57, 0.19, 0.19
    scale, m = 6, 200_000
    u, v = _rmat_endpoints(np, scale, 0, m, _quadrant_thresholds(a, b, c), 12345)
    tolerance = 5 * np.sqrt(0.25 * 0.75 / m)
    for level in range(scale):
        row, col = (u >> np.uint64(level)) & np.uint64(1), (v >> np.uint64(level)) & np.uint64(1)
        assert abs(row.mean() - (1 - a - b)) < tolerance
        assert abs(col.mean() - (1 - a - c)) < tolerance
        assert abs((row & col).mean() - (1 - a - b - c)) < tolerance  # quadrant d
    assert u.max() < 2**scale and v.max() < 2**scale


def test_other_initiator():
    """a = 1 puts every edge at (0, 0) before scrambling: all self loops, no edges."""
    assert rmat(6, a=1.0, b=0.0, c=0.0).nnz == 0
    uniform = rmat(12, a=0.25, b=0.25, c=0.25)  # Erdős–Rényi-like: no hubs
    assert degrees(uniform).max() < 3 * degrees(uniform).mean()


def test_deterministic_and_seeded():
    A, B, C = rmat(11, seed=4), rmat(11, seed=4), rmat(11, seed=5)
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(A, name), getattr(B, name))
    assert (A != C).nnz > 0
    assert rmat(11, seed=2**64 - 1).nnz > 0


def test_dtype():
    A = rmat(6, dtype=np.float32)
    assert A.dtype == np.float32 and np.all(A.data == 1)


@pytest.mark.parametrize(("kwargs", "error", "match"), [
    ({"scale": 0}, ValueError, "scale must be an integer from 1 to 31, got 0"),
    ({"scale": 32}, ValueError, "scale must be an integer from 1 to 31, got 32"),
    ({"scale": 4.0}, TypeError, r"scale must be an integer, got 4.0 \(float\)"),
    ({"scale": 4, "edge_factor": 0}, ValueError, "edge_factor must be a positive integer, got 0"),
    ({"scale": 4, "seed": -1}, ValueError, "seed must be an integer from 0 to 2\\*\\*64 - 1, got -1"),
    ({"scale": 4, "a": 1.5}, ValueError, r"a must be a probability in \[0, 1\], got 1.5"),
    ({"scale": 4, "b": -0.1}, ValueError, r"b must be a probability in \[0, 1\], got -0.1"),
    ({"scale": 4, "c": "0.2"}, ValueError, r"c must be a probability in \[0, 1\], got '0.2'"),
    ({"scale": 4, "a": 0.6, "b": 0.3, "c": 0.2}, ValueError, r"a \+ b \+ c must be at most 1"),
    ({"scale": 4, "dtype": np.int32}, ValueError, "dtype must be float32 or float64, got int32"),
])
def test_bad_parameters(kwargs, error, match):
    with pytest.raises(error, match=match):
        rmat(**kwargs)


def test_nearby_seeds_give_unrelated_graphs():
    """The seed enters through splitmix64's counter, not as a small shift of the draws."""
    A, B = rmat(10, seed=0), rmat(10, seed=1)
    shared = A.multiply(B).nnz
    assert shared < 0.5 * min(A.nnz, B.nnz)


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")
@pytest.mark.parametrize(("scale", "edge_factor", "seed"), [(1, 2, 0), (7, 16, 3), (13, 16, 0), (15, 4, 2**64 - 1)])
def test_device_builds_the_same_graph(scale, edge_factor, seed):
    import cupyx.scipy.sparse as csp

    A = rmat(scale, edge_factor, seed=seed, dtype=np.float32, device=True)
    H = rmat(scale, edge_factor, seed=seed, dtype=np.float32)
    assert isinstance(A, csp.csr_matrix) and A.shape == H.shape and A.dtype == np.float32
    for name in ("indptr", "indices", "data"):
        np.testing.assert_array_equal(getattr(A, name).get(), getattr(H, name), err_msg=name)


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")
def test_device_graph_is_a_gbgraph_input():
    import gbgraph as gg

    A = rmat(12, device=True)
    G = gg.as_graph(A, weights=False)
    H = gg.as_graph(rmat(12), weights=False)
    np.testing.assert_array_equal(G.indices.get(), H.indices)
    np.testing.assert_array_equal(gg.mis2(G).vertices.get(), gg.mis2(H).vertices)

"""The native backend's fused HEC kernels give the verbs' coarse mapping: the labels, their
count and the rounds of ``backend="numba"`` and ``backend="cupy"`` (run with ``pytest -m gpu``
on a machine with an NVIDIA GPU; skipped elsewhere)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gbgraph as gg
from gbgraph.generators import elasticity3d, laplace3d

from conftest import gpu_available, shared_graphs
from device_cases import GRIDS
from strategies import graphs

gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")
pytestmark = [pytest.mark.gpu, gpu]

SEEDS = [0, 1, 12345, 2**63 - 1]


def _cpu_graph(A, weights):
    """The pattern (``weights=None``) or A's pattern with ``weights`` as a canonical CPU
    Graph; ``"abs"``: |A|."""
    pattern = gg.as_graph(sp.csr_array(A), weights=False)
    if weights is None:
        return pattern
    if isinstance(weights, str):
        return gg.as_graph(abs(sp.csr_array(A)))
    return gg.Graph(pattern.n, pattern.indptr, pattern.indices, weights)


def _symmetric_weights(G, values):
    """Symmetric weights on G's pattern: each edge {i, j} (i < j) weighs ``values`` at its
    (i, j) entry, which comes first in CSR order."""
    rows = np.repeat(np.arange(G.n), np.diff(G.indptr))
    edge = np.minimum(rows, G.indices) * G.n + np.maximum(rows, G.indices)
    upper = rows < G.indices
    return values[upper][np.searchsorted(edge[upper], edge)]


def _weighted(A, kind, seed=0):
    """A's pattern with the weights ``kind``: None (pattern), "abs" (|A|), "int" (small
    integers, many ties), "float" (with ties); float64, as cupyx holds them."""
    if kind in (None, "abs"):
        return _cpu_graph(A, kind)
    G = _cpu_graph(A, None)
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 4, G.nnz).astype(np.float64) if kind == "int" else rng.choice(
        [0.0, 0.25, 1 / 3, 2.5, 1e-300], G.nnz)
    return _cpu_graph(A, _symmetric_weights(G, values))


def assert_same_hec(G, seed=0):
    """native = numba = cupy on the CPU Graph ``G``, moved to the GPU."""
    import cupy

    cpu = gg.coarse_mapping(G, "hec", seed=seed, backend="numba")
    on_gpu = G.on_device_of(cupy)
    algebraic = gg.coarse_mapping(on_gpu, "hec", seed=seed, backend="cupy")
    native = gg.coarse_mapping(on_gpu, "hec", seed=seed, backend="native")
    assert type(native.labels).__module__.startswith("cupy")
    np.testing.assert_array_equal(native.labels.get(), cpu.labels)
    np.testing.assert_array_equal(native.labels.get(), algebraic.labels.get())
    assert (native.n_coarse, native.rounds) == (cpu.n_coarse, cpu.rounds) == (algebraic.n_coarse, algebraic.rounds)


@pytest.mark.parametrize("kind", [None, "abs", "int", "float"])
@pytest.mark.parametrize("matrix", GRIDS)
def test_grids(matrix, kind):
    G = _weighted(matrix(), kind)
    for seed in SEEDS:
        assert_same_hec(G, seed)


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    A = gg.io.read_matrix_market(path)[0]
    assert_same_hec(_weighted(A, None), 3)
    assert_same_hec(_weighted(A, "float"), 3)


@settings(max_examples=25, deadline=None)
@given(graphs(), st.sampled_from([None, "int", "float"]), st.integers(0, 2**63 - 1))
def test_random_graphs(A, kind, seed):
    assert_same_hec(_weighted(A, kind, seed % 1000), seed)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_edgeless_graphs(n):
    assert_same_hec(_cpu_graph(sp.csr_array((n, n)), None))
    assert_same_hec(_cpu_graph(sp.csr_array((n, n)), np.zeros(0)))


def test_runs_are_identical():
    import cupy

    G = _weighted(elasticity3d(12, 10, 8), "int").on_device_of(cupy)
    first, second = (gg.coarse_mapping(G, "hec", seed=5, backend="native") for _ in range(2))
    np.testing.assert_array_equal(first.labels.get(), second.labels.get())
    assert (first.n_coarse, first.rounds) == (second.n_coarse, second.rounds)


def test_weights_are_checked_first():
    import cupy

    G = _cpu_graph(laplace3d(4), None)
    bad = gg.Graph(G.n, G.indptr, G.indices, -np.ones(G.nnz)).on_device_of(cupy)
    with pytest.raises(ValueError, match="negative, NaN or infinite weights"):
        gg.coarse_mapping(bad, "hec", backend="native")

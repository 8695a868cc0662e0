"""The native backend's fused greedy coloring gives the verbs' colors, color count and rounds
(run with ``pytest -m gpu`` on a machine with an NVIDIA GPU; skipped elsewhere)."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gbgraph as gg
from gbgraph.errors import StallError
from gbgraph.generators import elasticity3d, laplace3d

from conftest import gpu_available, shared_graphs
from device_cases import GRIDS, cupyx_matrix
from strategies import graphs

gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")
pytestmark = [pytest.mark.gpu, gpu]


#: Graphs whose rounds hand over to the ordered finish, with more than 64 colors (first fit
#: over several 64-color windows), and more than 512 (the recoloring sorts them in groups)
DENSE = [pytest.param(lambda: sp.csr_array(np.ones((150, 150)) - np.eye(150)), id="clique-150"),
         pytest.param(lambda: sp.csr_array(np.ones((600, 600)) - np.eye(600)), id="clique-600"),
         pytest.param(lambda: nx.to_scipy_sparse_array(nx.gnp_random_graph(400, 0.5, seed=1), dtype=float),
                      id="gnp-400-0.5")]

PRIORITIES = ["largest_degree", "random"]


def test_native_backend_runs_the_kernel():
    from gbgraph.backends.native import coloring

    assert gg.backends.backend("native").fused("color") is coloring.color


def assert_same_coloring(A, against=("numba",), **options):
    native = gg.color(cupyx_matrix(A), "greedy", backend="native", **options)
    assert type(native.colors).__module__.startswith("cupy")
    colors = native.colors.get()
    for backend in against:
        reference = gg.color(A if backend == "numba" else cupyx_matrix(A), "greedy", backend=backend, **options)
        expected = reference.colors if backend == "numba" else reference.colors.get()
        np.testing.assert_array_equal(colors, expected, err_msg=backend)
        assert (native.n_colors, native.iterations) == (reference.n_colors, reference.iterations), backend
    assert gg.validate.is_coloring(A, colors)


@pytest.mark.parametrize("priority", PRIORITIES)
@pytest.mark.parametrize("matrix", GRIDS + DENSE)
def test_grids(matrix, priority):
    assert_same_coloring(matrix(), ("numba", "cupy"), priority=priority)


def test_seed():
    assert_same_coloring(elasticity3d(10, 8, 6), ("numba", "cupy"), seed=7)


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    assert_same_coloring(gg.io.read_matrix_market(path)[0])


@settings(max_examples=25, deadline=None)
@given(graphs(), st.sampled_from(PRIORITIES))
def test_random_graphs(A, priority):
    assert_same_coloring(A, priority=priority)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_tiny_graphs(n):
    A = sp.csr_array((n, n), dtype=float)
    r = gg.color(cupyx_matrix(A), "greedy", backend="native")
    assert (r.colors.get().tolist(), r.n_colors) == ([0] * n, min(n, 1))


def test_runs_are_identical():
    A = cupyx_matrix(elasticity3d(12, 10, 8))
    first, second = gg.color(A, backend="native"), gg.color(A, backend="native")
    np.testing.assert_array_equal(first.colors.get(), second.colors.get())
    assert (first.n_colors, first.iterations) == (second.n_colors, second.iterations)


def test_max_iter_stalls_as_the_verbs_do():
    with pytest.raises(StallError, match=r"color: 4,427 of 8,000 vertices uncolored after max_iter=2 rounds"):
        gg.color(cupyx_matrix(laplace3d(20)), backend="native", max_iter=2)

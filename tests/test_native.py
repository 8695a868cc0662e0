"""The native backend's fused MIS and aggregation kernels give the verbs' results (run with
``pytest -m gpu`` on a machine with an NVIDIA GPU; skipped elsewhere)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings

import gbgraph as gg
from gbgraph.errors import StallError
from gbgraph.generators import elasticity3d, laplace3d

from conftest import gpu_available, shared_graphs
from device_cases import GRIDS, assert_same_aggregation, cupyx_matrix
from strategies import graphs

gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")
pytestmark = [pytest.mark.gpu, gpu]


#: (algorithm, options, whether the native run counts the verbs' rounds): ECL-MIS's kernel
#: for MIS-1 with fixed statuses has no rounds, and reports 1
VARIANTS = [pytest.param(gg.mis2, {}, True, id="mis2"),
            pytest.param(gg.mis2, {"priority": "fixed"}, True, id="mis2-fixed"),
            pytest.param(gg.mis2, {"priority": "quality"}, True, id="mis2-quality"),
            pytest.param(gg.mis2, {"priority_hash": "xorshift"}, True, id="mis2-xorshift"),
            pytest.param(gg.mis2, {"packing": 64}, True, id="mis2-64"),
            pytest.param(gg.mis1, {"priority": "random"}, True, id="mis1-random"),
            pytest.param(gg.mis1, {"priority": "degree"}, False, id="mis1-degree"),
            pytest.param(gg.mis1, {"priority": "permutation"}, False, id="mis1-permutation"),
            pytest.param(gg.mis1, {"priority": "degree", "packing": 64}, False, id="mis1-degree-64"),
            pytest.param(gg.misk, {"k": 3}, True, id="misk-3")]


def assert_same_mis(A, algorithm, options, same_rounds):
    cpu = algorithm(A, backend="numba", **options)
    native = algorithm(cupyx_matrix(A), backend="native", **options)
    assert type(native.vertices).__module__.startswith("cupy")
    np.testing.assert_array_equal(native.vertices.get(), cpu.vertices)
    assert native.iterations == (cpu.iterations if same_rounds else 1)
    assert gg.validate.is_mis(A, cpu.vertices, distance=options.get("k", 2 if algorithm is gg.mis2 else 1))


@pytest.mark.parametrize(("algorithm", "options", "same_rounds"), VARIANTS)
@pytest.mark.parametrize("matrix", GRIDS)
def test_mis_family(matrix, algorithm, options, same_rounds):
    assert_same_mis(matrix(), algorithm, options, same_rounds)


@pytest.mark.parametrize(("algorithm", "options", "same_rounds"), VARIANTS)
@settings(max_examples=15, deadline=None)
@given(graphs())
def test_mis_family_on_random_graphs(algorithm, options, same_rounds, A):  # hypothesis fills the last argument
    assert_same_mis(A, algorithm, options, same_rounds)


@pytest.mark.parametrize("matrix", GRIDS)
def test_aggregation(matrix):
    assert_same_aggregation(matrix(), "native")


@settings(max_examples=25, deadline=None)
@given(graphs())
def test_aggregation_on_random_graphs(A):
    assert_same_aggregation(A, "native")


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    A = gg.io.read_matrix_market(path)[0]
    assert_same_mis(A, gg.mis2, {}, True)
    assert_same_mis(A, gg.mis1, {}, False)
    assert_same_aggregation(A, "native")


def test_table_iii_sizes():
    """Kelley & Rajamanickam's Table III: MIS-2 of Laplace3D 100³ with Kokkos Kernels'
    priorities has 90,041 vertices after 10 rounds (also benchmarks/results/gpu-h100.txt)."""
    r = gg.mis2(cupyx_matrix(laplace3d(100)), backend="native")
    assert (len(r.vertices), r.iterations) == (90_041, 10)


@pytest.mark.parametrize("n", [0, 1, 2])
def test_tiny_graphs(n):
    A = sp.csr_array((n, n), dtype=float)
    for algorithm in (gg.mis1, gg.mis2):
        assert algorithm(cupyx_matrix(A), backend="native").vertices.get().tolist() == list(range(n))
    agg = gg.aggregate(cupyx_matrix(A), backend="native")
    assert agg.labels.get().tolist() == gg.aggregate(A).labels.tolist()


def test_runs_are_identical():
    A = cupyx_matrix(elasticity3d(12, 10, 8))
    first, second = gg.aggregate(A, backend="native"), gg.aggregate(A, backend="native")
    np.testing.assert_array_equal(first.labels.get(), second.labels.get())
    np.testing.assert_array_equal(gg.mis1(A, backend="native").vertices.get(),
                                  gg.mis1(A, backend="native").vertices.get())


def test_max_iter_stalls_as_the_verbs_do():
    A = cupyx_matrix(laplace3d(20))
    with pytest.raises(StallError, match=r"MIS-2: [\d,]+ of 8,000 vertices undecided after max_iter=2 rounds"):
        gg.mis2(A, backend="native", max_iter=2)

import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import gbgraph as gg
from gbgraph.generators import elasticity3d, laplace3d

from conftest import shared_graphs
from properties import assert_is_mis
from reference import kokkos_d2_mis
from strategies import graphs


# Sizes and rounds reported by Kokkos Kernels' graph_d2_mis (MIS2_FAST, 32-bit ordinals),
# Kelley & Rajamanickam, IPDPS 2022, Table III.
@pytest.mark.parametrize(("matrix", "size", "rounds"), [
    pytest.param(lambda: laplace3d(50), 11469, 9, id="laplace-50^3"),
    pytest.param(lambda: laplace3d(100, 50, 50), 22909, 9, id="laplace-100x50x50"),
    pytest.param(lambda: laplace3d(100, 100, 50), 45333, 9, id="laplace-100x100x50"),
    pytest.param(lambda: laplace3d(100), 90041, 10, id="laplace-100^3"),
    pytest.param(lambda: elasticity3d(30), 634, 8, id="elasticity-30^3"),
])
def test_kokkos_kernels_table_iii(matrix, size, rounds):
    A = matrix()
    r = gg.mis2(A)
    assert (len(r.vertices), r.iterations) == (size, rounds)
    assert_is_mis(A, r.vertices, 2)


@given(graphs())
def test_equals_kokkos_kernels_transcription(A):
    r = gg.mis2(A)
    vertices, rounds = kokkos_d2_mis(A)
    np.testing.assert_array_equal(r.vertices, vertices)
    assert r.iterations == rounds
    assert_is_mis(A, r.vertices, 2)


@given(graphs())
def test_64_bit_packing_forced_on_small_graphs(A):
    r = gg.mis2(A, packing=64)
    vertices, rounds = kokkos_d2_mis(A, bits=64)
    np.testing.assert_array_equal(r.vertices, vertices)
    assert r.iterations == rounds
    assert_is_mis(A, r.vertices, 2)


@given(graphs(), st.data())
def test_candidates_equal_kokkos_kernels_masked_compute(A, data):
    from gbgraph.algorithms.mis import _mis2

    n = A.shape[0]
    candidates = np.array(sorted(data.draw(st.sets(st.integers(0, n - 1)))), np.int64)
    be = gg.backend("suitesparse")
    r = _mis2(be, gg.as_graph(A), 32, n + 1, candidates=be.vector(candidates, True, n))
    vertices, rounds = kokkos_d2_mis(A, candidates=candidates)
    np.testing.assert_array_equal(r.vertices, vertices)
    assert r.iterations == rounds
    assert set(r.vertices.tolist()) <= set(candidates.tolist())


@given(graphs())
def test_deterministic_across_runs(A):
    first = gg.mis2(A)
    for _ in range(3):
        again = gg.mis2(A)
        np.testing.assert_array_equal(again.vertices, first.vertices)
        assert again.iterations == first.iterations


def test_identical_with_one_and_two_threads(graphblas_threads):
    A = laplace3d(40, 30, 20)
    results = []
    for threads in (1, 2):
        graphblas_threads(threads)
        results.append(gg.mis2(gg.as_graph(A)))
    np.testing.assert_array_equal(results[0].vertices, results[1].vertices)
    assert results[0].iterations == results[1].iterations


def test_ignores_diagonal_duplicates_and_values():
    A = laplace3d(6)
    coo = sp.coo_array(A)
    doubled = sp.coo_array((np.r_[coo.data, -coo.data * 3], (np.r_[coo.row, coo.row], np.r_[coo.col, coo.col])),
                           shape=A.shape)
    pattern = (A != 0).astype(bool)
    pattern.setdiag(False)
    expected = gg.mis2(A).vertices
    for variant in (doubled, pattern, sp.csc_array(A), sp.csr_matrix(A), A.toarray()):
        np.testing.assert_array_equal(gg.mis2(variant).vertices, expected)


def test_empty_graph():
    r = gg.mis2(sp.csr_array((0, 0)))
    assert r.vertices.shape == (0,) and r.vertices.dtype == np.int64 and r.iterations == 0


def test_single_vertex_and_isolated_vertices():
    assert gg.mis2(np.zeros((1, 1))).vertices.tolist() == [0]
    assert gg.mis2(np.zeros((5, 5))).vertices.tolist() == [0, 1, 2, 3, 4]


def test_stall_error_reports_undecided_vertices():
    with pytest.raises(gg.StallError, match=r"undecided after max_iter=1"):
        gg.mis2(laplace3d(10), max_iter=1)


@pytest.mark.parametrize(("bad", "error"), [(0, ValueError), (-1, ValueError), (2.5, TypeError), (True, TypeError)])
def test_bad_max_iter(bad, error):
    with pytest.raises(error, match=f"max_iter must be a(n| positive) integer, got {bad!r}"):
        gg.mis2(laplace3d(3), max_iter=bad)


@pytest.mark.parametrize("bad", [16, 48])
def test_bad_packing(bad):
    with pytest.raises(ValueError, match="packing must be None, 32 or 64"):
        gg.mis2(laplace3d(3), packing=bad)


@pytest.mark.parametrize("bad", ["32", 32.0])
def test_packing_of_another_type(bad):
    with pytest.raises(TypeError, match=f"packing must be an integer, got {bad!r}"):
        gg.mis2(laplace3d(3), packing=bad)


def test_unknown_backend():
    with pytest.raises(ValueError, match="unknown backend 'nope'"):
        gg.mis2(laplace3d(3), backend="nope")


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    r = gg.mis2(path)
    assert_is_mis(path, r.vertices, 2)


def test_embedded_graph():
    A = gg.datasets.load("fe_4elt2")
    assert_is_mis(A, gg.mis2(A).vertices, 2)


_CRASH = """
import numpy as np
from graphblas import Vector, binary
n, k = 1000, 25
rng = np.random.default_rng(0)
u = Vector.from_dense(rng.integers(0, 1000, n).astype("uint32"))
idx = np.sort(rng.choice(n, k, replace=False))
mask = Vector.from_coo(idx, True, size=n)
w = Vector.from_coo(idx, rng.integers(0, 1000, k).astype("uint32"), size=n)
w(mask.S, binary.max) << u
print("survived")
"""


def test_suitesparse_masked_accumulate_into_sparse_vector_still_crashes():
    """suitesparse-graphblas 9.4.5.0 dies in this masked accumulate (SIGSEGV); no gbgraph
    verb accumulates because of it. When this test fails, the wheel is fixed: drop it."""
    proc = subprocess.run([sys.executable, "-c", _CRASH], capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0 and "survived" not in proc.stdout, (
        "the masked accumulate no longer crashes; suitesparse-graphblas is fixed")


@pytest.mark.parametrize("call", ["mis1", "mis2", "misk", "aggregate", "mis2-quality"])
@pytest.mark.parametrize("backend", [None, "numba", "suitesparse", "cupy", "native"])
def test_no_host_a_plus_i(monkeypatch, call, backend):
    """No A + I is made on the host, for any backend: as_graph is asked for none, and the
    host's rounds read the graph's own pattern (no Graph.closed_csr), their row operators
    taking each row's own value. Without CuPy the GPU backends stop after as_graph, with the
    ImportError that names the extras."""
    import gbgraph.algorithms.aggregation as aggregation
    import gbgraph.algorithms.mis as mis

    module = aggregation if call == "aggregate" else mis
    options, real = [], module.as_graph

    def spy(A, **given):
        options.append(given)
        return real(A, **given)

    def no_closed_csr(*args, **kwargs):
        raise AssertionError("A + I made on the host")

    monkeypatch.setattr(module, "as_graph", spy)
    if backend not in ("cupy", "native"):
        monkeypatch.setattr(gg.Graph, "closed_csr", no_closed_csr)
    run = {"mis1": gg.mis1, "mis2": gg.mis2, "misk": lambda A, backend: gg.misk(A, 3, backend=backend),
           "aggregate": gg.aggregate,
           "mis2-quality": lambda A, backend: gg.mis2(A, "quality", backend=backend)}[call]  # frontier rounds
    try:
        run(laplace3d(4), backend=backend)
    except ImportError as e:
        assert backend in ("cupy", "native") and "cuda" in str(e)
    assert options == [{"weights": False}]


def test_a_plus_i_only_on_a_gpu_backend():
    """A Backend instance counts by its array module: numpy's backends read A itself."""
    from gbgraph.algorithms.mis import _stores_diagonal

    assert not _stores_diagonal(gg.backend("numba")) and not _stores_diagonal(gg.backend("suitesparse"))

"""MIS-1, MIS-k and the MIS-2 priority variants: properties, and equality with oracles that
share no code with gbgraph (tests/reference.py)."""

import math
from unittest import mock

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given

import gbgraph as gg
from gbgraph.algorithms import mis
from gbgraph.generators import laplace3d

from conftest import shared_graphs
from properties import assert_is_mis
from reference import (ecl_statuses, greedy_mis, hashed_status, kokkos_d2_mis_fixed,
                       kokkos_quality_statuses, synchronous_mis)
from strategies import graphs, random_graphs

MIS1 = ["degree", "random", "permutation"]
MIS2 = ["refresh", "fixed", "quality"]


def _power(A, k):
    """Pattern of (A + I)^k without its diagonal: u ~ v when a path of at most k edges joins them."""
    n = A.shape[0]
    step = (sp.csr_array(A) != 0).astype(np.int64) + sp.eye_array(n, dtype=np.int64, format="csr")
    P = sp.eye_array(n, dtype=np.int64, format="csr")
    for _ in range(k):
        P = ((P @ step) > 0).astype(np.int64)
    P.setdiag(0)
    P.eliminate_zeros()
    return sp.csr_array(P)


def _fixed(statuses):
    return lambda i, r: statuses[i]


def _hashed(n, bits=32, star=True):
    return lambda i, r: hashed_status(i, r, n, bits, star)


def _round0(n, bits=32, star=True):
    return [hashed_status(i, 0, n, bits, star) for i in range(n)]


# (name, call, distance, reference statuses (A, bits) -> status(i, r))
VARIANTS = [
    ("mis1-degree", lambda A, **kw: gg.mis1(A, "degree", **kw), 1, lambda A, b: _fixed(ecl_statuses(A))),
    ("mis1-random", lambda A, **kw: gg.mis1(A, "random", **kw), 1, lambda A, b: _hashed(A.shape[0], b)),
    ("mis1-permutation", lambda A, **kw: gg.mis1(A, "permutation", **kw), 1,
     lambda A, b: _fixed(_round0(A.shape[0], b))),
    ("mis2-fixed", lambda A, **kw: gg.mis2(A, priority="fixed", **kw), 2,
     lambda A, b: _fixed(_round0(A.shape[0], b))),
    ("mis2-xorshift", lambda A, **kw: gg.mis2(A, priority_hash="xorshift", **kw), 2,
     lambda A, b: _hashed(A.shape[0], b, star=False)),
    ("mis2-fixed-xorshift", lambda A, **kw: gg.mis2(A, priority="fixed", priority_hash="xorshift", **kw), 2,
     lambda A, b: _fixed(_round0(A.shape[0], b, star=False))),
    ("mis2-quality", lambda A, **kw: gg.mis2(A, priority="quality", **kw), 2,
     lambda A, b: _fixed(kokkos_quality_statuses(A, b, clamp=True))),
    ("misk-1", lambda A, **kw: gg.misk(A, 1, **kw), 1, lambda A, b: _fixed(_round0(A.shape[0], b))),
    ("misk-3", lambda A, **kw: gg.misk(A, 3, **kw), 3, lambda A, b: _fixed(_round0(A.shape[0], b))),
    ("misk-4", lambda A, **kw: gg.misk(A, 4, **kw), 4, lambda A, b: _fixed(_round0(A.shape[0], b))),
]
FIXED = [v for v in VARIANTS if v[0] not in ("mis1-random", "mis2-xorshift")]


def _ids(variants):
    return [v[0] for v in variants]


@pytest.mark.parametrize(("name", "run", "k", "statuses"), VARIANTS, ids=_ids(VARIANTS))
@given(A=graphs())
def test_independent_maximal_and_deterministic(name, run, k, statuses, A):
    r = run(A)
    assert_is_mis(A, r.vertices, k)
    again = run(gg.as_graph(A))
    np.testing.assert_array_equal(again.vertices, r.vertices)
    assert again.iterations == r.iterations


@pytest.mark.parametrize(("name", "run", "k", "statuses"), VARIANTS, ids=_ids(VARIANTS))
@pytest.mark.parametrize("bits", [32, 64])
@given(A=graphs())
def test_rounds_equal_synchronous_reference(name, run, k, statuses, bits, A):
    r = run(A, packing=bits)
    vertices, rounds = synchronous_mis(A, k, statuses(A, bits))
    np.testing.assert_array_equal(r.vertices, vertices)
    assert r.iterations == rounds


@pytest.mark.parametrize(("name", "run", "k", "statuses"), FIXED, ids=_ids(FIXED))
@pytest.mark.parametrize("narrow", [0, math.inf], ids=["frontier-after-round-0", "worklists-only"])
@given(A=graphs())
def test_frontier_and_worklist_rounds_agree_with_the_reference(name, run, k, statuses, narrow, A):
    """Fixed statuses hand over from worklist to frontier rounds at a size threshold; both
    kinds of round, alone, must give the synchronous reference's set and rounds."""
    with mock.patch.object(mis, "_NARROW", narrow):
        r = run(A)
    vertices, rounds = synchronous_mis(A, k, statuses(A, 32))
    np.testing.assert_array_equal(r.vertices, vertices)
    assert r.iterations == rounds


@pytest.mark.parametrize(("call", "narrows"), [
    (lambda A: gg.mis2(A, priority="quality"), True),  # ties by id on a grid: chains
    (lambda A: gg.mis2(A, priority="fixed"), False),  # random: most rows decided every two rounds
    (lambda A: gg.mis2(A), False),  # refreshed statuses never narrow
], ids=["quality", "fixed", "refresh"])
def test_rounds_narrow_to_the_frontier_only_for_chains(call, narrows):
    with mock.patch.object(mis, "_frontier_round", wraps=mis._frontier_round) as frontier:
        call(laplace3d(12))
    assert frontier.called == narrows


@pytest.mark.parametrize(("name", "run", "k", "statuses"), FIXED, ids=_ids(FIXED))
@given(A=graphs())
def test_fixed_priorities_give_the_greedy_set(name, run, k, statuses, A):
    status = statuses(A, 32)
    order = sorted(range(A.shape[0]), key=lambda i: status(i, 0))
    np.testing.assert_array_equal(run(A).vertices, greedy_mis(A, order, k))


@given(graphs())
def test_lemma_iv2_mis1_of_the_square_is_mis2(A):
    """Kelley & Rajamanickam, Lemma IV.2: with the same priorities in every round, Luby's
    MIS-1 of G² is Algorithm 1's MIS-2 of G, round for round."""
    square, r = gg.mis1(_power(A, 2), "random"), gg.mis2(A)
    np.testing.assert_array_equal(square.vertices, r.vertices)
    assert square.iterations == r.iterations


@pytest.mark.parametrize("k", [1, 2, 3])
@given(A=graphs())
def test_misk_is_mis1_of_the_kth_power(k, A):
    power, r = gg.mis1(_power(A, k), "permutation"), gg.misk(A, k)
    np.testing.assert_array_equal(power.vertices, r.vertices)
    assert power.iterations == r.iterations


@given(random_graphs(max_n=300, min_n=127))
def test_quality_equals_kokkos_kernels_fixed_priority(A):
    """From n = 127 on, Kokkos Kernels' float32 statuses never wrap: gbgraph equals it bit for bit."""
    statuses = kokkos_quality_statuses(A, 32, clamp=False)
    assert statuses == kokkos_quality_statuses(A, 32, clamp=True)
    vertices, iterations = kokkos_d2_mis_fixed(A, statuses)
    r = gg.mis2(A, priority="quality")
    np.testing.assert_array_equal(r.vertices, vertices)
    assert r.iterations == iterations


@given(graphs())
def test_quality_equals_kokkos_kernels_iteration_with_clamped_statuses(A):
    vertices, iterations = kokkos_d2_mis_fixed(A, kokkos_quality_statuses(A, 32, clamp=True))
    r = gg.mis2(A, priority="quality")
    np.testing.assert_array_equal(r.vertices, vertices)
    assert r.iterations == iterations


def _star(n):
    return sp.csr_array((np.ones(2 * (n - 1)), (np.r_[np.zeros(n - 1, int), 1:n], np.r_[1:n, np.zeros(n - 1, int)])),
                        shape=(n, n))


def test_quality_clamps_where_kokkos_kernels_wraps():
    """On a 10-vertex star float32(2**28 - 2) rounds to 2**28, and Kokkos Kernels' centre status
    wraps to its id alone, the best status; gbgraph keeps the centre last."""
    star = _star(10)
    literal = kokkos_quality_statuses(star, 32, clamp=False)
    assert literal[0] == 1 and kokkos_d2_mis_fixed(star, literal)[0].tolist() == [0]
    assert gg.mis2(star, priority="quality").vertices.tolist() == [1]


@pytest.mark.parametrize("n", [3, 10, 200])
def test_degree_priority_takes_the_leaves_of_a_star(n):
    assert gg.mis1(_star(n)).vertices.tolist() == list(range(1, n))


def test_all_equal_degrees_order_by_id():
    """Kokkos Kernels divides by zero here; gbgraph gives every vertex priority 0."""
    ids = np.arange(8)
    cycle = sp.csr_array((np.ones(16), (np.r_[ids, (ids + 1) % 8], np.r_[(ids + 1) % 8, ids])), shape=(8, 8))
    by_id = greedy_mis(cycle, range(8), 2)
    assert by_id.tolist() == [0, 3]
    np.testing.assert_array_equal(gg.mis2(cycle, priority="quality").vertices, by_id)


@pytest.mark.parametrize("call", [lambda A: gg.mis1(A, "degree"), lambda A: gg.mis1(A, "random"),
                                  lambda A: gg.misk(A, 3), lambda A: gg.mis2(A, priority="quality")],
                         ids=["mis1-degree", "mis1-random", "misk-3", "mis2-quality"])
def test_identical_with_one_and_two_threads(graphblas_threads, call):
    A = laplace3d(40, 30, 20)
    results = []
    for threads in (1, 2):
        graphblas_threads(threads)
        results.append(call(gg.as_graph(A)))
    np.testing.assert_array_equal(results[0].vertices, results[1].vertices)
    assert results[0].iterations == results[1].iterations


@pytest.mark.parametrize("call", [lambda A: gg.mis1(A, "degree"), lambda A: gg.mis1(A, "random"),
                                  lambda A: gg.mis1(A, "permutation"), lambda A: gg.misk(A, 3),
                                  lambda A: gg.mis2(A, priority="fixed"), lambda A: gg.mis2(A, priority="quality")],
                         ids=["mis1-degree", "mis1-random", "mis1-permutation", "misk-3", "mis2-fixed", "mis2-quality"])
def test_empty_single_and_isolated(call):
    r = call(sp.csr_array((0, 0)))
    assert r.vertices.shape == (0,) and r.vertices.dtype == np.int64 and r.iterations == 0
    assert call(np.zeros((1, 1))).vertices.tolist() == [0]
    r = call(np.zeros((5, 5)))
    assert r.vertices.tolist() == [0, 1, 2, 3, 4] and r.iterations == 1


@pytest.mark.parametrize("call", [lambda: gg.mis1(laplace3d(10), "permutation", max_iter=1),
                                  lambda: gg.misk(laplace3d(10), 3, max_iter=1),
                                  lambda: gg.mis2(laplace3d(10), priority="quality", max_iter=1)])
def test_stall_error_reports_undecided_vertices(call):
    with pytest.raises(gg.StallError, match=r"MIS-\d: [\d,]+ of 1,000 vertices undecided after max_iter=1"):
        call()


@pytest.mark.parametrize("bad", ["luby", "Degree", None, "refresh"])
def test_bad_mis1_priority(bad):
    with pytest.raises(ValueError, match=f"priority must be one of 'degree', 'random', 'permutation', got {bad!r}"):
        gg.mis1(laplace3d(3), bad)


@pytest.mark.parametrize("bad", ["random", "degree", "Fixed"])
def test_bad_mis2_priority(bad):
    with pytest.raises(ValueError, match=f"priority must be one of 'refresh', 'fixed', 'quality', got {bad!r}"):
        gg.mis2(laplace3d(3), priority=bad)


def test_bad_priority_hash():
    with pytest.raises(ValueError, match="priority_hash must be one of 'xorshift\\*', 'xorshift', got 'xor'"):
        gg.mis2(laplace3d(3), priority_hash="xor")
    with pytest.raises(ValueError, match="priority_hash applies to priority='refresh' or 'fixed'"):
        gg.mis2(laplace3d(3), priority="quality", priority_hash="xorshift")


@pytest.mark.parametrize("bad", [0, -1])
def test_bad_k(bad):
    with pytest.raises(ValueError, match=f"k must be a positive integer, got {bad!r}"):
        gg.misk(laplace3d(3), bad)


@pytest.mark.parametrize(("bad", "kind"), [(2.5, "float"), (True, "bool"), ("2", "str"), (None, "NoneType")])
def test_k_of_another_type(bad, kind):
    with pytest.raises(TypeError, match=f"k must be an integer, got {bad!r} \\({kind}\\)"):
        gg.misk(laplace3d(3), bad)


@pytest.mark.parametrize(("call", "error"), [(lambda A: gg.mis1(A, max_iter=0), ValueError),
                                             (lambda A: gg.misk(A, 2, max_iter=True), TypeError),
                                             (lambda A: gg.mis1(A, packing=16), ValueError)])
def test_bad_max_iter_and_packing(call, error):
    with pytest.raises(error, match="max_iter must be a(n| positive) integer|packing must be None, 32 or 64"):
        call(laplace3d(3))


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    G = gg.as_graph(path, weights=False)
    for priority in MIS1:
        assert_is_mis(G, gg.mis1(G, priority).vertices, 1)
    for priority in MIS2[1:]:
        assert_is_mis(G, gg.mis2(G, priority=priority).vertices, 2)
    assert_is_mis(G, gg.misk(G, 3).vertices, 3)

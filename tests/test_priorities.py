import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given

from gbgraph.hashing import Packing
from gbgraph.algorithms.priorities import ecl_degree, fixed_random, kokkos_quality
from gbgraph.graph import as_graph

from reference import ecl_statuses, kokkos_quality_statuses
from strategies import graphs, random_graphs


def _degrees(A):
    return np.diff(as_graph(A).indptr)


def _tuples(fp):
    return fp.tuples(fp(np.arange(fp.n), 0)).tolist()


@pytest.mark.parametrize("bits", [32, 64])
@given(A=graphs())
def test_ecl_degree_matches_the_paper_formula(bits, A):
    assert _tuples(ecl_degree(_degrees(A), bits)) == ecl_statuses(A)


@pytest.mark.parametrize("bits", [32, 64])
@given(A=graphs())
def test_quality_matches_kokkos_kernels_with_the_clamp(bits, A):
    assert _tuples(kokkos_quality(_degrees(A), bits)) == kokkos_quality_statuses(A, bits, clamp=True)


@given(random_graphs(max_n=300, min_n=127))
def test_quality_is_kokkos_kernels_literally_from_n_127(A):
    assert _tuples(kokkos_quality(_degrees(A), 32)) == kokkos_quality_statuses(A, 32, clamp=False)


@pytest.mark.parametrize("priorities", [ecl_degree, kokkos_quality])
@pytest.mark.parametrize("bits", [32, 64])
@given(A=graphs())
def test_lower_degree_first(priorities, bits, A):
    degrees = _degrees(A)
    fp = priorities(degrees, bits)
    p = np.asarray(_tuples(fp), np.uint64) >> np.uint64(fp.nv)
    linked = degrees > 0  # ECL-MIS gives isolated vertices the best priority
    levels = np.unique(degrees[linked])
    worst = [p[linked & (degrees == d)].max() for d in levels]
    best = [p[linked & (degrees == d)].min() for d in levels]
    assert all(w <= b for w, b in zip(worst[:-1], best[1:]))


@pytest.mark.parametrize("bits", [32, 64])
def test_fixed_random_is_round_0_of_the_hash(bits):
    ids = np.arange(50)
    np.testing.assert_array_equal(fixed_random(50, bits)(ids, 3), Packing(50, bits)(ids, 0))


def test_ecl_priorities_lie_in_0_to_126():
    """A path's ends (degree 1) reach level 126 only with rand -> 1; vertex 0's hash is 2**32 - 1."""
    path = sp.diags_array([np.ones(9), np.ones(9)], offsets=[1, -1], shape=(10, 10))
    fp = ecl_degree(_degrees(path), 32)
    p = np.asarray(_tuples(fp), np.uint64) >> np.uint64(fp.nv)
    assert p[0] == 0 and p.max() <= 126

"""The numba backend gives the results of the suitesparse backend, the GraphBLAS reference,
bit for bit: every algorithm on grids, random graphs and the shared graphs."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings

import gbgraph as gg
from gbgraph.generators import elasticity3d, laplace3d

import algorithm_calls
from conftest import shared_graphs
from strategies import graphs

ALGORITHMS = {
    **algorithm_calls.ALGORITHMS,
    "coarse-spgemm": lambda A, b: _csr_arrays(gg.coarse_graph(A, gg.aggregate(A).labels, "spgemm", backend=b)),
}
#: Distance-2 colorings run the GraphBLAS form of their verbs on suitesparse, rounds of
#: whole-graph products: the shared graphs up to this size only.
D2_MAX_N = 20_000


def _csr_arrays(C):
    C = sp.csr_array(C)
    return np.concatenate((C.indptr, C.indices, C.data.astype(np.int64)))


def assert_identical(A, name):
    np.testing.assert_array_equal(ALGORITHMS[name](A, "numba"), ALGORITHMS[name](A, "suitesparse"), err_msg=name)


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("make", [lambda: laplace3d(12, 10, 8), lambda: elasticity3d(5, 4, 3)], ids=["laplace", "elasticity"])
def test_grids(make, name):
    assert_identical(make(), name)


@pytest.mark.parametrize("name", ALGORITHMS)
@settings(max_examples=15, deadline=None)
@given(graphs())
def test_random_graphs(name, A):
    assert_identical(A, name)


@pytest.mark.slow
@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path, name):
    G = gg.as_graph(path)
    if name.endswith("-d2") and G.n > D2_MAX_N:
        pytest.skip(f"distance 2 on suitesparse: graphs up to {D2_MAX_N:,} vertices")
    assert_identical(G, name)

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st

import gbgraph as gg
from gbgraph.algorithms.coloring import METHODS
from gbgraph.generators import laplace3d

from conftest import shared_graphs
from properties import assert_is_coloring
from conftest import backend_params
from reference import (che_base_coloring, che_hybrid_coloring, coloring_keys, mis_peeling_coloring,
                       neighbour_lists, sequential_greedy_coloring, speculative_greedy_coloring)
from strategies import graphs

VARIANTS = [("greedy", 1), ("greedy", 2), ("jones_plassmann", 1), ("jones_plassmann", 2),
            ("hybrid", 1), ("mis", 1), ("sequential", 1)]


def _degree_keys(A, seed=0):
    degrees = [len(s) for s in neighbour_lists(A)]
    bits = max(1, max(degrees, default=0).bit_length())
    return coloring_keys(A, seed, degrees, bits), bits


@given(graphs(), st.sampled_from(VARIANTS))
def test_valid_colorings(A, variant):
    method, distance = variant
    r = gg.color(A, method, distance=distance)
    assert_is_coloring(A, r, distance)


@given(graphs(), st.sampled_from([1, 2]), st.integers(0, 3))
def test_greedy_is_speculative_first_fit(A, distance, seed):
    r = gg.color(A, distance=distance, seed=seed, priority="random")
    colors, rounds = speculative_greedy_coloring(A, coloring_keys(A, seed), distance)
    np.testing.assert_array_equal(r.colors, colors)
    assert r.iterations == rounds


@given(graphs(), st.sampled_from([1, 2]))
def test_largest_degree_first_greedy_is_the_default(A, distance):
    r = gg.color(A, distance=distance)
    np.testing.assert_array_equal(r.colors, gg.color(A, distance=distance, priority="largest_degree").colors)
    keys, _ = _degree_keys(A)
    np.testing.assert_array_equal(r.colors, speculative_greedy_coloring(A, keys, distance)[0])


@given(graphs(), st.sampled_from([1, 2]), st.sampled_from([None, "random", "largest_degree"]))
def test_jones_plassmann_is_che_algorithm_1(A, distance, priority):
    r = gg.color(A, "jones_plassmann", distance=distance, priority=priority)
    keys = _degree_keys(A)[0] if priority == "largest_degree" else coloring_keys(A)
    colors, rounds = che_base_coloring(A, keys, distance)
    np.testing.assert_array_equal(r.colors, colors)
    assert r.iterations == rounds == r.n_colors


@given(graphs(), st.sampled_from([None, 0, 1, 3]))
def test_hybrid_is_che_algorithm_3(A, degree_rounds):
    r = gg.color(A, "hybrid", degree_rounds=degree_rounds)
    degree_keys, bits = _degree_keys(A)
    colors, rounds = che_hybrid_coloring(A, degree_keys, coloring_keys(A), bits, degree_rounds)
    np.testing.assert_array_equal(r.colors, colors)
    assert r.iterations == rounds


@given(graphs())
def test_mis_peeling(A):
    r = gg.color(A, "mis")
    colors, rounds = mis_peeling_coloring(A)
    np.testing.assert_array_equal(r.colors, colors)
    assert r.iterations == rounds


def test_more_than_64_colors():
    clique = np.ones((150, 150)) - np.eye(150)
    for method in METHODS:
        r = gg.color(clique, method)
        assert r.n_colors == 150
        assert_is_coloring(clique, r, 1)
    star = sp.csr_array(np.eye(1, 100, 1) + np.eye(100, 1, -1))  # vertex 0 joined to 1..99
    r = gg.color(star, distance=2)
    assert r.n_colors == 100
    assert_is_coloring(star, r, 2)


@given(graphs())
def test_deterministic_across_runs(A):
    for method, distance in VARIANTS:
        first = gg.color(A, method, distance=distance)
        again = gg.color(A, method, distance=distance)
        np.testing.assert_array_equal(again.colors, first.colors)
        assert (again.n_colors, again.iterations) == (first.n_colors, first.iterations)


@pytest.mark.parametrize(("method", "distance"), VARIANTS)
def test_identical_with_one_and_two_threads(graphblas_threads, method, distance):
    G = gg.as_graph(laplace3d(40, 30, 20))
    results = []
    for threads in (1, 2):
        graphblas_threads(threads)
        results.append(gg.color(G, method, distance=distance))
    np.testing.assert_array_equal(results[0].colors, results[1].colors)
    assert results[0].iterations == results[1].iterations


def test_seed_shifts_the_order():
    A = gg.datasets.load("fe_4elt2")
    first, other = gg.color(A, seed=0), gg.color(A, seed=1)
    assert not np.array_equal(first.colors, other.colors)
    np.testing.assert_array_equal(gg.color(A, seed=1).colors, other.colors)
    assert_is_coloring(A, other, 1)


def test_ignores_diagonal_and_values():
    A = laplace3d(6)
    pattern = (A != 0).astype(bool)
    pattern.setdiag(False)
    for method, distance in VARIANTS:
        expected = gg.color(A, method, distance=distance).colors
        for variant in (pattern, sp.csc_array(A), A.toarray()):
            np.testing.assert_array_equal(gg.color(variant, method, distance=distance).colors, expected)


@pytest.mark.parametrize("method", METHODS)
def test_empty_single_and_isolated(method):
    r = gg.color(sp.csr_array((0, 0)), method)
    assert r.colors.shape == (0,) and r.colors.dtype == np.int64 and (r.n_colors, r.iterations) == (0, 0)
    assert gg.color(np.zeros((1, 1)), method).colors.tolist() == [0]
    r = gg.color(np.zeros((5, 5)), method)
    assert r.colors.tolist() == [0] * 5 and r.n_colors == 1 and r.iterations == 1


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"method": "dsatur"}, "unknown method 'dsatur'"),
    ({"distance": 3}, "distance must be 1 or 2, got 3"),
    ({"method": "hybrid", "distance": 2}, "distance=2 is available for 'greedy' and 'jones_plassmann', not 'hybrid'"),
    ({"method": "mis", "distance": 2}, "not 'mis'"),
    ({"priority": "smallest_last"}, "unknown priority 'smallest_last'"),
    ({"method": "hybrid", "priority": "largest_degree"}, "'hybrid' fixes its own order"),
    ({"method": "mis", "priority": "random"}, "'mis' fixes its own order"),
    ({"degree_rounds": 2}, "degree_rounds is a 'hybrid' option"),
    ({"method": "hybrid", "degree_rounds": -1}, "degree_rounds must be a non-negative integer, got -1"),
    ({"seed": -3}, r"seed must be an integer from 0 to 2\*\*63 - 1, got -3"),
    ({"max_iter": 0}, "max_iter must be a positive integer, got 0"),
    ({"method": "sequential", "distance": 2}, "not 'sequential'"),
    ({"method": "sequential", "max_iter": 5}, "'sequential' is one ordered pass"),
    ({"order": np.arange(27)}, "order is a 'sequential' option, got it with method 'greedy'"),
    ({"method": "sequential", "order": np.arange(27), "priority": "random"}, "give one"),
    ({"method": "sequential", "order": np.arange(26)}, r"order must list every vertex once, 27 integers"),
    ({"method": "sequential", "order": np.zeros(27, np.int64)}, "repeats or leaves out some"),
    ({"method": "sequential", "order": np.arange(1, 28)}, "repeats or leaves out some"),
])
def test_bad_options(kwargs, message):
    with pytest.raises(ValueError, match=message):
        gg.color(laplace3d(3), **kwargs)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"distance": True}, r"distance must be an integer, got True \(bool\)"),
    ({"seed": 1.0}, r"seed must be an integer, got 1.0 \(float\)"),
])
def test_options_of_other_types(kwargs, message):
    with pytest.raises(TypeError, match=message):
        gg.color(laplace3d(3), **kwargs)


@pytest.mark.parametrize("method", [m for m in METHODS if m != "sequential"])  # one pass, no rounds to bound
def test_stall_error_reports_uncolored_vertices(method):
    with pytest.raises(gg.StallError, match=r"vertices uncolored after max_iter=2 rounds"):
        gg.color(laplace3d(10), method, max_iter=2)


def test_rejects_asymmetric_input():
    with pytest.raises(gg.InvalidGraphError, match="symmetric"):
        gg.color(np.array([[0, 1], [0, 0]]))


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    G = gg.as_graph(path, weights=False)
    for method, distance in [("greedy", 1), ("jones_plassmann", 1), ("hybrid", 1), ("mis", 1)]:
        assert_is_coloring(G, gg.color(G, method, distance=distance), distance)


def test_embedded_graph_distance_2():
    A = gg.datasets.load("fe_4elt2")
    assert_is_coloring(A, gg.color(A, distance=2), 2)


@pytest.mark.parametrize("backend", backend_params())
@given(A=graphs(), seed=st.integers(0, 2**32 - 1))
def test_sequential_is_first_fit_in_the_given_order(backend, A, seed):
    n = A.shape[0]
    order = np.random.default_rng(seed).permutation(n)
    keys = np.empty(n)
    keys[order] = np.arange(n, 0, -1)  # the first in order has the largest key
    G = A
    if backend == "cupy":
        import cupy

        order = cupy.asarray(order)
        G = gg.as_graph(A).on_device_of(cupy)
    r = gg.color(G, "sequential", order=order, backend=backend)
    colors = r.colors.get() if hasattr(r.colors, "get") else r.colors
    np.testing.assert_array_equal(colors, sequential_greedy_coloring(A, keys))
    assert r.iterations == (1 if n else 0)


@given(graphs(), st.integers(0, 3))
def test_sequential_orders_by_priority(A, seed):
    np.testing.assert_array_equal(gg.color(A, "sequential", priority="random", seed=seed).colors,
                                  sequential_greedy_coloring(A, coloring_keys(A, seed)))
    np.testing.assert_array_equal(gg.color(A, "sequential", seed=seed).colors,  # default: larger degree first
                                  sequential_greedy_coloring(A, _degree_keys(A, seed)[0]))


def test_sequential_takes_node_orders_for_networkx():
    import networkx as nx

    G = nx.cycle_graph(["a", "b", "c", "d", "e"])  # odd: three colors
    r = gg.color(G, "sequential", order=["c", "a", "e", "b", "d"])
    assert r.colors == {"c": 0, "a": 0, "e": 1, "b": 1, "d": 2} and r.n_colors == 3
    with pytest.raises(ValueError, match="order holds 'z', which is not a node of A"):
        gg.color(G, "sequential", order=["a", "b", "c", "d", "z"])


@pytest.mark.parametrize("backend", ["numba", "suitesparse"])
@pytest.mark.parametrize(("method", "distance"), [("greedy", 1), ("greedy", 2), ("jones_plassmann", 1),
                                                  ("jones_plassmann", 2), ("hybrid", 1), ("sequential", 1)])
def test_rounds_give_the_ordered_passes(monkeypatch, backend, method, distance):
    # the GPU's form of the in-order passes (Jones-Plassmann rounds of the *_WHEN_READY
    # operators; at distance 2, rounds of the first fits through the nets) gives the colors
    # of the CPU's ordered sweeps: dense subgraphs (a clique and a star in a mesh) make the
    # finish and the recoloring long chains
    from gbgraph.algorithms import coloring

    A = sp.lil_array(laplace3d(6))
    A[:30, :30] = 1
    A[200, 100:216] = A[100:216, 200] = 1
    A.setdiag(0)
    A = sp.csr_array(A)
    expected = gg.color(A, method, distance=distance, backend=backend)

    monkeypatch.setattr(coloring, "_sweeps", lambda be: False)
    result = gg.color(A, method, distance=distance, backend=backend)
    np.testing.assert_array_equal(result.colors, expected.colors)
    assert (result.n_colors, result.iterations) == (expected.n_colors, expected.iterations)


def _cliques_and_leaves():
    # disjoint 40-cliques: the first round colors one vertex of each (few), and so do the 0s
    cliques = sp.block_diag([np.ones((40, 40)) - np.eye(40)] * 20)
    # a 100-clique, four leaves on each vertex: one local maximum, many 0s (the leaves)
    A = sp.lil_array((500, 500))
    A[:100, :100] = np.ones((100, 100)) - np.eye(100)
    for leaf in range(100, 500):
        A[leaf % 100, leaf] = A[leaf, leaf % 100] = 1
    # every fourth vertex of a 1,024-clique, the others isolated: the sampled rows lie in the
    # clique (few maxima), the isolated vertices make the first round color many
    B = sp.lil_array((4096, 4096))
    B[::4, ::4] = 1
    B.setdiag(0)
    return {"cliques": cliques, "leaves": A, "sampled": B}


@pytest.mark.parametrize("backend", ["numba", "suitesparse"])
@pytest.mark.parametrize("graph", ["cliques", "leaves", "sampled"])
def test_greedy_whose_first_round_colors_few_is_one_sweep(backend, graph):
    # the host's sweep of every row in key order when a sample says the first round colors
    # few: the colors and rounds of the rounds and their finish, whether the 0s are few,
    # the local maxima among them are, or the sample was wrong
    A = sp.csr_array(_cliques_and_leaves()[graph])
    r = gg.color(A, backend=backend)
    colors, rounds = speculative_greedy_coloring(A, _degree_keys(A)[0])
    np.testing.assert_array_equal(r.colors, colors)
    assert r.iterations == rounds
    assert (rounds == 1) == (graph != "sampled")


@pytest.mark.parametrize("dtype", ["uint64", "int64", "int32", "uint32", "int8"])
@pytest.mark.parametrize("spread", ["narrow", "wide"])
def test_ordered_sweeps_sort_rows_as_numpys_stable_argsort(dtype, spread):
    # the order of the numba ordered sweeps (a counting sort of narrow values, a radix sort
    # of wide ones): by decreasing value, ties by position, as numpy's stable sort of ~v
    from gbgraph.backends.numba.kernels.coloring import by_decreasing

    rng = np.random.default_rng(len(dtype))
    info = np.iinfo(dtype)
    low, high = (0, 5) if spread == "narrow" else (int(info.min), int(info.max))
    for n in (1, 2, 50, 3000):
        values = rng.integers(low, high, n, dtype=dtype, endpoint=True)
        values[: n // 3] = values[n // 3: 2 * (n // 3)]  # ties
        assert by_decreasing(values).tolist() == np.argsort(~values, kind="stable").tolist()


@pytest.mark.parametrize("seed", [0, 7, 2**63 - 1])
def test_keys_led_by_a_field_follow_the_documented_formula(seed):
    # docs/coloring.md: K_i = d_i · 2^(64 − b) + ⌊h_i / 2^b⌋ · 2^nv + (i + 1), for a field
    # as narrow as one bit and as wide as 64 − nv bits (the widest the check lets through),
    # given as uint64 or int64 values
    from gbgraph.algorithms.coloring import _Keys

    A = laplace3d(5, 4, 3)
    graph = gg.as_graph(A, weights=False)
    keys = _Keys(gg.backends.for_graph("numba", graph), graph, seed)
    ids = np.arange(graph.n, dtype=np.int64)
    rng = np.random.default_rng(seed % 1000)
    for bits in (1, keys.degree_bits, 64 - keys.nv):
        field = rng.integers(0, 2**bits, graph.n, dtype=np.uint64)
        expected = coloring_keys(A, seed, field, bits)
        for values in (field, field.astype(np.int64)):
            assert keys.led(ids, values, bits).tolist() == expected

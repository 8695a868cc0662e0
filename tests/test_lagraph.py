"""gbgraph.lagraph against networkx and scipy, on every backend.

Each algorithm runs on random graphs, a disconnected one with isolated vertices, an edgeless
one and fe_4elt2 (a real mesh), and its result is compared with networkx's or scipy's
(independent implementations), not with another gbgraph backend. A backend that raises
NotImplementedError for a verb an algorithm needs fails here: the protocol promises every
verb on every backend.
"""

import importlib.util

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import dataclasses

import gbgraph as gg
from gbgraph import lagraph as _lagraph

from conftest import backend_params

MPI = pytest.mark.skipif(importlib.util.find_spec("mpi4py") is None, reason="needs mpi4py")
#: Every backend; mpi in-process on one rank (tests/test_mpi.py runs it on more under mpiexec).
BACKENDS = backend_params() + [pytest.param("mpi", id="mpi", marks=MPI)]


def _on_host(x):
    """A result with its GPU arrays (a GPU backend answers in CuPy) brought to the host."""
    if dataclasses.is_dataclass(x):
        return dataclasses.replace(x, **{f.name: _on_host(getattr(x, f.name)) for f in dataclasses.fields(x)})
    return x.get() if type(x).__module__.startswith("cupy") else x


class _Lagraph:
    """gbgraph.lagraph, each function's result compared on the host."""

    def __getattr__(self, name):
        attribute = getattr(_lagraph, name)
        if not callable(attribute):
            return attribute
        return lambda *args, **kwargs: _on_host(attribute(*args, **kwargs))


lagraph = _Lagraph()


def _random(n, p, seed):
    return nx.to_scipy_sparse_array(nx.gnp_random_graph(n, p, seed=seed), format="csr")


def _disconnected():
    """Two random pieces, a path, and isolated vertices between them."""
    blocks = [_random(60, 0.08, 1), sp.csr_array((5, 5)), _random(40, 0.1, 2),
              nx.to_scipy_sparse_array(nx.path_graph(7)), sp.csr_array((3, 3))]
    return sp.csr_array(sp.block_diag(blocks))


GRAPHS = {"random": lambda: _random(300, 0.02, 7), "dense-random": lambda: _random(80, 0.3, 3),
          "disconnected": _disconnected, "edgeless": lambda: sp.csr_array((6, 6)),
          "fe_4elt2": lambda: gg.datasets.load("fe_4elt2")}


@pytest.fixture(params=sorted(GRAPHS), scope="module")
def graph(request):
    A = sp.csr_array(GRAPHS[request.param]())
    A.data[:] = 1
    return request.param, A, nx.from_scipy_sparse_array(A)


def _weighted(A, seed, low=1, high=20):
    """A with symmetric integer weights in low..high."""
    U = sp.triu(A, 1, format="coo")
    w = np.random.default_rng(seed).integers(low, high + 1, U.nnz).astype(np.float64)
    W = sp.coo_array((w, (U.row, U.col)), shape=A.shape)
    return sp.csr_array(W + W.T)


def _sources(G):
    """The vertex of largest degree, and an isolated one where there is one."""
    degrees = dict(G.degree)
    picks = [max(degrees, key=degrees.get)] + [v for v, d in degrees.items() if d == 0][:1]
    return picks


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("method", lagraph.BFS_METHODS)
def test_bfs_levels_and_parents_against_networkx(graph, backend, method):
    _, A, G = graph
    for source in _sources(G):
        r = lagraph.bfs(A, source, method=method, backend=backend)
        expected = np.full(A.shape[0], -1)
        for v, level in nx.single_source_shortest_path_length(G, source).items():
            expected[v] = level
        np.testing.assert_array_equal(r.levels, expected)
        for v in np.flatnonzero(expected > 0):  # the smallest neighbour one level up
            assert r.parents[v] == min(u for u in G[v] if expected[u] == expected[v] - 1)
        assert r.parents[source] == source
        np.testing.assert_array_equal(r.parents[expected < 0], -1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_bfs_direction_pulls_while_the_frontier_is_large(backend, monkeypatch):
    # Beamer's test on a small-world graph: the frontier's edges pass the unexplored ones over
    # ALPHA within a few levels, so some levels pull (the levels stay networkx's)
    module = importlib.import_module("gbgraph.lagraph.bfs")  # lagraph.bfs is the function
    directions, level = [], module._level
    monkeypatch.setattr(module, "_level", lambda *args: directions.append(args[-1]) or level(*args))
    A = sp.csr_array(_random(2000, 0.004, 5))
    A.data[:] = 1
    r = lagraph.bfs(A, 0, backend=backend)
    expected = np.full(A.shape[0], -1)
    for v, k in nx.single_source_shortest_path_length(nx.from_scipy_sparse_array(A), 0).items():
        expected[v] = k
    np.testing.assert_array_equal(r.levels, expected)
    assert directions[0] is True and False in directions


@pytest.mark.parametrize("backend", BACKENDS)
def test_connected_components_against_networkx(graph, backend):
    _, A, G = graph
    labels = lagraph.connected_components(A, backend=backend)
    expected = np.empty(A.shape[0], np.int64)
    for component in nx.connected_components(G):
        expected[list(component)] = min(component)
    np.testing.assert_array_equal(labels, expected)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("method", lagraph.TRIANGLE_METHODS)
def test_triangle_count_against_networkx(graph, backend, method):
    _, A, G = graph
    assert lagraph.triangle_count(A, method=method, backend=backend) == sum(nx.triangles(G).values()) // 3


@pytest.mark.parametrize("backend", BACKENDS)
def test_pagerank_against_networkx(graph, backend):
    _, A, G = graph
    r = lagraph.pagerank(A, tol=1e-11, max_iter=300, backend=backend)
    expected = nx.pagerank(G, alpha=0.85, tol=1e-14, max_iter=1000)
    np.testing.assert_allclose(r.ranks, [expected[v] for v in range(A.shape[0])], rtol=0, atol=1e-10)
    assert r.ranks.sum() == pytest.approx(1)


@pytest.mark.parametrize("backend", BACKENDS)
def test_sssp_against_networkx_and_scipy(graph, backend):
    _, A, G = graph
    W = _weighted(A, seed=5)
    Gw = nx.from_scipy_sparse_array(W)
    for source in _sources(G):
        d = lagraph.sssp(W, source, backend=backend)
        expected = np.full(A.shape[0], np.inf)
        for v, length in nx.single_source_bellman_ford_path_length(Gw, source).items():
            expected[v] = length
        np.testing.assert_array_equal(d, expected)
        np.testing.assert_array_equal(d, csgraph.shortest_path(W, method="BF", indices=source))


@pytest.mark.parametrize("backend", BACKENDS)
def test_sssp_on_a_pattern_counts_edges(backend):
    A = gg.datasets.load("fe_4elt2")
    np.testing.assert_array_equal(lagraph.sssp(A, 3, backend=backend),
                                  csgraph.shortest_path(A, unweighted=True, indices=3))


@pytest.mark.parametrize("backend", BACKENDS)
def test_sssp_finds_a_negative_cycle(backend):
    W = _weighted(_random(30, 0.2, 4), seed=1)
    W.data[0] = -1.0
    W = sp.csr_array(W.minimum(W.T))  # one undirected negative edge: a cycle of two edges
    with pytest.raises(ValueError, match="negative cycle"):
        lagraph.sssp(W, 0, backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_core_number_and_kcore_against_networkx(graph, backend):
    _, A, G = graph
    expected = nx.core_number(G)
    np.testing.assert_array_equal(lagraph.core_number(A, backend=backend), [expected[v] for v in range(A.shape[0])])
    for k in (0, 2, max(expected.values())):
        np.testing.assert_array_equal(lagraph.kcore(A, k, backend=backend), sorted(nx.k_core(G, k)))


@pytest.mark.parametrize("backend", BACKENDS)
def test_directed_backend_matrix(backend):
    """A backend's own matrix is taken as it is, edges from row to column: BFS pulls through
    its transpose, PageRank reads it with the transpose descriptor, and Bellman-Ford's
    ``d min.plus A`` (pulled over Aᵀ's rows by the numba backend once most of d is
    reached) follows the edges' direction."""
    D = sp.csr_array(sp.random(200, 200, density=0.02, random_state=np.random.default_rng(8), format="csr"))
    D.setdiag(0)
    D.eliminate_zeros()
    D.data[:] = 1
    be = gg.backend(backend)
    M = be.matrix(be.xp.asarray(D.indptr), be.xp.asarray(D.indices))
    expected = csgraph.shortest_path(D, unweighted=True, indices=0)
    for method in lagraph.BFS_METHODS:
        levels = lagraph.bfs(M, 0, method=method, backend=backend).levels
        np.testing.assert_array_equal(levels, np.where(np.isinf(expected), -1, expected))
    reference = nx.pagerank(nx.from_scipy_sparse_array(D, create_using=nx.DiGraph), tol=1e-14, max_iter=1000)
    ranks = lagraph.pagerank(M, tol=1e-11, max_iter=300, backend=backend).ranks
    np.testing.assert_allclose(ranks, [reference[v] for v in range(200)], rtol=0, atol=1e-10)
    W = D.copy()
    W.data = np.random.default_rng(3).integers(1, 10, W.nnz).astype(np.float64)
    MW = be.matrix(be.xp.asarray(W.indptr), be.xp.asarray(W.indices), values=be.xp.asarray(W.data))
    expected = csgraph.shortest_path(W, indices=0)
    assert np.isfinite(expected).mean() > 0.5  # the pulled product's case
    np.testing.assert_array_equal(lagraph.sssp(MW, 0, backend=backend), expected)


@pytest.mark.parametrize("backend", BACKENDS)
def test_symmetric_backend_matrix(backend):
    """Each algorithm takes the backend's own matrix as it takes a graph."""
    A = _disconnected()
    G = nx.from_scipy_sparse_array(A)
    be = gg.backend(backend)
    M = be.adjacency(gg.as_graph(A, weights=False))
    W = _weighted(A, seed=2)
    MW = be.adjacency(gg.as_graph(W), weighted=True)
    labels = lagraph.connected_components(M, backend=backend)
    assert all(labels[v] == min(c) for c in nx.connected_components(G) for v in c)
    assert lagraph.triangle_count(M, backend=backend) == sum(nx.triangles(G).values()) // 3
    core = nx.core_number(G)
    np.testing.assert_array_equal(lagraph.core_number(M, backend=backend), [core[v] for v in range(A.shape[0])])
    np.testing.assert_array_equal(lagraph.sssp(MW, 0, backend=backend), csgraph.shortest_path(W, indices=0))


def test_networkx_input_gives_nodes():
    G = nx.relabel_nodes(nx.path_graph(4), dict(enumerate("abcd")))
    G.add_node("e")
    r = lagraph.bfs(G, "b")
    assert r.levels == {"b": 0, "a": 1, "c": 1, "d": 2}
    assert r.parents == {"b": "b", "a": "b", "c": "b", "d": "c"}
    assert lagraph.connected_components(G) == {"a": "a", "b": "a", "c": "a", "d": "a", "e": "e"}
    assert lagraph.sssp(G, "d") == {"d": 0, "c": 1, "b": 2, "a": 3}
    assert lagraph.core_number(G) == nx.core_number(G)
    assert lagraph.kcore(G, 1) == set("abcd")
    assert lagraph.pagerank(G, tol=1e-12, max_iter=300).ranks == pytest.approx(nx.pagerank(G, tol=1e-14), abs=1e-10)


def test_bad_arguments_name_the_value():
    A = gg.generators.laplace3d(3)
    with pytest.raises(ValueError, match="method must be one of direction, push, pull, got 'dfs'"):
        lagraph.bfs(A, 0, method="dfs")
    with pytest.raises(ValueError, match="source must be an integer from 0 to 26, got 27"):
        lagraph.bfs(A, 27)
    with pytest.raises(TypeError, match="source must be an integer"):
        lagraph.sssp(A, 1.5)
    with pytest.raises(ValueError, match="'x' is not a node"):
        lagraph.bfs(nx.path_graph(3), "x")
    with pytest.raises(ValueError, match="method must be one of sandia_ll, sandia_lut, got 'burkhardt'"):
        lagraph.triangle_count(A, method="burkhardt")
    with pytest.raises(ValueError, match="damping must be in"):
        lagraph.pagerank(A, damping=1.0)
    with pytest.raises(ValueError, match="k must be a non-negative integer, got -1"):
        lagraph.kcore(A, -1)
    with pytest.raises(gg.StallError, match="pagerank"):
        lagraph.pagerank(A, tol=0, max_iter=2)
    with pytest.raises(ValueError, match="square"):
        be = gg.backend("suitesparse")
        lagraph.bfs(be.matrix(np.array([0, 1, 1]), np.array([2]), ncols=3), 0, backend=be)

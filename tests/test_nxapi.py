"""gbgraph as a NetworkX backend: what it serves returns what networkx returns, node labels
and types included; what it cannot serve that way it declines. networkx's own tests of the
served functions run against the backend in ``.ci/networkx``."""

import itertools
import random

import networkx as nx
import numpy as np
import pytest

import gbgraph as gg
from gbgraph import nxapi
from gbgraph.nxapi import algorithms

# networkx notes every reuse of a converted graph kept on G (its documented cache)
pytestmark = pytest.mark.filterwarnings("ignore:Note. conversions to backend graphs are saved:UserWarning")

SERVED = {"greedy_color", "kernighan_lin_bisection", "maximal_independent_set", "maximal_matching"}


def _random_graphs():
    """Small networkx graphs with scrambled, mixed node labels (the order of insertion is
    not the order of the labels) and isolated nodes."""
    rng = np.random.default_rng(11)
    for i in range(12):
        n = int(rng.integers(1, 40))
        G = nx.gnp_random_graph(n, float(rng.uniform(0.02, 0.4)), seed=i)
        labels = [f"v{j}" if j % 3 else j * 7 for j in rng.permutation(n).tolist()]
        yield nx.relabel_nodes(G, dict(zip(range(n), labels)))


def test_entry_points_name_the_served_functions():
    assert "gbgraph" in nx.utils.backends.backends
    info = nx.utils.backends.backend_info["gbgraph"]
    assert set(info["functions"]) == SERVED == set(algorithms.CAN_RUN)
    assert all(hasattr(nxapi.backend_interface, name) for name in SERVED)
    assert "gbgraph" in nx.maximal_independent_set.backends


@pytest.mark.parametrize("G", list(_random_graphs()), ids=lambda G: f"n{len(G)}")
def test_largest_first_is_networkx_coloring_exactly(G):
    ours = nx.greedy_color(G, "largest_first", backend="gbgraph")
    assert ours == nx.greedy_color(G, "largest_first")
    assert list(ours) == list(nx.greedy_color(G, "largest_first"))  # the order of coloring too
    assert all(type(c) is int for c in ours.values())
    assert nx.greedy_color(G, nx.coloring.strategy_largest_first, backend="gbgraph") == ours


@pytest.mark.parametrize("G", list(_random_graphs())[:6], ids=lambda G: f"n{len(G)}")
def test_random_sequential_draws_the_same_permutation(G):
    for state in range(3):
        random.seed(state)
        ours = nx.greedy_color(G, "random_sequential", backend="gbgraph")
        after = random.random()
        random.seed(state)
        assert list(ours.items()) == list(nx.greedy_color(G, "random_sequential").items())
        assert random.random() == after  # the generator advanced as networkx's does


@pytest.mark.parametrize("G", list(_random_graphs()), ids=lambda G: f"n{len(G)}")
def test_maximal_independent_set_holds_the_nodes_and_is_maximal(G):
    for forced in ([], [next(iter(G))], list(nx.maximal_independent_set(G, seed=3))[:3]):
        S = nx.maximal_independent_set(G, forced, backend="gbgraph")
        assert isinstance(S, list) and len(set(S)) == len(S)
        assert S[:len(set(forced))] == list(set(forced))  # networkx lists the given nodes first
        assert G.subgraph(S).number_of_edges() == 0
        assert all(v in S or any(u in S for u in G[v]) for v in G)


def test_maximal_independent_set_rejects_what_networkx_rejects():
    G = nx.florentine_families_graph()
    with pytest.raises(nx.NetworkXUnfeasible, match=r"\{'Smith'\} is not a subset of the nodes of G"):
        nx.maximal_independent_set(G, ["Smith"], backend="gbgraph")
    with pytest.raises(nx.NetworkXUnfeasible, match="is not an independent set of G"):
        nx.maximal_independent_set(G, ["Salviati", "Pazzi"], backend="gbgraph")
    with pytest.raises(nx.NetworkXNotImplemented):
        nx.maximal_independent_set(nx.DiGraph(G), backend="gbgraph")


def test_kernighan_lin_bisection_halves_with_the_fewest_cut_edges():
    G = nx.grid_2d_graph(4, 8)  # 32 nodes; the 4 edges across the middle of the long side are the least cut
    A, B = nx.community.kernighan_lin_bisection(G, backend="gbgraph")
    assert (len(A), len(B)) == (16, 16) and A | B == set(G) and not A & B
    assert nx.cut_size(G, A, B) == 4
    odd = nx.path_graph(7)
    A, B = nx.community.kernighan_lin_bisection(odd, backend="gbgraph")
    assert (len(A), len(B)) == (4, 3) and nx.cut_size(odd, A, B) == 1  # networkx returns the ⌈n/2⌉ side first


def test_kernighan_lin_bisection_reads_the_weight_attribute():
    G = nx.cycle_graph(4)
    nx.set_edge_attributes(G, {(0, 1): 10, (1, 2): 1, (2, 3): 10, (3, 0): 1}, "w")
    halves = nx.community.kernighan_lin_bisection(G, weight="w", backend="gbgraph")
    assert set(map(frozenset, halves)) == {frozenset({0, 1}), frozenset({2, 3})}  # cut 2, not 20
    assert nx.cut_size(G, *halves, weight="w") == 2
    nx.set_edge_attributes(G, {(0, 1): -1}, "w")
    with pytest.raises(NotImplementedError):  # networkx's own implementation takes negative weights
        nx.community.kernighan_lin_bisection(G, weight="w", backend="gbgraph")


@pytest.mark.parametrize("G", list(_random_graphs()), ids=lambda G: f"n{len(G)}")
def test_maximal_matching_is_maximal_with_networkx_edge_order(G):
    M = nx.maximal_matching(G, backend="gbgraph")
    assert isinstance(M, set) and nx.is_maximal_matching(G, M)
    position = {v: i for i, v in enumerate(G)}
    assert all(position[u] < position[v] for u, v in M)


def test_self_loops_are_not_matched():
    G = nx.path_graph(3)
    G.add_edges_from([(0, 0), (1, 1)])
    M = nx.maximal_matching(G, backend="gbgraph")
    assert len(M) == 1 and nx.is_maximal_matching(G, M)


@pytest.mark.parametrize(("call", "reason"), [
    (lambda G: nx.maximal_independent_set(G, seed=1, backend="gbgraph"), "a seed asks for networkx's own"),
    (lambda G: nx.maximal_independent_set(nx.Graph(), backend="gbgraph"), "empty graph"),
    (lambda G: nx.greedy_color(G, "DSATUR", backend="gbgraph"), "not 'DSATUR'"),
    (lambda G: nx.greedy_color(G, interchange=True, backend="gbgraph"), "interchange=True"),
    (lambda G: nx.greedy_color(nx.MultiGraph(G), backend="gbgraph"), "multigraphs"),
    (lambda G: nx.greedy_color(nx.Graph([(0, 0), (0, 1)]), backend="gbgraph"), "1 self loops"),
    (lambda G: nx.community.kernighan_lin_bisection(G, ({0, 1}, {2, 3, 4}), backend="gbgraph"), "given partition"),
    (lambda G: nx.community.kernighan_lin_bisection(G, seed=0, backend="gbgraph"), "random start"),
    (lambda G: nx.community.kernighan_lin_bisection(G, max_iter=1, backend="gbgraph"), "max_iter"),
])
def test_declined_calls_say_why(call, reason, caplog):
    G = nx.path_graph(5)
    with caplog.at_level("DEBUG", logger="networkx"), pytest.raises(NotImplementedError, match="'gbgraph' backend"):
        call(G)
    assert reason in caplog.text


def test_backend_priority_uses_gbgraph_and_falls_back_where_it_declines(caplog):
    G = nx.path_graph(5)
    before = nx.config.backend_priority.algos
    nx.config.backend_priority.algos = ["gbgraph"]
    try:
        with caplog.at_level("DEBUG", logger="networkx"):
            S = nx.maximal_independent_set(G)
        assert "Using backend 'gbgraph' for call to 'maximal_independent_set'" in caplog.text
        assert gg.validate.is_mis(G, set(S))
        caplog.clear()
        with caplog.at_level("DEBUG", logger="networkx"):
            seeded = nx.maximal_independent_set(G, seed=1)
        assert "Using backend 'gbgraph'" not in caplog.text
        assert seeded == nx.maximal_independent_set(G, seed=1, backend="networkx")
    finally:
        nx.config.backend_priority.algos = before


def test_conversion_keeps_nodes_edges_and_weights():
    G = nx.Graph()
    G.add_nodes_from(["z", "y", "lonely"])
    G.add_weighted_edges_from([("z", "y", 2.5), ("y", "x", 4.0)])
    G.add_edge("x", "w")  # no weight: networkx's default, 1
    B = nxapi.backend_interface.convert_from_nx(G, edge_attrs={"weight": 1})
    assert B.nodes == list(G) and B.graph.nnz == 6 and B.weight == "weight"
    H = nxapi.backend_interface.convert_to_nx(B)
    assert list(H) == list(G)
    assert {frozenset(e): d for *e, d in H.edges(data="weight")} == \
        {frozenset(e): d for *e, d in G.edges(data="weight", default=1)}
    assert nxapi.backend_interface.convert_to_nx({"a": 1}) == {"a": 1}  # results pass as they are
    with pytest.raises(NotImplementedError, match="undirected"):
        nxapi.backend_interface.convert_from_nx(nx.DiGraph(G))


def test_all_small_graphs_against_networkx():
    """Every graph on 4 nodes, inserted in every order of its nodes: exact colorings, valid
    sets and matchings."""
    pairs = list(itertools.combinations(range(4), 2))
    for chosen in itertools.product([False, True], repeat=len(pairs)):
        edges = [p for p, c in zip(pairs, chosen) if c]
        for order in list(itertools.permutations(range(4)))[::7]:  # 4 of the 24 orders
            G = nx.Graph()
            G.add_nodes_from(order)
            G.add_edges_from(edges)
            assert nx.greedy_color(G, backend="gbgraph") == nx.greedy_color(G)
            S = nx.maximal_independent_set(G, backend="gbgraph")
            assert gg.validate.is_mis(G, set(S))
            assert nx.is_maximal_matching(G, nx.maximal_matching(G, backend="gbgraph"))


# ---- directed graphs: every entry says they are not supported, and what to do ----------


DIRECTED_ENTRIES = {
    "as_graph": lambda D: gg.as_graph(D),
    "mis1": lambda D: gg.mis1(D), "mis2": lambda D: gg.mis2(D), "misk": lambda D: gg.misk(D, 3),
    "aggregate": lambda D: gg.aggregate(D), "color": lambda D: gg.color(D),
    "coarse_mapping": lambda D: gg.coarse_mapping(D), "coarse_graph": lambda D: gg.coarse_graph(D, [0, 0, 1, 1]),
    "coarsen": lambda D: gg.coarsen(D), "partition": lambda D: gg.partition(D, 2), "bisect": lambda D: gg.bisect(D),
    "is_mis": lambda D: gg.validate.is_mis(D, [0]), "is_coloring": lambda D: gg.validate.is_coloring(D, [0, 1, 0, 1]),
}


@pytest.mark.parametrize("kind", [nx.DiGraph, nx.MultiDiGraph])
@pytest.mark.parametrize("entry", DIRECTED_ENTRIES)
def test_directed_graphs_are_refused_naming_the_remedy(entry, kind):
    U = nx.cycle_graph(4)
    D = kind(U)  # both directions of every edge: a symmetric pattern, still a directed graph
    with pytest.raises(gg.InvalidGraphError, match=r"^A is a directed networkx graph \(" + kind.__name__ +
                       r"\); .*G\.to_undirected\(\).*gg\.symmetrize\(G\)$"):
        DIRECTED_ENTRIES[entry](D)
    for remedy in (D.to_undirected(), gg.symmetrize(D)):  # what the message says works
        assert not remedy.is_directed()
        DIRECTED_ENTRIES[entry](nx.Graph(remedy))


def test_gbgraphs_mis2_of_a_digraph_is_the_mis2_of_its_undirected_graph():
    D = nx.DiGraph([(0, 1), (1, 2), (2, 3), (3, 4)])
    with pytest.raises(ValueError, match="directed"):
        gg.mis2(D)
    assert gg.mis2(D.to_undirected()).vertices == gg.mis2(nx.path_graph(5)).vertices


def test_the_backend_declines_directed_graphs_naming_to_undirected():
    reason = nxapi.algorithms.can_run("greedy_color", (nx.DiGraph(nx.path_graph(3)),), {})
    assert reason == "directed graphs are not supported: pass G.to_undirected()"
    with pytest.raises(NotImplementedError, match=r"G\.to_undirected\(\)"):
        nxapi.backend_interface.convert_from_nx(nx.DiGraph(nx.path_graph(3)))

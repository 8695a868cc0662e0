"""One calling convention across the public functions: the graph, then the variant, then
keywords; integer parameters take every integral type and name themselves when rejected."""

import inspect
import re

import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.generators import laplace3d

# function: its positional parameters, in order; every other parameter is keyword-only
POSITIONAL = {
    gg.mis1: ("A", "priority"),
    gg.mis2: ("A", "priority"),
    gg.misk: ("A", "k"),
    gg.aggregate: ("A", "method"),
    gg.color: ("A", "method"),
    gg.coarse_graph: ("A", "labels", "method"),
    gg.coarsen: ("A", "method"),
    gg.amg.smoothed_aggregation_solver: ("A", "aggregation"),
    gg.solvers.multicolor_gauss_seidel: ("A", "colors"),
    gg.solvers.cluster_gauss_seidel: ("A", "aggregation"),
}


@pytest.mark.parametrize("function", POSITIONAL, ids=lambda f: f.__name__)
def test_graph_then_variant_then_keywords(function):
    parameters = inspect.signature(function).parameters.values()
    positional = tuple(p.name for p in parameters if p.kind is p.POSITIONAL_OR_KEYWORD)
    assert positional == POSITIONAL[function]
    assert all(p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY, p.VAR_KEYWORD) for p in parameters)


def test_second_positional_is_the_priority():
    A = laplace3d(6)
    np.testing.assert_array_equal(gg.mis2(A, "fixed").vertices, gg.misk(A, 2).vertices)
    np.testing.assert_array_equal(gg.mis2(A, "quality").vertices, gg.mis2(A, priority="quality").vertices)
    with pytest.raises(ValueError, match="priority must be one of 'refresh', 'fixed', 'quality', got 'cupy'"):
        gg.mis2(A, "cupy")
    with pytest.raises(TypeError, match="positional"):
        gg.mis1(A, "degree", "suitesparse")


A = laplace3d(5)
LABELS = gg.aggregate(A).labels


def _summary(result):
    """A comparable view of any result below."""
    if isinstance(result, gg.solvers.GaussSeidel):
        return (result @ np.arange(A.shape[0], dtype=float)).tolist()
    for field in ("vertices", "colors", "labels"):
        if hasattr(result, field):
            return np.asarray(getattr(result, field)).tolist()
    if isinstance(result, gg.Hierarchy):
        return [level.n for level in result]
    if sp.issparse(result):
        return result.toarray().tolist()
    return result


# (call with the parameter set to v, parameter name, a valid value, smallest valid, largest valid)
INTEGER_PARAMETERS = [
    (lambda v: gg.misk(A, v), "k", 3, 1, None),
    (lambda v: gg.mis1(A, max_iter=v), "max_iter", 50, 1, None),
    (lambda v: gg.mis2(A, max_iter=v), "max_iter", 50, 1, None),
    (lambda v: gg.misk(A, 2, max_iter=v), "max_iter", 50, 1, None),
    (lambda v: gg.color(A, distance=v), "distance", 2, 1, 2),
    (lambda v: gg.color(A, seed=v), "seed", 7, 0, 2**63 - 1),
    (lambda v: gg.color(A, "hybrid", degree_rounds=v), "degree_rounds", 2, 0, None),
    (lambda v: gg.color(A, max_iter=v), "max_iter", 50, 1, None),
    (lambda v: gg.coarsen(A, cutoff=v), "cutoff", 10, 1, None),
    (lambda v: gg.coarsen(A, cutoff=1, max_levels=v), "max_levels", 2, 1, None),
    (lambda v: gg.aggregation_operator(LABELS, v), "n_aggregates", int(LABELS.max()) + 3, 0, None),
    (lambda v: gg.validate.is_mis(A, gg.misk(A, 3).vertices, distance=v), "distance", 3, 1, None),
    (lambda v: gg.validate.is_coloring(A, gg.color(A).colors, distance=v), "distance", 1, 1, None),
    (lambda v: gg.solvers.multicolor_gauss_seidel(A, sweeps=v), "sweeps", 2, 1, None),
    (lambda v: gg.solvers.cluster_gauss_seidel(A, LABELS, sweeps=v), "sweeps", 2, 1, None),
    (lambda v: gg.generators.laplace3d(v), "nx", 4, 1, None),
]
IDS = [f"{i}-{case[1]}" for i, case in enumerate(INTEGER_PARAMETERS)]


@pytest.mark.parametrize(("call", "name", "value", "low", "high"), INTEGER_PARAMETERS, ids=IDS)
@pytest.mark.parametrize("kind", [np.int64, np.int32, np.uint16, np.int8, lambda v: np.array(v)])
def test_every_integral_type_is_accepted(call, name, value, low, high, kind):
    assert _summary(call(kind(value))) == _summary(call(value))


@pytest.mark.parametrize(("call", "name", "value", "low", "high"), INTEGER_PARAMETERS, ids=IDS)
def test_other_types_are_rejected(call, name, value, low, high):
    for bad in (float(value), True, str(value), np.float64(value)):
        with pytest.raises(TypeError, match=f"^{name} must be an integer, got {re.escape(repr(bad))}"):
            call(bad)


@pytest.mark.parametrize(("call", "name", "value", "low", "high"), INTEGER_PARAMETERS, ids=IDS)
def test_values_out_of_range_are_rejected(call, name, value, low, high):
    for bad in [low - 1] + ([] if high is None else [high + 1, 2**64, 10**30]):
        with pytest.raises(ValueError, match=f"^{name} must be .*, got {bad}$"):
            call(bad)


def test_huge_seeds_name_the_limit():
    with pytest.raises(ValueError, match=r"seed must be an integer from 0 to 2\*\*63 - 1, got 18446744073709551616"):
        gg.color(A, seed=2**64)
    assert gg.validate.is_coloring(A, gg.color(A, seed=np.uint64(2**63 - 1)).colors)


def test_amg_integer_options():
    pytest.importorskip("pyamg")
    expected = len(gg.amg.smoothed_aggregation_solver(A, max_levels=2, max_coarse=10).levels)
    assert len(gg.amg.smoothed_aggregation_solver(A, max_levels=np.int64(2), max_coarse=np.int32(10)).levels) == expected
    with pytest.raises(TypeError, match=r"max_levels must be an integer, got 2.0 \(float\)"):
        gg.amg.smoothed_aggregation_solver(A, max_levels=2.0)
    with pytest.raises(ValueError, match="max_coarse must be a non-negative integer, got -1"):
        gg.amg.smoothed_aggregation_solver(A, max_coarse=-1)


def test_thread_count():
    before = gg.backends.set_threads(np.int64(1))
    try:
        with pytest.raises(TypeError, match=r"count must be an integer, got 1.0 \(float\)"):
            gg.backends.set_threads(1.0)
        with pytest.raises(ValueError, match="count must be .*, got 0"):
            gg.backends.set_threads(0)
    finally:
        gg.backends.set_threads(before)


# ---- weights=: the edge weights of partition, bisect and coarsen, as the CLI's --weights ----


def test_coarsen_weights_choose_the_edge_weights():
    L = laplace3d(9, 8, 7)  # a Laplacian: its edges are negative entries
    levels = lambda h: [level.n for level in h]  # noqa: E731
    assert levels(gg.coarsen(L, "hec")) == levels(gg.coarsen(abs(L), "hec", weights="values"))
    assert levels(gg.coarsen(L, "hec", weights="pattern")) == levels(gg.coarsen(L != 0, "hec"))
    negative = int(np.count_nonzero(sp.coo_array(L).data < 0))
    with pytest.raises(ValueError, match=f'A has {negative:,} negative weights .*heaviest edges.*weights="abs".*'
                                         'weights="pattern"'):
        gg.coarsen(L, "hec", weights="values")
    # MIS-2 aggregation reads no weight: with "values" the coarse graphs sum the signed ones
    h = gg.coarsen(L, weights="values", cutoff=100)
    P = sp.csr_array((np.ones(L.shape[0]), (np.arange(L.shape[0]), np.asarray(h[0].labels))))
    C = sp.csr_array(P.T @ sp.csr_array(L - sp.diags_array(L.diagonal())) @ P)
    C.setdiag(0)
    C.eliminate_zeros()
    coarse = h[1].graph
    np.testing.assert_allclose(coarse.weights, C.data)
    assert (coarse.weights < 0).all()
    assert (gg.coarsen(L, cutoff=100)[1].graph.weights > 0).all()  # "abs", the default


def _bad_graphs():
    import networkx as nx

    return [nx.DiGraph([(0, 1)]), np.ones((2, 3)), sp.csr_array(np.triu(np.ones((3, 3))))]


@pytest.mark.parametrize("call", [
    lambda A, **kw: gg.coarsen(A, **kw), lambda A, **kw: gg.partition(A, 2, **kw), lambda A, **kw: gg.bisect(A, **kw),
], ids=["coarsen", "partition", "bisect"])
def test_weights_option_is_checked_before_the_graph(call):
    for A in _bad_graphs():
        with pytest.raises(ValueError, match="^weights must be one of 'abs', 'values', 'pattern', got 'none'$"):
            call(A, weights="none")
        with pytest.raises(ValueError, match="weights must be one of .*, got None"):
            call(A, weights=None)
        with pytest.raises(ValueError, match="^seed must be an integer from 0 to 2\\*\\*63 - 1, got -1$"):
            call(A, seed=-1)
        with pytest.raises(ValueError, match="^unknown backend 'gpu'"):
            call(A, backend="gpu")


def test_coarsen_checks_its_arguments_before_the_graph():
    for A in _bad_graphs():
        with pytest.raises(ValueError, match="cutoff must be a positive integer, got 0"):
            gg.coarsen(A, cutoff=0)
        with pytest.raises(ValueError, match="method 'mis2' has Kokkos Kernels' fixed priorities and takes no seed"):
            gg.coarsen(A, seed=3)


def test_weights_of_a_distributed_graph_stay_distributed():
    pytest.importorskip("mpi4py")
    from gbgraph.distributed import DistributedGraph, scatter

    L = laplace3d(8, 7, 6)
    h = gg.coarsen(scatter(L), "hec")  # each rank takes |A(i, j)| of its own rows
    assert isinstance(h[0].graph, DistributedGraph) and (h[0].graph.local_weights > 0).all()
    assert [level.n for level in h] == [level.n for level in gg.coarsen(abs(L), "hec")]
    assert gg.coarsen(scatter(L), "hec", weights="pattern")[0].graph.local_weights is None
    with pytest.raises(ValueError, match='negative weights.*weights="abs"'):
        gg.coarsen(scatter(L), "hec", weights="values")

"""Type in, type out (docs/types.md): networkx input gives node labels back, every other
input arrays of its device; the labelled results are the positional ones, relabelled."""

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg

from conftest import gpu_available


def _labelled_grid():
    """A 5 × 6 grid whose nodes are strings, inserted in a scrambled order (so the node
    order, which gbgraph's positions follow, is not the order of the labels)."""
    grid = nx.grid_2d_graph(5, 6)
    order = np.random.default_rng(2).permutation(len(grid))
    nodes = list(grid)
    G = nx.Graph()
    G.add_nodes_from(f"{nodes[i][0]}-{nodes[i][1]}" for i in order)
    G.add_edges_from((f"{a}-{b}", f"{c}-{d}") for (a, b), (c, d) in grid.edges)
    return G


G = _labelled_grid()
NODES = list(G)
A = nx.to_scipy_sparse_array(G, nodelist=NODES, format="csr")  # the same graph, positions in node order


def _as_set(ids):
    return {NODES[i] for i in np.asarray(ids).tolist()}


def _as_dict(values):
    return dict(zip(NODES, np.asarray(values).tolist()))


@pytest.mark.parametrize("call", [
    lambda M: gg.mis1(M), lambda M: gg.mis1(M, "random"), lambda M: gg.mis2(M), lambda M: gg.misk(M, 3),
], ids=["mis1", "mis1_random", "mis2", "misk"])
def test_independent_sets_are_sets_of_nodes(call):
    labelled, positional = call(G), call(A)
    assert isinstance(positional.vertices, np.ndarray)
    assert labelled.vertices == _as_set(positional.vertices)
    assert labelled.iterations == positional.iterations


def test_aggregates_are_dicts_and_roots_sets():
    labelled, positional = gg.aggregate(G), gg.aggregate(A)
    assert labelled.labels == _as_dict(positional.labels) and labelled.roots == _as_set(positional.roots)
    assert labelled.n_aggregates == positional.n_aggregates
    coarse = gg.coarse_graph(G, labelled.labels)  # the dict goes back in
    assert isinstance(coarse, nx.Graph)
    expected = gg.coarse_graph(A, positional.labels)
    assert sp.csr_array(nx.to_scipy_sparse_array(coarse, nodelist=range(len(coarse)))).toarray().tolist() == \
        expected.toarray().tolist()
    with pytest.raises(ValueError, match=r"labels has no entry for node '0-0' \(1 nodes of A are missing\)"):
        gg.coarse_graph(G, {v: 0 for v in NODES if v != "0-0"})


@pytest.mark.parametrize("method", gg.algorithms.coloring.METHODS)
def test_colors_are_dicts(method):
    labelled, positional = gg.color(G, method), gg.color(A, method)
    assert labelled.colors == _as_dict(positional.colors)
    assert all(type(c) is int for c in labelled.colors.values())
    assert gg.validate.is_coloring(G, labelled.colors)


def test_mappings_hierarchies_and_parts_are_dicts():
    assert gg.coarse_mapping(G, "hec").labels == _as_dict(gg.coarse_mapping(A, "hec").labels)
    h, positional = gg.coarsen(G, "hec", cutoff=5), gg.coarsen(A, "hec", cutoff=5)
    assert h[0].labels == _as_dict(positional[0].labels)  # the input's vertices are nodes
    assert all(isinstance(level.labels, np.ndarray) for level in h[1:-1])  # coarse vertices are 0, 1, ...
    p = gg.partition(G, 3, vertex_weights={v: 1 + (v < "2") for v in NODES})
    q = gg.partition(A, 3, vertex_weights=np.array([1 + (v < "2") for v in NODES]))
    assert p.parts == _as_dict(q.parts) and p.cut == q.cut
    assert gg.bisect(G).parts == _as_dict(gg.bisect(A).parts)


def test_validate_takes_nodes():
    S = gg.mis2(G).vertices
    assert gg.validate.is_mis(G, S, distance=2) and gg.validate.is_independent(G, S)
    assert not gg.validate.is_independent(G, {"0-0", "0-1"})
    with pytest.raises(ValueError, match="S holds 'x', which is not a node of A"):
        gg.validate.is_mis(G, {"x"})
    assert gg.validate.is_mis(A, np.array(sorted(NODES.index(v) for v in S)), distance=2)  # arrays: positions


@pytest.mark.parametrize("kind", ["numpy", "csr_matrix", "graphblas", "path"])
def test_other_inputs_give_numpy(kind, tmp_path):
    import graphblas as gb
    import scipy.io

    if kind == "path":
        M = tmp_path / "g.mtx"
        scipy.io.mmwrite(M, A)
    else:
        M = {"numpy": A.toarray(), "csr_matrix": sp.csr_matrix(A),
             "graphblas": gb.Matrix.from_csr(A.indptr, A.indices, A.data, ncols=A.shape[1])}[kind]
    for result in (gg.mis2(M).vertices, gg.color(M).colors, gg.aggregate(M).labels, gg.bisect(M).parts,
                   gg.coarse_mapping(M, "hem").labels):
        assert isinstance(result, np.ndarray) and result.dtype == np.int64


@pytest.mark.gpu
@pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")
def test_gpu_input_gives_cupy():
    import cupy
    import cupyx.scipy.sparse as csp

    M = csp.csr_matrix(A.astype(np.float64))
    for result in (gg.mis2(M).vertices, gg.color(M).colors, gg.aggregate(M).labels, gg.bisect(M).parts,
                   gg.coarse_mapping(M, "hem").labels):
        assert isinstance(result, cupy.ndarray) and result.dtype == np.int64
    assert isinstance(gg.coarse_graph(M, gg.aggregate(M).labels), csp.csr_matrix)
    assert gg.mis2(G, backend="cupy").vertices == gg.mis2(G).vertices  # networkx input: nodes from the GPU too

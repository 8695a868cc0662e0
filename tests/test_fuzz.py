"""Fuzz: seeded random graphs through every public algorithm, each result checked twice.

``GRAPHS`` random graphs (isolated vertices, stars, cliques, paths, cycles, trees, grids,
complete bipartite and G(n, m) graphs of up to a few hundred vertices, sizes log-uniform;
``_random_graph``) come from one seeded numpy generator, so every run sees the same ones. They run in ``BATCHES``
batches: a batch is the disjoint union of its graphs with shuffled vertex ids, handed to
the algorithms as a messy matrix (entries split into duplicates, some stored zeros, diagonal
entries, rows unsorted; CSR, CSC, COO or graphblas; float, int or bool), so that one call
covers a few hundred graphs. Every graph of at most four vertices also runs alone, in the
containers a batch cannot use too (numpy, networkx). Each result is checked by
:mod:`gbgraph.validate` and by numpy/scipy code that does not use gbgraph: balls from the
powers of ``I + A``, ``Pᵀ A P`` by scipy, Gauss-Seidel as scipy's triangular solves.
Malformed CSR, CSC and COO arrays go through every entry point in one subprocess, where a
crash fails the test instead of ending the run.
"""

import functools
import itertools
import json
import pathlib
import subprocess
import sys
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import gbgraph as gg
from gbgraph.algorithms.coarsen import CoarseningStallWarning

SEED = 18
GRAPHS = 10_000
BATCHES = 25
MAX_LEAVES = 300  # distance-2 coloring is quadratic in the largest degree (issue 18, item 2)
BAD_ARRAYS = 1_000

pytestmark = pytest.mark.slow  # minutes: `pytest -m slow` runs it (.ci/run does)


# ---- random graphs ---------------------------------------------------------------------


def _size(rng, low, high):
    """An integer in low..high, log-uniform: as many graphs of 2-20 vertices as of 20-200."""
    return int(np.exp(rng.uniform(np.log(low), np.log(high + 1))))


def _random_graph(rng):
    """(n, u, v): a graph of one of the families, its edges u < v listed once."""
    kind = rng.choice(["empty", "isolated", "star", "clique", "path", "cycle", "tree", "grid", "bipartite", "gnm"],
                      p=[0.02, 0.06, 0.12, 0.08, 0.10, 0.06, 0.14, 0.08, 0.06, 0.28])
    if kind == "empty":
        return 0, np.zeros(0, np.int64), np.zeros(0, np.int64)
    if kind == "isolated":
        n, u, v = _size(rng, 1, 50), [], []
    elif kind == "star":
        n = _size(rng, 2, MAX_LEAVES + 1)
        u, v = np.zeros(n - 1), np.arange(1, n)
    elif kind == "clique":
        n = _size(rng, 2, 40)
        u, v = np.triu_indices(n, 1)
    elif kind in ("path", "cycle"):
        n = _size(rng, 3, 300)
        u, v = np.arange(n - 1), np.arange(1, n)
        if kind == "cycle":
            u, v = np.append(u, 0), np.append(v, n - 1)
    elif kind == "tree":  # a random recursive tree: vertex i hangs from an earlier vertex
        n = _size(rng, 2, 300)
        v = np.arange(1, n)
        u = np.floor(rng.random(n - 1) * v)
    elif kind == "grid":
        a, b = _size(rng, 1, 17), _size(rng, 1, 17)
        n, ids = a * b, np.arange(a * b).reshape(a, b)
        u = np.concatenate((ids[:, :-1].ravel(), ids[:-1, :].ravel()))
        v = np.concatenate((ids[:, 1:].ravel(), ids[1:, :].ravel()))
    elif kind == "bipartite":
        a, b = _size(rng, 1, 15), _size(rng, 1, 15)
        n = a + b
        u, v = (x.ravel() for x in np.meshgrid(np.arange(a), np.arange(a, n), indexing="ij"))
    else:
        n = _size(rng, 2, 300)
        pairs = rng.integers(0, n, (int(n * rng.uniform(0.2, 6)), 2))
        pairs = np.unique(np.sort(pairs[pairs[:, 0] != pairs[:, 1]], axis=1), axis=0)
        u, v = pairs[:, 0], pairs[:, 1]
    extra = int(rng.integers(1, 6)) if rng.random() < 0.3 else 0  # isolated vertices beside
    return n + extra, np.asarray(u, np.int64), np.asarray(v, np.int64)


@functools.cache
def _graphs():
    rng = np.random.default_rng(SEED)
    return tuple(_random_graph(rng) for _ in range(GRAPHS))


def _union(graphs, rng):
    """(n, u, v): the disjoint union with shuffled vertex ids, each edge once with u < v."""
    offsets = np.cumsum([0] + [g[0] for g in graphs])
    ids = rng.permutation(int(offsets[-1]))
    u = ids[np.concatenate([g[1] + o for g, o in zip(graphs, offsets)] + [np.zeros(0, np.int64)])]
    v = ids[np.concatenate([g[2] + o for g, o in zip(graphs, offsets)] + [np.zeros(0, np.int64)])]
    return int(offsets[-1]), np.minimum(u, v), np.maximum(u, v)


class Truth:
    """What a graph means, computed by scipy from its edge list alone: the pattern S
    (off-diagonal, both triangles, sorted), the weights W, the balls of ``I + S``."""

    def __init__(self, n, u, v, w):
        rows, cols = np.concatenate((u, v)), np.concatenate((v, u))
        self.n, self.u, self.v, self.w = n, u, v, w
        self.S = sp.csr_array((np.ones(rows.size, np.int64), (rows, cols)), shape=(n, n))
        self.W = sp.csr_array((np.concatenate((w, w)), (rows, cols)), shape=(n, n))
        self.S.sort_indices()
        self.W.sort_indices()
        self.degree = np.diff(self.S.indptr)
        self._balls = {0: sp.eye_array(n, dtype=np.int64, format="csr")}

    def ball(self, k):
        """Pattern of (I + S)^k as 0/1 int64: (i, j) stored when j lies within k edges of i."""
        if k not in self._balls:
            B = self.ball(k - 1) @ (self.ball(0) + self.S)
            self._balls[k] = sp.csr_array((np.ones(B.nnz, np.int64), B.indices, B.indptr), shape=B.shape)
        return self._balls[k]


def _messy(rng, truth):
    """``(A, dtype)``: a matrix that means ``truth`` to gbgraph, stored as unhelpfully as
    its container allows: a quarter of the entries split in two (one part may be a stored
    zero), diagonal entries (ignored), rows in random order; CSR, CSC, COO, a scipy matrix
    or a graphblas Matrix; float, int or bool values (bool: a pattern, every entry 1)."""
    n = truth.n
    rows, cols = np.concatenate((truth.u, truth.v)), np.concatenate((truth.v, truth.u))
    vals = np.concatenate((truth.w, truth.w))
    split = rng.random(rows.size) < 0.25
    part = rng.integers(0, vals[split] + 1)
    vals[split] -= part
    diagonal = rng.choice(n, size=min(n, int(rng.integers(0, 20))), replace=False)
    rows = np.concatenate((rows, rows[split], diagonal))
    cols = np.concatenate((cols, cols[split], diagonal))
    vals = np.concatenate((vals, part, rng.integers(1, 9, diagonal.size)))
    order = rng.permutation(rows.size)
    rows, cols = rows[order], cols[order]
    dtype = str(rng.choice(["float64", "int64", "int32", "bool"]))
    vals = np.ones(rows.size, bool) if dtype == "bool" else vals[order].astype(dtype)
    kind = rng.choice(["csr", "csc", "coo", "csr_matrix", "graphblas"])
    if kind == "graphblas":
        import graphblas as gb

        dup = gb.binary.lor if dtype == "bool" else gb.binary.plus
        return gb.Matrix.from_coo(rows, cols, vals, nrows=n, ncols=n, dup_op=dup), dtype
    if kind == "coo":
        return sp.coo_array((vals, (rows, cols)), shape=(n, n)), dtype
    major, minor = (cols, rows) if kind == "csc" else (rows, cols)
    grouped = np.argsort(major, kind="stable")  # rows grouped, their entries left unsorted
    indptr = np.concatenate(([0], np.cumsum(np.bincount(major, minlength=n))))
    build = {"csr": sp.csr_array, "csc": sp.csc_array, "csr_matrix": sp.csr_matrix}[kind]
    return build((vals[grouped], minor[grouped], indptr), shape=(n, n)), dtype


def _scipy(C):
    """A coarse graph from any container, as a scipy CSR array."""
    if type(C).__module__.startswith("graphblas"):
        indptr, indices, values = C.to_csr()
        return sp.csr_array((values, indices, indptr), shape=C.shape)
    if type(C).__module__.startswith("networkx"):
        import networkx as nx

        if len(C) == 0:  # networkx makes no matrix of an empty graph
            return sp.csr_array((0, 0))
        return nx.to_scipy_sparse_array(C, nodelist=range(len(C)), format="csr")
    return sp.csr_array(C)


# ---- independent checks ----------------------------------------------------------------


def check_graph(G, truth, weighted):
    assert G.n == truth.n
    np.testing.assert_array_equal(G.indptr, truth.S.indptr)
    np.testing.assert_array_equal(G.indices, truth.S.indices)
    if weighted:
        np.testing.assert_array_equal(G.weights, truth.W.data)
    else:
        assert G.weights is None


def check_mis(G, truth, result, k):
    S = np.asarray(result.vertices)
    assert S.dtype == np.int64 and np.all(np.diff(S) > 0) and (S.size == 0 or 0 <= S[0] <= S[-1] < truth.n)
    assert gg.validate.is_mis(G, S, distance=k)
    member = np.zeros(truth.n, np.int64)
    member[S] = 1
    within = truth.ball(k) @ member  # set vertices within distance k of each vertex
    assert np.all(within[S] == 1), f"two set vertices within distance {k}"
    assert np.all(within > 0), f"a vertex farther than {k} from the set"


def check_coloring(G, truth, result, k, first_fit):
    colors = np.asarray(result.colors)
    assert colors.dtype == np.int64 and colors.shape == (truth.n,)
    assert np.array_equal(np.unique(colors), np.arange(result.n_colors))
    assert gg.validate.is_coloring(G, colors, distance=k)
    B = sp.coo_array(truth.ball(k))
    apart = B.row != B.col
    assert np.all(colors[B.row[apart]] != colors[B.col[apart]]), f"two vertices within distance {k} share a color"
    if first_fit and truth.n:  # the smallest free color is below the number of others in the ball
        assert result.n_colors <= int(np.diff(truth.ball(k).indptr).max())


def check_aggregation(G, truth, agg):
    labels, roots, k = np.asarray(agg.labels), np.asarray(agg.roots), agg.n_aggregates
    assert labels.dtype == np.int64 and labels.shape == (truth.n,)
    assert np.array_equal(np.unique(labels), np.arange(k)), "aggregate ids must be 0..k-1, all used"
    assert roots.shape == (k,) and np.all(np.diff(roots) > 0)
    assert np.array_equal(np.sort(labels[roots]), np.arange(k)), "one root per aggregate"
    assert gg.validate.is_independent(G, roots), "two adjacent roots"
    assert truth.S[roots][:, roots].nnz == 0, "two adjacent roots"
    isolated = np.flatnonzero(truth.degree == 0)  # alone within distance 2: roots, alone
    assert np.isin(isolated, roots).all() and np.all(np.bincount(labels, minlength=k)[labels[isolated]] == 1)


def coarse_truth(A, labels, k):
    """``Pᵀ A P`` without its diagonal, by scipy (weights are positive: nothing cancels)."""
    n = A.shape[0]
    P = sp.csr_array((np.ones(n, np.int64), (np.arange(n), labels)), shape=(n, k))
    C = sp.coo_array(P.T @ A @ P)
    apart = C.row != C.col
    return sp.csr_array((C.data[apart], (C.row[apart], C.col[apart])), shape=(k, k))  # sorted, summed


def check_coarse(C, expected):
    C = _scipy(C)
    assert C.shape == expected.shape
    assert C.count_nonzero() == expected.nnz, "coarse graph has other edges than scipy's Pᵀ A P"
    assert (C - expected).count_nonzero() == 0, "coarse graph has other weights than scipy's Pᵀ A P"


def check_hierarchy(h, truth, cutoff, max_levels, stalled):
    assert h[0].n == truth.n and h[-1].labels is None
    for level, coarse in zip(h, h[1:]):
        labels, g = np.asarray(level.labels), level.graph
        assert np.array_equal(np.unique(labels), np.arange(coarse.n))
        weights = np.ones(g.nnz, np.int64) if g.weights is None else g.weights
        expected = coarse_truth(sp.csr_array((weights, g.indices, g.indptr), shape=(g.n, g.n)), labels, coarse.n)
        np.testing.assert_array_equal(coarse.graph.indptr, expected.indptr)
        np.testing.assert_array_equal(coarse.graph.indices, expected.indices)
        np.testing.assert_array_equal(coarse.graph.weights, expected.data)
    assert h[-1].n <= cutoff or len(h) == max_levels or stalled


def gauss_seidel_truth(M, order, b, symmetric):
    """Gauss-Seidel from x = 0 visiting the rows in ``order`` (and back if ``symmetric``):
    scipy's triangular solves of the permuted matrix."""
    A = sp.csr_array(M)[order][:, order]
    x = sla.spsolve_triangular(sp.tril(A, format="csr"), b[order], lower=True)
    if symmetric:
        x = x + sla.spsolve_triangular(sp.triu(A, format="csr"), b[order] - A @ x, lower=False)
    out = np.empty_like(x)
    out[order] = x
    return out


def check_gauss_seidel(M, truth, op, symmetric, labels=None):
    n = truth.n
    assert np.array_equal(np.sort(op.order), np.arange(n))
    coo = sp.coo_array(truth.S)
    colors = np.asarray(op.colors)
    if labels is None:  # point GS: a coloring of A's graph
        assert gg.validate.is_coloring(truth.S, colors) and np.all(colors[coo.row] != colors[coo.col])
    else:  # cluster GS: a coloring of the graph of clusters, rows of a cluster in turn
        clusters = np.unique(labels, return_inverse=True)[1]
        np.testing.assert_array_equal(op.labels, clusters)
        apart = clusters[coo.row] != clusters[coo.col]
        assert np.all(colors[clusters[coo.row[apart]]] != colors[clusters[coo.col[apart]]])
        position = np.empty(n, np.int64)
        position[op.order] = np.arange(n)
        by_cluster = np.lexsort((np.arange(n), clusters))
        same = np.diff(clusters[by_cluster]) == 0
        assert np.all(np.diff(position[by_cluster])[same] > 0), "a cluster's rows visited out of order"
    b = np.linspace(-1, 1, n)
    if n:  # scipy's triangular solve takes no 0 × 0 matrix
        np.testing.assert_allclose(op @ b, gauss_seidel_truth(M, op.order, b, symmetric), rtol=1e-10, atol=1e-12)
    else:
        assert (op @ b).shape == (0,)


# ---- every algorithm on one input ------------------------------------------------------


def run_everything(rng, truth, A, weighted):
    """Every public algorithm on A (which means ``truth``), each result checked."""
    G = gg.as_graph(A)
    check_graph(G, truth, weighted)
    _as_graph_and_symmetrize(rng, truth)
    _mis_family(rng, G, truth, A)
    _colorings(rng, G, truth)
    labels = _aggregations(G, truth)
    _coarse_graphs(rng, truth, A, weighted, labels)
    _coarsen(rng, G, truth)
    _gauss_seidel(rng, truth)


def _as_graph_and_symmetrize(rng, truth):
    """A directed version (some edges one way only) is rejected with the one-way count, and
    symmetrize restores the pattern."""
    one_way = rng.random(truth.u.size) < 0.3
    rows = np.concatenate((truth.u, truth.v[~one_way]))
    cols = np.concatenate((truth.v, truth.u[~one_way]))
    D = sp.csr_array((np.ones(rows.size), (rows, cols)), shape=(truth.n, truth.n))
    if one_way.any():
        with pytest.raises(gg.AsymmetricGraphError) as e:
            gg.as_graph(D)
        assert (e.value.one_way, e.value.stored) == (int(one_way.sum()), rows.size)
    S = gg.symmetrize(D)
    assert isinstance(S, sp.csr_array) and S.dtype == bool
    np.testing.assert_array_equal(S.indptr, truth.S.indptr)
    np.testing.assert_array_equal(S.indices, truth.S.indices)


def _mis_family(rng, G, truth, A):
    for priority in gg.algorithms.mis.MIS1_PRIORITIES:
        check_mis(G, truth, gg.mis1(G, priority), 1)
    for priority in gg.algorithms.mis.MIS2_PRIORITIES:
        check_mis(G, truth, gg.mis2(G, priority), 2)
    check_mis(G, truth, gg.mis2(G, "fixed", priority_hash="xorshift"), 2)
    k = int(rng.choice([1, 3, 4]))
    check_mis(G, truth, gg.misk(G, k), k)
    # the messy container gives what its canonical form gives (networkx: its nodes, 0..n-1 in order here)
    got = gg.mis2(A).vertices
    np.testing.assert_array_equal(np.array(sorted(got), np.int64) if isinstance(got, set) else got,
                                  gg.mis2(G).vertices)


def _colorings(rng, G, truth):
    seed = int(rng.integers(0, 2**63))
    for method in gg.algorithms.coloring.METHODS:
        check_coloring(G, truth, gg.color(G, method, seed=seed), 1, method == "greedy")
    for method in ("greedy", "jones_plassmann"):
        priority = str(rng.choice(gg.algorithms.coloring.PRIORITIES))
        check_coloring(G, truth, gg.color(G, method, distance=2, priority=priority, seed=seed), 2, method == "greedy")
    for method in ("hybrid", "mis"):  # distance 2 is documented as unavailable: a clean error
        with pytest.raises(ValueError, match=f"distance=2 is available for 'greedy' and 'jones_plassmann', not '{method}'"):
            gg.color(G, method, distance=2)


def _aggregations(G, truth):
    labels = {}
    for method in gg.algorithms.aggregation.METHODS:
        agg = gg.aggregate(G, method)
        check_aggregation(G, truth, agg)
        labels[method] = np.asarray(agg.labels)
    return labels


def _coarse_graphs(rng, truth, A, weighted, labels):
    W = truth.W if weighted else truth.S
    k = int(rng.integers(1, truth.n + 1)) if truth.n else 0
    random_labels = rng.integers(0, max(k, 1), truth.n)  # any labels: aggregates need not be connected
    for name, these in [*labels.items(), ("random", random_labels)]:
        count = int(these.max()) + 1 if these.size else 0
        expected = coarse_truth(W, these, count)
        for method in gg.algorithms.coarsen.COARSE_METHODS:
            check_coarse(gg.coarse_graph(A, these, method), expected)


def _coarsen(rng, G, truth):
    cutoff = int(rng.integers(1, 200))
    max_levels = None if rng.random() < 0.5 else int(rng.integers(1, 6))
    method = str(rng.choice(gg.algorithms.aggregation.METHODS))
    construction = str(rng.choice(gg.algorithms.coarsen.COARSE_METHODS))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", CoarseningStallWarning)
        h = gg.coarsen(G, method, cutoff=cutoff, max_levels=max_levels, construction=construction)
    stalled = any(issubclass(w.category, CoarseningStallWarning) for w in caught)
    check_hierarchy(h, truth, cutoff, max_levels, stalled)


def _gauss_seidel(rng, truth):
    """A diagonally dominant matrix on the graph: -W off the diagonal."""
    W = truth.W.astype(np.float64)
    M = sp.csr_array(sp.diags_array(np.asarray(W.sum(axis=1)).ravel() + 1.0) - W)
    symmetric = bool(rng.random() < 0.7)
    check_gauss_seidel(M, truth, gg.solvers.multicolor_gauss_seidel(M, symmetric=symmetric), symmetric)
    op = gg.solvers.cluster_gauss_seidel(M, symmetric=symmetric)
    check_gauss_seidel(M, truth, op, symmetric, np.asarray(op.labels))
    labels = rng.integers(0, max(truth.n // 3, 1), truth.n) * 7  # any non-negative labels
    check_gauss_seidel(M, truth, gg.solvers.cluster_gauss_seidel(M, labels, symmetric=symmetric), symmetric, labels)


# ---- the tests -------------------------------------------------------------------------


def test_graph_count():
    graphs = _graphs()
    assert len(graphs) == GRAPHS >= 10_000
    sizes = np.array([g[0] for g in graphs])
    assert sizes.max() <= MAX_LEAVES + 6 and (sizes == 0).any() and (sizes == 1).any()


@pytest.mark.parametrize("batch", range(BATCHES))
def test_batch(batch):
    rng = np.random.default_rng([SEED, batch])
    n, u, v = _union(_graphs()[batch::BATCHES], rng)
    truth = Truth(n, u, v, rng.integers(1, 9, u.size))
    A, dtype = _messy(rng, truth)
    run_everything(rng, truth, A, weighted=dtype != "bool")


def _small_graphs():
    """Every graph on 0 to 4 labelled vertices."""
    for n in range(5):
        pairs = list(itertools.combinations(range(n), 2))
        for chosen in itertools.product([False, True], repeat=len(pairs)):
            edges = np.array([p for p, c in zip(pairs, chosen) if c], np.int64).reshape(-1, 2)
            yield n, edges[:, 0], edges[:, 1]


def test_every_small_graph_alone():
    """All 76 graphs on at most 4 vertices, one call each, the containers in turn; those on
    at most 2 vertices (the empty graph among them) in every container."""
    import graphblas as gb
    import networkx as nx

    rng = np.random.default_rng([SEED, 99])
    containers = ["numpy", "networkx", "scipy", "graphblas"]
    runs = [(graph, c) for i, graph in enumerate(_small_graphs())
            for c in (containers if graph[0] <= 2 else containers[i % 4:][:1])]
    for (n, u, v), container in runs:
        truth = Truth(n, u, v, rng.integers(1, 9, u.size))
        if container == "numpy":
            A = truth.W.toarray()
        elif container == "networkx":
            A = nx.Graph()
            A.add_nodes_from(range(n))
            A.add_weighted_edges_from(zip(u.tolist(), v.tolist(), truth.w.tolist()))
        elif container == "graphblas":
            A = gb.Matrix.from_csr(truth.W.indptr, truth.W.indices, truth.W.data, ncols=n)
        else:
            A = truth.W
        run_everything(rng, truth, A, weighted=container != "networkx" or u.size > 0)


# ---- malformed arrays, in a subprocess -------------------------------------------------

_ENTRY_POINTS = {
    "as_graph": lambda A: gg.as_graph(A),
    "symmetrize": lambda A: gg.symmetrize(A),
    "mis1": lambda A: gg.mis1(A),
    "mis2": lambda A: gg.mis2(A, "fixed"),
    "misk": lambda A: gg.misk(A, 3),
    "color": lambda A: gg.color(A, distance=2),
    "aggregate": lambda A: gg.aggregate(A),
    "coarse_graph": lambda A: gg.coarse_graph(A, np.zeros(A.shape[0], np.int64), "hash"),
    "coarsen": lambda A: gg.coarsen(A),
    "validate": lambda A: gg.validate.is_coloring(A, np.arange(A.shape[0])),
    "gauss_seidel": lambda A: gg.solvers.multicolor_gauss_seidel(A),
    "cluster_gauss_seidel": lambda A: gg.solvers.cluster_gauss_seidel(A),
    "amg": lambda A: gg.amg.smoothed_aggregation_solver(A),
}


def _malformed(rng):
    """(A, what): a small scipy CSR, CSC or COO array whose index arrays were broken
    after construction, where scipy no longer looks."""
    n = int(rng.integers(1, 40))
    rows = rng.integers(0, n, int(rng.integers(1, 4 * n + 2)))
    cols = rng.integers(0, n, rows.size)
    kind = str(rng.choice(["csr", "csc", "coo"]))
    A = {"csr": sp.csr_array, "csc": sp.csc_array, "coo": sp.coo_array}[kind](
        (np.ones(2 * rows.size), (np.append(rows, cols), np.append(cols, rows))), shape=(n, n))
    if kind != "coo":
        A.sum_duplicates()
    how = str(rng.choice(["too large", "negative"] + (["indptr decreases", "indptr starts late", "indptr too long"]
                                                      if kind != "coo" else [])))
    index = A.coords[int(rng.integers(0, 2))] if kind == "coo" else A.indices
    p = int(rng.integers(0, index.size))
    if how == "too large":
        index[p] = n + int(rng.integers(0, 2**31 - 1 - n))
    elif how == "negative":
        index[p] = -int(rng.integers(1, 2**31))
    elif how == "indptr decreases":
        r = int(rng.integers(1, n + 1))
        A.indptr[r - 1] = A.indptr[r] + int(rng.integers(1, 100))
    elif how == "indptr starts late":
        A.indptr[0] = int(rng.integers(1, 100))
    else:
        A.indptr[-1] = index.size + int(rng.integers(1, 100))
    return A, f"{kind} {how}"


def malformed_arrays_child(count):
    """Run in the subprocess: every entry point on ``count`` malformed arrays. Prints a
    JSON summary; each call is announced on stderr first, so that if one ends the process
    the parent can say which."""
    rng = np.random.default_rng([SEED, 7])
    wrong = []
    for case in range(count):
        A, what = _malformed(rng)
        for name, call in _ENTRY_POINTS.items():
            print(case, what, name, file=sys.stderr, flush=True)
            try:
                call(A)
            except ValueError as e:
                if not isinstance(e, gg.InvalidGraphError) or ("index" not in str(e) and "indptr" not in str(e)):
                    wrong.append(f"{what}, {name}: {type(e).__name__}: {e}")
            except Exception as e:  # noqa: BLE001 - any other outcome is the failure reported
                wrong.append(f"{what}, {name}: {type(e).__name__}: {e}")
            else:
                wrong.append(f"{what}, {name}: no error")
    print(json.dumps({"cases": count, "wrong": wrong}))


def test_malformed_arrays_raise_cleanly():
    tests = pathlib.Path(__file__).resolve().parent
    code = f"import sys; sys.path.insert(0, {str(tests)!r}); import test_fuzz; test_fuzz.malformed_arrays_child({BAD_ARRAYS})"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    last = done.stderr.strip().splitlines()[-1:] or ["(nothing)"]
    assert done.returncode == 0, f"exit status {done.returncode} during: {last[0]}"
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["cases"] == BAD_ARRAYS
    assert not summary["wrong"], "\n".join(summary["wrong"][:20])

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given

import gbgraph as gg
from gbgraph.algorithms import aggregation
from gbgraph.backends.operators import RowOperator
from gbgraph.generators import elasticity3d, laplace3d

from conftest import backend_params, shared_graphs
from reference import kokkos_mis2_aggregate
from strategies import graphs
from test_operators_gpu import _csr, _rows_equal, compiled_rows, host_rows, needs_gxx


def assert_is_aggregation(A, agg):
    labels = np.asarray(agg.labels)
    n = A.shape[0]
    assert labels.shape == (n,) and labels.dtype == np.int64
    assert n == 0 or (labels.min() == 0 and labels.max() == agg.n_aggregates - 1)
    assert np.unique(labels).size == agg.n_aggregates  # every id used
    roots = np.asarray(agg.roots)
    assert np.all(np.diff(roots) > 0) and roots.size == agg.n_aggregates
    assert np.unique(labels[roots]).size == agg.n_aggregates  # one root per aggregate


def assert_aggregates_connected(A, labels):
    """Each aggregate induces a connected subgraph of A (true of "mis2_basic" always)."""
    A = sp.csr_array(A)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
    inside = labels[rows] == labels[A.indices]
    sub = sp.csr_array((np.ones(inside.sum()), (rows[inside], A.indices[inside])), shape=A.shape)
    n_comp, comp = sp.csgraph.connected_components(sub, directed=False)
    assert n_comp == labels.max() + 1
    # one component per aggregate: as many distinct (aggregate, component) pairs as aggregates
    assert np.unique(labels.astype(np.int64) * n_comp + comp).size == labels.max() + 1


# Kokkos Kernels' own aggregate counts (graph_mis2_aggregate, graph_mis2_coarsen)
@pytest.mark.parametrize(("matrix", "mis2", "mis2_basic"), [
    pytest.param(lambda: laplace3d(50), 17859, 11469, id="laplace-50^3"),
    pytest.param(lambda: laplace3d(100), 142014, 90041, id="laplace-100^3"),
    pytest.param(lambda: elasticity3d(30), 1187, 634, id="elasticity-30^3"),
])
def test_kokkos_kernels_counts(matrix, mis2, mis2_basic):
    A = matrix()
    G = gg.as_graph(A, weights=False)
    for method, count in (("mis2", mis2), ("mis2_basic", mis2_basic)):
        agg = gg.aggregate(G, method)
        assert agg.n_aggregates == count
        assert_is_aggregation(A, agg)
    assert_aggregates_connected(A, agg.labels)  # mis2_basic


def test_mis2_aggregates_can_split_as_in_kokkos_kernels():
    """Kokkos Kernels' phase 3 moves vertices from one snapshot, so a vertex may join an
    aggregate through a neighbour that leaves it in the same step: the transcription of its
    code does this on Laplace3D 10³, and gbgraph, being equal to it, does too. Every moved
    vertex still had a neighbour in its new aggregate in the snapshot."""
    A = laplace3d(10)
    labels = gg.aggregate(A, "mis2").labels
    np.testing.assert_array_equal(labels, kokkos_mis2_aggregate(A)[0])
    with pytest.raises(AssertionError):
        assert_aggregates_connected(A, labels)


@pytest.mark.parametrize("method", ["mis2", "mis2_basic"])
@given(A=graphs())
def test_equals_kokkos_kernels_transcription(A, method):
    agg = gg.aggregate(A, method)
    labels, count = kokkos_mis2_aggregate(A, secondary=method == "mis2")
    np.testing.assert_array_equal(agg.labels, labels)
    assert agg.n_aggregates == count
    assert_is_aggregation(A, agg)


def _hub_graph(arms=12, length=7):
    """A hub joined to the first vertex of each of several paths: it meets many aggregates."""
    edges = []
    for a in range(arms):
        base = 1 + a * length
        edges.append((0, base))
        edges += [(base + k, base + k + 1) for k in range(length - 1)]
    r, c = np.array(edges).T
    n = 1 + arms * length
    A = sp.coo_array((np.ones(len(r)), (r, c)), shape=(n, n))
    return sp.csr_array(A + A.T)


@pytest.mark.parametrize("method", ["mis2", "mis2_basic"])
@pytest.mark.parametrize("graph", [_hub_graph(), _hub_graph(20, 5), elasticity3d(12, 10, 8), laplace3d(7, 6, 5)],
                         ids=["hub-12", "hub-20", "elasticity-12x10x8", "laplace-7x6x5"])
def test_equals_transcription_where_the_8_aggregate_limit_bites(graph, method):
    agg = gg.aggregate(graph, method)
    labels, _ = kokkos_mis2_aggregate(graph, secondary=method == "mis2")
    np.testing.assert_array_equal(agg.labels, labels)


def test_mis2_basic_aggregates_are_connected():
    for A in (gg.datasets.load("fe_4elt2"), elasticity3d(6, 5, 4), laplace3d(20, 11, 7)):
        agg = gg.aggregate(A, "mis2_basic")
        assert_is_aggregation(A, agg)
        assert_aggregates_connected(A, agg.labels)


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    A = gg.io.read_matrix_market(path)[0]
    for method in ("mis2", "mis2_basic"):
        assert_is_aggregation(A, gg.aggregate(A, method))


def test_deterministic_across_runs_and_threads(graphblas_threads):
    A = elasticity3d(8, 7, 6)
    first = gg.aggregate(A).labels
    for threads in (1, 2):
        graphblas_threads(threads)
        np.testing.assert_array_equal(gg.aggregate(gg.as_graph(A)).labels, first)


def test_empty_and_trivial_graphs():
    agg = gg.aggregate(sp.csr_array((0, 0)))
    assert agg.n_aggregates == 0 and agg.labels.shape == (0,)
    agg = gg.aggregate(np.zeros((3, 3)))
    assert agg.labels.tolist() == [0, 1, 2] and agg.roots.tolist() == [0, 1, 2]


def test_unknown_method():
    with pytest.raises(ValueError, match="method must be one of"):
        gg.aggregate(laplace3d(3), "hec")


# ---- the row operators (aggregation.BETTER_GROUP, GATHERS_THREE) through mxv, on every backend


def _scan(neighbours, label, is_root, size, i, limit):
    """Whether row i moves, and where: groups met in column order, key (rooted, count), the
    best other group by key, then smaller size, then first met; the move if it beats the
    row's own group, counted over the whole row. None: no move."""
    own, order, count, rooted, stopped = label[i], [], {}, {}, False
    own_count = own_rooted = 0
    for j in neighbours[i].tolist():
        g = label[j]
        if g < 0:
            continue
        if g == own:
            own_count, own_rooted = own_count + 1, own_rooted | is_root[j]
            continue
        stopped = stopped or (g not in count and limit is not None and len(order) == limit)
        if stopped:  # the first neighbour of one group too many: no other group is read further
            continue
        if g not in count:
            order.append(g)
            count[g], rooted[g] = 0, False
        count[g] += 1
        rooted[g] |= is_root[j]
    if not order:
        return None
    best = min(order, key=lambda g: (-rooted[g], -count[g], size[g], order.index(g)))
    mine = (own_rooted, own_count, -size[own]) if own >= 0 else (0, 0, 0)
    return best if (rooted[best], count[best], -size[best]) > mine else None


def _better_group_reference(neighbours, label, is_root, size, rows, limit):
    """better_group's rule, row by row: the group each row ends in, and the rows that keep
    their label without a scan although the scan would move them. A root keeps its group,
    and so does a labelled row next to fewer than two roots; any other row moves if
    :func:`_scan` finds a better group."""
    ended, kept_unscanned = {}, 0
    label, is_root, size = label.tolist(), is_root.tolist(), size.tolist()
    for i in rows.tolist():
        moved = _scan(neighbours, label, is_root, size, i, limit)
        if is_root[i] or label[i] >= 0 and sum(is_root[j] for j in neighbours[i].tolist()) < 2:
            ended[i] = label[i]
            kept_unscanned += moved is not None
        else:
            ended[i] = label[i] if moved is None else moved
    return ended, kept_unscanned


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


def _better_group_operator(limit):
    """BETTER_GROUP, or the same function with ``limit`` slots (the algorithm's is TRACKED)."""
    if limit == aggregation.TRACKED:
        return aggregation.BETTER_GROUP
    return RowOperator(aggregation._better_group, fill=(-1, False, 0), constants={"LIMIT": limit, "SLOTS": 3 * limit})


def _random_symmetric(rng, n, density):
    M = sp.random(n, n, density=density, random_state=rng, format="csr")
    M = sp.csr_array(M + M.T)
    M.setdiag(0)
    M.eliminate_zeros()
    M.sort_indices()
    return M


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("limit", [None, 1, 8])
def test_better_group_ends_in_the_better_group(backend, seed, limit):
    """``mxv(BETTER_GROUP, A, (labels, rooted, size))`` against the rule written out in
    Python; limit None (no row meets as many groups as the slots: a scan without a limit)
    is the operator with n slots."""
    be = gg.backend(backend)
    rng = np.random.default_rng(seed)
    n, k = 200, 40
    M = _random_symmetric(rng, n, 0.06)
    label = np.where(rng.random(n) < 0.8, rng.integers(0, k, n), -1)
    rows = np.flatnonzero(rng.random(n) < 0.6)
    lone = rows[0]  # an unlabelled row that meets no group: it stays unlabelled, -1
    label[lone] = -1
    M = sp.csr_array(M.multiply(np.arange(n) != lone).multiply((np.arange(n) != lone)[:, None]))
    M.eliminate_zeros()
    is_root = np.zeros(n, bool)
    for g in rng.choice(k, k * 3 // 4, replace=False):  # at most one rooted vertex per group
        members = np.flatnonzero(label == g)
        if members.size:
            is_root[rng.choice(members)] = True
    size = rng.integers(1, 4, k)  # few sizes: ties on key and size
    neighbours = np.split(M.indices, M.indptr[1:-1])
    expected, kept_unscanned = _better_group_reference(neighbours, label, is_root, size, rows, limit)
    met = [len(set(label[neighbours[i]]) - {-1, label[i]}) for i in rows]
    assert max(met) > (1 if limit is None else limit) and (limit is not None or max(met) < n)
    xp = be.xp
    labelled = np.flatnonzero(label >= 0)
    A = be.matrix(xp.asarray(M.indptr), xp.asarray(M.indices), ncols=n)
    vectors = (be.vector(xp.asarray(labelled), xp.asarray(label[labelled]), n),
               be.vector(xp.asarray(np.flatnonzero(is_root)), True, n),
               be.vector(xp.asarray(labelled), xp.asarray(size[label[labelled]]), n))  # each member: its group's size
    ended = be.mxv(_better_group_operator(n if limit is None else limit), A, vectors,
                   mask=be.vector(xp.asarray(rows), True, n))
    assert dict(zip(_host(be.indices(ended)).tolist(), _host(be.values(ended)).tolist())) == expected
    assert _host(be.values(ended)).dtype == np.int64
    moved = sum(expected[i] != label[i] for i in rows.tolist())
    assert 0 < moved < rows.size and kept_unscanned  # some rows move, some stay, some without a scan
    assert expected[lone] == -1


@pytest.mark.parametrize("backend", backend_params())
@pytest.mark.parametrize("seed", range(3))
def test_gathers_three_counts_the_unaggregated_closed_neighbours(backend, seed):
    """``mxv(GATHERS_THREE, A, labels, mask=candidates)`` against a loop over the rows of
    A + I: the unaggregated vertices (label -1 or absent) of each candidate's closed
    neighbourhood, kept where there are 3 or more."""
    be = gg.backend(backend)
    rng = np.random.default_rng(seed)
    n = 150
    M = _random_symmetric(rng, n, 0.03)
    label = np.where(rng.random(n) < 0.5, rng.integers(0, 30, n), -1)
    candidates = np.flatnonzero(rng.random(n) < 0.5)
    closed = sp.csr_array(M + sp.eye_array(n, format="csr"))
    closed.sort_indices()
    present = np.arange(0, n, 2)  # entries -1 and labels; the other half absent: unaggregated too
    seen = np.full(n, -1)
    seen[present] = label[present]
    expected = {}
    for i in candidates.tolist():
        count = sum(int(seen[j] < 0) for j in closed.indices[closed.indptr[i]:closed.indptr[i + 1]].tolist())
        if count >= 3:
            expected[i] = count
    xp = be.xp
    A = be.matrix(xp.asarray(M.indptr), xp.asarray(M.indices), ncols=n)
    labels = be.vector(xp.asarray(present), xp.asarray(label[present]), n)
    kept = be.mxv(aggregation.GATHERS_THREE, A, labels, mask=be.vector(xp.asarray(candidates), True, n))
    assert dict(zip(_host(be.indices(kept)).tolist(), _host(be.values(kept)).tolist())) == expected
    assert 0 < len(expected) < candidates.size


@needs_gxx
def test_row_operators_translate_to_numbas_values(tmp_path):
    """BETTER_GROUP and GATHERS_THREE translated to CUDA C++ (as the cupy backend compiles
    them) and run on the host, against numba's compilation of the same programs: rows that
    meet more groups than the 8 slots, roots, unlabelled rows, ties on size."""
    rng = np.random.default_rng(29)
    n = 80
    indptr, cols, _ = _csr(n, rng, pattern=True, density=0.4)
    label = np.where(rng.random(n) < 0.75, rng.integers(0, 25, n), -1).astype(np.int64)
    is_root = np.zeros(n, bool)
    for g in range(0, 25, 2):
        members = np.flatnonzero(label == g)
        if members.size:
            is_root[members[0]] = True
    size = rng.integers(1, 4, n).astype(np.int64)
    met = [len(set(label[cols[indptr[i]:indptr[i + 1]]].tolist()) - {-1}) for i in range(n)]
    assert max(met) > aggregation.TRACKED
    ended = None
    for k, (op, vectors) in enumerate([(aggregation.BETTER_GROUP, (label, is_root, size)),
                                       (aggregation.GATHERS_THREE, (label,))]):
        path = tmp_path / str(k)
        path.mkdir()
        got = host_rows(path, op, indptr, cols, None, vectors)
        want = compiled_rows(op, indptr, cols, vectors, got[0].dtype)
        _rows_equal(got, want)
        assert want[1].any()
        ended = want[0] if ended is None else ended
    assert (ended != label).any() and (ended == label).any()  # some rows move, some stay

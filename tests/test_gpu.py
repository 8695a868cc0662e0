"""The cupy backend gives results identical to the CPU (run with ``pytest -m gpu`` on a
machine with an NVIDIA GPU; skipped elsewhere)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import gbgraph as gg
from gbgraph.generators import laplace3d

from conftest import gpu_available, shared_graphs
from device_cases import GRIDS, assert_same_aggregation, cupyx_matrix
from strategies import graphs

gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")
pytestmark = [pytest.mark.gpu, gpu]



def _host(x):
    return x.get()


def assert_same_mis(A):
    cpu = gg.mis2(A, backend="numba")
    gpu_result = gg.mis2(cupyx_matrix(A))  # backend=None picks cupy for GPU input
    assert type(gpu_result.vertices).__module__.startswith("cupy")
    np.testing.assert_array_equal(_host(gpu_result.vertices), cpu.vertices)
    assert gpu_result.iterations == cpu.iterations


MIS_VARIANTS = [pytest.param(gg.mis1, {"priority": p}, id=f"mis1-{p}") for p in ("degree", "random", "permutation")] \
    + [pytest.param(gg.mis2, {"priority": p}, id=f"mis2-{p}") for p in ("fixed", "quality")] \
    + [pytest.param(gg.mis2, {"priority_hash": "xorshift"}, id="mis2-xorshift"),
       pytest.param(gg.misk, {"k": 3}, id="misk-3")]


def assert_same_mis_variant(A, algorithm, options):
    cpu = algorithm(A, backend="numba", **options)
    gpu_result = algorithm(cupyx_matrix(A), **options)
    np.testing.assert_array_equal(_host(gpu_result.vertices), cpu.vertices)
    assert gpu_result.iterations == cpu.iterations


COLORINGS = [pytest.param(m, d, id=f"{m}-d{d}") for m, d in
             [("greedy", 1), ("greedy", 2), ("jones_plassmann", 1), ("jones_plassmann", 2), ("hybrid", 1), ("mis", 1)]]


def assert_same_coloring(A, method, distance):
    cpu = gg.color(A, method, distance=distance, backend="numba")
    gpu_result = gg.color(cupyx_matrix(A), method, distance=distance)
    np.testing.assert_array_equal(_host(gpu_result.colors), cpu.colors)
    assert (gpu_result.n_colors, gpu_result.iterations) == (cpu.n_colors, cpu.iterations)


def assert_same_coarse_graphs(A):
    pattern = sp.csr_array(A).astype(bool)
    labels = gg.aggregate(pattern).labels
    import cupy

    for method in ("spgemm", "sort", "hash"):
        cpu = sp.csr_array(gg.coarse_graph(pattern, labels, method))
        gpu_result = gg.coarse_graph(cupyx_matrix(pattern), cupy.asarray(labels), method)
        assert gpu_result.__class__.__module__.startswith("cupyx")
        np.testing.assert_array_equal(gpu_result.indptr.get(), cpu.indptr, err_msg=method)
        np.testing.assert_array_equal(gpu_result.indices.get(), cpu.indices, err_msg=method)
        np.testing.assert_array_equal(gpu_result.data.get(), cpu.data, err_msg=method)


@pytest.mark.parametrize("matrix", GRIDS)
def test_mis2(matrix):
    assert_same_mis(matrix())


def test_mis2_table_iii_on_the_gpu():
    from gbgraph.backends.cupy import program

    before = program.programs
    r = gg.mis2(laplace3d(50), backend="cupy")
    assert (int(r.vertices.size), r.iterations) == (11469, 9)
    assert program.programs == before + 1  # rounds 1-8 run in one compiled kernel


def test_bfs_push_levels_replay_on_the_gpu():
    # the levels as iterate rounds: the round number reaches the level vector as GrB_COLINDEX's
    # thunk on the device, so one level is recorded and the others replay it
    from scipy.sparse.csgraph import shortest_path

    from gbgraph import lagraph
    from gbgraph.backends.cupy import replay

    A = abs(laplace3d(20))
    before, loops = replay.recordings, replay.loops
    r = lagraph.bfs(cupyx_matrix(A), 0, method="push", backend="cupy")
    assert replay.recordings == before + 1
    if replay._while_nodes():  # 57 levels: those after the 32nd run in a while node, on the device
        assert replay.loops == loops + 1
    expected = shortest_path(A, unweighted=True, indices=0)  # scipy's levels, an independent count
    assert r.levels.get().tolist() == expected.astype(np.int64).tolist()


def test_coloring_rounds_run_compiled_on_the_gpu():
    # the speculative rounds and the recoloring pass each run as one compiled kernel: the
    # speculative rounds' check on the host between them, the pass's in one launch
    from gbgraph.backends.cupy import program, replay

    A = laplace3d(30)
    before, recorded = program.programs, replay.recordings
    colors = gg.color(cupyx_matrix(A), backend="cupy").colors.get()
    assert (program.programs, replay.recordings) == (before + 2, recorded)
    rows, cols = A.nonzero()
    off = rows != cols
    assert (colors >= 0).all() and (colors[rows[off]] != colors[cols[off]]).all()  # a proper coloring
    np.testing.assert_array_equal(colors, gg.color(A, backend="numba").colors)


@settings(max_examples=25, deadline=None)
@given(graphs())
def test_mis2_on_random_graphs(A):
    assert_same_mis(A)


@pytest.mark.parametrize(("algorithm", "options"), MIS_VARIANTS)
@pytest.mark.parametrize("matrix", GRIDS)
def test_mis_family(matrix, algorithm, options):
    assert_same_mis_variant(matrix(), algorithm, options)


@pytest.mark.parametrize(("algorithm", "options"), MIS_VARIANTS)
@settings(max_examples=10, deadline=None)
@given(graphs())
def test_mis_family_on_random_graphs(algorithm, options, A):  # hypothesis fills the last argument
    assert_same_mis_variant(A, algorithm, options)


def test_packed_statuses_kernel_equals_the_formula():
    import cupy

    from gbgraph.hashing import Packing

    for n, bits in [(1000, 32), (70_000, 32), (1000, 64)]:
        ids = np.sort(np.random.default_rng(n).choice(n, n // 3, replace=False)).astype(np.int64)
        for r, hash_ in [(0, "xorshift*"), (1, "xorshift*"), (7, "xorshift*"), (3, "xorshift")]:
            on_gpu = Packing(n, bits, cupy, priority_hash=hash_)(cupy.asarray(ids), r).get()
            np.testing.assert_array_equal(on_gpu, Packing(n, bits, priority_hash=hash_)(ids, r))


def _round_of_verbs(name, A, x, picked, values):
    """A chain like a MIS round, where each vector comes from the one before: on the GPU the
    entry counts stay on the device from the first select to the last assign."""
    be = gg.backend(name)
    G = gg.as_graph(A)  # the protocol takes columns sorted within rows
    xp, n = be.xp, G.n
    M = be.matrix(xp.asarray(G.indptr), xp.asarray(G.indices))
    F = be.full(n, 0, "int32")
    be.assign(F, be.vector(xp.arange(n, dtype=xp.int64), xp.asarray(x), n), mask=F)
    S = be.select("valuegt", be.vector(xp.asarray(picked), xp.asarray(values), n), 2)
    W = be.mxv("min_second", M, F, mask=S)  # rows of a device-counted mask
    be.assign(F, W, mask=S)
    be.assign(F, -7, mask=be.ewise_mult("eq", W, F), structure=False)
    L = be.select("valuelt", be.ewise_mult("min", F, W), 3)
    be.mxv("max_second", M, S, mask=L, out=F)  # u sparse with a device count
    D = be.mxv("plus_pair", M, L, mask=F)
    return [(be.indices(v), be.values(v)) for v in (F, S, W, L, D)]


@settings(max_examples=40, deadline=None)
@given(graphs(), st.integers(0, 2**32 - 1))
def test_verbs_on_device_counted_vectors(A, seed):
    rng = np.random.default_rng(seed)
    n = A.shape[0]
    x = rng.integers(-5, 6, n).astype(np.int32)
    picked = np.flatnonzero(rng.random(n) < 0.6).astype(np.int64)
    values = rng.integers(0, 6, picked.size).astype(np.int32)
    cpu = _round_of_verbs("suitesparse", A, x, picked, values)
    gpu_result = _round_of_verbs("cupy", A, x, picked, values)
    for (i, v), (gi, gv) in zip(cpu, gpu_result):
        np.testing.assert_array_equal(_host(gi), i)
        np.testing.assert_array_equal(_host(gv), v)


@pytest.mark.parametrize(("method", "distance"), COLORINGS)
@pytest.mark.parametrize("matrix", GRIDS)
def test_coloring(matrix, method, distance):
    assert_same_coloring(matrix(), method, distance)


@pytest.mark.parametrize(("method", "distance"), COLORINGS)
@settings(max_examples=10, deadline=None)
@given(graphs())
def test_coloring_on_random_graphs(method, distance, A):  # hypothesis fills the last argument
    assert_same_coloring(A, method, distance)


@pytest.mark.parametrize("matrix", GRIDS)
def test_aggregation(matrix):
    assert_same_aggregation(matrix())


@settings(max_examples=25, deadline=None)
@given(graphs())
def test_aggregation_on_random_graphs(A):
    assert_same_aggregation(A)


@pytest.mark.parametrize("matrix", GRIDS)
def test_coarse_graphs(matrix):
    assert_same_coarse_graphs(matrix())


@pytest.mark.parametrize("matrix", GRIDS)
def test_coarse_graph_sort_kernel_sums_float_weights_as_the_cpu(matrix):
    import cupy

    W = sp.triu(sp.csr_array(matrix()), 1).astype(np.float64).tocsr()
    W.data = np.random.default_rng(1).uniform(0.1, 10.0, W.nnz)
    A = sp.csr_array(W + W.T)  # symmetric real weights
    labels = gg.aggregate(A).labels
    cpu = sp.csr_array(gg.coarse_graph(A, labels, "sort"))
    gpu_result = gg.coarse_graph(cupyx_matrix(A), cupy.asarray(labels), "sort")
    np.testing.assert_array_equal(gpu_result.indptr.get(), cpu.indptr)
    np.testing.assert_array_equal(gpu_result.indices.get(), cpu.indices)
    np.testing.assert_array_equal(gpu_result.data.get(), cpu.data)  # bit for bit


@pytest.mark.parametrize("largest", [40, 150, 400], ids=["warp", "block", "too-large"])
def test_coarse_graph_sort_kernel_on_aggregates_of_every_size(largest):
    import cupy

    rng = np.random.default_rng(largest)
    n = 3000
    A = sp.random(n, n, density=10 / n, random_state=rng, format="csr")
    A = sp.csr_array(A + A.T)
    A.setdiag(0)
    A.eliminate_zeros()
    labels = np.concatenate([np.zeros(largest, np.int64), 1 + np.arange(n - largest) // 7])
    labels = labels[rng.permutation(n)]
    cpu = sp.csr_array(gg.coarse_graph(A, labels, "sort"))
    gpu_result = gg.coarse_graph(cupyx_matrix(A), cupy.asarray(labels), "sort")
    np.testing.assert_array_equal(gpu_result.indices.get(), cpu.indices)
    np.testing.assert_array_equal(gpu_result.data.get(), cpu.data)


def test_coarse_graph_sort_kernel_on_several_aggregates_too_large_for_a_block():
    # two aggregates of over 2048 entries among small ones, and a third, a whole clique
    # component of its own, with no crossing entry: the sort of the large ones' keys
    import cupy

    rng = np.random.default_rng(5)
    n, clique = 3000, 60
    A = sp.random(n, n, density=10 / n, random_state=rng, format="csr")
    A = sp.block_diag((A + A.T, np.ones((clique, clique))), format="csr")
    A.setdiag(0)
    A.eliminate_zeros()
    labels = np.concatenate([np.zeros(400, np.int64), np.ones(500, np.int64), 3 + np.arange(n - 900) // 7])
    labels = np.concatenate([labels[rng.permutation(n)], np.full(clique, 2)])
    cpu = sp.csr_array(gg.coarse_graph(sp.csr_array(A), labels, "sort"))
    assert cpu.indptr[3] == cpu.indptr[2]  # the clique's aggregate has no coarse edge
    gpu_result = gg.coarse_graph(cupyx_matrix(A), cupy.asarray(labels), "sort")
    np.testing.assert_array_equal(gpu_result.indptr.get(), cpu.indptr)
    np.testing.assert_array_equal(gpu_result.indices.get(), cpu.indices)
    np.testing.assert_array_equal(gpu_result.data.get(), cpu.data)  # bit for bit


def test_coarsen():
    A = laplace3d(24, 20, 16)
    cpu, gpu_result = gg.coarsen(A, cutoff=30), gg.coarsen(cupyx_matrix(A), cutoff=30)
    assert [level.n for level in cpu] == [level.n for level in gpu_result]
    for a, b in zip(cpu, gpu_result):
        if a.labels is not None:
            np.testing.assert_array_equal(_host(b.labels), a.labels)


@pytest.mark.host_levels
@pytest.mark.parametrize("method, options", [("mis2", {}), ("hec", {}), ("hec", {"max_weight": 40})])
def test_small_levels_on_the_host_give_the_gpu_hierarchy(method, options, monkeypatch):
    import cupy

    from gbgraph.algorithms import coarsen

    monkeypatch.setenv("GBGRAPH_WARMUP", "0")  # numba's kernels compile in this process: the host takes small levels
    moved = []
    monkeypatch.setattr(coarsen, "_on_host", lambda graph, move=coarsen._on_host: moved.append(graph.nnz) or move(graph))
    A, threshold = laplace3d(30), coarsen.HOST_LEVEL_ENTRIES  # 156,600 entries: level 0 stays on the GPU
    hybrid = gg.coarsen(cupyx_matrix(A), method, **options)
    monkeypatch.setattr(coarsen, "HOST_LEVEL_ENTRIES", -1)
    gpu_result = gg.coarsen(cupyx_matrix(A), method, **options)
    cpu = gg.coarsen(A, method, backend="numba", **options)
    assert len(moved) == 1 and A.nnz > threshold >= moved[0] > 0
    assert len(hybrid) == len(gpu_result) == len(cpu)
    for level, (h, g, c) in enumerate(zip(hybrid, gpu_result, cpu)):
        assert h.graph.container == "cupyx"
        for name in ("indptr", "indices", "weights") if level else ():  # level 0: the input
            x, y = getattr(h.graph, name), getattr(g.graph, name)
            assert isinstance(x, cupy.ndarray), name
            np.testing.assert_array_equal(x.get(), y.get(), err_msg=name)
            np.testing.assert_array_equal(x.get(), getattr(c.graph, name), err_msg=name)
        for x, y, z in ((h.labels, g.labels, c.labels), (h.vertex_weights, g.vertex_weights, c.vertex_weights)):
            assert (x is None) == (y is None) == (z is None)
            if x is not None:
                assert isinstance(x, cupy.ndarray)
                np.testing.assert_array_equal(x.get(), y.get())
                np.testing.assert_array_equal(x.get(), z)


@pytest.mark.parametrize("length", [1, 2, 7, 8, 9, 127, 128, 129, 130, 1000, 4099, 100_003])
def test_reduceat_sum_adds_in_numpys_order(length):
    # segments longer than 128 are split as numpy's pairwise summation splits them (a kernel
    # that recursed overflowed the device stack on long ones); magnitudes from 1e-8 to 1e8
    # make any other order of additions show in the last bits
    import cupy

    from gbgraph.backends.cupy.kernels import reduceat_sum

    rng = np.random.default_rng(length)
    values = rng.standard_normal(3 * length) * 10.0 ** rng.integers(-8, 8, 3 * length)
    starts = np.array([0, length, 2 * length], np.int64)
    expected = np.add.reduceat(values, starts)
    if length > 1000:  # the data tells orders apart: a plain running sum differs
        running = [np.cumsum(values[s:s + length])[-1] for s in starts]
        assert (np.array(running) != expected).any()
    result = reduceat_sum(cupy.asarray(values), cupy.asarray(starts)).get()
    np.testing.assert_array_equal(result.view(np.uint64), expected.view(np.uint64))


@pytest.mark.parametrize("path", shared_graphs())
def test_shared_graphs(path):
    A = gg.io.read_matrix_market(path)[0]
    assert_same_mis(A)
    assert_same_mis_variant(A, gg.mis1, {})
    assert_same_coloring(A, "greedy", 1)
    assert_same_aggregation(A)
    cpu, gpu_result = gg.coarsen(A, backend="numba"), gg.coarsen(cupyx_matrix(A))
    assert [(level.n, level.nnz) for level in cpu] == [(level.n, level.nnz) for level in gpu_result]
    for a, b in zip(cpu, gpu_result):
        if a.labels is not None:
            np.testing.assert_array_equal(_host(b.labels), a.labels)
    assert_same_mappings(A)


def assert_same_mappings(A):
    """Every coarse mapping, its rounds and the weighted HEC hierarchy agree with the CPU's."""
    W = sp.csr_array(abs(sp.csr_array(A))) if A.dtype != bool else sp.csr_array(A)
    for method in ("hec", "hec3", "hem", "mtmetis", "gosh", "gosh_hec"):
        cpu, gpu_result = gg.coarse_mapping(W, method, seed=3), gg.coarse_mapping(cupyx_matrix(W), method, seed=3)
        np.testing.assert_array_equal(_host(gpu_result.labels), cpu.labels, err_msg=method)
        assert (gpu_result.n_coarse, gpu_result.rounds) == (cpu.n_coarse, cpu.rounds), method
    cpu, gpu_result = gg.coarsen(W, "hec", backend="numba"), gg.coarsen(cupyx_matrix(W), "hec")
    assert [level.n for level in cpu] == [level.n for level in gpu_result]
    for a, b in zip(cpu, gpu_result):
        np.testing.assert_array_equal(_host(b.vertex_weights), a.vertex_weights)
    for a, b in zip(cpu[1:], gpu_result[1:]):  # level 0 is the input (cupyx has no pattern matrices)
        np.testing.assert_array_equal(_host(b.graph.indices), a.graph.indices)
        np.testing.assert_array_equal(_host(b.graph.weights), a.graph.weights)


def test_mixing_cpu_labels_with_a_gpu_graph():
    A = laplace3d(5)
    labels = gg.aggregate(A).labels
    with pytest.raises(TypeError, match="labels are a CPU array but the graph is on the GPU"):
        gg.coarse_graph(cupyx_matrix(A), labels)
    import cupy

    with pytest.raises(TypeError, match="labels are a GPU array but the graph is on the CPU"):
        gg.coarse_graph(A, cupy.asarray(labels))


def test_out_of_memory_names_the_graph():
    import cupy

    pool = cupy.get_default_memory_pool()
    pool.free_all_blocks()
    pool.set_limit(size=1 << 20)
    try:
        with pytest.raises(MemoryError, match="1,000,000 vertices"):
            gg.mis2(laplace3d(100), backend="cupy")
    finally:
        pool.set_limit(size=0)


@pytest.mark.parametrize("index_dtype", [np.int32, np.int64])
def test_closed_csr_on_the_device_is_scipys_a_plus_i(index_dtype):
    # rows with every column below i, every column above i, none at all, and mixed
    import cupy

    rng = np.random.default_rng(13)
    n = 500
    M = sp.random(n, n, density=0.01, random_state=7, format="csr")
    M = sp.csr_array(sp.triu(M, 1) + sp.triu(M, 1).T)
    M = sp.csr_array(M[rng.permutation(n)][:, rng.permutation(n)] + M)
    M.setdiag(0)
    M.eliminate_zeros()
    M = sp.csr_array(M + M.T)
    keep = sp.diags_array((np.arange(n) >= 10).astype(float))  # vertices 0..9 isolated
    M = sp.csr_array(keep @ M @ keep)
    M.eliminate_zeros()
    indptr, indices = gg.as_graph(M).closed_csr(cupy, np.int64, index_dtype=index_dtype)
    closed = sp.csr_array(((M != 0) + sp.eye_array(n, format="csr")) != 0)  # scipy's A + I
    closed.sort_indices()
    assert indptr.dtype == np.int64 and indices.dtype == index_dtype
    np.testing.assert_array_equal(_host(indptr), closed.indptr)
    np.testing.assert_array_equal(_host(indices), closed.indices)

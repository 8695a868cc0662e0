"""The mpi backend gives the single-process suitesparse results bit for bit, on any number
of ranks: every algorithm on grids, hypothesis graphs and shared graphs, from a graph every
rank holds, a scattered one and one read from CSR files.

Run under MPI, ``mpiexec -n 2 python -m pytest tests/test_mpi.py`` (and ``-n 3``, which
tests/test_mpi_launch.py starts); a plain pytest run takes it on one rank. Every rank runs
every test (SPMD) and compares its own result, which is the whole result, with the
single-process one, and with rank 0's. With ``GBGRAPH_TEST_MPI_BACKEND=mpi-cupy`` the same
tests run the blocks on the GPU (tests/test_mpi_launch.py's gpu test).
"""

import hashlib
import os
import tempfile

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import HealthCheck, Phase, given, settings

pytestmark = pytest.mark.filterwarnings("ignore::gbgraph.algorithms.coarsen.CoarseningStallWarning")

pytest.importorskip("mpi4py")

from mpi4py import MPI  # noqa: E402

import gbgraph as gg  # noqa: E402
from gbgraph import distributed  # noqa: E402
from gbgraph.algorithms import aggregation, coloring, partition  # noqa: E402
from gbgraph.backends.mpi import MPIBackend  # noqa: E402
from gbgraph.backends.operators import RowOperator  # noqa: E402
from gbgraph.errors import AsymmetricGraphError  # noqa: E402
from gbgraph.generators import elasticity3d, laplace3d  # noqa: E402

import algorithm_calls  # noqa: E402
from conftest import real_graph  # noqa: E402
from strategies import graphs  # noqa: E402

COMM = MPI.COMM_WORLD
RANK = COMM.Get_rank()
#: The backend under test: ``mpi`` (blocks on suitesparse) or ``mpi-cupy`` (on the GPU).
MPI_BACKEND = os.environ.get("GBGRAPH_TEST_MPI_BACKEND", "mpi")
BLOCKS = {"mpi": "suitesparse", "mpi-cupy": "cupy"}[MPI_BACKEND]


def _csr(C):
    C = sp.csr_array(C.get() if hasattr(C, "get") else C)  # mpi-cupy on one rank: cupyx's
    return np.concatenate((C.indptr, C.indices, C.data.astype(np.float64).view(np.int64)))


def _hierarchy(h):
    parts = [np.array([len(h)])]
    for level in h:
        G = level.graph
        parts += [_host(G.indptr), _host(G.indices), _host(level.vertex_weights)]
        parts += [] if G.weights is None else [_host(G.weights).astype(np.float64).view(np.int64)]
        parts += [] if level.labels is None else [_host(level.labels)]
    return np.concatenate(parts)


def _agg_labels(A):
    return gg.aggregate(A, backend="suitesparse").labels


ALGORITHMS = {
    **algorithm_calls.ALGORITHMS,
    "mis1-permutation": lambda A, b: gg.mis1(A, "permutation", backend=b).vertices,
    "sequential": lambda A, b: gg.color(A, "sequential", backend=b).colors,
    "coarse-spgemm": lambda A, b: _csr(gg.coarse_graph(A, _agg_labels(A), "spgemm", backend=b)),
    "coarse-sort": lambda A, b: _csr(gg.coarse_graph(A, _agg_labels(A), "sort", backend=b)),
    "coarse-hash": lambda A, b: _csr(gg.coarse_graph(A, _agg_labels(A), "hash", backend=b)),
    **{f"mapping-{m}": (lambda m: lambda A, b: gg.coarse_mapping(A, m, backend=b).labels)(m)
       for m in ("hec", "hec3", "hem", "mtmetis", "gosh", "gosh_hec", "mis2", "mis2_basic")},
    **{f"coarsen-{m}": (lambda m: lambda A, b: _hierarchy(gg.coarsen(A, m, cutoff=20, backend=b)))(m)
       for m in ("hec", "mis2", "hem")},
}
#: What the hypothesis graphs and the DistributedGraph inputs run (one of each family).
FAMILY = ("mis2", "mis1-degree", "misk-3", "aggregate", "greedy", "jones_plassmann-d2", "coarse-sort",
          "mapping-hec", "mapping-mtmetis", "coarsen-mis2")
#: Shared graphs small enough for every rank count on a 2-core CI machine, and what they run.
SHARED = ("fe_4elt2", "delaunay_n14")
SHARED_ALGORITHMS = ("mis2", "mis1-degree", "aggregate", "greedy", "coarse-sort", "mapping-hec", "coarsen-mis2")


def assert_identical(name, A, mpi_input=None):
    """The mpi result of ``A`` (or of ``mpi_input``, the same graph split over the ranks)
    equals the suitesparse result, and every rank holds the same one."""
    expected = ALGORITHMS[name](A, "suitesparse")
    if mpi_input is None:
        got = ALGORITHMS[name](A, MPI_BACKEND)
    elif BLOCKS == "cupy" and COMM.Get_size() == 1:
        pytest.skip("mpi-cupy on one rank is the cupy backend, which refuses a DistributedGraph (host memory)")
    else:  # a split graph names its backend itself, with suitesparse blocks
        got = ALGORITHMS[name](mpi_input, None if BLOCKS == "suitesparse" else MPIBackend(local=BLOCKS))
    got = _host(got)  # mpi-cupy on one rank: the cupy backend's arrays, on the GPU
    digests = COMM.allgather(hashlib.sha256(np.ascontiguousarray(got).tobytes()).hexdigest())
    assert len(set(digests)) == 1, f"{name}: the ranks hold different results"
    np.testing.assert_array_equal(got, expected, err_msg=f"{name} on {COMM.Get_size()} ranks")


@pytest.mark.parametrize("name", ALGORITHMS)
@pytest.mark.parametrize("make", [lambda: abs(laplace3d(9, 8, 7)), lambda: abs(elasticity3d(4, 3, 3))],
                         ids=["laplace", "elasticity"])
def test_grids(make, name):
    assert_identical(name, make())


@pytest.mark.parametrize("n", [0, 1, 2, 5])
@pytest.mark.parametrize("name", ALGORITHMS)
def test_graphs_with_fewer_vertices_than_ranks(n, name):
    assert_identical(name, _path(n))


def _path(n):
    """The path 0 - 1 - ... - (n - 1)."""
    ids = np.arange(max(n - 1, 0))
    path = sp.coo_array((np.ones(ids.size), (ids, ids + 1)), shape=(n, n))
    return sp.csr_array(path + path.T)


@pytest.mark.parametrize("name", FAMILY)
@settings(max_examples=12, deadline=None, derandomize=True, database=None, phases=(Phase.explicit, Phase.generate),
          suppress_health_check=list(HealthCheck))
@given(graphs())
def test_random_graphs(name, A):
    # derandomize: every rank draws the same graphs; no shrinking, which could diverge
    assert_identical(name, A)


@pytest.mark.parametrize("name", SHARED_ALGORITHMS)
@pytest.mark.parametrize("graph", SHARED)
def test_shared_graphs(graph, name):
    csr, weighted = gg.io.read_matrix_market(real_graph(graph))
    assert_identical(name, abs(csr) if weighted else csr != 0)  # the mappings need weights >= 0


@pytest.mark.parametrize("name", FAMILY)
def test_scattered_graph(name):
    A = abs(laplace3d(9, 8, 7))
    G = distributed.scatter(A if RANK == 0 else None, COMM)
    assert G.rows == tuple(MPIBackend().block(A.shape[0]))
    assert_identical(name, A, G)


@pytest.fixture(scope="module")
def csr_files():
    """The same grid as an uncompressed .npz, a compressed one, and a folder of .npy files
    (a pattern: no data), written by rank 0."""
    A = abs(elasticity3d(4, 3, 3))
    folder = COMM.bcast(tempfile.mkdtemp() if RANK == 0 else None)
    if RANK == 0:
        sp.save_npz(os.path.join(folder, "plain.npz"), A, compressed=False)
        sp.save_npz(os.path.join(folder, "zipped.npz"), A)
        os.mkdir(os.path.join(folder, "arrays"))
        np.save(os.path.join(folder, "arrays", "indptr.npy"), A.indptr)
        np.save(os.path.join(folder, "arrays", "indices.npy"), A.indices)
    COMM.Barrier()
    return A, folder


@pytest.mark.parametrize("file", ["plain.npz", "zipped.npz", "arrays"])
@pytest.mark.parametrize("name", FAMILY)
def test_graph_read_by_rows(csr_files, file, name):
    A, folder = csr_files
    G = distributed.read_csr(os.path.join(folder, file), COMM)
    assert_identical(name, A if file != "arrays" else (A != 0), G)


def test_read_csr_memory_maps_uncompressed_arrays(csr_files):
    _, folder = csr_files
    arrays = distributed._csr_arrays(os.path.join(folder, "plain.npz"))
    assert isinstance(arrays["indices"], np.memmap)


def test_read_csr_drops_the_diagonal_and_sums_duplicates():
    A = sp.csr_array(laplace3d(5, 4, 3))  # stores its diagonal
    path = COMM.bcast(os.path.join(tempfile.mkdtemp(), "A.npz") if RANK == 0 else None)
    if RANK == 0:
        np.savez(path, indptr=A.indptr, indices=A.indices, data=A.data)
    COMM.Barrier()
    G = distributed.read_csr(path, COMM)
    expected = gg.as_graph(A)
    np.testing.assert_array_equal(G.indptr, expected.indptr)
    np.testing.assert_array_equal(G.indices, expected.indices)
    np.testing.assert_array_equal(G.weights, expected.weights)


def test_read_csr_errors():
    folder = COMM.bcast(tempfile.mkdtemp() if RANK == 0 else None)
    one_way = sp.csr_array(sp.eye(6, k=1, format="csr"))
    if RANK == 0:
        sp.save_npz(os.path.join(folder, "one_way.npz"), one_way, compressed=False)
        sp.save_npz(os.path.join(folder, "wide.npz"), sp.csr_array(np.ones((3, 4))))
        sp.save_npz(os.path.join(folder, "csc.npz"), sp.csc_array(np.ones((3, 3))))
        np.savez(os.path.join(folder, "outside.npz"), indptr=np.array([0, 1, 2, 3]), indices=np.array([1, 0, 7]))
    COMM.Barrier()
    with pytest.raises(ValueError, match=r"columns outside 0..2 \(in the rows of 1 of"):
        distributed.read_csr(os.path.join(folder, "outside.npz"), COMM)  # only the last rank's rows: all raise
    with pytest.raises(AsymmetricGraphError, match="5 of its 5 off-diagonal entries"):
        distributed.read_csr(os.path.join(folder, "one_way.npz"), COMM)
    with pytest.raises(ValueError, match=r"square with 3 rows, got shape \(3, 4\)"):
        distributed.read_csr(os.path.join(folder, "wide.npz"), COMM)
    with pytest.raises(ValueError, match="holds a .*csc.* matrix"):
        distributed.read_csr(os.path.join(folder, "csc.npz"), COMM)
    with pytest.raises(FileNotFoundError, match="missing.npz"):
        distributed.read_csr(os.path.join(folder, "missing.npz"), COMM)


def test_scatter_raises_on_every_rank_for_bad_input():
    with pytest.raises(gg.InvalidGraphError, match=r"\(3, 4\)"):
        distributed.scatter(np.ones((3, 4)) if RANK == 0 else None, COMM)


def test_gather_concatenates_in_rank_order():
    everywhere = distributed.gather(np.full(RANK + 1, RANK, np.int64), COMM)
    expected = np.repeat(np.arange(COMM.Get_size()), np.arange(1, COMM.Get_size() + 1))
    np.testing.assert_array_equal(everywhere, expected)
    on_root = distributed.gather(np.array([RANK % 2 == 0]), COMM, root=0)
    assert on_root is None if RANK else on_root.tolist() == [r % 2 == 0 for r in range(COMM.Get_size())]
    with pytest.raises(ValueError, match=r"shape \(2, 2\)"):
        distributed.gather(np.ones((2, 2)), COMM)


@pytest.mark.parametrize("wide", [None, 2**31, -(2**31) - 1], ids=["fits", "above", "below"])
def test_allgatherv_sends_int64_as_int32_only_where_every_value_fits(wide):
    from gbgraph.backends.mpi.exchange import Exchange

    ex, p = Exchange(COMM), COMM.Get_size()
    mine = [RANK * 10 + k for k in range(RANK + 1)]
    if wide is not None and RANK == p - 1:  # one value out of int32's range, on one rank only
        mine[-1] = wide
    got = ex.allgatherv(np.array(mine, np.int64))
    assert got.dtype == np.int64
    assert got.tolist() == [v for values in COMM.allgather(mine) for v in values]
    width = 4 if wide is None else 8
    assert ex.traffic.bytes == width * len(mine) * (p - 1)


def test_one_rank_backend_runs_the_local_backends_verbs_under_its_own_name():
    from gbgraph.backends.mpi.alone import OneRankBackend
    from gbgraph.backends.mpi.local import local_backend

    be = OneRankBackend(MPI.COMM_SELF, local_backend("suitesparse"))
    A = abs(laplace3d(9, 8, 7))
    for name in ("mis2", "aggregate", "greedy"):
        np.testing.assert_array_equal(ALGORITHMS[name](A, be), ALGORITHMS[name](A, "suitesparse"), err_msg=name)
    assert be.xp is np and be.block(7) == (0, 7) and be.traffic.bytes == 0
    with pytest.raises(NotImplementedError, match="^mpi-suitesparse: "):  # the blocks' error, named for this backend
        be.reduce(be.vector(np.arange(3), np.ones(3), 5), "bor")


@pytest.mark.gpu
def test_mpi_cupy_on_one_rank_is_the_cupy_backend():
    pytest.importorskip("cupy")
    from conftest import gpu_available

    if not gpu_available():
        pytest.skip("needs CuPy and an NVIDIA GPU")
    import cupy

    be = MPIBackend(MPI.COMM_SELF, local="cupy")
    assert be.name == "mpi-cupy" and be.xp is cupy
    A = abs(laplace3d(9, 8, 7))
    for name in ("mis2", "aggregate"):
        np.testing.assert_array_equal(_host(ALGORITHMS[name](A, be)), ALGORITHMS[name](A, "suitesparse"), err_msg=name)


@pytest.mark.gpu
def test_ghost_replies_through_nccl_equal_those_through_the_host():
    if BLOCKS != "cupy" or COMM.Get_size() == 1:
        pytest.skip("mpi-cupy on two ranks or more")
    from gbgraph.backends.mpi import nccl

    if not nccl.usable(COMM):
        pytest.skip("needs a GPU per rank")
    G = gg.as_graph(laplace3d(9, 8, 7))
    ids = np.arange(0, G.n, 2)
    out = []
    for device in (False, None):
        be = MPIBackend(COMM, local="cupy", nccl=device)
        assert isinstance(be.device, nccl.DeviceExchange) == (device is not False)
        A = be.adjacency(G, closed=True)
        u, mask = be.vector(ids, (ids * 7919 % 101).astype(np.int32), G.n), be.vector(ids[::3], True, G.n)
        be.mxv("min_second", A, u, mask=mask)  # the first product agrees the routes
        be.traffic.reset()
        w = be.mxv("min_second", A, u, mask=mask)  # w<mask> = A min.second u
        out.append((be.indices(w), be.values(w), be.traffic.reset()["bytes"]))
    (ids_host, values_host, sent_host), (ids_nccl, values_nccl, sent_nccl) = out
    np.testing.assert_array_equal(ids_nccl, ids_host)
    np.testing.assert_array_equal(values_nccl, values_host)
    assert sent_nccl == sent_host > 0  # a value with its flag per ghost, on either path


def test_backend_rejects_what_is_not_a_communicator_or_a_block_backend():
    with pytest.raises(TypeError, match="intracommunicator, got str"):
        MPIBackend("world")
    with pytest.raises(ValueError, match="'suitesparse' or 'cupy', got 'numba'"):
        MPIBackend(local="numba")


def test_graph_of_another_communicator_is_refused():
    if COMM.Get_size() == 1:
        pytest.skip("needs two ranks or more: COMM_SELF is COMM_WORLD")
    G = distributed.scatter(laplace3d(4) if RANK == 0 else None, COMM)
    # on COMM_SELF, mpi-cupy is the cupy backend (alone.py), which takes no graph in host memory
    error, message = (ValueError, "split over another communicator") if BLOCKS == "suitesparse" else \
        (TypeError, "lives in host memory")
    with pytest.raises(error, match=message):
        gg.mis2(G, backend=MPIBackend(MPI.COMM_SELF, local=BLOCKS))


# ---- the verbs themselves, against the blocks' backend in one process ----------------------

def _pair():
    """The blocks' backend (suitesparse or cupy) and the mpi backend under test: each verb of
    the second gives the first's result (cupy's float products are its own: cuSPARSE's)."""
    return gg.backend(BLOCKS), gg.backend(MPI_BACKEND)


def _host(x):
    """``x`` as a numpy array (a CuPy array copied from the GPU)."""
    return np.asarray(x.get() if hasattr(x, "get") and not isinstance(x, np.generic) else x)


def _same(ss, be, x, y):
    np.testing.assert_array_equal(_host(be.indices(y)), _host(ss.indices(x)))
    np.testing.assert_array_equal(_host(be.values(y)), _host(ss.values(x)))


@pytest.mark.parametrize("semiring", ["min_second", "plus_pair", "any_pair", "max_secondi", "bor_second"])
@pytest.mark.parametrize("mask", ["none", "sparse", "complement", "value"])
def test_mxv(semiring, mask):
    ss, be = _pair()
    G = gg.as_graph(laplace3d(7, 5, 3))
    n = G.n
    ids = np.arange(0, n, 3)
    vals = (np.arange(ids.size) * 7919 % 101).astype(np.uint64)
    m_ids = np.arange(1, n, 4)
    m_vals = m_ids % 3 == 0
    out = []
    for b in (ss, be):
        u = b.vector(ids, vals, n)
        m = None if mask == "none" else b.vector(m_ids, m_vals, n)
        out.append(b.mxv(semiring, b.adjacency(G, closed=True), u, mask=m, structure=mask != "value",
                         complement=mask == "complement"))
    _same(ss, be, *out)


@pytest.mark.parametrize("semiring", ["any_pair", "min_first", "max_first", "plus_pair", "plus_times"])
def test_vxm(semiring):
    ss, be = _pair()
    G = gg.as_graph(abs(laplace3d(6, 5, 4)))
    ids = np.arange(1, G.n, 5)
    out = [b.vxm(semiring, b.vector(ids, ids.astype(np.float64), G.n), b.adjacency(G, weighted=True),
                 mask=b.vector(np.arange(0, G.n, 2), True, G.n), complement=True) for b in (ss, be)]
    _same(ss, be, *out)


def test_matrix_verbs():
    ss, be = _pair()
    G = gg.as_graph(abs(laplace3d(6, 5, 4)))
    rows = np.array([7, 3, 3, 100, 0, G.n - 1])
    out = []
    for b in (ss, be):
        A = b.adjacency(G, weighted=True)
        P = b.matrix(np.arange(G.n + 1), np.arange(G.n) // 3, ncols=(G.n + 2) // 3)
        C = b.mxm("plus_times", b.transpose(P), b.mxm("plus_first", A, P))
        out.append([b.to_csr(b.select("offdiag", C)), b.to_csr(b.extract(A, rows)), b.to_csr(b.select("tril", A, -2)),
                    b.to_csr(b.transpose(b.extract(A, rows)))])
    for x, y in zip(*out):
        for a, c in zip(x, y):
            np.testing.assert_array_equal(c, _host(a))


def test_vector_verbs():
    ss, be = _pair()
    n = 50
    ids = np.arange(3, n, 4)
    picks = np.array([49, 3, 0, 7, 7, 11])
    results = []
    for b in (ss, be):
        u = b.vector(ids, ids * 0.1, n)
        w = b.full(n, 1.5, "float64")
        b.assign(w, -1.0, mask=u, complement=True)  # w<¬u> = -1
        results.append([b.reduce(u, "plus"), b.reduce(u, "max"), b.reduce(b.vector(ids[:0], 0.5, n), "min"),
                        b.nvals(w), b.values(w), b.values(b.extract(u, picks)), b.indices(b.extract(u, picks)),
                        b.values(b.apply_index(lambda i, t: i * t, u, 3)),
                        b.values(b.reduce_rows(b.matrix(np.arange(n + 1), np.arange(n)), "lor"))])
    for a, c in zip(*results):
        np.testing.assert_array_equal(c, _host(a))


@pytest.mark.parametrize("m", [5, 400])
def test_extract_of_a_vector_at_few_or_many_indices(m):
    # few indices: asked of their owners; many (more than the vector's size times the
    # ranks): the vector gathered whole and read on each rank. Repeats and absent entries
    be = gg.backend(MPI_BACKEND)
    n, ids = 23, np.arange(1, 23, 3)
    indices = np.random.default_rng(m).integers(0, n, m)
    w = be.extract(be.vector(ids, ids * 10, n), indices)  # w = u(indices)
    has = np.isin(indices, ids)
    np.testing.assert_array_equal(_host(be.indices(w)), np.flatnonzero(has))
    np.testing.assert_array_equal(_host(be.values(w)), indices[has] * 10)


@pytest.mark.parametrize("size", [7, 50])
@pytest.mark.parametrize("dup", ["plus", "max", "first", "plus-float"])
def test_build_pushes_across_ranks_through_a_function(dup, size):
    # w = Pᵀ ⊕ u as a build of (targets(i), u(i)): duplicates combined in the order given,
    # floats too (the coarse and part weights of coarsen and partition)
    ss, be = _pair()
    n = 50
    rng = np.random.default_rng(5)
    ids = np.flatnonzero(rng.random(n) < 0.6)
    to = rng.integers(0, 7, ids.size)  # targets below every size: most ranks push to rank 0's block
    values = ids / 7 if dup == "plus-float" else (ids * 3) % 11
    combine = {"plus": lambda a, b: a + b, "plus-float": lambda a, b: a + b, "max": max, "first": lambda a, b: a}[dup]
    expected = {}
    for t, x in zip(to.tolist(), values.tolist()):  # left to right, as GrB_Vector_build
        expected[t] = combine(expected[t], x) if t in expected else x
    results = []
    for b in (ss, be):
        w = b.build(to, values, size, dup=dup.removesuffix("-float"))  # w(to(k)) ⊕= values(k)
        results.append([w.size, b.indices(w), b.values(w)])
        assert dict(zip(_host(b.indices(w)).tolist(), _host(b.values(w)).tolist())) == expected
    for a, c in zip(*results):
        np.testing.assert_array_equal(c, _host(a))


# ---- the fused verbs: each rank's rows as a local problem (backends/mpi/fused.py) --------

#: Each fused verb's graphs: a grid, a dense one (elasticity's 3 x 27-point couplings: rows
#: meet more than ``aggregation.TRACKED`` groups), a complete one (rows see over 64 colors).
FUSED_GRAPHS = {"laplace": lambda: abs(laplace3d(7, 5, 3)), "elasticity": lambda: abs(elasticity3d(4, 3, 3)),
                "complete": lambda: sp.csr_array(np.ones((100, 100)) - np.eye(100))}
#: Rows of the fused verbs: a few scattered ones, none, every one.
FUSED_MASKS = {"sparse": lambda n: np.arange(1, n, 7), "empty": lambda n: np.arange(0),
               "full": lambda n: np.arange(n)}


def _fused_graph(name):
    """The backends to compare and a graph of FUSED_GRAPHS with its vertex count."""
    ss, be = _pair()
    G = gg.as_graph(FUSED_GRAPHS[name]())
    return ss, be, G, G.n


def _same_typed(ss, be, x, y):
    _same(ss, be, x, y)
    assert be.values(y).dtype == _host(ss.values(x)).dtype


@pytest.mark.parametrize("hops", [1, 2])
@pytest.mark.parametrize("mask", FUSED_MASKS)
@pytest.mark.parametrize("graph", FUSED_GRAPHS)
def test_first_fit(graph, mask, hops):
    # coloring's first fit: the row operator over A (one hop), or through the nets of A + I,
    # window by window (two)
    ss, be, G, n = _fused_graph(graph)
    ids = np.flatnonzero(np.arange(n) % 5 != 2)  # no entry at every fifth vertex
    colors = np.full(ids.size, -1)  # -1: no color
    colored = ids % 11 != 0
    colors[colored] = np.arange(np.count_nonzero(colored)) % 67  # 67 colors: two windows of 64
    rows = FUSED_MASKS[mask](n)
    out = [_first_fit(b, G, hops, b.vector(ids, colors, n), b.vector(rows, True, n)) for b in (ss, be)]
    _same_typed(ss, be, *out)
    assert ss.nvals(out[0]) == rows.size
    if graph == "complete" and rows.size:  # rows that see every color of the first window
        assert ss.values(out[0]).max() >= 64


def test_first_fit_in_order():
    ss, be = _pair()
    G = gg.as_graph(abs(laplace3d(6, 5, 4)))
    rows = np.arange(0, G.n, 3)
    out = [b.mxv(coloring.FIRST_FIT, b.adjacency(G), b.vector(np.arange(1, G.n, 3), 0, G.n),
                 mask=b.vector(rows, True, G.n), order=b.vector(rows, rows * 7919 % 113, G.n)) for b in (ss, be)]
    _same_typed(ss, be, *out)


@pytest.mark.parametrize("hops", [1, 2])
@pytest.mark.parametrize("graph", ["laplace", "elasticity"])
def test_same_group_won(graph, hops):
    ss, be, G, n = _fused_graph(graph)
    ids = np.arange(0, n, 2)
    keys = (ids * 7919 % 1009 + 1).astype(np.uint64)
    groups = (ids // 4) * 13 % 7  # colors of groups of 4 consecutive vertices
    out = []
    for b in (ss, be):
        U, t = b.vector(ids, keys, n), b.vector(ids, groups, n)
        out.append(b.mxv(coloring.SAME_GROUP_WON, b.adjacency(G), (U, t), mask=U) if hops == 1 else
                   coloring._rival_nets(b, b.adjacency(G, closed=True), U, t))
    _same_typed(ss, be, *out)


def _first_fit(b, G, hops, colors, mask):
    """Coloring's first fit of the rows of ``mask``: over A, or through the nets of A + I."""
    if hops == 1:
        return b.mxv(coloring.FIRST_FIT, b.adjacency(G), colors, mask=mask)
    return coloring._first_fit_nets(b, b.adjacency(G, closed=True), colors, mask)


def test_ordered_push_is_not_supported():
    # a push writes at columns other ranks own; coloring's passes at distance 2 take rounds
    be = gg.backend(MPI_BACKEND)
    G = gg.as_graph(abs(laplace3d(4)))
    A, n = be.adjacency(G, closed=True), G.n
    with pytest.raises(NotImplementedError, match=r"mpi(-cupy)?: mxv with push="):
        be.mxv(coloring.FREE_BIT, A, be.full(n, 0, "uint64"), order=be.full(n, 0, "int64"), push="bor")
    with pytest.raises(ValueError, match="push= is for an ordered sweep"):
        be.mxv(coloring.FREE_BIT, A, be.full(n, 0, "uint64"), push="bor")


@pytest.mark.parametrize("mask", ["none", *FUSED_MASKS])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("graph", ["laplace", "elasticity"])
def test_same_part_sum(graph, weighted, mask):
    ss, be, G, n = _fused_graph(graph)
    u = np.arange(n) * 7919 % 1009 / 7 if weighted else np.ones(n, np.int64)  # sums of floats: in the same order
    groups = (np.arange(n) // 4) * 13 % n  # global ids up to n, groups of 4 consecutive vertices
    groups *= 1 if graph == "laplace" else 1009  # ids far apart
    out = []
    for b in (ss, be):
        m = None if mask == "none" else b.vector(FUSED_MASKS[mask](n), True, n)
        out.append(b.mxv(partition.SAME_PART_SUM, b.adjacency(G, weighted=weighted),
                         (b.vector(np.arange(n), u, n), b.vector(np.arange(n), groups, n)), mask=m))
    _same_typed(ss, be, *out)


def _better_group_inputs(b, n, labelled, label, roots):
    """BETTER_GROUP's vectors: labels, rooted, and each labelled vertex's group size."""
    size = np.bincount(label)[label].astype(np.int64)
    return b.vector(labelled, label, n), b.vector(roots, True, n), b.vector(labelled, size, n)


def _better_group_operator(limit):
    """aggregation.BETTER_GROUP, or its function with ``limit`` slots."""
    if limit == aggregation.TRACKED:
        return aggregation.BETTER_GROUP
    return RowOperator(aggregation._better_group, fill=(-1, False, 0), constants={"LIMIT": limit, "SLOTS": 3 * limit})


@pytest.mark.parametrize("limit", [None, 1, aggregation.TRACKED])
@pytest.mark.parametrize("mask", FUSED_MASKS)
@pytest.mark.parametrize("graph", FUSED_GRAPHS)
def test_better_group(graph, mask, limit):
    """Aggregation's phase 3 (the row operator through mxv) equals the blocks' backend's;
    limit None is the operator with a slot per vertex."""
    ss, be, G, n = _fused_graph(graph)
    labelled = np.flatnonzero(np.arange(n) % 7 != 3)  # every seventh vertex unlabelled
    groups = (n + 1) // 2
    label = labelled * 7919 % groups  # scattered over the vertices, so rows meet many groups
    roots = labelled[::5]
    if limit == aggregation.TRACKED and graph != "laplace":  # a row meets more groups than it tracks
        adjacency = sp.csr_array((np.ones(G.indices.size), G.indices, G.indptr), shape=(n, n))
        member = sp.csr_array((np.ones(labelled.size), (labelled, label)), shape=(n, groups))
        assert (np.diff((adjacency @ member).indptr) > limit + 1).any()
    op = _better_group_operator(n if limit is None else limit)
    out = [b.mxv(op, b.adjacency(G), _better_group_inputs(b, n, labelled, label, roots),
                 mask=b.vector(FUSED_MASKS[mask](n), True, n)) for b in (ss, be)]
    _same_typed(ss, be, *out)


@pytest.mark.parametrize("n", [1, 2, 5])
def test_fused_verbs_with_fewer_vertices_than_ranks(n):
    ss, be = _pair()
    G = gg.as_graph(_path(n))
    ids = np.arange(n)
    out = []
    for b in (ss, be):
        A, every = b.adjacency(G), b.vector(ids, True, n)
        vectors = _better_group_inputs(b, n, ids, ids // 2, ids[::2])
        out.append([b.mxv(coloring.FIRST_FIT, A, b.vector(ids[::2], 0, n), mask=every),
                    b.mxv(partition.SAME_PART_SUM, A, (b.full(n, 1, "int64"), b.vector(ids, ids // 2, n))),
                    b.mxv(aggregation.BETTER_GROUP, A, vectors, mask=every)])
    for x, y in zip(*out):
        _same_typed(ss, be, x, y)


def test_fused_verbs_move_only_ghosts():
    be = gg.backend(MPI_BACKEND)
    G = gg.as_graph(abs(laplace3d(20)))
    n, ids = G.n, np.arange(G.n)
    A, every, few = be.adjacency(G), be.vector(ids, True, n), be.vector(ids[::97], True, n)
    labels, rooted, sizes = be.vector(ids, ids // 4, n), be.vector(ids[::4], True, n), be.full(n, 4, "int64")
    lo, hi = be.block(n)
    few_ghosts = min(6 * ((hi - 1) // 97 - (lo - 1) // 97), A.columns.ghosts.size)  # 6 neighbours a row at most
    ones = be.full(n, 1, "int64")
    calls = {"first_fit": (1, 0, lambda mask: be.mxv(coloring.FIRST_FIT, A, be.vector(ids[::2], 0, n), mask=mask)),
             "same_part_sum": (2, 0, lambda mask: be.mxv(partition.SAME_PART_SUM, A, (ones, labels), mask=mask)),
             "BETTER_GROUP": (3, 0, lambda mask: be.mxv(aggregation.BETTER_GROUP, A, (labels, rooted, sizes), mask=mask))}
    if BLOCKS == "cupy":  # every ghost's value, without a request (nccl.py)
        few_ghosts = A.columns.ghosts.size
    for name, (vectors, groups, call) in calls.items():
        for mask, ghosts in ((every, A.columns.ghosts.size), (few, few_ghosts)):
            be.traffic.reset()
            call(mask)
            sent = be.traffic.reset()["bytes"]
            # a request and a reply per ghost column read and per group met, and the counts: no whole vector
            bound = 32 * (vectors * ghosts + groups) + 64 * COMM.Get_size()
            assert sent <= bound, f"{name}: {sent:,} bytes sent, more than {bound:,}"


def test_masked_product_sends_a_bit_per_ghost_and_a_reply_per_ghost_its_rows_read():
    # counted from the partition alone (scipy): each rank sends its owners one bit per
    # ghost column, in whole bytes per owner, and each owner one record (an int32 value
    # and a presence flag) per ghost column that the mask's rows of a rank read
    be = gg.backend(MPI_BACKEND)
    G = gg.as_graph(abs(laplace3d(12)))
    n, p = G.n, COMM.Get_size()
    rows = np.arange(0, n, 7)
    A, u, mask = be.adjacency(G), be.full(n, 3, "int32"), be.vector(rows, True, n)
    be.mxv("min_second", A, u, mask=mask)  # the first product agrees the routes with the owners
    be.traffic.reset()
    be.mxv("min_second", A, u, mask=mask)
    sent = COMM.allreduce(be.traffic.reset()["bytes"])
    S = sp.csr_array((np.ones(G.indices.size), G.indices, G.indptr), shape=(n, n))
    starts = [n * r // p for r in range(p + 1)]
    expected = 0
    for lo, hi in zip(starts[:-1], starts[1:]):
        cols = S[lo:hi].indices
        ghosts = np.unique(cols[(cols < lo) | (cols >= hi)])
        read = S[rows[(rows >= lo) & (rows < hi)]].indices
        if BLOCKS == "cupy":  # blocks on the GPU: every ghost's record, without a request (nccl.py)
            expected += ghosts.size * 5
            continue
        expected += np.unique(read[(read < lo) | (read >= hi)]).size * 5
        expected += sum(-(-np.count_nonzero((ghosts >= a) & (ghosts < b)) // 8) for a, b in zip(starts[:-1], starts[1:]))
    assert sent == expected


def test_first_fit_in_order_moves_ghosts_and_its_rows_only():
    # the ordered row operator, block after block: what a rank sends follows the boundary
    # and the rows to color (their ranking), not n (whole colors vectors)
    ss, be = _pair()
    G = gg.as_graph(abs(laplace3d(20)))
    n, rows = G.n, np.arange(0, G.n, 97)
    out = []
    for b in (ss, be):
        b_colors, mask = b.vector(np.arange(1, n, 2), np.arange(1, n, 2) % 5, n), b.vector(rows, True, n)
        if b is be:
            be.traffic.reset()
        out.append(b.mxv(coloring.FIRST_FIT, b.adjacency(G), b_colors, mask=mask, order=b.vector(rows, rows % 13, n)))
    sent = be.traffic.reset()["bytes"]
    _same_typed(ss, be, *out)
    # under a byte a vertex (a whole vector's block crossing would cost 4 to 8)
    assert sent < n, f"{sent:,} bytes sent for {rows.size} rows of {n:,}"

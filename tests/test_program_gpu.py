"""Rounds compiled into one kernel (gbgraph/backends/cupy/program.py): the same results as the
rounds recorded and replayed verb by verb, on algorithms and on a script author's own step
(run with ``pytest -m gpu`` on a machine with an NVIDIA GPU; skipped elsewhere)."""

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

import gbgraph as gg
from gbgraph.backends.operators import RowOperator
from gbgraph.generators import laplace3d

from conftest import gpu_available
from device_cases import GRIDS, cupyx_matrix

pytestmark = [pytest.mark.gpu, pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")]


@pytest.fixture
def replayed(monkeypatch):
    """Turns compilation off: every iterate records its round and replays it."""
    from gbgraph.backends.cupy import program

    def off():
        monkeypatch.setattr(program, "compile_rounds", lambda *args: None)
    return off


def _host(x):
    return x.get() if hasattr(x, "get") else np.asarray(x)


CALLS = {"mis2": lambda G: gg.mis2(G, backend="cupy").vertices,
         "mis2 rounds": lambda G: gg.mis2(G, backend="cupy").iterations,
         "aggregate": lambda G: gg.aggregate(G, backend="cupy").labels,
         "color": lambda G: gg.color(G, backend="cupy").colors}


@pytest.mark.parametrize("matrix", GRIDS)
@pytest.mark.parametrize("name", sorted(CALLS))
def test_compiled_rounds_equal_replayed_rounds(matrix, name, replayed):
    from gbgraph.backends.cupy import program

    G = gg.as_graph(cupyx_matrix(matrix()))
    before = program.programs
    compiled = _host(CALLS[name](G))
    assert program.programs > before
    replayed()
    np.testing.assert_array_equal(compiled, _host(CALLS[name](G)))


def _lower(i, start, stop, cols, vals, labels):
    """The least label of row i's neighbours, present where it is below row i's own."""
    least = labels[i]
    for p in range(start, stop):
        least = min(least, labels[cols[p]])
    return least, least < labels[i]


LOWER = RowOperator(_lower, fill=None, name="test_lower")


def _components(be, A, n):
    """Each vertex's least vertex id in its component, by rounds of label propagation: a
    round reads the labels at the rows' columns and writes them in place, so the compiled
    round needs a barrier between the two (the write must wait for every read)."""
    labels = be.apply_index("rowindex", be.full(n, 0, "int64"), 0)  # labels(i) = i

    def round_(lowered, r):
        lowered = be.mxv(LOWER, A, labels)  # lowered = LOWER(A, labels): where a neighbour's label is less
        be.assign(labels, lowered, mask=lowered)  # labels<lowered> = lowered
        return (lowered,)

    first = be.mxv(LOWER, A, labels)
    be.assign(labels, first, mask=first)
    be.iterate(round_, (first,), first=1)
    return be.values(labels)


def test_a_script_authors_round_compiles_and_agrees_with_scipy():
    from gbgraph.backends import backend
    from gbgraph.backends.cupy import program

    n = 3000
    A = _random_graph(n, 7, 1.2)
    be = backend("cupy")
    M = be.adjacency(gg.as_graph(cupyx_matrix(A)))
    before = program.programs
    labels = _components(be, M, n).get()
    assert program.programs == before + 1
    np.testing.assert_array_equal(labels, _least_in_component(A))


def test_a_round_that_reads_the_host_is_replayed():
    # the BFS's pushed levels use vxm, which the compiled rounds do not run: recorded instead
    from gbgraph import lagraph
    from gbgraph.backends.cupy import program, replay

    before, recorded = program.programs, replay.recordings
    r = lagraph.bfs(cupyx_matrix(abs(laplace3d(8))), 0, method="push", backend="cupy")
    assert (program.programs, replay.recordings) == (before, recorded + 1)
    assert int(r.levels.max().get()) == 21  # the farthest corner of an 8 x 8 x 8 grid: 3 x 7 steps


@pytest.mark.parametrize("name", ["mis2", "aggregate", "color"])
def test_a_second_call_on_the_same_graph_traces_nothing(name):
    from gbgraph.backends.cupy import program

    A = laplace3d(12, 10, 8)
    G = gg.as_graph(cupyx_matrix(A))
    cpu = {"mis2": lambda: gg.mis2(A, backend="numba").vertices,
           "aggregate": lambda: gg.aggregate(A, backend="numba").labels,
           "color": lambda: gg.color(A, backend="numba").colors}[name]()
    np.testing.assert_array_equal(_host(CALLS[name](G)), cpu)
    traces, before = program.traces, program.programs
    np.testing.assert_array_equal(_host(CALLS[name](G)), cpu)
    assert program.traces == traces and program.programs > before


def _random_graph(n, seed, degree=1.5):
    A = sp.random(n, n, density=degree / n, random_state=np.random.default_rng(seed), format="csr")
    A = ((A + A.T) != 0).astype(np.float64).tocsr()
    A.setdiag(0)
    A.eliminate_zeros()
    return A


def _least_in_component(A):
    count, component = connected_components(A, directed=False)  # scipy's components, independent of gbgraph
    least = np.full(count, A.shape[0])
    np.minimum.at(least, component, np.arange(A.shape[0]))
    return least[component]


def test_a_traced_round_runs_again_on_another_graphs_arrays():
    # the second graph has the same size and kinds of arrays: its call reuses the first
    # call's program with its own matrix and labels; a third of another size is traced anew
    from gbgraph.backends import backend
    from gbgraph.backends.cupy import program

    be = backend("cupy")
    graphs = [_random_graph(2000, 1), _random_graph(2000, 2), _random_graph(2500, 3)]
    traced = []
    for A in graphs:
        before = program.traces
        labels = _components(be, be.adjacency(gg.as_graph(cupyx_matrix(A))), A.shape[0]).get()
        traced.append(program.traces - before)
        np.testing.assert_array_equal(labels, _least_in_component(A))
    assert traced[1:] == [0, 1]


def test_a_step_holding_an_array_is_traced_every_call():
    # an array's contents may steer the step on the host: no trace is kept for it
    from gbgraph.backends import backend
    from gbgraph.backends.cupy import program

    be = backend("cupy")
    A = _random_graph(1000, 4)
    M = be.adjacency(gg.as_graph(cupyx_matrix(A)))
    host_ids = np.arange(A.shape[0])
    for _ in range(2):
        labels = be.full(A.shape[0], 0, "int64")
        labels = be.apply_index("rowindex", labels, 0)  # labels(i) = i

        def round_(lowered, r):
            assert host_ids.size == A.shape[0]
            lowered = be.mxv(LOWER, M, labels)  # lowered = LOWER(A, labels)
            be.assign(labels, lowered, mask=lowered)  # labels<lowered> = lowered
            return (lowered,)

        before = program.traces
        first = be.mxv(LOWER, M, labels)
        be.assign(labels, first, mask=first)
        be.iterate(round_, (first,), first=1)
        assert program.traces == before + 1
        np.testing.assert_array_equal(be.values(labels).get(), _least_in_component(A))

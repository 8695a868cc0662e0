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

    rng = np.random.default_rng(7)
    n = 3000
    A = sp.random(n, n, density=1.2 / n, random_state=rng, format="csr")
    A = ((A + A.T) != 0).astype(np.float64).tocsr()
    A.setdiag(0)
    A.eliminate_zeros()
    be = backend("cupy")
    M = be.adjacency(gg.as_graph(cupyx_matrix(A)))
    before = program.programs
    labels = _components(be, M, n).get()
    assert program.programs == before + 1
    count, component = connected_components(A, directed=False)  # scipy's components, independent of gbgraph
    least = np.full(count, n)
    np.minimum.at(least, component, np.arange(n))
    np.testing.assert_array_equal(labels, least[component])


def test_a_round_that_reads_the_host_is_replayed():
    # the BFS's pushed levels use vxm, which the compiled rounds do not run: recorded instead
    from gbgraph import lagraph
    from gbgraph.backends.cupy import program, replay

    before, recorded = program.programs, replay.recordings
    r = lagraph.bfs(cupyx_matrix(abs(laplace3d(8))), 0, method="push", backend="cupy")
    assert (program.programs, replay.recordings) == (before, recorded + 1)
    assert int(r.levels.max().get()) == 21  # the farthest corner of an 8 x 8 x 8 grid: 3 x 7 steps

"""The operators of the MIS rounds (gbgraph/algorithms/mis.py) against loops over numpy
arrays, on every CPU backend, and their CUDA translation against numba on the host.

A round decides with one row operator (``y<wl1> = decide(A; M, T)``), keeps its worklists
with one IndexUnaryOp (``select(IN < x < OUT)``) and updates a frontier level with one row
operator (the moved minima); on the host its column pass is one more (the least over a
closed neighbourhood). The row operators read a row's own value beside its columns, so they
take A (the host's rounds) or A + I (a GPU's) alike: both are checked. The MIS results
themselves are checked against independent oracles in tests/test_mis_family.py and
tests/test_mis2.py.
"""

import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.algorithms import mis
from gbgraph.backends.cuda_translate import array_type, c_name, scalar_type, translate_operator
from gbgraph.generators import laplace3d
from gbgraph.hashing import FixedPacking, Packing

from properties import assert_is_mis
from test_operators_gpu import _PRELUDE, _compile, _read, _rows_equal, host_rows, needs_gxx

BACKENDS = ["numba", "suitesparse", "mpi"]
BITS = [32, 64]


def _closed(A):
    """The pattern of A + I as a scipy CSR with sorted int32 columns."""
    C = sp.csr_array((sp.csr_array(A) != 0).astype(np.int8) + sp.eye_array(A.shape[0], dtype=np.int8, format="csr"))
    C.sort_indices()
    return C.indptr.astype(np.int64), C.indices.astype(np.int32)


def _graph(seed):
    """A random symmetric graph with a few isolated vertices (rows of the diagonal alone)."""
    rng = np.random.default_rng(seed)
    n = 300
    R = sp.random(n, n, density=0.02, random_state=rng, format="csr")
    R = ((R + R.T) > 0).astype(np.float64)
    R.setdiag(0)
    R.eliminate_zeros()
    keep = np.ones(n)
    keep[rng.choice(n, 10, replace=False)] = 0  # their edges removed: isolated vertices
    D = sp.diags(keep)
    return sp.csr_array(D @ R @ D)


def _ball_minima(indptr, cols, values):
    """The least of ``values`` over each row's columns (each closed row holds its vertex)."""
    return np.array([values[cols[indptr[c]:indptr[c + 1]]].min() for c in range(indptr.size - 1)], values.dtype)


def _ball_case(seed, rng, bits):
    """``_graph(seed)``, its closed rows, statuses drawn from ``rng`` and each closed row's
    least status (as a level holds them): (A, indptr, cols, status, T, minima)."""
    A = _graph(seed)
    indptr, cols = _closed(A)
    status, T = _statuses(A.shape[0], bits, rng)
    return A, indptr, cols, status, T, _ball_minima(indptr, cols, T)


def _statuses(n, bits, rng):
    """Statuses of every kind a round meets: IN, OUT, one value IN + 1 and OUT - 1 each, and
    packed priorities (many repeated, so that a row's least value ties with its own)."""
    status = Packing(n, bits)
    T = status(np.arange(n, dtype=np.int64), 3)
    T[rng.random(n) < 0.03] = status.IN
    T[rng.random(n) < 0.1] = status.OUT
    T[0], T[1] = status.IN + T.dtype.type(1), status.OUT - T.dtype.type(1)
    repeated = rng.random(n) < 0.2
    T[repeated] = T[rng.integers(0, n, repeated.sum())]
    return status, T


def _decide_reference(indptr, cols, M, T, rows, IN, OUT):
    """l.25-30 of Kelley & Rajamanickam's Algorithm 1 per row: IN if the least M of the
    row's columns is T(i), else OUT if it is IN, else T(i)."""
    y = []
    for i in rows:
        d = min(M[j] for j in cols[indptr[i]:indptr[i + 1]])
        y.append(IN if d == T[i] else OUT if d == IN else T[i])
    return np.array(y, T.dtype)


def _adjacency(be, graph, closed):
    """The graph's matrix on ``be``, A + I when ``closed``."""
    return be.adjacency(graph, closed=closed)


def _vector(be, values, rows):
    """A backend vector holding ``values`` at ``rows`` (None: full)."""
    n = values.size
    if rows is None:
        return be.full(n, values, values.dtype.name)
    return be.vector(rows, values[rows], n)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("closed", [False, True], ids=["A", "A+I"])
@pytest.mark.parametrize("short", [False, True], ids=["loop", "short"])
def test_decide_equals_the_rule_of_lines_25_to_30(backend, bits, seed, closed, short):
    rng = np.random.default_rng(seed)
    A, indptr, cols, status, T, M = _ball_case(seed, rng, bits)
    n = A.shape[0]
    # M: the minima of T over closed neighbourhoods, some disturbed
    M[rng.random(n) < 0.05] = status.IN
    rows = np.flatnonzero(rng.random(n) < 0.6)
    degrees = np.diff(sp.csr_array(A).indptr)[rows]
    assert ((1 <= degrees) & (degrees <= 8)).any() and (degrees > 8).any()  # rows read as eight columns, and longer
    be = gg.backend(backend)
    graph = gg.as_graph(A, weights=False)
    y = be.mxv(mis._operators(status, short).decide, _adjacency(be, graph, closed),
               (be.full(n, M, M.dtype.name), be.full(n, T, T.dtype.name)), mask=be.vector(rows, True, n))
    want = _decide_reference(indptr, cols, M, T, rows, status.IN, status.OUT)
    np.testing.assert_array_equal(be.indices(y), rows)
    assert be.values(y).dtype == T.dtype
    np.testing.assert_array_equal(be.values(y), want)
    assert {status.IN, status.OUT} <= set(want.tolist()) and ((want != status.IN) & (want != status.OUT)).any()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("sparse", [False, True], ids=["full", "sparse"])
@pytest.mark.parametrize("wanted", [True, False])
def test_undecided_keeps_what_lies_strictly_between_in_and_out(backend, bits, sparse, wanted):
    rng = np.random.default_rng(5)
    n = 1000
    status, x = _statuses(n, bits, rng)
    rows = np.flatnonzero(rng.random(n) < 0.5) if sparse else None
    be = gg.backend(backend)
    kept = be.select(mis._operators(status).undecided, _vector(be, x, rows), wanted)
    at = np.arange(n) if rows is None else rows
    between = [bool(status.IN < x[i] < status.OUT) for i in at]
    expected = at[np.array(between) == wanted]
    np.testing.assert_array_equal(be.indices(kept), expected)
    np.testing.assert_array_equal(be.values(kept), x[expected])
    assert 0 < expected.size < at.size


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bits", BITS)
def test_undecided_at_keeps_the_entries_of_undecided_rows(backend, bits):
    rng = np.random.default_rng(7)
    n = 1000
    status, T = _statuses(n, bits, rng)
    rows = np.flatnonzero(rng.random(n) < 0.4)
    be = gg.backend(backend)
    reached = be.vector(rows, rng.integers(0, 2, rows.size).astype(bool), n)  # its values are not read
    kept = be.select(mis._operators(status).undecided_at, reached, (be.full(n, T, T.dtype.name),))
    expected = np.array([i for i in rows if status.IN < T[i] < status.OUT], np.int64)
    np.testing.assert_array_equal(be.indices(kept), expected)
    assert 0 < expected.size < rows.size


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("closed", [False, True], ids=["A", "A+I"])
def test_moved_least_keeps_the_minima_that_changed(backend, bits, closed):
    rng = np.random.default_rng(9)
    A, indptr, cols, _, below, least = _ball_case(4, rng, bits)
    n = A.shape[0]
    M = least.copy()
    changed = rng.random(n) < 0.3
    M[changed] = below[rng.integers(0, n, changed.sum())]  # stale minima
    rows = np.flatnonzero(rng.random(n) < 0.7)
    be = gg.backend(backend)
    graph = gg.as_graph(A, weights=False)
    moved = be.mxv(mis.MOVED_LEAST, _adjacency(be, graph, closed),
                   (be.full(n, below, below.dtype.name), be.full(n, M, M.dtype.name)), mask=be.vector(rows, True, n))
    expected = np.array([i for i in rows if least[i] != M[i]], np.int64)
    np.testing.assert_array_equal(be.indices(moved), expected)
    np.testing.assert_array_equal(be.values(moved), least[expected])
    assert 0 < expected.size < rows.size


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("bits", BITS)
@pytest.mark.parametrize("closed", [False, True], ids=["A", "A+I"])
@pytest.mark.parametrize("short", [False, True], ids=["loop", "short"])
def test_least_closed_is_the_least_over_each_closed_neighbourhood(backend, bits, closed, short):
    rng = np.random.default_rng(15)
    A, indptr, cols, status, T, least = _ball_case(6, rng, bits)
    n = A.shape[0]
    rows = np.flatnonzero(rng.random(n) < 0.7)
    degrees = np.diff(sp.csr_array(A).indptr)[rows]
    assert (degrees == 0).any()  # isolated vertices among the rows: no columns
    assert ((1 <= degrees) & (degrees <= 8)).any() and (degrees > 8).any()  # rows read as eight columns, and longer
    be = gg.backend(backend)
    graph = gg.as_graph(A, weights=False)
    got = be.mxv(mis._operators(status, short).least_closed, _adjacency(be, graph, closed), be.full(n, T, T.dtype.name),
                 mask=be.vector(rows, True, n))
    np.testing.assert_array_equal(be.indices(got), rows)
    np.testing.assert_array_equal(be.values(got), least[rows])


def test_operators_are_made_once_per_kind_of_status():
    a, b = Packing(100, 32), FixedPacking.from_priorities(np.zeros(100, np.uint64), 32)
    assert mis._operators(a) is mis._operators(b)
    assert mis._operators(Packing(100, 64)) is not mis._operators(a)
    assert mis._operators(a, True) is mis._operators(b, True) is not mis._operators(a)


def test_short_rows_are_read_as_eight_on_large_irregular_graphs_only():
    host = gg.backend("numba")
    R = sp.random(6000, 6000, density=0.001, random_state=np.random.default_rng(3), format="csr")
    irregular = gg.as_graph(((R + R.T) > 0).astype(np.float64), weights=False)
    degrees = np.diff(irregular.indptr)
    assert np.mean(degrees[1:] != degrees[:-1]) > 0.5  # random degrees: lengths change at most rows
    assert mis._irregular(host, irregular)
    assert not mis._irregular(host, gg.as_graph(laplace3d(20), weights=False))  # lengths change at 7% of the rows
    assert not mis._irregular(host, gg.as_graph(_graph(2), weights=False))  # random, but fewer rows than the sample


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("call", [
    lambda A, b: (gg.mis2(A, backend=b), 2), lambda A, b: (gg.mis2(A, "fixed", backend=b, packing=64), 2),
    lambda A, b: (gg.mis2(A, "quality", backend=b), 2), lambda A, b: (gg.mis1(A, "degree", backend=b), 1),
    lambda A, b: (gg.mis1(A, "random", backend=b, packing=64), 1), lambda A, b: (gg.misk(A, 3, backend=b), 3),
    lambda A, b: (gg.misk(A, 4, backend=b, packing=64), 4)],
    ids=["mis2", "mis2-fixed-64", "mis2-quality", "mis1-degree", "mis1-random-64", "misk-3", "misk-4-64"])
def test_sets_are_independent_and_maximal(backend, call):
    for A in (laplace3d(7, 6, 5), _graph(2)):
        r, k = call(A, backend)
        assert_is_mis(A, r.vertices, k)


# ---- the CUDA translation, run on the host ---------------------------------------------------

@needs_gxx
@pytest.mark.parametrize("bits", BITS)
def test_translated_row_operators_equal_numba(tmp_path, bits):
    rng = np.random.default_rng(11)
    A, indptr, cols, status, T, M = _ball_case(3, rng, bits)
    n = A.shape[0]
    decide = mis._operators(status).decide
    got = host_rows(tmp_path, decide, indptr, cols, None, (M, T))
    want = _decide_reference(indptr, cols, M, T, range(n), status.IN, status.OUT)
    _rows_equal(got, (want, np.ones(n, bool)))
    (tmp_path / "moved").mkdir()
    stale = M.copy()
    stale[::3] = T[::3]
    got = host_rows(tmp_path / "moved", mis.MOVED_LEAST, indptr, cols, None, (T, stale))
    _rows_equal(got, (M, M != stale))


@needs_gxx
@pytest.mark.parametrize("bits", BITS)
def test_translated_select_equals_numba(tmp_path, bits):
    rng = np.random.default_rng(13)
    status, x = _statuses(500, bits, rng)
    op = mis._operators(status).undecided
    index = scalar_type(np.int64)
    t = translate_operator(op, (scalar_type(x.dtype), index, index, scalar_type(bool)))
    for wanted in (True, False):
        (tmp_path / str(wanted)).mkdir()
        exe = _compile(tmp_path / str(wanted), f"""{_PRELUDE}{t.code}
int main() {{
{_read("x", x.dtype, x.size)}    for (long long k = 0; k < {x.size}; ++k) {{
        const {c_name(t.result)} keep = {t.entry}::call(x[k], k, 0, {str(wanted).lower()});
        fwrite(&keep, sizeof(keep), 1, stdout);
    }}
    return 0;
}}
""")
        raw = subprocess.run([str(exe)], input=x.tobytes(), capture_output=True, check=True).stdout
        want = np.array([bool(status.IN < v < status.OUT) == wanted for v in x])
        np.testing.assert_array_equal(np.frombuffer(raw, bool), want)
    op = mis._operators(status).undecided_at
    t = translate_operator(op, (scalar_type(bool), index, index, array_type(x.dtype)))
    (tmp_path / "at").mkdir()
    exe = _compile(tmp_path / "at", f"""{_PRELUDE}{t.code}
int main() {{
{_read("T", x.dtype, x.size)}    for (long long k = 0; k < {x.size}; ++k) {{
        const {c_name(t.result)} keep = {t.entry}::call(true, k, 0, T);
        fwrite(&keep, sizeof(keep), 1, stdout);
    }}
    return 0;
}}
""")
    raw = subprocess.run([str(exe)], input=x.tobytes(), capture_output=True, check=True).stdout
    np.testing.assert_array_equal(np.frombuffer(raw, bool), [bool(status.IN < v < status.OUT) for v in x])

"""The model of ``benchmarks/profile_cpu_rounds.py``: the entries a backend call reads,
against the same count made by scipy from the matrix and the mask, and its rounds, against
the iterations the algorithm reports."""

import pathlib
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.algorithms.mis import LEAST_CLOSED

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "benchmarks"))
profile = pytest.importorskip("profile_cpu_rounds")


@pytest.fixture
def graph():
    """A random symmetric pattern of uneven rows (no diagonal), its backend matrix, and the
    scipy CSR to count with."""
    rng = np.random.default_rng(7)
    n = 300
    R = sp.random(n, n, density=0.03, random_state=rng, format="csr")
    S = ((R + R.T) != 0).astype(bool).tocsr()
    S.setdiag(False)
    S.eliminate_zeros()
    S.sort_indices()
    be = gg.backend("numba")
    return S, be, be.matrix(S.indptr, S.indices.astype(np.int32))


def test_a_full_pull_reads_every_entry_once(graph):
    S, be, A = graph
    u = be.full(S.shape[0], 1, "int64")
    with profile.Profiler(be) as p:
        be.mxv("min_second", A, u)
    (call,) = p.calls
    assert (call.verb, call.op, call.entries) == ("mxv", "min_second", S.nnz)
    assert "mxv" not in be.__dict__  # the class's verbs again


@pytest.mark.parametrize("complement", [False, True])
def test_a_masked_pull_reads_the_masked_rows_entries(graph, complement):
    S, be, A = graph
    n = S.shape[0]
    rows = np.sort(np.random.default_rng(1).choice(n, 40, replace=False))
    mask = be.vector(rows, True, n)
    u = be.full(n, 1, "int64")
    with profile.Profiler(be) as p:
        be.mxv("min_second", A, u, mask=mask, complement=complement)
        be.mxv(LEAST_CLOSED, A, u, mask=mask, complement=complement)  # a row operator over the same rows
    read = np.setdiff1d(np.arange(n), rows) if complement else rows
    assert [c.entries for c in p.calls] == [S[read].nnz, S[read].nnz]


def test_a_push_reads_the_rows_at_the_vectors_entries(graph):
    S, be, A = graph
    n = S.shape[0]
    at = np.array([0, 5, 17, 200])
    u = be.vector(at, True, n)
    with profile.Profiler(be) as p:
        be.vxm("any_first", u, A)
    assert [c.entries for c in p.calls] == [S[at].nnz]


def test_vector_verbs_read_no_entries_and_move_their_arrays(graph):
    S, be, A = graph
    n = S.shape[0]
    u = be.full(n, 3, "int64")
    with profile.Profiler(be) as p:
        w = be.select("valueeq", u, 3)
    (call,) = p.calls
    written = w.values.nbytes + (0 if w.indices is None else w.indices.nbytes)  # a full w, or n positions too
    assert w.nvals == n and call.entries == 0 and call.bytes == 8 * n + written  # u's values read


def test_the_rounds_of_mis2_are_its_iterations(graph):
    S, be, _ = graph
    G = gg.as_graph(S)
    with profile.Profiler(be) as p:
        result = gg.mis2(G, backend="numba")
    rounds = {c.round for c in p.calls if c.loop}
    assert len(p.loop_names) == 1 and rounds == set(range(result.iterations))
    assert "iterate" not in be.__dict__

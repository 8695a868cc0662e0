"""The cupy backend's device forms of the general verbs (backends/cupy/general.py) against
python-graphblas, and the lagraph scripts running without a copy to the host (run with
``pytest -m gpu`` on a machine with an NVIDIA GPU; skipped elsewhere)."""

import graphblas as gb
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from gbgraph import lagraph
from gbgraph.generators import laplace3d

from conftest import gpu_available

gpu = pytest.mark.skipif(not gpu_available(), reason="needs CuPy and an NVIDIA GPU")
pytestmark = [pytest.mark.gpu, gpu]


def _graph(n=300, p=0.03, seed=0):
    return sp.csr_array(nx.to_scipy_sparse_array(nx.gnp_random_graph(n, p, seed=seed), format="csr"))


@pytest.fixture
def host_calls(monkeypatch):
    """The verbs the cupy backend sends to the host while the test runs."""
    from gbgraph.backends.cupy import host

    calls = []
    original = host.call

    def counted(verb, *args, **kwargs):
        calls.append(verb)
        return original(verb, *args, **kwargs)

    monkeypatch.setattr(host, "call", counted)
    return calls


def _get(x):
    return x.get() if type(x).__module__.startswith("cupy") else np.asarray(x)


SCRIPTS = {
    "bfs": lambda A: _get(lagraph.bfs(A, 0, backend="cupy").levels),
    "bfs-pull": lambda A: _get(lagraph.bfs(A, 0, method="pull", backend="cupy").parents),
    "components": lambda A: _get(lagraph.connected_components(A, backend="cupy")),
    "triangles": lambda A: lagraph.triangle_count(A, backend="cupy"),
    "pagerank": lambda A: _get(lagraph.pagerank(A, backend="cupy").ranks),
    "core": lambda A: _get(lagraph.core_number(A, backend="cupy")),
}


@pytest.mark.parametrize("script", SCRIPTS)
def test_lagraph_scripts_make_no_host_calls(script, host_calls):
    # a mesh with one edge removed from its first vertex: every script's loop runs several rounds
    A = sp.csr_array(laplace3d(7, 6, 5))
    A.setdiag(0)
    A.eliminate_zeros()
    SCRIPTS[script](A)
    assert host_calls == []


def test_sssp_makes_no_host_calls_and_matches_networkx(host_calls):
    A = _graph(200, 0.05, 3)
    rng = np.random.default_rng(1)
    W = sp.triu(A, 1).tocsr()
    W.data = rng.integers(1, 20, W.nnz).astype(np.float64)
    W = sp.csr_array(W + W.T)
    d = _get(lagraph.sssp(W, 0, backend="cupy"))
    assert host_calls == []
    expected = nx.single_source_dijkstra_path_length(nx.from_scipy_sparse_array(W), 0)
    np.testing.assert_array_equal(d, [expected.get(v, np.inf) for v in range(W.shape[0])])


def _pgb_matrix(A, dtype=None):
    A = sp.coo_array(A)
    return gb.Matrix.from_coo(A.row, A.col, A.data if dtype is None else A.data.astype(dtype),
                              nrows=A.shape[0], ncols=A.shape[1])


def _pgb_vector(ids, values, n):
    return gb.Vector.from_coo(ids, values, size=n)


def _dense(be, v, fill):
    """(values with ``fill`` where v has no entry, presence) of a cupy vector, on the host."""
    ids, values = (_get(x) for x in be.extract_tuples(v))
    out = np.full(v.size, fill, values.dtype)
    out[ids] = values
    present = np.zeros(v.size, bool)
    present[ids] = True
    return out, present


def _pgb_dense(v, fill):
    ids, values = v.to_coo()
    out = np.full(v.size, fill, values.dtype)
    out[ids] = values
    present = np.zeros(v.size, bool)
    present[ids] = True
    return out, present


@pytest.mark.parametrize("semiring", ["min_secondi", "plus_pair", "max_first", "min_plus"])
@pytest.mark.parametrize("complement", [False, True])
def test_pushed_vxm_with_a_mask_and_accumulate_matches_python_graphblas(semiring, complement):
    """u ⊕.⊗ A pushed from u's entries under a mask, then accumulated into out: many atomics
    meet at each output of a graph this dense."""
    import cupy

    be = gg.backends.backend("cupy")
    A = _graph(500, 0.08, 5)
    A.data = np.random.default_rng(2).integers(1, 9, A.nnz).astype(np.int64)
    n = A.shape[0]
    rng = np.random.default_rng(7)
    u_ids = np.sort(rng.choice(n, 40, replace=False))
    u_values = rng.integers(-50, 50, u_ids.size)
    m_ids = np.sort(rng.choice(n, n // 2, replace=False))
    o_ids = np.sort(rng.choice(n, n // 3, replace=False))
    o_values = rng.integers(-50, 50, o_ids.size)
    M = be.matrix(A.indptr, A.indices, values=A.data)
    u = be.vector(cupy.asarray(u_ids), cupy.asarray(u_values), n)
    mask = be.vector(cupy.asarray(m_ids), cupy.ones(m_ids.size, bool), n)
    out = be.vector(cupy.asarray(o_ids), cupy.asarray(o_values), n)
    got = be.vxm(semiring, u, M, mask=mask, complement=complement, out=out, accum="plus")
    ours = _dense(be, got, 0)

    G = _pgb_matrix(A)
    ref = _pgb_vector(o_ids, o_values, n)
    mask_pgb = _pgb_vector(m_ids, np.ones(m_ids.size, bool), n).S
    op = gb.semiring.ss.min_secondi if semiring == "min_secondi" else getattr(gb.semiring, semiring)
    ref(~mask_pgb if complement else mask_pgb, accum=gb.binary.plus) << op(_pgb_vector(u_ids, u_values, n) @ G)
    expected = _pgb_dense(ref, 0)
    np.testing.assert_array_equal(ours[1], expected[1])
    np.testing.assert_array_equal(ours[0], expected[0])
    assert ours[0].dtype == expected[0].dtype


@pytest.mark.parametrize("semiring", ["plus_pair", "min_plus", "max_times", "plus_times"])
def test_masked_mxm_matches_python_graphblas(semiring):
    be = gg.backends.backend("cupy")
    A = _graph(400, 0.05, 11)
    A.data = np.random.default_rng(3).random(A.nnz)
    L = sp.csr_array(sp.tril(A, -1))
    B = be.matrix(L.indptr, L.indices, values=L.data)
    C = be.mxm(semiring, B, B, mask=B)
    rows, cols, values = (_get(x) for x in be.extract_tuples(C))
    G = _pgb_matrix(L)
    ref = gb.Matrix(gb.dtypes.INT64 if semiring == "plus_pair" else gb.dtypes.FP64, *L.shape)
    ref(G.S) << getattr(gb.semiring, semiring)(G @ G)
    r_rows, r_cols, r_values = ref.to_coo()
    np.testing.assert_array_equal(rows, r_rows)
    np.testing.assert_array_equal(cols, r_cols)
    np.testing.assert_array_equal(values, r_values)  # each dot product in the order of k: bit for bit
    assert values.dtype == r_values.dtype


@pytest.mark.parametrize("dup", ["plus", "min", "first", "second", "times"])
def test_build_matrix_with_duplicates_matches_python_graphblas(dup):
    import cupy

    be = gg.backends.backend("cupy")
    rng = np.random.default_rng(4)
    rows, cols = rng.integers(0, 30, 2000), rng.integers(0, 40, 2000)
    values = rng.integers(-9, 9, 2000)
    C = be.build_matrix(cupy.asarray(rows), cupy.asarray(cols), cupy.asarray(values), 30, 40, dup=dup)
    got = tuple(_get(x) for x in be.extract_tuples(C))
    ref = gb.Matrix.from_coo(rows, cols, values, nrows=30, ncols=40, dup_op=getattr(gb.binary, dup))
    for a, b in zip(got, ref.to_coo()):
        np.testing.assert_array_equal(a, b)


def test_build_with_duplicates_and_no_dup_is_a_value_error():
    import cupy

    be = gg.backends.backend("cupy")
    with pytest.raises(ValueError, match="duplicate"):
        be.build_matrix(cupy.asarray([0, 0]), cupy.asarray([1, 1]), cupy.asarray([1.0, 2.0]), 2, 2)
    with pytest.raises(ValueError, match="must lie in"):
        be.build(cupy.asarray([0, 5]), cupy.asarray([1.0, 2.0]), 3, dup="plus")
    for keys in ([0, 5], [-1, 2]):  # integer max / min / plus: the atomic build checks its keys too
        with pytest.raises(ValueError, match=r"must lie in \[0, 3\)"):
            be.build(cupy.asarray(keys), cupy.asarray([1, 2]), 3, dup="max")
    w = be.build(cupy.asarray([2, 0, 2]), cupy.asarray([4, 7, 9]), 4, dup="plus")
    assert be.indices(w).tolist() == [0, 2] and be.values(w).tolist() == [7, 13]


@pytest.mark.parametrize("accum", [None, "min", "minus", "lt"])
@pytest.mark.parametrize("replace", [False, True])
def test_assign_with_accumulate_and_replace_matches_python_graphblas(accum, replace):
    import cupy

    be = gg.backends.backend("cupy")
    n = 200
    rng = np.random.default_rng(9)
    w_ids = np.sort(rng.choice(n, 80, replace=False))
    w_values = rng.random(w_ids.size) * 10
    v_ids = np.sort(rng.choice(n, 90, replace=False))
    v_values = rng.integers(-5, 5, v_ids.size)
    m_ids = np.sort(rng.choice(n, 100, replace=False))
    m_values = rng.integers(0, 2, m_ids.size).astype(bool)
    w = be.vector(cupy.asarray(w_ids), cupy.asarray(w_values), n)
    v = be.vector(cupy.asarray(v_ids), cupy.asarray(v_values), n)
    mask = be.vector(cupy.asarray(m_ids), cupy.asarray(m_values), n)
    be.assign(w, v, mask=mask, structure=False, accum=accum, replace=replace)
    ref = _pgb_vector(w_ids, w_values, n)
    kwargs = {} if accum is None else {"accum": getattr(gb.binary, accum)}
    ref(_pgb_vector(m_ids, m_values, n).V, replace=replace, **kwargs) << _pgb_vector(v_ids, v_values, n)
    ours, expected = _dense(be, w, 0.0), _pgb_dense(ref, 0.0)
    np.testing.assert_array_equal(ours[1], expected[1])
    np.testing.assert_array_equal(ours[0], expected[0])

import gzip
import pickle
import shutil

import numba
import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import gbgraph as gg

# 0 - 1 - 2 - 3 with a self loop at 1 and weights 1..3
DENSE = np.array([[0, 1, 0, 0], [1, 5, 2, 0], [0, 2, 0, 3], [0, 0, 3, 0]], dtype=float)
INDPTR = [0, 1, 3, 5, 6]
INDICES = [1, 0, 2, 1, 3, 2]


def _inputs(tmp_path):
    import graphblas as gb
    import networkx as nx

    mtx = tmp_path / "g.mtx"
    scipy.io.mmwrite(mtx, sp.coo_array(DENSE))
    mtx_gz = tmp_path / "g.mtx.gz"
    with open(mtx, "rb") as src, gzip.open(mtx_gz, "wb") as dst:
        shutil.copyfileobj(src, dst)
    G = nx.Graph()
    G.add_weighted_edges_from([(0, 1, 1.0), (1, 2, 2.0), (2, 3, 3.0)])
    return {
        "csr_array": sp.csr_array(DENSE), "csr_matrix": sp.csr_matrix(DENSE),
        "csc": sp.csc_array(DENSE), "coo": sp.coo_matrix(DENSE), "lil": sp.lil_array(DENSE),
        "dia": sp.dia_array(DENSE), "numpy": DENSE, "graphblas": gb.Matrix.from_dense(DENSE, missing_value=0),
        "networkx": G, "mtx": str(mtx), "mtx.gz": mtx_gz,
    }


def test_a_canonical_input_is_not_copied():
    # sorted rows, no duplicates, no diagonal, 32-bit indices: the graph reads the input's
    # own index array; dropping a stored diagonal takes one copy
    A = gg.generators.laplace3d(6, 5, 4)
    off = sp.csr_array(A - sp.diags_array(A.diagonal()))
    off.eliminate_zeros()
    off.indices = off.indices.astype(np.int32)
    G = gg.as_graph(off, weights=False)
    assert np.shares_memory(G.indices, off.indices)
    with_diagonal = sp.csr_array(A)
    with_diagonal.indices = with_diagonal.indices.astype(np.int32)
    H = gg.as_graph(with_diagonal, weights=False)
    assert not np.shares_memory(H.indices, with_diagonal.indices) and H.nnz == G.nnz


@pytest.mark.parametrize("kind", ["csr_array", "csr_matrix", "csc", "coo", "lil", "dia", "numpy",
                                  "graphblas", "networkx", "mtx", "mtx.gz"])
def test_every_input_type_gives_the_same_canonical_graph(tmp_path, kind):
    G = gg.as_graph(_inputs(tmp_path)[kind])
    assert G.n == 4 and G.nnz == 6
    assert G.indptr.tolist() == INDPTR and G.indices.tolist() == INDICES
    assert G.weights.tolist() == [1, 1, 2, 2, 3, 3]


def test_pattern_inputs_have_no_weights(tmp_path):
    assert gg.as_graph(DENSE != 0).weights is None
    assert gg.as_graph(gg.datasets.path("fe_4elt2")).weights is None


def test_unsorted_duplicates_and_explicit_zeros():
    rows, cols = [2, 0, 1, 1, 0, 3, 2, 1], [1, 1, 0, 2, 1, 2, 3, 1]
    A = sp.coo_array(([1.0, 2, 3, 4, 5, 0, 0, 9], (rows, cols)), shape=(4, 4))
    G = gg.as_graph(A)
    assert G.indptr.tolist() == INDPTR and G.indices.tolist() == INDICES
    assert G.weights.tolist() == [7, 3, 4, 1, 0, 0]  # duplicates summed, stored zeros are edges


def test_graph_is_returned_unchanged_and_caches():
    G = gg.as_graph(DENSE)
    assert gg.as_graph(G) is G
    assert G.cached("k", lambda: [1]) is G.cached("k", lambda: [2])


@pytest.mark.parametrize("unsorted", [False, True])
def test_input_is_not_modified(unsorted):
    if unsorted:  # rows out of order, with a duplicate: canonicalisation sorts and sums a copy
        A = sp.csr_array((np.array([1.0, 2, 3, 4, 5]), np.array([2, 1, 1, 0, 0]), np.array([0, 3, 4, 5])), shape=(3, 3))
    else:
        A = sp.coo_array(([1.0, 1, 1, 1], ([1, 0, 0, 0], [0, 1, 1, 0])), shape=(2, 2)).tocsr()
    before = (A.data.copy(), A.indices.copy(), A.indptr.copy())
    gg.as_graph(A)
    for a, b in zip(before, (A.data, A.indices, A.indptr)):
        np.testing.assert_array_equal(a, b)


def test_closed_csr_inserts_the_diagonal():
    indptr, indices = gg.as_graph(DENSE).closed_csr()
    assert indptr.tolist() == [0, 2, 5, 8, 10]
    assert indices.tolist() == [0, 1, 0, 1, 2, 1, 2, 3, 2, 3]


def test_empty_graph():
    G = gg.as_graph(sp.csr_array((0, 0)))
    assert G.n == 0 and G.nnz == 0 and G.indptr.tolist() == [0]


def test_non_square():
    with pytest.raises(ValueError, match=r"must be square, got shape \(3, 4\)"):
        gg.as_graph(np.zeros((3, 4)))


def test_not_two_dimensional():
    with pytest.raises(ValueError, match="2-D"):
        gg.as_graph(np.zeros(3))


def test_asymmetric_pattern_counts_one_way_entries():
    A = np.array([[0, 1, 1], [0, 0, 1], [0, 1, 0]])
    with pytest.raises(gg.InvalidGraphError, match=r"2 of its 4 off-diagonal entries .*gg.symmetrize"):
        gg.as_graph(A)
    with pytest.raises(gg.AsymmetricGraphError) as e:
        gg.as_graph(A, name="M")
    assert (e.value.name, e.value.one_way, e.value.stored) == ("M", 2, 4)
    copy = pickle.loads(pickle.dumps(e.value))
    assert type(copy) is gg.AsymmetricGraphError and str(copy) == str(e.value)


def test_asymmetric_values_are_fine():
    gg.as_graph(np.array([[0, 1.0], [2.0, 0]]))


@pytest.mark.parametrize("bad", [[[0, 1], [1, 0]], "not-a-file.txt", 3, {"a": 1}])
def test_unsupported_types(bad):
    error = ValueError if isinstance(bad, str) else TypeError
    with pytest.raises(error):
        gg.as_graph(bad)


def test_complex_values():
    with pytest.raises(TypeError, match="complex128 values"):
        gg.as_graph(np.eye(2, dtype=complex))


def test_directed_networkx_graph_is_checked():
    import networkx as nx

    with pytest.raises(gg.InvalidGraphError, match="symmetric"):
        gg.as_graph(nx.DiGraph([(0, 1)]))


def test_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.mtx"):
        gg.as_graph(tmp_path / "nope.mtx")


@pytest.mark.parametrize(("name", "content"), [("bad.mtx", b"hello\n"), ("bad.mtx.gz", b"hello\n")])
def test_unreadable_file_is_named(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(gg.InvalidGraphError, match=name):
        gg.as_graph(path)


def _corrupted_gzip(tmp_path, name):
    """A gzip file whose deflate stream starts with a block of the reserved type 3: zlib
    rejects it, whatever the zlib version."""
    data = bytearray(gzip.compress(b"%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n", mtime=0))
    data[10] = 0xFF  # the first deflate byte: BFINAL = 1, BTYPE = 11 (reserved)
    path = tmp_path / name
    path.write_bytes(bytes(data))
    return path


@pytest.mark.parametrize("name", ["corrupted.mtx.gz", "corrupted.MTX.GZ"])
def test_corrupted_gzip_file_is_named(tmp_path, name):
    path = _corrupted_gzip(tmp_path, name)
    with pytest.raises(gg.InvalidGraphError, match=f"cannot read Matrix Market file '.*{name}': .*invalid block type"):
        gg.as_graph(path)


def test_truncated_gzip_file_is_named(tmp_path):
    path = tmp_path / "g.mtx.gz"
    _inputs(tmp_path)
    path.write_bytes(path.read_bytes()[:-12])
    with pytest.raises(gg.InvalidGraphError, match="g.mtx.gz"):
        gg.as_graph(path)


@pytest.mark.parametrize("name", ["G.MTX", "G.Mtx", "G.MTX.GZ", "G.mtx.GZ"])
def test_suffix_in_any_case(tmp_path, name):
    inputs = _inputs(tmp_path)
    source = inputs["mtx.gz"] if name.lower().endswith(".gz") else inputs["mtx"]
    shutil.copyfile(source, tmp_path / name)
    G, expected = gg.as_graph(tmp_path / name), gg.as_graph(source)
    assert (G.n, G.indptr.tolist(), G.indices.tolist(), G.weights.tolist()) == \
        (expected.n, expected.indptr.tolist(), expected.indices.tolist(), expected.weights.tolist())


def test_symmetrize_returns_the_input_container(tmp_path):
    import graphblas as gb
    import networkx as nx

    A = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 1]])
    expected = [[0, 1, 1], [1, 0, 1], [1, 1, 1]]
    assert gg.symmetrize(A).astype(int).tolist() == expected
    assert isinstance(gg.symmetrize(sp.csr_matrix(A)), sp.csr_matrix)
    S = gg.symmetrize(sp.csc_array(A))
    assert isinstance(S, sp.csr_array) and S.toarray().astype(int).tolist() == expected
    Sg = gg.symmetrize(gb.Matrix.from_dense(A, missing_value=0))
    assert isinstance(Sg, gb.Matrix) and Sg.to_dense(fill_value=0).astype(int).tolist() == expected
    D = nx.DiGraph([("a", "b"), ("b", "c")])
    U = gg.symmetrize(D)
    assert isinstance(U, nx.Graph) and not U.is_directed()
    assert sorted(map(sorted, U.edges)) == [["a", "b"], ["b", "c"]]
    gg.as_graph(gg.symmetrize(A))


def _union_by_hand(A, combine):
    """max or sum of A[i, j] and A[j, i] where both are stored, the stored one elsewhere:
    entry by entry, in Python."""
    entries = {}
    coo = sp.coo_array(A)
    for i, j, v in zip(coo.row.tolist(), coo.col.tolist(), coo.data.tolist()):
        entries[i, j] = entries.get((i, j), 0) + v  # duplicates add, as in scipy
    out = {}
    for (i, j), v in entries.items():
        w = entries.get((j, i))
        out[i, j] = v if w is None else combine(v, w)
        out[j, i] = out[i, j]
    return out


@pytest.mark.parametrize("values", ["max", "sum"])
def test_symmetrize_values(values):
    rng = np.random.default_rng(4)
    rows, cols = rng.integers(0, 12, 60), rng.integers(0, 12, 60)  # duplicates, one-way entries, a diagonal
    A = sp.coo_array((rng.uniform(-3, 3, 60), (rows, cols)), shape=(12, 12))
    expected = _union_by_hand(A, max if values == "max" else (lambda a, b: a + b))
    S = gg.symmetrize(A, values=values)
    assert isinstance(S, sp.csr_array) and S.has_sorted_indices
    got = sp.coo_array(S)
    assert {(i, j): v for i, j, v in zip(got.row.tolist(), got.col.tolist(), got.data.tolist())} == \
        pytest.approx(expected)
    assert S.nnz == len(expected)  # entries that sum to zero stay: stored entries are edges
    G = gg.symmetrize(gg.as_graph(A.tocsr() + A.T), values=values)  # a Graph: its weights made symmetric
    W = sp.csr_array((G.weights, G.indices, G.indptr), shape=(12, 12))
    assert (W != W.T).nnz == 0


def test_symmetrize_values_keep_the_container():
    import networkx as nx

    A = np.array([[0.0, 1.0], [5.0, 0.0]])
    assert gg.symmetrize(A, values="max").tolist() == [[0.0, 5.0], [5.0, 0.0]]
    assert gg.symmetrize(sp.csr_matrix(A), values="sum").toarray().tolist() == [[0.0, 6.0], [6.0, 0.0]]
    D = nx.DiGraph()
    D.add_weighted_edges_from([("a", "b", 1.0), ("b", "a", 5.0), ("b", "c", 2.0)])
    U = gg.symmetrize(D, values="max")
    assert isinstance(U, nx.Graph) and dict(U.edges) == {("a", "b"): {"weight": 5.0}, ("b", "c"): {"weight": 2.0}}


def test_symmetrize_values_reject_nan_and_unknown_modes():
    A = np.array([[0.0, np.nan], [np.inf, 0.0]])
    with pytest.raises(ValueError, match="A has 2 NaN or infinite values among its 2 stored entries"):
        gg.symmetrize(A, values="max")
    assert gg.symmetrize(A).tolist() == [[False, True], [True, False]]  # the pattern takes any values
    with pytest.raises(ValueError, match=r"values must be one of \(None, 'max', 'sum'\), got 'mean'"):
        gg.symmetrize(A, values="mean")


def test_partly_weighted_networkx_graph_keeps_its_weights():
    import networkx as nx

    G = nx.Graph()
    G.add_edge(0, 1, weight=4.0)
    G.add_edge(1, 2)  # no weight: networkx reads 1
    assert gg.as_graph(G).weights.tolist() == [4.0, 4.0, 1.0, 1.0]


def test_symmetrize_takes_a_graph():
    A = sp.csr_array(DENSE)
    G = gg.as_graph(A)
    S = gg.symmetrize(G)
    assert isinstance(S, gg.Graph) and S.weights is None
    assert (S.n, S.indptr.tolist(), S.indices.tolist()) == (4, INDPTR, INDICES)
    assert gg.symmetrize(S) is S
    np.testing.assert_array_equal(gg.mis2(S).vertices, gg.mis2(A).vertices)


def test_empty_networkx_graph():
    import networkx as nx

    G = gg.as_graph(nx.Graph())
    assert (G.n, G.nnz, G.weights, G.container) == (0, 0, None, "networkx")
    assert gg.mis2(nx.Graph()).vertices == set() and gg.color(nx.Graph()).colors == {}
    S = gg.symmetrize(nx.Graph())
    assert isinstance(S, nx.Graph) and S.number_of_nodes() == 0


@pytest.mark.parametrize("values", [np.array([[0, 1], [1, 0]], dtype=object), np.array([["", "x"], ["x", ""]])])
def test_object_and_string_arrays_are_unsupported_types(values):
    with pytest.raises(gg.UnsupportedGraphTypeError, match=f"A has {values.dtype} values; expected boolean"):
        gg.as_graph(values)
    with pytest.raises(gg.UnsupportedGraphTypeError, match=f"{values.dtype} values"):
        gg.mis2(values)


def test_symmetrize_non_square():
    with pytest.raises(ValueError, match="must be square"):
        gg.symmetrize(np.zeros((2, 3)))


# Arrays scipy trusts: before gbgraph checked them, each of these crashed the process or
# corrupted its heap. Each runs in its own interpreter, so that a crash fails the test
# instead of ending the run.
_BAD_ARRAYS = {
    "column index >= n": ("sp.csr_array((np.ones(2), np.array([1, 1000]), np.array([0, 1, 2])), shape=(2, 2))",
                          "column index 1000 in row 1; it must lie in 0..1"),
    "negative column index": ("sp.csr_array((np.ones(2), np.array([1, -10**8]), np.array([0, 1, 2])), shape=(2, 2))",
                              "column index -100000000 in row 1"),
    "one-based CSR": ("sp.csr_array((np.ones(2), np.array([2, 1]), np.array([0, 1, 2])), shape=(2, 2))",
                      "column index 2 in row 0"),
    "CSC row index": ("sp.csc_array((np.ones(2), np.array([1, 5]), np.array([0, 1, 2])), shape=(2, 2))",
                      "row index 5 in column 1"),
    "decreasing indptr": ("sp.csr_array((np.ones(2), np.array([1, 0]), np.array([0, 2, 1])), shape=(2, 2))",
                          "indptr decreases at row 1"),
    "indptr beyond indices": ("(lambda A: (A.indptr.__setitem__(2, 5), A)[1])("
                              "sp.csr_array((np.ones(2), np.array([1, 0]), np.array([0, 1, 2])), shape=(2, 2)))",
                              "indptr ends at 5"),
}
_CALLS = {
    "mis2": "gg.mis2(A)", "as_graph": "gg.as_graph(A)", "color": "gg.color(A)",
    "gauss_seidel": "gg.solvers.multicolor_gauss_seidel(A + 4 * sp.eye_array(2, format='csr'))",
    "amg": "gg.amg.smoothed_aggregation_solver(A)",
}


@pytest.mark.parametrize("call", _CALLS)
@pytest.mark.parametrize("case", _BAD_ARRAYS)
def test_bad_index_arrays_raise_instead_of_crashing(case, call):
    import subprocess
    import sys

    build, message = _BAD_ARRAYS[case]
    if call == "gauss_seidel" and "indptr" in case:
        pytest.skip("scipy's own sum with the identity validates indptr first")
    script = (f"import numpy as np, scipy.sparse as sp, gbgraph as gg\nA = {build}\n"
              f"try:\n    {_CALLS[call]}\nexcept ValueError as e:\n    print(e)\nelse:\n    print('no error')\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, f"exit {done.returncode}: {done.stderr[-2000:]}"
    assert message in done.stdout


# The CPU's pass over the rows (kernels/canonical.py's scan_rows), serial and in parallel
# parts, against scipy: the one-way entries (P != Pᵀ holds each twice), the stored diagonal
# (the entries with row == column) and the rows without it.
def _random_pattern(n, seed, diagonal, symmetric):
    rng = np.random.default_rng(seed)
    A = sp.random_array((n, n), density=min(1.0, 8 / n), rng=rng, format="csr")
    if symmetric:
        A = A + A.T
    A = sp.coo_array(A)
    off = A.row != A.col
    rows, cols, vals = A.row[off], A.col[off], A.data[off]
    ids = {"none": np.zeros(0, int), "all": np.arange(n), "some": rng.choice(n, n // 3, replace=False),
           "first and last": np.array([0, n - 1])}[diagonal]
    rows, cols, vals = np.concatenate((rows, ids)), np.concatenate((cols, ids)), np.concatenate((vals, ids + 1.0))
    return sp.csr_array((vals, (rows, cols)), shape=(n, n))  # sorted rows, no duplicates


def _without_diagonal(A):
    """The entries of A with row != column (duplicates summed, rows sorted), by scipy."""
    coo = sp.coo_array(A)
    off = coo.row != coo.col
    S = sp.csr_array((coo.data[off], (coo.row[off], coo.col[off])), shape=A.shape)
    S.sum_duplicates()
    return S


@pytest.fixture(params=["serial", "parallel"])
def row_passes(request, monkeypatch):
    """The pass over the rows as the serial twin, or as a parallel region of two parts."""
    from gbgraph.backends.numba.kernels import threads

    if request.param == "parallel":
        if numba.config.NUMBA_NUM_THREADS < 2:
            pytest.skip("needs two numba threads")
        monkeypatch.setattr(threads, "PARALLEL_WORK", 0)
        before = gg.backends.set_threads(2)
        yield
        gg.backends.set_threads(before)
    else:
        yield


@pytest.mark.parametrize("diagonal", ["none", "all", "some", "first and last"])
@pytest.mark.parametrize("n", [1, 2, 7, 9000])
def test_rows_without_their_diagonal_match_scipy(row_passes, n, diagonal):
    A = _random_pattern(n, n, diagonal, symmetric=True)
    coo = sp.coo_array(A)
    stored = coo.row == coo.col
    off = _without_diagonal(A)
    G = gg.as_graph(A)
    assert G.indptr.dtype == np.int64 and G.indices.dtype == np.int32 and G.weights.dtype == np.float64
    np.testing.assert_array_equal(G.indptr, off.indptr)
    np.testing.assert_array_equal(G.indices, off.indices)
    np.testing.assert_array_equal(G.weights, off.data)
    closed = G.input_closed_csr()
    assert (closed is not None) == (np.count_nonzero(stored) == n)
    if closed is not None:
        np.testing.assert_array_equal(closed[0], A.indptr)
        np.testing.assert_array_equal(closed[1], A.indices)
    P = gg.as_graph(A, weights=False)
    assert P.weights is None and np.array_equal(P.indices, off.indices)


@pytest.mark.parametrize("diagonal", ["none", "all", "some"])
@pytest.mark.parametrize("seed", range(4))
def test_one_way_entries_match_scipy(row_passes, seed, diagonal):
    A = _random_pattern(9000, seed, diagonal, symmetric=False)
    if seed % 2:  # a few one-way entries in a symmetric pattern
        S = sp.coo_array(_random_pattern(9000, seed, diagonal, symmetric=True))
        keep = np.ones(S.nnz, bool)
        keep[np.flatnonzero(S.row != S.col)[::997]] = False
        A = sp.csr_array((S.data[keep], (S.row[keep], S.col[keep])), shape=S.shape)
    if seed == 2:  # as many upper entries as lower ones, one of each without its transpose
        S = _random_pattern(9000, seed, diagonal, symmetric=True).tolil()
        S[10, 8000], S[8500, 20] = 1.0, 1.0
        A = sp.csr_array(S)
    P = sp.csr_array(A.astype(bool))
    P.setdiag(False)
    P.eliminate_zeros()
    one_way = (P != P.T).nnz // 2
    assert one_way > 0
    with pytest.raises(gg.AsymmetricGraphError) as e:
        gg.as_graph(A)
    assert (e.value.one_way, e.value.stored) == (one_way, P.nnz)


def test_unsorted_rows_with_duplicates_in_parallel_parts(row_passes):
    A = _random_pattern(9000, 5, "some", symmetric=True)
    coo = sp.coo_array(A)
    order = np.random.default_rng(5).permutation(coo.nnz)
    order = np.concatenate((order, order[:50]))  # 50 entries twice: their values add
    rows, cols, vals = coo.row[order], coo.col[order], coo.data[order]
    by_row = np.argsort(rows, kind="stable")
    indptr = np.concatenate(([0], np.cumsum(np.bincount(rows, minlength=9000))))
    U = sp.csr_array((vals[by_row], cols[by_row], indptr), shape=A.shape)
    assert not U.has_sorted_indices
    expected = _without_diagonal(U)
    G = gg.as_graph(U)
    np.testing.assert_array_equal(G.indptr, expected.indptr)
    np.testing.assert_array_equal(G.indices, expected.indices)
    np.testing.assert_array_equal(G.weights, expected.data)


# A row whose lower entries are all matched and that stores nothing from the looking row on:
# its cursor then rests on the next row's first entry (or past the last row), which must not
# count as a match. Rows 0: [3], 1: [3, 4], 2: [0], 3: [0], 4: [1]: (1, 3) would match row 4's
# entry 1, and as many upper entries (3) as lower ones would pass a count.
_PAST_THE_END = {"next row": ([0, 1, 3, 4, 5, 6], [3, 3, 4, 0, 0, 1], 2),
                 "last row": ([0, 1, 2, 3], [2, 2, 0], 1)}


@pytest.mark.parametrize("case", sorted(_PAST_THE_END))
def test_a_match_past_a_rows_end_is_none(row_passes, case):
    indptr, indices, one_way = _PAST_THE_END[case]
    n = len(indptr) - 1
    A = sp.csr_array((np.ones(len(indices)), np.array(indices), np.array(indptr)), shape=(n, n))
    assert (A != A.T).nnz == 2 * one_way
    with pytest.raises(gg.AsymmetricGraphError) as e:
        gg.as_graph(A)
    assert e.value.one_way == one_way


@pytest.mark.parametrize("row", [0, 4095, 4096, 4097, 8999])
def test_rows_out_of_order_anywhere_are_sorted(row_passes, row):
    """Order is checked a chunk of rows at a time (descents within rows, those from one row's
    last entry to the next row's first left out): a descent at the chunks' edges, or after
    empty rows, is found; sorted rows with empty ones between pass unsorted."""
    from gbgraph.backends.numba.kernels import canonical

    A = _random_pattern(9000, 11, "none", symmetric=True).tolil()
    for r in range(row - 3, row):  # empty rows just before ``row``: their columns go
        if r >= 0:
            for c in list(A.rows[r]):
                A[r, c] = A[c, r] = 0
    A = sp.csr_array(A)
    A.eliminate_zeros()
    assert not canonical.scan_rows(A.indptr, A.indices, None, False)[1]
    start, end = A.indptr[row], A.indptr[row + 1]
    assert end - start >= 2
    U = A.copy()
    U.indices[start:end] = U.indices[start:end][::-1].copy()
    U.data[start:end] = U.data[start:end][::-1].copy()
    U.has_sorted_indices = False
    assert canonical.scan_rows(U.indptr, U.indices, None, False)[1]
    G, expected = gg.as_graph(U), _without_diagonal(A)
    np.testing.assert_array_equal(G.indptr, expected.indptr)
    np.testing.assert_array_equal(G.indices, expected.indices)
    np.testing.assert_array_equal(G.weights, expected.data)


@pytest.mark.parametrize(("position", "value"), [(0, 9000), (-1, -1), (60000, 123456)])
def test_a_bad_column_in_any_row_is_named(row_passes, position, value):
    A = _random_pattern(9000, 3, "all", symmetric=True)
    A.indices = A.indices.copy()
    p = position % A.nnz
    A.indices[p] = value
    row = int(np.searchsorted(A.indptr, p, side="right")) - 1
    with pytest.raises(gg.InvalidGraphError, match=rf"^A has column index {value} in row {row}; it must lie in 0\.\.8999$"):
        gg.as_graph(A)


def _closed_pattern(M):
    """scipy's pattern of M + I, rows sorted: the independent reference for A + I."""
    n = M.shape[0]
    P = (sp.csr_array(M, dtype=bool) + sp.eye_array(n, dtype=bool, format="csr")).tocsr()
    P.sort_indices()
    return P.indptr, P.indices


@pytest.mark.parametrize("diagonal", ["none", "every", "some"])
@pytest.mark.parametrize("unsorted", [False, True])
def test_as_graph_closed_makes_a_plus_i_in_its_pass(diagonal, unsorted):
    """as_graph(closed=True) keeps A + I made while it checks the rows; whatever the input
    stores on its diagonal, or in whatever order, closed_csr is scipy's pattern of A + I."""
    rng = np.random.default_rng(11)
    n = 400
    M = sp.random(n, n, density=0.02, random_state=5, format="csr")
    M = sp.csr_array(sp.triu(M, 1) + sp.triu(M, 1).T)
    if diagonal == "every":
        M = M + sp.eye_array(n, format="csr")
    elif diagonal == "some":
        M = M + sp.diags_array((rng.random(n) < 0.5).astype(float), format="csr")
    M = sp.csr_array(M)
    if unsorted:
        for i in range(n):
            a, b = M.indptr[i], M.indptr[i + 1]
            M.indices[a:b], M.data[a:b] = M.indices[a:b][::-1].copy(), M.data[a:b][::-1].copy()
        M.has_sorted_indices = False
    G = gg.as_graph(M, weights=False, closed=True)
    indptr, indices = G.closed_csr()
    expected_indptr, expected_indices = _closed_pattern(M)
    np.testing.assert_array_equal(indptr, expected_indptr)
    np.testing.assert_array_equal(indices, expected_indices)
    plain = gg.as_graph(M, weights=False)
    np.testing.assert_array_equal(G.indptr, plain.indptr)
    np.testing.assert_array_equal(G.indices, plain.indices)


def test_as_graph_closed_on_a_large_graph_in_parallel():
    """Above the parallel threshold the pass runs in parts, each row's slots its own."""
    A = gg.generators.laplace3d(70)  # 2.4M entries: three times that is the pass's work
    A = sp.csr_array(A - sp.diags_array(A.diagonal(), format="csr"))
    A.eliminate_zeros()
    G = gg.as_graph(A, weights=False, closed=True)
    assert G.input_closed_csr() is not None
    indptr, indices = G.closed_csr()
    expected_indptr, expected_indices = _closed_pattern(A)
    np.testing.assert_array_equal(indptr, expected_indptr)
    np.testing.assert_array_equal(indices, expected_indices)

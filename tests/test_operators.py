"""User-defined operators (gbgraph.backends.operators) on every CPU backend, against
independent results: numpy written out here, python-graphblas' own user-defined operators
and named semirings, networkx's greedy coloring. Values and dtypes are checked.

BACKENDS lists the backends the operator tests run on; the GPU and mpi suites add theirs
(``pytest.param("cupy", marks=pytest.mark.gpu)``).
"""

import inspect
import os
import pathlib
import subprocess
import sys

import graphblas as gb
import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.backends.numba.kernels import threads
from gbgraph.operators import BinaryOp, IndexUnaryOp, Monoid, RowOperator, Semiring, UnaryOp, local

BACKENDS = [pytest.param("suitesparse"), pytest.param("numba")]
ROOT = pathlib.Path(__file__).resolve().parents[1]
ALL = np.uint64(0xFFFFFFFFFFFFFFFF)


# ---- operators (module-level functions in restricted Python) ---------------------------

def square_plus_one(x):
    return x * x + 1


def minus_twice(x, y):
    return x - 2 * y


def absdiff(x, y):
    return x - y if x > y else y - x


def umin(x, y):
    return min(x, y)


def uplus(x, y):
    return x + y


def shifted(x, y):
    return x << y


def weighted(a, u):
    return np.uint64(a * 10.0) + u


def position_code(x, i, j, t):
    return i * 100 + j * t + x


def every_third_zero(x, i, j, t):
    """Zero at every third position, x * t elsewhere (NaN where x is NaN)."""
    return x * t * (i % 3)


def above_in_rank(x, i, j, rank, key):
    """Jet's select: (rank, key)(j) > (rank, key)(i)."""
    return rank[j] > rank[i] or rank[j] == rank[i] and key[j] > key[i]


def first_free(i, start, stop, cols, vals, colors):
    """The smallest color below LIMIT that no neighbour has (-1: uncolored)."""
    seen = local(LIMIT, np.bool_)  # noqa: F821
    for p in range(start, stop):
        c = colors[cols[p]]
        if c >= 0 and c < LIMIT:  # noqa: F821
            seen[c] = True
    c = 0
    while c < LIMIT and seen[c]:  # noqa: F821
        c += 1
    return c, c < LIMIT  # noqa: F821


def heaviest(i, start, stop, cols, vals, w):
    """The largest weight times w over the row, present when above w(i)."""
    best = w[i]
    for p in range(start, stop):
        best = max(best, vals[p] * w[cols[p]])
    return best, best > w[i]


def _clamp(x):
    return min(max(x, 0), 9)


def clamped_degree(i, start, stop, cols, vals, shift):
    return _clamp(stop - start - shift[i]), True


# ---- restricted-Python violations ----------------------------------------------------

def calls_a_module(x):
    return inspect.isclass(x)


def makes_a_list(x):
    y = [x, x]
    return y


def raises_to_a_power(x, y):
    return x ** y


def writes_an_argument(i, start, stop, cols, vals, v):
    v[i] = 0
    return 1, True


def reads_a_global(x):
    return x + ALL


def returns_no_pair(i, start, stop, cols, vals):
    return stop - start


def loops_over_a_list(x):
    for k in [1, 2]:
        x += k
    return x


def _stamp():
    return 0


def calls_an_unlisted_helper(x):
    return x + _stamp()


# ---- helpers -------------------------------------------------------------------------

def _graph(n=40, density=0.15, seed=3, weighted=False):
    A = sp.random(n, n, density, random_state=seed, format="csr")
    A = (A + A.T).tocsr()
    A.setdiag(0)
    A.eliminate_zeros()
    A.sort_indices()
    return A if weighted else (A != 0).astype(bool).tocsr()


def _matrix(be, A, pattern=False):
    return be.matrix(A.indptr.astype(np.int64), A.indices.astype(np.int64), ncols=A.shape[1],
                     values=None if pattern else A.data.copy())


def _sparse_vector(be, n, seed, dtype, density=0.5):
    rng = np.random.default_rng(seed)
    indices = np.flatnonzero(rng.random(n) < density).astype(np.int64)
    values = rng.integers(0, 50, indices.size).astype(dtype)
    return be.vector(indices, values, n), indices, values


def _tuples(be, x):
    return be.extract_tuples(x)


@pytest.fixture(params=BACKENDS)
def be(request):
    return gg.backend(request.param)


@pytest.fixture(params=["serial", "parallel"])
def twin(request, monkeypatch):
    """Run the kernels' serial twins, or their parallel regions (a threshold of 0 entries)."""
    if request.param == "parallel":
        monkeypatch.setattr(threads, "PARALLEL_WORK", 0)
    return request.param


# ---- scalar operators ----------------------------------------------------------------

def test_unary_apply_is_numpy_written_out(be, twin):
    u, indices, values = _sparse_vector(be, 30, 1, np.int32)
    w = be.apply(UnaryOp(square_plus_one), u)
    got_i, got_v = _tuples(be, w)
    expected = values.astype(np.int64) * values.astype(np.int64) + 1  # numba: int32 * int32 is int64
    assert np.array_equal(got_i, indices) and got_v.dtype == np.int64 and np.array_equal(got_v, expected)


def test_unary_apply_equals_python_graphblas_udf(be):
    u, indices, values = _sparse_vector(be, 30, 2, np.float64)
    expected = gb.Vector.from_coo(indices, values, size=30).apply(gb.unary.register_anonymous(square_plus_one)).new()
    got_i, got_v = _tuples(be, be.apply(UnaryOp(square_plus_one), u))
    exp_i, exp_v = expected.to_coo()
    assert np.array_equal(got_i, exp_i) and got_v.dtype == exp_v.dtype == np.float64
    assert np.array_equal(got_v, exp_v)


def test_bound_binary_apply_types_by_numba(be):
    u, indices, values = _sparse_vector(be, 20, 3, np.float32)
    _, right = _tuples(be, be.apply(BinaryOp(minus_twice), u, right=3))
    _, left = _tuples(be, be.apply(BinaryOp(absdiff), u, left=np.float32(20.5)))
    # numba's types: float32 with an int64 (the literal 2, the Python int 3) is float64;
    # float32 with float32 stays float32
    assert right.dtype == np.float64 and np.array_equal(right, values.astype(np.float64) - 6.0)
    assert left.dtype == np.float32 and np.array_equal(left, np.abs(np.float32(20.5) - values))


def test_ewise_with_a_binary_op_equals_python_graphblas(be):
    u, ui, uv = _sparse_vector(be, 40, 4, np.int64)
    v, vi, vv = _sparse_vector(be, 40, 5, np.int64)
    op = gb.binary.register_anonymous(absdiff)
    gu, gv = gb.Vector.from_coo(ui, uv, size=40), gb.Vector.from_coo(vi, vv, size=40)
    for verb, expected in (("ewise_add", gu.ewise_add(gv, op).new()), ("ewise_mult", gu.ewise_mult(gv, op).new())):
        got_i, got_v = _tuples(be, getattr(be, verb)(BinaryOp(absdiff), u, v))
        exp_i, exp_v = expected.to_coo()
        assert np.array_equal(got_i, exp_i) and got_v.dtype == np.int64 and np.array_equal(got_v, exp_v), verb


def test_ewise_on_matrices_and_a_mask(be):
    A, B = _graph(seed=1, weighted=True), _graph(seed=2, weighted=True)
    mask, _, _ = _sparse_vector(be, 40, 6, bool)
    C = be.ewise_mult(BinaryOp(absdiff), _matrix(be, A), _matrix(be, B))
    rows, cols, values = _tuples(be, C)
    both = A.multiply(B != 0).tocoo()
    expected = {(i, j): abs(A[i, j] - B[i, j]) for i, j in zip(both.row, both.col)}
    assert values.dtype == np.float64 and {(i, j): v for i, j, v in zip(rows, cols, values)} == expected
    u, ui, uv = _sparse_vector(be, 40, 7, np.int64)
    w = be.apply(UnaryOp(square_plus_one), u, mask=mask, complement=True)
    kept = ~np.isin(ui, be.indices(mask))
    assert np.array_equal(be.indices(w), ui[kept]) and np.array_equal(be.values(w), uv[kept] ** 2 + 1)


# ---- monoids and semirings --------------------------------------------------------------

def test_monoid_reductions_over_packed_keys(be, twin):
    A = _graph(seed=4)
    rng = np.random.default_rng(0)
    keys = rng.integers(0, 2**63, A.nnz, dtype=np.int64).astype(np.uint64) << np.uint64(1)
    M = be.matrix(A.indptr.astype(np.int64), A.indices.astype(np.int64), values=keys)
    monoid = Monoid(umin, ALL)
    assert be.reduce(M, monoid) == keys.min() and be.reduce(M, monoid).dtype == np.uint64
    rows, values = _tuples(be, be.reduce_rows(M, monoid))
    nonempty = np.flatnonzero(np.diff(A.indptr))
    expected = [keys[A.indptr[i]:A.indptr[i + 1]].min() for i in nonempty]
    assert np.array_equal(rows, nonempty) and values.dtype == np.uint64 and np.array_equal(values, expected)
    G = gb.Matrix.from_csr(A.indptr, A.indices, keys, ncols=40)
    cols, values = _tuples(be, be.reduce_cols(M, monoid))
    exp_i, exp_v = G.reduce_columnwise(gb.monoid.min).new().to_coo()
    assert np.array_equal(cols, exp_i) and np.array_equal(values, exp_v)
    assert be.reduce(be.vector(np.empty(0, np.int64), np.empty(0, np.uint64), 5), monoid) is None


def test_monoid_ewise_add_casts_to_its_dtype(be):
    u, ui, uv = _sparse_vector(be, 30, 8, np.int64)
    v, vi, vv = _sparse_vector(be, 30, 9, np.uint64)
    i, values = _tuples(be, be.ewise_add(Monoid(umin, ALL), u, v))
    dense = np.full(30, ALL)
    dense[ui] = uv.astype(np.uint64)
    dense[vi] = np.minimum(dense[vi], vv)
    assert np.array_equal(i, np.union1d(ui, vi)) and values.dtype == np.uint64 and np.array_equal(values, dense[i])


def test_semiring_of_a_user_monoid_equals_min_second(be, twin):
    A = _graph(seed=5)
    u, ui, uv = _sparse_vector(be, 40, 10, np.uint64)
    mask, _, _ = _sparse_vector(be, 40, 11, bool)
    semiring = Semiring(Monoid(umin, ALL), "second")
    G, gu, gmask = gb.io.from_scipy_sparse(A), gb.Vector.from_coo(ui, uv, size=40), gb.Vector.from_coo(
        be.indices(mask), True, size=40)
    for kind, got, expected in (
            ("mxv", be.mxv(semiring, _matrix(be, A, pattern=True), u),
             G.mxv(gu, gb.semiring.min_second).new()),
            ("mxv masked", be.mxv(semiring, _matrix(be, A, pattern=True), u, mask=mask),
             G.mxv(gu, gb.semiring.min_second).new(mask=gmask.S)),
            ("vxm", be.vxm(Semiring(Monoid(umin, ALL), "first"), u, _matrix(be, A, pattern=True)),
             gu.vxm(G, gb.semiring.min_first).new())):
        got_i, got_v = _tuples(be, got)
        exp_i, exp_v = expected.to_coo()
        assert np.array_equal(got_i, exp_i) and got_v.dtype == np.uint64 and np.array_equal(got_v, exp_v), kind


def fmax(x, y):
    return x if x > y else y


def test_a_monoid_with_an_infinite_identity_equals_max_times(be):
    A = _graph(seed=6)
    u, ui, uv = _sparse_vector(be, 40, 12, np.float64)
    monoid = Monoid(fmax, -np.inf, name="fmax")
    G, gu = gb.io.from_scipy_sparse(A), gb.Vector.from_coo(ui, uv, size=40)
    got_i, got_v = _tuples(be, be.mxv(Semiring(monoid, "times"), _matrix(be, A), u))
    exp_i, exp_v = G.mxv(gu, gb.semiring.max_times).new().to_coo()
    assert np.array_equal(got_i, exp_i) and np.array_equal(got_v, exp_v)
    assert be.reduce(u, monoid) == uv.max()


def test_semiring_of_a_user_multiply_equals_scipy(be):
    A = _graph(seed=6, weighted=True)
    u = np.arange(40, dtype=np.uint64) * np.uint64(3)
    semiring = Semiring(Monoid(uplus, np.uint64(0)), BinaryOp(weighted))
    w = be.mxv(semiring, _matrix(be, A), be.full(40, u, "uint64"))
    rows, values = _tuples(be, w)
    terms = sp.csr_matrix(((A.data * 10.0).astype(np.uint64) + u[A.indices], A.indices, A.indptr), shape=A.shape)
    nonempty = np.flatnonzero(np.diff(A.indptr))
    assert np.array_equal(rows, nonempty) and values.dtype == np.uint64
    assert np.array_equal(values, np.asarray(terms.sum(axis=1, dtype=np.uint64)).ravel()[nonempty])


def test_mxm_with_a_user_semiring_equals_scipy(be):
    A, B = _graph(n=30, seed=13, weighted=True), _graph(n=30, seed=14, weighted=True)
    a_keys = (A.data * 1000).astype(np.uint64)
    b_keys = (B.data * 1000).astype(np.uint64)
    Ma = be.matrix(A.indptr.astype(np.int64), A.indices.astype(np.int64), values=a_keys)
    Mb = be.matrix(B.indptr.astype(np.int64), B.indices.astype(np.int64), values=b_keys)
    rows, cols, values = _tuples(be, be.mxm(Semiring(Monoid(uplus, np.uint64(0)), "times"), Ma, Mb))
    expected = (sp.csr_matrix((a_keys, A.indices, A.indptr)) @ sp.csr_matrix((b_keys, B.indices, B.indptr))).tocoo()
    assert values.dtype == np.uint64
    assert dict(zip(zip(rows.tolist(), cols.tolist()), values.tolist())) == \
        dict(zip(zip(expected.row.tolist(), expected.col.tolist()), expected.data.tolist()))
    rows, cols, values = _tuples(be, be.mxm(Semiring(Monoid(umin, ALL), "second"), Ma, Ma, transpose_b=True))
    G = gb.Matrix.from_csr(A.indptr, A.indices, a_keys, ncols=30)
    exp_r, exp_c, exp_v = G.mxm(G.T, gb.semiring.min_second).new().to_coo()
    assert np.array_equal(rows, exp_r) and np.array_equal(cols, exp_c) and np.array_equal(values, exp_v)


# ---- index-unary operators -------------------------------------------------------------

def test_apply_index_is_numpy_written_out(be):
    A = _graph(seed=7, weighted=True)
    rows, cols, values = _tuples(be, be.apply_index(IndexUnaryOp(position_code), _matrix(be, A), 7))
    coo = A.tocoo()
    expected = {(i, j): i * 100 + j * 7 + x for i, j, x in zip(coo.row, coo.col, coo.data)}
    assert values.dtype == np.float64 and {(i, j): v for i, j, v in zip(rows, cols, values)} == expected
    u, ui, uv = _sparse_vector(be, 30, 12, np.int32)
    indices, values = _tuples(be, be.apply_index(IndexUnaryOp(position_code), u, 7))
    assert values.dtype == np.int64 and np.array_equal(values, ui * 100 + uv)  # j = 0 for a vector


def test_select_reads_vectors_at_i_and_j(be, twin):
    A = _graph(seed=8)
    rng = np.random.default_rng(1)
    rank, key = rng.integers(0, 4, 40), rng.permutation(40).astype(np.uint32)
    kept = be.select(IndexUnaryOp(above_in_rank), _matrix(be, A, pattern=True),
                     (be.full(40, rank, "int64"), be.full(40, key, "uint32")))
    rows, cols, values = _tuples(be, kept)
    coo = A.tocoo()
    above = (rank[coo.col] > rank[coo.row]) | (rank[coo.col] == rank[coo.row]) & (key[coo.col] > key[coo.row])
    assert set(zip(rows, cols)) == set(zip(coo.row[above], coo.col[above])) and values.dtype == bool


@pytest.mark.parametrize("n", [50, 40000])  # one chunk of the numba kernel, and three
def test_vector_select_keeps_the_nonzero_results(be, twin, n):
    """A vector's select keeps the entries where the operator's result (here a float) is
    nonzero, NaN included, on a full vector, a sparse one and under a mask."""
    rng = np.random.default_rng(3)
    x = rng.integers(-2, 3, n).astype(np.float64)
    x[rng.random(n) < 0.1] = np.nan
    op = IndexUnaryOp(every_third_zero)
    at = np.flatnonzero(rng.random(n) < 0.6)
    for u, positions in ((be.full(n, x, "float64"), np.arange(n)), (be.vector(at, x[at], n), at)):
        result = x[positions] * 2.0 * (positions % 3)
        expected = positions[result != 0]  # NaN != 0
        indices, values = _tuples(be, be.select(op, u, 2.0))
        assert np.array_equal(indices, expected) and values.dtype == np.float64
        np.testing.assert_array_equal(values, x[expected])
        mask = be.vector(np.arange(0, n, 2), True, n)
        indices, _ = _tuples(be, be.select(op, u, 2.0, mask=mask))
        assert np.array_equal(indices, expected[expected % 2 == 0])
    assert _tuples(be, be.select(op, be.full(n, 0.0, "float64"), 2.0))[0].size == 0


def test_vector_thunks_must_be_full(be):
    A = _matrix(be, _graph(seed=8), pattern=True)
    partial = be.vector(np.array([0, 3]), np.array([1, 2]), 40)
    with pytest.raises(ValueError, match="must be full"):
        be.select(IndexUnaryOp(above_in_rank), A, (partial, be.full(40, 0, "int64")))
    with pytest.raises(ValueError, match="size 40"):
        be.select(IndexUnaryOp(above_in_rank), A, (be.full(39, 0, "int64"), be.full(40, 0, "int64")))


# ---- row operators ---------------------------------------------------------------------

def test_row_operator_is_numpy_written_out(be, twin):
    A = _graph(n=60, seed=9)
    colors = np.random.default_rng(2).integers(-1, 6, 60)
    present = np.flatnonzero(colors >= 0)
    v = be.vector(present, colors[present], 60)  # absent entries: the fill, -1
    mask, mask_rows, _ = _sparse_vector(be, 60, 13, bool)
    op = RowOperator(first_free, fill=-1, constants={"LIMIT": 4})
    for complement in (None, False, True):
        kwargs = {} if complement is None else dict(mask=mask, complement=complement)
        rows, values = _tuples(be, be.mxv(op, _matrix(be, A, pattern=True), v, **kwargs))
        expected = {}
        for i in range(60):
            if complement is not None and (i in mask_rows) == complement:
                continue
            taken = {colors[j] for j in A.indices[A.indptr[i]:A.indptr[i + 1]]}
            c = 0
            while c < 4 and c in taken:
                c += 1
            if c < 4:  # LIMIT: a row whose 4 colors are all taken has no entry
                expected[i] = c
        assert values.dtype == np.int64 and dict(zip(rows.tolist(), values.tolist())) == expected, complement


def test_row_operator_values_and_helpers(be, twin):
    A = _graph(n=50, seed=10, weighted=True)
    w = np.random.default_rng(3).random(50)
    rows, values = _tuples(be, be.mxv(RowOperator(heaviest, fill=None), _matrix(be, A), be.full(50, w, "float64")))
    expected = {}
    for i in range(50):
        row = slice(A.indptr[i], A.indptr[i + 1])
        best = max([w[i]] + list(A.data[row] * w[A.indices[row]]))
        if best > w[i]:
            expected[i] = best
    assert values.dtype == np.float64 and dict(zip(rows.tolist(), values.tolist())) == expected
    shift = np.arange(50) % 3
    op = RowOperator(clamped_degree, fill=None, helpers=(_clamp,))
    rows, values = _tuples(be, be.mxv(op, _matrix(be, A, pattern=True), be.full(50, shift, "int64")))
    assert np.array_equal(rows, np.arange(50)) and values.dtype == np.int64
    assert np.array_equal(values, np.clip(np.diff(A.indptr) - shift, 0, 9))


def test_ordered_row_operator_is_networkx_greedy_coloring(be):
    A = _graph(n=80, density=0.08, seed=11)
    priority = np.random.default_rng(4).integers(0, 10, 80)  # ties: lower index first
    colors = be.mxv(RowOperator(first_free, fill=-1, constants={"LIMIT": 64}), _matrix(be, A, pattern=True),
                    be.vector(np.empty(0, np.int64), np.empty(0, np.int64), 80), order=be.full(80, priority, "int64"))
    rows, values = _tuples(be, colors)
    G = nx.from_scipy_sparse_array(A)
    by_priority = sorted(range(80), key=lambda i: (-priority[i], i))
    expected = nx.greedy_color(G, strategy=lambda graph, colors: iter(by_priority))
    assert np.array_equal(rows, np.arange(80)) and dict(zip(rows.tolist(), values.tolist())) == expected
    assert all(values[i] != values[j] for i, j in G.edges)


def test_ordered_row_operator_under_a_mask(be):
    A = _graph(n=30, density=0.2, seed=12)
    mask = be.vector(np.arange(0, 30, 2), True, 30)
    colors = be.mxv(RowOperator(first_free, fill=-1, constants={"LIMIT": 64}), _matrix(be, A, pattern=True),
                    be.full(30, -1, "int64"), mask=mask, order=be.vector(np.arange(0, 30, 2), np.arange(15), 30))
    rows, values = _tuples(be, colors)
    G = nx.from_scipy_sparse_array(A).subgraph(range(0, 30, 2))
    expected = nx.greedy_color(G, strategy=lambda graph, colors: iter(range(28, -1, -2)))
    assert np.array_equal(rows, np.arange(0, 30, 2)) and dict(zip(rows.tolist(), values.tolist())) == expected


def free_bit(i, start, stop, cols, vals, words):
    word = np.uint64(0)
    for p in range(start, stop):
        word |= words[cols[p]]
    free = ~word
    if free == np.uint64(0):
        return np.uint64(0), False
    return free & (~free + np.uint64(1)), True


def deeper(i, start, stop, cols, vals, best, level):
    d = level[i]
    for p in range(start, stop):
        d = max(d, best[cols[p]] + 1)
    return d, d % 5 != 3  # some rows give no value, and push nothing


def weighted_mean(i, start, stop, cols, vals, x):
    total = 0.0
    for p in range(start, stop):
        total += vals[p] * x[cols[p]]
    return total / (stop - start + 1) + 0.25, stop > start


def _swept(func, A, vectors, rows, order, combine):
    """The ordered sweep that pushes, in plain Python: rows by decreasing order (ties: lower
    index first), each present value combined into a copy of the first vector at the row's
    columns."""
    vectors = [v.copy() for v in vectors]
    cols = A.indices.astype(np.int64)
    vals = np.ones(cols.size, bool) if A.dtype == bool else A.data
    out = {}
    for i in sorted(rows.tolist(), key=lambda i: (-order[i], i)):
        value, present = func(i, A.indptr[i], A.indptr[i + 1], cols, vals, *vectors)
        if present:
            out[i] = value
            for j in cols[A.indptr[i]:A.indptr[i + 1]].tolist():
                vectors[0][j] = combine(vectors[0][j], vectors[0].dtype.type(value))
    return out


def _rectangular(m, k, seed, weighted=False):
    A = sp.random(m, k, 0.2, random_state=seed, format="csr")
    A.sort_indices()
    return A if weighted else (A != 0).astype(bool).tocsr()


@pytest.mark.parametrize("masked", [False, True])
def test_ordered_push_is_the_sweep_written_out(be, masked):
    # m x k: the first vector (k entries) is written at columns, a second one (m) read at i;
    # bor on uint64 words, max on int64 depths, plus on float64 (summed in sweep order), a
    # Monoid (umin) on uint64; tied orders, rows with no value
    m, k = 50, 35
    rng = np.random.default_rng(6)
    rows = np.flatnonzero(rng.random(m) < 0.7) if masked else np.arange(m)
    order = rng.integers(0, 12, m)
    mask = be.vector(rows, True, m) if masked else None
    order_vector = be.full(m, order, "int64")
    A, W = _rectangular(m, k, 7), _rectangular(m, k, 8, weighted=True)
    words = rng.integers(0, 2**64 - 1, k, dtype=np.uint64, endpoint=True) & np.uint64(0xF0F0F0F0F0F0F0F7)
    best = rng.integers(-1, 4, k)
    level = rng.integers(0, 3, m)
    x = rng.uniform(-1, 1, k)
    cases = [(RowOperator(free_bit, fill=0), A, (words,), "bor", lambda a, b: a | b),
             (RowOperator(deeper, fill=(-1, 0)), A, (best, level), "max", max),
             (RowOperator(weighted_mean, fill=0.0), W, (x,), "plus", lambda a, b: a + b),
             (RowOperator(free_bit, fill=0), A, (words,), Monoid(umin, ALL), min)]
    for op, M, vectors, push, combine in cases:
        expected = _swept(op.func, M, vectors, rows, order, combine)
        operands = tuple(be.full(v.size, v, v.dtype.name) for v in vectors)
        w = be.mxv(op, _matrix(be, M, pattern=M.dtype == bool), operands if len(operands) > 1 else operands[0],
                   mask=mask, order=order_vector, push=push)
        ids, values = _tuples(be, w)
        assert dict(zip(ids.tolist(), values.tolist())) == expected, push
        assert values.dtype == np.asarray(list(expected.values())[0]).dtype
        assert 0 < len(expected) <= rows.size


def test_ordered_push_bad_inputs(be):
    A = _matrix(be, _rectangular(6, 4, 1), pattern=True)
    op, words, order = RowOperator(free_bit, fill=0), be.full(4, 0, "uint64"), be.full(6, 0, "int64")
    with pytest.raises(ValueError, match="push= is for an ordered sweep"):
        be.mxv(op, A, words, push="bor")
    with pytest.raises(ValueError, match="push= is for an ordered sweep"):
        be.mxv("bor_second", A, words, order=order, push="bor")
    with pytest.raises(ValueError, match="unknown push monoid 'any'"):
        be.mxv(op, A, words, order=order, push="any")
    with pytest.raises(TypeError, match="push takes a monoid's name or a Monoid"):
        be.mxv(op, A, words, order=order, push=BinaryOp(umin))
    with pytest.raises(ValueError, match="it must have 4 entries"):
        be.mxv(op, A, be.full(6, 0, "uint64"), order=order, push="bor")
    with pytest.raises(NotImplementedError, match=rf"{be.name}: mxv with .*push='bor' on float64 is not defined"):
        be.mxv(RowOperator(weighted_mean, fill=0.0), _matrix(be, _rectangular(6, 4, 1, weighted=True)),
               be.full(4, 0.5, "float64"), order=order, push="bor")


def test_row_operator_bad_inputs(be):
    A = _matrix(be, _graph(n=10, seed=13), pattern=True)
    partial = be.vector(np.array([1, 2]), np.array([0.5, 0.25]), 10)
    with pytest.raises(ValueError, match="must be full"):
        be.mxv(RowOperator(heaviest, fill=None), A, partial)
    with pytest.raises(ValueError, match="reads 1 vectors, got 2"):
        be.mxv(RowOperator(heaviest, fill=None), A, (partial, partial))
    op = RowOperator(first_free, fill=-1, constants={"LIMIT": 8})
    with pytest.raises(ValueError, match="order has no entry"):
        be.mxv(op, A, be.full(10, -1, "int64"), order=be.vector(np.array([0]), np.array([1]), 10))
    with pytest.raises(ValueError, match="order= is for a RowOperator"):
        be.mxv("min_second", A, be.full(10, 1, "int64"), order=be.full(10, 1, "int64"))
    with pytest.raises(TypeError, match="takes Monoid"):
        be.reduce(be.full(10, 1, "int64"), BinaryOp(umin))
    with pytest.raises(ValueError, match="needs a bound scalar"):
        be.apply(BinaryOp(umin), be.full(10, 1, "int64"))


def test_an_operator_numba_cannot_type_is_not_implemented(be):
    u = be.full(5, 1.5, "float64")
    with pytest.raises(NotImplementedError, match=rf"{be.name}: apply with BinaryOp\('shifted'\) on float64/int64 "
                                                  r"is not supported \(.*numba cannot type shifted"):
        be.apply(BinaryOp(shifted), u, right=2)
    A = _matrix(be, _graph(n=5, seed=1), pattern=True)
    with pytest.raises(NotImplementedError, match=rf"{be.name}: mxv with Semiring\('umin_div'\) on bool/float64"):
        be.mxv(Semiring(Monoid(umin, ALL), "div"), A, u)


@pytest.mark.parametrize("replace", [False, True])
def test_a_binary_op_accumulates(be, replace):
    out = be.vector(np.array([0, 1, 2, 5]), np.array([10, 20, 30, 40]), 8)
    u = be.vector(np.array([1, 2, 3]), np.array([5, 50, 7]), 8)
    mask = be.vector(np.array([1, 2, 3, 5]), True, 8)
    be.apply(UnaryOp(square_plus_one), u, out=out, accum=BinaryOp(absdiff), mask=mask, replace=replace)
    # T<mask> = u² + 1 = {1: 26, 2: 2501, 3: 50}; Z = |out - T| where both, else the one present;
    # out<mask> = Z: position 0, outside the mask, keeps 10 unless replace
    expected = {1: 6, 2: 2471, 3: 50, 5: 40} | ({} if replace else {0: 10})
    indices, values = _tuples(be, out)
    assert values.dtype == np.int64 and dict(zip(indices.tolist(), values.tolist())) == expected
    with pytest.raises(ValueError, match="needs out="):
        be.apply(UnaryOp(square_plus_one), u, accum=BinaryOp(absdiff))


# ---- typing and restricted Python ----------------------------------------------------

def test_result_dtypes_are_numbas():
    assert UnaryOp(square_plus_one).result_dtype(np.int32) == np.int64
    assert UnaryOp(square_plus_one).result_dtype(np.float32) == np.float64  # float32 + the int64 literal 1
    assert BinaryOp(absdiff).result_dtype(np.float32, np.float32) == np.float32
    assert BinaryOp(umin).result_dtype(np.int64, np.uint64) == np.float64  # numba unifies them so
    assert IndexUnaryOp(above_in_rank).result_dtype(np.bool_, (np.int64, np.uint32)) == bool
    assert RowOperator(heaviest, fill=None).result_dtype(np.float32, (np.int64,)) == np.float64
    with pytest.raises(TypeError, match="over int32 returns int64"):  # numba: int32 + int32 is int64
        Monoid(uplus, np.int32(0)).result_dtype()


@pytest.mark.parametrize("func, kind, construct", [
    (calls_a_module, UnaryOp, "the call of 'inspect.isclass'"),
    (makes_a_list, UnaryOp, "'List'"),
    (raises_to_a_power, BinaryOp, "the operator 'Pow'"),
    (writes_an_argument, RowOperator, "writing to an array that local"),
    (reads_a_global, UnaryOp, "the global name 'ALL'"),
    (returns_no_pair, RowOperator, "without 'value, present'"),
    (loops_over_a_list, UnaryOp, "a 'for' loop over anything but range"),
    (calls_an_unlisted_helper, UnaryOp, "the call of '_stamp'"),
])
def test_restricted_python_names_the_construct_and_line(func, kind, construct):
    lines, first = inspect.getsourcelines(func)
    line = first + next(k for k, text in enumerate(lines) if k and text.strip() and not text.strip().startswith("#"))
    make = (lambda f: kind(f, fill=None)) if kind is RowOperator else kind
    with pytest.raises(TypeError) as error:
        make(func)
    assert construct in str(error.value) and f"(line {line} of " in str(error.value), str(error.value)


def test_operators_are_immutable_hashable_and_carry_their_source():
    op = RowOperator(first_free, fill=-1, constants={"LIMIT": 4})
    assert op == RowOperator(first_free, fill=-1, constants={"LIMIT": 4}) and len({op, op}) == 1
    assert op != RowOperator(first_free, fill=-1, constants={"LIMIT": 5})
    assert op.source.startswith("def first_free(") and op.name == "first_free"
    with pytest.raises(AttributeError):
        op.name = "other"
    with pytest.raises(TypeError, match="lambda"):
        UnaryOp(lambda x: x)
    with pytest.raises(TypeError, match="takes 2 arguments"):
        BinaryOp(square_plus_one)
    with pytest.raises(TypeError, match="reads 1 vectors, got 2 fills"):
        RowOperator(first_free, fill=(-1, -1), constants={"LIMIT": 4})


# ---- caching across processes ------------------------------------------------------------

_SECOND_PROCESS = '''
import numpy as np
import gbgraph as gg
from gbgraph.backends.numba import operators as compiled
from gbgraph.operators import RowOperator, local


def first_free(i, start, stop, cols, vals, colors):
    seen = local(8, np.bool_)
    for p in range(start, stop):
        c = colors[cols[p]]
        if c >= 0 and c < 8:
            seen[c] = True
    c = 0
    while c < 8 and seen[c]:
        c += 1
    return c, c < 8


be = gg.backend("numba")
A = be.matrix(np.array([0, 1, 3, 4]), np.array([1, 0, 2, 1]))
w = be.mxv(RowOperator(first_free, fill=-1), A, be.full(3, -1, "int64"), order=be.full(3, 0, "int64"))
assert be.values(w).tolist() == [0, 1, 0]
stats = [d.stats for m in compiled._MODULES.values() for d in (getattr(m, "_gb_rows_ordered", None),) if d]
print(sum(s.cache_hits.total() for s in stats), sum(s.cache_misses.total() for s in stats))
'''


def test_a_second_process_loads_the_compiled_kernel(tmp_path):
    script = tmp_path / "second.py"
    script.write_text(_SECOND_PROCESS)
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=str(ROOT), GBGRAPH_WARMUP="0")
    runs = [subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=600)
            for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr
    assert runs[0].stdout.split() == ["0", "1"]  # compiled (and saved) once
    assert runs[1].stdout.split() == ["1", "0"]  # loaded: nothing compiled
    written = list((tmp_path / "cache" / "gbgraph" / "operators").glob("*/gbgraph_op_first_free_*.py"))
    assert len(written) == 1 and "def first_free(" in written[0].read_text()


# ---- the numba backend's borrowed arrays ---------------------------------------------------

def test_a_borrowed_array_is_the_array_without_its_owner():
    """kernels/stack.py's ``borrowed``: the generated kernels pass an operator its arrays
    through it, so it must read and write the same data with the same shape and strides
    (a strided view included), and pass numbers through unchanged."""
    import numba
    from gbgraph.backends.numba.kernels.stack import borrowed

    @numba.njit
    def through(x, s):
        view = borrowed(x)
        view[1] = 7.0
        return view.shape[0], view.strides[0], view.sum(), borrowed(s)

    base = np.arange(10.0)
    strided = base[::3]
    assert through(strided, np.int32(5)) == (4, 24, 0.0 + 7.0 + 6.0 + 9.0, 5)
    assert base[3] == 7.0  # written through the view into the array
    assert through(np.arange(4.0), True)[3] is True

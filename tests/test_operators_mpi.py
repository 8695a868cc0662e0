"""User-defined operators on the mpi backend give the numba backend's results, values and
dtype, on any number of ranks; the row operators also equal the operator's own Python
function run row by row (an interpreter, not a compiled kernel), and tests/test_operators.py's
tests (numpy written out, python-graphblas, networkx) run here on the mpi backend too.

Run under MPI, ``mpiexec -n 2 python -m pytest tests/test_operators_mpi.py`` (and ``-n 3``,
which tests/test_mpi_launch.py starts); a plain pytest run takes it on one rank. Every rank
runs every test (SPMD), compares the whole result it holds with the single-process one, and
with the other ranks'.
"""

import hashlib
import inspect

import numpy as np
import pytest
import scipy.sparse as sp

pytest.importorskip("mpi4py")

from mpi4py import MPI  # noqa: E402

import gbgraph as gg  # noqa: E402
from gbgraph.backends.mpi import MPIBackend, operators  # noqa: E402
from gbgraph.backends.operators import (BinaryOp, IndexUnaryOp, Monoid, RowOperator, Semiring,  # noqa: E402
                                        UnaryOp, local)
from gbgraph.generators import laplace3d  # noqa: E402

import test_operators as core  # noqa: E402

COMM = MPI.COMM_WORLD
#: The size of the first-fit operators' table of colors.
LIMIT = 32
U64_MAX = np.uint64(0xFFFFFFFFFFFFFFFF)


# ---- the operators, in restricted Python ------------------------------------------------

def scaled(x):
    return x * 3 + 1


def absdiff(x, y):
    return x - y if x > y else y - x


def weighted_second(x, y):
    return x * 2 + y


def umin(x, y):
    return min(x, y)


def fmax(x, y):
    return max(x, y)


def fplus(x, y):
    return x + y


def at_position(x, i, j, k):
    return x + i * 10 + j - k


def later_key(x, i, j, key):
    # Jet's select: keep (i, j) where j comes after i in the key order
    return key[j] > key[i]


def keys_sum(x, i, j, a, b):
    return a[i] + b[j]


def smallest_free(i, start, stop, cols, vals, colors):
    seen = local(LIMIT, np.bool_)
    for p in range(start, stop):
        c = colors[cols[p]]
        if c >= 0 and c < LIMIT and cols[p] != i:
            seen[c] = True
    c = 0
    while c < LIMIT and seen[c]:
        c += 1
    return c, c < LIMIT


def heaviest(i, start, stop, cols, vals, keys):
    # the neighbour of largest key (lowest column among equal ones): a global column id
    best = -1
    for p in range(start, stop):
        j = cols[p]
        if j != i and (best < 0 or keys[j] > keys[best]):
            best = j
    return best, best >= 0


def weighted_sum(i, start, stop, cols, vals, x, y):
    total = 0.0
    for p in range(start, stop):
        total += vals[p] * x[cols[p]]
    return total + y[i], stop > start


def shifted_sum(i, start, stop, cols, vals, x):
    total = 0
    for p in range(start, stop):
        total += x[cols[p]] << 1
    return total, True


SCALED = UnaryOp(scaled)
ABSDIFF = BinaryOp(absdiff)
WEIGHTED_SECOND = BinaryOp(weighted_second)
UMIN = Monoid(umin, U64_MAX)
FPLUS = Monoid(fplus, 0.0)
FMAX = Monoid(fmax, float(np.finfo(np.float64).min))  # -inf: the generated source reads "-inf"
AT_POSITION = IndexUnaryOp(at_position)
LATER_KEY = IndexUnaryOp(later_key)
KEYS_SUM = IndexUnaryOp(keys_sum)
SMALLEST_FREE = RowOperator(smallest_free, fill=-1, constants={"LIMIT": LIMIT})
HEAVIEST = RowOperator(heaviest, fill=None)
WEIGHTED_SUM = RowOperator(weighted_sum, fill=(0.0, -1.0))
SHIFTED_SUM = RowOperator(shifted_sum, fill=0)


# ---- tests/test_operators.py's tests against independent results, on this backend --------

@pytest.fixture
def be():
    """The backend of the tests taken from tests/test_operators.py."""
    return MPIBackend()


twin = core.twin
for _name, _test in list(vars(core).items()):
    # not the ordered pushes: this backend raises NotImplementedError for them (tests/test_mpi.py)
    if _name.startswith("test_") and "be" in inspect.signature(_test).parameters and "push" not in _name:
        globals()[_name.replace("test_", "test_core_", 1)] = _test


# ---- helpers ---------------------------------------------------------------------------

def _backends():
    return gg.backend("numba"), MPIBackend()


def _grid(weighted=False):
    A = sp.csr_array(abs(laplace3d(7, 5, 3)))
    A.sort_indices()
    if not weighted:
        return A, None
    return A, (A.indices % 7 + 1).astype(np.float64) / 4  # exact in any order of a row


def _path(n):
    ids = np.arange(max(n - 1, 0))
    P = sp.coo_array((np.ones(ids.size), (ids, ids + 1)), shape=(n, n))
    return sp.csr_array(P + P.T)


def _matrix(b, A, values=None):
    return b.matrix(A.indptr.astype(np.int64), A.indices.astype(np.int64), ncols=A.shape[1], values=values)


def _plain(b, x):
    """A result as numpy arrays: a vector's (indices, values), a matrix's CSR, a scalar."""
    if x is None or isinstance(x, (np.generic, int, float, bool)):
        return [np.asarray(x)]
    if hasattr(x, "ncols"):
        return [np.asarray(a) for a in b.to_csr(x)]
    return [np.asarray(b.indices(x)), np.asarray(b.values(x))]


def _same(name, results):
    """The numba and mpi results of each call equal in values and dtype, and every rank
    holds the same mpi result."""
    (nb, got_nb), (be, got_be) = results
    for k, (x, y) in enumerate(zip(got_nb, got_be)):
        want, have = _plain(nb, x), _plain(be, y)
        for a, c in zip(want, have):
            assert a.dtype == c.dtype, f"{name}[{k}]: dtype {c.dtype} on mpi, {a.dtype} on numba"
            np.testing.assert_array_equal(c, a, err_msg=f"{name}[{k}] on {COMM.Get_size()} ranks")
        digest = hashlib.sha256(b"".join(repr(c).encode() if c.dtype == object else np.ascontiguousarray(c).tobytes()
                                         for c in have)).hexdigest()  # None: an object array
        assert len(set(COMM.allgather(digest))) == 1, f"{name}[{k}]: the ranks hold different results"


def _run(name, call):
    _same(name, [(b, call(b)) for b in _backends()])


# ---- scalar operators --------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "uint64", "float64"])
def test_unary_and_binary_operators(dtype):
    A, _ = _grid()
    n = A.shape[0]
    ids = np.arange(0, n, 3)
    values = (ids * 7 % 11).astype(dtype)

    def call(b):
        u = b.vector(ids, values, n)
        v = b.vector(np.arange(1, n, 2), np.arange(1, n, 2).astype(dtype) % 5, n)
        M = _matrix(b, A, (A.indices % 9).astype(dtype))
        out, into = b.vector(np.arange(n), np.ones(n, dtype), n), _matrix(b, A, np.ones(A.indices.size, dtype))
        return [b.apply(SCALED, u), b.apply(SCALED, M), b.apply(ABSDIFF, u, left=values.dtype.type(4)),
                b.apply(ABSDIFF, u, right=values.dtype.type(2), mask=v, complement=True),
                b.ewise_add(ABSDIFF, u, v), b.ewise_mult(ABSDIFF, u, v), b.ewise_add(ABSDIFF, M, M),
                b.ewise_mult(WEIGHTED_SECOND, u, v), b.ewise_mult(WEIGHTED_SECOND, u, v, out=out, accum=ABSDIFF),
                b.apply(SCALED, M, out=into, accum=ABSDIFF, mask=M)]

    _run(f"unary/binary {dtype}", call)


@pytest.mark.parametrize("thunk", [0, 5])
def test_index_unary_operator_sees_global_positions(thunk):
    A, _ = _grid()
    n = A.shape[0]
    ids = np.arange(1, n, 4)

    def call(b):
        u = b.vector(ids, ids.astype(np.int64), n)
        M = _matrix(b, A, (A.indices % 5).astype(np.int64))
        return [b.apply_index(AT_POSITION, u, thunk), b.apply_index(AT_POSITION, M, thunk),
                b.select(AT_POSITION, M, thunk), b.select(AT_POSITION, u, thunk, mask=u)]

    _run("apply_index/select", call)


def test_select_reads_vectors_at_i_and_j():
    # key(j) > key(i) needs key at the block's columns: most are other ranks' entries
    A, _ = _grid()
    n = A.shape[0]
    key = (np.arange(n, dtype=np.uint64) * 2654435761) % 1000

    def call(b):
        k = b.vector(np.arange(n), key, n)
        a = b.full(n, 0.5, "float64")
        M = _matrix(b, A)
        u = b.vector(np.arange(0, n, 2), np.arange(0, n, 2), n)
        return [b.select(LATER_KEY, M, (k,)), b.select(LATER_KEY, u, (k,)), b.apply_index(KEYS_SUM, M, (k, a)),
                b.apply_index(KEYS_SUM, u, (k, a))]

    _run("vector thunks", call)
    # the property itself, on the host: every kept entry has key(j) > key(i), every dropped one not
    be = MPIBackend()
    indptr, cols, _ = be.to_csr(be.select(LATER_KEY, _matrix(be, A), (be.vector(np.arange(n), key, n),)))
    rows = np.repeat(np.arange(n), np.diff(indptr))
    assert (key[cols] > key[rows]).all()
    everywhere = np.repeat(np.arange(n), np.diff(A.indptr))
    assert np.count_nonzero(key[A.indices] > key[everywhere]) == cols.size


def test_monoids_and_semirings():
    A, weights = _grid(weighted=True)
    n = A.shape[0]
    keys = ((np.arange(n, dtype=np.uint64) * 40503) % 977) << np.uint64(20) | np.arange(n, dtype=np.uint64)
    umin_second, fmax_times = Semiring(UMIN, "second"), Semiring(FMAX, "times")
    plus_weighted = Semiring("plus", WEIGHTED_SECOND)

    def call(b):
        k = b.vector(np.arange(n), keys, n)
        M = _matrix(b, A, weights)
        P = _matrix(b, A)
        x = b.vector(np.arange(0, n, 3), np.arange(0, n, 3) * 0.25, n)
        rows = b.vector(np.arange(0, n, 5), True, n)
        return [b.reduce(k, UMIN), b.reduce(M, FMAX), b.reduce(b.vector(np.arange(0), keys[:0], n), UMIN),
                b.reduce_rows(M, FMAX), b.reduce_cols(M, FMAX), b.ewise_add(UMIN, k, k),
                b.mxv(umin_second, P, k), b.mxv(umin_second, P, k, mask=rows), b.vxm(umin_second, k, P),
                b.mxv(fmax_times, M, x), b.vxm(fmax_times, x, M, mask=rows, complement=True),
                b.mxv(plus_weighted, M, x), b.reduce(P, UMIN), b.reduce_rows(P, UMIN), b.mxm(fmax_times, M, M),
                b.mxm(umin_second, P, _matrix(b, A, keys[A.indices]), mask=P, complement=True)]

    _run("monoids/semirings", call)


# ---- row operators -----------------------------------------------------------------------

def _python_rows(func, A, values, vectors, rows, order=None):
    """``func`` run by the interpreter on each row of ``rows`` (in ``order``'s sweep: by
    decreasing order, then row, each value written into the first vector): the reference."""
    vectors = [v.copy() for v in vectors]
    vals = np.ones(A.indices.size, bool) if values is None else values
    if order is not None:
        rows = sorted(rows, key=lambda i: (-int(order[i]), i))
    out = {}
    for i in rows:
        value, present = func(i, A.indptr[i], A.indptr[i + 1], A.indices.astype(np.int64), vals, *vectors)
        if present:
            out[i] = value
            if order is not None:
                vectors[0][i] = value
    ids = np.array(sorted(out), dtype=np.int64)
    return ids, np.array([out[i] for i in ids])


MASKS = {"none": None, "rows": (lambda n: np.arange(0, n, 3), True, False),
         "value": (lambda n: np.arange(n), False, False), "complement": (lambda n: np.arange(0, n, 4), True, True)}


def _mask(b, kind, n):
    if MASKS[kind] is None:
        return {}
    ids, structure, complement = MASKS[kind]
    ids = ids(n)
    return dict(mask=b.vector(ids, ids % 3 == 0, n), structure=structure, complement=complement)


def _rows_of(kind, n):
    if MASKS[kind] is None:
        return np.arange(n)
    ids, structure, complement = MASKS[kind]
    ids = ids(n)
    ids = ids if structure else ids[ids % 3 == 0]
    return np.setdiff1d(np.arange(n), ids) if complement else ids


def test_float_monoid_reduces_in_one_process_order():
    # sums of values of many magnitudes round differently in another order
    A, _ = _grid()
    n = A.shape[0]
    rng = np.random.default_rng(7)
    weights = rng.random(A.indices.size) * 10.0 ** rng.integers(-8, 8, A.indices.size)
    x = rng.random(n) * 10.0 ** rng.integers(-8, 8, n)
    fplus_times, plus_weighted = Semiring(FPLUS, "times"), Semiring("plus", WEIGHTED_SECOND)

    def call(b):
        M, u = _matrix(b, A, weights), b.vector(np.arange(n), x, n)
        return [b.vxm(fplus_times, u, M), b.vxm(fplus_times, u, M, mask=u), b.mxv(fplus_times, M, u),
                b.vxm(plus_weighted, u, M), b.vxm(plus_weighted, u, M, transpose=True),
                b.reduce(u, FPLUS), b.reduce(M, FPLUS), b.reduce_rows(M, FPLUS), b.reduce_cols(M, FPLUS)]

    _run("float monoid", call)


@pytest.mark.parametrize("mask", list(MASKS))
@pytest.mark.parametrize("graph", ["grid", "path5", "path2", "path1", "path0"])
def test_row_operators_run_each_ranks_rows(graph, mask):
    A, weights = _grid(weighted=True) if graph == "grid" else (_path(int(graph[4:])), None)
    n = A.shape[0]
    colored = np.arange(0, n, 2)
    colors = (colored * 5 % 7).astype(np.int64)
    keys = (np.arange(n) * 7919 % 31).astype(np.int32)
    x = np.arange(n, dtype=np.float64) / 8
    values = weights if weights is not None else np.ones(A.indices.size)

    def call(b):
        M, c, k = _matrix(b, A, values), b.vector(colored, colors, n), b.vector(np.arange(n), keys, n)
        xv, yv = b.vector(np.arange(1, n, 2), x[1::2], n), b.vector(np.arange(0, n, 3), x[::3], n)
        into = b.vector(np.arange(0, n, 2), np.full(colored.size, 3, np.int64), n)
        return [b.mxv(SMALLEST_FREE, _matrix(b, A), c, **_mask(b, mask, n)),
                b.mxv(HEAVIEST, M, (k,), **_mask(b, mask, n)), b.mxv(WEIGHTED_SUM, M, (xv, yv), **_mask(b, mask, n)),
                b.mxv(SMALLEST_FREE, _matrix(b, A), c, out=into, accum=ABSDIFF, replace=mask != "none",
                      **_mask(b, mask, n))]

    results = [(b, call(b)) for b in _backends()]
    _same(f"row operators {graph} {mask}", results)
    # against the interpreter
    be, (first, heavy, summed, _) = results[1]
    rows = _rows_of(mask, n)
    dense_colors = np.full(n, -1, np.int64)
    dense_colors[colored] = colors
    dense_x, dense_y = np.zeros(n), np.full(n, -1.0)
    dense_x[1::2], dense_y[::3] = x[1::2], x[::3]
    for got, (ids, want) in ((first, _python_rows(smallest_free, A, None, [dense_colors], rows)),
                             (heavy, _python_rows(heaviest, A, values, [keys], rows)),
                             (summed, _python_rows(weighted_sum, A, values, [dense_x, dense_y], rows))):
        np.testing.assert_array_equal(be.indices(got), ids)
        np.testing.assert_array_equal(be.values(got), want.astype(be.values(got).dtype))


@pytest.mark.parametrize("rounds", [operators.ROUNDS, 1, 0], ids=["rounds", "then-rank-0", "rank-0"])
@pytest.mark.parametrize("mask", ["none", "rows", "complement"])
@pytest.mark.parametrize("graph", ["grid", "path5", "path1"])
def test_ordered_row_operator_is_one_sweep_over_every_rank(graph, mask, rounds, monkeypatch):
    # sequential greedy coloring in decreasing priority, ties by index: rows of different
    # ranks interleave, and each reads the colors its earlier neighbours took; run in
    # rounds, or after a round (or at once) by rank 0
    monkeypatch.setattr(operators, "ROUNDS", rounds)
    A = _grid()[0] if graph == "grid" else _path(int(graph[4:]))
    n = A.shape[0]
    priority = (np.arange(n) * 37 % 11).astype(np.uint32)  # many ties
    seeded = np.arange(1, n, 9)

    def call(b):
        c = b.vector(seeded, np.zeros(seeded.size, np.int64), n)
        return [b.mxv(SMALLEST_FREE, _matrix(b, A), c, order=b.vector(np.arange(n), priority, n), **_mask(b, mask, n))]

    results = [(b, call(b)) for b in _backends()]
    _same(f"ordered {graph} {mask}", results)
    be, (got,) = results[1]
    initial = np.full(n, -1, np.int64)
    initial[seeded] = 0
    ids, want = _python_rows(smallest_free, A, None, [initial], _rows_of(mask, n), order=priority)
    np.testing.assert_array_equal(be.indices(got), ids)
    np.testing.assert_array_equal(be.values(got), want)


@pytest.mark.parametrize("seed", range(4))
def test_ordered_row_operator_on_random_graphs(seed):
    # chains of rows that cross ranks back and forth: random edges, priorities with ties
    rng = np.random.default_rng(seed)
    n = 150
    R = sp.random_array((n, n), density=0.04, random_state=rng, format="csr")
    A = sp.csr_array((R + R.T) != 0)
    A.sort_indices()
    priority = rng.integers(0, 6, n).astype(np.int64)
    rows = np.flatnonzero(rng.random(n) < 0.7)

    def call(b):
        c = b.vector(np.arange(0, n, 11), np.zeros(np.arange(0, n, 11).size, np.int64), n)
        return [b.mxv(SMALLEST_FREE, _matrix(b, A), c, order=b.vector(np.arange(n), priority, n),
                      mask=b.vector(rows, True, n))]

    _run(f"ordered random {seed}", call)


def test_row_operator_errors_on_every_rank():
    A, _ = _grid()
    n = A.shape[0]
    be = MPIBackend()
    M = _matrix(be, A)
    partial = be.vector(np.arange(0, n, 2), np.arange(0, n, 2), n)
    with pytest.raises(ValueError, match=r"vector 0 of .* must be full \(its fill is None\)"):
        be.mxv(HEAVIEST, M, (partial,))  # fill None: the vector must be full
    with pytest.raises(ValueError, match=r"order has no entry at some rows computed \(53 of 105 entries\)"):
        be.mxv(SMALLEST_FREE, M, partial, order=partial)
    with pytest.raises(ValueError, match=r"must be a vector of size 105 \(read at i\)"):
        be.mxv(SMALLEST_FREE, M, be.vector(np.arange(2), np.arange(2), 4))
    with pytest.raises(ValueError, match="reads 1 vectors, got 2"):
        be.mxv(SMALLEST_FREE, M, (partial, partial))
    with pytest.raises(ValueError, match="thunk vectors .* must be full"):
        be.select(LATER_KEY, M, (partial,))
    untyped = r"^mpi: mxv with RowOperator\('shifted_sum'\) on bool/float64 is not supported"
    with pytest.raises(NotImplementedError, match=untyped):
        be.mxv(SHIFTED_SUM, M, be.full(n, 0.5, "float64"))  # a float shifted: numba cannot type it
    untyped = r"^mpi: select with IndexUnaryOp\('at_position'\) on bool/\(int64\)"
    with pytest.raises(NotImplementedError, match=untyped):
        be.select(AT_POSITION, M, (be.full(n, 1, "int64"),))  # a vector where it takes a scalar


def test_row_operator_moves_only_the_ghosts_of_its_rows():
    # a masked parallel mxv sends what a product does: a bit per ghost column and a reply
    # per ghost its rows read, per vector; no whole vector crosses
    be = MPIBackend()
    A = abs(laplace3d(12))
    n = A.shape[0]
    M, c = _matrix(be, sp.csr_array(A)), be.vector(np.arange(0, n, 2), np.arange(0, n, 2) % 5, n)
    mask = be.vector(np.arange(0, n, 7), True, n)
    be.mxv(SMALLEST_FREE, M, c, mask=mask)  # agrees the routes
    be.traffic.reset()
    be.mxv(SMALLEST_FREE, M, c, mask=mask)
    sent = be.traffic.reset()["bytes"]
    assert sent <= 2 * M.columns.ghosts.size * 9 + 64 * COMM.Get_size(), sent


def test_select_moves_only_the_ghosts_of_its_columns():
    # key(j) > key(i) over a square matrix: a bit per ghost column and a reply per ghost
    # (a 9-byte record of a uint64 key), besides the counts that check the key is full
    be = MPIBackend()
    A = abs(laplace3d(12))
    n = A.shape[0]
    M, key = _matrix(be, sp.csr_array(A)), be.vector(np.arange(n), np.arange(n, dtype=np.uint64) * 7 % 11, n)
    be.select(LATER_KEY, M, (key,))  # agrees the routes
    be.traffic.reset()
    be.select(LATER_KEY, M, (key,))
    sent = be.traffic.reset()["bytes"]
    assert sent <= M.columns.ghosts.size * (1 + 9) + 64 * COMM.Get_size(), sent


def test_ordered_row_operator_moves_ghosts_and_its_rows_only():
    # rows far apart run in one round: what a rank sends follows the boundary, not n
    be = MPIBackend()
    A = abs(laplace3d(20))
    n = A.shape[0]
    rows = np.arange(0, n, 97)
    M, c = _matrix(be, sp.csr_array(A)), be.vector(np.arange(1, n, 2), np.arange(1, n, 2) % 5, n)
    order, mask = be.vector(rows, rows % 13, n), be.vector(rows, True, n)
    be.mxv(SMALLEST_FREE, M, c, mask=mask, order=order)  # agrees the routes
    be.traffic.reset()
    be.mxv(SMALLEST_FREE, M, c, mask=mask, order=order)
    sent = be.traffic.reset()["bytes"]
    assert sent < n, f"{sent:,} bytes sent for {rows.size} rows of {n:,}"


def row_degree_plus(i, start, stop, cols, vals, base):
    return base[i] + (stop - start), True


ROW_DEGREE_PLUS = RowOperator(row_degree_plus, fill=0)


def test_row_operator_on_a_rectangular_matrix_reads_a_vector_at_i():
    # a vector of A's rows is read at i only: each rank's own block, no ghost
    P = sp.csr_array((np.ones(40), (np.arange(40), np.arange(40) * 7 % 13)), shape=(40, 13))

    def call(b):
        base = b.vector(np.arange(0, 40, 3), np.arange(0, 40, 3), 40)
        return [b.mxv(ROW_DEGREE_PLUS, _matrix(b, P), base), b.mxv(ROW_DEGREE_PLUS, _matrix(b, P), base,
                                                                  mask=base, complement=True)]

    _run("rectangular", call)

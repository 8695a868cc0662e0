"""The protocol's verbs, each checked against a few lines of numpy on small inputs."""

import numpy as np
import pytest

import gbgraph as gg
from gbgraph.algorithms.coloring import FIRST_FIT
from gbgraph.backends.operators import RowOperator

from conftest import backend_params

N = 8
A_INDPTR = np.array([0, 2, 3, 3, 5, 6, 8, 8, 9])
A_INDICES = np.array([1, 4, 0, 0, 7, 3, 2, 6, 5])


@pytest.fixture(params=backend_params())
def be(request):
    return gg.backend(request.param)


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


def _dense(be, v, fill):
    out = np.full(N, fill, dtype=be.values(v).dtype)
    out[_host(be.indices(v))] = _host(be.values(v))
    return out


def _sparse(be, idx, vals):
    return be.vector(be.xp.asarray(idx, dtype=be.xp.int64), be.xp.asarray(vals), N)


def test_containers(be):
    v = _sparse(be, [1, 4, 6], np.array([7, 8, 9], np.uint64))
    assert be.nvals(v) == 3 and be.indices(v).tolist() == [1, 4, 6] and be.values(v).tolist() == [7, 8, 9]
    assert be.indices(v).dtype == np.int64
    iso = be.vector(be.xp.asarray([0, 3], dtype=be.xp.int64), True, N)
    assert be.values(iso).tolist() == [True, True]
    f = be.full(N, 5, "uint64")
    assert be.nvals(f) == N and set(be.values(f).tolist()) == {5}


def _entries(be, v):
    return dict(zip(be.indices(v).tolist(), be.values(v).tolist()))


@pytest.mark.parametrize(("semiring", "reduce"), [("min_second", np.min), ("max_second", np.max),
                                                  ("plus_pair", len), ("any_pair", lambda r: 1)])
def test_mxv_with_and_without_mask(be, semiring, reduce):
    A = be.matrix(be.xp.asarray(A_INDPTR), be.xp.asarray(A_INDICES))
    x = np.array([5, 3, 8, 1, 9, 2, 7, 4], dtype=np.uint64)
    u = _sparse(be, np.arange(N), x)
    rows = np.split(A_INDICES, A_INDPTR[1:-1])
    expected = {i: int(reduce(x[r])) for i, r in enumerate(rows) if len(r)}
    assert _entries(be, be.mxv(semiring, A, u)) == expected
    mask = _sparse(be, [0, 3, 6], True)
    assert _entries(be, be.mxv(semiring, A, u, mask=mask)) == {0: expected[0], 3: expected[3]}
    out = be.full(N, 42, "uint64")
    be.mxv(semiring, A, u, mask=mask, complement=True, out=out)
    want = {i: expected[i] for i in expected if i not in (0, 3, 6)} | {0: 42, 3: 42, 6: 42}
    assert _entries(be, out) == want  # unmasked empty rows lose their entry, masked rows keep 42


@pytest.mark.parametrize("semiring", ["any_pair", "min_first", "max_first", "plus_pair"])
def test_vxm_pushes_rows(be, semiring):
    values = np.array([5, 3, 8, 1, 9, 2, 7, 4], dtype=np.int64)
    A = be.matrix(be.xp.asarray(A_INDPTR), be.xp.asarray(A_INDICES))
    u = _sparse(be, [0, 3, 4], values[[0, 3, 4]])
    rows = np.split(A_INDICES, A_INDPTR[1:-1])
    reached = {}
    for i in (0, 3, 4):
        for j in rows[i].tolist():
            reached.setdefault(j, []).append(int(values[i]))
    reduce = {"any_pair": lambda v: 1, "min_first": min, "max_first": max, "plus_pair": len}[semiring]
    assert _entries(be, be.vxm(semiring, u, A)) == {j: reduce(v) for j, v in reached.items()}
    mask = _sparse(be, [1, 7], True)
    assert _entries(be, be.vxm(semiring, u, A, mask=mask)) == {j: reduce(reached[j]) for j in (1, 7) if j in reached}


def test_ewise_mult_select_assign(be):
    u = _sparse(be, [0, 2, 5, 7], np.array([4, 0, 6, 1], np.uint64))
    v = _sparse(be, [2, 5, 6], np.array([0, 9, 3], np.uint64))
    e = be.ewise_mult("eq", u, v)
    assert be.indices(e).tolist() == [2, 5] and be.values(e).tolist() == [True, False]
    m = be.ewise_mult("min", u, v)
    assert be.values(m).tolist() == [0, 6]
    s = be.select("valuegt", u, 0)
    assert be.indices(s).tolist() == [0, 5, 7]
    s2 = be.select("valuegt", u, 0, mask=e, structure=False, complement=True)
    assert be.indices(s2).tolist() == [0, 5, 7]
    s3 = be.select("valuege", u, 0, mask=e, structure=False)
    assert be.indices(s3).tolist() == [2]
    w = be.full(N, 1, "uint64")
    be.assign(w, u, mask=u)
    assert _dense(be, w, 0).tolist() == [4, 1, 0, 1, 1, 6, 1, 1]
    be.assign(w, 2**64 - 1, mask=e, structure=False)
    assert _dense(be, w, 0).tolist() == [4, 1, 2**64 - 1, 1, 1, 6, 1, 1]
    be.assign(w, 0, mask=v, complement=True)
    assert _dense(be, w, 0).tolist() == [0, 0, 2**64 - 1, 0, 0, 6, 1, 0]


def test_apply_ewise_add_reduce_extract(be):
    u = _sparse(be, [0, 2, 5], np.array([4, 7, 1], np.int64))
    v = _sparse(be, [2, 3], np.array([10, 20], np.int64))
    assert _entries(be, be.apply("minus", u, right=1)) == {0: 3, 2: 6, 5: 0}
    assert _entries(be, be.apply("minus", u, left=10)) == {0: 6, 2: 3, 5: 9}
    assert _entries(be, be.apply("ainv", u)) == {0: -4, 2: -7, 5: -1}
    assert _entries(be, be.ewise_add("plus", u, v)) == {0: 4, 2: 17, 3: 20, 5: 1}
    assert be.reduce(u, "plus") == 12 and be.reduce(u, "max") == 7
    assert be.reduce(be.select("valuegt", u, 100), "min") is None
    assert _entries(be, be.extract(u, be.xp.asarray([5, 1, 2]))) == {0: 1, 2: 7}


def test_build_pushes_through_a_function(be):
    # w = Pᵀ ⊕plus.second u for P(i, targets(i)) = 1: a build of (targets(i), u(i)), the
    # duplicates summed in the order given (aggregate sizes, coarse vertex weights)
    targets, ones = np.array([3, 1, 2, 3]), np.ones(4, np.int64)
    counts = be.build(be.xp.asarray(targets), be.xp.asarray(ones), 4, dup="plus")  # counts(t) = |{i : targets(i) = t}|
    assert counts.size == 4 and _entries(be, counts) == {1: 1, 2: 1, 3: 2}
    x = np.array([1e16, 1.0, -1e16, 1.0, 0.5])  # a sum that rounds differently in another order
    w = be.build(be.xp.asarray(np.zeros(5, np.int64)), be.xp.asarray(x), 1, dup="plus")
    assert _entries(be, w) == {0: (((1e16 + 1.0) - 1e16) + 1.0) + 0.5}


def test_matrix_verbs(be):
    values = np.arange(1, A_INDICES.size + 1, dtype=np.float64)
    A = be.matrix(be.xp.asarray(A_INDPTR), be.xp.asarray(A_INDICES), values=be.xp.asarray(values))
    dense = np.zeros((N, N))
    dense[np.repeat(np.arange(N), np.diff(A_INDPTR)), A_INDICES] = values
    indptr, indices, vals = (_host(x) for x in be.to_csr(be.transpose(A)))
    got = np.zeros((N, N))
    got[np.repeat(np.arange(N), np.diff(indptr)), indices] = vals
    np.testing.assert_array_equal(got, dense.T)
    indptr, indices, vals = (_host(x) for x in be.to_csr(be.select("offdiag", be.mxm("plus_times", A, be.transpose(A)))))
    got = np.zeros((N, N))
    got[np.repeat(np.arange(N), np.diff(indptr)), indices] = vals
    expected = dense @ dense.T
    np.fill_diagonal(expected, 0)
    np.testing.assert_array_equal(got, expected)
    assert be.nvals(A) == A_INDICES.size
    rows = be.reduce_rows(A, "plus")
    assert _entries(be, rows) == {i: dense[i].sum() for i in range(N) if A_INDPTR[i + 1] > A_INDPTR[i]}


def test_apply_index(be):
    from gbgraph.hashing import Packing

    u = _sparse(be, [1, 4, 6], np.array([7, 8, 9], np.int32))
    w = be.apply_index(lambda ids, thunk: ids * 10 + thunk, u, 3)
    assert _entries(be, w) == {1: 13, 4: 43, 6: 63}
    statuses = be.apply_index(Packing(N, 32, be.xp), u, 5)  # the cupy backend runs its kernel
    assert _host(be.values(statuses)).tolist() == Packing(N, 32)(np.array([1, 4, 6]), 5).tolist()


def _min_label_rounds(be, indptr, indices):
    """Jacobi min-label propagation written as be.iterate rounds: (labels, rounds)."""
    A = be.matrix(be.xp.asarray(indptr), be.xp.asarray(indices))
    n = indptr.size - 1
    labels = be.full(n, 0, "int64")
    be.assign(labels, be.vector(be.xp.arange(n, dtype=be.xp.int64), be.xp.arange(n, dtype=be.xp.int64), n),
              mask=labels)

    def step(changed, r):
        offer = be.mxv("min_second", A, labels)
        smaller = be.ewise_mult("lt", offer, labels)
        be.assign(labels, be.ewise_mult("min", offer, labels), mask=offer)
        return (be.select("valueeq", smaller, True),)

    (_,), rounds = be.iterate(step, (be.full(n, True, "bool"),))
    return _host(be.values(labels)), rounds


def test_iterate_check_is_called_as_it_asks_and_stops_the_rounds(be):
    # a countdown that would run 80 rounds, one entry fewer each; the check asks to be called
    # again after 1, 2, 4 and 48 rounds, then stops before round 55 (on cupy the rounds after
    # the 32nd run in a while node on the device, up to the bound the check gives)
    n, calls = 80, []
    ids = be.xp.arange(n, dtype=be.xp.int64)

    def round_(left, r):  # left = (select(left > 1)) - 1
        return (be.apply("minus", be.select("valuegt", left, 1), right=1),)

    def check(state, r):
        calls.append((r, be.nvals(state[0])))
        return {0: 1, 1: 2, 3: 4, 7: 48}.get(r, 0)

    (left,), r = be.iterate(round_, (be.vector(ids, ids + 1, n),), check=check)
    assert calls == [(0, 80), (1, 79), (3, 77), (7, 73), (55, 25)]
    assert r == 55 and be.nvals(left) == 25
    assert sorted(_host(be.values(left)).tolist()) == list(range(1, 26))


def test_iterate_stall_stops_once_a_round_takes_few(be):
    # round r takes the entries of value r out: 512, 256, 128, 64, then 1 of the 51 left,
    # which is under 1/4 of the 50 it leaves: the rounds stop before round 5 (without the
    # stall they run to round 10); the check runs first, as it asks (rounds 0 and 3)
    counts = [512, 256, 128, 64, 1] + [10] * 5
    values = np.repeat(np.arange(len(counts)), counts).astype(np.int64)
    n, calls = values.size, []

    def round_(left, r):  # left = select(left > r)
        return (be.select("valuegt", left, r),)

    def check(state, r):
        calls.append((r, be.nvals(state[0])))
        return 3

    start = be.vector(be.xp.arange(n, dtype=be.xp.int64), be.xp.asarray(values), n)
    (left,), r = be.iterate(round_, (start,), check=check, stall=4)
    assert (r, be.nvals(left), calls) == (5, 50, [(0, n), (3, 115)])
    (left,), r = be.iterate(round_, (start,))
    assert (r, be.nvals(left)) == (10, 0)


def _neighbour_sum(i, start, stop, cols, vals, u):
    """The sum of u over row i's columns (u's fill, 0, where it has no entry)."""
    total = 0
    for p in range(start, stop):
        total += u[cols[p]]
    return total, True


NEIGHBOUR_SUM = RowOperator(_neighbour_sum, fill=0, name="test_neighbour_sum")


def _random_graph_and_lives(be, n, pairs, most, seed):
    """(scipy S, the backend's A of S's pattern, life(i) in 1..most-1): a random symmetric
    graph without loops and the round up to which each vertex stays in a worklist."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    ends = rng.integers(0, n, (2, pairs))
    ends = ends[:, ends[0] != ends[1]]
    S = sp.csr_array((np.ones(ends.shape[1]), (ends[0], ends[1])), shape=(n, n))
    S = sp.csr_array(((S + S.T) > 0).astype(np.float64))
    S.sort_indices()
    life = rng.integers(1, most, n).astype(np.int64)
    A = be.matrix(be.xp.asarray(S.indptr.astype(np.int64)), be.xp.asarray(S.indices.astype(np.int64)))
    return S, A, life


def test_iterate_state_read_with_a_fill_has_it_where_entries_left(be):
    # each vertex i stays in U while the round r <= life(i); each round, seen(i) = the sum of
    # life(j) over the neighbours j still in U, read with U's fill (0) where j has left: so
    # seen(i) = sum of life(j) over neighbours with life(j) >= life(i). A compiled round must
    # leave the fill, not the last value, where a vertex left the state
    n = 400
    S, A, life = _random_graph_and_lives(be, n, 1600, 9, seed=3)
    seen = be.full(n, 0, "int64")

    def round_(U, r):
        total = be.mxv(NEIGHBOUR_SUM, A, U, mask=U)  # total<U> = NEIGHBOUR_SUM(A, U)
        be.assign(seen, total, mask=total)  # seen<total> = total
        return (be.select("valuegt", U, r),)  # U = select(U > r)

    be.iterate(round_, (be.vector(be.xp.arange(n, dtype=be.xp.int64), be.xp.asarray(life), n),))
    rows = np.repeat(np.arange(n), np.diff(S.indptr))
    kept = life[S.indices] >= life[rows]
    expected = np.bincount(rows[kept], weights=life[S.indices][kept], minlength=n).astype(np.int64)
    np.testing.assert_array_equal(_host(be.values(seen)), expected)


@pytest.mark.parametrize("stop", [1, 2, 5, None])
def test_iterate_stopped_leaves_only_the_rounds_that_ran(be, stop):
    # round r stamps the vertices of U with their status of round r, then the neighbours'
    # greatest stamp goes to mid, and their greatest mid to seen; U keeps the vertices with
    # life > r. The compiled rounds run a round's first phase (the stamps) at the end of
    # the round before: stopped before round `stop`, no stamp of that round may show
    from gbgraph.hashing import Packing, packing_bits

    n = 300
    S, A, life = _random_graph_and_lives(be, n, 900, 7, seed=5)
    bits = packing_bits(n)
    packing, statuses = Packing(n, bits, be.xp), Packing(n, bits, np)
    stamp, mid, seen = (be.full(n, 0, packing.dtype) for _ in range(3))

    def round_(U, r):
        P = be.apply_index(packing, U, r)  # P(i) = status(i, r), on U's pattern
        be.assign(stamp, P, mask=P)  # stamp<P> = P
        top = be.mxv("max_second", A, stamp, mask=U)  # top<U> = A ⊕max.second stamp
        be.assign(mid, top, mask=top)  # mid<top> = top
        z = be.mxv("max_second", A, mid, mask=U)  # z<U> = A ⊕max.second mid
        be.assign(seen, z, mask=z)  # seen<z> = z
        return (be.select("valuegt", U, r),)  # U = select(U > r)

    (U,), rounds = be.iterate(round_, (be.vector(be.xp.arange(n, dtype=be.xp.int64), be.xp.asarray(life), n),),
                              stop=stop)
    expected = {name: np.zeros(n, packing.dtype) for name in ("stamp", "mid", "seen")}
    rows, cols = np.repeat(np.arange(n), np.diff(S.indptr)), S.indices
    alive, r = np.ones(n, bool), 0
    while alive.any() and (stop is None or r < stop):
        ids = np.flatnonzero(alive)
        expected["stamp"][ids] = statuses(ids, r)
        for src, dst in (("stamp", "mid"), ("mid", "seen")):
            top = np.full(n, np.iinfo(packing.dtype).min if bits == 32 else 0, packing.dtype)
            np.maximum.at(top, rows, expected[src][cols])
            at = ids[np.diff(S.indptr)[ids] > 0]
            expected[dst][at] = top[at]
        alive &= life > r
        r += 1
    assert rounds == r
    np.testing.assert_array_equal(np.sort(_host(be.indices(U))), np.flatnonzero(alive))
    for name, v in (("stamp", stamp), ("mid", mid), ("seen", seen)):
        np.testing.assert_array_equal(_host(be.values(v)), expected[name], err_msg=name)


def test_iterate_runs_rounds_while_the_worklist_has_entries(be):
    import scipy.sparse as sp
    from scipy.sparse.csgraph import connected_components

    rng = np.random.default_rng(7)
    n = 3000
    path = sp.diags([np.ones(n - 1)], [1], shape=(n, n))  # long paths: many rounds to replay
    cut = sp.diags([np.where(rng.random(n - 1) < 0.01, 0.0, 1.0)], [1], shape=(n, n))
    A = sp.csr_array(path.multiply(cut) + path.multiply(cut).T)
    A.eliminate_zeros()
    perm = rng.permutation(n)
    A = sp.csr_array(A[perm][:, perm])
    A.sort_indices()
    labels, rounds = _min_label_rounds(be, A.indptr.astype(np.int64), A.indices.astype(np.int64))
    _, components = connected_components(A, directed=False)
    smallest = np.full(components.max() + 1, n)
    np.minimum.at(smallest, components, np.arange(n))
    np.testing.assert_array_equal(labels, smallest[components])
    expected, sweeps = np.arange(n), 0  # the same Jacobi sweeps in numpy, the last one changing nothing
    rows = np.repeat(np.arange(n), np.diff(A.indptr))
    while True:
        offer = np.full(n, n)
        np.minimum.at(offer, rows, expected[A.indices])
        sweeps += 1
        if not (offer < expected).any():
            break
        expected = np.minimum(offer, expected)
    assert rounds == sweeps


def test_bor_second(be):
    A = be.matrix(be.xp.asarray(A_INDPTR), be.xp.asarray(A_INDICES))
    x = np.array([1, 2, 4, 8, 16, 3, 64, 6], dtype=np.uint64)
    rows = np.split(A_INDICES, A_INDPTR[1:-1])
    expected = {i: int(np.bitwise_or.reduce(x[r])) for i, r in enumerate(rows) if len(r)}
    assert _entries(be, be.mxv("bor_second", A, _sparse(be, np.arange(N), x))) == expected
    mask = _sparse(be, [0, 5], True)
    assert _entries(be, be.mxv("bor_second", A, _sparse(be, np.arange(N), x), mask=mask)) == {0: expected[0], 5: expected[5]}


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("offset", [0, 2**64 - 30], ids=["small", "uint64-hashes"])
def test_first_fit_operator_in_priority_order_is_sequential_greedy(be, seed, offset):
    # a random symmetric graph with a clique (long chains of waiting rows), colors given
    # before at some rows inside and outside the mask (-1 entries: no color), tied priorities;
    # the offset puts them where uint64 hash priorities lie, beyond int64
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    n = 300
    M = sp.random(n, n, density=0.03, random_state=rng, format="lil")
    M[:40, :40] = 1
    M = sp.csr_array(M + M.T)
    M.setdiag(0)
    M.eliminate_zeros()
    M.sort_indices()
    given = np.where(rng.random(n) < 0.2, rng.integers(0, 70, n), -1)
    rows = np.flatnonzero(rng.random(n) < 0.7)
    priority = rng.integers(0, 25, n).astype(np.uint64) + np.uint64(offset)
    colors = given.copy()
    neighbours = np.split(M.indices, M.indptr[1:-1])
    for i in sorted(rows.tolist(), key=lambda i: (-int(priority[i]), i)):
        taken = set(colors[neighbours[i]].tolist())
        colors[i] = next(c for c in range(n + 1) if c not in taken)
    xp = be.xp
    A = be.matrix(xp.asarray(M.indptr), xp.asarray(M.indices), ncols=n)
    ids = xp.arange(n, dtype=xp.int64)
    result = be.mxv(FIRST_FIT, A, be.vector(ids, xp.asarray(given), n), mask=be.vector(xp.asarray(rows), True, n),
                    order=be.vector(ids, xp.asarray(priority), n))  # coloring's row operator, ordered
    assert _host(be.indices(result)).tolist() == rows.tolist()
    assert _host(be.values(result)).tolist() == colors[rows].tolist()


def _random_graph(seed, n=300, clique=40):
    """A random symmetric pattern with a clique (rows that reach more than 64 colors), sorted."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    M = sp.random(n, n, density=0.03, random_state=rng, format="lil")
    M[:clique, :clique] = 1
    M = sp.csr_array(M + M.T)
    M.setdiag(0)
    M.eliminate_zeros()
    M.sort_indices()
    return M, rng


def _on(be, M):
    xp = be.xp
    return be.matrix(xp.asarray(M.indptr), xp.asarray(M.indices), ncols=M.shape[1])


def _closed_reach(M, hops):
    """Each row's columns within ``hops`` over the closed neighbourhoods (scipy)."""
    import scipy.sparse as sp

    C = sp.csr_array(M + sp.eye_array(M.shape[0]))
    R = C @ C if hops == 2 else C
    R.sort_indices()
    return np.split(R.indices, R.indptr[1:-1])


@pytest.mark.parametrize("hops", [1, 2])
@pytest.mark.parametrize("seed", range(3))
def test_first_fit_operator_is_the_smallest_free_color(be, seed, hops):
    # colors given at some vertices (0..78 in a clique: its rows need a second window), -1
    # or no entry elsewhere; hops=2 is coloring's first fit through the nets of A + I
    from gbgraph.algorithms.coloring import FIRST_FIT, _first_fit_nets

    M, rng = _random_graph(seed, clique=80)
    n = M.shape[0]
    given = np.where(rng.random(n) < 0.5, rng.integers(0, 70, n), -1)
    given[1:80] = np.arange(79)  # vertex 0 of the clique sees 79 colors: a second window
    ids = np.union1d(np.flatnonzero(rng.random(n) < 0.9), np.arange(1, 80))
    rows = np.union1d(np.flatnonzero(rng.random(n) < 0.7), [0])
    colors = np.full(n, -1)
    colors[ids] = given[ids]
    reach = np.split(M.indices, M.indptr[1:-1]) if hops == 1 else _closed_reach(M, 2)
    expected = [next(c for c in range(n + 1) if c not in set(colors[reach[i]].tolist())) for i in rows]
    xp = be.xp
    given_vector = be.vector(xp.asarray(ids), xp.asarray(given[ids]), n)
    mask = be.vector(xp.asarray(rows), True, n)
    if hops == 1:
        result = be.mxv(FIRST_FIT, _on(be, M), given_vector, mask=mask)  # t<rows> = first fit
    else:
        result = _first_fit_nets(be, be.adjacency(gg.as_graph(M), closed=True), given_vector, mask)
    assert _host(be.indices(result)).tolist() == rows.tolist()
    assert _host(be.values(result)).tolist() == expected
    assert max(expected) >= 64


def _star_in_a_graph(seed):
    """A random sparse graph with a hub joined to 150 vertices: the rows its net holds take
    their colors from its summary, the others by windows, from their lower bounds."""
    import scipy.sparse as sp

    M, rng = _random_graph(seed, clique=2)
    M = sp.lil_array(M)
    M[0, 1:151] = M[1:151, 0] = 1
    M = sp.csr_array(M)
    M.sort_indices()
    return M, rng


@pytest.mark.parametrize("graph", [_random_graph, _star_in_a_graph])
@pytest.mark.parametrize("seed", range(4))
def test_first_fits_at_distance_2_are_sequential_greedy(be, seed, graph):
    # the pass in order over the nets (the nets' summaries swept, then ordered sweeps pushing
    # bits, window by window; rounds on a GPU) against sequential greedy over the vertices
    # within distance 2 (scipy), with colors given outside the rows and tied priorities
    from gbgraph.algorithms.coloring import _first_fits

    M, rng = graph(seed, clique=30) if graph is _random_graph else graph(seed)
    n = M.shape[0]
    rows = np.flatnonzero(rng.random(n) < 0.8)
    given = np.flatnonzero(rng.random(n) < 0.15)
    given = given[~np.isin(given, rows)]
    priority = rng.integers(0, 40, n)
    colors = np.full(n, -1)
    colors[given] = given % 90  # up to 89: windows past the first
    reach = _closed_reach(M, 2)
    for i in sorted(rows.tolist(), key=lambda i: (-int(priority[i]), i)):
        taken = set(colors[reach[i]].tolist())
        colors[i] = next(c for c in range(2 * n) if c not in taken)
    xp = be.xp
    result = _first_fits(be, be.adjacency(gg.as_graph(M), closed=True),
                         be.vector(xp.asarray(given), xp.asarray(given % 90), n), be.vector(xp.asarray(rows), True, n),
                         be.vector(xp.arange(n), xp.asarray(priority), n), 2)
    assert _entries(be, result) == {i: int(colors[i]) for i in rows.tolist()}
    assert colors[rows].max() >= 64


@pytest.mark.parametrize("hops", [1, 2])
@pytest.mark.parametrize("seed", range(3))
def test_chain_depth_is_the_jones_plassmann_round(be, seed, hops):
    # hops=1: the ordered CHAIN_DEPTH (rounds of CHAIN_DEPTH_WHEN_READY on a GPU); hops=2:
    # the ordered sweep pushing each depth into its nets (push="max"; rounds on a GPU)
    from gbgraph.algorithms.coloring import _depths

    M, rng = _random_graph(seed)
    n = M.shape[0]
    rows = np.flatnonzero(rng.random(n) < 0.7)
    priority = rng.integers(0, 25, n).astype(np.uint64)  # ties: the lower index first
    reach = np.split(M.indices, M.indptr[1:-1]) if hops == 1 else _closed_reach(M, 2)
    depth = {}
    for i in sorted(rows.tolist(), key=lambda i: (-int(priority[i]), i)):
        depth[i] = 1 + max((depth[j] for j in reach[i].tolist() if j in depth and j != i), default=-1)
    xp = be.xp
    keys = be.vector(xp.asarray(rows), xp.asarray(priority[rows]), n)
    A = _on(be, M) if hops == 1 else be.adjacency(gg.as_graph(M), closed=True)
    assert _entries(be, _depths(be, A, keys, hops)) == {i: depth[i] for i in rows.tolist()}


def _uncolored_groups(be, seed, lowest):
    """A random graph, the uncolored U (60% of it), keys beyond int64 and groups (tentative
    colors, ``lowest``..5) at every vertex, and both as backend vectors over U."""
    M, rng = _random_graph(seed)
    n = M.shape[0]
    U = np.flatnonzero(rng.random(n) < 0.6)
    key = rng.permutation(n).astype(np.uint64) + np.uint64(2**63)
    t = rng.integers(lowest, 6, n)
    xp = be.xp
    keys, groups = be.vector(xp.asarray(U), xp.asarray(key[U]), n), be.vector(xp.asarray(U), xp.asarray(t[U]), n)
    return M, U, key, t, keys, groups


@pytest.mark.parametrize("seed", range(3))
def test_same_group_won_keeps_the_colors_no_larger_key_contests(be, seed):
    # keys (uint64 beyond int64) at the uncolored U, their groups (tentative colors) t<U>,
    # -1 for a few: won(i) = t_i where t_i >= 0 and no j adjacent to i, j in U, t_j = t_i
    # has a larger key; no entry elsewhere
    from gbgraph.algorithms.coloring import SAME_GROUP_WON

    M, U, key, t, keys, groups = _uncolored_groups(be, seed, lowest=-1)
    reach = np.split(M.indices, M.indptr[1:-1])
    inside = set(U.tolist())
    expected = {i: int(t[i]) for i in U.tolist() if t[i] >= 0 and
                not any(j in inside and t[j] == t[i] and key[j] > key[i] for j in reach[i].tolist())}
    won = be.mxv(SAME_GROUP_WON, _on(be, M), (keys, groups), mask=keys)
    assert _entries(be, won) == expected and 0 < len(expected) < U.size
    assert be.values(won).dtype == np.int64


@pytest.mark.parametrize("seed", range(3))
def test_same_color_lost_flags_the_rows_a_larger_key_contests(be, seed):
    # every vertex's key (uint64 beyond int64) and color (0..5): lost(i) = True for i in U
    # where some j adjacent to i has color_j = color_i and a larger key; no entry elsewhere
    from gbgraph.algorithms.coloring import SAME_COLOR_LOST

    M, U, key, t, _, _ = _uncolored_groups(be, seed, lowest=0)
    n, xp = M.shape[0], be.xp
    reach = np.split(M.indices, M.indptr[1:-1])
    expected = {i: True for i in U.tolist()
                if any(t[j] == t[i] and key[j] > key[i] for j in reach[i].tolist())}
    keys, colors = be.full(n, xp.asarray(key), "uint64"), be.full(n, xp.asarray(t), "int64")
    lost = be.mxv(SAME_COLOR_LOST, _on(be, M), (keys, colors), mask=be.vector(xp.asarray(U), True, n))
    assert _entries(be, lost) == expected and 0 < len(expected) < U.size


@pytest.mark.parametrize("seed", range(3))
def test_rival_nets_is_the_best_key_of_the_group_within_distance_2(be, seed):
    # keys (uint64 beyond int64) at the uncolored U, their groups (tentative colors) t<U>:
    # rival(i) = max key_j over j within distance 2, j in U, t_j = t_i; no entry where none
    # (through the nets, C<T> = A ⊕max.second M, i itself included)
    from gbgraph.algorithms.coloring import _rival_nets

    M, U, key, t, keys, groups = _uncolored_groups(be, seed, lowest=0)
    reach = _closed_reach(M, 2)
    inside = set(U.tolist())
    expected = {}
    for i in U.tolist():
        same = [int(key[j]) for j in reach[i].tolist() if j in inside and t[j] == t[i]]
        if same:
            expected[i] = max(same)
    rival = _rival_nets(be, be.adjacency(gg.as_graph(M), closed=True), keys, groups)
    assert _entries(be, rival) == expected
    assert be.values(rival).dtype == np.uint64


@pytest.mark.parametrize("weighted", [False, True])
def test_same_part_sum_is_the_weight_inside_the_part(be, weighted):
    from gbgraph.algorithms.partition import SAME_PART_SUM

    M, rng = _random_graph(4)
    n = M.shape[0]
    parts = rng.integers(0, 3, n)
    xp = be.xp
    if weighted:
        weights = rng.random(M.indices.size)
        A = be.matrix(xp.asarray(M.indptr), xp.asarray(M.indices), ncols=n, values=xp.asarray(weights))
        u = be.full(n, 1.5, "float64")
    else:
        weights = np.ones(M.indices.size, np.int64)
        A, u = _on(be, M), be.full(n, 1, "int64")
    result = be.mxv(SAME_PART_SUM, A, (u, be.vector(xp.arange(n), xp.asarray(parts), n)))
    expected = {}
    for i in range(n):
        p = np.arange(M.indptr[i], M.indptr[i + 1])
        p = p[parts[M.indices[p]] == parts[i]]
        if p.size:
            total = weights[p[0]] * (1.5 if weighted else 1)
            for q in p[1:]:  # in column order, as the row is summed
                total = total + weights[q] * (1.5 if weighted else 1)
            expected[i] = total
    assert _entries(be, result) == expected
    assert be.values(result).dtype == (np.float64 if weighted else np.int64)


@pytest.mark.parametrize("seed", range(4))
def test_first_fit_in_rounds_is_the_ordered_pass(be, seed):
    # coloring's parallel form of the in-order pass (the GPU's): the same colors as one
    # ordered pass of FIRST_FIT, with colors given outside the rows to color, tied priorities
    from gbgraph.algorithms.coloring import FIRST_FIT, FIRST_FIT_WHEN_READY, _in_rounds

    M, rng = _random_graph(seed)
    n = M.shape[0]
    rows = np.flatnonzero(rng.random(n) < 0.7)
    given = np.flatnonzero(rng.random(n) < 0.2)
    given = given[~np.isin(given, rows)]
    xp = be.xp
    A, order = _on(be, M), be.vector(xp.arange(n), xp.asarray(rng.integers(0, 25, n)), n)
    colors, mask = be.vector(xp.asarray(given), xp.asarray(given % 70), n), be.vector(xp.asarray(rows), True, n)
    expected = _entries(be, be.mxv(FIRST_FIT, A, colors, mask=mask, order=order))
    assert _entries(be, _in_rounds(be, A, colors, mask, order, FIRST_FIT_WHEN_READY)) == expected
    assert max(expected.values()) >= 20  # the clique: a long chain of rounds


def test_extract_matrix_rows(be):
    A = be.matrix(be.xp.asarray(A_INDPTR), be.xp.asarray(A_INDICES))
    rows = [3, 0, 2, 3]  # an empty row, and a repeat
    indptr, indices, _ = be.to_csr(be.extract(A, be.xp.asarray(rows)))
    lists = np.split(_host(indices), _host(indptr)[1:-1])
    assert [r.tolist() for r in lists] == [A_INDICES[A_INDPTR[i]:A_INDPTR[i + 1]].tolist() for i in rows]


def test_unknown_operator_names(be):
    u = _sparse(be, [0], np.array([1], np.int64))
    with pytest.raises(ValueError, match="unknown operator 'nope'"):
        be.select("nope", u, 0)
    with pytest.raises(ValueError, match="unknown operator 'max_nope'"):
        be.mxv("max_nope", be.matrix(be.xp.asarray(A_INDPTR), be.xp.asarray(A_INDICES)), u)


def test_cupy_missing_names_the_extras():
    code = ("import sys; sys.modules['cupy'] = None\n"
            "import gbgraph as gg\n"
            "try:\n    gg.backend('cupy')\nexcept ImportError as e:\n    print(e)\n")
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120).stdout
    assert "gbgraph[cuda12]" in out and "gbgraph[cuda13]" in out


@pytest.mark.parametrize("extra", ["cuda12", "cuda13"])
def test_gpu_extras_bring_the_cuda_libraries(extra):
    """A fresh venv with only a driver needs CuPy's CUDA libraries too (libnvJitLink, ...):
    CuPy's "ctk" extra installs them, and only CuPy >= 14 has it."""
    import pathlib

    tomllib = pytest.importorskip("tomllib")
    from packaging.requirements import Requirement

    pyproject = tomllib.loads((pathlib.Path(__file__).resolve().parents[1] / "pyproject.toml").read_text())
    requirement, bindings = map(Requirement, pyproject["project"]["optional-dependencies"][extra])
    assert requirement.name == f"cupy-{extra}x" and "ctk" in requirement.extras
    assert "13.6.0" not in requirement.specifier and "14.0.0" in requirement.specifier
    # the while nodes of recorded rounds: cuda-bindings of the extra's CUDA major version, 12.4+
    major = int(extra[4:])
    assert bindings.name == "cuda-bindings" and f"{major}.9.0" in bindings.specifier
    assert f"{major + 1}.0.0" not in bindings.specifier and "12.3.0" not in bindings.specifier


@pytest.mark.parametrize("op", ["plus", "minus", "times", "first", "second", "min", "max"])
@pytest.mark.parametrize("kinds", [("sparse", "full"), ("full", "sparse"), ("full", "full")])
def test_ewise_with_a_full_operand(be, op, kinds):
    """eWiseAdd (union) and eWiseMult (intersection) where one or both operands are full,
    the shapes of the partitioner's rounds, against numpy."""
    fn = {"plus": np.add, "minus": np.subtract, "times": np.multiply, "first": lambda a, b: a,
          "second": lambda a, b: b, "min": np.minimum, "max": np.maximum}[op]
    a_vals, b_vals = np.arange(1.0, N + 1) * 3, np.arange(1.0, N + 1) ** 2
    picks = {"sparse": [1, 4, 6], "full": list(range(N))}
    ia, ib = picks[kinds[0]], picks[kinds[1]]
    u, v = (be.full(N, be.xp.asarray(vals), "float64") if kind == "full" else _sparse(be, picks["sparse"], vals[ia])
            for kind, vals, ia in ((kinds[0], a_vals, ia), (kinds[1], b_vals, ib)))
    both = sorted(set(ia) & set(ib))
    assert _entries(be, be.ewise_mult(op, u, v)) == {i: float(fn(a_vals[i], b_vals[i])) for i in both}
    union = {i: float(a_vals[i]) for i in ia} | {i: float(b_vals[i]) for i in ib}
    union.update({i: float(fn(a_vals[i], b_vals[i])) for i in both})
    assert _entries(be, be.ewise_add(op, u, v)) == union


def test_numba_plus_second_sums_rows_in_column_order_bit_for_bit():
    # rows of 0 to 9 terms over values with -0.0, NaN, infinities and magnitudes far apart,
    # where the order of the additions shows in the bits: numba's kernel (two terms a step,
    # from -0.0) gives each row's sum from its first term on, in column order. (SuiteSparse's
    # SIMD dot products add in another order, and from +0.0: -0.0 rows and last bits differ.)
    rng = np.random.default_rng(11)
    n = 400
    lengths = rng.integers(0, 10, n)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    indices = np.concatenate([np.sort(rng.choice(n, k, replace=False)) for k in lengths]).astype(np.int64)
    x = rng.choice([1e16, -1e16, 1.0, 3.5, -0.0, 0.0, 1e-300], n) * rng.random(n)
    x[rng.choice(n, 12, replace=False)] = -0.0
    x[rng.choice(n, 3, replace=False)] = [np.nan, np.inf, -np.inf]
    be = gg.backend("numba")
    w = be.mxv("plus_second", be.matrix(indptr, indices), be.vector(np.arange(n), x, n))
    expected = []
    for i in np.flatnonzero(lengths):
        terms = x[indices[indptr[i]:indptr[i + 1]]].tolist()
        total = terms[0]
        for term in terms[1:]:
            total += term  # Python floats: IEEE double additions, one after another
        expected.append(total)
    assert be.indices(w).tolist() == np.flatnonzero(lengths).tolist()
    np.testing.assert_array_equal(be.values(w).view(np.int64), np.array(expected).view(np.int64))


def _some_rows(i, start, stop, cols, vals, x):
    """Row i's length plus x(i), present on about 3 rows of 7 (a scattered pattern)."""
    return stop - start + x[i], (i * 2654435761) % 7 < 3


SOME_ROWS = RowOperator(_some_rows, fill=0, name="some_rows")


@pytest.mark.parametrize("masked", [False, True])
def test_row_operator_keeps_the_present_rows_in_order(be, masked):
    # enough rows for the numba backend's threads and chunks: the present rows' values are
    # gathered in row order whatever the chunks
    rng = np.random.default_rng(5)
    n = 200_003
    lengths = rng.integers(0, 4, n)
    indptr = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    indices = rng.integers(0, n, indptr[-1]).astype(np.int64)
    x = rng.integers(-5, 5, n).astype(np.int64)
    rows = np.sort(rng.choice(n, n // 3, replace=False)) if masked else np.arange(n)
    xp = be.xp
    mask = be.vector(xp.asarray(rows), xp.ones(rows.size, bool), n) if masked else None
    w = be.mxv(SOME_ROWS, be.matrix(xp.asarray(indptr), xp.asarray(indices)), be.vector(xp.arange(n), xp.asarray(x), n),
               mask=mask)
    present = rows[(rows * 2654435761) % 7 < 3]
    assert _host(be.indices(w)).tolist() == present.tolist()
    assert _host(be.values(w)).tolist() == (lengths[present] + x[present]).tolist()


def _slots_used(i, start, stop, cols, vals, x):
    """Counts into a local array that must start cleared at every row: the row's entries
    by column mod 4, summed with weights, so a slot left from another row shows."""
    slots = local(4, np.int64)  # noqa: F821
    for p in range(start, stop):
        slots[cols[p] % 4] += 1
    total = 0
    for s in range(4):
        total = total * 10 + slots[s]
    return total, True


def test_a_local_array_is_cleared_at_every_row(be):
    """numba compiles ``local`` as a slot of the kernel's frame (kernels/stack.py), reserved
    once a function: each row must still see zeros, rows run in any order."""
    rng = np.random.default_rng(3)
    n = 300
    counts = rng.integers(0, 9, n)
    indptr = np.concatenate(([0], np.cumsum(counts)))
    cols = rng.integers(0, n, indptr[-1])
    expected = [int("".join(str(int(np.sum(cols[a:b] % 4 == s))) for s in range(4)))
                for a, b in zip(indptr[:-1], indptr[1:])]
    A = be.matrix(be.xp.asarray(indptr), be.xp.asarray(cols), ncols=n)
    w = be.mxv(RowOperator(_slots_used, fill=-1), A, be.full(n, 0, "int64"))
    assert _host(be.values(w)).tolist() == expected

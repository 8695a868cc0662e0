"""The numba backend's general forms on operands of every density, against python-graphblas.

The conformance suite (tests/test_conformance.py) runs every verb x operator x dtype on
vectors of 6 with some entries absent. The general forms (gbgraph/backends/numba/verbs.py)
also have paths of their own for the shapes gbgraph.lagraph's algorithms produce: full
vectors (no index array), empty ones, a small frontier written into a large vector under
its own mask, and matrix-vector products by the compiled semirings. Each case here runs on
the numba backend and through python-graphblas, and the two must agree in indices, values
and dtype.
"""

import itertools

import graphblas as gb
import numpy as np
import pytest

import gbgraph as gg

N = 40
DENSITIES = (1.0, 0.5, 0.1, 0.0)
#: Mask forms: (structure, complement), None for no mask.
MASKS = (None, (True, False), (True, True), (False, False))


@pytest.fixture(scope="module")
def be():
    return gg.backend("numba")


def _entries(rng, density, dtype, n=N):
    """Sorted indices and values (halves for floats, so that every sum is exact)."""
    indices = np.arange(n) if density == 1.0 else np.flatnonzero(rng.random(n) < density)
    values = rng.integers(-6, 7, indices.size) / (2 if np.dtype(dtype).kind == "f" else 1)
    return indices.astype(np.int64), values.astype(dtype)


def _both(be, indices, values, n=N):
    """The numba vector (full, without an index array, where every position has an entry)
    and the python-graphblas one."""
    ours = be.full(n, values, values.dtype) if indices.size == n else be.vector(indices, values, n)
    return ours, gb.Vector.from_coo(indices, values, size=n, dtype=values.dtype)


def _mask_both(be, rng, density):
    indices = np.arange(N) if density == 1.0 else np.flatnonzero(rng.random(N) < density)
    return _both(be, indices, rng.random(indices.size) < 0.7)


def _check(be, ours, theirs):
    indices, values = theirs.to_coo()
    assert be.values(ours).dtype == values.dtype, (be.values(ours).dtype, values.dtype)
    np.testing.assert_array_equal(be.indices(ours), indices)
    np.testing.assert_array_equal(be.values(ours), values)


def _oracle_write(w, mask, form, accum, replace, expression):
    """``w<mask, replace> accum= expression`` in python-graphblas."""
    m = None if form is None else (mask.S if form[0] else mask.V)
    m = ~m if form is not None and form[1] else m
    w(mask=m, accum=None if accum is None else getattr(gb.binary, accum), replace=replace) << expression


@pytest.mark.parametrize("du,dv,dw", list(itertools.product(DENSITIES, repeat=3)))
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_ewise_add_into_out(be, du, dv, dw, dtype):
    """``w<mask, replace> accum= u ⊕ v`` over full, sparse and empty operands and outputs."""
    rng = np.random.default_rng(int(du * 100 + dv * 10 + dw))
    u, gu = _both(be, *_entries(rng, du, dtype))
    v, gv = _both(be, *_entries(rng, dv, dtype))
    w_entries = _entries(rng, dw, dtype)
    for form, accum, replace in itertools.product(MASKS, (None, "min", "plus"), (False, True)):
        if replace and form is None:  # replace needs a mask
            continue
        mask, gmask = _mask_both(be, rng, 0.4)
        w, gw = _both(be, *w_entries)
        structure, complement = form or (True, False)
        be.ewise_add("minus", u, v, out=w, mask=None if form is None else mask, structure=structure,
                     complement=complement, accum=accum, replace=replace)
        _oracle_write(gw, gmask, form, accum, replace, gu.ewise_add(gv, gb.binary.minus))
        _check(be, w, gw)


@pytest.mark.parametrize("dw,dq", list(itertools.product(DENSITIES, (0.5, 0.1, 0.0))))
def test_assign_under_own_mask(be, dw, dq):
    """``w<q> = q`` and ``w<q> = k``: a frontier written into a vector (BFS's parents and
    levels), and the same under other masks."""
    rng = np.random.default_rng(int(dw * 100 + dq * 10))
    w_entries = _entries(rng, dw, "int64")
    q, gq = _both(be, *_entries(rng, dq, "int64"))
    for mask_of_q, form in itertools.product((True, False), MASKS[1:]):
        w, gw = _both(be, *w_entries)
        mask, gmask = (q, gq) if mask_of_q else _mask_both(be, rng, 0.3)
        be.assign(w, q, mask=mask, structure=form[0], complement=form[1])
        _oracle_write(gw, gmask, form, None, False, gq)
        _check(be, w, gw)
        w, gw = _both(be, *w_entries)
        be.assign(w, 7, mask=mask, structure=form[0], complement=form[1])
        m = gmask.S if form[0] else gmask.V
        gw(~m if form[1] else m) << 7
        _check(be, w, gw)


def _gb_semiring(name):
    return getattr(gb.semiring.ss if name.endswith("secondi") else gb.semiring, name)


@pytest.mark.parametrize("semiring", ["min_plus", "max_times", "plus_min", "min_secondi", "max_secondi",
                                      "any_pair", "min_first", "max_second", "plus_minus"])
@pytest.mark.parametrize("dtype", ["int64", "float64"])
@pytest.mark.parametrize("du", DENSITIES)
def test_matrix_vector_products(be, semiring, dtype, du):
    """``mxv`` and ``vxm`` over the compiled semirings, plain and into ``out`` under a
    complemented mask with ``min`` accumulate (Bellman-Ford's and BFS's forms)."""
    rng = np.random.default_rng(int(du * 10))
    rows, cols = np.nonzero(rng.random((N, N)) < 0.15)
    weights = (rng.integers(-6, 7, rows.size) / (2 if dtype == "float64" else 1)).astype(dtype)
    A = be.build_matrix(rows, cols, weights, N, N)
    gA = gb.Matrix.from_coo(rows, cols, weights, nrows=N, ncols=N, dtype=dtype)
    u, gu = _both(be, *_entries(rng, du, dtype))
    op = _gb_semiring(semiring)
    _check(be, be.mxv(semiring, A, u), gA.mxv(gu, op).new())
    _check(be, be.vxm(semiring, u, A), gu.vxm(gA, op).new())
    w_entries = _entries(rng, 0.5, np.dtype(dtype))
    mask, gmask = _mask_both(be, rng, 0.3)
    w, gw = _both(be, *w_entries)
    be.vxm(semiring, u, A, out=w, mask=mask, complement=True, accum="min")
    _oracle_write(gw, gmask, (True, True), "min", False, gu.vxm(gA, op))
    _check(be, w, gw)


@pytest.mark.parametrize("du,dv", [(0.6, 0.02), (0.02, 0.6), (0.9, 0.05)])
@pytest.mark.parametrize("dtype", ["int64", "float64"])
def test_ewise_add_of_unequal_lengths(be, du, dv, dtype):
    """``u ⊕ v`` where one operand has far fewer entries than the other (a small update of a
    large vector: k-core's degrees minus the edges lost), the non-commutative ``minus``
    keeping its operands' order."""
    n = 400
    rng = np.random.default_rng(int(du * 100 + dv * 1000))
    u, gu = _both(be, *_entries(rng, du, dtype, n), n)
    v, gv = _both(be, *_entries(rng, dv, dtype, n), n)
    _check(be, be.ewise_add("minus", u, v), gu.ewise_add(gv, gb.binary.minus).new())
    w_entries = _entries(rng, 0.5, dtype, n)
    w, gw = _both(be, *w_entries, n)
    be.ewise_add("minus", u, v, out=w, accum="plus")
    gw(accum=gb.binary.plus) << gu.ewise_add(gv, gb.binary.minus)
    _check(be, w, gw)


@pytest.mark.parametrize("density", [0.05, 0.2, 0.5])
def test_masked_pair_product(be, density):
    """``C<M> = A ⊕plus.pair B`` under a structural mask (triangle counting's product, a
    kernel of its own): C has an entry, the number of terms, where M has one and a term
    exists; A, B and M of different patterns and shapes."""
    rng = np.random.default_rng(int(density * 100))
    shapes = {"A": (30, 25), "B": (25, 35), "M": (30, 35)}
    ours, theirs = {}, {}
    for name, (nrows, ncols) in shapes.items():
        rows, cols = np.nonzero(rng.random((nrows, ncols)) < density)
        values = np.ones(rows.size, bool)
        ours[name] = be.build_matrix(rows, cols, values, nrows, ncols)
        theirs[name] = gb.Matrix.from_coo(rows, cols, values, nrows=nrows, ncols=ncols)
    C = be.mxm("plus_pair", ours["A"], ours["B"], mask=ours["M"])
    expected = gb.Matrix(gb.dtypes.INT64, 30, 35)
    expected(theirs["M"].S) << theirs["A"].mxm(theirs["B"], gb.semiring.plus_pair)
    rows, cols, values = be.extract_tuples(C)
    want_rows, want_cols, want_values = expected.to_coo()
    np.testing.assert_array_equal(rows, want_rows)
    np.testing.assert_array_equal(cols, want_cols)
    np.testing.assert_array_equal(values, want_values)
    assert values.dtype == want_values.dtype

"""The suitesparse backend's own paths around GraphBLAS calls: a build by a compiled scatter,
an assign whose value has the mask's entries, a product under a mask of every row, MIS-2's
statuses by their compiled kernel, the chunk GraphBLAS runs an algorithm with, masked
``min_second``/``max_second`` pulls and assigns as scatters. Each result is checked against
python-graphblas doing the same operation itself."""

import graphblas as gb
import numpy as np
import pytest
from graphblas.core.ss.context import threadlocal

import gbgraph as gg
from gbgraph.backends.numba.kernels.threads import PARALLEL_WORK
from gbgraph.hashing import Packing

DUPS = ("plus", "times", "first", "min", "max")


def _be():
    return gg.backends.backend("suitesparse")


def _entries(v):
    indices, values = v.to_coo()
    return indices.tolist(), values.tolist()


@pytest.mark.parametrize("dup", DUPS)
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint64", "float64", "float32"])
def test_build_with_duplicates_equals_graphblas_build(dup, dtype):
    rng = np.random.default_rng(len(dup) * 7 + len(dtype))
    indices = rng.integers(0, 300, 2000)  # every index repeated, in no order
    values = (rng.random(2000) * 10).astype(dtype) if dtype.startswith("float") else \
        rng.integers(1, 4, 2000).astype(dtype)
    expected = gb.Vector.from_coo(indices, values, size=300, dup_op=getattr(gb.binary, dup))
    w = _be().build(indices, values, 300, dup=dup)
    assert w.dtype == expected.dtype and _entries(w) == _entries(expected)


def test_build_of_sparse_tuples_leaves_absent_positions_absent():
    indices = np.array([7, 3, 7, 3, 3, 9])
    values = np.array([1.5, 2.0, 0.25, 4.0, 8.0, 1.0])
    w = _be().build(indices, values, 12, dup="plus")
    assert _entries(w) == ([3, 7, 9], [14.0, 1.75, 1.0]) and w.size == 12


def test_build_errors_stay_graphblas_ones():
    be = _be()
    with pytest.raises(ValueError, match="duplicate indices"):
        be.build(np.array([1, 1]), np.array([1, 2]), 4)
    with pytest.raises(gb.exceptions.IndexOutOfBound):  # as GrB_Vector_build raises it
        be.build(np.array([0, 5]), np.array([1, 2]), 4, dup="plus")


def _full(values):
    return gb.Vector.from_dense(np.asarray(values))


def test_assign_of_a_value_with_the_masks_entries_equals_graphblas():
    rng = np.random.default_rng(3)
    w = _full(rng.integers(0, 100, 50).astype(np.int32))
    rows = np.sort(rng.choice(50, 20, replace=False))
    mask = gb.Vector.from_coo(rows, True, size=50)
    value = gb.Vector.from_coo(rows, rng.integers(-9, 0, 20).astype(np.int32), size=50)
    expected = w.dup()
    expected(mask=mask.S) << value
    out = _be().assign(w, value, mask=mask)
    assert out is w and w.nvals == 50 and _entries(w) == _entries(expected)


def test_assign_of_a_value_missing_mask_entries_deletes_them():
    w = _full(np.arange(10, dtype=np.int64))
    mask = gb.Vector.from_coo([1, 4, 6], True, size=10)
    value = gb.Vector.from_coo([1, 5, 6], np.array([-1, -5, -6]), size=10)  # same count, other entries
    expected = w.dup()
    expected(mask=mask.S) << value
    _be().assign(w, value, mask=mask)
    assert _entries(w) == _entries(expected) and 4 not in w.to_coo()[0].tolist()


@pytest.mark.parametrize("complement", [False, True])
def test_product_under_a_mask_of_every_row_equals_unmasked(complement):
    A = gb.Matrix.from_coo([0, 0, 1, 2, 3], [1, 2, 0, 3, 3], [5, 2, 7, 1, 4], nrows=4, ncols=4)
    u = _full(np.array([3, 1, 4, 1], np.int64))
    every = _full(np.ones(4, bool))
    w = _be().mxv("min_times", A, u, mask=every, complement=complement)
    expected = gb.Vector(gb.dtypes.INT64, 4)
    if not complement:
        expected << A.mxv(u, gb.semiring.min_times)
    assert _entries(w) == _entries(expected)


@pytest.mark.parametrize("bits", [32, 64])
def test_statuses_by_their_kernel_equal_the_reference_hash(bits):
    n, rnd = 5000, 3
    statuses = Packing(n, bits)
    ids = np.sort(np.random.default_rng(bits).choice(n, 700, replace=False))
    u = gb.Vector.from_coo(ids, True, size=n)
    w = _be().apply_index(statuses, u, rnd)
    indices, values = w.to_coo()
    expected = statuses(ids, rnd)  # the numpy formula Packing documents
    assert indices.tolist() == ids.tolist() and values.dtype == expected.dtype and (values == expected).all()


def test_algorithms_run_with_the_parallel_work_chunk_and_restore_the_callers():
    be = _be()
    before = threadlocal.context["chunk"], threadlocal.context["nthreads"]
    with be.guard(None):
        assert threadlocal.context["chunk"] == PARALLEL_WORK // 2
        assert threadlocal.context["nthreads"] == before[1]
        with be.guard(None):
            assert threadlocal.context["chunk"] == PARALLEL_WORK // 2
        assert threadlocal.context["chunk"] == PARALLEL_WORK // 2  # the outer context again
    assert (threadlocal.context["chunk"], threadlocal.context["nthreads"]) == before


@pytest.mark.parametrize("dtype", ["int64", "float64", "bool"])
def test_extract_of_a_full_vector_equals_graphblas_extract(dtype):
    rng = np.random.default_rng(5)
    u = _full((rng.random(300) * 50).astype(dtype))
    indices = rng.integers(0, 300, 1000)  # unsorted, repeated
    w = _be().extract(u, indices)
    expected = u[indices].new()
    assert w.dtype == expected.dtype and w.size == 1000 and _entries(w) == _entries(expected)


def test_extract_of_a_sparse_vector_keeps_absent_entries_absent():
    u = gb.Vector.from_coo([2, 5], [7, 9], size=8)
    w = _be().extract(u, np.array([5, 0, 2, 5]))
    assert _entries(w) == ([0, 2, 3], [9, 7, 9])


def test_statuses_in_the_warmup_window_are_numpys_and_the_same(monkeypatch):
    """While the warm-up compiles, suitesparse's MIS-2 hashes its statuses with numpy and
    runs its masked pulls as GraphBLAS products, not their kernels: the same set as the
    numba backend's, and neither kernel is called."""
    from gbgraph import _warmup
    from gbgraph.backends.numba.kernels import products

    A = gg.generators.laplace3d(7)
    expected = gg.mis2(A, backend="numba").vertices
    monkeypatch.setattr(_warmup, "compiling", lambda: True)
    monkeypatch.setattr(Packing, "numba", lambda *args: pytest.fail("the statuses kernel ran in the warm-up's window"))
    monkeypatch.setattr(products, "pull_second", lambda *args: pytest.fail("the pull kernel ran in the warm-up's window"))
    assert np.array_equal(gg.mis2(A, backend="suitesparse").vertices, expected)


def _mesh_pattern(n=400, seed=5):
    rng = np.random.default_rng(seed)
    rows = np.repeat(np.arange(n), 5)
    cols = rng.integers(0, n, rows.size)
    A = gb.Matrix.from_coo(rows, cols, True, nrows=n, ncols=n)  # duplicates: one entry (iso)
    A = A.ewise_add(A.T, gb.binary.any).new()  # symmetric, about 10 entries a row
    empty = rng.choice(n, 10, replace=False)  # rows without entries: no product there
    keep = np.ones(n, bool)
    keep[empty] = False
    r, c, _ = A.to_coo()
    return gb.Matrix.from_coo(r[keep[r]], c[keep[r]], True, nrows=n, ncols=n)


@pytest.mark.parametrize("semiring", ["min_second", "max_second"])
@pytest.mark.parametrize("dtype", ["int32", "int64", "uint64", "uint32"])
@pytest.mark.parametrize("fraction", [0.02, 0.5, 0.97])
def test_masked_pull_of_integers_equals_graphblas(semiring, dtype, fraction):
    rng = np.random.default_rng(int(fraction * 100) + len(dtype))
    A = _mesh_pattern()
    n = A.nrows
    u = _full(rng.integers(0, 2**31 - 1, n).astype(dtype))
    mask = _be().vector(np.sort(rng.choice(n, int(fraction * n), replace=False)), True, n)
    expected = gb.Vector(u.dtype, n)
    expected(mask=mask.S) << A.mxv(u, getattr(gb.semiring, semiring))
    w = _be().mxv(semiring, A, u, mask=mask)
    assert w.dtype == expected.dtype and _entries(w) == _entries(expected)
    assert w.ss.format == "sparse" and mask.nvals == int(fraction * n)  # the mask keeps its entries


def test_masked_pull_into_out_keeps_the_rest_of_out():
    rng = np.random.default_rng(11)
    A = _mesh_pattern()
    n = A.nrows
    u = _full(rng.integers(-50, 50, n).astype(np.int64))
    mask = _be().vector(np.arange(0, n, 3), True, n)
    out = _full(np.full(n, 99, np.int64))
    expected = out.dup()
    expected(mask=mask.S) << A.mxv(u, gb.semiring.max_second)
    _be().mxv("max_second", A, u, mask=mask, out=out)
    assert _entries(out) == _entries(expected)


@pytest.mark.parametrize("form", ["full", "sparse"])
@pytest.mark.parametrize("iso", [False, True])
def test_assign_of_a_value_into_a_full_vector_through_itself_equals_graphblas(form, iso):
    rng = np.random.default_rng(7)
    n = 200
    w = gb.Vector.from_scalar(np.int64(5), n) if iso else _full(rng.integers(0, 9, n))
    idx = np.arange(n) if form == "full" else np.sort(rng.choice(n, 60, replace=False))
    value = _be().vector(idx, rng.integers(10, 20, idx.size), n)
    expected = w.dup()
    expected(mask=value.S) << value
    _be().assign(w, value, mask=value)
    assert _entries(w) == _entries(expected) and w.ss.format == "full"

"""The suitesparse backend's user-defined operators on a jumbled vector (SuiteSparse leaves
a push's result, ``vxm``, with its indices out of order until it next needs them sorted):
the results are in order, and SuiteSparse is told so only when they are."""

import graphblas as gb
import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.operators import IndexUnaryOp, RowOperator


def odd_position(x, i, j, t):
    """Whether the entry's position is odd."""
    return i % 2 == 1


def row_count(i, start, stop, cols, vals, u):
    """The row's stored entries (every row present)."""
    return stop - start, True


def _jumbled(indices, values, size):
    v = gb.Vector(values.dtype, size)
    v.ss.pack_sparse(indices=np.array(indices, np.uint64), values=values, sorted_index=False)
    return v


def _stored(w):
    """(indices, values) as the vector stores them, not sorted on the way out."""
    parts = w.ss.unpack(sort=False)
    try:
        indices = parts["indices"].copy() if parts["format"] == "sparse" else np.flatnonzero(parts.get("bitmap", 1))
        return indices, parts["values"].copy()
    finally:
        w.ss.pack_any(**parts)


def test_select_of_a_jumbled_vector_is_in_order():
    be = gg.backends.backend("suitesparse")
    u = _jumbled([9, 2, 7, 4, 1, 6], np.array([90, 20, 70, 40, 10, 60], np.int32), 12)
    indices, values = _stored(be.select(IndexUnaryOp(odd_position), u, 0))
    assert indices.tolist() == [1, 7, 9] and values.tolist() == [10, 70, 90]


def test_row_operator_under_a_jumbled_mask_is_in_order():
    be = gg.backends.backend("suitesparse")
    A = sp.random_array((12, 12), density=0.4, format="csr", random_state=np.random.default_rng(2))
    A = gb.io.from_scipy_sparse(A)
    mask = _jumbled([8, 3, 11, 0, 5], np.ones(5, bool), 12)
    w = be.mxv(RowOperator(row_count, fill=0), A, be.full(12, 0, "int64"), mask=mask)
    indices, values = _stored(w)
    counts = np.diff(A.ss.export("csr")["indptr"])
    assert indices.tolist() == [0, 3, 5, 8, 11] and values.tolist() == counts[[0, 3, 5, 8, 11]].tolist()

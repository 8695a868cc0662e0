"""Sparse matrix products ``C = A ⊕.⊗ B`` of the ``cupy`` backend.

``plus_times`` on floating-point values goes to cuSPARSE (``cupyx.scipy.sparse``). Every
other semiring is computed by expansion (one product per pair of entries A(i, j), B(j, k)),
a stable sort by (i, k) and a segmented reduction: each output entry reduces its products in
the order of A's columns, then B's, as a sequential loop would.
"""

import cupy

from .containers import Matrix, segments
from .kernels import segment_reduce

__all__ = ["mxm"]


def mxm(semiring, A, B, dtype):
    """``C = A ⊕.⊗ B`` in the result ``dtype`` the backend typed it in (no mask)."""
    monoid, multiply = semiring.split("_", 1)
    if semiring == "plus_times" and dtype.kind == "f":
        return Matrix.from_cupyx(A.to_cupyx(dtype) @ B.to_cupyx(dtype))  # cuSPARSE multiplies floats: an integer operand is converted
    i, j, k, a, b = _expand(A, B)
    product = _multiply(multiply, a, b, j, dtype)
    order = cupy.lexsort(cupy.stack((k, i)))
    i, k, product = i[order], k[order], product[order]
    first = cupy.flatnonzero(cupy.concatenate((cupy.ones(min(i.size, 1), bool),
                                               (i[1:] != i[:-1]) | (k[1:] != k[:-1]))))
    values = segment_reduce(monoid, product, first)
    rows = i[first]
    indptr = cupy.zeros(A.nrows + 1, cupy.int64)
    indptr[1:] = cupy.cumsum(cupy.bincount(rows, minlength=A.nrows))
    return Matrix(A.nrows, B.ncols, indptr, k[first].astype(B.indices.dtype), values)


def _expand(A, B):
    """(i, j, k, A(i, j), B(j, k)) for every pair of entries meeting at j, in the order of
    A's entries and, within each, of B's row j."""
    length = cupy.diff(B.indptr)[A.indices]
    first = cupy.cumsum(length) - length  # where each entry of A's pairs begin
    entry = segments(first, int(first[-1] + length[-1]) if length.size else 0)  # the entry of A of each pair
    i = A.rows()[entry]
    j = A.indices[entry].astype(cupy.int64)
    start = B.indptr[A.indices][entry]
    offset = cupy.arange(entry.size, dtype=cupy.int64) - first[entry]
    where = start + offset
    a = None if A.values is None else A.values[entry]
    b = None if B.values is None else B.values[where]
    return i, j, B.indices[where].astype(cupy.int64), a, b


def _multiply(multiply, a, b, j, dtype):
    ones = cupy.ones(j.size, dtype)
    if multiply == "first":
        return ones if a is None else a.astype(dtype)
    if multiply == "second":
        return ones if b is None else b.astype(dtype)
    if multiply == "pair":
        return ones
    if multiply == "secondi":
        return j.astype(dtype)
    x = ones if a is None else a.astype(dtype)
    y = ones if b is None else b.astype(dtype)
    return cupy.logical_and(x, y).astype(dtype) if multiply == "land" else x * y

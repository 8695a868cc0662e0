"""Masked matrix-vector products and row reductions over any protocol semiring.

The semiring is passed as two small integer codes (:data:`MONOIDS`, :data:`MULTIPLIES`);
the branch on them inside the loops is the same for every entry, so the processor predicts
it and one compiled kernel per type signature serves every semiring. A row is reduced in
column order, as the suitesparse and cupy backends reduce it, so every backend performs the
same operations in the same order.
"""

import numba
import numpy as np
from llvmlite import ir
from numba.core import cgutils, types
from numba.extending import intrinsic, overload

from .threads import parallel_above, row_work

__all__ = ["MONOIDS", "MULTIPLIES", "pull", "pull_second", "push", "segment_reduce", "scatter", "prefetch",
           "sparse_list", "positions", "PREFETCH_AHEAD"]

#: Monoid codes.
MONOIDS = {"min": 0, "max": 1, "plus": 2, "times": 3, "any": 4, "lor": 5, "land": 6, "bor": 7, "band": 8}
#: Multiply codes: A's value, u's value, 1, their product, the column index, logical and.
MULTIPLIES = {"first": 0, "second": 1, "pair": 2, "times": 3, "secondi": 4, "land": 5}


def _add(monoid, acc, x):
    """``acc ⊕ x`` for the monoid of code ``monoid`` (compiled by :func:`_add_typed`)."""


@overload(_add, inline="always")
def _add_typed(monoid, acc, x):
    """The bitwise monoids exist for integers only: floating-point kernels leave them out."""
    bitwise = not isinstance(acc, types.Float)

    def add(monoid, acc, x):
        if monoid == 0:
            return min(acc, x)
        if monoid == 1:
            return max(acc, x)
        if monoid == 2:
            return acc + x
        if monoid == 3:
            return acc * x
        if monoid == 4:
            return acc
        if monoid == 5:
            return acc or x
        if monoid == 6:
            return acc and x
        if bitwise and monoid == 7:
            return acc | x
        if bitwise and monoid == 8:
            return acc & x
        return acc

    return add


@intrinsic
def prefetch(typingctx, array, index):
    """A hint to load ``array[index]`` (an unsigned index, not checked) into the caches:
    LLVM's ``llvm.prefetch`` for a read with high locality; nothing is read, so an index
    past the end faults nothing."""
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, arguments):
        array_type = signature.args[0]
        view = context.make_array(array_type)(context, builder, arguments[0])
        pointer = cgutils.get_item_pointer(context, builder, array_type, view, [arguments[1]], wraparound=False)
        bytes_ = ir.IntType(8).as_pointer()
        fetch = cgutils.get_or_insert_function(builder.module, ir.FunctionType(
            ir.VoidType(), [bytes_, ir.IntType(32), ir.IntType(32), ir.IntType(32)]), "llvm.prefetch.p0")
        int32 = ir.IntType(32)
        builder.call(fetch, [builder.bitcast(pointer, bytes_), int32(0), int32(3), int32(1)])
        return context.get_dummy_value()

    return types.void(array, index), codegen


#: Listed rows ahead of the one being reduced whose column indices a kernel over a sparse
#: list of rows requests (twice as far: their ``indptr``). Rows scattered over a large matrix
#: each miss the caches three times in a chain (indptr, columns, values); requested this far
#: ahead, the first two arrive in time (MIS-2's column product at 7% of Laplace3D 100³'s
#: rows: 52 -> 26 ns a row; 5.3 -> 5.7 at every row, so only sparse lists request). The
#: requests are written out in each kernel: as a call to a helper, even one LLVM inlines,
#: the same loop ran twice as slowly at 40% of the rows.
PREFETCH_AHEAD = 16


@numba.njit(cache=True, inline="always")
def sparse_list(rows, indptr):
    """Whether a list of ``rows`` is sparse enough in the matrix of ``indptr`` that its
    kernels request rows ahead (:data:`PREFETCH_AHEAD`): under half of the rows."""
    return 2 * rows.size < indptr.size - 1


@numba.njit(cache=True, inline="always")
def _times(multiply, a, u, j, out):
    """The product of entry A(i, j) = ``a`` and ``u``, of ``out``'s type."""
    if multiply == 0:
        return out.dtype.type(a)
    if multiply == 1:
        return out.dtype.type(u)
    if multiply == 2:
        return out.dtype.type(1)
    if multiply == 3:
        return out.dtype.type(a) * out.dtype.type(u)
    if multiply == 4:
        return out.dtype.type(j)
    return out.dtype.type(bool(a) and bool(u))


@parallel_above(row_work, "indptr", "rows", "all_rows")
@numba.njit(cache=True, parallel=True)
def pull(indptr, indices, a, has_a, u, present, has_present, rows, all_rows, monoid, multiply, out, found):
    """``out[k] = ⊕_j A(r, j) ⊗ u(j)`` for the k-th row r of ``rows`` (every row when
    ``all_rows``), over the j where ``present`` holds (every j unless ``has_present``);
    ``found[k]``: the row met such a j. A pattern (``has_a`` False) has ones for values."""
    count = indptr.size - 1 if all_rows else rows.size
    for k in numba.prange(count):
        r = np.int64(k) if all_rows else np.int64(rows[k])
        acc = out.dtype.type(0)
        hit = False
        for p in range(indptr[r], indptr[r + 1]):
            j = indices[p]
            if has_present and not present[j]:
                continue
            x = _times(multiply, a[p] if has_a else 1, u[j], j, out)
            acc = _add(monoid, acc, x) if hit else x
            hit = True
        out[k] = acc
        found[k] = hit


@parallel_above(row_work, "indptr", "rows", "all_rows")
@numba.njit(cache=True, parallel=True)
def pull_second(indptr, indices, u, present, has_present, rows, all_rows, monoid, pair, out, found):
    """:func:`pull` for the multiplies that ignore A's values, ``second`` (u(j)) and
    ``pair`` (1): the products of the rounds. With fewer branches in its loop than the
    general kernel, the compiler keeps them out of it (three times faster on a mesh)."""
    count = indptr.size - 1 if all_rows else rows.size
    if not has_present and not pair:  # every term: loops per monoid
        chunks = max(1, min(256, count // 16384))
        size = (count + chunks - 1) // chunks
        for c in numba.prange(chunks):
            if all_rows:
                _fold_rows(indptr, indices, u, monoid, c * size, min(count, (c + 1) * size), out, found)
            else:
                _fold_listed_rows(indptr, indices, u, rows, monoid, c * size, min(count, (c + 1) * size), out, found)
        return
    for k in numba.prange(count):
        r = np.int64(k) if all_rows else np.int64(rows[k])
        acc = out.dtype.type(0)
        hit = False
        for p in range(indptr[r], indptr[r + 1]):
            j = indices[p]
            if has_present and not present[j]:
                continue
            x = out.dtype.type(1) if pair else out.dtype.type(u[j])
            acc = _add(monoid, acc, x) if hit else x
            hit = True
        out[k] = acc
        found[k] = hit


@numba.njit(cache=True)
def _fold_rows(indptr, indices, u, monoid, lo, hi, out, found):
    """:func:`pull_second`'s rows ``lo`` to ``hi`` over every term of ``second``, each row
    reduced in column order, reading ``u`` at unsigned column indices (numba wraps a negative
    signed index on each read); plus and min, the products of PageRank and FastSV, by loops
    of their own (:func:`_sum_rows`), the monoid's branch outside them (coAuthorsDBLP's
    plus_second: 5.6 -> 4.0 -> 3.3 ms); min's and max's positions unsigned too (Laplace3D
    100³'s closed pattern: 7.6 -> 5.3 ns a row; HEC's heavy neighbours by max over uint64
    keys, coAuthorsDBLP: 4.8 -> 3.7 ms on one thread)."""
    if monoid == 2:
        _sum_rows(indptr, indices, u, lo, hi, out, found)
    elif monoid <= 1:
        one = np.uint64(1)
        for r in range(np.uint64(lo), np.uint64(hi)):
            start, end = np.uint64(indptr[r]), np.uint64(indptr[r + one])
            found[r] = start < end
            if start < end:
                acc = out.dtype.type(u[np.uint64(indices[start])])
                for p in range(start + one, end):
                    x = out.dtype.type(u[np.uint64(indices[p])])
                    acc = max(acc, x) if monoid else min(acc, x)
                out[r] = acc
    else:
        for r in range(lo, hi):
            start, end = indptr[r], indptr[r + 1]
            found[r] = start < end
            if start < end:
                acc = out.dtype.type(u[np.uint64(indices[start])])
                for p in range(start + 1, end):
                    acc = _add(monoid, acc, out.dtype.type(u[np.uint64(indices[p])]))
                out[r] = acc


@numba.njit(cache=True)
def _fold_listed_rows(indptr, indices, u, rows, monoid, lo, hi, out, found):
    """:func:`_fold_rows` for the rows ``rows[lo:hi]`` of a mask (``out`` and ``found``
    aligned with ``rows``), reading at unsigned indices too: a masked round's product
    (MIS-2's columns on Laplace3D 100³, 500,000 of the rows: 5.6 -> 4.4 ms); min, the
    rounds' monoid, by a loop of its own (:func:`_least_listed_rows`)."""
    if monoid == 0:
        _least_listed_rows(indptr, indices, u, rows, lo, hi, out, found, sparse_list(rows, indptr))
        return
    for k in range(lo, hi):
        r = np.uint64(rows[k])
        start, end = indptr[r], indptr[r + np.uint64(1)]
        found[k] = start < end
        if start < end:
            acc = out.dtype.type(u[np.uint64(indices[start])])
            for p in range(start + 1, end):
                acc = _add(monoid, acc, out.dtype.type(u[np.uint64(indices[p])]))
            out[k] = acc


@numba.njit(cache=True)
def _least_listed_rows(indptr, indices, u, rows, lo, hi, out, found, sparse):
    """:func:`_fold_listed_rows` for min: positions unsigned (numba tests a signed one for
    wraparound on each read) and the monoid's branch out of the loop, whose code LLVM had
    merged into a jump per term (Laplace3D 100³, every row listed: 8.3 -> 5.3 ns a row); a
    ``sparse`` list requests its rows ahead (:data:`PREFETCH_AHEAD`)."""
    one, step, hi = np.uint64(1), np.uint64(PREFETCH_AHEAD), np.uint64(hi)
    for k in range(np.uint64(lo), hi):
        if sparse:
            ahead = k + step
            if ahead + step < hi:
                prefetch(indptr, np.uint64(rows[ahead + step]))
            if ahead < hi:
                prefetch(indices, np.uint64(indptr[np.uint64(rows[ahead])]))
        r = np.uint64(rows[k])
        start, end = np.uint64(indptr[r]), np.uint64(indptr[r + one])
        found[k] = start < end
        if start < end:
            acc = out.dtype.type(u[np.uint64(indices[start])])
            for p in range(start + one, end):
                acc = min(acc, out.dtype.type(u[np.uint64(indices[p])]))
            out[k] = acc


@numba.njit(cache=True)
def _sum_rows(indptr, indices, u, lo, hi, out, found):
    """:func:`_fold_rows` for plus, two terms a step, still in column order: -0.0 + x is x
    for every float x (-0.0 and NaN too) and 0 + x for an integer, so the sum starts there
    with no branch (an empty row's value is not found)."""
    end = indptr[np.uint64(lo)]
    for r in range(np.uint64(lo), np.uint64(hi)):  # unsigned: no wraparound test on each read
        start, end = end, indptr[r + np.uint64(1)]
        acc = out.dtype.type(-0.0)
        p = start
        while p + 1 < end:  # column indices are never negative
            acc = (acc + out.dtype.type(u[np.uint64(indices[p])])) + out.dtype.type(u[np.uint64(indices[p + 1])])
            p += 2
        if p < end:
            acc += out.dtype.type(u[np.uint64(indices[p])])
        out[r] = acc
        found[r] = start < end


@numba.njit(cache=True)
def push(indptr, indices, a, has_a, sources, u, monoid, multiply, out, found):
    """``w(j) = ⊕_i u_i ⊗ A(i, j)`` over the rows i = ``sources`` (ascending) with values
    ``u``: each source row scattered in turn, so w(j) combines its terms in the order of i.
    ``out`` and ``found`` are dense scratch arrays (``found`` all false); returns the sorted
    positions reached.

    The source rows lie anywhere in A, so each would miss the caches twice in a chain
    (``indptr``, then its columns): they are requested :data:`PREFETCH_AHEAD` sources
    ahead, as the pulls over a sparse list of rows do, and positions are read unsigned;
    many positions reached are listed by :func:`positions` (MIS-2 aggregation's phase 1, the
    roots' rows of A + I, one thread: coAuthorsDBLP's 37,000 1.9 -> 0.6 ms, delaunay_n17's
    12,900 0.56 -> 0.29 ms, Laplace3D 100³'s 90,000 6.5 -> 3.5 ms)."""
    one, step, count = np.uint64(1), np.uint64(PREFETCH_AHEAD), np.uint64(sources.size)
    total = 0
    for k in range(count):
        total += indptr[np.uint64(sources[k]) + one] - indptr[np.uint64(sources[k])]
    # the positions reached are listed while few (then sorted); past found.size / 16 a pass
    # over the flags costs less than a sort, and the list stops
    touched = np.empty(min(total, found.size // 16 + 1), np.int64)
    t = 0
    for k in range(count):
        ahead = k + step
        if ahead + step < count:
            prefetch(indptr, np.uint64(sources[ahead + step]))
        if ahead < count:
            prefetch(indices, np.uint64(indptr[np.uint64(sources[ahead])]))
        i = np.uint64(sources[k])
        for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + one])):
            j = np.uint64(indices[p])
            x = _times(multiply, u[k], a[p] if has_a else 1, j, out)
            if found[j]:
                out[j] = _add(monoid, out[j], x)
            else:
                out[j] = x
                found[j] = True
                if t < touched.size:
                    touched[t] = j
                t += 1
    if t > touched.size or 16 * t > found.size:
        return positions(found, t)
    return np.sort(touched[:t])


@numba.njit(cache=True)
def positions(flags, count):
    """``np.flatnonzero(flags)``, of which ``count`` are set: each position written and kept
    where set, no branch (numba's own ``flatnonzero`` branches on every flag and counts them
    first: 0.45 ms for delaunay_n17's 131,000 flags, more than the push that set them)."""
    out = np.empty(count + 1, np.int64)  # one past: the last position is written whether set or not
    c = 0
    for i in range(flags.size):
        out[c] = i
        c += flags[i]
    return out[:count]


@parallel_above(np.size, "values")
@numba.njit(cache=True, parallel=True)
def segment_reduce(values, starts, ends, monoid, out):
    """``out[k]`` = ``values[starts[k]:ends[k]]`` reduced in order (segments non-empty)."""
    for k in numba.prange(starts.size):
        acc = values[starts[k]]
        for p in range(starts[k] + 1, ends[k]):
            acc = _add(monoid, acc, values[p])
        out[k] = acc


@numba.njit(cache=True)
def scatter(keys, values, size, monoid):
    """(sorted keys, values): ``values`` of equal ``keys`` (each below ``size``) combined
    with the monoid of code ``monoid`` in the order given (``any``: the first), one
    sequential pass over dense scratch arrays of ``size``: a vector build without a sort."""
    out = np.empty(size, values.dtype)
    found = np.zeros(size, np.bool_)
    for k in range(keys.size):
        t = keys[k]
        if found[t]:
            out[t] = _add(monoid, out[t], values[k])
        else:
            out[t] = values[k]
            found[t] = True
    reached = np.flatnonzero(found)
    return reached, out[reached]

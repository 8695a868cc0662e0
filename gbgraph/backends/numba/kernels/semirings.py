"""Matrix-vector products over the semirings of the general forms: ``min_plus``,
``max_times``, ``min_secondi``, ``plus_min`` ... on int64 and float64.

``products.py`` serves the semirings of gbgraph's own algorithms; a product it does not
serve came to ``verbs.product``, which expands one term per pair of entries and sorts them
(Bellman-Ford's ``min_plus`` and a BFS push's ``min_secondi`` among them). These kernels
compute the same values in the same order: each output reduces its terms in the order of the
inner index, left to right, with IEEE ``fmin``/``fmax`` as numpy's (a NaN loses), so that
their results equal the expansion's bit for bit. Operands are cast to the result type as
they are read; the caller passes only operands whose cast is exact (``numpy.can_cast``).
"""

import numba
import numpy as np

from .threads import parallel_above, row_work

__all__ = ["MONOIDS", "MULTIPLIES", "pull", "push"]

#: Monoid codes: ``min`` and ``max`` are IEEE's fmin and fmax on floats.
MONOIDS = {"min": 0, "max": 1, "plus": 2, "times": 3, "any": 4}
#: Multiply codes; ``secondi`` gives the inner index k of the term A(i, k) ⊗ B(k, j).
MULTIPLIES = {"first": 0, "second": 1, "pair": 2, "plus": 3, "minus": 4, "rminus": 5, "times": 6, "min": 7,
              "max": 8, "secondi": 9}


@numba.njit(cache=True, inline="always")
def _add(monoid, acc, x):
    """``acc ⊕ x``; numpy's fmin keeps ``acc`` unless ``x < acc`` or ``acc`` is NaN (and x
    is not): ``acc`` where ``acc <= x`` or x is NaN, which is also the integers' min."""
    if monoid == 0:
        return acc if (acc <= x or x != x) else x
    if monoid == 1:
        return acc if (acc >= x or x != x) else x
    if monoid == 2:
        return acc + x
    if monoid == 3:
        return acc * x
    return acc


@numba.njit(cache=True, inline="always")
def _times(multiply, a, b, k, out):
    """The term ``a ⊗ b`` of A(i, k) = a and B(k, j) = b, in ``out``'s type."""
    t = out.dtype
    if multiply == 0:
        return t.type(a)
    if multiply == 1:
        return t.type(b)
    if multiply == 2:
        return t.type(1)
    if multiply == 3:
        return t.type(a) + t.type(b)
    if multiply == 4:
        return t.type(a) - t.type(b)
    if multiply == 5:
        return t.type(b) - t.type(a)
    if multiply == 6:
        return t.type(a) * t.type(b)
    if multiply == 7:
        return _add(0, t.type(a), t.type(b))
    if multiply == 8:
        return _add(1, t.type(a), t.type(b))
    return t.type(k)


@parallel_above(row_work, "indptr", "rows", "all_rows")
@numba.njit(cache=True, parallel=True)
def pull(indptr, indices, a, has_a, u, present, has_present, rows, all_rows, monoid, multiply, out, found):
    """``out[k] = ⊕_j A(r, j) ⊗ u(j)`` for the k-th row r of ``rows`` (every row when
    ``all_rows``), over the j where ``present`` holds (every j unless ``has_present``), in
    the order of j; ``found[k]``: the row met such a j. A pattern (``has_a`` False) has ones."""
    count = indptr.size - 1 if all_rows else rows.size
    for k in numba.prange(count):
        r = np.int64(k) if all_rows else np.int64(rows[k])
        acc = out.dtype.type(0)
        hit = False
        for p in range(indptr[r], indptr[r + 1]):
            j = np.int64(indices[p])
            if has_present and not present[j]:
                continue
            x = _times(multiply, a[p] if has_a else 1, u[j], j, out)
            acc = _add(monoid, acc, x) if hit else x
            hit = True
        out[k] = acc
        found[k] = hit


@numba.njit(cache=True)
def push(indptr, indices, a, has_a, sources, u, monoid, multiply, out, found):
    """``w(j) = ⊕_k u_k ⊗ A(k, j)`` over the rows k = ``sources`` (ascending) with values
    ``u``: each source row scattered in turn, so w(j) combines its terms in the order of k.
    ``out`` and ``found`` are dense scratch arrays (``found`` all False); returns the sorted
    positions reached."""
    total = 0
    for s in range(sources.size):
        total += indptr[sources[s] + 1] - indptr[sources[s]]
    touched = np.empty(total, np.int64)
    reached = 0
    for s in range(sources.size):
        k = np.int64(sources[s])
        for p in range(indptr[k], indptr[k + 1]):
            j = np.int64(indices[p])
            x = _times(multiply, u[s], a[p] if has_a else 1, k, out)
            if found[j]:
                out[j] = _add(monoid, out[j], x)
            else:
                out[j] = x
                found[j] = True
                touched[reached] = j
                reached += 1
    if reached <= 32:  # a few: sorted in place (numpy's sort would add seconds of compiling)
        positions = touched[:reached]
        for a in range(1, reached):
            key, b = positions[a], a
            while b > 0 and positions[b - 1] > key:
                positions[b] = positions[b - 1]
                b -= 1
            positions[b] = key
        return positions
    return _flagged(found, reached)


@numba.njit(cache=True)
def _flagged(found, count):
    """The ``count`` positions where ``found`` holds, in order, reading eight flags at a time."""
    positions = np.empty(count, np.int64)
    n = 0
    words = found.size // 8
    flags = found[:8 * words].view(np.uint64)
    for w in range(words):
        if flags[w]:
            for j in range(8 * w, 8 * w + 8):
                if found[j]:
                    positions[n] = j
                    n += 1
    for j in range(8 * words, found.size):
        if found[j]:
            positions[n] = j
            n += 1
    return positions

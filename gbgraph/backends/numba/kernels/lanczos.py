"""Lanczos steps on S = diag(s) A diag(s) for an A equal to its transpose bit for bit, reading
A's upper triangle only: the same bits as numpy's and scipy's operations in
:class:`gbgraph.solvers.polynomial._HostLanczos`, one pass over the triangle and one over
two vectors a step, on one thread.

Why the same bits:

* the product: scipy's ``csr_matvec`` adds row i's terms ``A[i, j] x[j]`` in stored order
  into a sum that starts at 0. Where each row's columns increase and each left entry
  ``A[i, j]`` equals its mirror ``A[j, i]`` (:func:`upper_triangle` checks both, entry by
  entry), row i's left terms are the ones rows j < i push while the rows are taken in order
  (row j's entry ``A[j, i]`` times ``x[j]``, the same product): they arrive in increasing j,
  then row i adds its own diagonal and right terms in stored order;
* the updates: ``w = sum s[i] - β previous[i]``, ``w - α v``, ``/ β`` and ``x = s v`` are
  numpy's operations, one rounding each (numba contracts no multiply-add without
  ``fastmath``); the step's ``v ← (w - α v) / β`` runs row by row just ahead of the next
  product, as far as the rows its terms read;
* α and β²: numpy's ``add.reduce`` of the products, its pairwise sum (numpy's
  ``pairwise_sum``: below 8 terms in order, up to :data:`BLOCK` terms in 8 interleaved sums,
  above that the two halves at a multiple of 8 summed apart) added to the reduction's start,
  0. The leaves' sums are taken as the pass leaves them, and added up the tree after
  (:func:`pairwise_plan`).
"""

import numba
import numpy as np

__all__ = ["BLOCK", "TRIANGLE_ENTRIES", "pairwise_plan", "upper_triangle", "symmetric_steps"]

#: numpy's ``PW_BLOCKSIZE``: the pairwise sum's leaves hold at most this many terms
BLOCK = 128

#: Stored entries below which the host's steps stay numpy's and scipy's (the callers' rule):
#: there A is read from the caches and the triangle saves little (Laplace3D 60³, 1.49 M
#: entries: about 10 ms of a 280 ms setup), while these kernels' first compile on a machine
#: costs about 5 s (a first ``smoothed_aggregation_solver(laplace3d(20))`` 10 -> 15 s).
TRIANGLE_ENTRIES = 1 << 20

_LEAF, _ADD = 0, 1


@numba.njit(cache=True)
def pairwise_plan(n):
    """numpy's pairwise sum of n terms as leaves and a postfix program: (the leaves' ends, in
    order; the program, :data:`_LEAF` taking the next leaf's sum, :data:`_ADD` the sum of the
    last two, left + right). The recursion halves a length above :data:`BLOCK` at
    ``n // 2`` rounded down to a multiple of 8."""
    ends = np.empty(n // 32 + 2, np.int64)  # a leaf holds more than 32 terms
    program = np.empty(2 * ends.size, np.int8)
    starts = np.empty(64, np.int64)  # each level halves the length: under 64 levels
    lengths = np.empty(64, np.int64)
    visits = np.zeros(64, np.int64)  # 0: new, 1: left half planned, 2: both
    starts[0], lengths[0] = 0, n
    top, leaves, steps = 0, 0, 0
    while top >= 0:
        length = lengths[top]
        if length <= BLOCK:
            ends[leaves] = starts[top] + length
            leaves += 1
            program[steps] = _LEAF
            steps += 1
            top -= 1
            continue
        if visits[top] == 2:
            program[steps] = _ADD
            steps += 1
            top -= 1
            continue
        half = length // 2 - (length // 2) % 8
        visits[top] += 1
        left = visits[top] == 1
        top += 1
        starts[top] = starts[top - 1] if left else starts[top - 1] + half
        lengths[top] = half if left else lengths[top - 1] - half
        visits[top] = 0
    return ends[:leaves].copy(), program[:steps].copy()


@numba.njit(cache=True)
def _summed(leaves, program):
    """The pairwise tree's sum of the leaves' sums, plus the reduction's 0."""
    stack = np.empty(64)
    top, leaf = 0, 0
    for op in program:
        if op == _LEAF:
            stack[top] = leaves[leaf]
            leaf += 1
            top += 1
        else:
            top -= 1
            stack[top - 1] = stack[top - 1] + stack[top]
    return 0.0 + stack[0]


@numba.njit(cache=True, inline="always")
def _term(w, v, alpha, i, squared):
    """Term i of α's sum (w v), or of β²'s ((w - α v)²)."""
    if squared:
        t = w[i] - alpha * v[i]
        return t * t
    return w[i] * v[i]


@numba.njit(cache=True)
def _leaf(w, v, alpha, start, end, squared):
    """numpy's pairwise sum of a leaf: the terms start .. end - 1, at most :data:`BLOCK`."""
    n = end - start
    if n < 8:
        total = 0.0
        for i in range(start, end):
            total += _term(w, v, alpha, i, squared)
        return total
    r0 = _term(w, v, alpha, start, squared)
    r1 = _term(w, v, alpha, start + 1, squared)
    r2 = _term(w, v, alpha, start + 2, squared)
    r3 = _term(w, v, alpha, start + 3, squared)
    r4 = _term(w, v, alpha, start + 4, squared)
    r5 = _term(w, v, alpha, start + 5, squared)
    r6 = _term(w, v, alpha, start + 6, squared)
    r7 = _term(w, v, alpha, start + 7, squared)
    i = start + 8
    last = end - n % 8
    while i < last:
        r0 += _term(w, v, alpha, i, squared)
        r1 += _term(w, v, alpha, i + 1, squared)
        r2 += _term(w, v, alpha, i + 2, squared)
        r3 += _term(w, v, alpha, i + 3, squared)
        r4 += _term(w, v, alpha, i + 4, squared)
        r5 += _term(w, v, alpha, i + 5, squared)
        r6 += _term(w, v, alpha, i + 6, squared)
        r7 += _term(w, v, alpha, i + 7, squared)
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < end:
        total += _term(w, v, alpha, i, squared)
        i += 1
    return total


def upper_triangle(indptr, indices, data, checked=False):
    """A's diagonal and right entries (row by row) if the product may read them alone.

    It may where every row's columns are strictly increasing and its entries left of the
    diagonal are, in that order, the mirrors of the right entries of the rows above
    (``A[i, j]`` for ``A[j, i]``, j < i, the same bits): scipy's product then adds row i's
    terms in the order rows j < i push them. One pass copies the triangle, checks the order
    of the columns and, unless ``checked``, the mirrors, and stops at the first mismatch.

    ``checked``: the caller found ``A - Aᵀ`` without a nonzero where the check failed (a
    stored zero without its mirror, -0 against +0), so the mirrors are not checked: where a
    stored entry's mirror is not stored, both are zeros, and a term ±0 (x is finite: the
    scaled unit vector) leaves a sum that starts at +0 as it is, since such a sum is never
    -0; a mirror stored as -0 for +0 is the same case.

    The arrays are numpy's: numpy asks for huge pages for large ones, where numba's
    allocations fault in 4 KiB pages (3-4 times the system time); and they are no larger than
    a symmetric pattern's triangle (a pattern with more right entries than left ones is
    refused, and its steps are numpy's), where the allocator may reuse the memory of the
    setup's freed arrays rather than map fresh pages (the 100³ setup's system time in one
    process: 155-337 ms with arrays of A's size, 34-85 with these).

    Returns
    -------
    (indptr, indices, data) or None
        The triangle's CSR arrays (int64 pointers, A's column type), or None where the
        product may not read it alone.
    """
    room = (indices.size + indptr.size) // 2  # a symmetric pattern's triangle, diagonal included
    pointers = np.empty(indptr.size, np.int64)
    columns = np.empty(room, indices.dtype)
    values = np.empty(room, data.dtype)
    count = _triangle(indptr, indices, data, pointers, columns, values, checked)
    return None if count < 0 else (pointers, columns[:count], values[:count])


@numba.njit(cache=True)
def _triangle(indptr, indices, data, pointers, columns, values, checked):
    """:func:`upper_triangle`'s pass: the triangle's entries, or -1 at the first mismatch.
    Row i's left entries are matched against the rows above in the copy, just written
    (each row's next right entry to be matched in ``mirrored``), rather than row i's right
    entries against the rows below in A, which are twice as far apart."""
    n = indptr.size - 1
    bits = data.view(np.int64)
    copied = values.view(np.int64)
    mirrored = np.empty(n, np.int64)
    pointers[0] = 0
    count = 0
    for i in range(n):
        first, last = count, -1
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j <= last:  # columns out of order
                return -1
            last = j
            if j < i:
                if not checked:  # the mirror: row j's next right entry
                    m = mirrored[j]
                    if m >= pointers[j + 1] or columns[m] != i or copied[m] != bits[k]:
                        return -1
                    mirrored[j] = m + 1
                continue
            if count == columns.size:  # more right entries than left ones: not symmetric
                return -1
            columns[count] = j
            values[count] = data[k]
            count += 1
        pointers[i + 1] = count
        mirrored[i] = first + 1 if count > first and columns[first] == i else first  # past the diagonal
    if not checked:
        for i in range(n):  # every right entry matched by its mirror
            if mirrored[i] != pointers[i + 1]:
                return -1
    return count


@numba.njit(cache=True)
def symmetric_steps(indptr, indices, data, scale, vectors, parity, alpha, beta, pending, first, last, ends, program,
                    alphas, betas):
    """Steps first .. last - 1 of Lanczos on S = diag(scale) A diag(scale), A given by
    :func:`upper_triangle`'s (indptr, indices, data), as ``_HostLanczos.run``.

    ``vectors``: rows ``parity`` and ``1 - parity`` hold v and the previous v, rows 2 and 3
    w and x = scale v (their content is overwritten). With ``pending``, v and w are those
    before the last step's ``v ← (w - α v) / β`` (β = 0: no division), ``alpha`` and ``beta``
    the last step's; the update writes the new v over the previous one, so that v's row
    alternates. ``ends`` and ``program``: :func:`pairwise_plan` of the vectors' length.
    Writes ``alphas[j]`` and ``betas[j]`` and returns (α, β, parity) after the last step,
    whose update of v is left pending.
    """
    n = indptr.size - 1
    w, x = vectors[2], vectors[3]
    leaves = np.empty(ends.size)
    for j in range(first, last):
        if pending:  # the update writes the new v over the previous, which then holds the old v
            parity = 1 - parity
        v, previous = vectors[parity], vectors[1 - parity]
        ready, furthest, leaf, leaf_start = 0, 0, 0, 0
        for i in range(n):
            start, end = np.uint64(indptr[i]), np.uint64(indptr[i + 1])  # unsigned: no wraparound test
            if end > start:  # the row's last column is its largest
                furthest = max(furthest, indices[end - np.uint64(1)])
            while ready <= max(furthest, i):  # the rows row i reads, updated: v, x, and w cleared for the sums
                if pending:
                    t = w[ready] - alpha * previous[ready]
                    v[ready] = t / beta if beta else t
                x[ready] = scale[ready] * v[ready]
                w[ready] = 0.0
                ready += 1
            total = w[i]  # the terms pushed by the rows above
            xi = x[i]
            if start < end and indices[start] == i:  # the diagonal, first of the sorted row
                total += data[start] * xi
                start += np.uint64(1)
            for k in range(start, end):
                c = np.uint64(indices[k])
                total += data[k] * x[c]
                w[c] += data[k] * xi
            w[i] = total * scale[i] - beta * previous[i]
            if i + 1 == ends[leaf]:
                leaves[leaf] = _leaf(w, v, 0.0, leaf_start, i + 1, False)
                leaf_start = i + 1
                leaf += 1
        alpha = _summed(leaves, program)
        alphas[j] = alpha
        start = 0
        for leaf in range(ends.size):
            leaves[leaf] = _leaf(w, v, alpha, start, ends[leaf], True)
            start = ends[leaf]
        beta = np.sqrt(_summed(leaves, program))
        betas[j] = beta
        pending = True
    return alpha, beta, parity

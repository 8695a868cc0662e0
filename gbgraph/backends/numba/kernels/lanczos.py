"""Lanczos steps on S = diag(s) A diag(s) (A CSR), the same bit for bit as numpy's and
scipy's operations in :class:`gbgraph.solvers.polynomial._HostLanczos`, in two passes a step
instead of a dozen numpy passes, the product's on numba's threads.

What makes them the same:

* the product: scipy's ``csr_matvec`` adds each row's terms ``A[i, j] x[j]`` in stored order
  into a sum that starts at 0, with ``x = s v`` (each ``s[j] v[j]`` rounded once, whether
  stored or not), then ``w[i] = sum s[i] - β previous[i]``, one rounding per operation as
  numpy's in-place updates (numba contracts no multiply-add without ``fastmath``);
* α and β²: numpy's ``add.reduce`` of the products, a pairwise sum (numpy's
  ``pairwise_sum``: below 8 terms in order, up to :data:`BLOCK` terms in 8 interleaved sums,
  above that the two halves at a multiple of 8 summed apart), added to the reduction's start,
  0. The tree's nodes at depth :data:`DEPTH` are the tasks threads take (each row of the
  product in the task holding its sum's terms), and their sums are added up the tree after:
  the same sums in the same order whatever the number of threads.
"""

import numba
import numpy as np

from .threads import parallel_above

__all__ = ["BLOCK", "DEPTH", "tasks", "lanczos_steps"]

#: numpy's ``PW_BLOCKSIZE``: the pairwise sum's leaves hold at most this many terms
BLOCK = 128

#: Depth of the pairwise tree whose nodes threads take: 8 tasks, for up to 8 threads
DEPTH = 3


def tasks(n):
    """The bounds of the pairwise tree's nodes at depth :data:`DEPTH` for n terms (numpy's
    splits: the first half is ``n // 2`` rounded down to a multiple of 8), or the whole range
    where a node above that depth is a leaf."""
    nodes = [(0, n)]
    for _ in range(DEPTH):
        if any(length <= BLOCK for _, length in nodes):
            return np.array([0, n], np.int64)
        split = []
        for start, length in nodes:
            half = length // 2 - (length // 2) % 8
            split += [(start, half), (start + half, length - half)]
        nodes = split
    return np.array([start for start, _ in nodes] + [n], np.int64)


@numba.njit(cache=True, inline="always")
def _term(w, v, alpha, i, update):
    """Term i of α's sum (w v), or of β²'s (w w) after ``w[i] -= α v[i]``."""
    if update:
        w[i] = w[i] - alpha * v[i]
        return w[i] * w[i]
    return w[i] * v[i]


@numba.njit(cache=True)
def _block(w, v, alpha, start, n, update):
    """numpy's pairwise sum of a leaf: n <= :data:`BLOCK` terms from ``start``."""
    if n < 8:
        total = 0.0
        for i in range(start, start + n):
            total += _term(w, v, alpha, i, update)
        return total
    r0 = _term(w, v, alpha, start, update)
    r1 = _term(w, v, alpha, start + 1, update)
    r2 = _term(w, v, alpha, start + 2, update)
    r3 = _term(w, v, alpha, start + 3, update)
    r4 = _term(w, v, alpha, start + 4, update)
    r5 = _term(w, v, alpha, start + 5, update)
    r6 = _term(w, v, alpha, start + 6, update)
    r7 = _term(w, v, alpha, start + 7, update)
    i = start + 8
    end = start + n - n % 8
    while i < end:
        r0 += _term(w, v, alpha, i, update)
        r1 += _term(w, v, alpha, i + 1, update)
        r2 += _term(w, v, alpha, i + 2, update)
        r3 += _term(w, v, alpha, i + 3, update)
        r4 += _term(w, v, alpha, i + 4, update)
        r5 += _term(w, v, alpha, i + 5, update)
        r6 += _term(w, v, alpha, i + 6, update)
        r7 += _term(w, v, alpha, i + 7, update)
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < start + n:
        total += _term(w, v, alpha, i, update)
        i += 1
    return total


@numba.njit(cache=True)
def _pairwise(w, v, alpha, start, n, update):
    """numpy's ``pairwise_sum`` of the terms start .. start + n - 1: its recursion (the two
    halves, the first ``n // 2`` rounded down to a multiple of 8) walked with a stack, each
    node's sum the sum of its halves', left + right."""
    if n <= BLOCK:
        return _block(w, v, alpha, start, n, update)
    starts = np.empty(64, np.int64)  # each level halves the length: under 64 levels
    lengths = np.empty(64, np.int64)
    visits = np.zeros(64, np.int64)  # 0: new, 1: left half summed, 2: both
    sums = np.empty(64)
    starts[0], lengths[0] = start, n
    top, count = 0, 0
    while top >= 0:
        length = lengths[top]
        if length <= BLOCK:
            sums[count] = _block(w, v, alpha, starts[top], length, update)
            count += 1
            top -= 1
            continue
        half = length // 2 - (length // 2) % 8
        if visits[top] == 2:
            count -= 1
            sums[count - 1] = sums[count - 1] + sums[count]
            top -= 1
            continue
        visits[top] += 1
        left = visits[top] == 1
        top += 1
        starts[top] = starts[top - 1] if left else starts[top - 1] + half
        lengths[top] = half if left else lengths[top - 1] - half
        visits[top] = 0
    return sums[0]


@numba.njit(cache=True)
def _up_the_tree(partial):
    """The tasks' sums added as the pairwise tree adds its nodes, plus the reduction's 0."""
    count = partial.size
    while count > 1:
        count //= 2
        for k in range(count):
            partial[k] = partial[2 * k] + partial[2 * k + 1]
    return 0.0 + partial[0]


def _product_work(indptr):
    """Entries a product pass reads: A's, and a row's vectors."""
    return int(indptr[-1]) + 3 * (indptr.size - 1)


@parallel_above(_product_work, "indptr")
@numba.njit(cache=True, parallel=True)
def _product(indptr, indices, data, scale, x, previous, beta, v, w, bounds, partial):
    """w = S v - β previous (x = scale v), and ``partial[t]``: α's sum over task t."""
    for t in numba.prange(bounds.size - 1):
        for i in range(bounds[t], bounds[t + 1]):
            total = 0.0
            for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):  # unsigned: no wraparound test
                total += data[k] * x[np.uint64(indices[k])]
            w[i] = total * scale[i] - beta * previous[i]
        partial[t] = _pairwise(w, v, 0.0, bounds[t], bounds[t + 1] - bounds[t], False)


@numba.njit(cache=True)
def _next(scale, alpha, v, previous, w, x, bounds, partial):
    """w -= α v and β = ‖w‖, then previous, v ← v, w / β (w itself for β = 0: the Krylov space
    is exhausted, and the test stops there) and x = scale v; returns β. One thread: a pass
    over a few vectors is below what a parallel region pays for on these sizes."""
    for t in range(bounds.size - 1):
        partial[t] = _pairwise(w, v, alpha, bounds[t], bounds[t + 1] - bounds[t], True)
    beta = np.sqrt(_up_the_tree(partial))
    for i in range(v.size):
        previous[i] = v[i]
        v[i] = w[i] / beta if beta else w[i]
        x[i] = scale[i] * v[i]
    return beta


def lanczos_steps(indptr, indices, data, scale, vectors, beta, first, last, bounds, alphas, betas):
    """Steps first .. last - 1 of Lanczos on S = diag(scale) A diag(scale), A's CSR
    (indptr, indices, data), as ``_HostLanczos.run``: ``vectors`` holds v, the previous v,
    w and x = scale v (w's and x's content is overwritten); ``bounds``: :func:`tasks` of
    the vectors' length. Writes ``alphas[j]`` and ``betas[j]`` and returns the last β.

    The product runs on numba's threads above :data:`~.threads.PARALLEL_WORK` entries, the
    rest on one: a parallel region a pass would cost more than it saves, and a busy machine
    stalls each region on its slowest thread."""
    v, previous, w, x = vectors
    np.multiply(scale, v, out=x)
    partial = np.empty(bounds.size - 1)
    for j in range(first, last):
        _product(indptr, indices, data, scale, x, previous, beta, v, w, bounds, partial)
        alphas[j] = alpha = _up_the_tree(partial)
        betas[j] = beta = _next(scale, alpha, v, previous, w, x, bounds, partial)
    return beta

"""Coarse graphs by Gilbert et al.'s sort construction, compiled: the CPU twin of coarse.cu.

GraphBLAS form: ``A_c = select(offdiag, Pᵀ ⊕plus.second (A ⊕plus.first P))``, P the
n × k aggregation operator (``P(i, labels[i]) = 1``), computed as Algorithm 6 of [1]_: each
aggregate a collects the fine entries (u, v) of its members u with ``labels[v] = b ≠ a``,
groups them by b and sums each group. The result equals
``gbgraph.algorithms.coarsen._by_construction(..., "sort", ...)`` bit for bit, float weights
included: a group holds its fine entries in row-major order (members ascending, columns in
row order), as that function's stable sort leaves them, and is summed in the order of
numpy's ``add.reduceat`` (pairwise summation), as coarse.cu does on the GPU.

With ``low_degree_end`` (the paper's l.1-10 and l.22, for skewed graphs) a fine entry counts
only at the end whose aggregate has the smaller estimate (its number of crossing entries;
ties by the smaller fine id), and a coarse edge (a, b) then adds the group sums of (a, b) and
(b, a), as that function's second deduplication does.

Rows are scattered in parallel by ranges, each into room reserved for it in every bucket,
and aggregates are grouped in parallel, each writing only its own coarse row: the result does
not depend on the number of threads.

References
----------
.. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030
"""

import numba
import numpy as np

__all__ = ["coarse_by_sort", "reduceat_sum"]

#: numpy's pairwise summation adds runs of up to this many values with 8 partial sums
_PW_BLOCKSIZE = 128

#: groups of up to this many entries are summed as they come: numpy adds fewer than 8 values
#: after the first one in order
_STREAMED = 8

#: fine entries per thread, about a millisecond of work
_ENTRIES_PER_THREAD = 1 << 18


def coarse_by_sort(indptr, indices, labels, k, weights=None, low_degree_end=False):
    """CSR arrays of the coarse graph of ``labels``: int64 row pointers and columns.

    Parameters
    ----------
    indptr, indices : numpy.ndarray
        Sorted CSR of the fine graph without its diagonal; int64 row pointers.
    labels : numpy.ndarray of int64
        Aggregate of each vertex, 0 .. k-1.
    k : int
        Number of aggregates.
    weights : numpy.ndarray of float64, optional
        Edge weights aligned with ``indices``; None counts the fine edges (int64 values).
    low_degree_end : bool
        Keep each fine entry at its lower-estimate end only, then add the transpose.

    Returns
    -------
    indptr, indices, values : numpy.ndarray
        Rows sorted by column, no diagonal.

    Notes
    -----
    Four passes, none of which reads the fine rows out of order (reading the rows of each
    aggregate's members in turn, as coarse.cu does, waits on memory at every member):

    1. the fine rows, split into one range per thread, reserve room for their entries in
       each aggregate's bucket, the ranges in order;
    2. each range scatters its crossing entries (u, v) into the bucket of ``labels[u]`` as
       ``(2 labels[v] + [u < v], weight)``: a bucket then lists its entries in row-major
       order, and its size is the aggregate's estimate (l.1-10);
    3. each aggregate counts the distinct columns of its kept entries (its coarse degree);
    4. each aggregate groups its kept entries by column and sums the groups (l.20-21).
    """
    # a thread per _ENTRIES_PER_THREAD entries: on small graphs a parallel region costs more
    # than it saves (more so on a busy machine, where a worker may not run for a time slice)
    threads = int(min(numba.get_num_threads(), max(1, indptr[-1] // _ENTRIES_PER_THREAD)))
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return _coarse_by_sort(indptr, indices, labels, k, weights, low_degree_end, threads)
    finally:
        numba.set_num_threads(previous)


def _coarse_by_sort(indptr, indices, labels, k, weights, low_degree_end, threads):
    weighted = weights is not None
    weights = weights if weighted else np.zeros(0)
    rows = np.searchsorted(indptr, (int(indptr[-1]) * np.arange(threads + 1)) // threads).astype(np.int64)
    rows[-1] = labels.size
    start = _reserve(indptr, labels, rows, k)
    keys = np.empty(indptr[-1], np.int32 if 2 * k < 2**31 else np.int64)
    values = np.empty(indptr[-1] if weighted else 0)
    end = _scatter(indptr, indices, labels, weights, rows, start, keys, values)
    sizes = (end - start).sum(axis=0)  # crossing entries of each aggregate: C'
    estimate = sizes if low_degree_end else sizes[:0]
    slot = np.zeros(k + 1, np.int64)
    np.cumsum(sizes, out=slot[1:])
    chunks = 4 * threads  # aggregates in ranges of about equal bucket sizes
    bounds = np.searchsorted(slot, (int(slot[-1]) * np.arange(chunks + 1)) // chunks).astype(np.int64)
    bounds[-1] = k
    degree = np.empty(k, np.int64)
    _degrees(start, end, keys, bounds, estimate, degree)
    coarse_ptr = np.zeros(k + 1, np.int64)
    np.cumsum(degree, out=coarse_ptr[1:])
    columns = np.empty(coarse_ptr[-1], np.int64)
    largest = int(sizes.max(initial=0))  # the largest bucket, and a bound on the widest coarse row
    widest = max(min(largest, k), 1)
    if weighted:
        sums = np.empty(coarse_ptr[-1], np.float64)
        _fill_sums(start, end, keys, values, bounds, estimate, coarse_ptr, columns, sums, widest, largest)
    else:
        sums = np.empty(coarse_ptr[-1], np.int64)
        _fill_counts(start, end, keys, bounds, estimate, coarse_ptr, columns, sums, widest)
    if low_degree_end:  # l.22: the other end of every coarse edge
        return _add_transpose(coarse_ptr, columns, sums)
    return coarse_ptr, columns, sums


@numba.njit(cache=True)
def _reserve(indptr, labels, rows, k):
    """``start[c, a]``: where row range c writes into aggregate a's bucket; buckets follow
    each other by aggregate, the ranges within a bucket in order; room for every entry."""
    chunks = rows.size - 1
    start = np.zeros((chunks, k), np.int64)
    for c in range(chunks):
        for u in range(rows[c], rows[c + 1]):
            start[c, labels[u]] += indptr[u + 1] - indptr[u]
    position = 0
    for a in range(k):
        for c in range(chunks):
            room = start[c, a]
            start[c, a] = position
            position += room
    return start


@numba.njit(cache=True, parallel=True)
def _scatter(indptr, indices, labels, weights, rows, start, keys, values):
    """Write each crossing entry (u, v) into the bucket of ``labels[u]``, from its row range's
    start there: key ``2 labels[v] + [u < v]``, and its weight; returns the ends."""
    end = start.copy()
    for c in numba.prange(rows.size - 1):
        for u in range(rows[c], rows[c + 1]):
            a = labels[u]
            q = end[c, a]
            for p in range(indptr[u], indptr[u + 1]):
                v = indices[p]
                b = labels[v]
                if b != a:
                    keys[q] = 2 * b + (u < v)
                    if values.size:
                        values[q] = weights[p]
                    q += 1
            end[c, a] = q
    return end


@numba.njit(inline="always")
def _kept(a, key, estimate):
    """Whether the bucket entry ``key`` of aggregate a counts at a: always, or with estimates
    at the end of smaller estimate, ties at the smaller fine id."""
    if estimate.size == 0:
        return True
    b = key >> 1
    return estimate[a] < estimate[b] or (estimate[a] == estimate[b] and key & 1 == 1)


@numba.njit(cache=True, parallel=True)
def _degrees(start, end, keys, bounds, estimate, degree):
    """``degree[a]``: distinct aggregates b among the kept entries of a's bucket."""
    k = degree.size
    for g in numba.prange(bounds.size - 1):
        mark = np.full(k, -1, np.int64)
        for a in range(bounds[g], bounds[g + 1]):
            d = 0
            for c in range(start.shape[0]):
                for q in range(start[c, a], end[c, a]):
                    b = keys[q] >> 1
                    if mark[b] != a and _kept(a, keys[q], estimate):
                        mark[b] = a
                        d += 1
            degree[a] = d


@numba.njit(inline="always")
def _row_columns(a, start, end, keys, estimate, columns, q, mark, rank, sizes):
    """Write aggregate a's coarse columns, sorted, at ``columns[q:q + d]`` and return d; the
    group of column ``columns[q + r]`` has ``sizes[r]`` kept entries, and ``rank[b] = r``."""
    j = q
    for c in range(start.shape[0]):
        for p in range(start[c, a], end[c, a]):
            b = keys[p] >> 1
            if _kept(a, keys[p], estimate):
                if mark[b] != a:
                    mark[b] = a
                    rank[b] = 0
                    columns[j] = b
                    j += 1
                rank[b] += 1  # the group's size, until the columns are sorted
    if j - q <= 16:  # a handful of columns: insertion sort
        for i in range(q + 1, j):
            x = columns[i]
            h = i
            while h > q and columns[h - 1] > x:
                columns[h] = columns[h - 1]
                h -= 1
            columns[h] = x
    else:
        columns[q:j].sort()
    for r in range(j - q):
        b = columns[q + r]
        sizes[r] = rank[b]
        rank[b] = r
    return j - q


@numba.njit(cache=True, parallel=True)
def _fill_counts(start, end, keys, bounds, estimate, coarse_ptr, columns, sums, widest):
    """Coarse rows of a pattern: ``A_c(a, b)`` = kept fine entries from a to b."""
    k = coarse_ptr.size - 1
    for g in numba.prange(bounds.size - 1):
        mark = np.full(k, -1, np.int64)
        rank = np.empty(k, np.int64)
        sizes = np.empty(widest, np.int64)
        for a in range(bounds[g], bounds[g + 1]):
            q = coarse_ptr[a]
            for r in range(_row_columns(a, start, end, keys, estimate, columns, q, mark, rank, sizes)):
                sums[q + r] = sizes[r]


@numba.njit(cache=True, parallel=True)
def _fill_sums(start, end, keys, values, bounds, estimate, coarse_ptr, columns, sums, widest, largest):
    """Coarse rows of a weighted graph, each group summed as ``np.add.reduceat`` sums it:
    ``x0 + (((-0.0 + x1) + x2) + ...)`` for groups of up to 8 entries, added as they come;
    larger groups are gathered into consecutive slots of a scratch array first."""
    k = coarse_ptr.size - 1
    for g in numba.prange(bounds.size - 1):
        mark = np.full(k, -1, np.int64)
        rank = np.empty(k, np.int64)
        sizes = np.empty(widest, np.int64)
        seen = np.empty(widest, np.int64)
        offset = np.empty(widest, np.int64)
        first = np.empty(widest, np.float64)
        scratch = np.empty(largest, np.float64)
        for a in range(bounds[g], bounds[g + 1]):
            q = coarse_ptr[a]
            d = _row_columns(a, start, end, keys, estimate, columns, q, mark, rank, sizes)
            gathered = 0
            for r in range(d):
                seen[r] = 0
                sums[q + r] = -0.0
                if sizes[r] > _STREAMED:
                    offset[r] = gathered
                    gathered += sizes[r]
            for c in range(start.shape[0]):
                for p in range(start[c, a], end[c, a]):
                    if _kept(a, keys[p], estimate):
                        r = rank[keys[p] >> 1]
                        m = seen[r]
                        seen[r] = m + 1
                        if sizes[r] > _STREAMED:
                            scratch[offset[r] + m] = values[p]
                        elif m == 0:
                            first[r] = values[p]
                        else:
                            sums[q + r] += values[p]
            for r in range(d):
                if sizes[r] > _STREAMED:
                    sums[q + r] = reduceat_sum(scratch, offset[r], sizes[r])
                elif sizes[r] > 1:
                    sums[q + r] = first[r] + sums[q + r]
                else:
                    sums[q + r] = first[r]


@numba.njit(cache=True)
def _add_transpose(indptr, columns, values):
    """``S + Sᵀ`` of a CSR with sorted rows: an entry present in both is ``S(a, b) + S(b, a)``,
    the order in which ``np.add.reduceat`` adds the pair after a stable sort of S's entries
    followed by Sᵀ's."""
    k = indptr.size - 1
    t_ptr = np.zeros(k + 1, np.int64)  # Sᵀ by a counting sort: rows come out sorted
    for p in range(columns.size):
        t_ptr[columns[p] + 1] += 1
    for a in range(k):
        t_ptr[a + 1] += t_ptr[a]
    cursor = t_ptr[:-1].copy()
    t_columns = np.empty(columns.size, np.int64)
    t_values = np.empty(columns.size, values.dtype)
    for a in range(k):
        for p in range(indptr[a], indptr[a + 1]):
            b = columns[p]
            t_columns[cursor[b]] = a
            t_values[cursor[b]] = values[p]
            cursor[b] += 1
    out_ptr = np.zeros(k + 1, np.int64)
    for a in range(k):
        out_ptr[a + 1] = out_ptr[a] + _merge(columns, values, indptr[a], indptr[a + 1], t_columns, t_values,
                                             t_ptr[a], t_ptr[a + 1], out_ptr[a], columns[:0], values[:0])
    out_columns = np.empty(out_ptr[-1], np.int64)
    out_values = np.empty(out_ptr[-1], values.dtype)
    for a in range(k):
        _merge(columns, values, indptr[a], indptr[a + 1], t_columns, t_values, t_ptr[a], t_ptr[a + 1], out_ptr[a],
               out_columns, out_values)
    return out_ptr, out_columns, out_values


@numba.njit(inline="always")
def _merge(columns, values, p, p_end, t_columns, t_values, q, q_end, out, out_columns, out_values):
    """Merge two sorted rows, adding the values of a column in both; writes from ``out`` when
    ``out_columns`` is not empty; returns the merged length."""
    write = out_columns.size > 0
    n = 0
    while p < p_end or q < q_end:
        if q == q_end or (p < p_end and columns[p] < t_columns[q]):
            column, value = columns[p], values[p]
            p += 1
        elif p == p_end or t_columns[q] < columns[p]:
            column, value = t_columns[q], t_values[q]
            q += 1
        else:
            column, value = columns[p], values[p] + t_values[q]
            p += 1
            q += 1
        if write:
            out_columns[out + n] = column
            out_values[out + n] = value
        n += 1
    return n


@numba.njit(cache=True)
def reduceat_sum(x, start, n):
    """``x[start:start + n].sum()`` in the order of ``np.add.reduceat`` over that segment:
    ``x[start] + pairwise_sum(x[start + 1:start + n])`` (n >= 1)."""
    if n == 1:
        return x[start]
    return x[start] + _pairwise_sum(x, start + 1, n - 1)


@numba.njit(cache=True)
def _pairwise_sum(x, start, n):
    """numpy's pairwise summation (numpy/_core/src/umath/loops_utils.h.src): fewer than 8
    values in order, up to 128 with 8 interleaved partial sums, longer runs split in two at a
    multiple of 8."""
    if n < 8:
        total = -0.0
        for i in range(start, start + n):
            total += x[i]
        return total
    if n <= _PW_BLOCKSIZE:
        r0, r1, r2, r3 = x[start], x[start + 1], x[start + 2], x[start + 3]
        r4, r5, r6, r7 = x[start + 4], x[start + 5], x[start + 6], x[start + 7]
        i = 8
        while i < n - n % 8:
            r0 += x[start + i]
            r1 += x[start + i + 1]
            r2 += x[start + i + 2]
            r3 += x[start + i + 3]
            r4 += x[start + i + 4]
            r5 += x[start + i + 5]
            r6 += x[start + i + 6]
            r7 += x[start + i + 7]
            i += 8
        total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            total += x[start + i]
            i += 1
        return total
    half = n // 2
    half -= half % 8
    return _pairwise_sum(x, start, half) + _pairwise_sum(x, start + half, n - half)

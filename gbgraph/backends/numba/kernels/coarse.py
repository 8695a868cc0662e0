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

The grouping is a stable counting sort of the crossing entries, first by coarse column, then
by coarse row, so that each coarse edge's entries end up side by side, still in row-major
order. Each parallel pass works on contiguous ranges (of fine rows, coarse columns or coarse
rows) and writes into room reserved for its range, in range order: the result does not
depend on the number of threads.

References
----------
.. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030
"""

import numba
import numpy as np

from .threads import PARALLEL_WORK, serial_twin

__all__ = ["coarse_by_sort", "reduceat_sum"]

#: numpy's pairwise summation adds runs of up to this many values with 8 partial sums
_PW_BLOCKSIZE = 128

#: fine entries per thread: two threads from threads.PARALLEL_WORK entries, the size where a
#: parallel region pays for itself on a busy machine too (threads.py)
_ENTRIES_PER_THREAD = PARALLEL_WORK // 2


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
    indptr, indices, values : numpy.ndarray, or None
        Rows sorted by column, no diagonal; None for a graph beyond the kernels' 32-bit entry
        positions (2³² entries, or 2³⁰ aggregates with weights).

    Notes
    -----
    Four passes, each over contiguous data but for its scattered writes (reading the rows of
    each aggregate's members in turn, as coarse.cu does, waits on memory at every member):

    1. scatter the crossing entries (u, v), in row-major order, into the segment of their
       coarse column ``labels[v]``, as ``(2 labels[u] + [u < v], position)``. The pattern is
       symmetric, so column b's segment needs as many slots as the rows of b's members
       have entries; with several threads, each range of fine rows first counts its
       crossing entries per column, and gets a segment of its own in each column;
    2. count the kept entries of each coarse row; a column's crossing entries are as many as
       its row's, the estimates C' (l.1-10);
    3. scatter the kept entries, column by column, into the segment of their coarse row, as
       ``(labels[v], position)``: each coarse edge's entries are now side by side, in
       row-major order;
    4. sum the weights of each run of equal columns (l.20-21) in place, then pack the rows.
    """
    # a thread per _ENTRIES_PER_THREAD entries: on small graphs a parallel region costs more
    # than it saves (more so on a busy machine, where a worker may not run for a time slice),
    # and one thread runs the serial twins, which compile without a parfor (threads.py)
    threads = int(min(numba.get_num_threads(), max(1, indptr[-1] // _ENTRIES_PER_THREAD)))
    weighted = weights is not None
    # keys: 2 labels[u] + [u < v] or labels[v], followed for weights by the entry's position
    # in 32 bits (the weight is read at the end); patterns need no position
    shift = 32 if weighted else 0
    if (2 * k + 2) << shift >= 2**63 or indptr[-1] >= 1 << 32:
        return None
    key_type = np.empty(0, np.int32 if shift == 0 and 2 * k + 1 < 2**31 else np.int64)
    arguments = (indptr, indices, labels, k, weights if weighted else np.zeros(0), weighted, low_degree_end,
                 key_type, shift, threads)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        coarse_ptr, columns, sums, counts = _twin(_coarse_by_sort, threads)(*arguments)
        values = sums if weighted else counts
        if low_degree_end:  # l.22: the other end of every coarse edge
            return _twin(_add_transpose, threads)(coarse_ptr, columns, values, threads)
        return coarse_ptr, columns, values
    finally:
        numba.set_num_threads(previous)


def _twin(kernel, threads):
    """``kernel``, or for one thread its serial twin."""
    return kernel if threads > 1 else serial_twin(kernel)


@numba.njit(cache=True)
def _coarse_by_sort(indptr, indices, labels, k, weights, weighted, low_degree_end, key_type, shift, threads):
    """The passes of :func:`coarse_by_sort`, each a loop over ``threads`` ranges (parallel
    but in this function's serial twin, threads.py). Returns the row pointers, the columns
    and the sums (weighted) or counts (pattern; the other array empty)."""
    rows = _ranges(indptr, threads)  # fine rows in ranges of about equal entry counts
    room = np.zeros((threads, k), np.int64)
    _count_each(indptr, indices, labels, rows, room)
    start = _starts(room)
    end = start.copy()
    row_keys = np.empty(start[-1, -1] + room[-1, -1] if k else 0, key_type.dtype)
    _scatter_by_column_each(indptr, indices, labels, rows, end, row_keys, shift)  # 1.
    sizes = _column_sums(end - start)  # crossing entries per coarse column, and so per coarse row
    estimate = sizes if low_degree_end else sizes[:0]
    columns = _ranges(_pointers(sizes), threads)
    per_row = np.zeros((threads, k), np.int64)
    _count_kept_each(start, end, row_keys, columns, estimate, shift, per_row)  # 2.
    cursor = _starts(per_row)
    row_ptr = _pointers(_column_sums(per_row))
    column_keys = np.empty(row_ptr[-1], key_type.dtype)
    _scatter_by_row_each(start, end, row_keys, columns, estimate, shift, cursor, column_keys)  # 3.
    aggregates = _ranges(row_ptr, threads)
    degree = np.empty(k, np.int64)
    sums = np.empty(row_ptr[-1] if weighted else 0)
    counts = np.empty(0 if weighted else row_ptr[-1], np.int64)
    _sum_runs_each(row_ptr, column_keys, weights, shift, sums, counts, aggregates, degree)  # 4.
    coarse_ptr = _pointers(degree)
    out_columns = np.empty(coarse_ptr[-1], np.int64)
    out_sums = np.empty(coarse_ptr[-1] if weighted else 0)
    out_counts = np.empty(0 if weighted else coarse_ptr[-1], np.int64)
    _pack_each(row_ptr, coarse_ptr, column_keys, sums, counts, aggregates, out_columns, out_sums, out_counts)
    return coarse_ptr, out_columns, out_sums, out_counts


@numba.njit(cache=True)
def _column_sums(counts):
    """``counts.sum(axis=0)``, whose compiled form builds numba's axis error messages (seconds
    of compiling)."""
    sums = np.zeros(counts.shape[1], np.int64)
    for c in range(counts.shape[0]):
        for j in range(counts.shape[1]):
            sums[j] += counts[c, j]
    return sums


@numba.njit(cache=True)
def _pointers(sizes):
    """CSR pointers of segments of the given sizes."""
    pointers = np.zeros(sizes.size + 1, np.int64)
    for j in range(sizes.size):
        pointers[j + 1] = pointers[j] + sizes[j]
    return pointers


@numba.njit(cache=True)
def _ranges(pointers, count):
    """``count`` contiguous ranges of the segments of ``pointers``, of about equal totals: the
    segments of range c are ``ranges[c]:ranges[c + 1]``."""
    ranges = np.searchsorted(pointers, (pointers[-1] * np.arange(count + 1)) // count)
    ranges[-1] = pointers.size - 1
    return ranges


@numba.njit(cache=True)
def _starts(counts):
    """Where range c's items of key j start in an order by key, then range: ``start[c, j]``."""
    ranges, keys = counts.shape
    start = np.empty((ranges, keys), np.int64)
    position = 0
    for j in range(keys):
        for c in range(ranges):
            start[c, j] = position
            position += counts[c, j]
    return start


@numba.njit(cache=True)
def _count(c, indptr, indices, labels, rows, room):
    """Crossing entries of fine row range c per coarse column."""
    for u in range(rows[c], rows[c + 1]):
        a = labels[u]
        for p in range(indptr[u], indptr[u + 1]):
            b = labels[indices[p]]
            if b != a:
                room[c, b] += 1


@numba.njit(cache=True, parallel=True)
def _count_each(indptr, indices, labels, rows, room):
    for c in numba.prange(rows.size - 1):
        _count(c, indptr, indices, labels, rows, room)


@numba.njit(cache=True)
def _scatter_by_column(c, indptr, indices, labels, rows, end, row_keys, shift):
    """Pass 1 over fine row range c: each crossing entry p = (u, v) to the next place of its
    coarse column ``labels[v]`` (``end[c, labels[v]]``, advanced), as key
    ``(2 labels[u] + [u < v]) << shift | p`` (no p without shift)."""
    position = (1 << shift) - 1  # the bits of p in a key
    for u in range(rows[c], rows[c + 1]):
        a = labels[u]
        for p in range(indptr[u], indptr[u + 1]):
            v = indices[p]
            b = labels[v]
            if b != a:
                q = end[c, b]
                end[c, b] = q + 1
                row_keys[q] = ((2 * a + (u < v)) << shift) | (p & position)


@numba.njit(cache=True, parallel=True)
def _scatter_by_column_each(indptr, indices, labels, rows, end, row_keys, shift):
    for c in numba.prange(rows.size - 1):
        _scatter_by_column(c, indptr, indices, labels, rows, end, row_keys, shift)


@numba.njit(inline="always")
def _kept(a, b, lower, estimate):
    """Whether the crossing entry of aggregates (a, b) counts at a: always, or with estimates
    at the end of smaller estimate, ties at the smaller fine id (``lower``: u < v)."""
    if estimate.size == 0:
        return True
    return estimate[a] < estimate[b] or (estimate[a] == estimate[b] and lower == 1)


@numba.njit(cache=True)
def _count_kept(g, start, end, row_keys, columns, estimate, shift, per_row):
    """Pass 2 over coarse column range g: kept entries per coarse row."""
    for b in range(columns[g], columns[g + 1]):
        for c in range(start.shape[0]):
            for q in range(start[c, b], end[c, b]):
                head = row_keys[q] >> shift
                if _kept(head >> 1, b, head & 1, estimate):
                    per_row[g, head >> 1] += 1


@numba.njit(cache=True, parallel=True)
def _count_kept_each(start, end, row_keys, columns, estimate, shift, per_row):
    for g in numba.prange(columns.size - 1):
        _count_kept(g, start, end, row_keys, columns, estimate, shift, per_row)


@numba.njit(cache=True)
def _scatter_by_row(g, start, end, row_keys, columns, estimate, shift, cursor, column_keys):
    """Pass 3 over coarse column range g: each kept entry to the next place of its coarse
    row a (``cursor[g, a]``, advanced), as key ``b << shift | p``."""
    position = (1 << shift) - 1
    for b in range(columns[g], columns[g + 1]):
        for c in range(start.shape[0]):
            for q in range(start[c, b], end[c, b]):
                head = row_keys[q] >> shift
                a = head >> 1
                if _kept(a, b, head & 1, estimate):
                    r = cursor[g, a]
                    cursor[g, a] = r + 1
                    column_keys[r] = (b << shift) | (row_keys[q] & position)


@numba.njit(cache=True, parallel=True)
def _scatter_by_row_each(start, end, row_keys, columns, estimate, shift, cursor, column_keys):
    for g in numba.prange(columns.size - 1):
        _scatter_by_row(g, start, end, row_keys, columns, estimate, shift, cursor, column_keys)


@numba.njit(cache=True)
def _sum_runs(h, row_ptr, column_keys, weights, shift, sums, counts, aggregates, degree):
    """Pass 4 over coarse row range h: each run of equal columns of a row becomes one coarse
    edge, written in place at the row's start: its column, and the sum of its entries'
    weights (gathered in order into ``sums``, then added as ``np.add.reduceat`` adds them)
    or, without weights, its length in ``counts``."""
    position = (1 << shift) - 1
    for a in range(aggregates[h], aggregates[h + 1]):
        out = row_ptr[a]
        q, end = row_ptr[a], row_ptr[a + 1]
        while q < end:
            first = q
            column = column_keys[q] >> shift
            if sums.size:
                while q < end and column_keys[q] >> shift == column:
                    sums[q] = weights[column_keys[q] & position]
                    q += 1
                sums[out] = _run_sum(sums, first, q - first)
            else:
                while q < end and column_keys[q] == column:
                    q += 1
                counts[out] = q - first
            column_keys[out] = column
            out += 1
        degree[a] = out - row_ptr[a]


@numba.njit(cache=True, parallel=True)
def _sum_runs_each(row_ptr, column_keys, weights, shift, sums, counts, aggregates, degree):
    for h in numba.prange(aggregates.size - 1):
        _sum_runs(h, row_ptr, column_keys, weights, shift, sums, counts, aggregates, degree)


@numba.njit(cache=True)
def _pack(h, row_ptr, coarse_ptr, column_keys, sums, counts, aggregates, out_columns, out_sums, out_counts):
    """The coarse rows of range h, moved from their rows' starts to their final places."""
    for a in range(aggregates[h], aggregates[h + 1]):
        shift = row_ptr[a] - coarse_ptr[a]
        for r in range(coarse_ptr[a], coarse_ptr[a + 1]):
            out_columns[r] = column_keys[r + shift]
            if out_sums.size:
                out_sums[r] = sums[r + shift]
            else:
                out_counts[r] = counts[r + shift]


@numba.njit(cache=True, parallel=True)
def _pack_each(row_ptr, coarse_ptr, column_keys, sums, counts, aggregates, out_columns, out_sums, out_counts):
    for h in numba.prange(aggregates.size - 1):
        _pack(h, row_ptr, coarse_ptr, column_keys, sums, counts, aggregates, out_columns, out_sums, out_counts)


@numba.njit(cache=True)
def _add_transpose(indptr, columns, values, threads):
    """``S + Sᵀ`` of a CSR with sorted rows: an entry present in both is ``S(a, b) + S(b, a)``,
    the order in which ``np.add.reduceat`` adds the pair after a stable sort of S's entries
    followed by Sᵀ's. Sᵀ comes from a counting sort by column, S's rows in ranges."""
    k = indptr.size - 1
    rows = _ranges(indptr, threads)
    per_column = np.zeros((threads, k), np.int64)
    _count_columns_each(indptr, columns, rows, per_column)
    cursor = _starts(per_column)
    t_ptr = _pointers(_column_sums(per_column))
    t_columns = np.empty(columns.size, np.int64)
    t_values = np.empty(columns.size, values.dtype)
    _transpose_each(indptr, columns, values, rows, cursor, t_columns, t_values)
    degree = np.empty(k, np.int64)
    _merge_rows_each(indptr, columns, values, t_ptr, t_columns, t_values, rows, degree, degree[:0], columns[:0],
                     values[:0])
    out_ptr = _pointers(degree)
    out_columns = np.empty(out_ptr[-1], np.int64)
    out_values = np.empty(out_ptr[-1], values.dtype)
    _merge_rows_each(indptr, columns, values, t_ptr, t_columns, t_values, rows, degree, out_ptr, out_columns,
                     out_values)
    return out_ptr, out_columns, out_values


@numba.njit(cache=True)
def _count_columns(c, indptr, columns, rows, per_column):
    """Entries of row range c per column."""
    for p in range(indptr[rows[c]], indptr[rows[c + 1]]):
        per_column[c, columns[p]] += 1


@numba.njit(cache=True, parallel=True)
def _count_columns_each(indptr, columns, rows, per_column):
    for c in numba.prange(rows.size - 1):
        _count_columns(c, indptr, columns, rows, per_column)


@numba.njit(cache=True)
def _transpose(c, indptr, columns, values, rows, cursor, t_columns, t_values):
    """The entries (a, b) of row range c to the next places of row b of the transpose."""
    for a in range(rows[c], rows[c + 1]):
        for p in range(indptr[a], indptr[a + 1]):
            b = columns[p]
            q = cursor[c, b]
            cursor[c, b] = q + 1
            t_columns[q] = a
            t_values[q] = values[p]


@numba.njit(cache=True, parallel=True)
def _transpose_each(indptr, columns, values, rows, cursor, t_columns, t_values):
    for c in numba.prange(rows.size - 1):
        _transpose(c, indptr, columns, values, rows, cursor, t_columns, t_values)


@numba.njit(cache=True)
def _merge_rows(c, indptr, columns, values, t_ptr, t_columns, t_values, rows, degree, out_ptr, out_columns,
                out_values):
    """Rows of range c of S + Sᵀ: their lengths into ``degree``, or, given ``out_ptr``, the
    rows themselves."""
    for a in range(rows[c], rows[c + 1]):
        p, p_end, q, q_end = indptr[a], indptr[a + 1], t_ptr[a], t_ptr[a + 1]
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
            if out_ptr.size:
                out_columns[out_ptr[a] + n] = column
                out_values[out_ptr[a] + n] = value
            n += 1
        degree[a] = n


@numba.njit(cache=True, parallel=True)
def _merge_rows_each(indptr, columns, values, t_ptr, t_columns, t_values, rows, degree, out_ptr, out_columns,
                     out_values):
    for c in numba.prange(rows.size - 1):
        _merge_rows(c, indptr, columns, values, t_ptr, t_columns, t_values, rows, degree, out_ptr, out_columns,
                    out_values)


@numba.njit(inline="always")
def _run_sum(x, start, n):
    """:func:`reduceat_sum`, its short runs (the many) added here without a call."""
    if n > 8:
        return reduceat_sum(x, start, n)
    total = -0.0  # numpy adds fewer than 8 values after the first in order, from -0.0
    for i in range(start + 1, start + n):
        total += x[i]
    return x[start] + total if n > 1 else x[start]


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

"""Coarse graphs by Gilbert et al.'s vertex-centric construction, compiled: the CPU twin
of coarse.cu.

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

Each coarse row is built on its own, the way a sparse accumulator builds a row of a product
(Gustavson): its members' rows are read once, in order, each new coarse column taking the
next slot of the row (a per-thread array over the k aggregates remembers the slot of each
column seen, and is cleared after the row); the row's columns are then sorted, and the
entries, buffered in row-major order, are put in runs by column, which keeps each run in
row-major order. The members of each aggregate come from a counting sort of the labels.
Parallel passes work on contiguous ranges (of fine rows or coarse rows) and write into room
reserved for their range, in range order: the result does not depend on the number of
threads.

References
----------
.. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, pp. 213-222. https://doi.org/10.1109/IPDPS49936.2021.00030
"""

import functools

import numba
import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros

from .products import prefetch
from .threads import PARALLEL_WORK, serial_twin

__all__ = ["coarse_by_sort", "reduceat_sum"]

#: numpy's pairwise summation adds runs of up to this many values with 8 partial sums
_PW_BLOCKSIZE = 128

#: fine entries per thread: two threads from threads.PARALLEL_WORK entries, the size where a
#: parallel region pays for itself on a busy machine too (threads.py). A second thread from
#: PARALLEL_WORK / 8 entries (7-10 ms of the construction's one-thread work, at 13-19 ns a fine
#: entry) made HEC hierarchies slower on this project's loaded 2-core machine: delaunay_n17's
#: 22 -> 45 ms, coAuthorsDBLP's 100 -> 147, Laplace3D 100³'s 214 -> 224
_ENTRIES_PER_THREAD = PARALLEL_WORK // 2

#: fine rows ahead of the one scattered whose places are requested
_AHEAD = 8

#: a coarse row of at most this many columns is sorted by insertion without branches, longer
#: ones as bits (within :data:`_SPAN_WORDS`) or by numba's sort
_INSERTION = 24

#: a longer row is sorted as bits in two levels (:func:`_sort_as_bits`) where its columns
#: span at most this many summary words (4,096 columns each) a column. One level, the
#: columns' own words, spanned too much for coAuthorsDBLP's hubs, whose rows went to numba's
#: sort (7-12 ns a column, benchmarks/results/session-9/cpu/sort.txt): with the summary, its
#: first two MIS-2 constructions' rows pass 11.8 -> 9.2 and 5.3 -> 4.4 ms on one thread.
#: Insertion's rows stay insertion's: from 12 columns on, the bits cost Laplace3D 60³'s
#: first MIS-2 construction 6.0 -> 6.7 ms (every value's summary bit is set in the same word,
#: one dependent update after another)
_SPAN_WORDS = 8


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
    Three passes over the fine graph's rows or the labels, each over contiguous ranges:

    1. the members of each aggregate, ascending, by a counting sort of the labels, and the
       entries of each aggregate's members' rows (the room its coarse row may need);
    2. with ``low_degree_end``, the crossing entries of each aggregate, the estimates C'
       (l.1-10);
    3. each coarse row a (l.11-21): its members' kept crossing entries (u, v) give the
       distinct columns ``labels[v]`` in order of appearance and, for weights, a buffer of
       ``(slot, weight)`` in row-major order; the columns are sorted, and each column's
       weights gathered in order and summed as ``np.add.reduceat`` would (counts without
       weights). Each range of coarse rows writes its rows one after the other from the
       start of its room; a last copy closes the gaps between ranges.
    """
    # a thread per _ENTRIES_PER_THREAD entries: on small graphs a parallel region costs more
    # than it saves (more so on a busy machine, where a worker may not run for a time slice),
    # and one thread runs the serial twins, which compile without a parfor (threads.py)
    wanted = max(1, int(indptr[-1]) // _ENTRIES_PER_THREAD)
    threads = 1 if wanted == 1 else int(min(numba.get_num_threads(), wanted))
    weighted = weights is not None
    key_type = np.int32 if k < 2**31 else np.int64  # coarse columns while they are sorted and summed
    arguments = (indptr, indices, labels, k, weights if weighted else np.zeros(0), weighted, low_degree_end,
                 np.empty(0, key_type), threads)
    if threads == 1:  # the serial twins run no parallel region: numba's thread count is left alone
        return _built(arguments, weighted, low_degree_end, threads)
    previous = numba.get_num_threads()
    numba.set_num_threads(threads)
    try:
        return _built(arguments, weighted, low_degree_end, threads)
    finally:
        numba.set_num_threads(previous)


def _built(arguments, weighted, low_degree_end, threads):
    """:func:`coarse_by_sort`'s kernels on its arguments."""
    coarse_ptr, columns, sums, counts = _twin(_coarse_by_rows, threads)(*arguments)
    values = sums if weighted else counts
    if low_degree_end:  # l.22: the other end of every coarse edge
        return _twin(_add_transpose, threads)(coarse_ptr, columns, values, threads)
    return coarse_ptr, columns, values


@functools.cache
def _twin(kernel, threads):
    """``kernel``, or for one thread its serial twin (found once: a call of a small level's
    construction spent more on looking it up than on some of its passes)."""
    return kernel if threads > 1 else serial_twin(kernel)


@numba.njit(cache=True)
def _coarse_by_rows(indptr, indices, labels, k, weights, weighted, low_degree_end, key_type, threads):
    """The passes of :func:`coarse_by_sort`, each a loop over ``threads`` ranges (parallel
    but in this function's serial twin, threads.py). Returns the row pointers, the columns
    and the sums (weighted) or counts (pattern; the other array empty)."""
    fine = _ranges(indptr, threads)  # fine rows in ranges of about equal entry counts
    room = np.zeros((threads, k), np.int64)
    estimate = np.zeros(k if low_degree_end else 0, np.int64)
    _room_each(indptr, indices, labels, fine, low_degree_end, room)  # 1.
    if low_degree_end:
        estimate[:] = _column_sums(room)
    start = _starts(room)
    end = start.copy()
    keys = np.empty(start[-1, -1] + room[-1, -1] if k else 0, key_type.dtype)
    spread = np.empty(keys.size if weighted else 0)
    _scatter_by_row_each(indptr, indices, labels, weights, estimate, fine, end, keys, spread)  # 2.
    aggregates = _ranges(_pointers(_column_sums(room)), threads)  # coarse rows in ranges of about equal room
    degree = np.empty(k, np.int64)
    counts = np.empty(0 if weighted else keys.size, np.int64)
    _rows_each(start, end, keys, spread, counts, aggregates, degree, weights)  # 3.
    coarse_ptr = _pointers(degree)
    out_columns = np.empty(coarse_ptr[-1], np.int64)
    out_sums = np.empty(coarse_ptr[-1] if weighted else 0)
    out_counts = np.empty(0 if weighted else coarse_ptr[-1], np.int64)
    _pack_each(start, coarse_ptr, aggregates, keys, spread, counts, out_columns, out_sums, out_counts)
    return coarse_ptr, out_columns, out_sums, out_counts


@numba.njit(cache=True)
def _room(c, indptr, indices, labels, fine, crossing, room):
    """Pass 1 over fine row range c: the room of each coarse row, the entries of its
    members' rows, or with ``crossing`` their crossing entries (the estimates C')."""
    for u in range(fine[c], fine[c + 1]):
        a = labels[u]
        if crossing:
            total = 0
            for p in range(indptr[u], indptr[u + 1]):
                total += labels[indices[p]] != a
            room[c, a] += total
        else:
            room[c, a] += indptr[u + 1] - indptr[u]


@numba.njit(cache=True, parallel=True)
def _room_each(indptr, indices, labels, fine, crossing, room):
    for c in numba.prange(fine.size - 1):
        _room(c, indptr, indices, labels, fine, crossing, room)


@numba.njit(inline="always")
def _kept(a, b, lower, estimate):
    """Whether the crossing entry of aggregates (a, b) counts at a: always, or with estimates
    at the end of smaller estimate, ties at the smaller fine id (``lower``: u < v)."""
    if estimate.size == 0:
        return True
    return estimate[a] < estimate[b] or (estimate[a] == estimate[b] and lower)


@numba.njit(cache=True)
def _scatter_by_row(c, indptr, indices, labels, weights, estimate, fine, end, keys, spread):
    """Pass 2 over fine row range c: each kept crossing entry (u, v) to the next place of
    its coarse row ``labels[u]`` (``end[c, labels[u]]``, advanced once per fine row), as
    its coarse column ``labels[v]`` and, with weights, its weight. The places of the row
    :data:`_AHEAD` rows on are requested ahead: each fine row writes into another coarse
    row's room, a line the caches seldom hold (34 -> 32 ms on Laplace3D 100³). Without
    estimates the room holds every entry of the members' rows, so each entry is written and
    its place kept only where it crosses: no branch on the crossing, which the processor
    mispredicts as often as not (one thread: coAuthorsDBLP's first constructions 23-24 ->
    18 ms, delaunay_n17's 7.1 -> 4.0-4.4, Laplace3D 60³'s 10.7 -> 8.2-8.4)."""
    last = fine[c + 1]
    for u in range(fine[c], last):
        if u + _AHEAD < last:
            ahead = np.uint64(end[c, labels[u + _AHEAD]])
            prefetch(keys, ahead)
            if spread.size:
                prefetch(spread, ahead)
        a = labels[u]
        q = end[c, a]
        if estimate.size:
            for p in range(indptr[u], indptr[u + 1]):
                v = indices[p]
                b = labels[v]
                if b != a and _kept(a, b, u < v, estimate):
                    keys[q] = b
                    if spread.size:
                        spread[q] = weights[p]
                    q += 1
        else:  # the room holds every entry of the members' rows: each is written, kept where it crosses
            for p in range(indptr[u], indptr[u + 1]):
                b = labels[indices[p]]
                keys[q] = b
                if spread.size:
                    spread[q] = weights[p]
                q += b != a
        end[c, a] = q


@numba.njit(cache=True, parallel=True)
def _scatter_by_row_each(indptr, indices, labels, weights, estimate, fine, end, keys, spread):
    for c in numba.prange(fine.size - 1):
        _scatter_by_row(c, indptr, indices, labels, weights, estimate, fine, end, keys, spread)


@numba.njit(cache=True)
def _rows(h, start, end, keys, spread, counts, aggregates, degree, weights):
    """Pass 3 over coarse row range h, in place: each row's distinct columns, sorted, and
    their sums or counts, written right after the range's previous rows (from the start of
    the range's room), and its length into ``degree``. A column's weights are summed in
    row-major order, the order of the row's entries in its room (its fine row ranges'
    segments, one after the other). The range's workspace is made here, the rows built by
    :func:`_rows_in`; ``weights``, the fine graph's, tell :func:`_sums` whether every sum is
    exact."""
    first, last = aggregates[h], aggregates[h + 1]
    threads = start.shape[0]
    widest = 0
    for a in range(first, last):
        width = 0
        for c in range(threads):
            width += end[c, a] - start[c, a]
        widest = max(widest, width)
    slot = np.full(degree.size, -1, keys.dtype)  # the slot of each coarse column in the current row
    distinct = np.empty(widest, np.int64)  # the row's columns, first in order of appearance
    length = np.empty(widest, np.int64)  # entries per slot
    head = np.empty(widest if spread.size else 0)  # each slot's first weight
    rest = np.empty(head.size)  # the sum of its other weights in order from -0.0, then its sum
    place = np.empty(head.size + 1, np.int64)  # _sums' counting sort of a row's weights by slot
    gathered = np.empty(head.size)  # and the weights it gathers
    seen = np.zeros((degree.size + 63) // 64, np.uint64)  # a row's columns as bits, cleared as read
    summary = np.zeros((seen.size + 63) // 64, np.uint64)  # the words of seen in use, as bits
    exact = np.full(1, -1, np.int8)  # whether every sum of the weights is exact: -1 until a row asks
    _rows_in(first, last, start, end, keys, spread, counts, degree, slot, distinct, length, head, rest, place, gathered,
             seen, summary, weights, exact)


@numba.njit(cache=True, _nrt=False)
def _rows_in(first, last, start, end, keys, spread, counts, degree, slot, distinct, length, head, rest, place, gathered,
             seen, summary, weights, exact):
    """:func:`_rows`' loop over the coarse rows ``first .. last - 1`` on a workspace made
    for it, compiled without reference counts (``_nrt=False``): counted, the helpers inlined
    in it increfed and decrefed each of their arrays on every row, two atomic operations
    each."""
    threads = start.shape[0]
    out = start[0, first] if first < last else 0  # the rows one after the other, each written once read
    for a in range(first, last):
        d = 0
        for c in range(threads):
            for q in range(start[c, a], end[c, a]):
                b = keys[q]
                j = slot[b]
                if j < 0:
                    j = d
                    slot[b] = d
                    distinct[d] = b
                    length[d] = 0
                    if spread.size:
                        head[d] = spread[q]
                        rest[d] = -0.0
                    d += 1
                elif spread.size:
                    rest[j] += spread[q]
                length[j] += 1
        if spread.size:
            _sums(start, end, a, keys, spread, slot, d, length, head, rest, place, gathered, weights, exact)
        _sort(distinct, d, seen, summary)
        for r in range(d):
            b = distinct[r]
            j = slot[b]
            if spread.size:
                spread[out + r] = rest[j]
            else:
                counts[out + r] = length[j]
            keys[out + r] = b
            slot[b] = -1
        degree[a] = d
        out += d


@numba.njit(inline="always")
def _sums(start, end, a, keys, spread, slot, d, length, head, rest, place, gathered, weights, exact):
    """Each slot's sum into ``rest``, as ``np.add.reduceat`` adds its weights: the first plus
    the others added in order from -0.0, numpy's order for up to 8 of them; a slot of more
    weights (on skewed graphs, and on the dense coarsest graphs of a partition's bisections)
    has them gathered, in order, and added pairwise (``place``, ``gathered``: room for a
    stable counting sort of the row's weights by slot), unless every sum of the fine
    ``weights`` is exact (:func:`_exact_sums`, decided at the first such row, ``exact``):
    then the sums in order are the pairwise ones (cond-mat-2005's bisection hierarchies at
    k = 8: their builds 10.3 -> 9.2 ms)."""
    longest = 0
    for j in range(d):
        rest[j] = head[j] + rest[j]  # a single weight plus -0.0 is itself, +0.0 included
        longest = max(longest, length[j])
    if longest <= 8:
        return
    if exact[0] < 0:
        exact[0] = _exact_sums(weights)
    if exact[0]:
        return
    place[0] = 0
    for j in range(d):
        place[j + 1] = place[j] + length[j]
    for c in range(start.shape[0]):
        for q in range(start[c, a], end[c, a]):
            j = slot[keys[q]]
            gathered[place[j]] = spread[q]
            place[j] += 1
    for j in range(d):
        if length[j] > 8:
            rest[j] = reduceat_sum(gathered, place[j] - length[j], length[j])


@numba.njit(cache=True, fastmath=True)
def _exact_sums(weights):
    """Whether every sum of the weights is exact in any order of the additions, as
    ``coarsen._exact_sums`` decides, a little more strictly: whole numbers, none -0.0, their
    count times the largest magnitude below 2**52 (a bound on every partial sum). One pass
    without branches, vectorized (``fastmath``: the weights are finite, as coarsening
    checks, and a maximum is the same in any order)."""
    whole = True
    largest = 0.0
    for x in weights:
        whole &= (x == np.floor(x)) & ~((x == 0.0) & np.signbit(x))
        largest = max(largest, abs(x))
    return whole and largest * weights.size < 2.0**52


@numba.njit(cache=True, parallel=True)
def _rows_each(start, end, keys, spread, counts, aggregates, degree, weights):
    for h in numba.prange(aggregates.size - 1):
        _rows(h, start, end, keys, spread, counts, aggregates, degree, weights)


@numba.njit(inline="always")
def _sort(x, d, seen, summary):
    """``x[:d]`` (distinct values) sorted in place: a short row by insertion, each value put
    in the sorted prefix by a median of three per place, ``min(max(x[j - 1], value), x[j])``,
    without the inner loop's exit, which the processor mispredicts once a value (44 -> 38 ms
    of the rows' pass on Laplace3D 100³'s first level); a longer one as bits where its
    columns span at most :data:`_SPAN_WORDS` summary words a column (:func:`_sort_as_bits`),
    else by numba's sort."""
    if d > _INSERTION:
        low, high = x[0], x[0]
        for i in range(1, d):
            low, high = min(low, x[i]), max(high, x[i])
        if high // 4096 - low // 4096 < _SPAN_WORDS * d:
            _sort_as_bits(x, d, seen, summary, low // 4096, high // 4096)
        else:
            _sort_prefix(x, d)
        return
    for i in range(1, d):
        value = x[i]
        x[i] = max(x[i - 1], value)
        for j in range(i - 1, 0, -1):
            x[j] = min(max(x[j - 1], value), x[j])
        x[0] = min(x[0], value)


@numba.njit(cache=True, _nrt=True)
def _sort_prefix(x, d):
    """``x[:d].sort()``: numba's sort keeps its stack in a list, which needs reference counts
    (a callee inherits ``_nrt=False`` from its caller unless it says otherwise)."""
    x[:d].sort()


@numba.njit(inline="always")
def _sort_as_bits(x, d, seen, summary, first, last):
    """``x[:d]`` (distinct values in summary words ``first`` to ``last``, all clear, as are
    the words of ``seen``) sorted by setting their bits, and a bit of ``summary`` for each
    word of ``seen`` set, then reading the words in order, clearing them: two passes over
    the row and one over its span of summary words, where a comparison sort makes log d
    passes and insertion d / 2."""
    one, six = np.uint64(1), np.uint64(63)
    for i in range(d):
        word = x[i] // 64
        seen[word] |= one << (np.uint64(x[i]) & six)
        summary[word // 64] |= one << (np.uint64(word) & six)
    r = 0
    for s in range(first, last + 1):
        words = summary[s]
        summary[s] = 0
        while words:
            w = s * 64 + trailing_zeros(words)
            words &= words - one
            word = seen[w]
            seen[w] = 0
            while word:
                x[r] = w * 64 + trailing_zeros(word)
                r += 1
                word &= word - one


@numba.njit(cache=True)
def _pack(h, start, coarse_ptr, aggregates, keys, spread, counts, out_columns, out_sums, out_counts):
    """The coarse rows of range h, moved from the start of the range's room to their places."""
    first, last = aggregates[h], aggregates[h + 1]
    shift = start[0, first] - coarse_ptr[first] if first < last else 0
    for r in range(coarse_ptr[first], coarse_ptr[last]):
        out_columns[r] = keys[r + shift]
        if out_sums.size:
            out_sums[r] = spread[r + shift]
        else:
            out_counts[r] = counts[r + shift]


@numba.njit(cache=True, parallel=True)
def _pack_each(start, coarse_ptr, aggregates, keys, spread, counts, out_columns, out_sums, out_counts):
    for h in numba.prange(aggregates.size - 1):
        _pack(h, start, coarse_ptr, aggregates, keys, spread, counts, out_columns, out_sums, out_counts)


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
    t_columns = np.empty(columns.size, columns.dtype)
    t_values = np.empty(columns.size, values.dtype)
    _transpose_each(indptr, columns, values, rows, cursor, t_columns, t_values)
    degree = np.empty(k, np.int64)
    _merge_rows_each(indptr, columns, values, t_ptr, t_columns, t_values, rows, degree, degree[:0], columns[:0],
                     values[:0])
    out_ptr = _pointers(degree)
    out_columns = np.empty(out_ptr[-1], columns.dtype)
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

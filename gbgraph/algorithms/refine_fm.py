"""Fiduccia–Mattheyses refinement of a bisection, and the balance repair it starts from.

Sequential by nature (each move changes the gains of the next), so these are compiled loops
over host CSR arrays, as in Gilbert et al.'s partitioner, whose FM "is currently sequential,
running on the CPU" [1]_. A pass moves boundary vertices one at a time, the vertex of largest
gain first, locks each moved vertex, and at the end rolls back to the best prefix of the
pass [2]_; passes repeat while one improves.

Gains live in two addressable binary max-heaps (one per side), as METIS 5's 2-way FM keeps
them in priority queues: a heap takes real-valued gains (coarse graphs sum float weights)
where FM's original bucket array needs integers. Ties of gain go to the larger key of the
project's hash, so every run makes the same moves.

"Best" is lexicographic: least overload (weight above the side's bound, summed over both
sides), then least cut, then the smaller heaviest-part ratio. A pass therefore never ends
worse than it began: a balanced input stays balanced and its cut does not grow.

References
----------
.. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, section III-C. https://doi.org/10.1109/IPDPS49936.2021.00030
.. [2] C. M. Fiduccia and R. M. Mattheyses, "A linear-time heuristic for improving network
   partitions," DAC 1982, pp. 175-181. https://doi.org/10.1109/DAC.1982.1585498
"""

import numba
import numpy as np

__all__ = ["fm_refine", "rebalance", "refine_level", "bisection_key", "pass_limit", "HostGraph"]

#: The compiled steps that allocate nothing: without numba's reference counts (``_nrt=False``;
#: their callers hold the arrays). Counted, each call increfs and decrefs every array argument
#: and every row view (``heap[side]``), two atomic operations each, for a few loads and
#: stores of work: on cond-mat-2005 at k = 8 these counts were a third of the compiled time
#: (perf, one thread), and the bisections' FM took 24 -> 12 ms without them. A callee
#: inherits the flag unless it sets its own.
_borrowing = numba.njit(cache=True, _nrt=False)


class HostGraph:
    """A level's CSR on the host with float64 edge and vertex weights, for the compiled loops.

    Attributes
    ----------
    n : int
    indptr, indices : numpy.ndarray
    weights : numpy.ndarray
        float64 edge weights (ones for a pattern).
    vertex_weights : numpy.ndarray
        float64.
    keys : numpy.ndarray
        uint64 tie-breaking keys, distinct (the project's hash).
    """

    def __init__(self, graph, vertex_weights, keys, whole=None):
        graph = graph.on_device_of(np)
        self.n = graph.n
        self.indptr = graph.indptr.astype(np.int64, copy=False)
        self.indices = graph.indices  # int32 or int64: the loops compile for either, no copy
        self.weights = self.edge_weights(graph)
        self.vertex_weights = _host(vertex_weights).astype(np.float64)
        self.keys = _host(keys)
        self._graph, self._whole = graph, whole

    @property
    def whole(self):
        """:meth:`whole_weights` of the graph (given, or decided on first use)."""
        if self._whole is None:
            self._whole = self.whole_weights(self._graph)
        return self._whole

    def arrays(self):
        return self.indptr, self.indices, self.weights, self.vertex_weights, self.keys

    @staticmethod
    def edge_weights(graph):
        """float64 edge weights of a host graph, ones for a pattern (kept with the graph:
        every try of a partition refines the same input level)."""
        return graph.cached(("refine_fm", "weights"), lambda: np.ones(graph.nnz) if graph.weights is None else
                            graph.weights.astype(np.float64, copy=False))

    @staticmethod
    def whole_weights(graph):
        """Whether a host graph's edge weights are whole numbers with an exact total: then
        every order of summing a cut gives the same number (FM's running cut is a sweep's)."""
        return graph.weights is None or graph.cached(("refine_fm", "whole"),
                                                     lambda: _integral(HostGraph.edge_weights(graph)))


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


def fm_refine(hg, parts, bounds, targets, *, limit=None, max_passes=32):
    """FM passes on a bisection until a pass brings no improvement.

    Parameters
    ----------
    hg : HostGraph
    parts : numpy.ndarray
        int8, 0 or 1 per vertex; refined in place.
    bounds, targets : sequence of two floats
        The heaviest weight each side may have, and its ideal weight.
    limit : int, optional
        A pass stops after this many moves without a new best (default:
        :func:`pass_limit`).
    max_passes : int

    Returns
    -------
    float
        The cut of the refined parts.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, gbgraph as gg
    >>> path = sp.diags([np.ones(5), np.ones(5)], [-1, 1])      # 0 - 1 - 2 - 3 - 4 - 5
    >>> hg = HostGraph(gg.as_graph(path), np.ones(6), np.arange(6, dtype=np.uint64) + 1)
    >>> parts = np.array([0, 1, 0, 1, 0, 1], np.int8)           # every edge cut
    >>> fm_refine(hg, parts, (3, 3), (3, 3)), parts.tolist()
    (1.0, [0, 0, 0, 1, 1, 1])
    """
    return _refined(hg, parts, bounds, targets, limit, max_passes, repair=False)[0]


def refine_level(hg, parts, bounds, targets, *, limit=None, max_passes=32):
    """:func:`rebalance`, then :func:`fm_refine`: the same moves, in one compiled call (a
    small level paid more for the two calls from Python and their workspaces than for its
    passes). Returns the cut.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, gbgraph as gg
    >>> path = sp.diags([np.ones(5), np.ones(5)], [-1, 1])      # 0 - 1 - 2 - 3 - 4 - 5
    >>> hg = HostGraph(gg.as_graph(path), np.ones(6), np.arange(6, dtype=np.uint64) + 1)
    >>> parts = np.array([0, 0, 0, 0, 1, 0], np.int8)           # side 0 overweight
    >>> refine_level(hg, parts, (3, 3), (3, 3)), parts.tolist()
    (1.0, [0, 0, 0, 1, 1, 1])
    """
    return _refined(hg, parts, bounds, targets, limit, max_passes, repair=True)[0]


def refine_projected(hg, parts, bounds, targets, labels=None, coarse_ext=None):
    """:func:`refine_level` of sides projected through ``labels`` from a coarse level whose
    refinement left ``coarse_ext`` (each coarse vertex's weight to the other side; None: the
    first level, every row summed). Returns (:func:`bisection_key` of the result, ``ext``
    of this level for the next finer one).

    A vertex whose coarse vertex has no weight to the other side has none either (its
    neighbours lie in that coarse vertex's neighbours, all on its side), so its row is summed
    only when a neighbour's move first reaches it, as it was then: the same gains as
    summing every row first, without reading the rows of the levels' interiors. The key's
    cut is FM's own where the edge weights are whole numbers (exact in any order), instead
    of a sweep over the level's edges."""
    bounds = np.asarray(bounds, np.float64)
    cut, ext = _refined(hg, parts, bounds, targets, None, 32, True, labels, coarse_ext)  # refine_level's defaults
    if not hg.whole:
        return bisection_key(hg, parts, bounds), ext
    return (float(_overload(_side_weights(parts, hg.vertex_weights), bounds)), float(cut)), ext


def _refined(hg, parts, bounds, targets, limit, max_passes, repair, labels=None, coarse_ext=None):
    """:func:`fm_refine` (after :func:`rebalance` where ``repair``) as one compiled call, from
    the coarse level's ``coarse_ext`` through ``labels`` where given (:func:`refine_projected`).
    Returns (the cut, each vertex's weight to the other side)."""
    limit = pass_limit(hg.n) if limit is None else limit
    bounds, targets = np.asarray(bounds, np.float64), np.asarray(targets, np.float64)
    work = _workspace(hg.n)
    cut = _repair_and_refine(*hg.arrays(), parts, bounds, targets, limit, _integral(hg.vertex_weights), hg.whole,
                             max_passes, repair, *work[:-1], *_hint(labels, coarse_ext))
    return cut, work[1]


def _hint(labels=None, coarse_ext=None):
    """:func:`_repair_and_refine`'s (labels, hint): empty for none."""
    return (np.empty(0, np.int64), np.empty(0)) if coarse_ext is None else (labels, coarse_ext)


def _integral(vw):
    """Whether the weights are whole numbers with an exact total: for vertex weights, passes
    may then carry the sides' weights instead of summing them again (they would get the
    same numbers); for edge weights, :meth:`HostGraph.whole_weights`."""
    return bool(np.all(vw == np.floor(vw)) and vw.sum() < 2.0**53)


def pass_limit(n):
    """FM's default: a pass of a level of n vertices stops after ``max(50, n // 200)``
    moves without a new best, at most 500 (METIS 5's 2-way FM: ``max(15, n / 100)``, at most
    100). Against the earlier ``max(100, n // 50)``, at most 2,000, it took about 10% off
    ``gg.partition``'s time at the same geometric-mean cut (docs/partitioning_history.md).

    Examples
    --------
    >>> pass_limit(1_000), pass_limit(50_000), pass_limit(1_000_000)
    (50, 250, 500)
    """
    return min(max(50, n // 200), 500)


def rebalance(hg, parts, bounds):
    """Move vertices off an overweight side, best gain first, until it fits its bound.

    A vertex moves only if the other side stays within its bound or the move lowers the
    overload; vertices are taken by decreasing gain (ties: larger key), gains updated after
    each move. Parts are changed in place; returns the overload left (0 when balanced).

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, gbgraph as gg
    >>> path = sp.diags([np.ones(5), np.ones(5)], [-1, 1])      # 0 - 1 - 2 - 3 - 4 - 5
    >>> hg = HostGraph(gg.as_graph(path), np.ones(6), np.arange(6, dtype=np.uint64) + 1)
    >>> parts = np.array([0, 0, 0, 0, 0, 1], np.int8)
    >>> rebalance(hg, parts, (3, 3)), parts.tolist()
    (0.0, [0, 0, 0, 1, 1, 1])
    """
    return _rebalance(*hg.arrays(), parts, np.asarray(bounds, np.float64), *_workspace(hg.n)[:6])


def bisection_key(hg, parts, bounds):
    """(overload, cut) of a bisection: the weight above each side's bound, summed, and the
    weight of the edges between the sides.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, gbgraph as gg
    >>> path = sp.diags([np.ones(5), np.ones(5)], [-1, 1])      # 0 - 1 - 2 - 3 - 4 - 5
    >>> hg = HostGraph(gg.as_graph(path), np.ones(6), np.arange(6, dtype=np.uint64) + 1)
    >>> bisection_key(hg, np.array([0, 0, 0, 0, 1, 1], np.int8), (3, 3))
    (1.0, 1.0)
    """
    cut, pw = cut_and_weights(hg.indptr, hg.indices, hg.weights, hg.vertex_weights, parts, 2)
    return float(_overload(pw, np.asarray(bounds, np.float64))), float(cut)


@numba.njit(cache=True)
def cut_and_weights(indptr, indices, w, vw, parts, k):
    """The weight of the edges between parts, and each of the k parts' vertex weight."""
    total = 0.0
    pw = np.zeros(k)
    for v in range(parts.size):
        pw[parts[v]] += vw[v]
        for t in range(indptr[v], indptr[v + 1]):
            if parts[indices[t]] != parts[v]:
                total += w[t]
    return total / 2.0, pw


def _workspace(n):
    """gain, ext, heaps (2 × n vertices, with their gains and keys), pos, locked, moves, the
    boundary vertices (sorted) and their count, the sides' weights."""
    return (np.empty(n), np.empty(n), np.empty((2, n), np.int64), np.empty((2, n)), np.empty((2, n), np.uint64),
            np.empty(n, np.int64), np.empty(n, np.bool_), np.empty(n, np.int64), np.empty(n, np.int64),
            np.zeros(1, np.int64), np.zeros(2))


@numba.njit(cache=True)
def _repair_and_refine(indptr, indices, w, vw, key, parts, bounds, targets, limit, integral, exact, max_passes, repair,
                       gain, ext, heap, hg, hk, pos, locked, moves, boundary, count, labels, hint):
    """:func:`rebalance` where ``repair``, then the state a first FM pass starts from (every
    gain, the boundary in order, empty heaps, no locks, the sides' weights) and the passes,
    on one workspace; returns the cut. ``exact``: the edge weights are whole numbers with an
    exact total (:meth:`HostGraph.whole_weights`). With a ``hint`` (the coarse level's
    ``ext``, through ``labels``; empty: none) and no repair needed, only the rows of the
    coarse boundary's vertices are summed; the others' ``ext`` is 0 and their gain NaN until
    :func:`_move` sums it."""
    sums = hint.size == 0
    if repair and _overload(_side_weights(parts, vw), bounds) > 0.0:  # moves: the coarse boundary is not this one's
        _rebalance(indptr, indices, w, vw, key, parts, bounds, gain, ext, heap, hg, hk, pos)
        sums = True
    if sums:
        _connections(indptr, indices, w, parts, gain, ext)
    found = 0
    for v in range(parts.size):
        pos[v] = -1
        locked[v] = False
        if not sums:
            if hint[labels[v]] > 0.0:
                _recount(indptr, indices, w, parts, gain, ext, v)
            else:
                ext[v] = 0.0
                gain[v] = np.nan
        if ext[v] > 0.0:
            boundary[found] = v
            found += 1
    count[0] = found
    pw = _side_weights(parts, vw)
    cut = 0.0
    for _ in range(max_passes):
        cut, moved = _fm_pass(indptr, indices, w, vw, key, parts, bounds, targets, limit, integral, exact, gain, ext,
                              heap, hg, hk, pos, locked, moves, boundary, count, pw)
        if moved == 0:
            break
    return cut


@numba.njit(cache=True)
def _side_weights(parts, vw):
    pw = np.zeros(2)
    for v in range(parts.size):
        pw[parts[v]] += vw[v]
    return pw


# ---- addressable max-heaps of vertices ordered by (gain, key) ------------------------------
# A heap holds each entry's gain and key beside its vertex (``hg``, ``hk``), so that sifting
# compares neighbouring slots instead of reading two arrays at random vertices.

@numba.njit(cache=True, inline="always")
def _above(a, b, gain, key):
    return gain[a] > gain[b] or (gain[a] == gain[b] and key[a] > key[b])


# Written for numba's inlining: no array's last use in a branch (a loop that runs zero or more
# times instead), else every inlined copy counted references to its array arguments, two
# atomic operations each (9% of k-way FM's time on coAuthorsDBLP).
@numba.njit(cache=True, inline="always")
def _settle(heap, hg, hk, size, pos, i, v, g, k, up):
    """Entry (v, g, k) into slot i (none: i < 0) of a heap of ``size`` entries, sifted up
    (where ``up``), then down: any slot whose entry changed, or the first free one."""
    while up and i > 0:
        parent = (i - 1) >> 1
        if not (g > hg[parent] or (g == hg[parent] and k > hk[parent])):
            break
        heap[i], hg[i], hk[i] = heap[parent], hg[parent], hk[parent]
        pos[heap[i]] = i
        i = parent
    while i >= 0:
        c = 2 * i + 1
        if c >= size:
            break
        if c + 1 < size and (hg[c + 1] > hg[c] or (hg[c + 1] == hg[c] and hk[c + 1] > hk[c])):
            c += 1
        if not (hg[c] > g or (hg[c] == g and hk[c] > k)):
            break
        heap[i], hg[i], hk[i] = heap[c], hg[c], hk[c]
        pos[heap[i]] = i
        i = c
    for j in range(i, i + 1 if i >= 0 else i):
        heap[j], hg[j], hk[j] = v, g, k
        pos[v] = j


@_borrowing
def _sift_up(heap, hg, hk, pos, i):
    _settle(heap, hg, hk, i + 1, pos, i, heap[i], hg[i], hk[i], True)  # nothing below slot i: up only


@_borrowing
def _sift_down(heap, hg, hk, size, pos, i):
    _settle(heap, hg, hk, size, pos, i, heap[i], hg[i], hk[i], False)


@numba.njit(cache=True, inline="always")
def _append(heap, hg, hk, sizes, s, pos, v, g, k):
    i = sizes[s]
    heap[i], hg[i], hk[i] = v, g, k
    pos[v] = i
    sizes[s] += 1


@_borrowing
def _push(heap, hg, hk, sizes, s, pos, v, g, k):
    _append(heap, hg, hk, sizes, s, pos, v, g, k)
    _sift_up(heap, hg, hk, pos, sizes[s] - 1)


@_borrowing
def _heapify(heap, hg, hk, sizes, pos):
    """Both heaps ordered bottom-up (Floyd), O(size) instead of a push per vertex. Keys are
    distinct, so the top of a heap, all that FM reads, is the same whatever the layout."""
    for s in range(2):
        heapify_one(heap[s], hg[s], hk[s], sizes[s], pos)


@_borrowing
def heapify_one(heap, hg, hk, size, pos):
    """One heap of ``size`` entries ordered bottom-up (Floyd)."""
    for i in range(size // 2 - 1, -1, -1):
        _sift_down(heap, hg, hk, size, pos, i)


@_borrowing
def _remove(heap, hg, hk, sizes, s, pos, v):
    i = pos[v]
    sizes[s] -= 1
    pos[v] = -1
    if i < sizes[s]:
        last = sizes[s]
        heap[i], hg[i], hk[i] = heap[last], hg[last], hk[last]
        pos[heap[i]] = i
        u = heap[i]
        _sift_up(heap, hg, hk, pos, i)
        _sift_down(heap, hg, hk, sizes[s], pos, pos[u])


@_borrowing
def _update(heap, hg, hk, sizes, s, pos, v, g):
    """v's gain is now g: its slot moves up or down."""
    i = pos[v]
    rose = g > hg[i]
    hg[i] = g
    if rose:
        _sift_up(heap, hg, hk, pos, i)
    else:
        _sift_down(heap, hg, hk, sizes[s], pos, i)


# ---- connections and the quality key ----------------------------------------------------------

@_borrowing
def _connections(indptr, indices, w, parts, gain, ext):
    """ext(v) = weight to the other side, gain(v) = ext(v) - weight to its own side; the cut."""
    total = 0.0
    for v in range(parts.size):
        _recount(indptr, indices, w, parts, gain, ext, v)
        total += ext[v]
    return total / 2.0


@numba.njit(cache=True, inline="always")
def _overload(pw, bounds):
    return max(pw[0] - bounds[0], 0.0) + max(pw[1] - bounds[1], 0.0)


@numba.njit(cache=True, inline="always")
def _ratio(pw, targets):
    return max(pw[0] / targets[0] if targets[0] > 0 else 0.0, pw[1] / targets[1] if targets[1] > 0 else 0.0)


@numba.njit(cache=True, inline="always")
def _better(over, cut, ratio, b_over, b_cut, b_ratio):
    if over != b_over:
        return over < b_over
    if cut != b_cut:
        return cut < b_cut
    return ratio < b_ratio


@_borrowing
def _move(indptr, indices, w, v, parts, gain, ext, heap, hg, hk, sizes, pos, locked, key, pw, vw):
    """Move v to the other side; neighbours' gains change by twice the edge weight, and
    unlocked ones enter or leave their side's heap as they become or stop being boundary."""
    s = parts[v]
    _flip_own(v, parts, gain, ext)
    pw[s] -= vw[v]
    pw[1 - s] += vw[v]
    for t in range(indptr[v], indptr[v + 1]):
        u = indices[t]
        if u == v:
            continue
        if np.isnan(gain[u]):  # not summed yet (refine_projected): as before the move, v on side s
            _recount_as(indptr, indices, w, parts, gain, ext, u, v, s)
        _shift(u, w[t], s, parts, gain, ext)
        if locked[u]:
            continue
        side = parts[u]
        if pos[u] >= 0:
            if ext[u] > 0.0:  # edge weights are >= 0: u's gain rose iff it is on v's old side
                hg[side, pos[u]] = gain[u]
                if side == s:
                    _sift_up(heap[side], hg[side], hk[side], pos, pos[u])
                else:
                    _sift_down(heap[side], hg[side], hk[side], sizes[side], pos, pos[u])
            else:
                _remove(heap[side], hg[side], hk[side], sizes, side, pos, u)
        elif ext[u] > 0.0:
            _push(heap[side], hg[side], hk[side], sizes, side, pos, u, gain[u], key[u])


@_borrowing
def _choose(heap, sizes, gain, key, pw, bounds, targets, vw):
    """The top vertex of largest gain whose move keeps the receiving side within bound;
    failing that, the top of the side heavier relative to its target (-1: none)."""
    best = -1
    for s in range(2):
        if sizes[s] > 0:
            v = heap[s, 0]
            if pw[1 - s] + vw[v] <= bounds[1 - s] and (best < 0 or _above(v, best, gain, key)):
                best = v
    if best >= 0:
        return best
    heavy = 0 if pw[0] - targets[0] >= pw[1] - targets[1] else 1
    return heap[heavy, 0] if sizes[heavy] > 0 else -1


@numba.njit(cache=True)
def _fm_pass(indptr, indices, w, vw, key, parts, bounds, targets, limit, integral, exact, gain, ext, heap, hg, hk, pos,
             locked, moves, boundary, count_boundary, side_weights):
    """One FM pass; returns (cut, moves kept). Moves after the best prefix are undone.

    Takes and leaves ``gain`` and ``ext`` exact for ``parts`` (as :func:`_connections`
    computes them), the boundary (``ext > 0``) sorted, ``pos`` at -1 and ``locked`` False,
    and with ``integral`` the sides' weights, so that a pass costs its boundary and its
    moves' neighbourhoods instead of a sweep over every edge and vertex. The cut sums the
    boundary's ``ext`` in vertex order, as a sum over every vertex would (the others add 0).
    With ``exact`` edge weights the moves' running sums are the sums afresh, so the moves
    rolled back are undone on them too and nothing is summed again."""
    total = 0.0
    sizes = np.zeros(2, np.int64)
    for i in range(count_boundary[0]):
        v = boundary[i]
        total += ext[v]
        _append(heap[parts[v]], hg[parts[v]], hk[parts[v]], sizes, parts[v], pos, v, gain[v], key[v])
    pw = side_weights.copy() if integral else _side_weights(parts, vw)
    cut = total / 2.0
    _heapify(heap, hg, hk, sizes, pos)
    b_over, b_cut, b_ratio = _overload(pw, bounds), cut, _ratio(pw, targets)
    kept, count, since = 0, 0, 0
    while since < limit:
        v = _choose(heap, sizes, gain, key, pw, bounds, targets, vw)
        if v < 0:
            break
        _remove(heap[parts[v]], hg[parts[v]], hk[parts[v]], sizes, parts[v], pos, v)
        locked[v] = True
        cut -= gain[v]
        _move(indptr, indices, w, v, parts, gain, ext, heap, hg, hk, sizes, pos, locked, key, pw, vw)
        moves[count] = v
        count += 1
        over, ratio = _overload(pw, bounds), _ratio(pw, targets)
        if _better(over, cut, ratio, b_over, b_cut, b_ratio):
            b_over, b_cut, b_ratio, kept, since = over, cut, ratio, count, 0
        else:
            since += 1
    for i in range(count - 1, kept - 1, -1):  # roll back to the best prefix
        v = moves[i]
        pw[parts[v]] -= vw[v]
        if exact:
            _flip(indptr, indices, w, v, parts, gain, ext)
        else:
            parts[v] = 1 - parts[v]
        pw[parts[v]] += vw[v]
    side_weights[:] = pw
    _restore(indptr, indices, w, parts, gain, ext, heap, sizes, pos, locked, moves, count, boundary, count_boundary,
             exact)
    return b_cut, kept


@_borrowing
def _recount(indptr, indices, w, parts, gain, ext, v):
    """ext(v) and gain(v) summed afresh, each over v's row in order."""
    e = 0.0
    own = 0.0
    for t in range(indptr[v], indptr[v + 1]):
        if parts[indices[t]] == parts[v]:
            own += w[t]
        else:
            e += w[t]
    ext[v] = e
    gain[v] = e - own


@_borrowing
def _flip(indptr, indices, w, v, parts, gain, ext):
    """v to the other side, with :func:`_move`'s sums and no heap: a move rolled back."""
    s = parts[v]
    _flip_own(v, parts, gain, ext)
    for t in range(indptr[v], indptr[v + 1]):
        u = indices[t]
        if u != v:
            _shift(u, w[t], s, parts, gain, ext)


@numba.njit(cache=True, inline="always")
def _flip_own(v, parts, gain, ext):
    """v to the other side, its own sums swapped: what was internal is now external."""
    parts[v] = 1 - parts[v]
    ext[v] = ext[v] - gain[v]
    gain[v] = -gain[v]


@numba.njit(cache=True, inline="always")
def _shift(u, weight, s, parts, gain, ext):
    """u's sums after a neighbour over an edge of ``weight`` left side s: twice the weight
    in gain, towards u's side or away from it. Signed instead of branched on (the sides of
    a boundary's neighbours alternate unpredictably): ``x + (-y)`` is ``x - y`` exactly."""
    signed = weight if parts[u] == s else -weight
    ext[u] += signed
    gain[u] += 2.0 * signed


@_borrowing
def _recount_as(indptr, indices, w, parts, gain, ext, u, v, s):
    """:func:`_recount` of u with v on side s: its row's sums before v moved."""
    moved = parts[v]
    parts[v] = s
    _recount(indptr, indices, w, parts, gain, ext, u)
    parts[v] = moved


@numba.njit(cache=True)
def _restore(indptr, indices, w, parts, gain, ext, heap, sizes, pos, locked, moves, count, boundary, count_boundary,
             exact):
    """After a pass: the gains the pass touched (its moved vertices and their neighbours)
    summed afresh (unless ``exact``: the running sums are those sums), the boundary updated,
    the heaps emptied, the locks released. ``pos`` of a vertex out of the heaps is -1, so it
    marks the vertices already recounted (-2); it is -1 again at the end. The heaps' rows and
    ``moves`` serve as scratch."""
    for s in range(2):
        for i in range(sizes[s]):
            pos[heap[s, i]] = -1
    stamp = 0
    for i in range(count):
        v = moves[i]
        locked[v] = False
        for t in range(indptr[v], indptr[v + 1] + 1):
            u = indices[t] if t < indptr[v + 1] else v
            if pos[u] == -1:
                if not exact:
                    _recount(indptr, indices, w, parts, gain, ext, u)
                pos[u] = -2
                heap[0, stamp] = u
                stamp += 1
    kept = 0  # the boundary vertices the pass did not touch stay, in order
    for i in range(count_boundary[0]):
        if pos[boundary[i]] != -2:
            heap[1, kept] = boundary[i]
            kept += 1
    found = 0
    for i in range(stamp):
        if ext[heap[0, i]] > 0.0:
            moves[found] = heap[0, i]
            found += 1
    joined = np.sort(moves[:found])
    i, j, o = 0, 0, 0
    while i < kept or j < found:  # merge the two sorted lists
        if j >= found or (i < kept and heap[1, i] < joined[j]):
            boundary[o] = heap[1, i]
            i += 1
        else:
            boundary[o] = joined[j]
            j += 1
        o += 1
    count_boundary[0] = o
    for i in range(stamp):
        pos[heap[0, i]] = -1


@numba.njit(cache=True)
def _rebalance(indptr, indices, w, vw, key, parts, bounds, gain, ext, heap, hg, hk, pos):
    n = parts.size
    pw = np.zeros(2)
    for v in range(n):
        pw[parts[v]] += vw[v]
    over = _overload(pw, bounds)
    if over <= 0.0:  # the usual case: no gains needed
        return 0.0
    _connections(indptr, indices, w, parts, gain, ext)
    s = 0 if pw[0] - bounds[0] >= pw[1] - bounds[1] else 1
    sizes = np.zeros(2, np.int64)
    locked = np.zeros(n, np.bool_)  # vertices of the light side never enter the heap
    for v in range(n):
        pos[v] = -1
        if parts[v] == s:
            _append(heap[s], hg[s], hk[s], sizes, s, pos, v, gain[v], key[v])
        else:
            locked[v] = True
    _heapify(heap, hg, hk, sizes, pos)
    while sizes[s] > 0 and pw[s] > bounds[s]:
        v = heap[s, 0]
        _remove(heap[s], hg[s], hk[s], sizes, s, pos, v)
        locked[v] = True
        fits = pw[1 - s] + vw[v] <= bounds[1 - s]
        lowers = max(pw[s] - vw[v] - bounds[s], 0.0) + max(pw[1 - s] + vw[v] - bounds[1 - s], 0.0) < over
        if not (fits or lowers):
            continue
        _move_all(indptr, indices, w, v, parts, gain, heap, hg, hk, sizes, pos, locked, pw, vw)
        over = _overload(pw, bounds)
    return _overload(pw, bounds)


@_borrowing
def _move_all(indptr, indices, w, v, parts, gain, heap, hg, hk, sizes, pos, locked, pw, vw):
    """Move v; every unlocked vertex of the heavy side stays in its heap (boundary or not)."""
    s = parts[v]
    parts[v] = 1 - s
    pw[s] -= vw[v]
    pw[1 - s] += vw[v]
    for t in range(indptr[v], indptr[v + 1]):
        u = indices[t]
        gain[u] += 2.0 * w[t] if parts[u] == s else -2.0 * w[t]
        if not locked[u] and pos[u] >= 0:
            _update(heap[parts[u]], hg[parts[u]], hk[parts[u]], sizes, parts[u], pos, u, gain[u])

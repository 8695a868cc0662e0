"""MIS-2 aggregation for algebraic multigrid, equal to Kokkos Kernels' label for label.

``aggregate(A, "mis2")`` is Algorithm 3 of Kelley & Rajamanickam [1]_ as Kokkos Kernels'
``graph_mis2_aggregate`` implements it; ``"mis2_basic"`` is Algorithm 2 as its
``graph_mis2_coarsen`` does (phases 1 and 3 only). The paper sketches the phases; the rules
followed here are Kokkos Kernels' own, see :func:`aggregate`.
"""


import numpy as np

from .. import backends
from .._labels import labelled
from ..backends.operators import RowOperator, local
from ..results import Aggregation
from ..graph import as_graph
from .mis import _degrees, _mis2
from ..hashing import packing_bits

__all__ = ["Aggregation", "aggregate", "METHODS"]

METHODS = ("mis2", "mis2_basic")

#: Kokkos Kernels keeps at most this many neighbouring aggregates per vertex in phase 3.
TRACKED = 8


# The row operators read a row's positions and columns as unsigned integers: numba tests a
# signed index for wraparound on every read, which keeps LLVM from unrolling the scan (numba,
# one thread: aggregate on Elasticity3D 30³ 58.4 -> 56.6 ms, coAuthorsDBLP 73.2 -> 70.5 ms).


def _better_group(i, start, stop, cols, vals, label, is_root, group_size):
    """Phase 3 for row i: the group it ends in, its own or a better neighbouring one.

    A root keeps its group, and so does a labelled vertex next to fewer than two roots: it
    touches its own group's root, so only a group whose root it touches too could beat its
    own (:func:`_join_leftovers` passes only the other rows). Every other row (unlabelled,
    or next to two roots or more) is examined: groups are met in column order, at most
    ``LIMIT`` of them: the row is read up to the first neighbour of a (LIMIT + 1)-th (Kokkos
    Kernels' fixed-size scan), except for its own group, counted over the whole row. A
    group's key is ``rooted << 32 | count`` (a group has one root: the sum of ``is_root <<
    32 | 1`` over its neighbours); the best other group has the largest key, then the
    smallest size, then the earliest slot. The row moves if that beats its own group's key
    (0 when unlabelled), or equals it with a strictly smaller size. ``group_size(j)`` is the
    size of j's group. Every row gets an entry, -1 where it has no group and meets none.
    The scan stops at the (LIMIT + 1)-th group, then reads on for the own group only, not
    at all for an unlabelled row (the keys as sums, no branch on a root: 10-15% less time
    than a flag of stopping tested at every neighbour, coAuthorsDBLP 10.0 -> 9.0 ms).
    """
    own = label[i]
    if is_root[i]:
        return own, True
    if own >= 0:
        touched = 0
        p = np.uint64(start)
        while p < np.uint64(stop) and touched < 2:  # up to a second root: then the row is scanned
            touched += is_root[np.uint64(cols[p])]
            p += np.uint64(1)
        if touched < 2:
            return own, True
    # slot s: group at s, key at LIMIT + s, size at 2 LIMIT + s; one array, not three:
    # an allocation per row costs as much as the scan
    slot = local(SLOTS, np.int64)  # SLOTS, LIMIT: the operator's constants
    own_key = 0
    m = 0
    p = np.uint64(start)
    end = np.uint64(stop)
    while p < end:
        j = np.uint64(cols[p])
        p += np.uint64(1)
        g = label[j]
        if g < 0:
            continue
        key = np.int64(1) + (np.int64(is_root[j]) << 32)  # a group's one root, met once: a sum sets its bit
        if g == own:
            own_key += key
            continue
        s = 0
        while s < m and slot[s] != g:
            s += 1
        if s == m:
            if m == LIMIT:
                break  # the first neighbour of one group too many: the scan stops
            slot[m] = g
            slot[LIMIT + m] = 0
            slot[2 * LIMIT + m] = group_size[j]
            m += 1
        slot[LIMIT + s] += key
    while own >= 0 and p < end:  # the rest of the row, for its own group alone
        j = np.uint64(cols[p])
        p += np.uint64(1)
        if label[j] == own:
            own_key += np.int64(1) + (np.int64(is_root[j]) << 32)
    chosen = -1
    for s in range(m):
        if chosen < 0 or slot[LIMIT + s] > slot[LIMIT + chosen] or slot[LIMIT + s] == slot[LIMIT + chosen] \
                and slot[2 * LIMIT + s] < slot[2 * LIMIT + chosen]:
            chosen = s
    if chosen < 0:
        return own, True
    key = slot[LIMIT + chosen]
    size = slot[2 * LIMIT + chosen]
    if key > own_key or key == own_key and own >= 0 and size < group_size[i]:
        return slot[chosen], True
    return own, True


#: Phase 3 as a row operator (:func:`_better_group`): ``mxv(BETTER_GROUP, A, (labels,
#: rooted, group sizes))``, the group each row ends in (-1: none), an entry in every row.
BETTER_GROUP = RowOperator(_better_group, fill=(-1, False, 0), constants={"LIMIT": TRACKED, "SLOTS": 3 * TRACKED},
                           name="better_group")


def _gathers_three(i, start, stop, cols, vals, label):
    """[1] Alg.3 l.9 for a candidate root i: the unaggregated vertices of its closed
    neighbourhood (itself and its row's columns), kept when there are at least 3."""
    count = 0
    if label[i] < 0:
        count = 1
    for p in range(np.uint64(start), np.uint64(stop)):
        if label[np.uint64(cols[p])] < 0:
            count += 1
    return count, count >= 3


#: ``mxv(GATHERS_THREE, A, labels, mask=candidates)``: the candidate roots kept in phase 2
#: (:func:`_gathers_three`; labels -1 or absent where unaggregated), each with its aggregate's size.
GATHERS_THREE = RowOperator(_gathers_three, fill=-1, name="gathers_three")


def aggregate(A, method="mis2", *, backend=None):
    """Aggregates for smoothed-aggregation AMG from distance-2 maximal independent sets.

    Phase 1 (both methods): the roots are ``gg.mis2(A)`` in ascending id; aggregate k is
    root k and all its neighbours. Phase 2 (``"mis2"`` only): a second MIS-2 in which only
    the unaggregated vertices may join (aggregated ones start OUT, distances still run
    through the whole graph, rounds restart at 0); a candidate root r is kept when
    1 + (its unaggregated neighbours) >= 3, kept roots in ascending id take the next ids, and
    each takes its unaggregated neighbours. Phase 3 (both): from a snapshot of the labels,
    every vertex but the roots may move to a neighbouring aggregate, preferring one whose
    root is adjacent, then more neighbours there, then a strictly smaller aggregate, ties to
    its own aggregate and then to the aggregate seen first in its sorted row; like Kokkos
    Kernels, a vertex considers at most 8 neighbouring aggregates and stops reading its row
    at the first neighbour of a 9th.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; the pattern is used.
    method : {"mis2", "mis2_basic"}
        Kokkos Kernels' ``graph_mis2_aggregate`` or ``graph_mis2_coarsen``.
    backend : str or Backend, optional
        ``"numba"``, ``"suitesparse"`` or ``"cupy"`` (the same result on each); None picks
        ``"cupy"`` for GPU input, else ``"numba"``.

    Returns
    -------
    Aggregation
        ``labels`` equal to Kokkos Kernels' (>= 4.0, 32-bit ordinals) on the same graph;
        numpy arrays on the CPU, CuPy on the GPU; for a networkx graph, a dict node ->
        aggregate and the set of root nodes.

    Raises
    ------
    ValueError
        for an unknown method, or a graph of 2**32 or more vertices.
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.

    Notes
    -----
    Phases 1 and 2 are semiring products: one root per closed neighbourhood, so a push
    from the roots' rows (``ids ⊕any.first A``) gives each vertex it reaches its root's id;
    labels are kept full, -1 where unaggregated; phase 2's size test is a row operator over
    the candidate roots (:data:`GATHERS_THREE`). Phase 3 is one row operator
    (:data:`BETTER_GROUP`) passed to ``mxv`` over the rows that may move: a root keeps its
    aggregate, and so does a vertex next to one root once it has one, so only the
    unaggregated vertices and those next to a root of each phase are read once more,
    counting their neighbours per aggregate in 8 slots as Kokkos Kernels' fixed-size scan
    does, to pick the best. The 8-aggregate limit is an artefact of that scan; it is applied
    exactly, to the rows it affects.

    References
    ----------
    .. [1] B. Kelley and S. Rajamanickam, "Parallel, portable algorithms for distance-2
       maximal independent set and graph coarsening," IPDPS 2022, pp. 280-290.
       https://doi.org/10.1109/IPDPS53621.2022.00035

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> A = gg.generators.laplace3d(10)
    >>> agg = gg.aggregate(A)
    >>> int(agg.labels.min()), int(agg.labels.max()) + 1 == agg.n_aggregates
    (0, True)
    >>> bool(np.unique(agg.labels[agg.roots]).size == agg.n_aggregates)
    True
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    graph = as_graph(A, weights=False)
    if graph.n >= 2**32:
        raise ValueError(f"aggregate supports fewer than 2**32 vertices, the graph has n = {graph.n:,}")
    be = backends.for_graph(backend, graph)
    graph = graph.on_device_of(be.xp)
    with be.guard(graph):
        result = _aggregate(be, graph, secondary=method == "mis2")
    return labelled(A, result, sets=("roots",), maps=("labels",))


def _aggregate(be, graph, secondary):
    n, xp = graph.n, be.xp
    if n == 0:
        return Aggregation(xp.empty(0, xp.int64), xp.empty(0, xp.int64), 0)
    fused = be.fused("aggregate")
    if fused is not None:  # backend="native": the same phases as fused kernels
        return fused(graph, secondary)
    A = be.adjacency(graph)  # no A + I: each phase adds a row's own vertex itself
    bits = packing_bits(n)
    roots = _mis2(be, graph, bits, n + 1).vertices  # [1] Alg.3 l.3
    labels = be.full(n, -1, "int64")
    reached = _grow(be, A, n, labels, roots, 0)  # l.4-6
    be.assign(labels, reached, mask=reached)  # label<reached> = reached
    sizes = _degrees(graph, xp)[roots] + 1  # each root's closed neighbourhood, all of it in its aggregate
    shared = None  # the vertices next to two roots
    if secondary:
        more, more_sizes, shared = _secondary_roots(be, graph, A, labels, roots.size, bits)  # l.8-11
        roots = xp.sort(xp.concatenate((roots, more)), kind="stable")  # two sorted runs: a merge (numpy's timsort)
        sizes = xp.concatenate((sizes, more_sizes))
    labels = _join_leftovers(be, graph, labels, roots, sizes, shared)  # l.14-22
    return Aggregation(labels, roots, int(roots.size))


def _grow(be, A, n, labels, roots, first_id):
    """Aggregate k = root k and its neighbours: labels the roots, ``labels<ids> = ids``, and
    returns their neighbours with their roots' ids, ``reached = ids ⊕any.first A``.

    ``ids`` holds each root's aggregate id, ``first_id`` on, at the roots only. Roots form a
    distance-2 independent set, so a closed neighbourhood holds at most one root: the
    product, a push from the roots' rows, reaches each vertex next to a root once, with
    that root's id, and no root. It reads the roots' rows alone (coAuthorsDBLP's phase 1:
    130,000 entries of 2.25 million; 4.7 -> 1.6 ms on one thread against a pull of every
    row's maximum over a full vector of ids). The roots are written apart, not added to
    ``reached`` (their union took 0.5 ms, the assign a few µs).
    """
    xp = be.xp
    ids = be.vector(roots, xp.arange(first_id, first_id + roots.size, dtype=xp.int64), n)
    be.assign(labels, ids, mask=ids)  # labels<ids> = ids
    return be.vxm("any_first", ids, A)  # reached = ids ⊕any.first A


def _secondary_roots(be, graph, A, labels, first_id, bits):
    """[1] Alg.3 l.8-11: roots of an MIS-2 among the unaggregated vertices, kept when they
    would gather at least 3 vertices (themselves and >= 2 unaggregated neighbours), and
    their aggregates, ids from ``first_id`` on, written into ``labels`` at the unaggregated
    vertices they reach. Returns the roots, their aggregates' sizes, and the aggregated
    vertices they reach: next to a root of each phase (no vertex is next to two roots of
    one phase), the only vertices next to two roots."""
    n = graph.n
    unaggregated = be.apply("lt", labels, right=0)  # unaggregated = labels < 0, full
    free = be.select("valueeq", unaggregated, True)  # free = select(unaggregated == true)
    candidates = _mis2(be, graph, bits, n + 1, candidates=free).vertices
    # kept<candidates> = GATHERS_THREE(A, labels): the candidate and its unaggregated neighbours
    kept = be.mxv(GATHERS_THREE, A, labels, mask=be.vector(candidates, True, n))
    more = be.indices(kept)
    reached = _grow(be, A, n, labels, more, first_id)  # l.11
    grown = be.apply("identity", reached, mask=unaggregated, structure=False)  # grown<unaggregated> = reached
    be.assign(labels, grown, mask=grown)  # label<grown> = grown
    # shared<¬unaggregated> = reached
    shared = be.apply("identity", reached, mask=unaggregated, structure=False, complement=True)
    return more, be.values(kept), shared


def _join_leftovers(be, graph, labels, roots, sizes, shared):
    """[1] Alg.3 l.14-22: move vertices to a better neighbouring aggregate (Kokkos rules).

    Each vertex compares the key (root adjacent, neighbours there, -size) of its own
    aggregate, (1, conn, -size) if it has one and (0, 0, 0) if not, with the best key among
    its neighbouring aggregates (at most ``TRACKED`` of them, as Kokkos Kernels scans), and
    moves only if that is strictly better, in one row operator (:data:`BETTER_GROUP`) over
    the snapshot ``labels``. An aggregated vertex thus moves only toward an aggregate whose
    root it touches; it always touches its own root, so only the unaggregated vertices and
    those ``shared`` by two roots (None: no such vertex) are examined (coAuthorsDBLP: 156,000
    rows of 299,000, 45% of the entries), and every other vertex keeps its label. ``sizes``:
    the aggregates' sizes in id order (l.18), which each vertex carries for the rows beside
    it to read. ``roots``: the aggregates' roots, sorted. ``labels`` (full) is updated in
    place; returns its values.
    """
    n, xp = graph.n, be.xp
    A = be.adjacency(graph)
    by_group = be.full(sizes.size + 1, xp.concatenate((xp.zeros(1, xp.int64), sizes)), "int64")  # 0: unaggregated
    size = be.extract(by_group, be.values(labels) + 1)  # size = by_group(labels + 1)
    rows = be.apply("lt", labels, right=0)  # rows = labels < 0, full
    if shared is not None:
        be.assign(rows, True, mask=shared)  # rows<shared> = true
    # moved<rows> = BETTER_GROUP(A, (labels, rooted, size)): l.19-21
    moved = be.mxv(BETTER_GROUP, A, (labels, be.vector(roots, True, n), size), mask=rows, structure=False)
    be.assign(labels, moved, mask=moved)  # labels<moved> = moved
    return be.values(labels)

"""Maximal independent sets as semiring rounds: MIS-1, MIS-2 and Bell's MIS-k.

One round structure serves the whole family (:func:`_rounds`): Algorithm 1 of Kelley &
Rajamanickam [1]_ (Kokkos Kernels ``graph_d2_mis`` with ``MIS2_FAST``, bit for bit), with one
column level per hop, so that distance k takes k masked products per round, and with
statuses that are either refreshed every round (Luby's Monte Carlo Algorithm A [2]_,
Algorithm 1) or fixed once (Bell, Dalton and Olson's MIS-k [3]_, the random-permutation MIS,
ECL-MIS [4]_, Kokkos Kernels' ``MIS2_QUALITY``). Read it beside Algorithm 1: the comments
give its line numbers.

==================================  ========  ========================================  ===========
call                                distance  statuses                                  refreshed
==================================  ========  ========================================  ===========
``mis1(A, "random")``               1         Kokkos Kernels' hash of (round, vertex)   every round
``mis1(A, "permutation")``          1         the same hash, round 0                    never
``mis1(A, "degree")``               1         ECL-MIS's degree priority                 never
``mis2(A)``                         2         Kokkos Kernels' hash of (round, vertex)   every round
``mis2(A, priority="fixed")``       2         the same hash, round 0                    never
``mis2(A, priority="quality")``     2         Kokkos Kernels' normalised degree         never
``misk(A, k)``                      k         the same hash, round 0                    never
==================================  ========  ========================================  ===========

References
----------
.. [1] B. Kelley and S. Rajamanickam, "Parallel, portable algorithms for distance-2
   maximal independent set and graph coarsening," IPDPS 2022, pp. 280-290.
   https://doi.org/10.1109/IPDPS53621.2022.00035
.. [2] M. Luby, "A simple parallel algorithm for the maximal independent set problem,"
   SIAM J. Comput. 15(4), 1036-1053, 1986. https://doi.org/10.1137/0215074
.. [3] N. Bell, S. Dalton and L. N. Olson, "Exposing fine-grained parallelism in
   algebraic multigrid methods," SIAM J. Sci. Comput. 34(4), C123-C152, 2012.
   https://doi.org/10.1137/110838844
.. [4] M. Burtscher, S. Devale, S. Azimi, J. Jaiganesh and E. Powers, "A high-quality
   and fast maximal independent set implementation for GPUs," ACM Trans. Parallel
   Comput. 5(2), 8:1-8:27, 2018. https://doi.org/10.1145/3291525
"""

import functools
from typing import NamedTuple

import numpy as np

from .. import backends
from .._checks import check_integer
from ..backends.operators import IndexUnaryOp, RowOperator
from .._labels import labelled
from ..errors import StallError
from ..results import MISResult
from ..graph import as_graph
from ..hashing import HASHES, Packing, packing_bits
from .priorities import ECL_PRIORITY_BITS, ecl_degree, fixed_random, kokkos_quality

__all__ = ["MISResult", "MIS1_PRIORITIES", "MIS2_PRIORITIES", "mis1", "mis2", "misk"]

#: ``priority`` values of :func:`mis1`, the default first.
MIS1_PRIORITIES = ("degree", "random", "permutation")
#: ``priority`` values of :func:`mis2`, the default first.
MIS2_PRIORITIES = ("refresh", "fixed", "quality")
#: Fixed statuses: the rounds narrow to the frontier once two rounds in a row (a vertex
#: joins, its neighbours leave in the next) decide under 1/_NARROW of the undecided rows.
_NARROW = 8



def mis1(A, priority="degree", *, backend=None, packing=None, max_iter=None):
    """Maximal independent set (distance 1), deterministic, in one of three priority orders.

    No two chosen vertices are adjacent, and every other vertex has a chosen neighbour.
    Each round, an undecided vertex whose status is the least in its closed neighbourhood
    joins the set, and a vertex next to a set vertex leaves.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its pattern must be symmetric.
    priority : {"degree", "random", "permutation"}
        ``"degree"`` (default): ECL-MIS's priority [2]_, lower degree first, randomised
        within a degree by the hash (:func:`~gbgraph.algorithms.priorities.ecl_degree`);
        the largest sets of the three on every graph measured (docs/mis_family.md).
        ``"random"``: Luby's Monte Carlo Algorithm A [1]_, new hashed
        priorities every round (MIS-1 of G² with them is MIS-2 of G, Lemma IV.2 of [3]_).
        ``"permutation"``: the hashed priorities of round 0, kept (the random-permutation
        MIS of CUSP, PBBS and Pannotia; the greedy set in that order; ``misk(A, 1)``).
    backend : str or Backend, optional
        ``"numba"``, ``"suitesparse"`` or ``"cupy"`` (the same result on each); None picks
        ``"cupy"`` for GPU input (cupyx sparse, CuPy arrays), else ``"numba"``.
    packing : {None, 32, 64}, optional
        Status width, see :func:`gbgraph.hashing.packing_bits`. None: 32 bits
        when they hold the id and the priority (``n + 2 <= 2**32``; for ``"degree"``,
        ``n + 2 <= 2**25``), else 64.
    max_iter : int, optional
        Most rounds to run; the default, ``n + 1``, is never reached.

    Returns
    -------
    MISResult
        ``vertices`` (sorted int64: numpy on the CPU, CuPy on the GPU; for a networkx
        graph, the set of its nodes) and ``iterations``.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.
    ValueError
        for a bad ``priority`` or ``packing``, or a ``max_iter`` below 1.
    TypeError
        for a ``max_iter`` or ``packing`` that is not an integer (numpy integers are).
    StallError
        if ``max_iter`` rounds leave vertices undecided (the message says how many).
    MemoryError
        if the GPU runs out of memory (the message gives the graph's size).

    Notes
    -----
    Each round is one masked ``min_second`` product over the closed neighbourhoods of the
    undecided vertices; with fixed priorities, once rounds decide few vertices, only over
    the undecided vertices next to the last decisions (found by a push from them).
    Refreshed priorities take O(log n) rounds [1]_; fixed ones as many as the longest chain
    of decreasing priorities, O(log² n) for a random order [4]_.

    References
    ----------
    .. [1] M. Luby, "A simple parallel algorithm for the maximal independent set problem,"
       SIAM J. Comput. 15(4), 1036-1053, 1986. https://doi.org/10.1137/0215074
    .. [2] M. Burtscher, S. Devale, S. Azimi, J. Jaiganesh and E. Powers, "A high-quality
       and fast maximal independent set implementation for GPUs," ACM Trans. Parallel
       Comput. 5(2), 8:1-8:27, 2018. https://doi.org/10.1145/3291525
    .. [3] B. Kelley and S. Rajamanickam, "Parallel, portable algorithms for distance-2
       maximal independent set and graph coarsening," IPDPS 2022, pp. 280-290.
       https://doi.org/10.1109/IPDPS53621.2022.00035
    .. [4] G. E. Blelloch, J. T. Fineman and J. Shun, "Greedy sequential maximal independent
       set and matching are parallel on average," SPAA 2012, pp. 308-317.
       https://doi.org/10.1145/2312005.2312058

    Examples
    --------
    >>> import gbgraph as gg
    >>> A = gg.generators.laplace3d(5)
    >>> sizes = {p: len(gg.mis1(A, p).vertices) for p in ("degree", "random", "permutation")}
    >>> all(gg.validate.is_mis(A, gg.mis1(A, p).vertices) for p in sizes)
    True
    >>> sizes["degree"] >= max(sizes["random"], sizes["permutation"])
    True
    """
    _check_choice("priority", priority, MIS1_PRIORITIES)
    graph = as_graph(A, weights=False)
    be = backends.for_graph(backend, graph)
    graph = graph.on_device_of(be.xp)
    with be.guard(graph):
        result = _rounds(be, graph, _statuses(graph, priority, packing, be.xp), 1, _max_iter(graph, max_iter))
    return labelled(A, result, sets=("vertices",))


def mis2(A, priority="refresh", *, backend=None, priority_hash="xorshift*", packing=None, max_iter=None):
    """Distance-2 maximal independent set, deterministic; by default equal to Kokkos Kernels'.

    No two chosen vertices are joined by a path of one or two edges, and every other vertex
    has a chosen vertex within two edges. With the default priorities the set is the one
    Kokkos Kernels' ``graph_d2_mis(..., MIS2_FAST)`` returns on the same graph (Kokkos
    Kernels >= 3.6 with 32-bit ordinals), on every backend and thread count.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its pattern must be symmetric.
    priority : {"refresh", "fixed", "quality"}
        ``"refresh"`` (default): Algorithm 1 of [1]_, new hashed priorities every round.
        ``"fixed"``: the hashed priorities of round 0, kept: Bell et al.'s MIS-2 [2]_, the
        "Fixed" column of [1]_'s Table I (``misk(A, 2)``). ``"quality"``: Kokkos Kernels'
        ``MIS2_QUALITY``, fixed priorities from the normalised degree, lower degree first,
        ties to the lower id (:func:`~gbgraph.algorithms.priorities.kokkos_quality`).
    backend : str or Backend, optional
        ``"numba"``, ``"suitesparse"`` or ``"cupy"`` (the same result on each); None picks
        ``"cupy"`` for GPU input (cupyx sparse, CuPy arrays), else ``"numba"``.
    priority_hash : {"xorshift*", "xorshift"}
        The hash of the ``"refresh"`` and ``"fixed"`` priorities: Kokkos Kernels'
        xorshift* (default), or the plain xorshift of Table I's "Xor Hash" column, which
        needs about twice the rounds (for that experiment).
    packing : {None, 32, 64}, optional
        Width of the packed (priority, id) statuses, see
        :func:`gbgraph.hashing.packing_bits`. None: 32 bits when
        ``n + 2 <= 2**32``, else 64 (Kokkos Kernels with 64-bit ordinals).
    max_iter : int, optional
        Most rounds to run. The default, ``n + 1``, is never reached: each round decides at
        least the undecided vertex of least status.

    Returns
    -------
    MISResult
        ``vertices`` (sorted int64: numpy on the CPU, CuPy on the GPU; for a networkx
        graph, the set of its nodes) and ``iterations``.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.
    ValueError
        for a bad ``priority``, ``priority_hash`` (or one given with ``"quality"``) or
        ``packing``, or a ``max_iter`` below 1.
    TypeError
        for a ``max_iter`` or ``packing`` that is not an integer (numpy integers are).
    StallError
        if ``max_iter`` rounds leave vertices undecided (the message says how many).
    MemoryError
        if the GPU runs out of memory (the message gives the graph's size).

    Notes
    -----
    Each round costs two masked ``min_second`` products over the closed neighbourhoods
    (pattern of A + I): about two SpMVs while the worklists are dense, less as they shrink.
    Expect O(log n) rounds with refreshed priorities (Luby's bound, [1]_ section IV), more
    with fixed ones (Table I of [1]_; ``"quality"`` takes hundreds on a grid, where ids
    break most ties, and then recomputes only what each round's decisions reach).

    References
    ----------
    .. [1] B. Kelley and S. Rajamanickam, "Parallel, portable algorithms for distance-2
       maximal independent set and graph coarsening," IPDPS 2022, pp. 280-290.
       https://doi.org/10.1109/IPDPS53621.2022.00035
    .. [2] N. Bell, S. Dalton and L. N. Olson, "Exposing fine-grained parallelism in
       algebraic multigrid methods," SIAM J. Sci. Comput. 34(4), C123-C152, 2012.
       https://doi.org/10.1137/110838844

    Examples
    --------
    >>> import gbgraph as gg
    >>> r = gg.mis2(gg.generators.laplace3d(5))
    >>> r.vertices[:6].tolist(), len(r.vertices), r.iterations
    ([4, 5, 12, 23, 26, 33], 16, 6)
    >>> gg.validate.is_mis(gg.generators.laplace3d(5), r.vertices, distance=2)
    True
    >>> q = gg.mis2(gg.generators.laplace3d(5), priority="quality")
    >>> gg.validate.is_mis(gg.generators.laplace3d(5), q.vertices, distance=2)
    True
    """
    _check_choice("priority", priority, MIS2_PRIORITIES)
    _check_choice("priority_hash", priority_hash, HASHES)
    if priority == "quality" and priority_hash != "xorshift*":
        raise ValueError(f"priority_hash applies to priority='refresh' or 'fixed', got priority='quality' "
                         f"with priority_hash={priority_hash!r}")
    graph = as_graph(A, weights=False)
    be = backends.for_graph(backend, graph)
    graph = graph.on_device_of(be.xp)
    with be.guard(graph):
        statuses = _statuses(graph, priority, packing, be.xp, priority_hash)
        result = _rounds(be, graph, statuses, 2, _max_iter(graph, max_iter))
    return labelled(A, result, sets=("vertices",))


def misk(A, k, *, backend=None, packing=None, max_iter=None):
    """Distance-k maximal independent set with fixed random priorities (Bell et al. [1]_).

    No two chosen vertices are joined by a path of k or fewer edges, and every other vertex
    has a chosen vertex within k edges. Priorities are the hashed ones of round 0, kept for
    the whole run, as in Bell, Dalton and Olson's algorithm (CUSP, pyamg's
    ``maximal_independent_set(A, k=k)``); the set is the greedy one in that order.
    ``misk(A, 1)`` is ``mis1(A, "permutation")`` and ``misk(A, 2)`` is
    ``mis2(A, priority="fixed")``.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its pattern must be symmetric.
    k : int
        The distance, at least 1.
    backend : str or Backend, optional
        ``"numba"``, ``"suitesparse"`` or ``"cupy"`` (the same result on each); None picks
        ``"cupy"`` for GPU input (cupyx sparse, CuPy arrays), else ``"numba"``.
    packing : {None, 32, 64}, optional
        Status width, as in :func:`mis2`.
    max_iter : int, optional
        Most rounds to run; the default, ``n + 1``, is never reached.

    Returns
    -------
    MISResult
        ``vertices`` (sorted int64: numpy on the CPU, CuPy on the GPU; for a networkx
        graph, the set of its nodes) and ``iterations``.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.
    ValueError
        for a ``k`` or ``max_iter`` below 1, or a bad ``packing``.
    TypeError
        for a ``k``, ``max_iter`` or ``packing`` that is not an integer (numpy integers are).
    StallError
        if ``max_iter`` rounds leave vertices undecided (the message says how many).
    MemoryError
        if the GPU runs out of memory (the message gives the graph's size).

    Notes
    -----
    Each round is k masked ``min_second`` products: k - 1 levels of column minima, each
    over its own worklist (the columns not yet next to a set vertex at that distance), and
    the decision over the undecided rows; once rounds decide few vertices, only over what
    the last decisions reach. pyamg's C++ implementation of [1]_ instead does 2k products
    over all vertices per round.

    References
    ----------
    .. [1] N. Bell, S. Dalton and L. N. Olson, "Exposing fine-grained parallelism in
       algebraic multigrid methods," SIAM J. Sci. Comput. 34(4), C123-C152, 2012.
       https://doi.org/10.1137/110838844

    Examples
    --------
    >>> import gbgraph as gg
    >>> A = gg.generators.laplace3d(6)
    >>> r = gg.misk(A, 3)
    >>> gg.validate.is_mis(A, r.vertices, distance=3)
    True
    >>> bool((gg.misk(A, 2).vertices == gg.mis2(A, priority="fixed").vertices).all())
    True
    """
    k = check_integer("k", k, minimum=1)
    graph = as_graph(A, weights=False)
    be = backends.for_graph(backend, graph)
    graph = graph.on_device_of(be.xp)
    with be.guard(graph):
        statuses = fixed_random(graph.n, packing_bits(graph.n, packing), be.xp)
        result = _rounds(be, graph, statuses, k, _max_iter(graph, max_iter))
    return labelled(A, result, sets=("vertices",))


def _stores_diagonal(be):
    """Whether the rounds read A + I on ``be`` (a GPU backend, which makes it from the graph's
    arrays on the device) or the graph's own pattern (the host backends, whose row operators
    take row i's own value beside its columns': no copy of A + I, a pass of nnz + n entries
    that cost ``gg.mis2`` of coAuthorsDBLP 3.3 ms of its 48 on one thread). On a GPU the
    column pass then stays the built-in ``min_second`` product, a warp a row where a row
    operator takes a thread a row."""
    return be.xp is not np


def _statuses(graph, priority, packing, xp, priority_hash="xorshift*"):
    """The packed statuses a priority name stands for, in the width :func:`packing_bits` picks."""
    if priority == "degree":
        return ecl_degree(_degrees(graph, xp), packing_bits(graph.n, packing, ECL_PRIORITY_BITS), xp)
    bits = packing_bits(graph.n, packing)
    if priority == "quality":
        return kokkos_quality(_degrees(graph, xp), bits, xp)
    if priority in ("random", "refresh"):
        return Packing(graph.n, bits, xp, priority_hash)
    return fixed_random(graph.n, bits, xp, priority_hash)


def _degrees(graph, xp):
    """Neighbours of each vertex (the diagonal is not stored), as an ``xp`` array."""
    return xp.diff(xp.asarray(graph.indptr))


def _mis2(be, graph, bits, max_iter, candidates=None):
    """[1] Algorithm 1 (Kokkos Kernels' ``MIS2_FAST``): :func:`_rounds` with k = 2.

    ``candidates`` (a boolean vector, structure used) restricts the set to those vertices,
    as Kokkos Kernels' ``D2_MIS_RandomPriority::compute(mask)`` does: the others start OUT,
    distances still run through the whole graph.
    """
    return _rounds(be, graph, Packing(graph.n, bits, be.xp), 2, max_iter, candidates)


def _rounds(be, graph, statuses, k, max_iter, candidates=None):
    """Distance-k MIS: [1] Algorithm 1 with k - 1 column levels, worklist rounds then frontier ones.

    ``T`` holds row statuses: IN (least), OUT (greatest), else the packed priority, set in
    round 0 and, if ``statuses.refresh``, again every round (l.11-15). Level j of
    ``levels`` (j = 1..k-1) holds the minimum of T over the ball of radius j around each
    vertex, level j - 1 being T for j = 1. Once an IN vertex lies within distance j that
    minimum stays IN, and once the whole ball is OUT it stays OUT, so each level is
    recomputed only over its worklist, the columns with IN < minimum < OUT (l.17-22, l.34).
    IN in level j means "an IN vertex lies within distance j", which Kokkos Kernels writes
    as OUT_SET (l.19-20), and one ``min_second`` product over the undecided rows decides
    both tests of l.25-30 (:func:`_decide`). k = 2 is Algorithm 1.

    With fixed statuses, once two rounds in a row decide under ``1 / _NARROW`` of the
    undecided rows (priorities that form chains: ``MIS2_QUALITY`` or ECL-MIS's degree
    order on a mesh; random priorities decide more than the remaining rows every two
    rounds) the rounds hand over to frontier rounds (:func:`_frontier_round`), which
    recompute only what the last decisions reach. Each step is a function, so that its
    temporaries are freed when it returns.
    """
    n = graph.n
    if n == 0:
        return MISResult(be.xp.empty(0, be.xp.int64), 0)
    fused = be.fused(f"mis{k}")
    if fused is not None:  # backend="native": the same rounds in one kernel
        return fused(graph, statuses, max_iter, candidates)
    A = be.adjacency(graph, closed=_stores_diagonal(be))  # A + I, or A with each row's own value implied
    ops = _operators(statuses, _irregular(be, graph))  # the round operators of these statuses and this graph
    T = be.full(n, statuses.OUT, statuses.dtype)
    levels = [be.full(n, statuses.IN, statuses.dtype) for _ in range(k - 1)]
    every = be.full(n, True, "bool")  # l.6-7
    wl1 = every if candidates is None else candidates
    if statuses.refresh:
        return _refreshed_rounds(be, A, T, levels, wl1, [every] * (k - 1), statuses, ops, max_iter)
    return _fixed_rounds(be, A, T, levels, wl1, [every] * (k - 1), statuses, ops, max_iter,
                         masked=candidates is not None)


def _refreshed_rounds(be, A, T, levels, wl1, open_columns, statuses, ops, max_iter):
    """Rounds with statuses refreshed every round: the same verbs on the worklists each
    time, round 0 included, which :meth:`~gbgraph.backends.base.Backend.iterate` runs (and
    the cupy backend compiles into one kernel). In round 0 without candidates every T is a
    priority, so no column can leave: its select of the columns keeps them all, one pass
    that makes round 0 the same step as the others."""
    k = len(levels) + 1
    undecided = ops.undecided

    def round_(wl1, *columns_and_round):  # state (wl1, column worklists...), round
        *columns, it = columns_and_round
        y = _worklist_round(be, A, T, levels, wl1, columns, statuses, ops, it, True)
        return (be.select(undecided, y, True), *columns)  # l.33: wl1 = select(IN < y < OUT)

    rounds = 0
    if be.nvals(wl1):  # l.9
        states, rounds = be.iterate(round_, (wl1, *open_columns), stop=max_iter)
        wl1 = states[0]
        del states  # the column worklists, not kept beside the set's selection (MIS-2's memory high-water)
    if be.nvals(wl1):
        raise StallError(f"MIS-{k}: {be.nvals(wl1):,} of {be.nvals(T):,} vertices undecided after "
                         f"max_iter={max_iter} rounds")
    return MISResult(be.indices(be.select("valueeq", T, statuses.IN)), rounds)  # l.37: select(T == IN)


def _fixed_rounds(be, A, T, levels, wl1, open_columns, statuses, ops, max_iter, masked):
    """Rounds with fixed statuses: worklist rounds, then frontier rounds once two rounds in
    a row decide under ``1 / _NARROW`` of the undecided rows (see :func:`_rounds`)."""
    k = len(levels) + 1
    undecided = ops.undecided
    remaining = previous = be.nvals(wl1)
    rounds, frontier = 0, None
    while remaining:  # l.9
        if rounds == max_iter:
            raise StallError(f"MIS-{k}: {remaining:,} of {be.nvals(T):,} vertices undecided after "
                             f"max_iter={max_iter} rounds")
        if frontier is None:
            y = _worklist_round(be, A, T, levels, wl1, open_columns, statuses, ops, rounds, rounds > 0 or masked)
            wl1 = be.select(undecided, y, True)  # l.33: wl1 = select(IN < y < OUT)
            decided, remaining = remaining - be.nvals(wl1), be.nvals(wl1)
            if (previous + decided) * _NARROW < remaining:
                frontier = be.select(undecided, y, False)  # frontier = select(y == IN or y == OUT)
            previous = decided
        else:
            frontier = _frontier_round(be, A, T, levels, frontier, ops)
            remaining -= be.nvals(frontier)
        rounds += 1
    return MISResult(be.indices(be.select("valueeq", T, statuses.IN)), rounds)  # l.37: select(T == IN)


def _worklist_round(be, A, T, levels, wl1, open_columns, statuses, ops, it, shrink):
    """l.11-31 over the worklists; returns the new statuses of wl1 (:func:`_decide`).

    Updates ``open_columns`` (the column worklists, one per level) in place. ``shrink`` is
    False in round 0 without candidates: every T is a priority, so no column can leave.
    """
    if statuses.refresh or it == 0:
        _refresh_rows(be, T, wl1, statuses, it)
    below = T
    for j, M in enumerate(levels):
        open_columns[j] = _refresh_columns(be, A, below, M, open_columns[j], ops, shrink)
        below = M
    return _decide(be, A, T, below, wl1, ops)


def _frontier_round(be, A, T, levels, decided, ops):
    """l.17-31 for what the rows ``decided`` last round reach; returns the rows decided now.

    With fixed statuses a row changes only when it is decided, and a level's minimum only
    when a value below it in its closed neighbourhood changes: so level j is recomputed at
    the columns next to a change of level j - 1, and only the undecided rows next to a
    change of the top level are decided again; every other value is still exact. Kokkos
    Kernels' ``D2_MIS_FixedPriority`` refreshes its columns this way (``colUpdateBitset``);
    gbgraph narrows the rows too. A round then costs the neighbourhoods of the last
    decisions instead of the worklists, which matters when the priorities form long chains
    (``MIS2_QUALITY`` on a grid: hundreds of rounds, each deciding a fraction of a percent
    of the vertices).
    """
    changed, below = decided, T
    for M in levels:
        changed = _update_level(be, A, below, M, changed)
        below = M
    return _decide_near(be, A, T, below, changed, ops)


def _refresh_rows(be, T, wl1, status, it):
    """l.11-15: ``T<wl1> = (h(it, i) << nv) | (i + 1)`` (fixed statuses ignore ``it``)."""
    P = be.apply_index(status, wl1, it)  # P(i) = status(i, it): an index-unary apply
    be.assign(T, P, mask=P)  # l.14: T<P> = P


def _refresh_columns(be, A, T, M, wl2, ops, shrink):
    """l.17-22 and l.34: ``M<wl2> = (A + I) ⊕min.second T``; returns the next wl2.

    ``T`` is the level below ``M`` (the row statuses for the first level). The next wl2
    keeps the columns with IN < M < OUT: no IN vertex within reach and not all of it OUT.
    ``shrink`` is False when no column can leave (round 0 without candidates): then it is
    all of Mw (a closed neighbourhood is never empty), a mask like the later ones.
    """
    least = "min_second" if _stores_diagonal(be) else ops.least_closed
    Mw = be.mxv(least, A, T, mask=wl2)  # l.18: M<wl2> = (A + I) ⊕min.second T
    be.assign(M, Mw, mask=wl2)  # M<wl2> = Mw
    if not shrink:
        return Mw
    return be.select(ops.undecided, Mw, True)  # l.34: select(IN < Mw < OUT)


def _decide(be, A, T, M, wl1, ops):
    """l.24-31: mark the rows of ``wl1`` IN or OUT; returns ``y``, their new statuses.

    ``M`` is the top level (T itself for distance 1). ``D = (A + I) ⊕min.second M`` over row v is
    the minimum of T over the ball of radius k: IN if an IN vertex lies within it (l.25-27),
    and T_v if v has the least status in it, since M_w <= T_v for every w in N[v]
    (l.28-30). ``_RoundOperators.decide`` computes D and the decision row by row, so ``y``
    is IN, OUT, or T_v where v stays undecided (``select(IN < y < OUT)`` is the next
    worklist): one pass where ``D``, ``D == T``, ``D == IN`` and ``min(D, T)`` took four.
    """
    y = be.mxv(ops.decide, A, (M, T), mask=wl1)  # l.25-30: y<wl1> = decide((A + I) ⊕min.second M, T)
    be.assign(T, y, mask=y)  # l.26, l.29: T<y> = y
    return y


def _reach(be, A, changed):
    """``changed ⊕any.first (A + I)``: the vertices whose closed neighbourhood holds an entry
    of ``changed`` (A is symmetric), by a push over the changed rows (its values are never
    read); ``changed`` itself added where A stores no diagonal."""
    reached = be.vxm("any_first", changed, A)  # reached = changed ⊕any.first A
    if _stores_diagonal(be):
        return reached
    return be.ewise_add("first", changed, reached)  # reached = changed ∪ reached


def _update_level(be, A, below, M, changed):
    """l.17-22 for the columns next to a change of the level below; returns where M moved."""
    touched = _reach(be, A, changed)
    # l.18: moved<touched> = (A + I) ⊕min.second below, kept where it is not M
    moved = be.mxv(MOVED_LEAST, A, (below, M), mask=touched)
    be.assign(M, moved, mask=moved)  # M<moved> = moved
    return moved


def _decide_near(be, A, T, M, changed, ops):
    """l.24-31 for the undecided rows next to a change of the top level; returns the rows decided."""
    rows = be.select(ops.undecided_at, _reach(be, A, changed), (T,))  # rows = select(IN < T(i) < OUT, reached)
    return be.select(ops.undecided, _decide(be, A, T, M, rows, ops), False)  # select(y == IN or y == OUT)


# ---- operators of the rounds (gbgraph.backends.operators): every backend compiles them ----

def _at(M, cols, p, last):
    """M at the column of position p, or of position ``last`` past it."""
    return M[np.uint64(cols[min(p, last)])]


def _least(i, start, stop, cols, M):
    """The least value of M over row i's closed neighbourhood: M(i) and its columns' (A
    may store the diagonal or not: the least is the same), read at unsigned positions and
    indices (numba tests a signed index for wraparound on every read).

    Where the operator's constant ``SHORT`` is 8 (:func:`_irregular` graphs), a row of one
    to eight columns reads eight, its last one again past its end (a minimum is the same
    over repeated values), as independent loads and a tree of minima with no branch: a
    loop's exit, at a count that changes from row to row, is mispredicted about once a row,
    which cost more than the reads (every row of coAuthorsDBLP, degrees 1-48: 3.9 -> 3.0 ms;
    delaunay_n17 1.27 -> 0.73 ms, one thread). Where rows keep their length (a mesh's), the
    loop's exit is predicted and its fewer reads cost less (Laplace3D 100³: 5.1 against
    5.2 ms, and ``mis2`` 6% more): ``SHORT`` is 0 there, and every row takes the loop."""
    d = M[i]
    first = np.uint64(start)
    end = np.uint64(stop)
    if first < end and end - first <= np.uint64(SHORT):  # noqa: F821
        last = end - np.uint64(1)
        low = min(min(_at(M, cols, first, last), _at(M, cols, first + np.uint64(1), last)),
                  min(_at(M, cols, first + np.uint64(2), last), _at(M, cols, first + np.uint64(3), last)))
        high = min(min(_at(M, cols, first + np.uint64(4), last), _at(M, cols, first + np.uint64(5), last)),
                   min(_at(M, cols, first + np.uint64(6), last), _at(M, cols, first + np.uint64(7), last)))
        return min(d, min(low, high))
    for p in range(first, end):
        d = min(d, M[np.uint64(cols[p])])
    return d


def _least_closed(i, start, stop, cols, vals, M):
    """:func:`_least` as a row operator: every row present."""
    return _least(i, start, stop, cols, M), True


def _decision(t, d, joined, left):
    """l.25-30 for a row of status t whose ball has the least status d: IN (``joined``)
    when that is t, else OUT (``left``) when it is IN, else t (undecided)."""
    if d == t:
        return joined
    if d == joined:
        return left
    return t


def _decide_int32(i, start, stop, cols, vals, M, T):
    """:func:`_decision` of row i, for statuses stored as int32 (32-bit packings)."""
    return _decision(T[i], _least(i, start, stop, cols, M), np.int32(IN), np.int32(OUT)), True  # noqa: F821


def _decide_uint64(i, start, stop, cols, vals, M, T):
    """:func:`_decision` of row i, for statuses stored as uint64 (64-bit packings)."""
    return _decision(T[i], _least(i, start, stop, cols, M), np.uint64(IN), np.uint64(OUT)), True  # noqa: F821


def _undecided_int32(x, i, j, wanted):
    """Whether IN < x < OUT is ``wanted``, for int32 statuses."""
    return (np.int32(IN) < x < np.int32(OUT)) == wanted  # noqa: F821


def _undecided_uint64(x, i, j, wanted):
    """Whether IN < x < OUT is ``wanted``, for uint64 statuses."""
    return (np.uint64(IN) < x < np.uint64(OUT)) == wanted  # noqa: F821


def _undecided_at_int32(x, i, j, T):
    """Whether IN < T(i) < OUT (row i undecided), for int32 statuses."""
    return np.int32(IN) < T[i] < np.int32(OUT)  # noqa: F821


def _undecided_at_uint64(x, i, j, T):
    """Whether IN < T(i) < OUT (row i undecided), for uint64 statuses."""
    return np.uint64(IN) < T[i] < np.uint64(OUT)  # noqa: F821


def _moved_least(i, start, stop, cols, vals, below, M):
    """The least value of ``below`` over row i's columns, present where it is not M(i)."""
    d = _least(i, start, stop, cols, below)
    return d, d != M[i]


class _RoundOperators(NamedTuple):
    """The operators of one kind of statuses (container dtype, IN, OUT as constants; each
    dtype casts them itself, since numba types a mixed int32/int64 or uint64/int64
    expression as int64 or float64) and of one kind of graph: ``short`` where rows of one to
    eight columns are read as eight (:func:`_least`, :func:`_irregular`). A tuple, so that
    the cupy backend's compiled rounds read the operators a round closes over item by item.

    Attributes
    ----------
    least_closed : RowOperator
        ``M<wl2> = (A + I) ⊕min.second T`` over a matrix that stores no diagonal, the column
        pass of the host backends (:func:`_stores_diagonal`): :data:`LEAST_CLOSED`, or its
        twin that reads short rows as eight columns.
    decide : RowOperator
        ``y<wl1> = decide(A; M, T)``: ``D = (A + I) ⊕min.second M`` and the decision of l.25-30
        in one pass, ``y = IN`` if ``D == T``, ``OUT`` if ``D == IN``, else ``T``; every
        row present, in T's dtype.
    undecided : IndexUnaryOp
        ``select(undecided, x, True)`` keeps IN < x < OUT, ``select(undecided, x, False)``
        the rest (x == IN or x == OUT for statuses).
    undecided_at : IndexUnaryOp
        ``select(undecided_at, x, (T,))`` keeps the entries i of x with IN < T(i) < OUT.
    """

    least_closed: RowOperator
    decide: RowOperator
    undecided: IndexUnaryOp
    undecided_at: IndexUnaryOp


@functools.cache
def _round_operators(dtype, IN, OUT, short):
    constants = {"IN": IN, "OUT": OUT}
    decide, undecided, undecided_at = {
        "int32": (_decide_int32, _undecided_int32, _undecided_at_int32),
        "uint64": (_decide_uint64, _undecided_uint64, _undecided_at_uint64)}[dtype]
    return _RoundOperators(
        LEAST_CLOSED_SHORT if short else LEAST_CLOSED,
        RowOperator(decide, fill=None, name=f"mis_decide_{dtype}{'_short' if short else ''}",
                    constants={**constants, "SHORT": 8 if short else 0}, helpers=(_at, _least, _decision)),
        IndexUnaryOp(undecided, name=f"mis_undecided_{dtype}", constants=constants),
        IndexUnaryOp(undecided_at, name=f"mis_undecided_at_{dtype}", constants=constants))


def _operators(status, short=False):
    """The :class:`_RoundOperators` of ``status``'s kind of statuses and ``short`` (see
    :func:`_irregular`), made once."""
    return _round_operators(status.dtype, int(status.IN), int(status.OUT), bool(short))


#: Pairs of consecutive rows :func:`_irregular` compares; smaller graphs take the loop.
_SAMPLE = 4096


def _irregular(be, graph):
    """Whether the rounds read rows of one to eight columns as eight (:func:`_least`): on the
    host, where over a quarter of :data:`_SAMPLE` pairs of consecutive rows spread over the
    graph differ in length. A mesh numbered along its grid changes length at 2-7% of its rows
    (Laplace3D, Elasticity3D, mdual), the irregular graphs of ../shared/data at 20-91%
    (delaunay_n17 80%, coAuthorsDBLP 75%, 4elt 28%, c-55 20%). The GPU keeps the loop (a
    thread a row), and so do graphs of fewer rows than the sample: their rounds take
    microseconds either way (the warm-up, gbgraph/_warmup.py, compiles the loop's operators on
    64 vertices and the twins on a larger irregular graph)."""
    if be.xp is not np or graph.n < _SAMPLE + 2:
        return False
    rows = np.linspace(0, graph.n - 3, _SAMPLE).astype(np.int64)
    indptr = graph.indptr
    return 4 * np.count_nonzero(indptr[rows + 1] - indptr[rows] != indptr[rows + 2] - indptr[rows + 1]) > rows.size


#: ``moved<touched> = (A + I) ⊕min.second below``, kept where it differs from M: a level's new
#: minima where they moved, in one pass (the frontier rounds' l.18); every row by the loop.
MOVED_LEAST = RowOperator(_moved_least, fill=None, name="mis_moved_least", constants={"SHORT": 0},
                          helpers=(_at, _least))

#: ``M<wl2> = (A + I) ⊕min.second T`` over a matrix that stores no diagonal: the column pass
#: of the host backends (:func:`_stores_diagonal`), every row by the loop.
LEAST_CLOSED = RowOperator(_least_closed, fill=None, name="mis_least_closed", constants={"SHORT": 0},
                           helpers=(_at, _least))

#: :data:`LEAST_CLOSED` with rows of one to eight columns read as eight (:func:`_irregular` graphs).
LEAST_CLOSED_SHORT = RowOperator(_least_closed, fill=None, name="mis_least_closed_short", constants={"SHORT": 8},
                                 helpers=(_at, _least))


def _max_iter(graph, max_iter):
    """``max_iter``, checked; None gives n + 1."""
    if max_iter is None:
        return graph.n + 1
    return check_integer("max_iter", max_iter, minimum=1)


def _check_choice(name, value, choices):
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")

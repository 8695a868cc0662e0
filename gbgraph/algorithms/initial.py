"""Initial bisection of the coarsest graph: greedy graph growing from several seeds.

Greedy graph growing (GGGP, Karypis and Kumar [1]_) grows side 0 from a start vertex, always
adding the frontier vertex whose move gains most (edge weight into side 0 minus edge weight
into side 1), until side 0 reaches its target weight. Each try starts from another vertex
(in the order of the project's hash with the seed), is repaired to balance and refined by
FM (:mod:`gbgraph.algorithms.refine_fm`); the best try is kept. As in Gilbert et al.'s
partitioner [2]_, this runs sequentially on the coarsest graph (about 50 vertices).

References
----------
.. [1] G. Karypis and V. Kumar, "A fast and high quality multilevel scheme for partitioning
   irregular graphs," SIAM J. Sci. Comput. 20(1), 1998, pp. 359-392.
   https://doi.org/10.1137/S1064827595287997
.. [2] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, section III-C. https://doi.org/10.1109/IPDPS49936.2021.00030
"""

import numba
import numpy as np

from .refine_fm import _integral, _overload, _push, _remove, _repair_and_refine, _side_weights, _update, pass_limit

__all__ = ["greedy_growing", "TRIES"]

#: Start vertices tried on the coarsest graph (16 until session 11: 8 gave the same
#: geometric-mean cuts on the 22 shared graphs, 0.901 and 0.983 of KaMinPar's at k = 2 and 8,
#: and took a fifth off ``partition(A, 8)``'s time on the skewed graphs; docs/partitioning_history.md).
TRIES = 8
#: FM passes at most per try (``refine_fm.fm_refine``'s default).
MAX_PASSES = 32


def greedy_growing(hg, bounds, targets, *, tries=None):
    """The best of ``tries`` grown, balanced and FM-refined bisections of a small graph.

    Parameters
    ----------
    hg : refine_fm.HostGraph
    bounds, targets : sequence of two floats
        Heaviest allowed and ideal weight of each side.
    tries : int, optional
        Start vertices (default :data:`TRIES`).

    Returns
    -------
    numpy.ndarray
        int8 side of each vertex: the try of least (overload, cut), the first on ties.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, gbgraph as gg
    >>> from gbgraph.algorithms.refine_fm import HostGraph
    >>> path = sp.diags([np.ones(5), np.ones(5)], [-1, 1])      # 0 - 1 - 2 - 3 - 4 - 5
    >>> hg = HostGraph(gg.as_graph(path), np.ones(6), np.arange(6, dtype=np.uint64) + 1)
    >>> greedy_growing(hg, (3, 3), (3, 3)).tolist()
    [1, 1, 1, 0, 0, 0]
    """
    order = np.argsort(~hg.keys, kind="stable")  # larger keys first
    bounds, targets = np.asarray(bounds, np.float64), np.asarray(targets, np.float64)
    vw = hg.vertex_weights
    integral = _integral(vw)  # as fm_refine decides
    limit = pass_limit(hg.n)  # fm_refine's default
    tries = TRIES if tries is None else tries
    return _best_grown(*hg.arrays(), order, min(tries, max(hg.n, 1)), bounds, targets, limit, integral, hg.whole)


@numba.njit(cache=True)
def _best_grown(indptr, indices, w, vw, key, order, tries, bounds, targets, limit, integral, exact):
    """The tries of :func:`greedy_growing` in one compiled loop (a coarsest graph has about
    50 vertices, where a call from Python per step cost more than the steps): each try is
    grown, then repaired and refined by ``refine_fm.refine_level``'s compiled steps, on one
    workspace. A try grown into the sides of an earlier one is not refined again: the
    refinement depends on the sides alone, so it would end where the earlier one did, and
    ties keep the first (on the 22 shared graphs' coarsest graphs at k = 8, 8 starts grow
    2 to 4 distinct bisections on average)."""
    n = indptr.size - 1
    gain, ext = np.empty(n), np.empty(n)
    heap, hg, hk = np.empty((2, n), np.int64), np.empty((2, n)), np.empty((2, n), np.uint64)
    pos, locked, moves = np.empty(n, np.int64), np.empty(n, np.bool_), np.empty(n, np.int64)
    boundary, count = np.empty(n, np.int64), np.zeros(1, np.int64)
    labels, hint = np.empty(0, np.int64), np.empty(0)  # no coarse boundary: every row summed
    best = np.ones(n, np.int8)
    b_over, b_cut = np.inf, np.inf
    grown = np.empty((tries, n), np.int8)
    for t in range(tries):
        parts = _grow(indptr, indices, w, vw, key, order, t, bounds[0], targets[0])
        grown[t] = parts
        if _grown_before(grown, t):
            continue
        cut = _repair_and_refine(indptr, indices, w, vw, key, parts, bounds, targets, limit, integral, exact,
                                 MAX_PASSES, True, gain, ext, heap, hg, hk, pos, locked, moves, boundary, count, labels,
                                 hint)
        over = _overload(_side_weights(parts, vw), bounds)
        if t == 0 or over < b_over or (over == b_over and cut < b_cut):
            best, b_over, b_cut = parts, over, cut
    return best


@numba.njit(cache=True)
def _grown_before(grown, t):
    """Whether try ``t`` grew the same sides as an earlier try."""
    for s in range(t):
        same = True
        for v in range(grown.shape[1]):
            if grown[s, v] != grown[t, v]:
                same = False
                break
        if same:
            return True
    return False


@numba.njit(cache=True)
def _grow(indptr, indices, w, vw, key, order, start, bound0, target0):
    """Side 0 grown from ``order[start]`` by largest gain until it weighs ``target0``; a
    vertex that would take it past ``bound0`` stays on side 1. When the frontier empties
    (a disconnected graph), growth resumes at the next vertex of ``order``."""
    n = indptr.size - 1
    parts = np.ones(n, np.int8)
    gain = np.empty(n)
    for v in range(n):
        d = 0.0
        for t in range(indptr[v], indptr[v + 1]):
            d += w[t]
        gain[v] = -d  # everything around v is on side 1
    # side 0's heap alone, as whole arrays: a row view per heap call cost more than the growth
    heap, hg, hk = np.empty(n, np.int64), np.empty(n), np.empty(n, np.uint64)
    pos = np.full(n, -1, np.int64)
    done = np.zeros(n, np.bool_)
    sizes = np.zeros(1, np.int64)
    pw0 = 0.0
    nxt = 0
    first = order[start % n]
    _push(heap, hg, hk, sizes, 0, pos, first, gain[first], key[first])
    while pw0 < target0:
        if sizes[0] == 0:
            while nxt < n and done[order[nxt]]:
                nxt += 1
            if nxt == n:
                break
            _push(heap, hg, hk, sizes, 0, pos, order[nxt], gain[order[nxt]], key[order[nxt]])
        v = heap[0]
        _remove(heap, hg, hk, sizes, 0, pos, v)
        done[v] = True
        if pw0 + vw[v] > bound0:
            continue
        parts[v] = 0
        pw0 += vw[v]
        for t in range(indptr[v], indptr[v + 1]):
            u = indices[t]
            if done[u]:
                continue
            gain[u] += 2.0 * w[t]
            if pos[u] >= 0:
                _update(heap, hg, hk, sizes, 0, pos, u, gain[u])
            else:
                _push(heap, hg, hk, sizes, 0, pos, u, gain[u], key[u])
    return parts

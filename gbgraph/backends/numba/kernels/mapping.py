"""The fused verbs of the coarse mappings (their GraphBLAS forms are in backends/forms.py):

* ``heavy_rows``: the heaviest neighbour of each row in one pass over the row (the form takes
  a product, a row extraction, a selection and two row reductions);
* ``reduce_to``: the reduction onto targets, a push through a function, in one pass over the
  entries in their order;
* ``unclaimed``: Algorithm 3's visit in key order, by the form's rounds with flags for the
  pushes' maxima, each round three parallel passes over the undecided vertices;
* ``roots``: pointer jumping, each vertex following its pointers to the root.

Parallel loops write only their own slots, or store equal flags; pushes of values, where
targets collide, run in sequence.
"""

import numba
import numpy as np

from .threads import parallel_above, row_work

__all__ = ["heavy_rows", "reduce_to", "unclaimed", "roots", "MONOIDS"]

#: Monoid codes of :func:`reduce_to`.
MONOIDS = {"max": 0, "min": 1, "plus": 2, "any": 3}


@parallel_above(row_work, "indptr", "rows", "all_rows")
@numba.njit(cache=True, parallel=True)
def heavy_rows(indptr, indices, weights, weighted, keys, present, has_present, rows, all_rows):
    """(column, found) per row of ``rows`` (every row when ``all_rows``): the column j that
    maximises (weight, ``keys[j]``) over the j where ``present`` holds (every j unless
    ``has_present``); a pattern (``weighted`` False) compares keys only."""
    count = indptr.size - 1 if all_rows else rows.size
    out = np.zeros(count, np.int64)
    found = np.zeros(count, np.bool_)
    for k in numba.prange(count):
        r = np.int64(k) if all_rows else np.int64(rows[k])
        hit = False
        best = np.uint64(0)
        column = np.int64(-1)
        heaviest = weights.dtype.type(0)
        for p in range(indptr[r], indptr[r + 1]):
            j = indices[p]
            if has_present and not present[j]:
                continue
            key = keys[j]
            if weighted:
                w = weights[p]
                if not hit or w > heaviest or (w == heaviest and key > best):
                    heaviest = w
                    best = key
                    column = j
            elif not hit or key > best:
                best = key
                column = j
            hit = True
        out[k] = column
        found[k] = hit
    return out, found


@numba.njit(cache=True)
def reduce_to(targets, values, size, monoid):
    """(out, found): ``out[t]`` = the values of the k with ``targets[k] = t`` reduced with the
    monoid of code ``monoid`` in the order of k (``any`` keeps the first); one sequential
    pass, since targets collide."""
    out = np.zeros(size, values.dtype)
    found = np.zeros(size, np.bool_)
    for k in range(targets.size):
        t = targets[k]
        v = values[k]
        if not found[t]:
            out[t] = v
            found[t] = True
        elif monoid == 0:
            out[t] = max(out[t], v)
        elif monoid == 1:
            out[t] = min(out[t], v)
        elif monoid == 2:
            out[t] += v
    return out, found


@parallel_above(np.size, "pending")
@numba.njit(cache=True, parallel=True)
def unclaimed(H, key, pending):
    """(unclaimed flags, rounds) of :meth:`gbgraph.backends.base.Backend.unclaimed`, in the
    rounds of its GraphBLAS form with the pushes' maxima replaced by flags: a pending w
    *waits on* H(w) when H(w) is pending and ``key[w] > key[H(w)]``; each round the
    undecided w that are waited on are ``blocked``, the others are decided (unclaimed unless
    ``claimed``), and the decided unclaimed ones claim the vertex they wait on. Every write
    of a round's parallel loop stores the same flag, so threads may collide harmlessly."""
    n = H.size
    visited = np.zeros(n, np.bool_)
    for k in numba.prange(pending.size):
        visited[pending[k]] = True
    waits = np.zeros(n, np.bool_)
    lone = np.zeros(pending.size, np.bool_)
    for k in numba.prange(pending.size):
        w = pending[k]
        u = H[w]
        lone[k] = u == w
        waits[w] = (u != w) & visited[u] & (key[w] > key[u])
    free = np.zeros(n, np.bool_)
    free[pending[lone]] = True  # no neighbour: unclaimed at once, in no round
    claimed = np.zeros(n, np.bool_)
    blocked = np.zeros(n, np.bool_)
    undecided = pending[~lone]
    rounds = 0
    while undecided.size:
        for k in numba.prange(undecided.size):  # blocked = Hᵀ ⊕lor.second waits(U)
            w = undecided[k]
            if waits[w]:
                blocked[H[w]] = True
        decided = np.zeros(undecided.size, np.bool_)
        for k in numba.prange(undecided.size):
            u = undecided[k]
            if not blocked[u]:
                decided[k] = True
                free[u] = not claimed[u]
        for k in numba.prange(undecided.size):  # claimed |= Hᵀ ⊕lor.second (waits ∧ free)(decided)
            w = undecided[k]
            blocked[H[w]] = False
            if decided[k] and free[w] and waits[w]:
                claimed[H[w]] = True
        undecided = undecided[~decided]
        rounds += 1
    return free, rounds


@parallel_above(np.size, "parent")
@numba.njit(cache=True, parallel=True)
def roots(parent):
    """The root of each vertex: its pointers followed until one points at itself."""
    out = np.empty(parent.size, np.int64)
    for u in numba.prange(parent.size):
        r = parent[u]
        while parent[r] != r:
            r = parent[r]
        out[u] = r
    return out

"""The fused verbs of the coarse mappings (their GraphBLAS forms are in backends/forms.py):

* ``heavy_rows``: the heaviest neighbour of each row in one pass over the row (the form takes
  a product, a row extraction, a selection and two row reductions);
* ``reduce_to``: the reduction onto targets, a push through a function, in one pass over the
  entries in their order;
* ``unclaimed``: Algorithm 3's visit in key order, by the form's rounds, each round two
  pushes and a decision per undecided vertex;
* ``roots``: pointer jumping, each vertex following its pointers to the root.

Parallel loops write only their own slots; pushes, where targets collide, run in sequence.
"""

import numba
import numpy as np

__all__ = ["heavy_rows", "reduce_to", "unclaimed", "roots", "MONOIDS"]

#: Monoid codes of :func:`reduce_to`.
MONOIDS = {"max": 0, "min": 1, "plus": 2, "any": 3}


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


@numba.njit(cache=True, parallel=True)
def unclaimed(H, key, pending):
    """(unclaimed flags, rounds) of :meth:`gbgraph.backends.base.Backend.unclaimed`, in the
    rounds of its GraphBLAS form: ``pend`` and ``taken`` are pushes through H (in sequence),
    the decisions a parallel loop over the undecided vertices."""
    n = H.size
    free = np.zeros(n, np.bool_)
    pend = np.zeros(n, np.uint64)
    taken = np.zeros(n, np.uint64)
    lone = np.zeros(pending.size, np.bool_)
    for k in numba.prange(pending.size):
        lone[k] = H[pending[k]] == pending[k]
    undecided = pending[~lone]
    free[pending[lone]] = True
    rounds = 0
    while undecided.size:
        for w in undecided:  # pend = Hᵀ ⊕max.second key(U)
            pend[H[w]] = max(pend[H[w]], key[w])
        status = np.zeros(undecided.size, np.int8)  # 0: undecided, 1: unclaimed, 2: claimed
        for k in numba.prange(undecided.size):
            u = undecided[k]
            if pend[u] < key[u]:
                status[k] = 1 if taken[u] <= key[u] else 2
        for w in undecided:
            pend[H[w]] = 0
        for k in range(undecided.size):  # taken = Hᵀ ⊕max.second key(unclaimed)
            if status[k] == 1:
                w = undecided[k]
                free[w] = True
                taken[H[w]] = max(taken[H[w]], key[w])
        undecided = undecided[status == 0]
        rounds += 1
    return free, rounds


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

"""The fused verbs of the coarse mappings (their GraphBLAS forms are in backends/forms.py):

* ``unclaimed``: Algorithm 3's visit in key order, by the form's rounds with flags for the
  pushes' maxima, each round three parallel passes over the undecided vertices;
* ``roots``: pointer jumping, each vertex following its pointers to the root.

Parallel loops write only their own slots, or store equal flags.
"""

import numba
import numpy as np

from .threads import parallel_above

__all__ = ["unclaimed", "roots"]


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

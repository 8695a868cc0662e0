"""The GraphBLAS forms of the protocol's fused verbs (:mod:`gbgraph.backends.base`).

Each function computes a fused verb with the backend's own GraphBLAS verbs, and array code
of its ``xp`` where the GraphBLAS API has no operation (bit shifts, a sort). Every backend
inherits them; the numba and cupy backends run the common cases as kernels of their own,
and the tests check that both agree.
"""

__all__ = ["unclaimed", "roots"]


# ---- the fused verbs of the coarse mappings ----------------------------------------------

def unclaimed(be, H, keys, pending):
    """:meth:`~gbgraph.backends.base.Backend.unclaimed` by its rounds: ``pend = Hᵀ
    ⊕max.second keys(U)`` and ``taken = Hᵀ ⊕max.second keys(unclaimed)``, both pushes
    through H, ``build`` with ``dup="max"``."""
    xp = be.xp
    n = H.size
    target, key = be.values(H), be.values(keys)
    visited = be.indices(pending)
    taken = xp.zeros(n, xp.uint64)  # the largest key of an unclaimed in-neighbour, 0 for none
    free = xp.zeros(n, bool)
    free[visited[target[visited] == visited]] = True  # no neighbour: unclaimed at once
    undecided = visited[target[visited] != visited]
    rounds = 0
    while undecided.size:
        pend = be.build(target[undecided], key[undecided], n, dup="max")  # pend = Hᵀ ⊕max.second keys(U)
        blocked = xp.zeros(n, bool)
        at = be.indices(pend)
        blocked[at] = be.values(pend) > key[at]  # an undecided in-neighbour comes first
        ready = undecided[~blocked[undecided]]
        won = ready[taken[ready] <= key[ready]]  # no unclaimed in-neighbour came first
        free[won] = True
        claims = be.build(target[won], key[won], n, dup="max")  # taken = Hᵀ ⊕max.second keys(unclaimed)
        at = be.indices(claims)
        taken[at] = xp.maximum(taken[at], be.values(claims))
        undecided = undecided[blocked[undecided]]
        rounds += 1
    ids = xp.flatnonzero(free)
    return be.vector(ids, True, n), rounds


def roots(be, parent):
    """:meth:`~gbgraph.backends.base.Backend.roots`: ``p = p(p)`` until nothing changes."""
    p = parent
    while True:
        q = be.extract(p, be.values(p))  # q = p(p)
        if not bool((be.values(q) != be.values(p)).any()):
            return q
        p = q

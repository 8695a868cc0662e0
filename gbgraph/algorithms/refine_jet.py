"""Jet-style parallel refinement of a bisection, as semiring algebra on the backend.

Each round of Jet [1]_ (Gilbert, Madduri, Boman and Rajamanickam's GPU partitioner) reads
the connections of every vertex to both sides from one product, ``C = A ⊕plus.times
onehot(parts)``; for two sides its second column is ``s = A ⊕plus.times x`` (x = 1 on side
1) and the first is ``d - s`` with d the weighted degrees. Then, on a balanced bisection:

1. *Candidates*: boundary vertices whose gain ``g = ext - int`` is at least ``-c · int``
   (Jet's filter: moves that lose a little are allowed, c = 0.75 on coarse levels and 0.25
   on the finest).
2. *Afterburner*: each candidate is re-scored as if every candidate ranked above it by
   (gain, hash key) had moved, ``g' = g + 2 σ (A ⊕plus.times σ[cand])`` over the
   higher-ranked neighbours (σ = +1 on side 0, -1 on side 1); candidates with ``g' >= 0``
   move, all at once. Of two neighbours that would swap sides, the lower-ranked one sees
   the other's move and pays for their edge twice, so a move that the higher-ranked one
   undoes does not happen for nothing.

An unbalanced bisection takes a rebalancing round instead: vertices of the overweight side
leave it in order of least loss per weight until it is back between its target and its
bound (:func:`~gbgraph.backends.partition_forms.lightest_prefix`). The best bisection seen
(least overload, then least cut) is kept; a level stops after :data:`PATIENCE` rounds
without a new best that improves the cut by more than :data:`TOLERANCE` (Jet's rule:
12 rounds, 0.1%).

How it compares with FM (``docs/partitioning.md``): FM moves one vertex at a time and can
climb out of local minima within a pass; Jet moves many at once from a snapshot, so each
round costs a few sparse products on any device.

References
----------
.. [1] M. S. Gilbert, K. Madduri, E. G. Boman and S. Rajamanickam, "Jet: multilevel graph
   partitioning on graphics processing units," SIAM J. Sci. Comput. 46(5), 2024.
   https://doi.org/10.1137/23M1559129
"""

import time

from ..backends.partition_forms import lightest_prefix, mxv_ranked
from .hashing import Packing
from .partition import initial_bisection, project

__all__ = ["jet_levels", "PATIENCE", "TOLERANCE", "MAX_ROUNDS"]

#: Rounds without a real improvement before a level stops (Jet's default).
PATIENCE = 12
#: Relative cut improvement that counts as real.
TOLERANCE = 0.001
#: Rounds per level at most.
MAX_ROUNDS = 200
#: Jet's candidate filter: coarse levels, finest level.
FILTER = (0.75, 0.25)


def jet_levels(be, h, weights, bounds, targets, seed, seconds):
    """Greedy graph growing on the coarsest level, then Jet rounds at every finer level."""
    sides = initial_bisection(h, weights, bounds, targets, seed, seconds)
    start = time.perf_counter()
    sides = be.xp.asarray(sides)
    for i in range(len(h) - 2, -1, -1):
        sides = project(be, sides, h[i].labels)
        sides = _refine_level(be, h[i], weights[i], sides, bounds, targets, seed, FILTER[i == 0])
    seconds["refine"] += time.perf_counter() - start
    return sides


class _Level:
    """A level's matrix and the full vectors the rounds read: weighted degrees d, vertex
    weights and hash keys."""

    def __init__(self, be, level, vertex_weights, seed):
        xp, n = be.xp, level.n
        self.be, self.n = be, n
        self.A = be.adjacency(level.graph, weighted=True)
        zero = be.full(n, 0.0, "float64")
        self.d = be.ewise_add("plus", zero, be.reduce_rows(self.A, "plus"))  # d = A ⊕plus 1 (rows)
        ids = xp.arange(n, dtype=xp.int64)
        self.w = be.vector(ids, vertex_weights.astype(xp.float64), n)
        positive = be.select("valuegt", self.w, 0.0)  # w<w > 0>
        self.w_inv = be.vector(be.indices(positive), 1.0 / be.values(positive), n)  # 1 / w where w > 0
        self.keys = be.vector(ids, Packing(n, 64, xp)(ids, seed), n)
        self.total = float(be.reduce(self.w, "plus") or 0.0)  # W = Σ w


def _refine_level(be, level, vertex_weights, sides, bounds, targets, seed, c):
    xp, n = be.xp, level.n
    lv = _Level(be, level, vertex_weights, seed)
    x = be.vector(xp.arange(n, dtype=xp.int64), sides.astype(xp.float64), n)
    best, best_key, since = x, None, 0
    for _ in range(MAX_ROUNDS):
        ext = _external(be, lv, x)
        cut = float(be.reduce(ext, "plus") or 0.0) / 2  # each cut edge seen from both ends
        heavy = float(be.reduce(be.ewise_mult("times", lv.w, x), "plus") or 0.0)  # Σ w x: side 1
        pw = (lv.total - heavy, heavy)
        over = sum(max(pw[s] - bounds[s], 0.0) for s in range(2))
        if best_key is None or (over, cut) < best_key:
            real = best_key is None or over < best_key[0] or cut < (1 - TOLERANCE) * best_key[1]
            best, best_key, since = x, (over, cut), 0 if real else since + 1
        else:
            since += 1
        if since >= PATIENCE:
            break
        moves = _rebalance_moves(be, lv, x, ext, pw, bounds, targets) if over > 0 else _jet_moves(be, lv, x, ext, c)
        if be.nvals(moves) == 0:
            break
        x = be.ewise_add("second", x, be.apply("minus", x, left=1.0, mask=moves))  # x<moves> = 1 - x
    return be.values(best).astype(xp.int8)


def _external(be, lv, x):
    """ext(i): weight from i to the other side. s = A ⊕plus.times x; ext = s + x (d - 2s)."""
    s = be.ewise_add("plus", be.full(lv.n, 0.0, "float64"), be.mxv("plus_times", lv.A, x))  # s = C(:, 1)
    d_2s = be.ewise_add("minus", lv.d, be.apply("times", s, right=2.0))  # d - 2s
    return be.ewise_add("plus", s, be.ewise_mult("times", x, d_2s))  # ext = s + x (d - 2s)


def _jet_moves(be, lv, x, ext, c):
    """Candidates by Jet's filter, kept where the afterburner's score stays positive."""
    internal = be.ewise_add("minus", lv.d, ext)  # int = d - ext
    gain = be.ewise_add("minus", ext, internal)  # g = ext - int
    boundary = be.select("valuegt", ext, 0.0)  # ext<ext > 0>
    slack = be.ewise_add("plus", gain, be.apply("times", internal, right=c), mask=boundary)  # g + c·int
    cand = be.select("valuege", slack, 0.0)  # [1] filter: g >= -c·int, on the boundary
    sigma = be.apply("minus", be.apply("times", x, right=2.0, mask=cand), left=1.0)  # σ<cand> = 1 - 2x
    above = mxv_ranked(be, lv.A, sigma, gain, lv.keys, mask=cand)  # Σ_j A(i,j) σ(j) over higher-ranked j
    shift = be.ewise_mult("times", sigma, be.apply("times", above, right=2.0))  # 2 σ(i) Σ ...
    score = be.ewise_add("plus", be.apply("identity", gain, mask=cand), shift)  # g' = g + 2σ (...)
    return be.select("valuege", score, 0.0)  # the moves: g' >= 0


def _rebalance_moves(be, lv, x, ext, pw, bounds, targets):
    """Vertices off the overweight side, least loss per weight first, enough to bring it
    halfway between its target and its bound without overloading the other side."""
    s = 0 if pw[0] - bounds[0] >= pw[1] - bounds[1] else 1
    want = pw[s] - (targets[s] + bounds[s]) / 2
    room = bounds[1 - s] - pw[1 - s]
    amount = min(max(want, pw[s] - bounds[s]), max(room, pw[s] - bounds[s]))
    internal = be.ewise_add("minus", lv.d, ext)  # int = d - ext
    loss = be.ewise_add("minus", internal, ext)  # -gain
    on_side = be.select("valueeq", x, float(s))  # x<x = s>
    movable = be.select("valuegt", lv.w, 0.0, mask=on_side)  # w<side s, w > 0>
    per_weight = be.ewise_add("plus", be.full(lv.n, 0.0, "float64"),
                              be.ewise_mult("times", loss, lv.w_inv, mask=movable))  # loss / w
    return lightest_prefix(be, per_weight, lv.w, lv.keys, mask=movable, amount=amount)

"""Jet-style parallel refinement of a bisection, as semiring algebra on the backend.

Each round of Jet [1]_ (Gilbert, Madduri, Boman and Rajamanickam's GPU partitioner) reads
the connections of every vertex to both sides from one product, ``C = A ⊕plus.times
onehot(parts)``. For two sides one column is enough: with σ = +1 on side 0 and -1 on side
1, ``t = A ⊕plus.times σ`` gives each vertex's loss ``ℓ = σ t = int - ext`` (the weight to
its own side minus the weight to the other; the gain of a move is ``-ℓ``), and with the
weighted degrees d, ``ext = (d - ℓ) / 2``. Then, on a balanced bisection:

1. *Candidates*: vertices whose gain is at least ``-c · int`` (Jet's filter: moves that
   lose a little are allowed, c = 0.75 on coarse levels and 0.25 on the finest), that is
   ``ℓ <= θ = c d / (2 - c)``, which also keeps them on the boundary; a vertex that moved
   in the previous such round sits this one out (Jet's lock bit), so that no vertex
   oscillates.
2. *Afterburner*: each candidate is re-scored as if every candidate ranked above it by
   (gain, hash key) had moved, ``g' = -ℓ + 2 σ (A ⊕plus.times σ[cand])`` over the
   higher-ranked neighbours (the row operator :data:`RANKED_ABOVE`);
   candidates with ``g' >= 0`` move, all at once. Of two neighbours that would swap sides,
   the lower-ranked one sees the other's move and pays for their edge twice, so a move
   that the higher-ranked one undoes does not happen for nothing.

An unbalanced bisection takes a rebalancing round instead: vertices of the overweight side
leave it in order of least loss per weight until it is back between its target and its
bound (:func:`~gbgraph.backends.partition_forms.lightest_prefix`). The best bisection seen
(least overload, then least cut) is kept; a run of rounds stops after :data:`PATIENCE`
rounds without a new best that improves the cut by more than :data:`TOLERANCE` (Jet's rule:
12 rounds, 0.1%). A coarse level takes two runs, c = 0.75 then 0.25 from the best bisection
of the first, with :data:`LATER_PATIENCE` (:data:`SCHEDULE`, the ends of Jet's descending
schedule of filters); the finest level one, at 0.25.

A level's Jet rounds run through :meth:`~gbgraph.backends.base.Backend.iterate`: the
vectors a round reads and writes are full and written in place, its moves are the worklist,
and iterate's check between rounds (:class:`_Rounds`) reads the cut and the side weights,
keeps the best bisection and runs the rebalancing rounds. On the cupy backend that test is
device work (``fused("jet_judge")``), and a level's rounds, the judge before each, Jet's and
the rebalancing ones, run in one cooperative kernel launch (``fused("jet_rounds")``) with no
host read; the projection onto a level and σ are one kernel (``fused("jet_sigma")``) and its
set-up another (``fused("jet_level")``). The same passes one kernel each (``"jet_moves"``,
``"jet_update"``, ``"jet_rebalance"``), recorded once as a CUDA graph that the host resumes
after each rebalancing round (``"resumed_rounds"``), give the same sides. Every level of a
GPU hierarchy is refined on the device, its coarsest ones too (numba's rounds on host copies
of them were dearer once the device's round cost 0.1 ms: ``docs/partitioning_history.md``,
session 13); every backend gives the same sides.

How it compares with FM (``docs/partitioning.md``): FM moves one vertex at a time and can
climb out of local minima within a pass; Jet moves many at once from a snapshot, so each
round costs a few sparse products on any device.

References
----------
.. [1] M. S. Gilbert, K. Madduri, E. G. Boman and S. Rajamanickam, "Jet: multilevel graph
   partitioning on graphics processing units," SIAM J. Sci. Comput. 46(5), 2024.
   https://doi.org/10.1137/23M1559129
"""

import functools
import time

import numpy as np

from ..backends.operators import RowOperator
from ..backends.partition_forms import lightest_prefix
from ..hashing import Packing
from .partition import initial_bisection, project

__all__ = ["jet_levels", "PATIENCE", "TOLERANCE", "MAX_ROUNDS", "SCHEDULE", "LATER_PATIENCE"]

#: Rounds without a real improvement before a run of rounds stops (Jet's default).
PATIENCE = 12
#: Relative cut improvement that counts as real.
TOLERANCE = 0.001
#: Rounds per level at most.
MAX_ROUNDS = 200
#: Jet's candidate filter: coarse levels, finest level.
FILTER = (0.75, 0.25)
#: The filters of a level's runs of rounds, each run from the best bisection of the one
#: before: coarse levels, finest level. A coarse level's second run, at the finest level's c,
#: cuts Jet's descending schedule of filters (its "ultra" setting: 0.85, 0.80, ..., 0.05, 12
#: rounds each) to the paper's two values. On road networks, whose cuts are a few dozen
#: edges, the negative-gain moves that c = 0.75 lets through on the coarse levels wander
#: around the best bisection without finding a better one (usroads: 60 against hec+fm's 53,
#: one try); the run at 0.25 descends from it (54). Over the 22 shared graphs it also cut
#: 1.5% (k = 2) and 0.9% (k = 8) less in geometric mean (benchmarks/results/session-14/cut41).
SCHEDULE = ((FILTER[0], FILTER[1]), (FILTER[1],))
#: :data:`PATIENCE` of a level's later runs: a run at 0.25 from a best bisection seldom finds
#: a better one after 6 rounds without; with 12 the second runs added 30% to the 22 shared
#: graphs' Jet rounds instead of 20% (k = 2), for cuts 0.1-0.4% smaller in geometric mean.
LATER_PATIENCE = 6


def _ranked_above(i, start, stop, cols, vals, u, rank, keys):
    """``Σ_j A(i, j) u(j)`` over the j ranked above i, ``(rank(j), keys(j)) > (rank(i),
    keys(i))``, summed in column order from 0.0 (so every backend rounds alike)."""
    acc = 0.0
    for p in range(start, stop):
        j = cols[p]
        if rank[j] > rank[i] or rank[j] == rank[i] and keys[j] > keys[i]:
            acc += np.float64(vals[p]) * u[j]
    return acc, True


#: The afterburner's product as a row operator (:func:`_ranked_above`): ``mxv(RANKED_ABOVE,
#: A, (u, rank, keys), mask=rows)``; u's absent entries count as 0, rank and keys are full.
RANKED_ABOVE = RowOperator(_ranked_above, fill=(0.0, None, None), name="ranked_above")


def jet_levels(be, h, weights, bounds, targets, seed, seconds):
    """Greedy graph growing on the coarsest level, then Jet rounds at every finer level on
    ``be`` (the sides reach the device at the first level, through
    :func:`~gbgraph.algorithms.partition.project`)."""
    sides = initial_bisection(h, weights, bounds, targets, seed, seconds)
    start = time.perf_counter()
    for i in range(len(h) - 2, -1, -1):
        sides = _refine_level(be, h[i], weights[i], sides, bounds, targets, seed, SCHEDULE[i == 0])
    sides = be.xp.asarray(sides).astype(np.int8)
    seconds["refine"] += time.perf_counter() - start
    return sides


class _Level:
    """A level's matrix and the full vectors the rounds read: vertex weights w and 1 / w,
    hash keys, zeros, the filter's threshold θ = c d / (2 - c) (-1 for an
    isolated vertex, which never moves), and the totals of d and w."""

    def __init__(self, be, level, vertex_weights, seed, c):
        xp, n = be.xp, level.n
        self._be, self.n = be, n
        self.A = be.adjacency(level.graph, weighted=True)
        self.w = be.full(n, vertex_weights.astype(xp.float64), "float64")
        fused = be.fused("jet_level")  # the same θ and totals in one kernel, the totals on the device (cupy)
        found = None if fused is None else fused(self.A, self.w, c)
        if found is None:
            d = be.ewise_add("plus", self.zero, be.reduce_rows(self.A, "plus"))  # d = A ⊕plus 1 (rows)
            connected = be.select("valuegt", d, 0.0)  # d<d > 0>
            theta = be.apply("times", connected, right=c / (2.0 - c))  # c d / (2 - c)
            found = (be.ewise_add("second", be.full(n, -1.0, "float64"), theta),
                     float(be.reduce(d, "plus") or 0.0),  # Σ d: twice the edge weight
                     float(be.reduce(self.w, "plus") or 0.0))  # W = Σ w
        self.theta, self.degrees, self.total = found
        ids = xp.arange(n, dtype=xp.int64)
        self.keys = be.full(n, Packing(n, 64, xp)(ids, seed), "uint64")

    @functools.cached_property
    def zero(self):
        """The zero vector, for the verbs."""
        return self._be.full(self.n, 0.0, "float64")

    @functools.cached_property
    def w_inv(self):
        """1 / w where w > 0, for the verbs' rebalancing rounds (:func:`_rebalance_moves`)."""
        be = self._be
        positive = be.select("valuegt", self.w, 0.0)  # w<w > 0>
        return be.vector(be.indices(positive), 1.0 / be.values(positive), self.w.size)  # 1 / w where w > 0


class _Rounds:
    """A level's rounds: σ, ℓ = σ (A σ), w σ and the locks (-inf at the vertices the last
    Jet round moved, else 0), full vectors written in place, and the host's part of the
    rounds.

    :meth:`check` is ``iterate``'s test before each Jet round: it reads the cut and the side
    weights (two reductions), keeps the best bisection seen and the patience count, and
    runs the rebalancing rounds that come before the next Jet round (a sort, on the host's
    count), so that one recording of :meth:`step` serves a whole level. A backend that
    answers ``fused("jet_judge")`` and ``fused("resumed_rounds")`` (cupy) makes the same
    test on the device at the end of each round instead, and the host wakes only for the
    rebalancing rounds and the end (:meth:`resume`): the same rounds, the same values.
    ``patience``: rounds without a real improvement before the run stops (None:
    :data:`PATIENCE`)."""

    def __init__(self, be, lv, sigma, bounds, targets, patience=None):
        n = lv.n
        self.be, self.lv, self.bounds, self.targets, self.sigma = be, lv, bounds, targets, sigma
        self.patience = PATIENCE if patience is None else patience
        self.loss, self.wsigma, self.locks = (be.full(n, 0.0, "float64") for _ in range(3))
        self.best, self.key, self.since, self._rounds, self.stopped = None, None, 0, 0, False
        self._update()
        judge, self.resumed, self.rebalanced = (be.fused(name) for name in ("jet_judge", "resumed_rounds",
                                                                           "jet_rebalance"))
        self.judge = self.launch = None
        if None not in (judge, self.resumed, self.rebalanced):  # the test on the device (:meth:`resume`)
            self.judge = judge(self.loss, self.wsigma, self.sigma, lv.degrees, lv.total, bounds, 1 - TOLERANCE,
                               self.patience, MAX_ROUNDS)
            self.best = self.judge.best
            fused = be.fused("jet_rounds")  # the level's rounds in one launch (cupy)
            self.launch = None if fused is None else fused(lv.A, lv.theta, self.locks, lv.keys, lv.w, self.judge,
                                                           targets)

    @property
    def rounds(self):
        """The rounds judged so far: the host's count, or the device judge's (a read)."""
        return self._rounds if self.judge is None else self.judge.read()[1]

    def run(self):
        """The level's rounds: through ``iterate`` with :meth:`check`, or, where the backend
        judges on the device, in one launch (``fused("jet_rounds")``) or recorded with the
        judge inside (``fused("resumed_rounds")``), the host waking for :meth:`resume` only."""
        if self.judge is None:
            full = self.be.full(self.lv.n, 0.0, "float64")  # a full worklist: round 0 runs
            self.be.iterate(self.step, (full,), check=self.check)
            return
        if self.launch is not None:
            self.launch()
            return
        self.go = self.be.full(self.lv.n, 0.0, "float64")  # the worklist after the host's rounds: full
        self.judge()  # the test before round 0
        go = self.resume()
        if go is not None:
            self.resumed(self.step, (go,), self.resume)

    def step(self, moves, r):
        """A Jet round (the last round's moves, the worklist, unread); its moves, emptied
        by the device's judge when no Jet round comes next."""
        be, lv = self.be, self.lv
        fused = be.fused("jet_moves")  # the same moves, locks and σ in three kernels (cupy)
        moves = None if fused is None else fused(lv.A, lv.theta, self.loss, self.locks, self.sigma, lv.keys)
        if moves is None:
            moves = _jet_moves(be, lv, self.sigma, self.loss, self.locks)
            be.assign(self.locks, 0.0, mask=None)  # locks = 0
            be.assign(self.locks, -np.inf, mask=moves)  # locks<moves> = -inf
            self._flip(moves)
        else:
            self._update()
        if self.judge is not None:
            self.judge(moves)
        return (moves,)

    def resume(self, state=None):
        """:meth:`check` where the backend judges on the device: reads the judge's state
        (one read), runs the rebalancing rounds that come next, each judged on the device;
        the worklist to go on with, or None to stop."""
        while True:
            mode, _, pw = self.judge.read()
            if mode != "rebalance":
                return self.go if mode == "jet" else None
            self.judge(self._rebalance(pw))  # a round that moved nothing ends the level, unjudged

    def check(self, state=None, r=None):
        """1 when a Jet round comes next (after any rebalancing rounds), 0 to stop."""
        while True:
            pw = self._judge()
            if self.stopped:
                return 0
            if pw is None:
                return 1
            if not self._rebalance(pw):
                self.stopped = True
                return 0

    def _rebalance(self, pw):
        """A rebalancing round from side weights ``pw``: σ, ℓ and w σ updated. Returns
        whether it moved anything, or, where the test is on the device, how many it moved
        as a device scalar for the judge: a backend that answers ``fused("jet_rebalance")``
        (cupy) takes the vertices and flips them with no host read, the verbs' choice bit for
        bit, where the verbs cost a dozen calls and three host reads (1-2 ms a round on an
        H200)."""
        be, lv = self.be, self.lv
        side, amount = _rebalance_amount(pw, self.bounds, self.targets)
        if self.judge is not None:
            moved = self.rebalanced(self.sigma, self.loss, lv.w, lv.keys, side, amount)  # σ<moves> = -σ
            self._update()
            return moved
        moves = _rebalance_moves(be, lv, self.sigma, self.loss, side, amount)
        if be.nvals(moves) == 0:
            return False
        self._flip(moves)
        return True

    def _judge(self):
        """Counts a round and keeps the best bisection; sets :attr:`stopped` after
        ``patience`` rounds without a real improvement or :data:`MAX_ROUNDS` rounds;
        returns the side weights when the bisection is overweight, else None."""
        be, lv = self.be, self.lv
        if self._rounds == MAX_ROUNDS:
            self.stopped = True
            return None
        self._rounds += 1
        cut = (lv.degrees - float(be.reduce(self.loss, "plus") or 0.0)) / 4  # Σ ext / 2 = (Σ d - Σ ℓ) / 4
        heavy = (lv.total - float(be.reduce(self.wsigma, "plus") or 0.0)) / 2  # side 1's weight: Σ w (1 - σ) / 2
        pw = (lv.total - heavy, heavy)
        over = sum(max(pw[s] - self.bounds[s], 0.0) for s in range(2))
        if self.key is None or (over, cut) < self.key:
            real = self.key is None or over < self.key[0] or cut < (1 - TOLERANCE) * self.key[1]
            self.best, self.key, self.since = be.values(self.sigma) < 0, (over, cut), 0 if real else self.since + 1
        else:
            self.since += 1
        self.stopped = self.since >= self.patience
        return pw if over > 0 else None

    def _flip(self, moves):
        """σ<moves> = -σ in place, then ℓ and w σ."""
        be = self.be
        flipped = be.ewise_mult("second", moves, be.apply("ainv", self.sigma))  # -σ<moves>
        be.assign(self.sigma, flipped, mask=flipped)  # σ<moves> = -σ
        self._update()

    def _update(self):
        be, lv, sigma = self.be, self.lv, self.sigma
        fused = be.fused("jet_update")  # the same ℓ and w σ in one kernel (cupy)
        if fused is not None and fused(lv.A, sigma, lv.w, self.loss, self.wsigma):
            return
        t = be.ewise_add("plus", lv.zero, be.mxv("plus_times", lv.A, sigma))  # t = A ⊕plus.times σ, full
        be.assign(self.loss, be.ewise_mult("times", sigma, t), mask=None)  # ℓ = σ t = int - ext
        be.assign(self.wsigma, be.ewise_mult("times", lv.w, sigma), mask=None)  # w σ


def _refine_level(be, level, vertex_weights, coarse, bounds, targets, seed, filters):
    """A run of rounds on one level for each filter c of ``filters``, the first from the
    ``coarse`` level's sides projected, each later one from the best sides of the one before,
    each until :class:`_Rounds` stops it (after :data:`PATIENCE` rounds without a real
    improvement, the later runs after :data:`LATER_PATIENCE`); the best sides seen (bool,
    side 1 True).

    The Jet rounds run through :meth:`~gbgraph.backends.base.Backend.iterate`, or on the
    cupy backend in one launch or recorded once with the test inside (:meth:`_Rounds.run`); a
    round's only result is its moves, the worklist, so that the rounds stop when one moves
    nothing."""
    sigma = _sigma(be, coarse, level.labels)
    for run, c in enumerate(filters):
        if run:
            sigma = _sigma_of(be, rounds.best)
        rounds = _Rounds(be, _Level(be, level, vertex_weights, seed, c), sigma, bounds, targets,
                         LATER_PATIENCE if run else PATIENCE)
        rounds.run()
    return rounds.best


def _sigma(be, coarse, labels):
    """σ = 1 - 2 p, with ``p = P ⊕any.second p_c`` the coarse sides projected
    (:func:`~gbgraph.algorithms.partition.project`), as a full vector."""
    fused = be.fused("jet_sigma")  # the projection and σ in one kernel (cupy)
    if fused is not None:
        return fused(coarse, labels)
    return _sigma_of(be, project(be, coarse, labels))


def _sigma_of(be, sides):
    """σ = 1 - 2 ``sides``, a full vector."""
    return be.full(sides.size, 1.0 - 2.0 * sides.astype(be.xp.float64), "float64")  # σ = 1 - 2 side


def _jet_moves(be, lv, sigma, loss, locks):
    """Candidates by Jet's filter, kept where the afterburner's score stays >= 0. Every
    vector but the candidates' is full, so each step is one pass on any device."""
    slack = be.ewise_add("plus", be.ewise_add("minus", lv.theta, loss), locks)  # θ - ℓ + locks: -inf if locked
    cand = be.select("valuege", slack, 0.0)  # [1] filter: ℓ <= θ, not locked
    twice = be.ewise_mult("second", cand, be.apply("times", sigma, right=2.0))  # 2σ<cand>
    gain = be.apply("ainv", loss)  # g = -ℓ: the afterburner's order
    above = be.mxv(RANKED_ABOVE, lv.A, (twice, gain, lv.keys), mask=cand)  # 2 Σ_j A(i,j) σ(j) over higher-ranked j
    score = be.ewise_mult("minus", be.ewise_mult("times", above, sigma), loss)  # g' = 2σ(...) - ℓ
    return be.select("valuege", score, 0.0)  # the moves: g' >= 0


def _rebalance_amount(pw, bounds, targets):
    """(the overweight side s, the weight to move off it): enough to bring it halfway between
    its target and its bound without overloading the other side."""
    s = 0 if pw[0] - bounds[0] >= pw[1] - bounds[1] else 1
    want = pw[s] - (targets[s] + bounds[s]) / 2
    room = bounds[1 - s] - pw[1 - s]
    return s, min(max(want, pw[s] - bounds[s]), max(room, pw[s] - bounds[s]))


def _rebalance_moves(be, lv, sigma, loss, s, amount):
    """Vertices off side s, least loss per weight first, up to ``amount`` of weight."""
    on_side = be.select("valueeq", sigma, 1.0 - 2.0 * s)  # σ<σ = 1 - 2s>
    movable = be.select("valuegt", lv.w, 0.0, mask=on_side)  # w<side s, w > 0>
    per_weight = be.ewise_add("plus", lv.zero,
                              be.ewise_mult("times", loss, lv.w_inv, mask=movable))  # ℓ / w
    return lightest_prefix(be, per_weight, lv.w, lv.keys, mask=movable, amount=amount)

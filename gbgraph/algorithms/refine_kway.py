"""Direct k-way partitioning: one hierarchy, one k-way partition of its coarsest graph, k-way
refinement at every finer level: FM on the host (``refine="fm"``), or Jet's rounds as
semiring algebra on the backend (``refine="jet"``).

The multilevel scheme of Jet [1]_ (and of KaMinPar, METIS' ``kway``): coarsen once (the
hierarchy of :func:`gbgraph.coarsen`, stopped at about :data:`FM_PER_PART` or
:data:`PER_PART` vertices per part), partition the coarsest graph into k parts (recursive
multilevel bisection, cheap on a graph of a few thousand vertices), then project the parts
level by level, ``parts = parts_c(labels)``, and refine.

With ``refine="fm"``, :func:`kway_fm` refines each level on the host, as FM refines a
bisection (:mod:`~gbgraph.algorithms.refine_fm`; KaHIP's and METIS' k-way FM are the same
kind): an overweight part first gives vertices to parts with room, least loss per weight
first; then each pass moves boundary vertices one at a time from a heap ordered by (gain,
hash key), each to the neighbouring part it is most connected to among those with room,
locks it, recomputes its neighbours' moves, and rolls back to the best prefix (least
overload, then cut). Then localized searches (KaFFPa's [2]_ and KaMinPar's localized k-way
FM): from each boundary vertex in turn, a search that grows from it alone, the same moves,
rolled back to its own best prefix, so that improvements in separate regions are each kept
where one pass keeps only its single best prefix; later rounds search again only near the
vertices the round before moved. Tries are ranked on the first coarse level,
and only the best is refined on the input (as :func:`~gbgraph.algorithms.partition.bisect`
ranks its tries).

With ``refine="jet"``, a refinement round on a balanced partition is Jet's label propagation, ``Jetlp``:

1. *Destination*: each unlocked vertex i takes the part ``b ≠ parts(i)`` it is most
   connected to (ties: the lower part), ``conn(i, q) = Σ_j A(i, j) [parts(j) = q]``, and is
   a candidate when the move passes Jet's filter ``conn(i, b) >= conn(i, own)`` or
   ``conn(i, own) - conn(i, b) < c · conn(i, own)`` (c = 0.75 on coarse levels, 0.25 on the
   finest): moves that lose a little are allowed. The row operator :data:`BEST_PART` keeps
   a row's neighbouring parts in a table of :data:`SLOTS` entries. As Jet's ``dest_cache``,
   destinations and gains are recomputed only at the rows a move touched (the moved
   vertices and their neighbours, ``moves ∪ movesᵀ A``, a push), so a round costs the moved
   vertices' neighbourhoods, not a pass over the graph. Unlike Jet (as KaMinPar's label
   propagation), a candidate whose destination has no room left for it (:data:`HAS_ROOM`)
   waits: moves that would overload a part are what the rebalancing rounds then undo at a
   cost in cut.
2. *Afterburner*: each candidate's gain ``g = conn(i, b) - conn(i, own)`` is recomputed as
   if every candidate ranked above it by (gain, hash key) had moved to its destination
   (:data:`AFTERBURNER`); the candidates whose recomputed gain is ``>= 0`` move, all at once,
   and sit out the next label-propagation round (Jet's lock bit).

A round on an unbalanced partition (a part above ``(1 + ε) W / k``) rebalances, as Jet's
``Jetrs``: the vertices of each overweight part choose the receiving part (below the bound)
they are most connected to (:data:`REBALANCE_PART`; none: the one with the most room),
leave their part by least loss per weight until it is halfway between its target and its
bound, and each receiving part takes them by the same order only while it stays within its
bound (:func:`~gbgraph.backends.partition_forms.evictions`); the vertices a full receiver
turns away go to the parts with room left.

The cut is kept exact between rounds without a pass over the graph: for the moved vertices
M, with conn before (conn) and after (conn') the moves, ``2 Δcut = -Σ_{i ∈ M} (conn(i, b_i)
- conn(i, a_i) + conn'(i, b_i) - conn'(i, a_i))`` (a_i, b_i: the part left and the part
entered; the identity of Jet's implementation), two products over the moved rows only. The
best partition seen (least overload, then least cut) is kept; a level stops after
:data:`PATIENCE` rounds without one that improves the cut by more than :data:`TOLERANCE`.

References
----------
.. [1] M. S. Gilbert, K. Madduri, E. G. Boman and S. Rajamanickam, "Jet: multilevel graph
   partitioning on graphics processing units," SIAM J. Sci. Comput. 46(5), 2024.
   https://doi.org/10.1137/23M1559129
.. [2] P. Sanders and C. Schulz, "Engineering multilevel graph partitioning algorithms,"
   European Symposium on Algorithms (ESA), 2011 (localized k-way FM searches).
"""

import math
import time
import warnings

import numba
import numpy as np

from ..backends.operators import RowOperator, local
from ..backends.partition_forms import evictions
from ..hashing import Packing
from .coarsen import CoarseningStallWarning, coarsen
from .refine_fm import HostGraph, _settle, cut_and_weights, pass_limit
from .refine_jet import FILTER, MAX_ROUNDS, PATIENCE, TOLERANCE  # Jet's rules, as for bisection

__all__ = ["kway_partition", "BEST_PART", "PART_GAIN", "HAS_ROOM", "AFTERBURNER", "REBALANCE_PART", "SLOTS",
           "PER_PART", "FM_PER_PART", "INITIAL_TRIES", "kway_fm"]

#: Distinct neighbouring parts a row's table holds; a part seen after the table is full is
#: not a destination of that row (only rows of more than SLOTS neighbouring parts lose any).
SLOTS = 64
#: With Jet's rounds, the hierarchy stops at about this many vertices per part (KaMinPar
#: coarsens to 160 k; 32, 64 and 128 gave cuts within a few percent of each other, in no
#: consistent order).
PER_PART = 64
#: With k-way FM: 1,024 cut 0.999 of KaMinPar's default in geometric mean at k = 8 over the 22
#: shared graphs, 64 cut 1.034 and 256 1.024, for about 25% more time than 64
#: (docs/partitioning_history.md, "Session 10"): a bisection of a larger coarsest graph is the better
#: start, and FM on the host costs less per level than Jet's rounds.
FM_PER_PART = 1024
#: Bisections of the coarsest graph's recursive partition, each level of the recursion.
INITIAL_TRIES = 3
#: With k-way FM, a first hierarchy that HEC collapsed (its coarsest level holds a vertex of at
#: least this fraction of HEC's cap, ``coarsen``'s ``max_weight``, and fewer than
#: :data:`AT_CAP_SIZE` of the cutoff's vertices) is replaced by the next seed's, or, when that
#: one collapsed too, both are refined and ranked on the first coarse level. c-55 with seed 0
#: collapses (32,780 → 9,445 → 2,717 vertices, a k = 8 cut of 48,272 where seed 1 cuts 32,267);
#: of the 22 shared graphs only c-55 and debian_bookworm_deps reach the cap (k = 8), the others
#: stay below 0.5 of it.
AT_CAP = 0.9
#: The coarsest level of a collapsed hierarchy has fewer vertices than this fraction of the
#: cutoff: debian_bookworm_deps' seed-0 hierarchy holds a hub at the cap but stops at 7,018 of
#: the cutoff's 8,192 vertices and cuts less than seed 1's (docs/partitioning_history.md, "Session 13").
AT_CAP_SIZE = 0.5


def _best_part(i, start, stop, cols, vals, parts):
    """The part ``q ≠ parts(i)`` with the largest ``conn(i, q)`` (ties: the lower q), present
    when the move passes Jet's filter; each conn summed in column order from 0.0."""
    seen = local(SLOTS, np.int64)
    conn = local(SLOTS, np.float64)
    count = 0
    own = parts[i]
    inside = 0.0
    for p in range(start, stop):
        q = parts[cols[p]]
        x = np.float64(vals[p])
        if q == own:
            inside += x
        else:
            s = 0
            while s < count and seen[s] != q:
                s += 1
            if s < count:
                conn[s] += x
            elif count < SLOTS:
                seen[count] = q
                conn[count] = x
                count += 1
    best = np.int64(-1)
    top = 0.0
    for s in range(count):
        if conn[s] > top or (conn[s] == top and top > 0.0 and seen[s] < best):
            best = seen[s]
            top = conn[s]
    return best, best >= 0 and (top >= inside or inside - top < C * inside)


#: ``dest(i)``, Jet's destination of row i when it passes the filter (:func:`_best_part`):
#: ``mxv(BEST_PART[c], A, parts, mask=locked, complement=True)``, one operator per filter c.
BEST_PART = {c: RowOperator(_best_part, fill=None, name=f"best_part_{int(100 * c)}",
                            constants={"SLOTS": SLOTS, "C": c}) for c in FILTER}


def _part_gain(i, start, stop, cols, vals, parts, into, out_of):
    """``conn(i, into(i)) - conn(i, out_of(i))``, each summed in column order from 0.0."""
    gained = 0.0
    lost = 0.0
    b = into[i]
    a = out_of[i]
    for p in range(start, stop):
        q = parts[cols[p]]
        if q == b:
            gained += np.float64(vals[p])
        elif q == a:
            lost += np.float64(vals[p])
    return gained - lost, True


#: The gain of moving row i from ``out_of(i)`` to ``into(i)``: ``mxv(PART_GAIN, A, (parts,
#: into, out_of), mask=rows)``; into and out_of are read at the masked rows only.
PART_GAIN = RowOperator(_part_gain, fill=(None, -1, -1), name="part_gain")


def _afterburner(i, start, stop, cols, vals, parts, dest, gain, keys):
    """Row i's gain if every candidate j ranked above it, ``(gain(j), keys(j)) > (gain(i),
    keys(i))``, had moved to dest(j) (a non-candidate's dest is -1); summed in column order."""
    own = parts[i]
    b = dest[i]
    g = gain[i]
    key = keys[i]
    change = 0.0
    for p in range(start, stop):
        j = cols[p]
        d = dest[j]
        if d >= 0 and (gain[j] > g or (gain[j] == g and keys[j] > key)):
            x = np.float64(vals[p])
            if d == own:
                change -= x
            elif d == b:
                change += x
            q = parts[j]
            if q == own:
                change += x
            elif q == b:
                change -= x
    return g + change, True


def _has_room(i, start, stop, cols, vals, dest, room, w):
    """dest(i) when its part has room for row i's weight, ``room(dest(i)) >= w(i)``."""
    return dest[i], room[dest[i]] >= w[i]


#: Candidates whose destination can take them: ``mxv(HAS_ROOM, A, (dest, room, w),
#: mask=dest)``, with ``room(q)`` for q < k the bound minus part q's weight.
HAS_ROOM = RowOperator(_has_room, fill=(-1, None, None), name="has_room")


#: Jet's afterburner: ``mxv(AFTERBURNER, A, (parts, dest, gain, keys), mask=dest)``.
AFTERBURNER = RowOperator(_afterburner, fill=(None, -1, 0.0, None), name="afterburner")


def _rebalance_part(i, start, stop, cols, vals, parts, status):
    """For a vertex of an overweight part (``status(parts(i)) = 1``): the part q with
    ``status(q) = 0`` (may receive) of the largest ``conn(i, q)`` (ties: the lower q), -1 when
    it has no neighbour in one; no entry for the other vertices."""
    own = parts[i]
    if status[own] != 1:
        return np.int64(-1), False
    seen = local(SLOTS, np.int64)
    conn = local(SLOTS, np.float64)
    count = 0
    for p in range(start, stop):
        q = parts[cols[p]]
        if status[q] == 0:
            s = 0
            while s < count and seen[s] != q:
                s += 1
            if s < count:
                conn[s] += np.float64(vals[p])
            elif count < SLOTS:
                seen[count] = q
                conn[count] = np.float64(vals[p])
                count += 1
    best = np.int64(-1)
    top = -1.0
    for s in range(count):
        if conn[s] > top or (conn[s] == top and seen[s] < best):
            best = seen[s]
            top = conn[s]
    return best, True


#: The receiving part of each vertex of an overweight part: ``mxv(REBALANCE_PART, A, (parts,
#: status))``, where ``status(q)`` for q < k is 1 (overweight), 0 (may receive) or -1.
REBALANCE_PART = RowOperator(_rebalance_part, fill=None, name="rebalance_part", constants={"SLOTS": SLOTS})


def kway_partition(be, graph, vw, k, opt):
    """Parts (int64, an array of ``be.xp``) of the best of ``opt.tries`` direct k-way
    multilevel partitions, and the level sizes of its hierarchy."""
    from .partition import SELECT_LEVEL, _level_weights, _SEEDS as SEEDS  # partition imports this module late

    total = float(be.xp.sum(vw)) if vw.size else 0.0
    integral = vw.dtype.kind in "iu"
    unit = integral and int(vw.max()) == int(vw.min()) == 1
    target = total / k
    bound = max((1.0 + opt.eps) * target, math.ceil(target - 1e-9) if integral else 0.0)
    seeded = opt.coarsening not in ("mis2", "mis2_basic")
    per_part = FM_PER_PART if opt.refine == "fm" else PER_PART
    cap = opt.max_weight(graph.n, k)
    cutoff = max(50, per_part * k)

    def hierarchy(seed):
        """The hierarchy of one try, its levels' vertex weights, and whether HEC collapsed it."""
        start = time.perf_counter()
        with warnings.catch_warnings():  # a stalled hierarchy is still a hierarchy to partition
            warnings.simplefilter("ignore", CoarseningStallWarning)
            h = coarsen(graph, opt.coarsening, cutoff=cutoff, seed=seed, max_weight=cap, backend=be)
        weights = [level.vertex_weights for level in h] if unit else _level_weights(be, h, vw)
        opt.seconds["coarsen"] += time.perf_counter() - start
        opt.seconds["map"] += sum(level.seconds[0] for level in h.levels[:-1])
        opt.seconds["build"] += sum(level.seconds[1] for level in h.levels[:-1])
        collapsed = (opt.refine == "fm" and cap is not None and h[-1].n < AT_CAP_SIZE * cutoff
                     and float(h[-1].vertex_weights.max()) >= AT_CAP * cap)
        return h, weights, collapsed

    best, best_key, kept, waiting = None, None, None, None
    tries, t, shift = opt.tries, 0, 0
    while t < tries:
        seed = (opt.seed + t + shift) % SEEDS if seeded else 0
        h, weights, collapsed = waiting or hierarchy(seed)  # a waiting hierarchy is this seed's
        waiting = None
        if t == 0 and collapsed:  # (only HEC has a cap, so the tries are seeded)
            other = hierarchy((seed + 1) % SEEDS)
            if other[2]:  # both collapsed: both are refined and ranked
                tries, waiting = tries + 1, other
            else:  # the next seed's hierarchy replaces this one
                (h, weights, _), seed, shift = other, (seed + 1) % SEEDS, 1
        parts = _initial(be, h[-1].graph, weights[-1], k, seed, opt)
        start = time.perf_counter()
        if opt.refine == "fm":  # tries ranked at level 1: only the best is refined on the input
            stop = min(SELECT_LEVEL, len(h) - 1) if tries > 1 else 0
            parts, key = _fm_levels(be, h, weights, _host(be.values(parts)).astype(np.int64), k, bound, seed,
                                    len(h) - 1, stop)
        else:
            stop = 0
            for i in range(len(h) - 1, -1, -1):
                if i < len(h) - 1:
                    parts = _project(be, parts, h[i].labels)
                parts, key = _refine_level(be, h[i].graph, weights[i], parts, k, bound, target, seed,
                                           FILTER[i == 0])
        opt.seconds["refine"] += time.perf_counter() - start
        if best_key is None or key < best_key:
            best, best_key, kept = parts, key, (h, weights, seed, stop)
        t += 1
    h, weights, seed, stop = kept
    if stop:
        start = time.perf_counter()
        best = _fm_levels(be, h, weights, best, k, bound, seed, stop, 0, refined=True)[0]
        opt.seconds["refine"] += time.perf_counter() - start
    return be.xp.asarray(best) if opt.refine == "fm" else be.values(best), tuple(level.n for level in h)


def _initial(be, graph, vw, k, seed, opt):
    """The coarsest graph's k parts by recursive multilevel bisection (a full vector)."""
    from .partition import _Options, _split

    start = time.perf_counter()
    steps = math.ceil(math.log2(k)) if k > 1 else 0
    step_eps = (1.0 + opt.eps) ** (1.0 / steps) - 1.0 if steps else opt.eps
    seconds = dict.fromkeys(opt.seconds, 0.0)
    # HEC's cap in vertex weight, as on the input: ``max_weight(n, 2)`` counts vertices, and a
    # coarse vertex stands for ``W / n`` input vertices on average (the sides alike, roughly)
    cap = None if opt.cap is None else opt.cap * float(be.xp.sum(vw)) / max(graph.n, 1)
    inner = _Options(opt.coarsening, opt.refine, step_eps, seed, INITIAL_TRIES, seconds, graph.n, cap)
    ids = be.xp.arange(graph.n, dtype=be.xp.int64)
    pieces, _ = _split(be, graph, vw, k, 0, ids, inner)
    parts = pieces[0]
    for piece in pieces[1:]:
        parts = be.ewise_add("plus", parts, piece)  # the pieces cover disjoint vertices
    opt.seconds["initial"] += time.perf_counter() - start
    return parts


def _fm_levels(be, h, weights, parts, k, bound, seed, top, stop, refined=False):
    """k-way FM (:func:`kway_fm`) on the host from the ``parts`` of level ``top`` (refined
    there first unless ``refined``: a try's level already refined is not refined twice, so
    that the kept try is exactly a single try), then at each finer level down to ``stop``,
    the parts projected level by level, ``p = P ⊕any.second p_c``: the parts (host int64)
    and their (overload, cut) on level ``stop``."""
    from .partition import host_graph, project

    key = None
    for i in range(top, stop - 1, -1):
        if i < top:
            parts = _host(project(be, parts, h[i].labels)).astype(np.int64)
        if i < top or not refined:
            hg = host_graph(h[i], weights[i], seed)
            # projected parts cut the same edges: with whole weights (so on the coarser levels,
            # their sums) the coarser level's running cut is this level's sweep, exactly
            known = key[1] if key is not None and hg.whole else None
            key = kway_fm(hg, parts, k, bound, cut=known)
    return parts, key


def _project(be, coarse, labels):
    """``p = P ⊕any.second p_c``: each vertex takes its coarse vertex's part."""
    return _full(be, be.values(be.extract(coarse, labels)))  # p = p_c(labels)


def _full(be, values):
    n = values.size
    return be.vector(be.xp.arange(n, dtype=be.xp.int64), values, n)


class _Level:
    """A level's matrix and full vectors: vertex weights w (float64), hash keys; the parts,
    their weights (host, float64), the cut and the destinations that pass Jet's filter
    (Jet's ``dest_cache``: recomputed only at the moved rows and their neighbours), kept up to
    date by :meth:`move`."""

    def __init__(self, be, graph, vertex_weights, parts, k, bound, seed, c):
        xp, n = be.xp, graph.n
        self.be, self.k, self.n, self.bound, self.c = be, k, n, bound, c
        self.A = be.adjacency(graph, weighted=True)
        self.dest = be.mxv(BEST_PART[c], self.A, parts)  # [1] dest = BEST_PART(A; parts): Jet's destinations
        self.gain = be.mxv(PART_GAIN, self.A, (parts, self.dest, parts), mask=self.dest)  # g = conn(dest) - conn(own)
        self.w = be.full(n, vertex_weights.astype(xp.float64), "float64")
        self.keys = be.full(n, Packing(n, 64, xp)(xp.arange(n, dtype=xp.int64), seed), "uint64")
        self.parts = parts
        self.part_weights = self._sums(parts, self.w)
        nowhere = be.full(n, -1, "int64")
        inside = be.reduce(be.mxv(PART_GAIN, self.A, (parts, parts, nowhere)), "plus")  # Σ_i conn(i, own)
        degrees = be.reduce(be.reduce_rows(self.A, "plus"), "plus")  # Σ_i d(i)
        self.cut = ((degrees or 0.0) - (inside or 0.0)) / 2

    def _sums(self, parts, w):
        """``Pᵀ ⊕plus.second w`` on the host: the weight of each part among ``parts``' entries."""
        be = self.be
        summed = be.build(be.values(parts), be.values(be.apply("identity", w, mask=parts)), self.k,
                          dup="plus")  # w_p(parts(i)) += w(i), in order of i
        out = np.zeros(self.k)
        out[_host(be.indices(summed))] = _host(be.values(summed))
        return out

    def move(self, moves, dest, gain):
        """``parts<moves> = dest``, with the cut and the parts' weights updated from the moved
        rows only: ``2 Δcut = -(Σ gain + Σ gain')`` (module docstring)."""
        be = self.be
        into = be.apply("identity", dest, mask=moves)  # dest<moves>
        out_of = be.apply("identity", self.parts, mask=moves)  # parts<moves>
        before = be.reduce(be.apply("identity", gain, mask=moves), "plus") or 0.0  # Σ conn(b) - conn(a), before
        moved_w = be.apply("identity", self.w, mask=moves)  # w<moves>
        self.part_weights += self._sums(into, moved_w) - self._sums(out_of, moved_w)
        self.parts = be.ewise_add("second", self.parts, into)  # parts<moves> = dest
        after = be.reduce(be.mxv(PART_GAIN, self.A, (self.parts, self.parts, out_of), mask=moves),
                          "plus") or 0.0  # Σ conn'(b) - conn'(a), after
        self.cut -= (before + after) / 2
        touched = be.vxm("any_pair", moves, self.A)  # movesᵀ ⊕any.pair A: the movers' neighbours (a push)
        near = be.ewise_add("first", touched, moves)  # the rows whose conn changed
        fresh = be.mxv(BEST_PART[self.c], self.A, self.parts, mask=near)  # dest<near> anew
        fresh_gain = be.mxv(PART_GAIN, self.A, (self.parts, fresh, self.parts), mask=fresh)  # conn(dest) - conn(own)
        self.dest = be.ewise_add("second", be.apply("identity", self.dest, mask=near, complement=True),
                                 fresh)  # dest<near, replace> = fresh
        self.gain = be.ewise_add("second", be.apply("identity", self.gain, mask=near, complement=True),
                                 fresh_gain)  # gain<near, replace> = fresh gain

    def overload(self, bound):
        return float(np.maximum(self.part_weights - bound, 0.0).sum())


def _refine_level(be, graph, vertex_weights, parts, k, bound, target, seed, c):
    """Jet rounds on one level from ``parts`` (a full vector): the best parts seen and their
    (overload, cut)."""
    lv = _Level(be, graph, vertex_weights, parts, k, bound, seed, c)
    best, best_key, since = lv.parts, None, 0
    locked = be.vector(be.xp.zeros(0, be.xp.int64), True, lv.n)  # the vertices the last Jet round moved
    for _ in range(MAX_ROUNDS):
        key = (lv.overload(bound), lv.cut)
        if best_key is None or key < best_key:
            real = best_key is None or key[0] < best_key[0] or key[1] < (1 - TOLERANCE) * best_key[1]
            best, best_key, since = lv.parts, key, 0 if real else since + 1
        else:
            since += 1
        if since >= PATIENCE:
            break
        if key[0] > 0:
            moves, dest, gain = _rebalance_moves(be, lv, bound, target)
            locked = be.vector(be.xp.zeros(0, be.xp.int64), True, lv.n)
        else:
            moves, dest, gain = _jet_moves(be, lv, locked)
            locked = moves
        if be.nvals(moves) == 0:
            break
        lv.move(moves, dest, gain)
    return best, best_key


def _jet_moves(be, lv, locked):
    """Jetlp: the candidates' destinations, kept where the afterburner's gain stays >= 0."""
    dest = be.apply("identity", lv.dest, mask=locked, complement=True)  # [1] candidates: dest<¬locked>
    room = be.xp.zeros(lv.n, be.xp.float64)  # room(q), q < k: what part q may still take
    room[:lv.k] = be.xp.asarray(lv.bound - lv.part_weights)
    dest = be.mxv(HAS_ROOM, lv.A, (dest, be.full(lv.n, room, "float64"), lv.w), mask=dest)  # dest<room(dest) >= w>
    score = be.mxv(AFTERBURNER, lv.A, (lv.parts, dest, lv.gain, lv.keys), mask=dest)  # [1] afterburner
    return be.select("valuege", score, 0.0), dest, lv.gain  # the moves: g' >= 0


def _rebalance_moves(be, lv, bound, target):
    """Jetrs: vertices of the overweight parts to the receiving parts, least loss per weight
    first, no receiver filled beyond the bound."""
    xp, k = be.xp, lv.k
    pw = lv.part_weights
    status = np.where(pw > bound, 1, np.where(pw < bound, 0, -1)).astype(np.int64)
    padded = xp.zeros(lv.n, xp.int64)
    padded[:k] = xp.asarray(status)
    dest = be.mxv(REBALANCE_PART, lv.A, (lv.parts, be.full(lv.n, padded, "int64")))  # receiving part of each evictable
    if (status == 0).any():
        stray = be.select("valueeq", dest, -1)  # no neighbour in a receiving part
        be.assign(dest, int(np.argmin(np.where(status == 0, pw, np.inf))), mask=stray)  # dest<stray> = lightest
    gain = be.mxv(PART_GAIN, lv.A, (lv.parts, dest, lv.parts), mask=dest)  # conn(dest) - conn(own)
    ids = be.indices(dest)
    loss_per_weight = -be.values(gain) / xp.maximum(be.values(lv.w)[ids], 1e-300)
    taken, into = evictions(be, ids, be.values(lv.parts)[ids], be.values(dest), loss_per_weight,
                            be.values(lv.w)[ids], be.values(lv.keys)[ids], pw, bound, target)
    moves = be.vector(taken, True, lv.n, copy=False)
    dest = be.vector(taken, into, lv.n, copy=False)
    gain = be.mxv(PART_GAIN, lv.A, (lv.parts, dest, lv.parts), mask=moves)  # a turned-away vertex has a new dest
    return moves, dest, gain


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


# ---- host k-way FM (refine="fm") ----------------------------------------------------------------

#: Passes of :func:`kway_fm` at most per level; a pass that keeps no move ends the level.
FM_PASSES = 8
#: A row longer than ``max(LONG_ROW, LONG_ROW_RATIO × mean row length)`` keeps its heap entry
#: when a neighbour moves (its move is checked when it reaches the top): recomputing a hub's
#: row at every neighbour's move took 0.29 of debian_bookworm_deps' 0.39 s at k = 8.
LONG_ROW = 32
LONG_ROW_RATIO = 4
#: FM passes on a balanced level stop after one that lowers the cut by less than this fraction
#: (the localized searches that follow find what further passes would): 3-4% less time at the
#: same cut (docs/partitioning_history.md, "Session 11").
FM_TOLERANCE = 0.001
#: Rounds of localized searches (:func:`_kway_local`) after the FM passes of a level; a round
#: that keeps no move ends them, and a round after the first seeds only near the moves of the
#: one before (:data:`LOCAL_REACH`). One round took the geometric-mean cut at k = 8 from 0.983
#: to 0.953 of KaMinPar's; three, the later ones near the moves, to 0.949 for 3% more time
#: (two full rounds: 6%), which the boundary renewal of :func:`_renew_boundary` pays back
#: (docs/partitioning_history.md, "Session 12").
LOCAL_ROUNDS = 3
#: A localized search stops after this many moves without a new best, or when its cut is more
#: than :data:`LOCAL_DEPTH` mean edge weights above its best.
LOCAL_LIMIT = 25
LOCAL_DEPTH = 5.0
#: A search starts only from a vertex whose best move loses at most this many mean edge
#: weights (-2: gain >= -2 on a pattern); starting from every boundary vertex cut no less and
#: took twice the time.
LOCAL_SEED = 2.0
#: Edge visits a level's localized searches may spend, in multiples of its edge count: bounds
#: their cost on the skewed graphs, where most searches find nothing.
LOCAL_BUDGET = 1.0
#: A round of searches after the first seeds only the boundary vertices at most this many
#: edges from a vertex the round before moved: a search where nothing changed since would
#: mostly repeat one that found nothing (with 3 rounds, 2 edges cut 0.9498, 1 edge 0.9494).
LOCAL_REACH = 1
#: k-way FM keeps each vertex's connection to each part in a table (:func:`_best_move`) where
#: the mean row holds at least this many entries per part and the edge weights are whole and
#: positive: a neighbour's move then costs a row of k entries, not the neighbour's edges. At
#: k = 8, kway_fm alone ran 0.31-0.65 of its time without the table on coAuthorsDBLP's levels
#: (mean row 6.5-56) and cond-mat-2005's (9.4-14), 1.1-1.25 on usroads' (2.6-4.6).
TABLE_DEGREE = 0.75


# ---- the k-way kernels' heap ----------------------------------------------------------------
# One max-heap of vertices ordered by (gain, key), refine_fm's (:func:`refine_fm._settle`);
# FM reads its top alone, and keys are distinct, so any heap layout gives the same moves.

@numba.njit(cache=True, inline="always")
def _place(heap, hg, hk, sizes, pos, v, g, k, keep):
    """v's heap entry: (g, k), pushed or moved, when ``keep``; else none (taken off, the last
    entry in its slot)."""
    i = pos[v]
    if keep and i < 0:
        i = sizes[0]
        sizes[0] += 1
    elif not keep and i >= 0:
        sizes[0] -= 1
        pos[v] = -1
        last = sizes[0]
        v, g, k = heap[last], hg[last], hk[last]
        i = i if i < last else -1
    elif not keep:
        i = -1
    _settle(heap, hg, hk, sizes[0], pos, i, v, g, k, True)


@numba.njit(cache=True, inline="always")
def _heapify(heap, hg, hk, size, pos):
    """The first ``size`` slots (their pos set) ordered bottom-up (Floyd)."""
    for i in range(size // 2 - 1, -1, -1):
        _settle(heap, hg, hk, size, pos, i, heap[i], hg[i], hk[i], False)


def kway_fm(hg, parts, k, bound, *, limit=None, max_passes=FM_PASSES, local_rounds=None, cut=None):
    """k-way FM on the host: balance repaired, then passes that move boundary vertices one at
    a time, best gain first, each to the neighbouring part it is most connected to among
    those with room, and roll back to the best prefix; then rounds of localized searches
    (:func:`_kway_local`, KaFFPa's and KaMinPar's localized k-way FM), each rolled back to its
    own best prefix, the first from the whole boundary, each later one from the boundary
    vertices near those the round before moved (:data:`LOCAL_REACH`).

    Parameters
    ----------
    hg : ~gbgraph.algorithms.refine_fm.HostGraph
    parts : numpy.ndarray
        int64 part of each vertex, ``0 .. k - 1``; refined in place.
    k : int
    bound : float
        The heaviest weight a part may have.
    limit : int, optional
        A pass stops after this many moves without a new best (default:
        :func:`~gbgraph.algorithms.refine_fm.pass_limit`).
    max_passes : int
        FM passes at most; they also stop after a pass that keeps no move or, on a balanced
        level, lowers the cut by less than :data:`FM_TOLERANCE`.
    local_rounds : int, optional
        Rounds of localized searches (default :data:`LOCAL_ROUNDS`).
    cut : float, optional
        The cut of ``parts`` where the caller knows it as the sweep over every edge would
        count it (the coarser level's, with whole edge weights): that sweep is skipped.

    Returns
    -------
    tuple
        (overload, cut): the weight above the bound summed over the parts, and the weight of
        the edges between parts.

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp, gbgraph as gg
    >>> from gbgraph.algorithms.refine_fm import HostGraph
    >>> path = sp.diags([np.ones(8), np.ones(8)], [-1, 1])      # 0 - 1 - ... - 8
    >>> hg = HostGraph(gg.as_graph(path), np.ones(9), np.arange(9, dtype=np.uint64) + 1)
    >>> parts = np.array([0, 0, 0, 0, 0, 0, 0, 1, 2])           # part 0 over the bound
    >>> kway_fm(hg, parts, 3, 4.0), parts.tolist()              # balanced, two edges cut
    ((0.0, 2.0), [0, 0, 0, 0, 1, 1, 1, 1, 2])
    """
    n = hg.n
    limit = pass_limit(n) if limit is None else limit
    if cut is None:
        cut, pw = cut_and_weights(hg.indptr, hg.indices, hg.weights, hg.vertex_weights, parts, k)
    else:  # the same sums as cut_and_weights's, in vertex order
        pw = np.bincount(parts, weights=hg.vertex_weights, minlength=k)
    members = np.bincount(parts, minlength=k)
    tabled = (hg.indices.size >= TABLE_DEGREE * k * n and hg.whole
              and bool(hg.weights.size == 0 or hg.weights.min() > 0.0))
    work = (np.empty(n, np.int64), np.empty(n), np.empty(n, np.uint64), np.full(n, -1, np.int64),
            np.empty(n, np.int64), np.empty(n), np.zeros(n, np.bool_), np.empty(n, np.int64), np.empty(n, np.int64),
            np.zeros(k), np.zeros(k, np.bool_), np.empty(k, np.int64), np.empty((n if tabled else 0, k)),
            np.zeros(n, np.bool_))
    long_row = max(LONG_ROW, int(LONG_ROW_RATIO * hg.indices.size / max(n, 1)))
    if bool((pw > bound).any()):
        cut = _kway_rebalance(*hg.arrays(), parts, pw, members, float(bound), cut, *work)
    boundary = (np.empty(n, np.int64), np.zeros(1, np.int64), np.zeros(n, np.bool_), np.empty(n, np.int64))
    _find_boundary(hg.indptr, hg.indices, hg.weights, parts, boundary[0], boundary[1], *work[-2:])
    for _ in range(max_passes):
        before, balanced = cut, not bool((pw > bound).any())
        cut, kept = _kway_pass(*hg.arrays(), parts, pw, members, float(bound), cut, limit, long_row, *work, *boundary)
        if kept == 0 or (balanced and cut > (1.0 - FM_TOLERANCE) * before):
            break
    mean = float(hg.weights.sum()) / max(hg.indices.size, 1)  # searches' thresholds scale with the edge weights
    budget = np.array([int(LOCAL_BUDGET * hg.indices.size)], np.int64)
    rounds = LOCAL_ROUNDS if local_rounds is None else local_rounds
    seeds = boundary[0][:boundary[1][0]].copy()  # in vertex order: neighbouring seeds' searches follow each other
    for r in range(rounds):
        before = parts.copy() if r + 1 < rounds else parts
        cut, kept = _kway_local(*hg.arrays(), parts, pw, members, float(bound), cut, LOCAL_LIMIT, long_row, *work,
                                *boundary, seeds, budget, -LOCAL_SEED * mean, LOCAL_DEPTH * mean)
        if kept == 0:
            break
        if r + 1 < rounds:  # the next round searches again only where this one changed the parts
            seeds = _near(hg.indptr, hg.indices, np.flatnonzero(parts != before), LOCAL_REACH, *boundary)
    return float(np.maximum(pw - bound, 0.0).sum()), float(cut)


@numba.njit(cache=True)
def _near(indptr, indices, changed, reach, boundary, count_boundary, stamp, listing):
    """The boundary vertices (in order) at most ``reach`` edges from a vertex of ``changed``;
    ``stamp`` is False again at the end."""
    count = 0
    for v in changed:
        stamp[v] = True
        listing[count] = v
        count += 1
    start = 0
    for _ in range(reach):
        stop = count
        for i in range(start, stop):
            v = listing[i]
            for t in range(indptr[v], indptr[v + 1]):
                u = indices[t]
                if not stamp[u]:
                    stamp[u] = True
                    listing[count] = u
                    count += 1
        start = stop
    seeds = np.empty(count, np.int64)
    found = 0
    for i in range(count_boundary[0]):
        if stamp[boundary[i]]:
            seeds[found] = boundary[i]
            found += 1
    for i in range(count):
        stamp[listing[i]] = False
    return seeds[:found]


@numba.njit(cache=True)
def _find_boundary(indptr, indices, w, parts, boundary, count_boundary, table, valid):
    """The boundary (vertices with an edge of weight > 0 to another part), sorted; with a
    ``table`` (:func:`_best_move`), the boundary's rows summed while they are at hand."""
    found = 0
    for u in range(parts.size):
        on = False
        for t in range(indptr[u], indptr[u + 1]):
            if parts[indices[t]] != parts[u] and w[t] > 0.0:
                on = True
                break
        if on:
            boundary[found] = u
            found += 1
        _sum_row(indptr, indices, w, parts, table, valid, u, on and table.shape[0] > 0)
    count_boundary[0] = found


@numba.njit(cache=True, inline="always")
def _sum_row(indptr, indices, w, parts, table, valid, v, summed):
    """v's row of the table summed from its edges, and kept (``valid``), where ``summed``.
    (Loops that run zero times, not a branch: see :func:`_best_move`.)"""
    for q in range(table.shape[1] if summed else 0):
        table[v, q] = 0.0
    for t in range(indptr[v], indptr[v + 1] if summed else indptr[v]):
        u = indices[t]
        if u != v:
            table[v, parts[u]] += w[t]
    valid[v] = valid[v] or summed


@numba.njit(cache=True)
def _kway_local(indptr, indices, w, vw, key, parts, pw, members, bound, cut, limit, long_row, heap, hg, hk, pos,
                dest, gain, locked, moves, froms, conn, seen, touched, table, valid, boundary, count_boundary, stamp,
                listing, seeds, budget, least, depth):
    """One round of localized k-way FM searches; returns (cut, moves kept).

    From each seed not yet moved in this round whose best move gains at least ``least``, a
    search: it moves the seed first, and its heap takes in the unlocked neighbours of the
    vertices it moves (their moves recomputed, as in :func:`_kway_pass`); it stops after
    ``limit`` moves without a new best (least overload, then cut) or when its cut is more than
    ``depth`` above its best, and rolls back to its best prefix. A moved vertex sits out the
    rest of the round, so each search improves its own region and a later one starts from
    the result. No search starts once ``budget[0]`` edge visits are spent (the rows of the
    moved vertices and of the neighbours recomputed). The boundary is renewed at the end.
    """
    sizes = np.zeros(1, np.int64)
    count = 0
    total = 0
    for si in range(seeds.size):
        s = seeds[si]
        if budget[0] <= 0:
            break
        if locked[s]:
            continue
        d, g, e = _best_move(indptr, indices, w, vw, parts, pw, members, bound, conn, seen, touched, table, valid, s,
                             False)
        if e <= 0.0 or d < 0 or g < least:
            continue
        dest[s] = d
        first = count
        b_over, b_cut = _overloads(pw, bound), cut
        kept, since, seeded = first, 0, True
        while since < limit and (seeded or sizes[0] > 0) and cut - b_cut <= depth:
            if seeded:  # the seed's move, just found, is the first (as from a heap of the seed alone)
                v, seeded = s, False
            else:
                v, g = _take_top(indptr, indices, w, vw, key, parts, pw, members, bound, conn, seen, touched, table,
                                 valid, heap, hg, hk, sizes, pos, dest, gain, False)
                if v < 0:
                    continue
            locked[v] = True  # _kway_pass's move step, repeated: as a shared compiled helper it ran 3-10% slower
            moves[count] = v
            froms[count] = parts[v]
            count += 1
            _shift(indptr, indices, w, table, valid, parts, pw, members, vw, v, dest[v])
            cut -= g
            budget[0] -= indptr[v + 1] - indptr[v]
            for t in range(indptr[v], indptr[v + 1]):
                u = indices[t]
                if u == v or locked[u] or indptr[u + 1] - indptr[u] > long_row:
                    continue
                budget[0] -= indptr[u + 1] - indptr[u]
                d2, g2, e2 = _best_move(indptr, indices, w, vw, parts, pw, members, bound, conn, seen, touched, table,
                                        valid, u, False)
                if e2 > 0.0 and d2 >= 0:
                    dest[u] = d2
                    gain[u] = g2
                _place(heap, hg, hk, sizes, pos, u, g2, key[u], e2 > 0.0 and d2 >= 0)
            over = _overloads(pw, bound)
            if over < b_over or (over == b_over and cut < b_cut):
                b_over, b_cut, kept, since = over, cut, count, 0
            else:
                since += 1
        for i in range(count - 1, kept - 1, -1):  # roll back to the search's best prefix
            _shift(indptr, indices, w, table, valid, parts, pw, members, vw, moves[i], froms[i])
        cut = b_cut
        total += kept - first
        for i in range(sizes[0]):
            pos[heap[i]] = -1
        sizes[0] = 0
    for i in range(count):
        locked[moves[i]] = False
    _renew_boundary(indptr, indices, w, parts, table, valid, moves, froms, count, boundary, count_boundary, stamp,
                    listing)
    return cut, total


@numba.njit(cache=True, inline="always")
def _best_move(indptr, indices, w, vw, parts, pw, members, bound, conn, seen, touched, table, valid, v, anywhere):
    """(dest, gain, external weight) of v: the part q ≠ parts(v) with room for v (``pw(q) +
    vw(v) <= bound``) of largest ``conn(v, q)``, ties to the lower q; with ``anywhere``,
    failing a neighbouring part, the lightest part with room (conn 0). dest -1: none, also
    when v is the last vertex of its part (no part is emptied).

    With a ``table`` (n rows, else none), ``table(v, q) = conn(v, q)``: v's row is summed
    when not ``valid(v)``, then kept up to date at each neighbour's move (:func:`_shift`).
    That gives the same numbers as summing v's edges each time only when every order of the
    sums does (whole edge weights, :meth:`~gbgraph.algorithms.refine_fm.HostGraph.whole`),
    and ``conn(v, q) > 0`` tells the neighbouring parts only when the weights are positive:
    ``kway_fm`` keeps a table for those alone. Both ways are written as loops that run zero
    times when not taken, not as branches: an array used in a branch alone kept its reference
    counts (two atomic operations at each call) in every inlined copy, and the kernels ran
    2-3 times slower."""
    own = parts[v]
    tabled = table.shape[0] > 0
    count = 0
    inside = 0.0
    ext = 0.0
    scan = not (tabled and valid[v])  # (as _sum_row, written out: inlined, it kept the reference counts)
    for q in range(pw.size if tabled and scan else 0):
        table[v, q] = 0.0
    for t in range(indptr[v], indptr[v + 1] if scan else indptr[v]):
        u = indices[t]
        if u == v:
            continue
        q = parts[u]
        if tabled:
            table[v, q] += w[t]
        elif q == own:
            inside += w[t]
        else:
            ext += w[t]
            if not seen[q]:
                seen[q] = True
                touched[count] = q
                count += 1
            conn[q] += w[t]
    valid[v] = tabled
    best = -1
    top = 0.0
    last = members[own] <= 1
    if tabled:
        inside = table[v, own]
    for q in range(pw.size if tabled else 0):  # in increasing q: a tie keeps the lower part
        c = table[v, q]
        if q != own and c > 0.0:
            ext += c
            if not last and pw[q] + vw[v] <= bound and (best < 0 or c > top):
                best = q
                top = c
    for i in range(count):
        q = touched[i]
        if not last and pw[q] + vw[v] <= bound and (best < 0 or conn[q] > top or (conn[q] == top and q < best)):
            best = q
            top = conn[q]
        conn[q] = 0.0
        seen[q] = False
    if best < 0 and anywhere and not last:
        for q in range(pw.size):
            if q != own and pw[q] + vw[v] <= bound and (best < 0 or pw[q] < pw[best]):
                best = q
    return best, top - inside, ext


@numba.njit(cache=True, inline="always")
def _overloads(pw, bound):
    total = 0.0
    for q in range(pw.size):
        total += max(pw[q] - bound, 0.0)
    return total


@numba.njit(cache=True)
def _kway_pass(indptr, indices, w, vw, key, parts, pw, members, bound, cut, limit, long_row, heap, hg, hk, pos,
               dest, gain, locked, moves, froms, conn, seen, touched, table, valid, boundary, count_boundary, stamp,
               listing):
    """One k-way FM pass over the boundary; returns (cut, moves kept). Moves after the best
    prefix (least overload, then cut) are undone. A vertex's destination and gain are
    recomputed when a neighbour moves, and checked against the parts' room when it reaches
    the top of the heap. The boundary (sorted, :func:`_find_boundary`) is kept up to date for
    the next pass (:func:`_renew_boundary`)."""
    sizes = np.zeros(1, np.int64)
    for i in range(count_boundary[0]):
        v = boundary[i]
        d, g, e = _best_move(indptr, indices, w, vw, parts, pw, members, bound, conn, seen, touched, table, valid, v,
                             False)
        if e > 0.0 and d >= 0:
            dest[v] = d
            gain[v] = g
            heap[sizes[0]], hg[sizes[0]], hk[sizes[0]], pos[v] = v, g, key[v], sizes[0]
            sizes[0] += 1
    _heapify(heap, hg, hk, sizes[0], pos)
    b_over, b_cut = _overloads(pw, bound), cut
    kept, count, since = 0, 0, 0
    while since < limit and sizes[0] > 0:
        v, g = _take_top(indptr, indices, w, vw, key, parts, pw, members, bound, conn, seen, touched, table, valid,
                         heap, hg, hk, sizes, pos, dest, gain, False)
        if v < 0:
            continue
        locked[v] = True
        moves[count] = v
        froms[count] = parts[v]
        count += 1
        _shift(indptr, indices, w, table, valid, parts, pw, members, vw, v, dest[v])
        cut -= g
        for t in range(indptr[v], indptr[v + 1]):
            u = indices[t]
            if u == v or locked[u] or indptr[u + 1] - indptr[u] > long_row:
                continue  # a long row keeps its heap entry, checked when it comes to the top
            d2, g2, e2 = _best_move(indptr, indices, w, vw, parts, pw, members, bound, conn, seen, touched, table,
                                    valid, u, False)
            if e2 > 0.0 and d2 >= 0:
                dest[u] = d2
                gain[u] = g2
            _place(heap, hg, hk, sizes, pos, u, g2, key[u], e2 > 0.0 and d2 >= 0)
        over = _overloads(pw, bound)
        if over < b_over or (over == b_over and cut < b_cut):
            b_over, b_cut, kept, since = over, cut, count, 0
        else:
            since += 1
    for i in range(count - 1, kept - 1, -1):  # roll back to the best prefix
        _shift(indptr, indices, w, table, valid, parts, pw, members, vw, moves[i], froms[i])
    for i in range(sizes[0]):
        pos[heap[i]] = -1
    for i in range(count):
        locked[moves[i]] = False
    _renew_boundary(indptr, indices, w, parts, table, valid, moves, froms, count, boundary, count_boundary, stamp,
                    listing)
    return b_cut, kept


@numba.njit(cache=True)
def _renew_boundary(indptr, indices, w, parts, table, valid, moves, froms, count, boundary, count_boundary, stamp,
                    listing):
    """The boundary (vertices with an edge of weight > 0 to another part, sorted) after a pass
    whose ``count`` moves, rolled back or not, are ``moves`` from the parts ``froms`` (each
    vertex moved once at most): only the vertices that stayed moved (``parts(v) ≠ froms``) and
    their neighbours are looked at again (a kept row of the table, :func:`_best_move`, in
    place of the vertex's edges), the rolled-back moves changed nothing; the others keep their
    place. ``stamp`` is False again at the end."""
    touched = 0
    for i in range(count):
        v = moves[i]
        if parts[v] == froms[i]:
            continue
        for t in range(indptr[v], indptr[v + 1] + 1):
            u = indices[t] if t < indptr[v + 1] else v
            if not stamp[u]:
                stamp[u] = True
                listing[touched] = u
                touched += 1
    kept = 0
    for i in range(count_boundary[0]):  # the untouched boundary, in order, compacted in place
        if not stamp[boundary[i]]:
            boundary[kept] = boundary[i]
            kept += 1
    fresh = 0
    for i in range(touched):
        u = listing[i]
        stamp[u] = False
        own = parts[u]
        on = False
        for q in range(table.shape[1] if valid[u] else 0):  # (loops, not branches: see _best_move)
            if q != own and table[u, q] > 0.0:
                on = True
                break
        for t in range(indptr[u], indptr[u] if valid[u] else indptr[u + 1]):
            if parts[indices[t]] != own and w[t] > 0.0:
                on = True
                break
        if on:
            listing[fresh] = u
            fresh += 1
    listing[:fresh].sort()
    i, j = kept - 1, fresh - 1
    for o in range(kept + fresh - 1, -1, -1):  # merge from the back: the two sets are disjoint
        if j < 0 or (i >= 0 and boundary[i] > listing[j]):
            boundary[o] = boundary[i]
            i -= 1
        else:
            boundary[o] = listing[j]
            j -= 1
    count_boundary[0] = kept + fresh


@numba.njit(cache=True)
def _kway_rebalance(indptr, indices, w, vw, key, parts, pw, members, bound, cut, heap, hg, hk, pos, dest, gain, locked,
                    moves, froms, conn, seen, touched, table, valid):
    """Vertices of the overweight parts to parts with room, least loss per weight first
    (the most connected part with room, else the lightest), until no part is over or none
    can move. Returns the cut."""
    n = parts.size
    sizes = np.zeros(1, np.int64)
    for v in range(n):
        if pw[parts[v]] > bound:
            d, g, e = _best_move(indptr, indices, w, vw, parts, pw, members, bound, conn, seen, touched, table, valid,
                                 v, True)
            if d >= 0:
                dest[v] = d
                gain[v] = g / max(vw[v], 1e-300)
                heap[sizes[0]], hg[sizes[0]], hk[sizes[0]], pos[v] = v, gain[v], key[v], sizes[0]
                sizes[0] += 1
    _heapify(heap, hg, hk, sizes[0], pos)
    while sizes[0] > 0:
        v, g = _take_top(indptr, indices, w, vw, key, parts, pw, members, bound, conn, seen, touched, table, valid,
                         heap, hg, hk, sizes, pos, dest, gain, True)
        if v < 0:
            continue
        _shift(indptr, indices, w, table, valid, parts, pw, members, vw, v, dest[v])
        cut -= g
        for t in range(indptr[v], indptr[v + 1]):  # the waiting neighbours' losses changed
            u = indices[t]
            if pos[u] >= 0:
                d2, g2, e2 = _best_move(indptr, indices, w, vw, parts, pw, members, bound, conn, seen, touched, table,
                                        valid, u, True)
                if d2 >= 0:
                    dest[u] = d2
                    gain[u] = g2 / max(vw[u], 1e-300)
                _place(heap, hg, hk, sizes, pos, u, gain[u], key[u], d2 >= 0)
    for i in range(sizes[0]):
        pos[heap[i]] = -1
    return cut


@numba.njit(cache=True, inline="always")
def _take_top(indptr, indices, w, vw, key, parts, pw, members, bound, conn, seen, touched, table, valid, heap, hg, hk,
              sizes, pos, dest, gain, rebalancing):
    """The heap's top vertex and its gain when its move still holds, taken off the heap; (-1,
    0) when it was dropped (no destination, not on the boundary, or, ``rebalancing``, its part
    no longer over) or ranked anew (a part filled up since). Rebalancing ranks by gain per
    vertex weight."""
    v = heap[0]
    d, g, e = _best_move(indptr, indices, w, vw, parts, pw, members, bound, conn, seen, touched, table, valid, v,
                         rebalancing)
    dropped = d < 0 or (pw[parts[v]] <= bound if rebalancing else e <= 0.0)
    score = g / max(vw[v], 1e-300) if rebalancing else g
    anew = not dropped and (d != dest[v] or score != gain[v])
    dest[v] = d if anew else dest[v]  # (not in a branch: see _best_move)
    gain[v] = score if anew else gain[v]
    _place(heap, hg, hk, sizes, pos, v, score, key[v], anew)
    return (-1, 0.0) if dropped or anew else (v, g)


@numba.njit(cache=True, inline="always")
def _shift(indptr, indices, w, table, valid, parts, pw, members, vw, v, d):
    """v into part d, its old part's and d's weight and count updated, and, with a table
    (:func:`_best_move`), the kept rows of v's neighbours."""
    a = parts[v]
    parts[v] = d
    pw[a] -= vw[v]
    pw[d] += vw[v]
    members[a] -= 1
    members[d] += 1
    for t in range(indptr[v], indptr[v + 1] if table.shape[0] > 0 else indptr[v]):
        u = indices[t]
        if u != v and valid[u]:
            table[u, a] -= w[t]
            table[u, d] += w[t]

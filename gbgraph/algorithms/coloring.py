"""Vertex colorings as semiring rounds: Jones-Plassmann, Che et al.'s hybrid, first-fit, MIS.

Every method repeats one round: the uncolored vertices whose priority beats every uncolored
vertex within reach (``m<U> = A ⊕max.second key``; win where ``key > m``) are colored
together, then leave. Che et al.'s Algorithm 1 [1]_ gives each round's winners one new
color; the first-fit method gives each winner the smallest color absent from its
neighbourhood (Jones and Plassmann's rule [2]_). Priorities are the project's hash (see
``docs/coloring.md``), so every result is the same on every run, thread count and backend.
Line numbers ``l.N`` count the lines of the paper's listing from its ``procedure`` line.
"""

from dataclasses import dataclass

from .. import backends
from ..errors import StallError
from ..graph import as_graph
from .hashing import Packing
from .mis import _positive

__all__ = ["ColoringResult", "color", "METHODS", "PRIORITIES"]

#: The coloring methods of :func:`color`.
METHODS = ("greedy", "jones_plassmann", "hybrid", "mis")
#: The vertex orders of the Jones-Plassmann methods (``priority=``).
PRIORITIES = ("random", "largest_degree")
_WORD = 64  # colors per bitset word of the first-fit rule


@dataclass(frozen=True)
class ColoringResult:
    """A vertex coloring and the number of rounds that found it.

    Attributes
    ----------
    colors : array
        int64 color of each vertex, ``0 .. n_colors - 1`` (numpy on CPU backends).
    n_colors : int
        Number of colors used; every value below it occurs.
    iterations : int
        Semiring rounds: one per Jones-Plassmann round, or per MIS round for ``"mis"``.
    """

    colors: object
    n_colors: int
    iterations: int

    def __repr__(self):
        return f"ColoringResult(n={len(self.colors):,}, n_colors={self.n_colors}, iterations={self.iterations})"


def color(A, method="greedy", distance=1, backend=None, *, priority="random", seed=0,
          degree_rounds=None, max_iter=None):
    """Deterministic vertex coloring by rounds of masked semiring products.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its pattern must be symmetric.
    method : {"greedy", "jones_plassmann", "hybrid", "mis"}
        ``"greedy"``: Jones-Plassmann order with first-fit colors: each round's winners take
        the smallest color that no colored vertex within ``distance`` has, which is the
        coloring sequential greedy gives when it visits vertices by decreasing priority.
        ``"jones_plassmann"``: [1]_ Algorithm 1, the winners of round r take color r.
        ``"hybrid"``: [1]_ Algorithm 3, degree-based rounds (a vertex wins if its degree is
        larger than every uncolored neighbour's) until one colors nothing or
        ``degree_rounds`` have run, then random rounds; each non-empty round adds a color.
        ``"mis"``: each color is a maximal independent set of the uncolored vertices,
        found by random-permutation MIS rounds with ECL-MIS priorities [3]_ (lower degree
        in the uncolored subgraph first).
    distance : {1, 2}
        2 colors vertices within two edges differently (``"greedy"`` and
        ``"jones_plassmann"``), over closed neighbourhoods.
    backend : str or Backend, optional
        ``"suitesparse"`` (default).
    priority : {"random", "largest_degree"}
        Vertex order of ``"greedy"`` and ``"jones_plassmann"``: the hash alone, or larger
        degree first with the hash breaking ties (Welsh and Powell's order).
    seed : int
        Shifts the hash: another seed gives another, equally deterministic, order.
    degree_rounds : int, optional
        ``"hybrid"`` only: most degree-based rounds before the switch to random ones (Che
        et al.'s threshold ``thr``). None: switch only after a round that colors nothing.
    max_iter : int, optional
        Most rounds. The default, ``n + 1``, is never reached: each round colors at least
        the uncolored vertex of highest priority, and the hybrid wastes at most one round.

    Returns
    -------
    ColoringResult
        ``colors`` (int64, length n), ``n_colors`` and ``iterations``.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.
    ValueError
        for an unknown ``method`` or ``priority``, a ``distance`` other than 1 or 2 (or 2
        with ``"hybrid"`` or ``"mis"``), an option the method does not take, a negative
        ``seed`` or ``degree_rounds``, a bad ``max_iter``, or a graph too large for the
        degree-led 64-bit priorities.
    StallError
        if ``max_iter`` rounds leave vertices uncolored (the message says how many).

    Notes
    -----
    A round is one masked ``max_second`` product over the uncolored rows (two products over
    closed neighbourhoods for distance 2) and a few passes over the uncolored vertices;
    first-fit adds a row gather of the winners and a bitwise-or reduction of their
    neighbours' color bits, 64 colors per word (``docs/coloring.md`` explains why the
    reduction is array code and not a ``bor`` semiring). Rounds: the depth of the
    priority order, O(log n / log log n) for bounded degree and random priorities [2]_.

    References
    ----------
    .. [1] S. Che, G. Rodgers, B. Beckmann and S. Reinhardt, "Graph coloring on the GPU
       and some techniques to improve load imbalance," IPDPSW 2015, pp. 610-617.
       https://doi.org/10.1109/IPDPSW.2015.74
    .. [2] M. T. Jones and P. E. Plassmann, "A parallel graph coloring heuristic," SIAM J.
       Sci. Comput. 14(3), 1993, pp. 654-669. https://doi.org/10.1137/0914041
    .. [3] M. Burtscher, S. Devale, S. Azimi, J. Jaiganesh and E. Powers, "A high-quality
       and fast maximal independent set implementation for GPUs," ACM Trans. Parallel
       Comput. 5(2), 2018. https://doi.org/10.1145/3291525

    Examples
    --------
    >>> import gbgraph as gg
    >>> A = gg.generators.laplace3d(10)
    >>> c = gg.color(A)
    >>> c.n_colors <= 7, gg.validate.is_coloring(A, c.colors)
    (True, True)
    >>> gg.validate.is_coloring(A, gg.color(A, distance=2).colors, distance=2)
    True
    """
    graph = as_graph(A, weights=False)
    be = backends.backend(backend)
    _check_options(method, distance, priority, seed, degree_rounds)
    max_iter = graph.n + 1 if max_iter is None else _positive(max_iter)
    if graph.n == 0:
        return ColoringResult(be.xp.empty(0, be.xp.int64), 0, 0)
    keys = _Keys(be, graph, seed)
    if method == "mis":
        return _mis_peeling(be, graph, keys, max_iter)
    if method == "hybrid":
        return _hybrid(be, graph, keys, degree_rounds, max_iter)
    first_fit = method == "greedy"
    return _jones_plassmann(be, graph, keys, distance, priority, first_fit, max_iter)


def _check_options(method, distance, priority, seed, degree_rounds):
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    if distance not in (1, 2) or isinstance(distance, bool):
        raise ValueError(f"distance must be 1 or 2, got {distance!r}")
    if distance == 2 and method not in ("greedy", "jones_plassmann"):
        raise ValueError(f"distance=2 is available for 'greedy' and 'jones_plassmann', not {method!r}")
    if priority not in PRIORITIES:
        raise ValueError(f"unknown priority {priority!r}; expected one of {', '.join(PRIORITIES)}")
    if priority != "random" and method not in ("greedy", "jones_plassmann"):
        raise ValueError(f"priority={priority!r} is for 'greedy' and 'jones_plassmann'; {method!r} "
                         "fixes its own order")
    if degree_rounds is not None and method != "hybrid":
        raise ValueError(f"degree_rounds is a 'hybrid' option, got it with method {method!r}")
    for name, value in (("seed", seed), ("degree_rounds", degree_rounds)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < 0):
            raise ValueError(f"{name} must be a non-negative integer, got {value!r}")


class _Keys:
    """Packed 64-bit priorities: unique, at least 1, larger wins (docs/coloring.md).

    ``random(ids)`` is ``h_i << nv | (i + 1)``, with ``h_i`` the hash of (i, seed) that
    :class:`~gbgraph.algorithms.hashing.Packing` computes. ``led(ids, field, bits)`` puts a
    ``bits``-wide field above it, keeping the hash's top bits: ``field << (64 - bits) |
    (h_i >> bits) << nv | (i + 1)``; comparing keys then compares fields first.
    """

    def __init__(self, be, graph, seed):
        self.be, self.xp, self.n, self.seed = be, be.xp, graph.n, seed
        self.nv = (graph.n + 1).bit_length()
        self._packing = Packing(graph.n, 64, be.xp)
        degrees = self.xp.diff(self.xp.asarray(graph.indptr))
        self.degrees = degrees.astype(self.xp.uint64)
        self.degree_bits = max(1, int(degrees.max()).bit_length())

    def random(self, ids):
        return self._packing(ids, self.seed)

    def led(self, ids, field, bits):
        """Keys ordered by ``field`` (uint64 values below ``2**bits``), then by the hash."""
        if bits + self.nv > 64:
            raise ValueError(f"degree-led priorities need bit_length(max degree) + bit_length(n + 1) "
                             f"<= 64; the graph has {bits} + {self.nv}")
        u = self.xp.uint64
        key = self._packing(ids, self.seed)
        low = key & u((1 << self.nv) - 1)
        key >>= u(self.nv + bits)
        key <<= u(self.nv)
        key |= low
        key |= field.astype(u) << u(64 - bits)
        return key

    def field_mask(self, bits):
        """The bits below a ``bits``-wide field: ``key > (m | mask)`` compares fields only."""
        return (1 << (64 - bits)) - 1

    def vector(self, ids, values):
        """The vertices ``ids`` holding their keys; the vector takes both arrays over."""
        return self.be.vector(ids, values, self.n, copy=False)


def _jones_plassmann(be, graph, keys, distance, priority, first_fit, max_iter):
    """[1] Algorithm 1 rounds; first-fit (``greedy``) or one new color per round.

    ``U`` holds the keys of the uncolored vertices and ``key`` every vertex's key, 0 once
    colored (below every key), so one product over ``key`` sees the uncolored only.
    """
    A = be.adjacency(graph, closed=distance == 2)
    ids = be.xp.arange(graph.n, dtype=be.xp.int64)
    if priority == "largest_degree":
        values = keys.led(ids, keys.degrees, keys.degree_bits)
    else:
        values = keys.random(ids)
    U, key = keys.vector(ids.copy(), values.copy()), keys.vector(ids, values)
    colors = be.xp.full(graph.n, -1, be.xp.int64)
    rounds = 0
    while be.nvals(U):
        _check_progress(rounds, max_iter, be.nvals(U), graph.n)
        F, U = _round(be, A, U, key, distance)
        won = be.indices(F)
        colors[won] = _first_fit(be, A, won, colors, distance) if first_fit else rounds
        rounds += 1
    return _result(be, colors, rounds)


def _hybrid(be, graph, keys, degree_rounds, max_iter):
    """[1] Algorithm 3: DEGREECOLORING rounds, then BASECOLORING rounds (HYBRID, l.28-37).

    In the degree phase the keys lead with the vertex degree (PRECOMPUTE, l.29) and a
    vertex wins only if its degree is larger than every uncolored neighbour's (l.8-9,
    l.20-24: equal degrees block each other); the hash below the degree only identifies
    keys. An empty round, or ``degree_rounds`` rounds, switch every uncolored vertex to its
    random key for good.
    """
    A = be.adjacency(graph)
    ids = be.xp.arange(graph.n, dtype=be.xp.int64)
    values = keys.led(ids, keys.degrees, keys.degree_bits)
    U, key = keys.vector(ids.copy(), values.copy()), keys.vector(ids, values)
    field = keys.field_mask(keys.degree_bits)
    colors = be.xp.full(graph.n, -1, be.xp.int64)
    rounds = n_colors = 0
    while be.nvals(U):
        _check_progress(rounds, max_iter, be.nvals(U), graph.n)
        if field and degree_rounds == rounds:
            U, field = _switch_to_random(be, keys, U, key), 0
        F, U = _round(be, A, U, key, 1, field)
        won = be.indices(F)
        rounds += 1
        if won.size:
            colors[won] = n_colors
            n_colors += 1
        elif field:
            U, field = _switch_to_random(be, keys, U, key), 0
    return _result(be, colors, rounds)


def _switch_to_random(be, keys, U, key):
    """``U = key<U> = random keys``: the uncolored vertices leave the degree order (l.30-34)."""
    ids = be.indices(U)
    R = keys.vector(ids, keys.random(ids))
    be.assign(key, R, mask=R)
    return R


def _round(be, A, U, key, distance, field=0):
    """One round: ``F`` (winners, a boolean vector) and the next ``U``; colors nothing.

    ``m<U> = A ⊕max.second key`` is the largest key of an uncolored neighbour ([1] Alg. 1
    l.2-15; distance 2: ``m<U> = A ⊕max.second (A ⊕max.second key)`` over closed
    neighbourhoods, which include v itself). A vertex wins if its key is larger (l.16-19;
    for distance 2: equal), comparing only the leading field when ``field`` masks the bits
    below it. Winners leave: ``key<F> = 0``.
    """
    m = _reach_max(be, A, key, U, distance)
    if field:
        m = be.apply("bor", m, right=field)  # m = m | field: ignore the bits below the field
    # wins<U> = U > m (U ≥ m for distance 2); rows with no neighbour have no m: they win
    wins = be.ewise_add("gt" if distance == 1 else "ge", U, m)
    F = be.select("valueeq", wins, True)
    be.assign(key, 0, mask=F)  # key<F> = 0: colored vertices never win or block again
    # U<¬wins> = U: the losers stay uncolored
    return F, be.apply("identity", U, mask=wins, structure=False, complement=True)


def _reach_max(be, A, key, U, distance):
    """``m<U>``: the largest key within ``distance`` (open for 1, closed for 2)."""
    if distance == 2:
        key = be.mxv("max_second", A, key)  # w = A ⊕max.second key over N[w]
    return be.mxv("max_second", A, key, mask=U)  # m<U> = A ⊕max.second key


def _first_fit(be, A, won, colors, distance):
    """Smallest color absent within ``distance`` of each winner: Jones-Plassmann's rule.

    ``R = A(won, :)`` (distance 2: ``R = A(won, :) ⊕any.pair A``, closed) lists the
    vertices in reach; the colors they hold become bits, 64 per word, and a bitwise-or
    reduction of each row (``⊕bor``) gives the forbidden set. Vertices whose 64 colors of
    a word are all forbidden move on to the next word.
    """
    xp = be.xp
    R = be.extract(A, won)  # R = A(won, :)
    if distance == 2:
        R = be.mxm("any_pair", R, A)  # R = A(won, :) ⊕any.pair A: the closed 2-hop reach
    indptr, indices, _ = be.to_csr(R)
    seen = colors[indices]
    del R, indices
    chosen = xp.full(won.size, -1, xp.int64)
    top = int(seen.max()) + 1 if seen.size else 0  # no row can forbid a color above top
    for base in range(0, top + 1, _WORD):
        free = ~_forbidden_bits(xp, seen - base, indptr)
        found = (chosen < 0) & (free != 0)
        chosen[found] = base + _lowest_bit(xp, free[found])
        if bool((chosen >= 0).all()):
            break
    return chosen


def _forbidden_bits(xp, seen, indptr):
    """Row-wise bitwise or of ``1 << seen`` over the entries with ``0 <= seen < 64``."""
    inside = (seen >= 0) & (seen < _WORD)
    bits = xp.where(inside, xp.left_shift(xp.uint64(1), xp.where(inside, seen, 0).astype(xp.uint64)),
                    xp.uint64(0))
    bits = xp.concatenate((bits, xp.zeros(1, xp.uint64)))  # a sentinel keeps every start in range
    starts = indptr[:-1]
    forbidden = xp.bitwise_or.reduceat(bits, starts)
    return xp.where(indptr[1:] > starts, forbidden, xp.uint64(0))  # reduceat reads empty rows


def _lowest_bit(xp, words):
    """Index of the lowest set bit of each nonzero uint64 word."""
    lowest = words & (~words + xp.uint64(1))  # w & -w: a power of two, exact in float64
    return xp.frexp(lowest.astype(xp.float64))[1].astype(xp.int64) - 1


def _mis_peeling(be, graph, keys, max_iter):
    """Color k is a maximal independent set of the still uncolored vertices.

    Each set is found by rounds of the random-permutation MIS ([3] section 2): an
    undecided vertex whose key beats every undecided neighbour joins, its neighbours leave.
    Keys follow ECL-MIS's order (section 3): smaller degree in the uncolored subgraph first,
    the hash among equal degrees, without ECL-MIS's 8-bit rounding of the priority.
    """
    A = be.adjacency(graph)
    W = be.vector(be.xp.arange(graph.n, dtype=be.xp.int64), be.xp.uint64(1), graph.n)
    colors = be.xp.full(graph.n, -1, be.xp.int64)
    rounds = n_colors = 0
    while be.nvals(W):
        D = _ecl_keys(be, A, W, keys)
        members, rounds = _mis1(be, A, D, rounds, max_iter, graph.n)
        colors[be.indices(members)] = n_colors
        n_colors += 1
        W = be.apply("identity", W, mask=members, complement=True)  # W<¬members> = W
    return _result(be, colors, rounds)


def _ecl_keys(be, A, W, keys):
    """``D``: the vertices of ``W`` keyed by (max degree - degree in W, hash, id)."""
    degree = be.mxv("plus_pair", A, W, mask=W)  # d<W> = A ⊕plus.pair W
    degree = be.ewise_add("plus", degree, be.apply("times", W, right=0))  # d<W> += 0: isolated in W
    ids = be.indices(degree)
    field = keys.degrees.max() - be.values(degree).astype(be.xp.uint64)
    return keys.vector(ids, keys.led(ids, field, keys.degree_bits))


def _mis1(be, A, D, rounds, max_iter, n):
    """Random-permutation MIS of the vertices of ``D`` (their keys), in rounds."""
    key = be.apply("identity", D)
    members = None
    while be.nvals(D):
        _check_progress(rounds, max_iter, be.nvals(D), n)
        joined, D = _round(be, A, D, key, 1)
        members = joined if members is None else be.ewise_add("lor", members, joined)
        D = _leave(be, A, D, key, joined)
        rounds += 1
    return members, rounds


def _leave(be, A, D, key, joined):
    """Neighbours of the new members leave the undecided set ``D``."""
    out = be.mxv("any_pair", A, joined, mask=D)  # out<D> = A ⊕any.pair joined
    be.assign(key, 0, mask=out)  # key<out> = 0
    return be.apply("identity", D, mask=out, complement=True)  # D<¬out> = D


def _check_progress(rounds, max_iter, left, n):
    if rounds == max_iter:
        raise StallError(f"color: {left:,} of {n:,} vertices uncolored after max_iter={max_iter} rounds")


def _result(be, colors, rounds):
    return ColoringResult(colors, int(colors.max()) + 1, rounds)

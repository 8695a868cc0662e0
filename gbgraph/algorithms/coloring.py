"""Vertex colorings as semiring rounds: Jones-Plassmann, Che et al.'s hybrid, first-fit, MIS.

Every method repeats one round: the uncolored vertices whose priority beats every uncolored
vertex within reach (``m<U> = A ⊕max.second key``; win where ``key > m``) are colored
together, then leave. Che et al.'s Algorithm 1 [1]_ gives each round's winners one new
color; the first-fit method gives each winner the smallest color absent from its
neighbourhood (Jones and Plassmann's rule [2]_), and the sequential method runs Jones and
Plassmann's rounds with first fit, which is sequential greedy coloring in priority order
(networkx's ``greedy_color``). Priorities are the project's hash (see
``docs/coloring.md``), so every result is the same on every run, thread count and backend.
Line numbers ``l.N`` count the lines of the paper's listing from its ``procedure`` line.
"""


import numpy as np

from .. import backends
from .._checks import check_integer
from ..backends.operators import BinaryOp, Monoid, RowOperator, Semiring, UnaryOp, local
from .._labels import labelled, node_ids
from ..errors import StallError
from ..results import ColoringResult
from ..graph import as_graph
from ..hashing import Packing
from .mis import _max_iter

__all__ = ["ColoringResult", "color", "METHODS", "PRIORITIES"]

#: The coloring methods of :func:`color`.
METHODS = ("greedy", "jones_plassmann", "hybrid", "mis", "sequential")
#: The methods whose vertex order ``priority=`` chooses.
_ORDERED = ("greedy", "jones_plassmann", "sequential")
#: The vertex orders of the Jones-Plassmann methods (``priority=``).
PRIORITIES = ("random", "largest_degree")
#: A round that colors under 1/_TAIL of the vertices left hands over to the dense-subgraph finish.
_TAIL = 32
#: Rows whose first round guesses whether it colors few (:func:`_few_maxima_guessed`).
_SAMPLE = 1024
#: Rounds over fewer than 1/_SCATTERED of the rows read a key only for a same-color column.
_SCATTERED = 8
_SEEDS = 2**63  # seeds reach the cupy hash kernel as a signed 64-bit round number


# ---- the operators of the rounds (restricted Python: gbgraph.backends.operators) ---------
# A color below 0 (the fill of absent entries) stands for no color. Colors are looked up 64
# at a time: a word holds bit c - base for each color c of base..base + 63 met.
# The loops over a row read its positions and columns as unsigned integers: numba wraps a
# negative signed index, a test per read in the loop's body, which costs the short loop
# about as much as its work (numba, one thread: Elasticity3D 40³'s rows of 77 entries, a
# first-fit sweep in index order 17 -> 8 ms, in class order 20 -> 15; Laplace3D 100³'s
# contests and first fits a fifth faster). The values are the same.


def _window(start, stop, cols, colors, base):
    """The colors base..base + 63 that the columns ``cols[start:stop]`` hold, as a bit word."""
    word = np.uint64(0)
    for p in range(np.uint64(start), np.uint64(stop)):
        offset = colors[np.uint64(cols[p])] - base
        if offset >= 0 and offset < 64:
            word |= np.uint64(1) << np.uint64(offset)
    return word


def _lowest_zero(word):
    """The index of the lowest bit not set in ``word`` (which is not all ones): the number
    of ones below it, counted without a branch (a loop over the bits mispredicts its exit
    once a row, which cost first fit half its time)."""
    x = (~word & (word + np.uint64(1))) - np.uint64(1)  # the ones below the lowest zero
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


def _smallest_free(start, stop, cols, colors):
    """The smallest color >= 0 that no column of ``cols[start:stop]`` holds: in the first
    window of 64 colors (most rows), else window after window of ``WORDS`` words, so that
    a row reaching c colors reads its entries about c / (64 WORDS) times, not c / 64 (a
    clique's in-order pass). A row reaches at most its length of colors: the loop ends."""
    word = _window(start, stop, cols, colors, 0)
    if ~word != np.uint64(0):
        return _lowest_zero(word)
    words = local(WORDS, np.uint64)  # noqa: F821 (WORDS: a constant of the operator, _WIDE)
    found = -1
    base = 64
    while found < 0:
        for k in range(WORDS):
            words[k] = np.uint64(0)
        for p in range(np.uint64(start), np.uint64(stop)):
            offset = colors[np.uint64(cols[p])] - base
            if offset >= 0 and offset < 64 * WORDS:
                words[offset >> 6] |= np.uint64(1) << np.uint64(offset & 63)
        k = 0
        while k < WORDS and found < 0:
            if ~words[k] != np.uint64(0):
                found = base + 64 * k + _lowest_zero(words[k])
            k += 1
        base += 64 * WORDS
    return found


def _first_fit(i, start, stop, cols, vals, colors):
    """First fit: the smallest color that no column of row i holds."""
    return _smallest_free(start, stop, cols, colors), True


def _due(i, start, stop, cols, values, position):
    """Whether row i takes its value now: it has none yet (``values`` below 0) and every
    column placed before it (``position`` >= 0 and lower) has its own."""
    if values[i] >= 0:
        return False
    at = position[i]
    for p in range(np.uint64(start), np.uint64(stop)):
        before = position[np.uint64(cols[p])]
        if before >= 0 and before < at and values[np.uint64(cols[p])] < 0:
            return False
    return True


def _first_fit_when_ready(i, start, stop, cols, vals, colors, position):
    """First fit of row i once every column placed before it has a color; no entry while
    one has none, or once row i has its own."""
    if not _due(i, start, stop, cols, colors, position):
        return 0, False
    return _smallest_free(start, stop, cols, colors), True


def _deepest(start, stop, names, depth):
    """1 + the largest depth among the entries ``names[start:stop]`` name (-1: none yet)."""
    d = 0
    for p in range(np.uint64(start), np.uint64(stop)):
        d = max(d, depth[np.uint64(names[p])] + 1)
    return d


def _chain_depth(i, start, stop, cols, vals, depth):
    """Jones and Plassmann's depth: 1 + the largest depth among the columns (-1: none yet)."""
    return _deepest(start, stop, cols, depth), True


def _chain_depth_when_ready(i, start, stop, cols, vals, depth, position):
    """:func:`_chain_depth` of row i once every column placed before it has its depth."""
    if not _due(i, start, stop, cols, depth, position):
        return 0, False
    return _deepest(start, stop, cols, depth), True


def _same_group_won(i, start, stop, cols, vals, keys, groups):
    """The group of i, unless a column in the same group has a larger key (or i is in no
    group: below 0): a speculative round's color, kept by priority. The row is read to its
    end without a branch on the columns' groups, which the early rounds mispredict."""
    g = groups[i]
    if g < 0:
        return g, False
    key = keys[i]
    beaten = False
    for p in range(np.uint64(start), np.uint64(stop)):
        j = np.uint64(cols[p])
        beaten |= (groups[j] == g) & (keys[j] > key)
    return g, not beaten


def _same_color_lost(i, start, stop, cols, vals, keys, colors):
    """True where a column of larger key holds i's color (no entry otherwise): with the
    round's tentative colors written into ``colors``, the uncolored vertices that lose the
    round (a byte each: the next round reads them as a mask only). A colored column never
    holds an uncolored row's first fit, so only the contests of the round are seen. A short
    row is read to its end without a branch on the columns (a test per column mispredicts
    where colors repeat); one longer than ``LONG`` stops at its first rival."""
    c = colors[i]
    key = keys[i]
    if stop - start > LONG:  # noqa: F821 (LONG: a constant of the operator, _ROW)
        for p in range(np.uint64(start), np.uint64(stop)):
            j = np.uint64(cols[p])
            if colors[j] == c and keys[j] > key:
                return True, True
        return True, False
    beaten = False
    for p in range(np.uint64(start), np.uint64(stop)):
        j = np.uint64(cols[p])
        beaten |= (colors[j] == c) & (keys[j] > key)
    return True, beaten


def _larger_key_near(i, start, stop, cols, vals, keys):
    """True where a column has a larger key than i (no entry otherwise): the first round's
    contest on the host, where every tentative color is 0, reading the keys only. A row
    longer than ``LONG`` stops at the first larger key, which most rows of a dense
    neighbourhood meet early (Elasticity3D 40³'s rows of 77 entries: 21 -> 6 ms); a short one
    is read to its end without a branch per entry, which would mispredict (Laplace3D: 7 ->
    10 ms)."""
    key = keys[i]
    if stop - start > LONG:  # noqa: F821 (LONG: a constant of the operator, _ROW)
        for p in range(np.uint64(start), np.uint64(stop)):
            if keys[np.uint64(cols[p])] > key:
                return True, True
        return True, False
    top = key
    for p in range(np.uint64(start), np.uint64(stop)):
        top = max(top, keys[np.uint64(cols[p])])
    return True, top > key


def _free_bit(i, start, stop, cols, vals, words):
    """The lowest bit set in none of the words that row i's columns name, as a word: the
    first fit of i in a window of 64 colors at distance 2, where the columns are i's nets
    and ``words`` their colors; no entry when the window is full."""
    word = np.uint64(0)
    for p in range(np.uint64(start), np.uint64(stop)):
        word |= words[np.uint64(cols[p])]
    free = ~word
    return free & (~free + np.uint64(1)), free != np.uint64(0)


def _window_bit(c, base):
    """Color c as a bit of the window base..base + 63 (0 outside it, or no color)."""
    if c >= base and c < base + 64:
        return np.uint64(1) << np.uint64(c - base)
    return np.uint64(0)


def _color_of(bit, base):
    """base + the index of the bit set in ``bit`` (a power of two)."""
    c = base
    rest = bit
    while rest > np.uint64(1):
        rest >>= np.uint64(1)
        c += 1
    return c


def _hi_count(x, y):
    """The nets' summaries combined: the blocked flag (bit 63) or-ed, the largest color + 1
    (bits 32..62) the larger, the colored members (bits 0..31) added."""
    block = (x | y) & np.uint64(0x8000000000000000)
    top = max(x & np.uint64(0x7FFFFFFF00000000), y & np.uint64(0x7FFFFFFF00000000))
    return block | top | ((x & np.uint64(0xFFFFFFFF)) + (y & np.uint64(0xFFFFFFFF)))


def _as_hi_count(c):
    """A colored vertex's summary: color + 1, one member."""
    return (np.uint64(c + 1) << np.uint64(32)) | np.uint64(1)


def _full_upto(x):
    """hi where a net's summary holds exactly the colors 0..hi - 1, else 0."""
    hi = (x >> np.uint64(32)) & np.uint64(0x7FFFFFFF)
    if hi == x & np.uint64(0xFFFFFFFF):
        return np.int64(hi)
    return np.int64(0)


def _packed_color(x):
    """The color a summary pushed by :func:`_closed_fit` gives: its largest color + 1, less 1."""
    return np.int64(x >> np.uint64(32)) - 1


def _closed_fit(i, start, stop, cols, vals, nets):
    """Row i's first fit when every net of i holds exactly the colors 0..hi - 1 (as many
    colored members as its largest color + 1: the members of a net have distinct colors):
    the largest hi, pushed as (color + 1, one member); else, or when a net is blocked, the
    blocked flag, which blocks the later rows that share a net with i."""
    top = np.uint64(0)
    for p in range(np.uint64(start), np.uint64(stop)):
        x = nets[np.uint64(cols[p])]
        hi = (x >> np.uint64(32)) & np.uint64(0x7FFFFFFF)
        if x >= np.uint64(0x8000000000000000) or hi != x & np.uint64(0xFFFFFFFF):
            return np.uint64(0x8000000000000000), True
        top = max(top, hi)
    return ((top + np.uint64(1)) << np.uint64(32)) | np.uint64(1), True


#: Words of the windows after the first: 2048 colors a pass over a row.
_WIDE = {"WORDS": 32}
#: Rows longer than this stop at their first rival in the host's contests.
_ROW = {"LONG": 16}
#: ``t<U> = first_fit(A, colors)``: each row's smallest color not within reach; with
#: ``order=``, the rows one after another (sequential greedy in that order).
FIRST_FIT = RowOperator(_first_fit, fill=-1, name="first_fit", constants=_WIDE,
                        helpers=(_window, _lowest_zero, _smallest_free))
#: The first fit of the rows whose earlier rows within reach have their colors: a round of
#: the in-order pass run in parallel (Jones and Plassmann's rounds with first fit).
FIRST_FIT_WHEN_READY = RowOperator(_first_fit_when_ready, fill=-1, name="first_fit_when_ready", constants=_WIDE,
                                   helpers=(_due, _window, _lowest_zero, _smallest_free))
#: ``depth(i) = 1 + max depth(j)`` over the columns colored before i, ordered by key; at
#: distance 2 over the nets' best depths, each pushed with ``push="max"``.
CHAIN_DEPTH = RowOperator(_chain_depth, fill=-1, name="chain_depth", helpers=(_deepest,))
#: Rounds of that pass in parallel: the rows whose earlier columns have their depths.
CHAIN_DEPTH_WHEN_READY = RowOperator(_chain_depth_when_ready, fill=-1, name="chain_depth_when_ready",
                                     helpers=(_due, _deepest))
#: ``won<U> = t<¬((A ∘ [t_i = t_j]) ⊕max.second key > key)>``: the tentative colors that no
#: same-color neighbour of larger key contests, in one pass.
SAME_GROUP_WON = RowOperator(_same_group_won, fill=(0, -1), name="same_group_won")
#: ``lost<U> = [(A ∘ [c_i = c_j]) ⊕max.second key > key]``, True or no entry: the host's form
#: of the contest, on the tentative colors written into ``colors`` and every vertex's key
#: (full vectors: nothing to expand), whose result is the next round's uncolored vertices.
SAME_COLOR_LOST = RowOperator(_same_color_lost, fill=None, name="same_color_lost", constants=_ROW)
#: :data:`SAME_COLOR_LOST` stopping every row at its first rival, reading a column's key only
#: where it holds i's color: for the late rounds, whose rows are scattered (under
#: 1/``_SCATTERED`` of all), so that a key read is a cache miss (Laplace3D 100³'s round 4,
#: 48,598 rows: 3.1 -> 1.5 ms; round 3, 231,588 rows, 2.4 -> 4.1: mispredicted).
SAME_COLOR_LOST_SCATTERED = RowOperator(_same_color_lost, fill=None, name="same_color_lost_scattered",
                                        constants={"LONG": 0})
#: ``lost = [A ⊕max.second key > key]``, True or no entry: :data:`SAME_COLOR_LOST` where
#: every vertex holds color 0 (the first round on the host), without reading the colors.
LARGER_KEY_NEAR = RowOperator(_larger_key_near, fill=None, name="larger_key_near", constants=_ROW)
#: :data:`LARGER_KEY_NEAR` stopping every row at its first larger key: the maxima among a
#: sweep's 0s (:func:`_swept`), mostly short rows beside larger ones, which meet one early
#: (coAuthorsDBLP's 83,918: 1.2 -> 0.6 ms).
LARGER_KEY_FIRST = RowOperator(_larger_key_near, fill=None, name="larger_key_first", constants={"LONG": 0})
#: Distance 2, one window: ``bit<U> = lowest zero of (A ⊕bor.second netword)``; with
#: ``order=`` and ``push="bor"``, the rows one after another, each bit pushed into its nets.
FREE_BIT = RowOperator(_free_bit, fill=0, name="free_bit")
#: ``words = window_bit(colors, base)``: each color as a bit of its window, 0 outside.
WINDOW_BIT = BinaryOp(_window_bit, name="window_bit")
#: ``colors = color_of(bit, base)``: a window's bit back to its color.
COLOR_OF = BinaryOp(_color_of, name="color_of")
#: A net's summary at distance 2, packed in a uint64: blocked (bit 63), its largest color + 1
#: (bits 32..62), its colored members (bits 0..31); or, max and plus of the fields.
HI_COUNT = Monoid(_hi_count, np.uint64(0), name="hi_count")
#: ``nets = A ⊕hi_count.second summary(colors)``: each net's summary.
HI_COUNT_SECOND = Semiring(HI_COUNT, "second")
#: ``summary = as_hi_count(colors)``: a colored vertex as a net summary.
AS_HI_COUNT = UnaryOp(_as_hi_count, name="as_hi_count")
#: ``full = full_upto(nets)``: the colors 0..hi - 1 a net holds all of (0: none known).
FULL_UPTO = UnaryOp(_full_upto, name="full_upto")
#: ``colors = packed_color(fits)``: the colors of :data:`CLOSED_FIT`'s unblocked rows.
PACKED_COLOR = UnaryOp(_packed_color, name="packed_color")
#: Distance 2, in order with ``push=HI_COUNT``: the first fit of a row whose nets each hold
#: an unbroken run of colors from 0, the blocked flag otherwise (:func:`_closed_fits`).
CLOSED_FIT = RowOperator(_closed_fit, fill=0, name="closed_fit")
#: A summary's blocked flag: the values of CLOSED_FIT at or above it are rows it left.
_BLOCKED = np.uint64(0x8000000000000000)


def color(A, method="greedy", *, distance=1, backend=None, priority=None, order=None, seed=0,
          degree_rounds=None, max_iter=None):
    """Deterministic vertex coloring by rounds of masked semiring products.

    Parameters
    ----------
    A : graph
        Anything :func:`gbgraph.as_graph` accepts; its pattern must be symmetric.
    method : {"greedy", "jones_plassmann", "hybrid", "mis", "sequential"}
        ``"greedy"``: speculative first fit [4]_, made synchronous: each round every
        uncolored vertex takes the smallest color that no colored vertex within
        ``distance`` has, and keeps it unless an uncolored vertex of higher priority
        within reach took the same; dense subgraphs are finished in priority order, and a
        last pass recolors the classes, the last first (Culberson's iterated greedy [5]_,
        never more colors).
        ``"jones_plassmann"``: [1]_ Algorithm 1, the winners of round r take color r.
        ``"hybrid"``: [1]_ Algorithm 3, degree-based rounds (a vertex wins if its degree is
        larger than every uncolored neighbour's) until one colors nothing or
        ``degree_rounds`` have run, then random rounds; each non-empty round adds a color.
        ``"mis"``: each color is a maximal independent set of the uncolored vertices,
        found by random-permutation MIS rounds with ECL-MIS priorities [3]_ (lower degree
        in the uncolored subgraph first).
        ``"sequential"``: sequential greedy coloring: the vertices, in ``order`` (or by
        ``priority``), each take the smallest color that no earlier neighbour took; Jones
        and Plassmann's rounds with first fit compute it [2]_ (a vertex takes its color once
        every neighbour before it has one). In a given order it is networkx's
        ``greedy_color`` exactly (with the order of its ``"largest_first"`` strategy: ties
        by node order, a stable sort by degree).
    distance : {1, 2}
        2 colors vertices within two edges differently (``"greedy"`` and
        ``"jones_plassmann"``), over closed neighbourhoods.
    backend : str or Backend, optional
        ``"numba"``, ``"suitesparse"`` or ``"cupy"`` (the same result on each); None picks
        ``"cupy"`` for GPU input (cupyx sparse, CuPy arrays), else ``"numba"``.
    priority : {None, "random", "largest_degree"}
        Vertex order of ``"greedy"``, ``"jones_plassmann"`` and ``"sequential"``: the hash
        alone, or larger degree first with the hash breaking ties (Welsh and Powell's order,
        the parallel form of networkx's ``largest_first``). None: ``"largest_degree"`` for
        ``"greedy"`` and ``"sequential"`` (fewer colors), ``"random"`` for
        ``"jones_plassmann"`` (as [1]_).
    order : array_like of int, optional
        ``"sequential"`` only, instead of ``priority``: every vertex once, in the order of
        coloring (numpy or CuPy like the graph); for a networkx graph, its nodes (a list or
        other non-array sequence).
    seed : int
        Shifts the hash: another seed gives another, equally deterministic, order; from 0
        to 2**63 - 1 (the GPU kernel takes the round as a signed 64-bit integer).
    degree_rounds : int, optional
        ``"hybrid"`` only: most degree-based rounds before the switch to random ones (Che
        et al.'s threshold ``thr``). None: switch only after a round that colors nothing.
    max_iter : int, optional
        Most rounds (not for ``"sequential"``, one ordered pass). The default, ``n + 1``, is
        never reached: each round colors at least the uncolored vertex of highest priority,
        and the hybrid wastes at most one round.

    Returns
    -------
    ColoringResult
        ``colors`` (int64, length n; a dict node -> color for a networkx graph),
        ``n_colors`` and ``iterations``.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        for inputs :func:`gbgraph.as_graph` rejects.
    ValueError
        for an unknown ``method`` or ``priority``, a ``distance`` other than 1 or 2 (or 2
        with ``"hybrid"``, ``"mis"`` or ``"sequential"``), an option the method does not
        take, an ``order`` that is not every vertex once, a ``seed``
        outside 0..2**63 - 1, a negative ``degree_rounds``, a ``max_iter`` below 1, or a
        graph too large for the degree-led 64-bit priorities.
    TypeError
        for a ``distance``, ``seed``, ``degree_rounds`` or ``max_iter`` that is not an
        integer (numpy integers are).
    StallError
        if ``max_iter`` rounds leave vertices uncolored (the message says how many).
    MemoryError
        if the GPU runs out of memory (the message gives the graph's size).

    Notes
    -----
    A round is one masked ``max_second`` product over the uncolored rows (two products over
    closed neighbourhoods for distance 2) and a few passes over the uncolored vertices;
    first fit is a row operator (:data:`FIRST_FIT`: the colors of a row as bit words, 64
    colors per word, and the lowest bit not set), passed to ``mxv`` over the rows to color,
    or with ``order=`` for the passes in order. At distance 2 the rows are closed
    neighbourhoods, "nets" [6]_: first fit reads each net's colors as one word per window
    (``A ⊕bor.second words``), and the passes in order push what a vertex takes into its
    nets (``mxv(..., order=, push=)``), so that no step costs a hub's squared degree.
    Rounds: the depth of the
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
    .. [4] M. Deveci, E. G. Boman, K. D. Devine and S. Rajamanickam, "Parallel graph
       coloring for manycore architectures," IPDPS 2016, pp. 892-901.
       https://doi.org/10.1109/IPDPS.2016.54
    .. [5] J. C. Culberson, "Iterated greedy graph coloring and the difficulty landscape,"
       Technical Report TR 92-07, University of Alberta, 1992.
    .. [6] M. K. Taş, K. Kaya and E. Saule, "Greed is good: parallel algorithms for
       bipartite-graph partial coloring on multicore architectures," ICPP 2017, pp. 503-512.
       https://doi.org/10.1109/ICPP.2017.59

    Examples
    --------
    >>> import gbgraph as gg
    >>> A = gg.generators.laplace3d(10)
    >>> c = gg.color(A)
    >>> c.n_colors <= 7, gg.validate.is_coloring(A, c.colors)   # first fit: at most max degree + 1
    (True, True)
    >>> gg.validate.is_coloring(A, gg.color(A, distance=2).colors, distance=2)
    True
    >>> import networkx as nx
    >>> G = nx.path_graph(["a", "b", "c", "d"])                 # a - b - c - d
    >>> gg.color(G, "sequential", order=["b", "c", "a", "d"]).colors
    {'a': 1, 'b': 0, 'c': 1, 'd': 0}
    """
    graph = as_graph(A, weights=False)
    be = backends.for_graph(backend, graph)
    graph = graph.on_device_of(be.xp)
    distance, seed, degree_rounds = _check_options(method, distance, priority, order, seed, degree_rounds, max_iter)
    order = None if order is None else _checked_order(node_ids(A, order, "order"), graph.n, be.xp)
    max_iter = _max_iter(graph, max_iter)
    if graph.n == 0:
        return labelled(A, ColoringResult(be.xp.empty(0, be.xp.int64), 0, 0), maps=("colors",))
    with be.guard(graph):
        fused = be.fused("color") if method == "greedy" and distance == 1 else None
        if fused is not None:  # backend="native": the rounds, their finish and the recoloring in one kernel
            return labelled(A, fused(graph, seed, priority or "largest_degree", max_iter), maps=("colors",))
        keys = _Keys(be, graph, seed)
        if method == "mis":
            result = _mis_peeling(be, graph, keys, max_iter)
        elif method == "hybrid":
            result = _hybrid(be, graph, keys, degree_rounds, max_iter)
        elif method == "greedy":
            result = _speculative(be, graph, keys, distance, priority or "largest_degree", max_iter)
        elif method == "sequential":
            result = _sequential(be, graph, keys, priority or "largest_degree", order)
        else:
            result = _jones_plassmann(be, graph, keys, distance, priority or "random", max_iter)
    return labelled(A, result, maps=("colors",))


def _check_options(method, distance, priority, order, seed, degree_rounds, max_iter):
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")
    distance = check_integer("distance", distance, 1, 2)
    if distance == 2 and method not in ("greedy", "jones_plassmann"):
        raise ValueError(f"distance=2 is available for 'greedy' and 'jones_plassmann', not {method!r}")
    if priority is not None and priority not in PRIORITIES:
        raise ValueError(f"unknown priority {priority!r}; expected one of None, {', '.join(PRIORITIES)}")
    if priority is not None and method not in _ORDERED:
        raise ValueError(f"priority={priority!r} is for {', '.join(map(repr, _ORDERED))}; {method!r} "
                         "fixes its own order")
    if order is not None and method != "sequential":
        raise ValueError(f"order is a 'sequential' option, got it with method {method!r}")
    if order is not None and priority is not None:
        raise ValueError(f"order and priority={priority!r} both choose the vertex order; give one")
    if max_iter is not None and method == "sequential":
        raise ValueError("max_iter bounds the rounds of the other methods; 'sequential' is one ordered pass")
    if degree_rounds is not None and method != "hybrid":
        raise ValueError(f"degree_rounds is a 'hybrid' option, got it with method {method!r}")
    seed = check_integer("seed", seed, 0, _SEEDS - 1)
    if degree_rounds is not None:
        degree_rounds = check_integer("degree_rounds", degree_rounds, minimum=0)
    return distance, seed, degree_rounds


class _Keys:
    """Packed 64-bit priorities: unique, at least 1, larger wins (docs/coloring.md).

    ``random(ids)`` is ``h_i << nv | (i + 1)``, with ``h_i`` the hash of (i, seed) that
    :class:`~gbgraph.hashing.Packing` computes. ``led(ids, field, bits)`` puts a
    ``bits``-wide field above it, keeping the hash's top bits: ``field << (64 - bits) |
    (h_i >> bits) << nv | (i + 1)``; comparing keys then compares fields first.
    """

    def __init__(self, be, graph, seed):
        self.xp, self.n, self.seed, self._graph = be.xp, graph.n, seed, graph
        self.nv = (graph.n + 1).bit_length()
        self._packing = Packing(graph.n, 64, be.xp)
        # made once per graph, as its matrices are: the largest degree is read on the host,
        # a wait for the device
        self.degrees, self.degree_bits = graph.cached(("color", "degrees", self.xp.__name__),
                                                      lambda: _degrees(self.xp, graph))

    def every(self, priority):
        """Every vertex's key in the vertex order ``priority`` (:func:`_ordered`), made once per
        graph, seed and order, as the mapping's keys are (heavy.py): only read, never written.
        On a GPU they cost a dozen element-wise passes, about a tenth of a coloring at
        Laplace3D 100³ under cProfile."""
        return self._graph.cached(("color", "keys", self.xp.__name__, self.seed, priority),
                                  lambda: _ordered(self, self.xp.arange(self.n, dtype=self.xp.int64), priority))

    def ranks(self, priority):
        """Every vertex's place in the vertex order ``priority`` (int64, n - 1 for the first
        vertex down to 0), made once per graph, seed and order as the keys are: an ordered
        sweep sorts ranks by counting, where it would sort the keys by radix each call
        (coAuthorsDBLP: about 5 ms, 2 SpMV)."""
        def ranked():
            xp = self.xp
            rank = xp.empty(self.n, xp.int64)
            rank[xp.argsort(~self.every(priority))] = xp.arange(self.n - 1, -1, -1, dtype=xp.int64)  # unique keys
            return rank
        return self._graph.cached(("color", "ranks", self.xp.__name__, self.seed, priority), ranked)

    def random(self, ids):
        return self._hash(ids)

    def _hash(self, ids):
        # on the host one compiled pass (Packing.numba, the same words), where the array
        # code makes a dozen passes over n words (Laplace3D 100³: 6.7 ms of a 100 ms call)
        return self._packing.numba(ids, self.seed) if self.xp is np else self._packing(ids, self.seed)

    def led(self, ids, field, bits):
        """Keys ordered by ``field`` (uint64 values below ``2**bits``), then by the hash."""
        if bits + self.nv > 64:
            raise ValueError(f"degree-led priorities need bit_length(max degree) + bit_length(n + 1) "
                             f"<= 64; the graph has {bits} + {self.nv}")
        # the hash's bits from nv + bits up, moved down by bits (key >> bits without its low
        # nv bits), over the vertex's bits; in place, with one array besides the hash: each
        # new array of n words costs its page faults (Laplace3D 100³: 3.9 -> 1.6 ms)
        u = self.xp.uint64
        low = u((1 << self.nv) - 1)
        key = self._hash(ids)
        top = key >> u(bits)
        top &= ~low
        key &= low
        key |= top
        key |= self.xp.left_shift(field.astype(u, copy=False), u(64 - bits), out=top)
        return key

    def field_mask(self, bits):
        """The bits below a ``bits``-wide field: ``key > (m | mask)`` compares fields only."""
        return (1 << (64 - bits)) - 1


def _degrees(xp, graph):
    """The graph's degrees as uint64, and the bits of the largest (at least 1)."""
    degrees = xp.diff(xp.asarray(graph.indptr))
    return degrees.astype(xp.uint64), max(1, int(degrees.max()).bit_length())


def _jones_plassmann(be, graph, keys, distance, priority, max_iter):
    """[1] Algorithm 1: the winners of round r take color r."""
    A = be.adjacency(graph, closed=distance == 2)
    ids = be.xp.arange(graph.n, dtype=be.xp.int64)
    rounds = _Rounds(be, A, keys, distance)
    won = rounds.start(ids, keys.every(priority))
    colors = be.xp.full(graph.n, -1, be.xp.int64)
    while rounds.left:
        _check_progress(rounds, max_iter, rounds.left)
        colors[won] = rounds.count
        if _few(won.size, rounds.left - won.size):
            later = _finish_by_depth(rounds, colors, won, rounds.count + 1)
            return _result(colors, rounds.count + 1 + later)
        won = rounds.advance(won)
    return _result(colors, rounds.count)


def _checked_order(order, n, xp):
    """``order`` as int64 ids on the graph's device, checked to list every vertex once."""
    on_gpu = hasattr(order, "__cuda_array_interface__")
    if on_gpu != (xp is not np):
        raise TypeError(f"order is a {'GPU' if on_gpu else 'CPU'} array but the graph is on the "
                        f"{'CPU' if on_gpu else 'GPU'}; move one of them (cupy.asarray or .get())")
    order = xp.asarray(order)
    if order.shape != (n,) or (n and order.dtype.kind not in "iu"):
        raise ValueError(f"order must list every vertex once, {n:,} integers; got {order.dtype} values of shape "
                         f"{order.shape}")
    order = order.astype(xp.int64, copy=False)
    if n and (int(order.min()) < 0 or int(order.max()) >= n or int(xp.bincount(order, minlength=n).max()) > 1):
        raise ValueError(f"order must list every vertex 0..{n - 1} once; it repeats or leaves out some")
    return order


def _sequential(be, graph, keys, priority, order):
    """Each vertex, in ``order`` (else by decreasing key), takes its first fit among the
    vertices colored before it: one ordered pass of :data:`FIRST_FIT`."""
    n, xp = graph.n, be.xp
    if order is None:  # by decreasing key (keys are unique)
        order = xp.argsort(_ordered(keys, xp.arange(n, dtype=xp.int64), priority))[::-1]
    rank = xp.empty(n, xp.int64)  # int64 ranks: the first in order ranks highest
    rank[order] = xp.arange(n, 0, -1, dtype=xp.int64)
    colors = _first_fits(be, be.adjacency(graph), _before_sweep(be, n, keys, 1), be.full(n, True, "bool"),
                         be.full(n, rank, rank.dtype.name), 1)  # colors = first fit, by decreasing rank
    return _result(be.values(colors), 1)


# ---- the passes in order: one sweep on the host, Jones-Plassmann rounds on a GPU -----------
# A pass in order runs on one thread, which a GPU runs slowly: there its values come from
# Jones and Plassmann's rounds, in which a row takes its value once every row before it
# within reach has its own (the rows of a round are not within reach of each other), in as
# many rounds as the pass's longest chain. At distance 2, A is the pattern of A + I, whose
# rows are closed neighbourhoods, "nets" [6]_: the sweeps push what a row takes into its
# nets (``mxv(..., order=, push=)``), and nothing reads a two-hop matrix, whose size is the
# sum of the squared degrees.


def _sweeps(be):
    """Whether the passes in order run as one sweep (the host) or as rounds (a GPU)."""
    return be.xp is np


def _first_fits(be, A, colors, rows, order, hops):
    """``w<rows>``: the first fit of each row of ``rows`` by decreasing ``order`` (equal:
    lower index first), each seeing ``colors`` and the colors given before it (sequential
    greedy coloring in that order); the rows have no color in ``colors``."""
    if hops == 1:
        if _sweeps(be):
            return be.mxv(FIRST_FIT, A, colors, mask=rows, order=order)  # w<rows> = first fit, row after row
        return _in_rounds(be, A, colors, rows, order, FIRST_FIT_WHEN_READY)
    if _sweeps(be):
        try:
            return _first_fit_nets(be, A, colors, rows, order)
        except NotImplementedError:  # a backend without ordered pushes (mpi): the rounds
            pass
    colors = be.apply("identity", colors)  # a copy: the rounds add to it
    for won in _rounds_of(be, A, rows, order):
        be.assign(colors, _first_fit_nets(be, A, colors, won), mask=won)  # colors<won> = first fit
    return be.apply("identity", colors, mask=rows)  # colors<rows>


def _depths(be, A, keys, hops):
    """Jones and Plassmann's depth of every entry of ``keys`` (unique): 0 when no entry
    within reach has a larger key, else 1 + their largest depth (the round in which the
    rounds over the entries of ``keys`` would color it). At distance 2 a net keeps the
    largest depth among its members so far: ``d(i) = 1 + max best(w)`` over the nets w of
    i, pushed into each (``push="max"``)."""
    none = _none(be, keys.size)
    if _sweeps(be):
        if hops == 1:
            return be.mxv(CHAIN_DEPTH, A, none, mask=keys, order=keys)  # depth<keys> = 1 + max depth, in order
        try:
            return be.mxv(CHAIN_DEPTH, A, none, mask=keys, order=keys, push="max")  # best ⊕max= A(i, :)ᵀ d
        except NotImplementedError:  # a backend without ordered pushes (mpi): the rounds
            pass
    if hops == 1:
        return _in_rounds(be, A, none, keys, keys, CHAIN_DEPTH_WHEN_READY)
    depth = be.apply("identity", be.full(keys.size, 0, "int64"), mask=keys)
    for r, won in enumerate(_rounds_of(be, A, keys, keys)):
        be.assign(depth, be.xp.int64(r), mask=won)  # depth<won> = r
    return depth


def _in_rounds(be, A, colors, rows, order, ready):
    """A pass in order by Jones and Plassmann's rounds of ``ready``, a row operator that
    gives no entry while a row placed before it has no value (``colors`` below 0 there):
    the values of the pass, which the rows have none of at the start."""
    xp = be.xp
    ids = be.indices(rows)
    place = xp.empty(ids.size, xp.int64)
    place[_by_decreasing(xp, be.values(be.extract(order, ids)))] = xp.arange(ids.size)
    position = be.vector(ids, place, rows.size)  # position(i): i's place in the order, 0 first
    # a full copy, -1 where no value (as the operators' fill): the rounds write into it in
    # place, so the cupy backend records a round once and replays it
    colors = be.ewise_add("first", colors, be.full(colors.size, -1, "int64"))

    def round_(left, r):  # the rows without a value; the rows due take theirs
        t = be.mxv(ready, A, (colors, position), mask=left)  # t<left> = the values of the rows due now
        be.assign(colors, t, mask=t)  # colors<t> = t
        return (be.apply("identity", left, mask=t, complement=True),)  # left<¬t>

    # until every row has its value: each round gives one at least, to the first row left;
    # the rows left, not all the rows, are read again (a row's test reads its columns)
    be.iterate(round_, (rows,))
    return be.apply("identity", colors, mask=rows)  # colors<rows>


def _rounds_of(be, A, rows, order):
    """The rounds of a pass in order at distance 2: each time, the rows left that no row
    left within distance 2 precedes (``m = A ⊕max.second rank``, twice, as
    :class:`_Rounds` finds its winners)."""
    left = _ranks(be, rows, order)
    while be.nvals(left):
        m = be.mxv("max_second", A, left)  # m = A ⊕max.second rank: each net's first
        m = be.mxv("max_second", A, m, mask=left)  # m<left> = A ⊕max.second m
        won = be.select("valueeq", be.ewise_mult("eq", m, left), True)  # won = select(m == rank): no one before
        yield won
        left = be.apply("identity", left, mask=won, complement=True)  # left<¬won>


def _by_decreasing(xp, values):
    """The stable order of ``values`` from the largest down (equal ones: lower position first)."""
    keys = ~values if values.dtype.kind in "iub" else -values
    return xp.argsort(keys, kind="stable") if xp is np else xp.argsort(keys)  # CuPy's sorts are stable


def _first_fit_nets(be, A, colors, rows, order=None):
    """``w<rows>``: the first fit at distance 2 of each row of ``rows`` (A the pattern of
    A + I), seeing ``colors``, window by window of 64 colors, as Taş et al.'s net-based
    coloring [6]_ reads colors: each net's word ``netword = words ⊕bor.first A`` (A is
    symmetric: pushed from the vertices colored in the window), then :data:`FREE_BIT` of each
    row over its nets' words; a row whose window is full waits for the next. With
    ``order``, the rows one after another by decreasing order, each bit pushed into its nets'
    words (``push="bor"``): sequential greedy in that order, as a row that passes on to the
    next window takes no color of this one. Before the windows, :func:`_closed_fits` gives
    the rows whose first fit follows from their nets' summaries, and each row left waits
    for the window of its lower bound (:func:`_lower_bounds`). A window costs the rows'
    lengths and the colored members of the nets, never a net's square."""
    colors = be.select("valuege", colors, 0)  # the colored vertices only: each window reads them
    chosen = _none(be, rows.size)
    if order is not None:  # ranks 0.. once: each window's sweep sorts its rows by counting
        order = _ranks(be, rows, order)
        chosen, rows = _closed_fits(be, A, colors, rows, order)
        colors = be.ewise_add("first", colors, chosen)  # colors ∪ chosen (the rows had none)
        lower = _lower_bounds(be, A, colors, rows) if be.nvals(rows) else None
    pending = rows
    base = 0
    while be.nvals(pending):
        ready = pending
        if order is not None:
            later = be.select("valuege", lower, be.xp.int64(base + 64), mask=pending)  # bound past this window
            if be.nvals(later) == be.nvals(pending):  # no row can take a color here: on to the lowest bound
                base = int(be.reduce(later, "min")) // 64 * 64
                continue
            ready = be.apply("identity", pending, mask=later, complement=True)  # ready = pending<¬later>
        at = be.xp.int64(base)
        words = be.select("valuene", be.apply(WINDOW_BIT, colors, right=at), 0)  # words(j) = 1 << (colors(j) - base)
        nets = be.vxm("bor_first", words, A)  # netword = words ⊕bor.first A: each net's colors in the window
        if order is None:
            bits = be.mxv(FREE_BIT, A, nets, mask=ready)  # bits<ready> = lowest zero of A ⊕bor.second netword
        else:  # the same, row after row, each bit into its nets: netword ⊕bor= A(i, :)ᵀ bit
            bits = be.mxv(FREE_BIT, A, nets, mask=ready, order=order, push="bor")
        found = be.apply(COLOR_OF, bits, right=at)  # the bits' colors
        be.assign(chosen, found, mask=found)  # chosen<found> = base + bit
        pending = be.apply("identity", pending, mask=found, complement=True)  # pending<¬found>
        base += 64
    return chosen


def _lower_bounds(be, A, colors, rows):
    """A lower bound of the first fit of each row of ``rows`` (int64): the largest hi of a
    net of the row that holds exactly the colors 0..hi - 1 (its members have distinct
    colors: as many as its largest + 1), all of which the row sees. A row skips the windows
    below its bound, where it would find no free color (a star's hub: its last window)."""
    nets = be.mxv(HI_COUNT_SECOND, A, be.apply(AS_HI_COUNT, colors))  # nets = A ⊕hi_count.second summary
    full = be.apply(FULL_UPTO, nets)  # full(w) = hi where net w holds 0..hi - 1, else 0
    lower = be.mxv("max_second", A, full, mask=rows)  # lower<rows> = A ⊕max.second full
    return be.ewise_add("max", lower, be.apply("identity", be.full(rows.size, 0, "int64"), mask=rows))


def _closed_fits(be, A, colors, rows, order):
    """The first fits in order that need no window: one sweep of :data:`CLOSED_FIT` over the
    nets' summaries (``nets = A ⊕hi_count.second summary(colors)``, each row's pushed with
    ``push=HI_COUNT``). A row whose nets each hold the colors 0..hi - 1 and nothing else
    takes the largest hi, its first fit exactly; a row that has a net of other colors, or a
    net blocked by an earlier such row, takes none and blocks its nets, so that a row it
    colors sees every earlier row within distance 2. Returns (the colors given, the rows
    left), the rows left to the windows, which read the colors given as colors before them
    (the ones they cannot see are not within their reach). A star's leaves, which the windows
    would color 64 at a time, are all given their colors here."""
    nets = be.mxv(HI_COUNT_SECOND, A, be.apply(AS_HI_COUNT, colors))  # nets = A ⊕hi_count.second summary
    fits = be.mxv(CLOSED_FIT, A, nets, mask=rows, order=order, push=HI_COUNT)  # nets ⊕hi_count= A(i, :)ᵀ fit
    given = be.apply(PACKED_COLOR, be.select("valuelt", fits, _BLOCKED))  # colors<unblocked> = hi - 1
    return given, be.select("valuege", fits, _BLOCKED)  # the rows left: blocked


def _ranks(be, rows, order):
    """Unique int64 ranks of the entries of ``rows``, ``count - 1`` down to 0 by decreasing
    ``order`` (equal values: the lower index ranks higher)."""
    xp = be.xp
    ids = be.indices(rows)
    rank = xp.empty(ids.size, xp.int64)
    rank[_by_decreasing(xp, be.values(be.extract(order, ids)))] = xp.arange(ids.size - 1, -1, -1, dtype=xp.int64)
    return be.vector(ids, rank, rows.size)


def _rival_nets(be, A, U, t):
    """``rival<U>(i)``: the largest key of U within distance 2 of i (A the pattern of A +
    I) whose tentative color ``t`` is i's, i included: ``M = A ⊕max.second K`` with
    ``K(j, t_j) = U(j)``, each net's best key per color, then ``C<T> = A ⊕max.second M`` on
    the mask ``T(i, t_i)`` alone, a dot product per row of U over i's nets (the sum of the
    net sizes, where ``A ⊕max.second M`` unmasked would cost a net's square)."""
    ids = be.indices(U)
    tentative = be.values(be.extract(t, ids))
    n, k = U.size, int(tentative.max()) + 1 if ids.size else 1
    K = be.build_matrix(ids, tentative, be.values(U), n, k)  # K(j, t_j) = U(j)
    M = be.mxm("max_second", A, K)  # M(w, c) = the best key of color c in net w
    T = be.build_matrix(ids, tentative, be.xp.ones(ids.size, bool), n, k)  # T(i, t_i)
    C = be.mxm("max_second", A, M, mask=T)  # C<T> = A ⊕max.second M
    return be.reduce_rows(C, "max")  # rival(i) = C(i, t_i)


def _none(be, n):
    """An int64 vector of size n without entries: no vertex has a color (or a depth) yet."""
    return be.vector(be.xp.empty(0, be.xp.int64), be.xp.empty(0, be.xp.int64), n)


def _before_sweep(be, n, keys, hops):
    """The colors before a pass in order: none. On the host at distance 1, -1 at every
    vertex in int32 where that holds every first fit (at most the largest degree): the
    sweep reads them at random, and half the bytes of int64 take an eighth off its time
    (Laplace3D 100³). Elsewhere (the nets, a GPU's rounds) an int64 vector without entries."""
    if hops == 2 or not _sweeps(be):
        return _none(be, n)
    return be.full(n, -1, _sweep_dtype(keys))


def _sweep_dtype(keys):
    """The dtype of the colors a sweep on the host reads: int32 where that holds every
    first fit (at most the largest degree)."""
    return "int32" if keys.degree_bits <= 31 else "int64"


def _ordered(keys, ids, priority):
    """The keys of ``ids`` (every vertex, ascending) in the vertex order ``priority``."""
    if priority == "largest_degree":
        return keys.led(ids, keys.degrees, keys.degree_bits)
    return keys.random(ids)


def _few(won, left):
    """Whether a round colored so few of the vertices left that they form dense subgraphs,
    in which rounds would color about one vertex each (a clique of k vertices: k rounds)."""
    return won * _TAIL < left


def _finish_by_depth(rounds, colors, won, first):
    """Color the vertices left after this round's winners ``won`` as the remaining rounds
    would, the next one giving color ``first``: each takes ``first`` plus its depth in the
    order of the keys (an ordered pass of :data:`CHAIN_DEPTH`). Returns the number of those
    rounds."""
    be = rounds.be
    left = rounds.uncolored()
    left = left[~be.xp.isin(left, won)]
    keys = be.vector(left, rounds.values[left], rounds.n)
    depth = _depths(be, rounds.A, keys, rounds.distance)  # the round each would win, from the next
    depth_values = be.values(depth)
    colors[be.indices(depth)] = first + depth_values
    return int(depth_values.max()) + 1 if depth_values.size else 0


def _speculative(be, graph, keys, hops, priority, max_iter):
    """First fit by speculative rounds, resolved by priority; then one recoloring pass.

    Each round, every uncolored vertex tentatively takes its first fit among the colored
    vertices within reach (``t<U> = first_fit(A, colors)``), and keeps it unless an uncolored
    vertex of higher key within reach took the same color (``rival<U> = (A ∘ [t_i = t_j])
    ⊕max.second key``; Kokkos Kernels' vertex-based coloring, synchronous, so the
    same on every run). After a round that colors under ``1 / _TAIL`` of the vertices left
    (dense subgraphs, where a round would color about one vertex of each), the rest take
    their first fit one after another by decreasing key. Last, Culberson's iterated greedy
    step recolors the color classes one after another, the last class first, each
    vertex taking its first fit: this never adds a color and often removes one. Every step
    is a row operator passed to ``mxv``: at distance 1 :data:`FIRST_FIT` and
    :data:`SAME_GROUP_WON`, and :data:`FIRST_FIT` with ``order=`` for the passes in order; at
    distance 2 over the nets (:func:`_first_fit_nets`, :func:`_rival_nets`). On the host a
    distance-1 round is two passes over the uncolored rows and two scatters: the first fits
    written into ``colors`` (the first round's are all 0 and need no pass), then
    :data:`SAME_COLOR_LOST` over those colors and every vertex's key, whose result is the
    next round's uncolored vertices, their tentative colors set back to -1.
    """
    A = be.adjacency(graph, closed=hops == 2)
    n, xp = graph.n, be.xp
    ids = xp.arange(n, dtype=xp.int64)
    # on the host a round writes its tentative colors into colors and reads every vertex's
    # key (a full vector, U at the start: the first round's rows are all rows), so that its
    # products expand no sparse vector and its result is the next U; the rounds a GPU
    # records keep their verbs (t and won apart, U<¬won>), and U holds the keys there
    host = hops == 1 and _sweeps(be)
    keys_all = be.full(n, keys.every(priority), "uint64")  # only read: the graph keeps the keys
    if host:
        U = keys_all  # the uncolored vertices, holding their keys
    elif hops == 1:  # full, which the compiled rounds take in with no scatter of n indices; a
        # copy, as a replayed round writes over the vectors it was given
        U = be.full(n, be.values(keys_all).copy(), "uint64")
    else:
        U = be.vector(ids, be.values(keys_all), n)
    if host and _few_maxima_guessed(be, A, keys_all):
        colors = _swept(be, A, keys, priority, keys_all)
        if colors is not None:
            return _result(be.values(_recolor(be, A, colors, keys, hops)), 1)
    # colors(i) = -1: i has no color yet (first fit skips it); on the host every vertex
    # starts with the first round's first fit, 0
    colors = be.full(n, 0 if host else -1, "int64")

    def round_(U, r):  # the uncolored vertices; those that lose this round's contest
        if host:  # the tentative colors in place (the first round's are the 0s), the losers' taken back
            if r == 0:  # every first fit is 0: a larger key within reach takes it
                lost = be.mxv(LARGER_KEY_NEAR, A, keys_all, mask=U)  # lost<U> = [A ⊕max.second key > key]
            else:
                t = be.mxv(FIRST_FIT, A, colors, mask=U)  # t<U> = the first fit of each
                be.assign(colors, t, mask=t)  # colors<t> = t
                contest = SAME_COLOR_LOST_SCATTERED if be.nvals(U) * _SCATTERED < n else SAME_COLOR_LOST
                lost = be.mxv(contest, A, (keys_all, colors), mask=U)  # lost<U> = [a larger key took c_i]
            be.assign(colors, -1, mask=lost)  # colors<lost> = -1
            return (lost,)
        if hops == 1:  # a first fit is never -1 here, so the vertices that lost are U<¬won>
            t = be.mxv(FIRST_FIT, A, colors, mask=U)  # t<U> = the first fit of each
            won = be.mxv(SAME_GROUP_WON, A, (U, t), mask=U)  # won<U> = t<¬(rival > key)>
            be.assign(colors, won, mask=won)  # colors<won> = t
            return (be.apply("identity", U, mask=won, complement=True),)  # U = U<¬won>
        t = _first_fit_nets(be, A, colors, U)  # t<U> = the first fit of each, through the nets
        rival = _rival_nets(be, A, U, t)  # rival<U> = the best same-color key within distance 2
        lost = be.select("valueeq", be.ewise_mult("gt", rival, U), True)  # lost = select(rival > key)
        won = be.select("valuene", t, -1, mask=lost, complement=True)  # won = t<¬lost>
        be.assign(colors, won, mask=won)  # colors<won> = t
        return (be.apply("identity", U, mask=lost),)  # U = U<lost>

    def check(state, r):  # at round 0, then at max_iter: rounds that never colored few do not end
        if r == max_iter:
            uncolored = be.nvals(state[0])
            raise StallError(f"color: {uncolored:,} of {n:,} vertices uncolored after max_iter={max_iter} rounds")
        return max_iter - r

    # the rounds through iterate, on to the tail once a round colored few (stall: under
    # 1/_TAIL of those it left); the cupy backend compiles them at distance 1 (at distance 2
    # the nets' windows read counts on the host: each round runs verb by verb)
    (U,), rounds = be.iterate(round_, (U,), check=check, stall=_TAIL)
    if be.nvals(U):  # a round colored few: the rest in key order
        # the sweep reads (a copy of) the colors at random: in int32 on the host (coAuthorsDBLP,
        # Elasticity3D 40³: a tenth off the sweep)
        before = be.full(n, be.values(colors), _sweep_dtype(keys)) if host else colors
        order = be.full(n, keys.ranks(priority), "int64") if host else keys_all  # ranks: no sort of the keys
        be.assign(colors, _first_fits(be, A, before, U, order, hops), mask=U)  # colors<U> = first fit, in key order
    return _result(be.values(_recolor(be, A, colors, keys, hops)), rounds)


def _few_maxima_guessed(be, A, keys_all):
    """Whether the first round looks to color few vertices (under ``1 / _TAIL`` of those it
    leaves): the keys' local maxima among ``_SAMPLE`` rows spread over the graph, which
    decide only which way :func:`_speculative` tries first (dense neighbourhoods of
    degree-led keys: Elasticity3D, coAuthorsDBLP, about 1% of the rows)."""
    n = keys_all.size
    sample = be.vector(be.xp.arange(0, n, max(1, n // _SAMPLE), dtype=be.xp.int64), True, n)
    lost = be.mxv(LARGER_KEY_NEAR, A, keys_all, mask=sample)  # lost<sample> = [A ⊕max.second key > key]
    won = be.nvals(sample) - be.nvals(lost)
    return _few(won, be.nvals(sample) - won)


def _swept(be, A, keys, priority, keys_all):
    """The colors of the first round and the sweep after it, when that round colors few (on
    the host at distance 1), from one sweep of every row in key order; None when it colors
    more. The first round's winners are the keys' local maxima, each before all its
    neighbours in key order: the sweep gives them 0, and every other vertex its first fit
    after the same colored neighbours as the sweep after the round (its winners and the
    earlier vertices). The maxima are among the 0s: counted there (:data:`LARGER_KEY_FIRST`,
    where the 0s are not few already), they say whether the rounds would have stopped after
    the first."""
    n = keys_all.size
    order = be.full(n, keys.ranks(priority), "int64")  # ranks in key order: the sweep sorts them by counting
    colors = be.mxv(FIRST_FIT, A, _before_sweep(be, n, keys, 1), order=order)  # first fit, row after row
    zeros = be.select("valueeq", colors, 0)
    won = be.nvals(zeros)
    if not _few(won, n - won):  # as many maxima as 0s would not be few: count them
        won -= be.nvals(be.mxv(LARGER_KEY_FIRST, A, keys_all, mask=zeros))  # lost<zeros> = [A ⊕max.second key > key]
    return colors if _few(won, n - won) else None


def _recolor(be, A, colors, keys, hops):
    """Culberson's step: every vertex's first fit by decreasing ``colors`` (the last class
    first). Where a pass in order runs as rounds (a GPU) at distance 1, each class takes its
    first fits in one round, seeing the classes before it: a class is an independent set, so
    these are the values of the pass, in as many rounds as classes, each reading the rows
    of one class only (Jones and Plassmann's rounds would read again the rows of every
    vertex still waiting)."""
    n = colors.size
    if hops == 2 or _sweeps(be):
        return _first_fits(be, A, _before_sweep(be, n, keys, hops), be.full(n, True, "bool"), colors, hops)
    values = be.values(colors)
    # rank = max(colors) - colors, the round of each class; int32: each round reads it and
    # keeps it. The largest color stays on the device: a wait here would idle it while the
    # host sets up the rounds
    rank = be.full(n, (values.max() - values).astype(be.xp.int32), "int32")
    recolored = be.full(n, -1, "int64")  # -1: no color yet (first fit skips it)

    def round_(waiting, r):  # the vertices of the classes not recolored yet
        due = be.select("valueeq", waiting, r)  # due = select(rank == r): class last - r
        t = be.mxv(FIRST_FIT, A, recolored, mask=due)  # t<due> = first fit
        be.assign(recolored, t, mask=t)  # recolored<t> = t
        return (be.apply("identity", waiting, mask=due, complement=True),)  # waiting<¬due>

    be.iterate(round_, (rank,))
    return recolored


def _hybrid(be, graph, keys, degree_rounds, max_iter):
    """[1] Algorithm 3: DEGREECOLORING rounds, then BASECOLORING rounds (HYBRID, l.29-40).

    In the degree phase the keys lead with the vertex degree (PRECOMPUTE, l.30) and a
    vertex wins only if its degree is larger than every uncolored neighbour's (l.8-13,
    l.21-23: equal degrees block each other); the hash below the degree only identifies
    keys. After an empty round, or ``degree_rounds`` rounds (l.33), every uncolored vertex
    takes its random key for good.
    """
    A = be.adjacency(graph)
    ids = be.xp.arange(graph.n, dtype=be.xp.int64)
    rounds = _Rounds(be, A, keys, 1)
    by_degree = degree_rounds != 0
    if by_degree:
        won = rounds.start(ids, keys.led(ids, keys.degrees, keys.degree_bits), keys.field_mask(keys.degree_bits))
    else:
        won = rounds.start(ids, keys.random(ids))
    colors = be.xp.full(graph.n, -1, be.xp.int64)
    n_colors = 0
    while rounds.left:
        _check_progress(rounds, max_iter, rounds.left)
        colors[won] = n_colors
        n_colors += bool(won.size)
        empty = not won.size
        if not by_degree and won.size and _few(won.size, rounds.left - won.size):
            later = _finish_by_depth(rounds, colors, won, n_colors)
            return _result(colors, rounds.count + 1 + later)
        won = rounds.advance(won)
        if by_degree and (empty or rounds.count == degree_rounds):
            by_degree = False
            left = rounds.uncolored()
            won = rounds.start(left, keys.random(left))
    return _result(colors, rounds.count)


class _Rounds:
    """Che et al.'s rounds with worklists: a maximum is recomputed only when its holder leaves.

    ``in_play`` flags the vertices still in play, ``left`` counts them, and ``remaining``
    lists them in ascending order, with vertices that have left among them until the list
    is compacted (when half of it has left). ``key = sources[0]`` (a full backend vector,
    so that masked products index it directly) holds every vertex's key, 0 once it has
    left, so products see the remaining vertices only. ``m[0]`` (array) holds, for each
    remaining vertex, the largest key of another remaining vertex within reach, 0 if none
    ([1] Alg. 1 l.2-15); its low ``nv`` bits read ``j + 1`` for the vertex j holding it,
    since keys are unique (and 0 once the vertex has left: it holds nothing). When
    vertices leave, only the maxima they held change: those vertices form the worklist
    ``K``, and ``m<K> = A ⊕max.second key`` recomputes them, as Kokkos Kernels recomputes
    its worklists. A vertex wins when its key beats its maximum (l.16-19), so each round's
    winners are exactly those of Algorithm 1.

    Distance 2 keeps two levels over closed neighbourhoods: ``m1 = A ⊕max.second key``
    (``m[0]`` for every vertex, and ``sources[1]``, a full backend vector) and
    ``m2 = A ⊕max.second m1`` (``m[1]``), each recomputed where its holder left; a vertex
    wins when its key equals ``m2``.
    """

    def __init__(self, be, A, keys, distance):
        xp, n = be.xp, keys.n
        self.be, self.xp, self.A, self.n, self.distance = be, xp, A, n, distance
        self.holder = xp.uint64((1 << keys.nv) - 1)
        self.values = xp.zeros(n, xp.uint64)
        self.sources = [be.full(n, 0, "uint64") for _ in range(distance)]  # key, then m1
        self.m = [xp.zeros(n, xp.uint64) for _ in range(distance)]
        self.gone = xp.zeros(n + 1, bool)  # gone[j + 1]: j left in this round
        self.in_play = xp.zeros(n, bool)
        self.remaining = xp.empty(0, xp.int64)
        self.left = 0
        self.field = 0
        self.count = 0

    def start(self, ids, values, field=0):
        """The vertices ``ids`` (ascending) take part with their keys; returns the winners.

        ``field`` masks the bits below a leading field, so that ``key > (m | field)``
        compares fields only. With distance 2, ``ids`` must be every vertex.
        """
        self.values[ids] = values
        self.field = field
        K = self.be.vector(ids, values, self.n)
        self.be.assign(self.sources[0], K, mask=K)  # key<ids> = values
        self.remaining = ids.copy()
        self.left = ids.size
        self.in_play[ids] = True
        for m in self.m:
            m[ids] = 0  # rows with no neighbour get no entry: nothing in reach
        return self._recompute([ids] * self.distance, everyone=ids.size == self.n)

    def advance(self, leaving):
        """``leaving`` (ascending ids) leaves; returns the next round's winners."""
        xp, gone = self.xp, self.gone
        self.count += 1
        if not leaving.size:
            return leaving
        self.be.assign(self.sources[0], 0, mask=self.be.vector(leaving, True, self.n))  # key<leaving> = 0
        gone[leaving + 1] = True
        self.in_play[leaving] = False
        self.m[-1][leaving] = 0
        self.left -= leaving.size
        if self.remaining.size > 2 * self.left:
            self.remaining = self.uncolored()
        worklists = []
        if self.distance == 2:  # m1 of every vertex, remaining or not, feeds m2
            worklists.append(xp.flatnonzero(gone[self.m[0] & self.holder]))
        U = self.remaining
        worklists.append(U[gone[self.m[-1][U] & self.holder]])
        gone[leaving + 1] = False
        return self._recompute(worklists)

    def uncolored(self):
        """The vertices still in play, ascending."""
        return self.remaining[self.in_play[self.remaining]]

    def _recompute(self, worklists, everyone=False):
        """Recompute ``m<K>`` level by level; return the winners of the last worklist.

        ``everyone``: the worklists hold every vertex, and the products need no mask.
        """
        for level, K in enumerate(worklists):
            m = self._maxima(level, K, everyone)
        K = worklists[-1]
        if self.distance == 1:  # m = 0: nothing in reach, which every key beats
            return K[(m == 0) | (self.values[K] > (m | self.xp.uint64(self.field)))]
        return K[self.values[K] >= m]  # closed: m2 >= key, equal when the vertex holds it

    def _maxima(self, level, K, everyone):
        """``m<K> = A ⊕max.second key`` (level 2: ``A ⊕max.second m1``), stored; its values on K."""
        be, m = self.be, self.m[level]
        if not K.size:
            return m[K]
        K_mask = None if everyone else be.vector(K, True, self.n)
        mK = be.mxv("max_second", self.A, self.sources[level], mask=K_mask)  # mK<K> = A ⊕max.second key
        if level + 1 < self.distance:
            be.assign(self.sources[level + 1], mK, mask=mK)  # m1<K> = mK
        if be.nvals(mK) < K.size:  # rows with no neighbour have no entry: m stays 0
            m[be.indices(mK)] = be.values(mK)
            return m[K]
        m[K] = values = be.values(mK)
        return values


def _mis_peeling(be, graph, keys, max_iter):
    """Color k is a maximal independent set of the still uncolored vertices.

    Each set is found by rounds of the random-permutation MIS ([3] section 2): an
    undecided vertex whose key beats every undecided neighbour joins, its undecided
    neighbours leave with it. Keys follow ECL-MIS's order (section 3): smaller degree in the
    uncolored subgraph first, the hash among equal degrees, without ECL-MIS's 8-bit
    rounding of the priority.
    """
    A = be.adjacency(graph)
    rounds = _Rounds(be, A, keys, 1)
    colors = be.xp.full(graph.n, -1, be.xp.int64)
    left = be.xp.arange(graph.n, dtype=be.xp.int64)
    n_colors = 0
    while left.size:
        joined = rounds.start(left, keys.led(left, _ecl_field(be, A, left, keys), keys.degree_bits))
        while rounds.left:
            _check_progress(rounds, max_iter, int((colors < 0).sum()))
            colors[joined] = n_colors
            joined = rounds.advance(_with_neighbours(be, A, joined, rounds.in_play))
        n_colors += 1
        left = left[colors[left] < 0]
    return _result(colors, rounds.count)


def _ecl_field(be, A, left, keys):
    """(max degree - degree among ``left``) of each vertex of ``left``."""
    xp = be.xp
    degree = be.mxv("plus_pair", A, be.vector(left, xp.uint64(1), keys.n),
                    mask=be.vector(left, True, keys.n))  # d<left> = A ⊕plus.pair left
    counts = xp.zeros(keys.n, xp.uint64)
    counts[be.indices(degree)] = be.values(degree)
    return keys.degrees.max() - counts[left]


def _with_neighbours(be, A, joined, undecided):
    """``joined`` and its neighbours flagged ``undecided``, ascending: they all leave."""
    _, neighbours, _ = be.to_csr(be.extract(A, joined))  # A(joined, :)
    leaving = be.xp.zeros(undecided.size, bool)
    leaving[joined] = True
    leaving[neighbours[undecided[neighbours]]] = True
    return be.xp.flatnonzero(leaving)


def _check_progress(rounds, max_iter, uncolored):
    if rounds.count == max_iter:
        raise StallError(f"color: {uncolored:,} of {rounds.n:,} vertices uncolored after max_iter={max_iter} rounds")


def _result(colors, rounds):
    return ColoringResult(colors, int(colors.max()) + 1, rounds)

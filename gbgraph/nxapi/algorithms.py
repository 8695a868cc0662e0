"""The networkx functions gbgraph serves: networkx's names, signatures and results.

Each function takes a :class:`~gbgraph.nxapi.graph.BackendGraph` and calls gbgraph's public
functions on its canonical graph (positions in, arrays out), then turns positions into
nodes. Each has a ``can_run`` check (:data:`CAN_RUN`): networkx runs its own implementation
wherever gbgraph would not return what networkx returns (a seeded random order, an initial
partition, a strategy gbgraph does not reproduce), so a function here is never a different
function under the same name.
"""

import inspect
import random

import networkx as nx
import numpy as np
import scipy.sparse as sp

from ..algorithms.mapping import coarse_mapping
from ..algorithms.coloring import color
from ..algorithms.mis import mis1
from ..algorithms.partition import bisect
from ..graph import as_graph
from .graph import BackendGraph

__all__ = ["CAN_RUN", "greedy_color", "kernighan_lin_bisection", "maximal_independent_set", "maximal_matching"]


def maximal_independent_set(G, nodes=None, seed=None):
    """networkx's ``maximal_independent_set``: a maximal independent set holding ``nodes``.

    Those nodes, then ``gg.mis1`` of the graph without them and their neighbours: any
    maximal independent set there completes them to one of G.

    Parameters
    ----------
    G : BackendGraph
    nodes : iterable, optional
        Nodes the set must hold (independent).
    seed : None
        networkx's global generator (``can_run`` declines other seeds); unused.

    Returns
    -------
    list
        The given nodes first, as networkx lists them, then the rest in node order.

    Raises
    ------
    networkx.NetworkXUnfeasible
        as networkx raises it, for nodes that are not in G or not independent.

    Examples
    --------
    >>> import networkx as nx
    >>> sorted(nx.maximal_independent_set(nx.path_graph(5), [1], backend="gbgraph"))
    [1, 3]
    """
    g = G.graph.on_device_of(np)
    if not nodes:  # networkx's test: None and empty collections alike mean no nodes
        return [G.nodes[i] for i in _host(mis1(g).vertices).tolist()]
    forced = set(nodes)
    if not forced.issubset(G.index):
        raise nx.NetworkXUnfeasible(f"{forced} is not a subset of the nodes of G")
    ids = np.fromiter((G.index[v] for v in forced), np.int64, len(forced))
    near = np.zeros(g.n, bool)
    near[g.indices[_rows(g.indptr, ids)]] = True  # N(nodes)
    if near[ids].any():
        raise nx.NetworkXUnfeasible(f"{forced} is not an independent set of G")
    near[ids] = True
    rest = np.flatnonzero(~near)
    pattern = sp.csr_array((np.ones(g.nnz, bool), g.indices, g.indptr), shape=(g.n, g.n))
    found = rest[_host(mis1(as_graph(pattern[rest][:, rest], weights=False)).vertices)]
    return [*forced, *(G.nodes[i] for i in found.tolist())]


def greedy_color(G, strategy="largest_first", interchange=False):
    """networkx's ``greedy_color`` for the strategies ``"largest_first"`` and ``"random_sequential"``.

    ``gg.color(G, "sequential", order=...)`` in the strategy's node order: its
    Jones-Plassmann rounds with first fit give each node the smallest color its earlier
    neighbours left free, as networkx's loop does.

    Parameters
    ----------
    G : BackendGraph
    strategy : {"largest_first", "random_sequential"} or networkx's function of that name
        ``"largest_first"``: a stable sort by decreasing degree. ``"random_sequential"``:
        the permutation networkx's ``random.shuffle`` of the nodes would draw, from the
        same (global) generator.
    interchange : False
        (``can_run`` declines True.)

    Returns
    -------
    dict
        node -> color (Python ints), in the order of coloring; networkx's exactly.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.petersen_graph()
    >>> nx.greedy_color(G, backend="gbgraph") == nx.greedy_color(G)
    True
    """
    n = len(G)
    if n == 0:
        return {}
    if _strategy(strategy) == "largest_first":  # networkx: sorted(G, key=G.degree, reverse=True), a stable sort
        order = np.argsort(-np.diff(G.graph.on_device_of(np).indptr), kind="stable")
    else:  # networkx shuffles list(G) with the global generator; the same draws permute the rows alike
        order = list(range(n))
        random.shuffle(order)
        order = np.array(order, dtype=np.int64)
    colors = _host(color(G.graph, "sequential", order=order).colors)
    return {G.nodes[v]: c for v, c in zip(order.tolist(), colors[order].tolist())}  # in coloring order


def kernighan_lin_bisection(G, partition=None, max_iter=10, weight="weight", seed=None):
    """networkx's ``kernighan_lin_bisection`` without an initial partition: ``gg.bisect(G, imbalance=0)``.

    networkx's sweeps keep the halves of its random start, ⌈n/2⌉ nodes in the first set it
    returns; gbgraph's multilevel bisection with FM refinement returns halves of the same
    sizes, in the same order.

    Parameters
    ----------
    G : BackendGraph
        Its weights are those of the ``weight`` attribute (1 where missing), or none.
    partition, max_iter, weight, seed
        networkx's; ``can_run`` admits None, 10, an attribute name or None, and None.

    Returns
    -------
    tuple of set
        The ⌈n/2⌉ nodes of one side, then the ⌊n/2⌋ of the other.

    Raises
    ------
    NotImplementedError
        for negative, NaN or infinite weights, which gbgraph's cut does not take (networkx
        then runs its own implementation, or, for ``backend="gbgraph"``, says so).

    Examples
    --------
    >>> import networkx as nx
    >>> nx.community.kernighan_lin_bisection(nx.barbell_graph(3, 0), backend="gbgraph")
    ({0, 1, 2}, {3, 4, 5})
    """
    w = G.graph.weights
    if w is not None and not bool(np.all(np.isfinite(_host(w)) & (_host(w) >= 0))):
        raise NotImplementedError("gbgraph bisects graphs with non-negative finite weights")
    parts = _host(bisect(G.graph, imbalance=0).parts)
    larger = int(np.count_nonzero(parts == 1) > G.graph.n // 2)  # the side of ⌈n/2⌉ nodes
    first = {G.nodes[i] for i in np.flatnonzero(parts == larger).tolist()}
    return first, {G.nodes[i] for i in np.flatnonzero(parts != larger).tolist()}


def maximal_matching(G):
    """networkx's ``maximal_matching``: the pairs of heavy edge matching on the pattern.

    ``gg.coarse_mapping(G, "hem")`` groups the nodes into pairs of adjacent nodes and
    singletons, maximally: no edge joins two singletons.

    Parameters
    ----------
    G : BackendGraph

    Returns
    -------
    set of tuple
        Each pair as the edge (u, v) with u first in node order, the way networkx lists
        edges.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.star_graph(5)
    >>> M = nx.maximal_matching(G, backend="gbgraph")
    >>> len(M), nx.is_maximal_matching(G, M)
    (1, True)
    """
    g = G.graph.on_device_of(np)
    labels = _host(coarse_mapping(as_graph(g, weights=False), "hem").labels)
    members = np.argsort(labels, kind="stable")  # grouped by coarse vertex, ascending inside
    sizes = np.bincount(labels, minlength=int(labels.max()) + 1 if labels.size else 0)
    first = (np.cumsum(sizes) - sizes)[sizes == 2]
    return {(G.nodes[a], G.nodes[b]) for a, b in zip(members[first].tolist(), members[first + 1].tolist())}


def _rows(indptr, ids):
    """The positions of the entries of rows ``ids`` in a CSR."""
    starts, counts = indptr[ids], np.diff(indptr)[ids]
    return np.repeat(starts - np.cumsum(counts) + counts, counts) + np.arange(int(counts.sum()))


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


# ---- when gbgraph returns what networkx returns ------------------------------------------


def _strategy(strategy):
    """The name of a strategy gbgraph reproduces ("largest_first", "random_sequential"), or None."""
    from networkx.algorithms.coloring import greedy_coloring

    known = {"largest_first": greedy_coloring.strategy_largest_first,
             "random_sequential": greedy_coloring.strategy_random_sequential}
    for name, function in known.items():
        if strategy is function or (isinstance(strategy, str) and strategy == name):
            return name
    return None


def _simple(G):
    """A reason gbgraph cannot serve G (directed, multigraph, self loops), or None."""
    if G.is_directed():
        return "directed graphs are not supported: pass G.to_undirected()"
    if G.is_multigraph():
        return "multigraphs are not supported"
    loops = G.selfloops if isinstance(G, BackendGraph) else nx.number_of_selfloops(G)
    return f"G has {loops} self loops" if loops else None


def _global_random(seed):
    """Whether ``seed`` (after networkx's ``py_random_state``) is the global generator, i.e.
    ``seed=None``: a seeded call asks for networkx's own random sequence."""
    return seed is None or seed is random._inst


def _can_mis(G, nodes=None, seed=None):
    if not _global_random(seed):
        return "a seed asks for networkx's own random order"
    if len(G) == 0:
        return "networkx raises its own error for an empty graph"
    return _simple(G) or True


def _can_greedy_color(G, strategy="largest_first", interchange=False):
    if interchange:
        return "interchange=True is networkx's own algorithm"
    if _strategy(strategy) is None:
        return f"gbgraph reproduces the strategies 'largest_first' and 'random_sequential', not {strategy!r}"
    return _simple(G) or True


def _can_kernighan_lin(G, partition=None, max_iter=10, weight="weight", seed=None):
    if partition is not None:
        return "refining a given partition is networkx's own algorithm"
    if max_iter != 10:
        return "max_iter bounds networkx's sweeps; gbgraph serves the default only"
    if callable(weight):
        return "weight functions are not supported"
    if not _global_random(seed):
        return "a seed asks for networkx's own random start"
    if len(G) < 2:
        return "networkx splits graphs of fewer than 2 nodes itself"
    return ("multigraphs are not supported" if G.is_multigraph() else None) or True


def _can_maximal_matching(G):
    return True


#: networkx function name -> (gbgraph's function, its check of the arguments).
CAN_RUN = {
    "maximal_independent_set": (maximal_independent_set, _can_mis),
    "greedy_color": (greedy_color, _can_greedy_color),
    "kernighan_lin_bisection": (kernighan_lin_bisection, _can_kernighan_lin),
    "maximal_matching": (maximal_matching, _can_maximal_matching),
}


def can_run(name, args, kwargs):
    """networkx's hook: whether gbgraph returns what networkx returns for this call.

    Parameters
    ----------
    name : str
        The networkx function.
    args, kwargs
        Its arguments, as the caller gave them (after networkx's ``py_random_state``).

    Returns
    -------
    True or str
        True, or why gbgraph declines (networkx logs it and runs its own code).

    Examples
    --------
    >>> import networkx as nx
    >>> can_run("greedy_color", (nx.path_graph(3),), {"strategy": "DSATUR"})
    "gbgraph reproduces the strategies 'largest_first' and 'random_sequential', not 'DSATUR'"
    >>> can_run("greedy_color", (nx.path_graph(3),), {})
    True
    """
    if name not in CAN_RUN:
        return f"gbgraph does not serve {name}"
    check = CAN_RUN[name][1]
    try:
        bound = inspect.signature(check).bind(*args, **kwargs)
    except TypeError as e:
        return f"the arguments do not match networkx's {name}: {e}"
    return check(*bound.args, **bound.kwargs)

"""The graph object of gbgraph's NetworkX backend, and the conversions to and from networkx."""

from functools import cached_property

import numpy as np
import scipy.sparse as sp

from ..graph import as_graph

__all__ = ["BackendGraph", "convert_from_nx", "convert_to_nx"]


class BackendGraph:
    """An undirected networkx graph as gbgraph holds it.

    Attributes
    ----------
    graph : gbgraph.Graph
        The canonical CSR of its edges (self loops dropped, parallel edges of a multigraph
        summed), with the weights of ``weight`` or as a pattern.
    nodes : list
        The networkx nodes of rows 0, 1, ..., in networkx's order.
    weight : str or None
        The edge attribute the weights came from (None: a pattern).
    selfloops : int
        Self loops of the networkx graph (gbgraph's graph has none).
    graph_attrs : dict
        ``G.graph`` of the networkx graph, when networkx asked to keep it.
    """

    __networkx_backend__ = "gbgraph"

    def __init__(self, graph, nodes, *, weight=None, multigraph=False, selfloops=0, graph_attrs=None):
        self.graph, self.nodes, self.weight = graph, nodes, weight
        self.selfloops, self._multigraph = selfloops, multigraph
        self.graph_attrs = dict(graph_attrs or {})
        self.__networkx_cache__ = {}

    def is_directed(self):
        return False

    def is_multigraph(self):
        return self._multigraph

    def __len__(self):
        return len(self.nodes)

    @cached_property
    def index(self):
        """node -> row."""
        return {v: i for i, v in enumerate(self.nodes)}

    def __repr__(self):
        return f"<gbgraph BackendGraph, {len(self.nodes):,} nodes, {self.graph.nnz // 2:,} edges>"


def convert_from_nx(G, edge_attrs=None, node_attrs=None, preserve_edge_attrs=False, preserve_node_attrs=False,
                    preserve_graph_attrs=False, name=None, graph_name=None):
    """networkx's hook: an undirected networkx graph as a :class:`BackendGraph`.

    Parameters
    ----------
    G : networkx.Graph or networkx.MultiGraph
    edge_attrs : dict, optional
        networkx's ``{attribute: default}``: the weight (the functions gbgraph serves read at
        most one); None: the pattern.
    node_attrs, preserve_edge_attrs, preserve_node_attrs, name, graph_name
        networkx's; node attributes are not kept (no served function reads any).
    preserve_graph_attrs : bool
        Keep ``G.graph``.

    Returns
    -------
    BackendGraph

    Raises
    ------
    NotImplementedError
        for a directed graph (networkx then runs its own implementation, or says so).

    Examples
    --------
    >>> import networkx as nx
    >>> B = convert_from_nx(nx.Graph([("a", "b", {"weight": 2.0})]), edge_attrs={"weight": 1})
    >>> B.nodes, B.graph.weights.tolist()
    (['a', 'b'], [2.0, 2.0])
    """
    if G.is_directed():
        raise NotImplementedError("gbgraph's networkx backend takes undirected graphs: pass G.to_undirected() "
                                  "(an edge wherever either direction is)")
    nodes = list(G)
    weight, default = next(iter(edge_attrs.items())) if edge_attrs else (None, None)
    index = {v: i for i, v in enumerate(nodes)}
    if weight is None:
        ends = [(index[u], index[v]) for u, v in G.edges()]
        values = np.ones(len(ends), bool)
    else:
        triples = [(index[u], index[v], w) for u, v, w in G.edges(data=weight, default=default)]
        ends = [t[:2] for t in triples]
        values = np.array([t[2] for t in triples], dtype=np.float64)
    ends = np.array(ends, dtype=np.int64).reshape(-1, 2)
    u, v = ends[:, 0], ends[:, 1]
    n = len(nodes)
    A = sp.coo_array((np.concatenate((values, values)), (np.concatenate((u, v)), np.concatenate((v, u)))),
                     shape=(n, n))  # both directions; as_graph sums the parallel edges and drops loops
    return BackendGraph(as_graph(A.tocsr(), weights=weight is not None), nodes, weight=weight,
                        multigraph=G.is_multigraph(), selfloops=int(np.count_nonzero(u == v)),
                        graph_attrs=G.graph if preserve_graph_attrs else None)


def convert_to_nx(obj, *, name=None):
    """networkx's hook: a :class:`BackendGraph` as a networkx graph; other objects unchanged.

    Parameters
    ----------
    obj : BackendGraph or any result
    name : str, optional
        networkx's.

    Returns
    -------
    networkx.Graph, networkx.MultiGraph or ``obj``
        The nodes in their order and the edges, with the weights under their attribute;
        results of the served functions are networkx's types already and pass as they are.

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.path_graph(["x", "y", "z"])
    >>> list(convert_to_nx(convert_from_nx(G)).edges)
    [('x', 'y'), ('y', 'z')]
    """
    if not isinstance(obj, BackendGraph):
        return obj
    import networkx as nx

    G = nx.MultiGraph() if obj.is_multigraph() else nx.Graph()
    G.graph.update(obj.graph_attrs)
    G.add_nodes_from(obj.nodes)
    g = obj.graph.on_device_of(np)
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    upper = rows < g.indices
    pairs = zip(rows[upper].tolist(), g.indices[upper].tolist())
    if g.weights is None:
        G.add_edges_from((obj.nodes[i], obj.nodes[j]) for i, j in pairs)
    else:
        G.add_weighted_edges_from(((obj.nodes[i], obj.nodes[j], w) for (i, j), w in
                                   zip(pairs, g.weights[upper].tolist())), weight=obj.weight)
    return G

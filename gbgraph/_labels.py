"""Node labels for networkx inputs: results in the input's own terms (type in, type out).

A networkx graph's vertices are its nodes, in the order ``list(G)`` (the order
:func:`gbgraph.as_graph` numbers them in). Public functions given one return sets of nodes
where they return vertex ids, and dicts node -> value where they return one value per
vertex; arguments that name vertices (labels, colors, orders, sets) may be given the same
way. Every other input keeps arrays (numpy, or CuPy for GPU input), and so does a
:class:`gbgraph.Graph`, which is how the algorithms call each other.
"""

import dataclasses

import numpy as np

__all__ = ["is_networkx", "labelled", "node_ids", "node_values"]


def is_networkx(A):
    """Whether ``A`` is a networkx graph (the input of a public function, before ``as_graph``)."""
    return type(A).__module__.split(".")[0] == "networkx"


def labelled(A, result, sets=(), maps=()):
    """``result`` (a dataclass) with the vertex-id arrays named in ``sets`` as sets of nodes
    and the per-vertex arrays named in ``maps`` as dicts node -> value, for a networkx ``A``;
    ``result`` itself for any other input."""
    if not is_networkx(A):
        return result
    nodes = list(A)
    changes = {name: {nodes[i] for i in _host(getattr(result, name)).tolist()} for name in sets}
    changes.update({name: dict(zip(nodes, _host(getattr(result, name)).tolist())) for name in maps})
    return dataclasses.replace(result, **changes)


def node_values(A, values, what):
    """One value per vertex, in ``A``'s vertex order: a dict node -> value becomes an array
    for a networkx ``A``; anything else is returned as it is (arrays are positions)."""
    if not (is_networkx(A) and isinstance(values, dict)):
        return values
    missing = [v for v in A if v not in values]
    if missing:
        raise ValueError(f"{what} has no entry for node {missing[0]!r} ({len(missing):,} nodes of A are missing)")
    return np.array([values[v] for v in A])


def node_ids(A, nodes, what):
    """The positions of ``nodes`` (a collection of nodes, not an array) in a networkx ``A``;
    arrays, and anything given with another ``A``, are returned as they are."""
    if not is_networkx(A) or hasattr(nodes, "__array__") or hasattr(nodes, "__cuda_array_interface__"):
        return nodes
    index = {v: i for i, v in enumerate(A)}
    ids = []
    for v in nodes:
        if v not in index:
            raise ValueError(f"{what} holds {v!r}, which is not a node of A")
        ids.append(index[v])
    return np.array(ids, dtype=np.int64)


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)

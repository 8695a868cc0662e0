"""What every example does before and after its algebra: take the graph in, give the result back.

Kept apart so that each algorithm's body is its GraphBLAS calls only.
"""

import functools

from .. import backends
from .._checks import check_integer
from .._labels import _host, is_networkx
from ..graph import as_graph

__all__ = ["adjacency", "dense", "in_input_terms", "vertex"]


def adjacency(A, backend, *, weighted=False):
    """``(be, M, n, symmetric)``: the backend, the adjacency matrix on it, its order, and
    whether ``M`` is known to equal ``Mᵀ`` (so that a pull may read ``M`` for ``Mᵀ``).

    ``A`` is anything :func:`gbgraph.as_graph` accepts (then ``M`` is its canonical pattern,
    or its weights with ``weighted=True``: int64 ones for a pattern), or a matrix of the
    backend named by ``backend``, used as it is (LAGraph's ``G->A``, directed unless proven
    otherwise).
    """
    if backend is not None:
        be = backends.backend(backend)
        if isinstance(A, _matrix_type(be.name)):
            if A.nrows != A.ncols:
                raise ValueError(f"the adjacency matrix must be square, got {A.nrows} x {A.ncols}")
            return be, A, A.nrows, False
    graph = as_graph(A, weights=weighted)
    be = backends.for_graph(backend, graph)
    graph = graph.on_device_of(be.xp)
    return be, be.adjacency(graph, weighted=weighted), graph.n, True


@functools.cache
def _matrix_type(name):
    be = backends.backend(name)
    return type(be.matrix(be.xp.zeros(1, "int64"), be.xp.zeros(0, "int64")))


def dense(be, v, n, fill, dtype):
    """The values of ``v`` at every position, ``fill`` where it has no entry: an array of
    ``be.xp`` (numpy or CuPy)."""
    w = be.full(n, fill, dtype)
    be.assign(w, v, mask=v)  # w<v> = v
    return be.values(w)


def in_input_terms(A, values, *, absent=None, ids=False):
    """``values`` (one per vertex) as the input holds its vertices: the array itself, or for a
    networkx graph a dict node -> value without the vertices whose value is ``absent``, with
    values that are vertex ids (``ids=True``) given as nodes."""
    if not is_networkx(A):
        return values
    nodes = list(A)
    return {nodes[i]: nodes[v] if ids else v for i, v in enumerate(_host(values).tolist()) if v != absent}


def vertex(A, name, value, n):
    """The position of the vertex ``value`` (a node of a networkx ``A``, else an int below n)."""
    if not is_networkx(A):
        return check_integer(name, value, 0, n - 1)
    index = {v: i for i, v in enumerate(A)}
    if value not in index:
        raise ValueError(f"{name} {value!r} is not a node of the graph")
    return index[value]

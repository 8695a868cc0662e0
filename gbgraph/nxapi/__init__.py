"""gbgraph as a NetworkX backend: ``nx.maximal_independent_set(G, backend="gbgraph")``.

NetworkX finds the backend through two entry points (``pyproject.toml``):
``networkx.backends`` names :data:`backend_interface`, and ``networkx.backend_info`` names
:func:`_nx_gbgraph.get_info` (a module apart, so that importing networkx does not import
gbgraph). A call with ``backend="gbgraph"``, or with ``"gbgraph"`` first in
``nx.config.backend_priority``, converts the networkx graph once (cached on the graph), asks
:meth:`Dispatcher.can_run`, and runs gbgraph's version, which returns networkx's types with
node labels; where gbgraph would return something else, ``can_run`` declines with the
reason and networkx runs its own code (or, for an explicit ``backend=``, says why).

Served: ``maximal_independent_set``, ``greedy_color`` (strategies ``largest_first`` and
``random_sequential``, exactly networkx's colors), ``kernighan_lin_bisection`` (without an
initial partition) and ``maximal_matching``; ``docs/networkx.md`` lists the conditions and
the results of networkx's own tests run against the backend.

Examples
--------
>>> import networkx as nx
>>> G = nx.path_graph(["a", "b", "c", "d", "e"])
>>> sorted(nx.maximal_independent_set(G, ["b"], backend="gbgraph"))
['b', 'd']
>>> H = nx.les_miserables_graph()
>>> nx.greedy_color(H, backend="gbgraph") == nx.greedy_color(H)   # networkx's colors exactly
True
"""

from _nx_gbgraph import get_info

from . import algorithms
from .algorithms import greedy_color, kernighan_lin_bisection, maximal_independent_set, maximal_matching
from .graph import BackendGraph, convert_from_nx, convert_to_nx

__all__ = ["BackendGraph", "Dispatcher", "backend_interface", "get_info"]


class Dispatcher:
    """The object networkx loads from the ``networkx.backends`` entry point: conversions,
    ``can_run``, and the served functions under networkx's names."""

    convert_from_nx = staticmethod(convert_from_nx)
    convert_to_nx = staticmethod(convert_to_nx)
    can_run = staticmethod(algorithms.can_run)

    maximal_independent_set = staticmethod(maximal_independent_set)
    greedy_color = staticmethod(greedy_color)
    kernighan_lin_bisection = staticmethod(kernighan_lin_bisection)
    maximal_matching = staticmethod(maximal_matching)


#: The backend interface networkx dispatches to.
backend_interface = Dispatcher()

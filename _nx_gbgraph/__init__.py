"""What gbgraph's NetworkX backend serves, for NetworkX's ``networkx.backend_info`` entry point.

NetworkX calls :func:`get_info` while it is being imported, for every installed backend, so
this module is separate from ``gbgraph`` and imports nothing: loading it must not load the
backend (numba, python-graphblas). The backend itself is ``gbgraph.nxapi``.
"""

__all__ = ["get_info"]

_DETERMINISTIC = "The result is the same on every call (networkx's changes with the random state)."


def get_info():
    """The backend's name, summary and the networkx functions it serves, with how each
    differs from networkx's own; networkx adds these notes to the functions' docstrings.

    Returns
    -------
    dict
        ``backend_name``, ``project``, ``package``, ``short_summary`` and ``functions``
        (networkx's name → ``{"additional_docs": ...}``), the keys networkx reads.

    Examples
    --------
    >>> from _nx_gbgraph import get_info
    >>> sorted(get_info()["functions"])
    ['greedy_color', 'kernighan_lin_bisection', 'maximal_independent_set', 'maximal_matching']
    """
    return {
        "backend_name": "gbgraph",
        "project": "gbgraph",
        "package": "gbgraph",
        "short_summary": "Deterministic graph algorithms as GraphBLAS semiring algebra (CPU and GPU).",
        "functions": {
            "greedy_color": {
                "additional_docs": (
                    "Strategies 'largest_first' and 'random_sequential' (as names or networkx's strategy functions), "
                    "without interchange: networkx's coloring exactly, by gbgraph.color(G, 'sequential', "
                    "order=...) in the strategy's order. Other strategies, callables and interchange=True run "
                    "networkx's own implementation."
                ),
            },
            "kernighan_lin_bisection": {
                "additional_docs": (
                    "gbgraph.bisect(G, imbalance=0): multilevel bisection (heavy edge coarsening, greedy graph "
                    "growing, Fiduccia-Mattheyses refinement at every level, the successor of Kernighan-Lin's "
                    "swaps) into halves of ceil(n/2) and floor(n/2) nodes, the larger first, as networkx returns. "
                    "Only without partition=, with the default max_iter, a weight attribute name (or None) "
                    "and non-negative finite weights, on graphs that are not multigraphs; otherwise networkx's "
                    f"own implementation runs. {_DETERMINISTIC}"
                ),
            },
            "maximal_independent_set": {
                "additional_docs": (
                    "gbgraph.mis1(G) (ECL-MIS's degree priority: low degree first), after the given nodes and "
                    "their neighbours are taken out; the nodes come first in the list, as in networkx. Only "
                    "with seed=None, on non-empty graphs without self loops; otherwise networkx's own "
                    f"implementation runs. {_DETERMINISTIC}"
                ),
            },
            "maximal_matching": {
                "additional_docs": (
                    "Heavy edge matching on the pattern (gbgraph.coarse_mapping(G, 'hem')): rounds of mutual "
                    "proposals along hashed edge priorities, maximal; each edge (u, v) has u before v in the "
                    "graph's node order, as networkx's edges do. A maximal matching, not the one of networkx's "
                    "sequential scan of G.edges()."
                ),
            },
        },
    }

"""The ``gbgraph`` command line.

GRAPH arguments name a Matrix Market file (``.mtx``, ``.mtx.gz``), a graph embedded in the
package (``fe_4elt2``), or a generator with its grid size::

    laplace3d:50          Laplace3D on a 50³ grid
    laplace3d:100,50,50   Laplace3D on a 100×50×50 grid
    elasticity3d:30       Elasticity3D on 30³ nodes (3 dofs each)
"""

import argparse
import sys
import time

import numpy as np

from . import __version__, backends, datasets, generators
from .algorithms.coloring import METHODS, PRIORITIES, color
from .algorithms.mis import mis2
from .graph import as_graph

__all__ = ["main", "load_graph"]

_GENERATORS = {"laplace3d": generators.laplace3d, "elasticity3d": generators.elasticity3d}


def load_graph(spec):
    """Read a GRAPH argument (file path, embedded name or ``generator:dims``) as a Graph.

    Raises
    ------
    ValueError
        for a generator spec with bad dimensions or an unknown generator.
    FileNotFoundError
        for a path that does not exist.
    """
    if spec in datasets.names():
        return as_graph(datasets.load(spec))
    name, sep, dims = spec.partition(":")
    if sep and name in _GENERATORS:
        try:
            sizes = [int(d) for d in dims.split(",")]
        except ValueError:
            raise ValueError(f"bad grid size in {spec!r}: expected e.g. {name}:50 or {name}:100,50,50") from None
        if len(sizes) not in (1, 3):
            raise ValueError(f"{spec!r} needs one or three grid sizes, got {len(sizes)}")
        return as_graph(_GENERATORS[name](*sizes))
    if sep and not spec.endswith((".mtx", ".mtx.gz")):
        raise ValueError(f"unknown generator {name!r} in {spec!r}; known: {', '.join(_GENERATORS)}")
    return as_graph(spec)


def _mis2(args):
    graph, be, load = _load(args)
    t1 = time.perf_counter()
    be.adjacency(graph, closed=True)
    t2 = time.perf_counter()
    result = mis2(graph, backend=be)
    t3 = time.perf_counter()
    rows = _graph_rows(args, graph, be) + [
        ("|MIS-2|", f"{len(result.vertices):,}"),
        ("iterations", f"{result.iterations}"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("setup time", f"{(t2 - t1) * 1e3:,.1f} ms  (the backend's matrix of A + I)"),
        ("mis2 time", f"{(t3 - t2) * 1e3:,.1f} ms"),
    ]
    _finish(args, rows, result.vertices)


def _color(args):
    graph, be, load = _load(args)
    t1 = time.perf_counter()
    be.adjacency(graph, closed=args.distance == 2)
    t2 = time.perf_counter()
    result = color(graph, args.method, args.distance, be, priority=args.priority)
    t3 = time.perf_counter()
    rows = _graph_rows(args, graph, be) + [
        ("method", f"{args.method}, distance {args.distance}" + (f", priority {args.priority}" if args.priority else "")),
        ("colors", f"{result.n_colors:,}"),
        ("iterations", f"{result.iterations}"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("setup time", f"{(t2 - t1) * 1e3:,.1f} ms  (the backend's matrix of A{' + I' * (args.distance == 2)})"),
        ("color time", f"{(t3 - t2) * 1e3:,.1f} ms"),
    ]
    _finish(args, rows, result.colors)


def _load(args):
    """(graph, backend, seconds taken) for the GRAPH and --backend arguments."""
    t0 = time.perf_counter()
    graph = load_graph(args.graph)
    return graph, backends.backend(args.backend), time.perf_counter() - t0


def _graph_rows(args, graph, be):
    return [("graph", args.graph), ("backend", be.name), ("n", f"{graph.n:,}"),
            ("nnz", f"{graph.nnz:,}  (off-diagonal entries, both triangles)")]


def _finish(args, rows, values):
    """Write ``values`` to --output if given, then print the rows as a two-column table."""
    if args.output:
        _write_ids(args.output, np.asarray(values))
        rows.append(("written to", args.output))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")


def _write_ids(path, ids):
    if path.endswith(".npy"):
        np.save(path, ids)
    else:
        np.savetxt(path, ids, fmt="%d")


def _parser():
    parser = argparse.ArgumentParser(
        prog="gbgraph",
        description="Graph algorithms for multilevel methods, written as GraphBLAS semiring algebra.",
        epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"gbgraph {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    p = commands.add_parser(
        "mis2", help="distance-2 maximal independent set (Kokkos Kernels' MIS2_FAST, bit for bit)",
        description="Compute a distance-2 maximal independent set and print its size, the number "
                    "of rounds and the time taken.",
        epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    _common_arguments(p, "write the vertex ids, one per line (.npy: numpy binary)")
    p.set_defaults(run=_mis2)
    p = commands.add_parser(
        "color", help="deterministic vertex coloring (Jones-Plassmann rounds, first-fit greedy, ...)",
        description="Color the vertices so that vertices within --distance edges differ, and print "
                    "the number of colors, of rounds and the time taken.",
        epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--method", default="greedy", choices=METHODS, help="coloring method (default: greedy)")
    p.add_argument("--distance", default=1, type=int, choices=(1, 2), help="1 or 2 (greedy, jones_plassmann)")
    p.add_argument("--priority", default=None, choices=PRIORITIES,
                   help="vertex order of greedy (default: largest_degree) and jones_plassmann (default: random)")
    _common_arguments(p, "write the colors, one per line in vertex order (.npy: numpy binary)")
    p.set_defaults(run=_color)
    return parser


def _common_arguments(p, output_help):
    p.add_argument("graph", metavar="GRAPH", help="Matrix Market file, embedded graph name or generator spec")
    p.add_argument("--backend", default=None, choices=backends.names(), help="backend (default: suitesparse)")
    p.add_argument("--output", metavar="FILE", help=output_help)


def main(argv=None):
    """Entry point of the ``gbgraph`` command; returns the exit status."""
    args = _parser().parse_args(argv)
    try:
        args.run(args)
    except (ValueError, TypeError, OSError) as e:
        print(f"gbgraph {args.command}: error: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The ``gbgraph`` command line.

GRAPH arguments name a Matrix Market file (``.mtx``, ``.mtx.gz``), a graph embedded in the
package (``fe_4elt2``), or a generator with its grid size::

    laplace3d:50          Laplace3D on a 50³ grid
    laplace3d:100,50,50   Laplace3D on a 100×50×50 grid
    elasticity3d:30       Elasticity3D on 30³ nodes (3 dofs each)
"""

import argparse
import dataclasses
import difflib
import os
import sys
import time
import warnings

import numpy as np

from . import __version__, backends, datasets, generators
from .algorithms.aggregation import METHODS as AGGREGATION_METHODS
from .algorithms.aggregation import aggregate
from .algorithms.coarsen import COARSE_METHODS, coarsen
from .algorithms.mapping import METHODS as MAPPING_METHODS
from .algorithms.coloring import METHODS as COLOR_METHODS
from .algorithms.coloring import PRIORITIES as COLOR_PRIORITIES
from .algorithms.coloring import color
from .algorithms.mis import MIS1_PRIORITIES, MIS2_PRIORITIES, mis1, mis2
from .algorithms.partition import REFINEMENTS, partition
from .errors import AsymmetricGraphError, GBGraphError
from .graph import as_graph, symmetrize

__all__ = ["main", "load_graph"]

_GENERATORS = {"laplace3d": generators.laplace3d, "elasticity3d": generators.elasticity3d}
_SUFFIXES = (".mtx", ".mtx.gz")

# command: (algorithm, its priorities (default first), the set's name, help, description)
_COMMANDS = {
    "mis1": (mis1, MIS1_PRIORITIES, "|MIS-1|",
             "maximal independent set (ECL-MIS degree priority; Luby; random permutation)",
             "Compute a maximal independent set and print its size, the number of rounds and the\n"
             "time taken. --priority: degree (ECL-MIS, lower degree first: the largest sets),\n"
             "random (Luby's Monte Carlo Algorithm A), permutation (a fixed random order)."),
    "mis2": (mis2, MIS2_PRIORITIES, "|MIS-2|",
             "distance-2 maximal independent set (Kokkos Kernels' MIS2_FAST, bit for bit)",
             "Compute a distance-2 maximal independent set and print its size, the number of\n"
             "rounds and the time taken. --priority: refresh (Kokkos Kernels' MIS2_FAST), fixed\n"
             "(Bell et al.), quality (Kokkos Kernels' MIS2_QUALITY, lower degree first)."),
}


def load_graph(spec, symmetrize_input=False):
    """Read a GRAPH argument (file path, embedded name or ``generator:dims``) as a Graph.

    Parameters
    ----------
    spec : str
        The GRAPH argument.
    symmetrize_input : bool
        Take the pattern of A ∪ Aᵀ (``--symmetrize``) instead of rejecting an asymmetric A.

    Raises
    ------
    ValueError
        for a generator spec with bad or missing dimensions, an unknown generator, or a
        spec that is none of the three kinds (the message lists them); for an asymmetric
        graph without ``symmetrize_input`` (the message names ``--symmetrize``).
    FileNotFoundError
        for a path that does not exist.
    """
    matrix = _read_spec(spec)
    if symmetrize_input:
        return as_graph(symmetrize(matrix), name=spec)
    try:
        return as_graph(matrix, name=spec)
    except AsymmetricGraphError as e:
        raise AsymmetricGraphError(spec, e.one_way, e.stored, "add --symmetrize for the pattern of A ∪ Aᵀ") from None


def _read_spec(spec):
    """The matrix, or the path, that a GRAPH argument names."""
    if spec in datasets.names():
        return datasets.load(spec)
    name, sep, dims = spec.partition(":")
    if name in _GENERATORS:
        if not sep:
            raise ValueError(f"{spec!r} needs a grid size: {name}:50 or {name}:100,50,50")
        try:
            sizes = [int(d) for d in dims.split(",")]
        except ValueError:
            raise ValueError(f"bad grid size in {spec!r}: expected e.g. {name}:50 or {name}:100,50,50") from None
        if len(sizes) not in (1, 3):
            raise ValueError(f"{spec!r} needs one or three grid sizes, got {len(sizes)}")
        return _GENERATORS[name](*sizes)
    if spec.lower().endswith(_SUFFIXES):
        return spec
    if sep:
        raise ValueError(f"unknown generator {name!r} in {spec!r}; known: {', '.join(_GENERATORS)}")
    close = difflib.get_close_matches(spec, datasets.names() + list(_GENERATORS), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown graph {spec!r}: expected a Matrix Market file (.mtx, .mtx.gz), an embedded graph "
                     f"({', '.join(datasets.names())}) or a generator with its grid size "
                     f"({', '.join(f'{g}:50' for g in _GENERATORS)}){hint}")


def _mis(args):
    algorithm, _, size_name, _, _ = _COMMANDS[args.command]
    graph, be, load = _load(args)
    t1 = time.perf_counter()
    be.adjacency(graph, closed=True)
    t2 = time.perf_counter()
    result = algorithm(graph, backend=be, priority=args.priority)
    t3 = time.perf_counter()
    rows = _graph_rows(args, graph, be) + [
        ("priority", args.priority),
        (size_name, f"{len(result.vertices):,}"),
        ("iterations", f"{result.iterations}"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("setup time", f"{(t2 - t1) * 1e3:,.1f} ms  (the backend's matrix of A + I)"),
        (f"{args.command} time", f"{(t3 - t2) * 1e3:,.1f} ms"),
    ]
    _finish(args, rows, result.vertices)


def _color(args):
    graph, be, load = _load(args)
    t1 = time.perf_counter()
    be.adjacency(graph, closed=args.distance == 2)
    t2 = time.perf_counter()
    result = color(graph, args.method, distance=args.distance, backend=be, priority=args.priority)
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


def _aggregate(args):
    graph, be, load = _load(args)
    t1 = time.perf_counter()
    be.adjacency(graph, closed=True)
    t2 = time.perf_counter()
    result = aggregate(graph, args.method, backend=be)
    t3 = time.perf_counter()
    rows = _graph_rows(args, graph, be) + [
        ("method", args.method),
        ("aggregates", f"{result.n_aggregates:,}  (coarsening ratio {graph.n / max(result.n_aggregates, 1):.2f})"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("setup time", f"{(t2 - t1) * 1e3:,.1f} ms  (the backend's matrix of A + I)"),
        ("aggregate time", f"{(t3 - t2) * 1e3:,.1f} ms"),
    ]
    _finish(args, rows, result.labels)


def _coarsen(args):
    graph, be, load = _load(args)
    graph = _reweighted(graph, args.weights)
    t1 = time.perf_counter()
    hierarchy = coarsen(graph, args.method, cutoff=args.cutoff, construction=args.construction, seed=args.seed,
                        backend=be)
    t2 = time.perf_counter()
    rows = _graph_rows(args, graph, be) + [
        ("method", f"{args.method} mapping, {args.construction} coarse graphs, cutoff {args.cutoff}"),
        ("levels", f"{len(hierarchy)}  (stopped by {hierarchy.stopped}; average coarsening ratio "
                   f"{hierarchy.average_ratio:.2f})"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("coarsen time", f"{(t2 - t1) * 1e3:,.1f} ms"),
    ]
    one_level = len(hierarchy) == 1
    _finish(args, rows, None if one_level else hierarchy[0].labels)
    print(hierarchy)
    if one_level and args.output:
        reason = (f"{graph.n:,} vertices, at most --cutoff {args.cutoff}" if graph.n <= args.cutoff
                  else "the first level would keep over 95% of the vertices" if hierarchy.stopped == "stall"
                  else "the first level would have fewer than 10 vertices")
        raise ValueError(f"nothing written to {args.output!r}: the hierarchy has one level ({reason}), so no "
                         f"vertex has an aggregate")


def _reweighted(graph, weights):
    """The graph with the edge weights --weights asks for: its values, |A(i, j)| or none."""
    if weights == "values" or graph.weights is None:
        return graph
    return dataclasses.replace(graph, weights=abs(graph.weights) if weights == "abs" else None, _cache={})


def _partition(args):
    graph, be, load = _load(args)
    graph = _reweighted(graph, args.weights)
    t1 = time.perf_counter()
    result = partition(graph, args.k, coarsening=args.coarsening, refine=args.refine, imbalance=args.imbalance,
                       seed=args.seed, tries=args.tries, backend=be)
    t2 = time.perf_counter()
    seconds = result.seconds
    weights = result.part_weights
    rows = _graph_rows(args, graph, be) + [
        ("method", f"{args.coarsening} coarsening, {args.refine} refinement, k = {args.k}, imbalance {args.imbalance}, "
                   f"best of {args.tries}"),
        ("cut", f"{result.cut:,}  (total weight of the edges between parts)"),
        ("imbalance", f"{result.imbalance:.4f}  (heaviest part {weights.max():,} over the ideal "
                      f"{weights.sum() / args.k:,.1f}, minus 1)"),
        ("levels", f"{len(result.levels)}  ({' > '.join(f'{n:,}' for n in result.levels)} vertices"
                   f"{'; first bisection' if args.k > 2 else ''})"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("partition time", f"{(t2 - t1) * 1e3:,.1f} ms  (coarsen {seconds['coarsen'] * 1e3:,.1f}, initial "
                           f"{seconds['initial'] * 1e3:,.1f}, refine {seconds['refine'] * 1e3:,.1f})"),
    ]
    _finish(args, rows, result.parts)


def _load(args):
    """(graph, backend, seconds taken) for the GRAPH, --symmetrize and --backend arguments;
    the backend first, so that a missing CuPy stops the command before the graph is read."""
    be = backends.backend(args.backend)
    t0 = time.perf_counter()
    graph = load_graph(args.graph, args.symmetrize)
    return graph, be, time.perf_counter() - t0


def _graph_rows(args, graph, be):
    return [("graph", args.graph), ("backend", be.name), ("n", f"{graph.n:,}"),
            ("nnz", f"{graph.nnz:,}  (off-diagonal entries, both triangles)")]


def _finish(args, rows, values):
    """Write ``values`` (None: nothing) to --output if given, then print the rows as a
    two-column table."""
    if args.output and values is not None:
        _write_ids(args.output, _host(values))
        rows.append(("written to", args.output))
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")


def _host(values):
    return values.get() if hasattr(values, "__cuda_array_interface__") else np.asarray(values)


def _check_output(path):
    """Open --output for writing before computing, so that a path that cannot be written
    fails first; a file the check creates is removed again (the command writes it last)."""
    existed = os.path.exists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as e:
        raise OSError(f"cannot write --output {path!r}: {e.strerror}") from None
    if not existed:
        os.remove(path)


def _write_ids(path, ids):
    if path.endswith(".npy"):
        np.save(path, ids)
    else:
        np.savetxt(path, ids, fmt="%d")


def _weights_option(p, what):
    p.add_argument("--weights", default="values", choices=("values", "abs", "pattern"),
                   help=f"{what}: the values (default; negative ones are an error), their absolute values (a "
                        "Laplacian), or 1 for every edge")


def _parser():
    parser = argparse.ArgumentParser(
        prog="gbgraph",
        description="Graph algorithms for multilevel methods, written as GraphBLAS semiring algebra.",
        epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"gbgraph {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name, summary, description, output_help, run):
        p = commands.add_parser(name, help=summary, description=description, epilog=__doc__.split("\n", 2)[2],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
        p.add_argument("graph", metavar="GRAPH", help="Matrix Market file, embedded graph name or generator spec")
        p.add_argument("--backend", default=None, choices=backends.names(), help="backend (default: cupy for GPU input, else numba)")
        p.add_argument("--output", metavar="FILE", help=output_help + " (.npy: numpy binary)")
        p.add_argument("--symmetrize", action="store_true",
                       help="use the pattern of A ∪ Aᵀ, for a GRAPH whose pattern is not symmetric")
        p.set_defaults(run=run)
        return p

    for name, (_, priorities, _, summary, description) in _COMMANDS.items():
        p = command(name, summary, description, "write the vertex ids, one per line", _mis)
        p.add_argument("--priority", default=priorities[0], choices=priorities,
                       help=f"vertex priorities (default: {priorities[0]})")
    p = command("color", "deterministic vertex coloring (Jones-Plassmann rounds, first-fit greedy, ...)",
                "Color the vertices so that vertices within --distance edges differ, and print the\n"
                "number of colors, of rounds and the time taken.",
                "write the colors, one per line in vertex order", _color)
    p.add_argument("--method", default="greedy", choices=COLOR_METHODS, help="coloring method (default: greedy)")
    p.add_argument("--distance", default=1, type=int, choices=(1, 2), help="1 or 2 (greedy, jones_plassmann)")
    p.add_argument("--priority", default=None, choices=COLOR_PRIORITIES,
                   help="vertex order of greedy (default: largest_degree) and jones_plassmann (default: random)")
    p = command("aggregate", "MIS-2 aggregation for algebraic multigrid (Kokkos Kernels' labels, bit for bit)",
                "Aggregate the vertices around a distance-2 maximal independent set and print the\n"
                "number of aggregates and the time taken.",
                "write each vertex's aggregate, one per line", _aggregate)
    p.add_argument("--method", default="mis2", choices=AGGREGATION_METHODS,
                   help="mis2: graph_mis2_aggregate (default); mis2_basic: graph_mis2_coarsen")
    p = command("coarsen", "multilevel coarsening: coarse mappings and coarse graphs, level by level",
                "Coarsen the graph until a level has at most --cutoff vertices and print the\n"
                "hierarchy: vertices, edges, coarsening ratio and times of each level.",
                "write the first level's coarse vertex of each vertex, one per line (a one-level "
                "hierarchy has none: an error)", _coarsen)
    p.add_argument("--method", default="mis2", choices=MAPPING_METHODS,
                   help="coarse mapping (default: mis2): hec, hec3 (heavy edge coarsening), hem (heavy edge "
                        "matching), mtmetis (HEM + two-hop matching), gosh, gosh_hec, mis2, mis2_basic; "
                        "see docs/coarsening.md")
    _weights_option(p, "edge weights of the heavy-edge mappings")
    p.add_argument("--seed", default=0, type=int, help="seed of the hash that breaks ties (default: 0; mis2: 0 only)")
    p.add_argument("--construction", default="spgemm", choices=COARSE_METHODS,
                   help="coarse graph construction (default: spgemm)")
    p.add_argument("--cutoff", default=50, type=int, help="stop at this many vertices (default: 50)")
    p = command("partition", "multilevel graph partitioning: bisection (FM, Jet, spectral) and k-way",
                "Partition the vertices into -k parts of nearly equal size joined by few edges\n"
                "(multilevel recursive bisection) and print the cut, the imbalance, the levels\n"
                "and the times. Edge values are weights (negative ones are an error).",
                "write each vertex's part, one per line", _partition)
    p.add_argument("-k", default=2, type=int, help="number of parts (default: 2)")
    p.add_argument("--coarsening", default="hec", choices=MAPPING_METHODS, help="coarse mapping (default: hec)")
    p.add_argument("--refine", default="fm", choices=REFINEMENTS,
                   help="fm (Fiduccia-Mattheyses, default), jet (parallel, as semiring algebra), spectral")
    p.add_argument("--imbalance", default=0.03, type=float,
                   help="allowed imbalance: parts weigh at most (1 + E) W / k (default: 0.03)")
    p.add_argument("--seed", default=0, type=int, help="seed of the hash that breaks ties (default: 0)")
    p.add_argument("--tries", default=3, type=int,
                   help="multilevel bisections per split, seeds S, S+1, ...; the best is kept (default: 3)")
    _weights_option(p, "edge weights, which the cut sums")
    return parser


def main(argv=None):
    """Entry point of the ``gbgraph`` command; returns the exit status."""
    args = _parser().parse_args(argv)

    def show_warning(message, *_):  # one line, as errors get: no file name, no source line
        print(f"gbgraph {args.command}: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show_warning
        try:
            if args.output:
                _check_output(args.output)
            args.run(args)
        # ImportError: --backend cupy without CuPy (the message names the extras);
        # GBGraphError: a StallError; MemoryError: the GPU's, with the graph's size
        except (ValueError, TypeError, OSError, ImportError, MemoryError, GBGraphError) as e:
            print(f"gbgraph {args.command}: error: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

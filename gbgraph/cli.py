"""The ``gbgraph`` command line.

GRAPH arguments name a Matrix Market file (``.mtx``, ``.mtx.gz``), a graph embedded in the
package (``fe_4elt2``), or a generator with its grid size::

    laplace3d:50          Laplace3D on a 50³ grid
    laplace3d:100,50,50   Laplace3D on a 100×50×50 grid
    elasticity3d:30       Elasticity3D on 30³ nodes (3 dofs each)
"""

import argparse
import contextlib
import difflib
import json
import os
import sys
import time
import warnings

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

from . import __version__, _progress, backends, datasets, generators
from .algorithms.aggregation import METHODS as AGGREGATION_METHODS
from .algorithms.aggregation import aggregate
from .algorithms.coarsen import COARSE_METHODS, coarsen
from .algorithms.mapping import METHODS as MAPPING_METHODS
from .algorithms.mapping import WEIGHTED_METHODS
from .algorithms.coloring import METHODS as COLOR_METHODS
from .algorithms.coloring import PRIORITIES as COLOR_PRIORITIES
from .algorithms.coloring import color
from .algorithms.mis import _stores_diagonal as _mis_reads_closed
from .algorithms.mis import MIS1_PRIORITIES, MIS2_PRIORITIES, mis1, mis2
from .algorithms.partition import METHODS as PARTITION_METHODS
from .algorithms.partition import REFINEMENTS, SMALL_ENTRIES, chosen, partition
from .errors import AsymmetricGraphError, GBGraphError
from .graph import EDGE_WEIGHTS, as_graph, choose_weights, symmetrize
from .io import read_matrix_market

__all__ = ["main", "load_graph"]

_GENERATORS = {"laplace3d": generators.laplace3d, "elasticity3d": generators.elasticity3d}
#: Rows per grid point of each generator, for the points of ``--plot``.
_DOFS = {"laplace3d": 1, "elasticity3d": 3}
#: The graph of ``gbgraph info`` without a GRAPH.
_DEFAULT_GRAPH = "fe_4elt2"
#: Seconds of work before a progress bar appears: quick commands show none.
_BAR_DELAY = 1.0
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
    grid = _grid(spec)
    if grid is not None:
        return _GENERATORS[grid[0]](*grid[1])
    if spec.lower().endswith(_SUFFIXES):
        return spec
    name, sep, _ = spec.partition(":")
    if sep:
        raise ValueError(f"unknown generator {name!r} in {spec!r}; known: {', '.join(_GENERATORS)}")
    close = difflib.get_close_matches(spec, datasets.names() + list(_GENERATORS), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ""
    raise ValueError(f"unknown graph {spec!r}: expected a Matrix Market file (.mtx, .mtx.gz), an embedded graph "
                     f"({', '.join(datasets.names())}) or a generator with its grid size "
                     f"({', '.join(f'{g}:50' for g in _GENERATORS)}){hint}")


def _grid(spec):
    """(generator, grid sizes) of a generator spec, None for another kind of GRAPH."""
    name, sep, dims = spec.partition(":")
    if name not in _GENERATORS:
        return None
    if not sep:
        raise ValueError(f"{spec!r} needs a grid size: {name}:50 or {name}:100,50,50")
    try:
        sizes = [int(d) for d in dims.split(",")]
    except ValueError:
        raise ValueError(f"bad grid size in {spec!r}: expected e.g. {name}:50 or {name}:100,50,50") from None
    if len(sizes) not in (1, 3):
        raise ValueError(f"{spec!r} needs one or three grid sizes, got {len(sizes)}")
    return name, sizes


def _coordinates(spec):
    """The grid points of a generated GRAPH, for --plot; None (a computed layout) otherwise."""
    grid = _grid(spec)
    return None if grid is None else generators.grid_coordinates(*grid[1], dofs=_DOFS[grid[0]])


def _mis(args):
    algorithm, _, size_name, _, _ = _COMMANDS[args.command]
    graph, be, load = _load(args)
    t1 = time.perf_counter()
    closed = _mis_reads_closed(be)  # A + I on a GPU; the host's row operators read A itself
    be.adjacency(graph, closed=closed)
    t2 = time.perf_counter()
    result = algorithm(graph, backend=be, priority=args.priority)
    t3 = time.perf_counter()
    rows = _graph_rows(args, graph, be) + [
        ("priority", args.priority),
        (size_name, f"{len(result.vertices):,}"),
        ("iterations", f"{result.iterations}"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("setup time", f"{(t2 - t1) * 1e3:,.1f} ms  (the backend's matrix of A{' + I' * closed})"),
        (f"{args.command} time", f"{(t3 - t2) * 1e3:,.1f} ms"),
    ]
    record = _graph_record(args, graph, be) | {
        "priority": args.priority, "size": len(result.vertices), "iterations": result.iterations,
        "seconds": {"load": load, "setup": t2 - t1, args.command: t3 - t2}}
    _finish(args, rows, record, result.vertices)


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
    record = _graph_record(args, graph, be) | {
        "method": args.method, "distance": args.distance, "priority": args.priority, "colors": result.n_colors,
        "iterations": result.iterations, "seconds": {"load": load, "setup": t2 - t1, "color": t3 - t2}}
    _finish(args, rows, record, result.colors)


def _aggregate(args):
    graph, be, load = _load(args)
    t1 = time.perf_counter()
    be.adjacency(graph)  # each phase adds a row's own vertex itself
    t2 = time.perf_counter()
    result = aggregate(graph, args.method, backend=be)
    t3 = time.perf_counter()
    rows = _graph_rows(args, graph, be) + [
        ("method", args.method),
        ("aggregates", f"{result.n_aggregates:,}  (coarsening ratio {graph.n / max(result.n_aggregates, 1):.2f})"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("setup time", f"{(t2 - t1) * 1e3:,.1f} ms  (the backend's matrix of A)"),
        ("aggregate time", f"{(t3 - t2) * 1e3:,.1f} ms"),
    ]
    record = _graph_record(args, graph, be) | {
        "method": args.method, "aggregates": result.n_aggregates,
        "seconds": {"load": load, "setup": t2 - t1, "aggregate": t3 - t2}}
    _plot(args, rows, record, lambda plot: plot.aggregates(graph, result.labels, _coordinates(args.graph)))
    _finish(args, rows, record, result.labels)


def _coarsen(args):
    graph, be, load = _load(args)
    graph = _reweighted(args, graph, "coarse mappings look for the heaviest edges"
                        if args.method in WEIGHTED_METHODS else None)
    t1 = time.perf_counter()
    hierarchy = coarsen(graph, args.method, cutoff=args.cutoff, construction=args.construction, seed=args.seed,
                        weights=args.weights, backend=be)
    t2 = time.perf_counter()
    rows = _graph_rows(args, graph, be) + [
        ("method", f"{args.method} mapping, {args.construction} coarse graphs, cutoff {args.cutoff}, "
                   f"weights {args.weights}"),
        ("levels", f"{len(hierarchy)}  (stopped by {hierarchy.stopped}; average coarsening ratio "
                   f"{hierarchy.average_ratio:.2f})"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("coarsen time", f"{(t2 - t1) * 1e3:,.1f} ms"),
    ]
    record = _graph_record(args, graph, be) | {
        "method": args.method, "construction": args.construction, "cutoff": args.cutoff, "seed": args.seed,
        "weights": args.weights, "stopped": hierarchy.stopped, "average_ratio": hierarchy.average_ratio,
        "levels": [{"n": level.n, "edges": level.nnz // 2,
                    "seconds": None if level.labels is None else dict(zip(("map", "build"), level.seconds))}
                   for level in hierarchy],
        "seconds": {"load": load, "coarsen": t2 - t1}}
    one_level = len(hierarchy) == 1
    _plot(args, rows, record, lambda plot: plot.hierarchy(hierarchy))
    _finish(args, rows, record, None if one_level else hierarchy[0].labels)
    if not args.json:
        print(hierarchy)
    if one_level and args.output:
        reason = (f"{graph.n:,} vertices, at most --cutoff {args.cutoff}" if graph.n <= args.cutoff
                  else "the first level would keep over 95% of the vertices" if hierarchy.stopped == "stall"
                  else "the first level would have fewer than 10 vertices")
        raise ValueError(f"nothing written to {args.output!r}: the hierarchy has one level ({reason}), so no "
                         f"vertex has an aggregate")


def _reweighted(args, graph, why):
    """The graph with the edge weights --weights asks for (|A(i, j)|, the values or none),
    checked as the Python call checks them, with errors that name --weights."""
    return choose_weights(graph, args.weights, why, option="--weights {}", name=args.graph)


def _partition(args):
    graph, be, load = _load(args)
    graph = _reweighted(args, graph, "the cut sums edge weights")
    method, tries = chosen(args.k, args.method, args.refine, args.tries, graph.nnz)
    t1 = time.perf_counter()
    result = partition(graph, args.k, method=args.method, coarsening=args.coarsening, refine=args.refine,
                       imbalance=args.imbalance, seed=args.seed, tries=args.tries, weights=args.weights, backend=be)
    t2 = time.perf_counter()
    seconds = result.seconds
    weights = result.part_weights
    rows = _graph_rows(args, graph, be) + [
        ("method", f"{method}, {args.coarsening} coarsening, {args.refine} refinement, k = {args.k}, imbalance "
                   f"{args.imbalance}, best of {tries}, weights {args.weights}"),
        ("cut", f"{result.cut:,}  (total weight of the edges between parts)"),
        ("imbalance", f"{result.imbalance:.4f}  (heaviest part {weights.max():,} over the ideal "
                      f"{weights.sum() / args.k:,.1f}, minus 1)"),
        ("levels", f"{len(result.levels)}  ({' > '.join(f'{n:,}' for n in result.levels)} vertices"
                   f"{'; first bisection' if args.k > 2 and method == 'recursive' else ''})"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating, checking the graph)"),
        ("partition time", f"{(t2 - t1) * 1e3:,.1f} ms  (coarsen {seconds['coarsen'] * 1e3:,.1f}, initial "
                           f"{seconds['initial'] * 1e3:,.1f}, refine {seconds['refine'] * 1e3:,.1f})"),
    ]
    record = _graph_record(args, graph, be) | {
        "k": args.k, "method": method, "coarsening": args.coarsening, "refine": args.refine,
        "imbalance_allowed": args.imbalance, "seed": args.seed, "tries": tries, "weights": args.weights, "cut": result.cut,
        "imbalance": result.imbalance, "part_weights": weights.tolist(), "levels": list(result.levels),
        "seconds": {"load": load, "partition": t2 - t1, **seconds}}
    _plot(args, rows, record, lambda plot: plot.partition(graph, result.parts, _coordinates(args.graph)))
    _finish(args, rows, record, result.parts)


def _info(args):
    default = args.graph is None
    args.graph = _DEFAULT_GRAPH if default else args.graph
    t0 = time.perf_counter()
    A, weighted = _read_matrix(args.graph)
    load = time.perf_counter() - t0
    stats = _statistics(A, weighted)
    degree, weights = stats["degree"], stats["weights"]
    rows = [
        ("graph", args.graph + (" (the default: gbgraph info GRAPH for another)" if default else "")),
        ("n", f"{stats['n']:,}"),
        ("edges", f"{stats['edges']:,}  (of the pattern of A ∪ Aᵀ, without the diagonal)"),
        ("stored entries", f"{stats['stored_entries']:,}  ({stats['diagonal_entries']:,} on the diagonal)"),
        ("degree", f"min {degree['min']:,}, max {degree['max']:,}, mean {degree['mean']:.2f}, "
                   f"median {degree['median']:g}  ({stats['isolated']:,} isolated vertices)"),
        ("components", f"{stats['components']:,}  (the largest has {stats['largest_component']:,} vertices)"),
        ("symmetric", "yes" if stats["symmetric"] else
         f"no: {stats['one_way_entries']:,} off-diagonal entries (i, j) have no (j, i); the commands need "
         "--symmetrize"),
        ("weighted", "no (a pattern)" if weights is None else
         f"yes: values {weights['min']:g} .. {weights['max']:g}"
         f"{'' if stats['symmetric_values'] is not False else ', not symmetric'}"),
        ("load time", f"{load * 1e3:,.1f} ms  (reading or generating)"),
    ]
    _finish(args, rows, {"command": "info", "graph": args.graph} | stats | {"seconds": {"load": load}}, None)


def _read_matrix(spec):
    """(scipy CSR, weighted) of a GRAPH argument, as stored: not checked, not symmetrized."""
    source = datasets.path(spec) if spec in datasets.names() else _read_spec(spec)
    if isinstance(source, str):
        return read_matrix_market(source)
    return sp.csr_array(source), True


def _statistics(A, weighted):
    """What ``gbgraph info`` reports of a stored matrix A: sizes, degrees and components of
    the graph of A ∪ Aᵀ without its diagonal, whether A's pattern (and values) are symmetric."""
    n = A.shape[0]
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"{A.shape[0]:,} × {A.shape[1]:,} is not a square matrix, so not a graph")
    C = A.tocoo()
    off = C.row != C.col
    diagonal = np.unique(C.row[~off]).size
    P = sp.csr_array((np.ones(int(off.sum()), bool), (C.row[off], C.col[off])), shape=A.shape)  # entries are edges
    S = (P + P.T).tocsr()  # the undirected graph
    one_way = int(S.nnz - P.nnz)  # |P ∪ Pᵀ| - |P| = |P \ Pᵀ|: entries without their mirror
    degree = np.diff(S.indptr)
    count, component = csgraph.connected_components(S, directed=False)
    values = A.data[:A.indptr[-1]]
    symmetric_values = bool(abs(A - A.T).max() == 0) if weighted and one_way == 0 and n else None
    return {
        "n": n, "edges": S.nnz // 2, "stored_entries": int(A.indptr[-1]), "diagonal_entries": diagonal,
        "degree": {"min": int(degree.min()) if n else 0, "max": int(degree.max()) if n else 0,
                   "mean": float(degree.mean()) if n else 0.0, "median": float(np.median(degree)) if n else 0.0},
        "isolated": int(np.count_nonzero(degree == 0)), "components": int(count),
        "largest_component": int(np.bincount(component).max(initial=0)),
        "symmetric": one_way == 0, "one_way_entries": one_way,
        "weighted": weighted, "symmetric_values": symmetric_values,
        "weights": {"min": float(values.min()), "max": float(values.max())} if weighted and values.size else None,
    }


def _load(args):
    """(graph, backend, seconds taken) for the GRAPH, --symmetrize and --backend arguments;
    the backend first, so that a missing CuPy stops the command before the graph is read."""
    be = backends.backend(args.backend)
    t0 = time.perf_counter()
    graph = load_graph(args.graph, args.symmetrize)
    return graph, be, time.perf_counter() - t0


def _graph_rows(args, graph, be):
    return [("graph", args.graph), ("backend", be.name), ("n", f"{graph.n:,}"),
            ("edges", f"{graph.nnz // 2:,}  (without the diagonal, as gbgraph info counts them)")]


def _graph_record(args, graph, be):
    return {"command": args.command, "graph": args.graph, "backend": be.name, "n": graph.n, "edges": graph.nnz // 2}


def _plot(args, rows, record, draw):
    """Draw the picture of --plot (``draw(gbgraph.plot)`` returns its axes) and save it."""
    if not args.plot:
        return
    from . import plot

    ax = draw(plot)
    ax.figure.savefig(args.plot, dpi=150, bbox_inches="tight")
    _pyplot().close(ax.figure)
    rows.append(("plotted to", args.plot))
    record["plot"] = args.plot


def _pyplot():
    """matplotlib's pyplot on the Agg backend: --plot writes a file and needs no display."""
    try:
        import matplotlib
    except ImportError:
        raise ImportError("--plot needs matplotlib: pip install gbgraph[plot]") from None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _finish(args, rows, record, values):
    """Write ``values`` (None: nothing) to --output if given, then print the rows as a
    two-column table, or with --json the record as one JSON object."""
    if args.output and values is not None:
        _write_ids(args.output, _host(values))
        rows.append(("written to", args.output))
        record["output"] = args.output
    _progress.report("output")  # the bars go before the table comes
    if args.json:
        print(json.dumps(record))
        return
    width = max(len(k) for k, _ in rows)
    for key, value in rows:
        print(f"{key:<{width}}  {value}")


def _host(values):
    return values.get() if hasattr(values, "__cuda_array_interface__") else np.asarray(values)


def _check_output(path, option):
    """Open ``path`` for writing before computing, so that a path that cannot be written
    fails first; a file the check creates is removed again (the command writes it last)."""
    existed = os.path.exists(path)
    try:
        with open(path, "ab"):
            pass
    except OSError as e:
        raise OSError(f"cannot write {option} {path!r}: {e.strerror}") from None
    if not existed:
        os.remove(path)


def _write_ids(path, ids):
    if path.endswith(".npy"):
        np.save(path, ids)
    else:
        np.savetxt(path, ids, fmt="%d")


class _Bars:
    """tqdm bars on standard error for the events of :mod:`gbgraph._progress`: bytes of a file
    read, the levels (coarsen) or hierarchies (partition) built, and the levels --plot laid out. Each bar appears only
    once its work has taken a second, and all vanish when the command ends."""

    def __init__(self, command, hierarchies=None):
        self._command, self._hierarchies = command, hierarchies
        self._bars = {}

    def __call__(self, event, fields):
        if event == "output":
            self.close()
        elif event == "read":
            bar = self._bar("read", total=fields["total"], desc="reading", unit="B", unit_scale=True)
            bar.update(fields["done"] - bar.n)
            if fields["done"] >= fields["total"]:
                bar.close()  # and it stays closed: the last read, at the end, reports the end again
        elif event == "plot":  # --plot's layout, level by level
            bar = self._bar("plot", total=fields["total"], desc="plot", bar_format=(
                "{desc}: {n_fmt}/{total_fmt} levels [{elapsed}{postfix}]"))
            bar.total = fields["total"]
            bar.set_postfix_str(fields["what"], refresh=False)
            bar.update(fields["done"] - bar.n)
            if fields["total"] is not None and fields["done"] >= fields["total"]:
                bar.close()  # laid out: the line clears before the picture's warning, if any
        elif self._command in ("coarsen", "partition"):
            partitioning = self._command == "partition"
            bar = self._bar("work", total=self._hierarchies, desc=self._command, bar_format=(
                "{desc}: {percentage:3.0f}%|{bar}| hierarchy {n_fmt}/{total_fmt} [{elapsed}<{remaining}{postfix}]"
                if partitioning and self._hierarchies else
                f"{{desc}}: {'hierarchy' if partitioning else 'level'} {{n_fmt}} [{{elapsed}}{{postfix}}]"))
            bar.set_postfix_str(f"{fields['n']:,} vertices", refresh=False)
            if event == ("hierarchy" if partitioning else "level"):
                bar.update(1)

    def _bar(self, key, **options):
        from tqdm import tqdm

        if key not in self._bars:
            self._bars[key] = tqdm(file=sys.stderr, delay=_BAR_DELAY, leave=False, dynamic_ncols=True, **options)
        return self._bars[key]

    def close(self):
        for bar in self._bars.values():
            bar.close()


@contextlib.contextmanager
def _progress_bars(args):
    """Progress bars for the command, when a person is watching: standard output and error are
    terminals and --json is not given (a script reads neither bars nor tables)."""
    if args.json or not (sys.stdout.isatty() and sys.stderr.isatty()):
        yield
        return
    hierarchies = None
    if args.command == "partition":
        # one hierarchy per try of each of the k - 1 bisections; the MIS-2 mappings take no
        # seed, so their tries share one
        method, tries = chosen(args.k, args.method, args.refine, args.tries)  # k-way: one per try
        if args.coarsening in ("mis2", "mis2_basic"):
            tries = 1
        elif chosen(args.k, args.method, args.refine, args.tries, SMALL_ENTRIES)[1] != tries:
            tries = None  # the default tries depend on each bisection's size: no total to show
        hierarchies = None if tries is None else (args.k - 1 if method == "recursive" else 1) * tries
    bars = _Bars(args.command, hierarchies)
    try:
        with _progress.listening(bars):
            yield
    finally:
        bars.close()


def _weights_option(p, what):
    p.add_argument("--weights", default=EDGE_WEIGHTS[0], choices=EDGE_WEIGHTS,
                   help=f"{what}: abs: |A(i, j)| (default; the values themselves when none is negative, the "
                        "strengths of a Laplacian's negative off-diagonal entries), values: as stored (negative "
                        "ones are an error), pattern: 1 for every edge")


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
        _json_option(p)
        p.set_defaults(run=run, plot=None)
        return p

    def plot_option(p, picture):
        p.add_argument("--plot", metavar="FILE.png",
                       help=f"draw {picture} into this picture (matplotlib: pip install gbgraph[plot]; any format "
                            "matplotlib writes, by the suffix)")

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
    plot_option(p, "the graph with its aggregates in colour (at the grid's points for a generator, else at a "
                   "spectral layout: a picture for graphs up to about 10⁵ vertices)")
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
    p.add_argument("--construction", default="sort", choices=COARSE_METHODS,
                   help="coarse graph construction (default: sort, as gg.coarsen's)")
    p.add_argument("--cutoff", default=50, type=int, help="stop at this many vertices (default: 50)")
    plot_option(p, "the vertices and edges of every level")
    p = command("partition", "multilevel graph partitioning: bisection (FM, Jet, spectral) and k-way",
                "Partition the vertices into -k parts of nearly equal size joined by few edges\n"
                "(multilevel recursive bisection, or direct k-way refinement: the default for k > 2)\n"
                "and print the cut, the imbalance, the levels and the times. Edge weights: see\n"
                "--weights.",
                "write each vertex's part, one per line", _partition)
    p.add_argument("-k", default=2, type=int, help="number of parts (default: 2)")
    p.add_argument("--method", default=None, choices=PARTITION_METHODS,
                   help="recursive (bisect, then bisect each side) or kway (coarsen once, refine all k parts "
                        "together: k-way FM, or Jet's rounds with --refine jet); default: kway for k > 2 with "
                        "--refine fm, else recursive")
    p.add_argument("--coarsening", default="hec", choices=MAPPING_METHODS, help="coarse mapping (default: hec)")
    p.add_argument("--refine", default="fm", choices=REFINEMENTS,
                   help="fm (Fiduccia-Mattheyses, default), jet (parallel, as semiring algebra), spectral")
    p.add_argument("--imbalance", default=0.03, type=float,
                   help="allowed imbalance: parts weigh at most (1 + E) W / k (default: 0.03)")
    p.add_argument("--seed", default=0, type=int, help="seed of the hash that breaks ties (default: 0)")
    p.add_argument("--tries", default=None, type=int,
                   help="multilevel bisections per split (recursive, default 3) or whole k-way partitions (kway, "
                        "default 1), seeds S, S+1, ...; the best is kept")
    _weights_option(p, "edge weights, which the cut sums")
    plot_option(p, "the graph with its parts in colour and its cut edges in black (at the grid's points for a "
                   "generator, else at a spectral layout: a picture for graphs up to about 10⁵ vertices)")
    p = commands.add_parser("info", help="what a graph is: size, degrees, components, symmetry, weights",
                            description="Print the number of vertices and edges of GRAPH, its degrees, connected\n"
                                        "components, whether it is symmetric and weighted. Without GRAPH: the\n"
                                        f"embedded {_DEFAULT_GRAPH}.",
                            epilog=__doc__.split("\n", 2)[2], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("graph", metavar="GRAPH", nargs="?",
                   help=f"Matrix Market file, embedded graph name or generator spec (default: {_DEFAULT_GRAPH})")
    _json_option(p)
    p.set_defaults(run=_info, output=None, plot=None)
    return parser


def _json_option(p):
    p.add_argument("--json", action="store_true",
                   help="print one JSON object (numbers unformatted, times in seconds) instead of the table")


def main(argv=None):
    """Entry point of the ``gbgraph`` command; returns the exit status."""
    args = _parser().parse_args(argv)

    def show_warning(message, *_):  # one line, as errors get: no file name, no source line
        print(f"gbgraph {args.command}: warning: {message}", file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show_warning
        try:
            if args.output:
                _check_output(args.output, "--output")
            if args.plot:
                _check_output(args.plot, "--plot")
                _pyplot()  # a missing matplotlib stops the command before the work
            with _progress_bars(args):
                args.run(args)
        # ImportError: --backend cupy without CuPy (the message names the extras);
        # GBGraphError: a StallError; MemoryError: the GPU's, with the graph's size
        except (ValueError, TypeError, OSError, ImportError, MemoryError, GBGraphError) as e:
            print(f"gbgraph {args.command}: error: {e}", file=sys.stderr)
            return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())

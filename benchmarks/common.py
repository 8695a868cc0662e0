"""Pieces the benchmark scripts share: graph specs, interleaved timing, machine description."""

import collections
import contextlib
import json
import os
import sys
import pathlib
import platform
import statistics
import time

import numpy as np

import gbgraph as gg

ROOT = pathlib.Path(__file__).resolve().parents[1]
DEFAULT_DATA = ROOT.parent / "shared" / "data"


def matrix(spec):
    """The scipy CSR matrix a user would hand to gbgraph, for a CLI-style GRAPH spec."""
    if spec.endswith((".mtx", ".mtx.gz")):
        return gg.io.read_matrix_market(spec)[0]
    if spec in gg.datasets.names():
        return gg.datasets.load(spec)
    name, _, dims = spec.partition(":")
    return getattr(gg.generators, name)(*(int(d) for d in dims.split(",")))


def graph_name(spec):
    return pathlib.Path(spec).name.removesuffix(".mtx.gz") if spec.endswith(".mtx.gz") else spec


def median_ms(*fns, repeat):
    """Median milliseconds of each function, the calls interleaved so that drifts in the
    machine's speed (this project's 2-core VMs vary by tens of percent) hit all alike."""
    times = [[] for _ in fns]
    for _ in range(repeat):
        for fn, record in zip(fns, times):
            t = time.perf_counter()
            fn()
            record.append(time.perf_counter() - t)
    return [1e3 * statistics.median(t) for t in times]


def specs_or_default(specs, data, generated):
    """The GRAPH specs to run: those given, else ``generated`` and every graph in ``data``."""
    if specs is not None:
        return specs
    return list(generated) + [str(p) for p in sorted(pathlib.Path(data).glob("*.mtx.gz"))]


def common_arguments(parser, generated, repeat, warmup=None):
    """Add the options every benchmark takes: --graphs, --data, --repeat, --threads, --json;
    and --warmup, the untimed runs before the timed ones, given a default (GPU benchmarks)."""
    default = " ".join(generated) + " and every graph in --data" if generated else "every graph in --data"
    parser.add_argument("--graphs", nargs="*", help=f"GRAPH specs as in the CLI (default: {default})")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="folder of .mtx.gz graphs (default ../shared/data)")
    parser.add_argument("--repeat", type=int, default=repeat,
                        help=f"timed runs per measurement (median), default {repeat}")
    parser.add_argument("--threads", type=int,
                        help="CPU threads of GraphBLAS and gbgraph's kernels (default: all cores)")
    parser.add_argument("--json", metavar="FILE", help="also write the results and the machine's description here")
    if warmup is not None:
        parser.add_argument("--warmup", type=int, default=warmup, help=f"untimed runs first, default {warmup}")


def graph_specs(args, generated):
    """The GRAPH specs to measure: --graphs, else ``generated`` and every graph in --data.

    Also applies --threads, before anything is measured.
    """
    if args.threads is not None:
        gg.backends.set_threads(args.threads)
    if args.graphs is not None:
        return args.graphs
    data = sorted(pathlib.Path(args.data).glob("*.mtx.gz"))
    if not data:
        print(f"note: no graphs in {args.data}; only generated ones are measured", file=sys.stderr)
    return list(generated) + [str(p) for p in data]


def describe_machine(**extra):
    """Versions and the machine a benchmark ran on, for its JSON file."""
    import graphblas

    return {"python": platform.python_version(), "cpu_count": os.cpu_count(), "platform": platform.platform(),
            "graphblas_threads": graphblas.ss.config["nthreads"],
            "numba_threads": __import__("numba").get_num_threads(), "python_graphblas": graphblas.__version__,
            "numpy": np.__version__, "scipy": __import__("scipy").__version__,
            "pyamg": __import__("pyamg").__version__, "gbgraph": gg.__version__, **extra}


def write_results(path, machine, rows, **more):
    """A benchmark's JSON file: the machine it ran on, its rows, and ``more`` (targets)."""
    pathlib.Path(path).write_text(json.dumps({"machine": machine, "rows": rows, **more}, indent=1))


def describe_gpu():
    """The GPU the benchmark runs on: its name, the CuPy version and the CUDA runtime."""
    import cupy

    props = cupy.cuda.runtime.getDeviceProperties(0)
    return {"name": props["name"].decode(), "cupy": cupy.__version__,
            "cuda_runtime": cupy.cuda.runtime.runtimeGetVersion()}


def progress(items, what):
    """``items``, with a progress bar on standard error while a person watches (standard output
    and error are terminals; not in a pipe or a log): the count done, the time left, and
    ``what`` the current item is, e.g. its graph. Rows printed meanwhile go above the bar."""
    items = list(items)
    if not (sys.stdout.isatty() and sys.stderr.isatty()):
        yield from items
        return
    from tqdm import tqdm
    from tqdm.contrib import DummyTqdmFile

    with contextlib.redirect_stdout(DummyTqdmFile(sys.stdout)), \
            tqdm(items, file=sys.stderr, leave=False, dynamic_ncols=True) as bar:
        for item in bar:
            bar.set_postfix_str(what(item))
            yield item


def phase_timer(ms, phase, fn):
    """``fn`` wrapped to add its milliseconds to ``ms[phase]``."""
    def run(*args, **kwargs):
        start = time.perf_counter()
        try:
            return fn(*args, **kwargs)
        finally:
            ms[phase] += 1e3 * (time.perf_counter() - start)
    return run


@contextlib.contextmanager
def timed_functions(targets):
    """Replace each function ``module.name`` of ``targets`` ((module, name, phase) triples)
    by a :func:`phase_timer`; yields the dict of milliseconds per phase they fill, and puts
    the functions back on exit."""
    ms = collections.defaultdict(float)
    saved = [(module, name, getattr(module, name)) for module, name, _ in targets]
    for module, name, phase in targets:
        setattr(module, name, phase_timer(ms, phase, getattr(module, name)))
    try:
        yield ms
    finally:
        for module, name, fn in reversed(saved):
            setattr(module, name, fn)

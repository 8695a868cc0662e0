"""Where the CPU time of issue 39's rows goes: passes over the graph and bytes, call by call.

The rows of ``bench_cpu_rounds.py`` (``as_graph``, ``mis2`` of the prepared graph and of the
matrix, ``aggregate``, greedy ``color``, ``coarsen`` and the HEC hierarchy; numba backend, one
thread), with every call to the backend's verbs (row operators included) and fused kernels,
and to the kernels of ``as_graph``'s row scan, timed in process CPU time and counted. The
model of a call (:func:`count`):

entries read
    a product or row operator (``mxv``, ``vxm``, ``mxm``, ``reduce_rows``, ``transpose``): the
    entries of the rows it reads, every row or the rows its mask lets through (a push: the rows
    at u's entries; ``transpose=True``: the rows of Aᵀ); a fused kernel (coarse construction,
    compiled HEC) or a row-scan kernel: the entries of its graph, once (the compiled HEC's
    rounds are not seen from outside: one pass is its least); a vector verb: none.
passes
    entries read / the input graph's entries (its nnz without the diagonal, so a pass over
    A + I counts 1 + n/nnz).
bytes
    each array element the call reads or writes, once: a product over rows R with E entries
    reads the row pointers (8 bytes a row, and the list of rows, 8 more, when masked), E column
    indices and values at their widths, E entries of each vector it gathers (a sparse vector is
    first made dense: its arrays read and n values and flags written), and writes |R| results
    and flags; a vector verb reads and writes its operands' and result's arrays (nbytes).
bound
    the least time of those bytes at the rates measured in the same run, on the same graph: a
    pass's entries at the gather kernels' ns an entry (the faster of the ``min`` and the sum of
    x[indices[k]] over each row, x int64 in a random order: the dependent read a pull cannot
    avoid), every other byte at the streaming
    read's GB/s (a sum over an int64 array of the graph's CSR size). A lower bound for this
    formulation (these calls, these passes), not for the algorithm.

SpMV-eq divide by scipy's float64 ``A @ x`` measured in the same run (CPU time, min of 30).
Each row is called once untimed, then --repeat times alternately with and without the
proxy; the profile printed is the proxied call of median total, and the proxy's overhead is
its median total (less the time spent counting) against the unproxied median; what is left
of it (two clock readings and a Python call a backend call) lands in the verbs' times and in
"outside", the time between the backend calls (the algorithm's Python and the numpy it runs
on the backend's arrays itself).

Columns: ms and SpMV-eq of the unproxied calls (median); calls, rounds (``iterate``'s, all
loops), passes, MB, GB/s (the bytes over the backend calls' time) and its share of the
streaming read (%strm), the gather kernel's time for the passes' entries over the passes'
own time (%gath); the backend calls' time (verbs ms), the time outside them, the bound in
SpMV-eq and the proxy's overhead (ovh).

    python benchmarks/profile_cpu_rounds.py                        # Laplace3D 100³ and ../shared/data
    python benchmarks/profile_cpu_rounds.py --graphs laplace3d:100 elasticity3d:40 \\
        ../shared/data/coAuthorsDBLP.mtx.gz ../shared/data/delaunay_n17.mtx.gz --json out.json
    python benchmarks/profile_cpu_rounds.py --summary run-1.json run-2.json run-3.json
"""

import argparse
import collections
import json
import pathlib
import statistics
import time

import numba
import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from gbgraph import _progress
from gbgraph.backends import operators as ops
from gbgraph.backends.numba import Matrix, Vector
from gbgraph.backends.numba import _row_array
from gbgraph.backends.numba.kernels import canonical
from bench_cpu_rounds import ROWS
from common import common_arguments, describe_machine, graph_name, graph_specs, matrix, write_results

GENERATED = ["laplace3d:100"]
#: Verbs that read rows of a matrix: their entries are passes over the graph.
PRODUCTS = ("mxv", "vxm", "mxm", "reduce_rows", "reduce_cols", "transpose")
#: Every other verb that moves data (nvals and the containers' accessors cost nothing to count).
VECTOR_VERBS = ("ewise_mult", "ewise_add", "apply", "select", "reduce", "extract", "assign", "apply_index", "build",
                "build_matrix", "extract_tuples", "matrix", "vector", "full", "indices", "values", "to_csr")
#: Kernels of ``as_graph``'s row scan, each a pass over its ``indices`` argument (position 1).
SCAN_KERNELS = ("scan_rows", "drop_diagonal", "insert_diagonal")
#: Fused kernels the numba backend answers ``fused()`` with, each a pass over its graph.
FUSED = ("coarse_by_sort", "capped_hec")
CLOCK = time.process_time_ns


# ---- the machine's rates, on the graph's own arrays ----------------------------------------

@numba.njit(cache=True)
def _stream(a):
    total = 0
    for i in range(a.size):
        total += a[i]
    return total


# unsigned positions, as gbgraph's row operators read them: numba tests a signed index for a
# negative value on every read, which keeps the loop from vectorising (Elasticity3D 40³: 1.3
# against 0.27 ns an entry)
@numba.njit(cache=True)
def _gather_min(indptr, indices, x, out):
    for i in range(indptr.size - 1):
        least = x[i]
        for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
            least = min(least, x[np.uint64(indices[k])])
        out[i] = least


@numba.njit(cache=True)
def _gather_sum(indptr, indices, x, out):
    for i in range(indptr.size - 1):
        total = 0
        for k in range(np.uint64(indptr[i]), np.uint64(indptr[i + 1])):
            total += x[np.uint64(indices[k])]
        out[i] = total


def least_ns(fn, calls):
    """The least CPU time of ``calls`` calls after an untimed one, in ns."""
    fn()
    best = None
    for _ in range(calls):
        start = CLOCK()
        fn()
        took = CLOCK() - start
        best = took if best is None else min(best, took)
    return max(best, 1)


def rates(A, calls=20):
    """scipy's SpMV (ms), the streaming read (GB/s) of an array of A's CSR bytes, and the
    gather kernel's ns an entry over A's own rows (x int64, n entries)."""
    x = np.ones(A.shape[0])
    spmv = least_ns(lambda: A @ x, 30)
    csr_bytes = A.indptr.nbytes + A.indices.nbytes + A.data.nbytes
    a = np.arange(csr_bytes // 8, dtype=np.int64)
    stream = least_ns(lambda: _stream(a), calls)
    indptr, indices = A.indptr.astype(np.int64), A.indices.astype(np.int32)
    keys, out = np.random.default_rng(0).permutation(A.shape[0]).astype(np.int64), np.empty(A.shape[0], np.int64)
    gather_min = least_ns(lambda: _gather_min(indptr, indices, keys, out), calls)
    gather_sum = least_ns(lambda: _gather_sum(indptr, indices, keys, out), calls)
    gather = min(gather_min, gather_sum)
    entries = max(indices.size, 1)
    return {"spmv_ms": spmv / 1e6, "csr_bytes": csr_bytes, "stream_gbs": a.nbytes / stream,
            "gather_ns_entry": gather / entries, "gather_ms": gather / 1e6, "gather_min_ms": gather_min / 1e6,
            "gather_sum_ms": gather_sum / 1e6, "spmv_ns_entry": spmv / entries,
            "gather_gbs": (indices.nbytes + indptr.nbytes + entries * keys.itemsize) / gather}


# ---- the model of a call -------------------------------------------------------------------

def nbytes(x):
    """Bytes of the arrays of a container, array, or tuple of them (scalars: 0)."""
    if isinstance(x, (tuple, list)):
        return sum(nbytes(y) for y in x)
    if isinstance(x, Vector):
        return x.values.nbytes + (0 if x.indices is None else x.indices.nbytes)
    if isinstance(x, Matrix):
        return x.indptr.nbytes + x.indices.nbytes + (0 if x.values is None else x.values.nbytes)
    if isinstance(x, np.ndarray):
        return x.nbytes
    return 0


def row_entries(indptr, rows):
    """Entries of the rows ``rows`` (None: every row) of a CSR with row pointers ``indptr``."""
    if rows is None:
        return int(indptr[-1] - indptr[0])
    rows = np.asarray(rows, np.int64)
    return int((indptr[rows + 1] - indptr[rows]).sum())


def pull_bytes(A, rows, vectors, entries):
    """Bytes of a pull over ``rows`` of A (None: all) reading ``entries`` entries and gathering
    each of ``vectors`` at their columns (the model of the module docstring)."""
    nrows = A.nrows if rows is None else rows.size
    moved = 8 * (nrows + 1) + (0 if rows is None else 8 * nrows)
    moved += entries * (A.indices.itemsize + (0 if A.values is None else A.values.itemsize))
    for v in vectors:
        moved += entries * v.values.itemsize
        if v.indices is not None:  # made dense first: read, then n values and flags written
            moved += nbytes(v) + v.size * (v.values.itemsize + 1)
    return moved


def count(verb, args, kwargs, result):
    """(entries read, bytes moved) of a backend call, by the model of the module docstring."""
    if verb in ("mxv", "vxm"):
        A, u = (args[1], args[2]) if verb == "mxv" else (args[2], args[1])
        if kwargs.get("transpose"):
            A = A.transposed()
        vectors = [v for v in (u if isinstance(u, (tuple, list)) else (u,)) if isinstance(v, Vector)]
        mask = kwargs.get("mask")
        if verb == "vxm" and not isinstance(args[0], ops.Semiring):  # a push: the rows at u's entries
            rows = None if u.indices is None else u.indices
            entries = row_entries(A.indptr, rows)
            return entries, pull_bytes(A, rows, (), entries) + entries * u.values.itemsize + nbytes(result)
        if verb == "vxm":  # a user semiring pulls over the rows of Aᵀ
            A = A.transposed()
        rows = _row_array(mask, kwargs.get("structure", True), kwargs.get("complement", False), A.nrows)
        entries = row_entries(A.indptr, rows)
        return entries, pull_bytes(A, rows, vectors, entries) + nbytes(result)
    if verb == "mxm":
        entries = args[1].nvals + args[2].nvals
        return entries, nbytes(args[1:3]) + nbytes(result)
    if verb in ("reduce_rows", "reduce_cols", "transpose"):
        A = args[0]
        return A.nvals, nbytes(A) + nbytes(result)
    if verb in SCAN_KERNELS:
        return int(args[1].size), nbytes(args[:3]) + nbytes(result)
    if verb in FUSED:
        graph = args[0]
        arrays = (graph.indptr, graph.indices, graph.weights)
        return graph.nnz, sum(nbytes(a) for a in arrays) + graph.nnz * args[1].itemsize + nbytes(result)
    if verb == "assign":  # w<mask> = value: the value's entries (and the mask) read, as many written
        value = args[1]
        written = value.nvals * args[0].values.itemsize if isinstance(value, Vector) else 0
        return 0, nbytes(value) + nbytes(kwargs.get("mask")) + written
    operands = list(args) + [kwargs.get(k) for k in ("mask", "out")]
    if verb in ("select", "apply", "apply_index") and isinstance(args[1], Matrix):
        return args[1].nvals, nbytes(operands) + nbytes(result)
    return 0, nbytes(operands) + nbytes(result)


def operator_name(verb, args):
    """The operator of a call, for grouping: its name or string, else ''."""
    if verb in ("mxv", "vxm", "mxm", "ewise_mult", "ewise_add", "apply", "select", "apply_index"):
        op = args[0]
    elif verb in ("reduce", "reduce_rows", "reduce_cols"):
        op = args[1]
    else:
        return ""
    return op if isinstance(op, str) else getattr(op, "name", type(op).__name__)


Call = collections.namedtuple("Call", "verb op level loop round ns entries bytes")


class Profiler:
    """While active, every outermost call to the numba backend's verbs, its fused kernels and
    the row-scan kernels is timed and counted into :attr:`calls`; calls made inside one (a
    verb's own calls of others) are part of it. Rounds: each ``iterate`` is a loop, numbered,
    named by its step (``_rounds.<locals>.round_``); levels: ``coarsen``'s progress events."""

    def __init__(self, be):
        self.be, self.calls, self.depth, self.stack, self.loops, self.level = be, [], 0, [], 0, 0
        self.loop_names, self.own_ns = {}, 0  # own_ns: the time spent counting, after each call

    def timed(self, verb, fn):
        def call(*args, **kwargs):
            if self.depth:
                return fn(*args, **kwargs)
            self.depth += 1
            start = CLOCK()
            try:
                result = fn(*args, **kwargs)
            finally:
                took = CLOCK() - start
                self.depth -= 1
            entries, moved = count(verb, args, kwargs, result)
            loop, r = self.stack[-1] if self.stack else (0, -1)
            self.calls.append(Call(verb, operator_name(verb, args), self.level, loop, r, took, entries, moved))
            self.own_ns += CLOCK() - start - took
            return result
        return call

    def iterate(self, step, state, **kwargs):
        self.loops += 1
        loop = self.loops
        self.loop_names[loop] = step.__qualname__.replace(".<locals>", "")

        def counted(*args):
            self.stack.append((loop, int(args[-1])))
            try:
                return step(*args)
            finally:
                self.stack.pop()
        return self.original_iterate(counted, state, **kwargs)

    def fused(self, algorithm):
        fn = self.original_fused(algorithm)
        return fn if fn is None or algorithm not in FUSED else self.timed(algorithm, fn)

    def listen(self, event, fields):
        if event == "level":
            self.level = fields["level"]

    def __enter__(self):
        be = self.be
        self.original_iterate, self.original_fused = be.iterate, be.fused
        for verb in PRODUCTS + VECTOR_VERBS:
            setattr(be, verb, self.timed(verb, getattr(be, verb)))
        be.iterate, be.fused = self.iterate, self.fused
        self.kernels = {name: getattr(canonical, name) for name in SCAN_KERNELS}
        for name, fn in self.kernels.items():
            setattr(canonical, name, self.timed(name, fn))
        self.listening = _progress.listening(self.listen)
        self.listening.__enter__()
        return self

    def __exit__(self, *exc):
        self.listening.__exit__(*exc)
        for name, fn in self.kernels.items():
            setattr(canonical, name, fn)
        for verb in PRODUCTS + VECTOR_VERBS + ("iterate", "fused"):
            del self.be.__dict__[verb]  # the class's methods again


# ---- one row, profiled -----------------------------------------------------------------------

def summary(calls, total_ns, nnz, rate):
    """Totals of a list of calls: time, entries, passes, bytes, GB/s, the bound."""
    ns = sum(c.ns for c in calls)
    entries = sum(c.entries for c in calls)
    moved = sum(c.bytes for c in calls)
    bound = sum(c.entries * rate["gather_ns_entry"] + (0 if c.entries else c.bytes / rate["stream_gbs"])
                for c in calls)
    pass_ns = sum(c.ns for c in calls if c.entries)
    return {"calls": len(calls), "ms": ns / 1e6, "share": ns / total_ns if total_ns else 0.0, "entries": entries,
            "pass_ms": pass_ns / 1e6, "pass_ns_entry": pass_ns / entries if entries else None,
            "of_gather": entries * rate["gather_ns_entry"] / pass_ns if pass_ns else None,
            "passes": entries / nnz, "mb": moved / 1e6, "gbs": moved / ns if ns else 0.0,
            "of_stream": (moved / ns if ns else 0.0) / rate["stream_gbs"], "bound_ms": bound / 1e6}


def profile_row(name, run, nnz, rate, repeat):
    """Profile of one row: the proxied call of median total, grouped by verb and operator,
    by loop and round, by level; the unproxied calls' min and median beside it."""
    be = gg.backend("numba")
    run()
    plain, proxied = [], []
    for _ in range(repeat):
        start = CLOCK()
        run()
        plain.append(CLOCK() - start)
        with Profiler(be) as p:
            start = CLOCK()
            result = run()
            total = CLOCK() - start
        # a hierarchy's level sizes, and the result let go before the next call: a result kept
        # would have the next call's arrays mapped afresh (page faults, counted in CPU time)
        sizes = [int(level.graph.nnz) for level in result.levels] if hasattr(result, "levels") else []
        del result
        proxied.append((total - p.own_ns, p.calls, dict(p.loop_names), sizes))
    total, calls, loop_names, sizes = sorted(proxied, key=lambda t: t[0])[len(proxied) // 2]
    spmv_ns = rate["spmv_ms"] * 1e6
    row = {"row": name, "target": ROWS[name][1], "ms": statistics.median(plain) / 1e6, "min_ms": min(plain) / 1e6,
           "proxied_ms": total / 1e6, "overhead": statistics.median(t for t, *_ in proxied) / statistics.median(plain)}
    row["spmv_eq"], row["min_spmv_eq"] = row["ms"] / rate["spmv_ms"], row["min_ms"] / rate["spmv_ms"]
    row["verbs"] = summary(calls, total, nnz, rate)
    row["outside_ms"] = (total - sum(c.ns for c in calls)) / 1e6
    # the bound of the whole call: its passes and bytes at the measured rates (Python costs nothing)
    row["bound_ms"] = row["verbs"]["bound_ms"]
    row["bound_spmv_eq"] = row["bound_ms"] / rate["spmv_ms"]
    groups = collections.defaultdict(list)
    for c in calls:
        groups[(c.verb, c.op)].append(c)
    row["by_verb"] = sorted(({"verb": v, "op": o, **summary(cs, total, nnz, rate),
                              "spmv_eq": sum(c.ns for c in cs) / spmv_ns} for (v, o), cs in groups.items()),
                            key=lambda g: -g["ms"])
    loops = collections.defaultdict(lambda: collections.defaultdict(list))
    for c in calls:
        if c.loop:
            loops[c.loop][c.round].append(c)
    row["loops"] = [{"loop": k, "step": loop_names[k], "level": rounds[min(rounds)][0].level,
                     "rounds": [{"round": r, **summary(cs, total, nnz, rate)} for r, cs in sorted(rounds.items())]}
                    for k, rounds in sorted(loops.items())]
    row["outside_rounds"] = summary([c for c in calls if not c.loop], total, nnz, rate)
    levels = collections.defaultdict(list)
    for c in calls:
        levels[c.level].append(c)
    if len(levels) > 1:
        row["levels"] = [{"level": k, "nnz": sizes[k] if k < len(sizes) else None, **summary(cs, total, nnz, rate)}
                         for k, cs in sorted(levels.items())]
    return row


def profile_graph(spec, repeat, rows):
    A = sp.csr_matrix(matrix(spec))
    G = gg.as_graph(A)
    rate = rates(A)
    out = {"graph": graph_name(spec), "n": A.shape[0], "nnz": G.nnz, **rate, "loadavg": [loadavg()], "rows": []}
    for name in rows:
        call = ROWS[name][0]
        out["rows"].append(profile_row(name, lambda: call(A, G), G.nnz, rate, repeat))
    out["loadavg"].append(loadavg())
    return out


def loadavg():
    """The machine's load averages (1, 5, 15 minutes)."""
    with open("/proc/loadavg") as f:
        return [float(x) for x in f.read().split()[:3]]


# ---- printing --------------------------------------------------------------------------------

def print_graph(g, detail):
    print(f"\n{g['graph']}: n {g['n']:,}, nnz {g['nnz']:,}; SpMV {g['spmv_ms']:.2f} ms "
          f"({g['spmv_ns_entry']:.2f} ns an entry); stream {g['stream_gbs']:.1f} GB/s; "
          f"gather {g['gather_ns_entry']:.2f} ns an entry ({g['gather_ms']:.2f} ms a pass, {g['gather_gbs']:.1f} GB/s)")
    print(f"{'row':<14}{'ms':>8}{'SpMV-eq':>9}{'target':>7}{'calls':>7}{'rounds':>7}{'passes':>8}{'MB':>8}"
          f"{'GB/s':>7}{'%strm':>7}{'%gath':>7}{'verbs ms':>9}{'outside':>8}{'bound':>7}{'ovh':>6}")
    for r in g["rows"]:
        v = r["verbs"]
        rounds = sum(len(loop["rounds"]) for loop in r["loops"])
        print(f"{r['row']:<14}{r['ms']:>8.1f}{r['spmv_eq']:>9.2f}{r['target']:>7}{v['calls']:>7}{rounds:>7}"
              f"{v['passes']:>8.2f}{v['mb']:>8.0f}{v['gbs']:>7.2f}{100 * v['of_stream']:>6.0f}%"
              f"{100 * (v['of_gather'] or 0):>6.0f}%{v['ms']:>9.1f}"
              f"{r['outside_ms']:>8.1f}{r['bound_spmv_eq']:>7.2f}{r['overhead']:>6.2f}")
    if not detail:
        return
    for r in g["rows"]:
        print(f"  {r['row']}: the verbs, by time (ms, SpMV-eq, passes, MB, GB/s, bound ms)")
        for b in r["by_verb"][:detail]:
            print(f"    {b['verb']:<15}{str(b['op'])[:28]:<29}{b['calls']:>5}{b['ms']:>8.2f}{b['spmv_eq']:>7.2f}"
                  f"{b['passes']:>7.2f}{b['mb']:>8.1f}{b['gbs']:>7.2f}{b['bound_ms']:>8.2f}")
        for loop in r["loops"]:
            per = " ".join(f"{x['ms']:.1f}/{x['passes']:.2f}" for x in loop["rounds"])
            print(f"    loop {loop['step']} (level {loop['level']}), ms/passes a round: {per}")


def summarize(paths):
    """A markdown table of the runs in ``paths`` (JSON files of this script): per graph and row,
    SpMV-eq (median over the runs, range), the passes and the rates of the run of median time."""
    runs = [json.loads(pathlib.Path(p).read_text())["rows"] for p in paths]
    print("| graph | row | target | SpMV-eq (range) | rounds | passes | GB/s (% stream) | % gather | "
          "outside ms | bound SpMV-eq |")
    print("|---|---|---:|---|---:|---:|---|---:|---:|---:|")
    for i, g in enumerate(runs[0]):
        for j, r in enumerate(g["rows"]):
            same = sorted((run[i]["rows"][j] for run in runs), key=lambda x: x["spmv_eq"])
            mid, v = same[len(same) // 2], same[len(same) // 2]["verbs"]
            rounds = sum(len(loop["rounds"]) for loop in mid["loops"])
            print(f"| {g['graph']} | {r['row']} | {r['target']} | {mid['spmv_eq']:.2f} ({same[0]['spmv_eq']:.2f}-"
                  f"{same[-1]['spmv_eq']:.2f}) | {rounds} | {v['passes']:.2f} | {v['gbs']:.1f} "
                  f"({100 * v['of_stream']:.0f}%) | {100 * (v['of_gather'] or 0):.0f}% | {mid['outside_ms']:.1f} | "
                  f"{mid['bound_spmv_eq']:.2f} |")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_arguments(parser, GENERATED, repeat=5)
    parser.add_argument("--summary", nargs="+", metavar="JSON",
                        help="print a markdown table of these runs' JSON files instead of measuring")
    parser.add_argument("--rows", nargs="*", default=list(ROWS), choices=list(ROWS), help="rows to profile (all)")
    parser.add_argument("--detail", type=int, default=8, help="verb groups printed per row (0: the table only)")
    args = parser.parse_args(argv)
    if args.summary:
        return summarize(args.summary)
    if args.threads is None:
        args.threads = 1
    graphs = []
    for spec in graph_specs(args, GENERATED):
        graphs.append(profile_graph(spec, args.repeat, args.rows))
        print_graph(graphs[-1], args.detail)
    if args.json:
        write_results(args.json, describe_machine(), graphs)


if __name__ == "__main__":
    main()

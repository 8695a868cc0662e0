"""Multilevel bisection and k-way partitioning against METIS, KaHIP and KaMinPar (issues 13, 40).

Every graph is reduced to its largest connected component (Gilbert et al.'s preprocessing,
Table I), read as a pattern (every edge weighs 1, every vertex 1), and handed to every
partitioner alike. For each graph, at 3% imbalance:

* gbgraph's ``gg.bisect`` with hec+fm (``gg.partition(A, 2)``'s defaults), hec+jet,
  hec+spectral, mis2+fm, hem+fm, kway (``method="kway"``), and ``gg.partition(A, 8)`` with
  its defaults ("default": direct k-way, one try), hec+fm (``method="recursive"``) and
  hec+jet;
* pymetis (METIS 5, ``ufactor=30``), kahip (``kaffpa`` FAST and STRONG, each in a forked
  process that --kahip-limit stops), kaminpar (default and strong contexts, on --threads or
  all cores), seed 0 each; a peer that is not installed is skipped
  (``pip install -e ".[partition-peers]"``).

Cut and imbalance of every result are counted here by scipy, not taken from the
partitioner; time is the median of --repeat runs (interleaved) of the call alone (the
peers' input arrays, and KaMinPar's graph file, are prepared beforehand), beside scipy's
SpMV ``A @ x`` on the same matrix. The summary has a line per target of issue 40, for the
defaults and the other method (k = 2: hec+fm and kway; k > 2: default and hec+fm): cut at
most 0.95 of KaMinPar's default in geometric mean, at most METIS' on >= 85% of the graphs,
imbalance <= 3%, KaHIP strong's cut beside it, and no slower than KaMinPar on graphs of
>= 30,000 vertices. Issue 40's quality measurement (one thread):

    NUMBA_NUM_THREADS=1 python benchmarks/bench_partition.py --threads 1 --repeat 1 --kahip-limit 120 \
        --only default hec+fm kway metis kaminpar kahip-fast kahip-strong --data ../shared/data --json quality.json
    python benchmarks/bench_partition.py --graphs ../shared/data/4elt.mtx.gz --repeat 1
    python benchmarks/bench_partition.py --backend cupy --json partition-gpu.json   # GPU rows

``--methods`` compares instead ``gg.partition``'s two ways to k parts (issue 40, part 3):
recursive bisection and direct k-way (``method="kway"``), each with 3 tries and with 1,
against KaMinPar's default on one thread; CPU time (``time.process_time``, so that other
work on a shared machine counts less), the runs alternated, the minimum of --repeat:

    NUMBA_NUM_THREADS=1 python benchmarks/bench_partition.py --methods --threads 1 --k 8 4
"""

import argparse
import json
import multiprocessing
import os
import pathlib
import statistics
import tempfile
import time

import numpy as np
import scipy.sparse as sp
import scipy.sparse.csgraph as csgraph

import gbgraph as gg
from common import common_arguments, describe_machine, graph_name, graph_specs, matrix, progress

EPS = 0.03
#: gbgraph's configurations: (name, coarsening, refine, method); at k = 2 hec+fm is
#: ``gg.partition(A, 2)``'s defaults (recursive bisection) and kway its ``method="kway"``; at
#: k > 2 "default" is ``gg.partition(A, k)``'s defaults (direct k-way, one try) and hec+fm its
#: ``method="recursive"``.
OURS = (("hec+fm", "hec", "fm", "recursive"), ("hec+jet", "hec", "jet", "recursive"),
        ("hec+spectral", "hec", "spectral", "recursive"), ("mis2+fm", "mis2", "fm", "recursive"),
        ("hem+fm", "hem", "fm", "recursive"), ("kway", "hec", "fm", "kway"))
OURS_K = (("default", "hec", "fm", None), ("hec+fm", "hec", "fm", "recursive"), ("hec+jet", "hec", "jet", "recursive"))
#: kaffpa's modes (KaHIP's kaHIP_interface.h).
KAHIP_FAST, KAHIP_STRONG = 0, 2
PEERS = ("metis", "kahip-fast", "kahip-strong", "kaminpar", "kaminpar-strong")


def largest_component(A):
    """The pattern of A's largest connected component (ties: the one with the lowest vertex)."""
    A = sp.csr_array(A)
    A = sp.csr_array((A + A.T) != 0)
    A.setdiag(False)
    A.eliminate_zeros()
    count, labels = csgraph.connected_components(A, directed=False)
    if count > 1:
        keep = np.flatnonzero(labels == np.argmax(np.bincount(labels)))
        A = sp.csr_array(A[keep][:, keep])
    A.sort_indices()
    return A


def cut_and_imbalance(A, parts, k):
    """Edges between parts (scipy's count, each edge once) and heaviest part / (n / k) - 1."""
    C = sp.coo_array(sp.triu(A, k=1))
    parts = np.asarray(parts)
    cut = int(np.count_nonzero(parts[C.row] != parts[C.col]))
    return cut, float(np.bincount(parts, minlength=k).max() * k / A.shape[0] - 1)


def peer_runners(A, k, tmp, threads=None, kahip_limit=None):
    """name -> zero-argument callable returning the parts, for every installed peer.

    KaMinPar runs on ``threads`` (default: all cores). KaHIP runs in a forked process, stopped
    after ``kahip_limit`` seconds (None: no limit); its callable then returns None.
    """
    xadj, adjncy = A.indptr.astype(np.int64), A.indices.astype(np.int64)
    runners = {}
    try:
        import pymetis

        options = pymetis.Options(ufactor=int(round(1000 * EPS)), seed=0)
        csr = pymetis.CSRAdjacency(xadj, adjncy)
        runners["metis"] = lambda: pymetis.part_graph(k, csr, options=options)[1]
    except ImportError:
        pass
    try:
        import kahip

        vwgt, adjcwgt = [1] * A.shape[0], [1] * adjncy.size
        x, adj = xadj.tolist(), adjncy.tolist()
        for name, mode in (("kahip-fast", KAHIP_FAST), ("kahip-strong", KAHIP_STRONG)):
            runners[name] = Limited(lambda mode=mode: kahip.kaffpa(vwgt, x, adjcwgt, adj, k, EPS, True, 0, mode)[1],
                                    kahip_limit)
    except ImportError:
        pass
    try:
        import kaminpar

        path = pathlib.Path(tmp) / "graph.metis"
        write_metis(A, path)
        graph = kaminpar.load_graph(str(path), kaminpar.GraphFileFormat.METIS)
        threads = threads or os.cpu_count()
        for name, context in (("kaminpar", kaminpar.default_context), ("kaminpar-strong", kaminpar.strong_context)):
            def run(context=context):
                kaminpar.reseed(0)
                return kaminpar.KaMinPar(threads, context()).compute_partition(graph, k, EPS)
            runners[name] = run
    except ImportError:
        pass
    return runners


class Limited:
    """``fn()`` in a forked process, stopped after ``limit`` seconds (None: no limit).

    Calling it returns ``fn``'s parts, or None when it ran out of time; ``seconds`` is the
    last call's time inside the child (the call alone, not the fork or the copy back).
    """

    def __init__(self, fn, limit):
        self.fn, self.limit, self.seconds = fn, limit, None

    def __call__(self):
        self.seconds = None
        receive, send = multiprocessing.Pipe(duplex=False)
        child = multiprocessing.get_context("fork").Process(target=self._child, args=(send,), daemon=True)
        child.start()
        send.close()
        try:
            if not receive.poll(self.limit):
                return None
            self.seconds, parts = receive.recv()
            return parts
        except EOFError:
            raise RuntimeError(f"the peer's process died (exit code {child.exitcode})") from None
        finally:
            child.kill()
            child.join()

    def _child(self, send):
        start = time.perf_counter()
        parts = np.asarray(self.fn())
        send.send((time.perf_counter() - start, parts))


def write_metis(A, path):
    """A symmetric pattern in METIS' text format (1-based neighbour lists)."""
    with open(path, "w") as f:
        f.write(f"{A.shape[0]} {A.nnz // 2}\n")
        for i in range(A.shape[0]):
            f.write(" ".join(map(str, A.indices[A.indptr[i]:A.indptr[i + 1]] + 1)) + "\n")


def measure(runs, repeat):
    """{name: (median ms, parts of the last run)}, the runs interleaved, and the names of the
    :class:`Limited` runs that ran out of time (not run again)."""
    times = {name: [] for name in runs}
    parts, timed_out = {}, []
    for _ in range(repeat):
        for name, fn in runs.items():
            if name in timed_out:
                continue
            start = time.perf_counter()
            parts[name] = fn()
            elapsed = time.perf_counter() - start
            if parts[name] is None:
                timed_out.append(name)
            times[name].append(fn.seconds if isinstance(fn, Limited) else elapsed)
    return {name: (1e3 * statistics.median(times[name]), parts[name]) for name in runs if name not in timed_out}, \
        timed_out


def ours_on(A, backend):
    """The graph gbgraph's runs take (a cupyx matrix for --backend cupy) and a function that
    waits for the device."""
    if backend != "cupy":
        return gg.as_graph(A), (lambda: None), (lambda parts: parts)
    import cupy
    import cupyx.scipy.sparse as csp

    return (gg.as_graph(csp.csr_matrix(A.astype(np.float64))), cupy.cuda.Device().synchronize,
            lambda parts: parts.get())


def bench(spec, repeat, k, backend="numba", tries=None, only=None, phases=False, threads=None, kahip_limit=None):
    """One graph's row; ``only``: the names of the configurations and peers to run (None: all);
    ``phases``: also hec+fm's ``seconds`` (where its time goes) from one more run; ``threads``
    and ``kahip_limit`` as in :func:`peer_runners`."""
    A = largest_component(matrix(spec))
    G, sync, host = ours_on(A, backend)
    ours = [o for o in (OURS if k == 2 else OURS_K) if only is None or o[0] in only]

    def ours_run(c, r, m):
        parts = gg.partition(G, k, method=m, coarsening=c, refine=r, tries=tries, backend=backend).parts
        sync()
        return host(parts)

    runs = {name: (lambda c=c, r=r, m=m: ours_run(c, r, m)) for name, c, r, m in ours}
    for fn in runs.values():  # compile and cache the kernels before timing
        fn()
    with tempfile.TemporaryDirectory() as tmp:
        runs.update((name, run) for name, run in peer_runners(A, k, tmp, threads, kahip_limit).items()
                    if only is None or name in only)
        results, timed_out = measure(runs, repeat)
    x = np.ones(A.shape[0])
    start = time.perf_counter()
    for _ in range(10):
        A @ x
    spmv_ms = 1e3 * (time.perf_counter() - start) / 10
    row = {"graph": graph_name(spec), "n": A.shape[0], "edges": A.nnz // 2, "k": k, "spmv_ms": spmv_ms, "runs": {},
           "timed_out": {name: kahip_limit for name in timed_out}}
    for name, (ms, parts) in results.items():
        cut, imbalance = cut_and_imbalance(A, parts, k)
        row["runs"][name] = {"cut": cut, "imbalance": imbalance, "ms": ms}
    if phases:
        start = time.perf_counter()
        seconds = gg.partition(G, k, tries=tries, backend=backend).seconds
        row["phases"] = {"total": time.perf_counter() - start, **seconds}
    return row


#: ``--methods``' columns: (name, method, tries).
METHOD_RUNS = (("recursive", "recursive", 3), ("recursive/1", "recursive", 1), ("kway", "kway", 3),
               ("kway/1", "kway", 1))


def bench_methods(spec, repeat, k):
    """One graph's row of ``--methods``: CPU seconds (minimum of ``repeat``, the runs
    alternated) and scipy's cut and imbalance of each method and of KaMinPar's default."""
    A = largest_component(matrix(spec))
    G = gg.as_graph(A)
    runs = {name: (lambda m=m, t=t: gg.partition(G, k, method=m, tries=t).parts) for name, m, t in METHOD_RUNS}
    for fn in runs.values():  # compile and cache the kernels before timing
        fn()
    row = {"graph": graph_name(spec), "n": A.shape[0], "edges": A.nnz // 2, "k": k, "runs": {}}
    with tempfile.TemporaryDirectory() as tmp:
        peers = peer_runners(A, k, tmp, threads=1)
        if "kaminpar" in peers:
            runs["kaminpar"] = peers["kaminpar"]
        seconds = {name: [] for name in runs}
        parts = {}
        for _ in range(repeat):
            for name, fn in runs.items():
                start = time.process_time()
                parts[name] = fn()
                seconds[name].append(time.process_time() - start)
    for name in runs:
        cut, imbalance = cut_and_imbalance(A, parts[name], k)
        row["runs"][name] = {"cut": cut, "imbalance": imbalance, "cpu_s": min(seconds[name]),
                             "cpu_s_all": seconds[name]}
    return row


def methods_summary(rows, k):
    """Geometric means of cut and time against KaMinPar and against recursive bisection."""
    lines = []
    for a, b in (("kway", "recursive"), ("kway/1", "recursive"), ("recursive/1", "recursive"),
                 ("kway/1", "kway"), ("recursive", "kaminpar"), ("recursive/1", "kaminpar"), ("kway", "kaminpar"),
                 ("kway/1", "kaminpar")):
        pairs = [(r["runs"][a], r["runs"][b]) for r in rows if a in r["runs"] and b in r["runs"]]
        if pairs:
            cut = geomean([max(x["cut"], 1) / max(y["cut"], 1) for x, y in pairs])
            cpu = geomean([x["cpu_s"] / y["cpu_s"] for x, y in pairs])
            faster = sum(x["cpu_s"] <= y["cpu_s"] for x, y in pairs)
            lines.append(f"k={k}: {a} / {b}: cut {cut:.3f}, CPU time {cpu:.2f} (geometric means over {len(pairs)} "
                         f"graphs; no slower on {faster})")
    worst = max((r["runs"][c]["imbalance"], r["graph"], c) for r in rows for c in r["runs"] if c != "kaminpar")
    lines.append(f"k={k}: gbgraph's largest imbalance {100 * worst[0]:.2f}% ({worst[2]} on {worst[1]}; bound 3%)")
    return lines


def print_methods(row, first):
    names = list(row["runs"])
    if first:
        print(f"\nk = {row['k']}: cut / CPU s (one thread, minimum of the alternated runs)")
        print(f"{'graph':<22}{'n':>9}" + "".join(f"{c:>20}" for c in names))
    print(f"{row['graph']:<22}{row['n']:>9,}" + "".join(
        f"{row['runs'][c]['cut']:>11,}{row['runs'][c]['cpu_s']:>9.2f}" for c in names), flush=True)


def print_phases(rows, k):
    """hec+fm's wall time per phase (``PartitionResult.seconds``), ms."""
    print(f"\nk = {k}: hec+fm, ms per phase (one run; map and build are parts of coarsen)")
    names = list(rows[0]["phases"]) if rows else []
    print(f"{'graph':<22}" + "".join(f"{n:>10}" for n in names))
    for row in rows:
        print(f"{row['graph']:<22}" + "".join(f"{1e3 * row['phases'][n]:>10.0f}" for n in names))


def columns(k, only=None):
    """The columns at k parts: gbgraph's configurations, then the peers (only those in ``only``)."""
    return [c for c in [name for name, *_ in (OURS if k == 2 else OURS_K)] + list(PEERS) if only is None or c in only]


def print_header(k, only=None):
    print(f"\nk = {k}: cut / imbalance % / ms (median); largest connected components, patterns, eps = {EPS}")
    print(f"{'graph':<22}{'n':>9}{'SpMV ms':>9}" + "".join(f"{c:>22}" for c in columns(k, only)))


def print_row(row, k, only=None):
    cells = []
    for c in columns(k, only):
        r = row["runs"].get(c)
        if c in row.get("timed_out", {}):
            cells.append(f"{'> ' + format(row['timed_out'][c], 'g') + ' s':>22}")
        else:
            cells.append(f"{'-':>22}" if r is None else f"{r['cut']:>9,}{100 * r['imbalance']:>5.1f}{r['ms']:>8.0f}")
    print(f"{row['graph']:<22}{row['n']:>9,}{row['spmv_ms']:>9.2f}" + "".join(cells), flush=True)


def geomean(values):
    return float(np.exp(np.mean(np.log(values)))) if values else float("nan")


def ratio(rows, a, b):
    """Geometric mean of cut(a) / cut(b) over the rows that have both (cuts of 0 count as 1)."""
    pairs = [(r["runs"][a]["cut"], r["runs"][b]["cut"]) for r in rows if a in r["runs"] and b in r["runs"]]
    return geomean([max(x, 1) / max(y, 1) for x, y in pairs]), len(pairs)


def verdict(met):
    return "met" if met else "MISSED"


def quality_targets(rows, k, c):
    """Issue 40's quality targets for configuration ``c``, a line each, and KaHIP strong's
    cut beside it."""
    lines = []
    value, count = ratio(rows, c, "kaminpar")
    if count:
        lines.append(f"k={k}: {c}: cut / KaMinPar default's, geometric mean {value:.3f} over {count} graphs "
                     f"(target <= 0.95: {verdict(value <= 0.95)})")
    have = [r for r in rows if c in r["runs"] and "metis" in r["runs"]]
    if have:
        wins = sum(r["runs"][c]["cut"] <= r["runs"]["metis"]["cut"] for r in have)
        losses = ", ".join(r["graph"] for r in have if r["runs"][c]["cut"] > r["runs"]["metis"]["cut"])
        lines.append(f"k={k}: {c}: cut <= METIS' on {wins} of {len(have)} graphs ({100 * wins / len(have):.0f}%; "
                     f"target >= 85%: {verdict(wins >= 0.85 * len(have))})" + (f"; more on {losses}" if losses else ""))
    mine = [(r["runs"][c]["imbalance"], r["graph"]) for r in rows if c in r["runs"]]
    if mine:
        worst = max(mine)
        lines.append(f"k={k}: {c}: largest imbalance {100 * worst[0]:.2f}% ({worst[1]}; target <= 3%: "
                     f"{verdict(worst[0] <= EPS + 1e-9)})")
    value, count = ratio(rows, c, "kahip-strong")
    late = [r["graph"] for r in rows if "kahip-strong" in r.get("timed_out", {})]
    if count or late:
        wins = sum(r["runs"][c]["cut"] <= r["runs"]["kahip-strong"]["cut"] for r in rows
                   if c in r["runs"] and "kahip-strong" in r["runs"])
        line = f"k={k}: {c}: cut / KaHIP strong's, "
        line += f"geometric mean {value:.3f} over {count} graphs, no more on {wins}" if count else "none measured"
        lines.append(line + (f"; KaHIP strong out of time on {', '.join(late)}" if late else ""))
    return lines


def summary(rows, k):
    """A line per target of issue 40 (quality for the defaults, hec+fm at k = 2 and "default"
    at k > 2, and for the other method; CPU speed), then the other ratios and times."""
    pair = ("hec+fm", "kway") if k == 2 else ("default", "hec+fm")
    lines = quality_targets(rows, k, pair[0]) + quality_targets(rows, k, pair[1])
    for c in pair:
        sizable = [r for r in rows if r["n"] >= 30_000 and c in r["runs"] and "kaminpar" in r["runs"]]
        if sizable:
            faster = sum(r["runs"][c]["ms"] <= r["runs"]["kaminpar"]["ms"] for r in sizable)
            slowest = max(r["runs"][c]["ms"] / r["runs"]["kaminpar"]["ms"] for r in sizable)
            lines.append(f"k={k}: {c}: no slower than KaMinPar default on {faster} of {len(sizable)} graphs of "
                         f">= 30,000 vertices, at most {slowest:.1f} times its time (target: all)")
    large = [r for r in rows if r["n"] >= 100_000 and "hec+jet" in r["runs"] and "kaminpar" in r["runs"]]
    if large:
        faster = sum(r["runs"]["hec+jet"]["ms"] < r["runs"]["kaminpar"]["ms"] for r in large)
        lines.append(f"k={k}: hec+jet faster than kaminpar on {faster} of {len(large)} graphs of >= 100,000 vertices "
                     "(target: all)")
    for a, b, target in (("hec+jet", "hec+fm", "target <= 1.10"), ("hec+fm", "metis", None),
                         ("kway", "hec+fm", None), ("default", "hec+fm", None), ("hec+fm", "kaminpar-strong", None),
                         ("hec+spectral", "hec+fm", None), ("mis2+fm", "hec+fm", None), ("hem+fm", "hec+fm", None),
                         ("metis", "kaminpar", None), ("kahip-strong", "kaminpar", None)):
        value, count = ratio(rows, a, b)
        if count:
            lines.append(f"k={k}: cut({a}) / cut({b}) geometric mean {value:.3f} over {count} graphs"
                         + (f" ({target})" if target else ""))
    ours = [r["runs"][c]["imbalance"] for r in rows for c in r["runs"] if c in dict.fromkeys(n for n, *_ in OURS)]
    if ours:
        lines.append(f"k={k}: gbgraph's largest imbalance over all its configurations {100 * max(ours):.2f}% "
                     "(bound 3%)")
    for c in columns(k):
        ms = [r["runs"][c]["ms"] / r["spmv_ms"] for r in rows if c in r["runs"]]
        if ms:
            lines.append(f"k={k}: {c}: time in SpMV-equivalents, geometric mean {geomean(ms):,.0f}")
    return lines


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser, ["laplace3d:100"], repeat=3)
    parser.add_argument("--k", nargs="*", type=int, default=[2, 8], help="numbers of parts (default: 2 8)")
    parser.add_argument("--backend", default="numba", help="gbgraph's backend: numba (default), suitesparse, cupy "
                                                         "(the peers run on the host either way)")
    parser.add_argument("--tries", type=int, default=None, help="gbgraph's tries (default: gg.partition's, 3 per "
                                                                "bisection, 1 for k-way)")
    parser.add_argument("--phases", action="store_true",
                        help="also print hec+fm's time per phase (coarse mappings, coarse graphs, initial "
                             "bisections, refinement, induced subgraphs)")
    parser.add_argument("--methods", action="store_true",
                        help="compare gg.partition's method='recursive' and 'kway' (3 tries and 1) with KaMinPar's "
                             "default on one thread, in CPU time (issue 40)")
    parser.add_argument("--kahip-limit", type=float, metavar="SECONDS",
                        help="stop each KaHIP run after this many seconds (it runs in a forked process; the row "
                             "says it ran out of time); default: no limit")
    parser.add_argument("--only", nargs="*", metavar="NAME",
                        help="run only these columns (gbgraph's configurations and peers), e.g. hec+jet kaminpar")
    args = parser.parse_args(argv)
    specs = graph_specs(args, ["laplace3d:100"])
    missing = [p for p in ("pymetis", "kahip", "kaminpar") if __import__("importlib").util.find_spec(p) is None]
    if missing:
        print(f"note: {', '.join(missing)} not installed; those columns are skipped "
              "(pip install -e \".[partition-peers]\")")
    all_rows, lines = {}, []
    if args.methods:
        for k in args.k:
            rows = []
            for spec in progress(specs, lambda spec: f"k = {k}, {graph_name(spec)}"):
                rows.append(bench_methods(spec, args.repeat, k))
                print_methods(rows[-1], len(rows) == 1)
            all_rows[k] = rows
            lines += methods_summary(rows, k)
        print("\n".join(lines))
        if args.json:
            pathlib.Path(args.json).write_text(json.dumps(
                {"machine": describe_machine(repeat=args.repeat, eps=EPS, methods=METHOD_RUNS, timing="process_time, "
                                             "minimum of alternated runs"),
                 "rows": {str(k): rows for k, rows in all_rows.items()}, "summary": lines}, indent=1))
        return
    for k in args.k:
        print_header(k, args.only)
        rows = []
        for spec in progress(specs, lambda spec: f"k = {k}, {graph_name(spec)}"):
            rows.append(bench(spec, args.repeat, k, args.backend, args.tries, args.only, args.phases, args.threads,
                              args.kahip_limit))
            print_row(rows[-1], k, args.only)
        if args.phases:
            print_phases(rows, k)
        all_rows[k] = rows
        lines += summary(rows, k)
    print("\n".join(lines))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(
            {"machine": describe_machine(repeat=args.repeat, eps=EPS, backend=args.backend, tries=args.tries,
                                         only=args.only, threads_kaminpar=args.threads or os.cpu_count(),
                                         kahip_limit_s=args.kahip_limit, load_average=os.getloadavg()),
             "rows": {str(k): rows for k, rows in all_rows.items()}, "summary": lines}, indent=1))


if __name__ == "__main__":
    main()

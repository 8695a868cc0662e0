"""Multilevel bisection and 8-way partitioning against METIS, KaHIP and KaMinPar (issue 13).

Every graph is reduced to its largest connected component (Gilbert et al.'s preprocessing,
Table I), read as a pattern (every edge weighs 1, every vertex 1), and handed to every
partitioner alike. For each graph, at 3% imbalance:

* gbgraph's ``gg.bisect`` with hec+fm, hec+jet, hec+spectral, mis2+fm, hem+fm, and
  ``gg.partition(A, 8)`` with hec+fm and hec+jet;
* pymetis (METIS 5, ``ufactor=30``), kahip (``kaffpa`` FAST and STRONG), kaminpar
  (default and strong contexts, all cores), seed 0 each; a peer that is not installed is
  skipped (``pip install -e ".[partition-peers]"``).

Cut and imbalance of every result are counted here by scipy, not taken from the
partitioner; time is the median of --repeat runs (interleaved) of the call alone (the
peers' input arrays, and KaMinPar's graph file, are prepared beforehand), beside scipy's
SpMV ``A @ x`` on the same matrix. Targets: hec+fm cuts no more than METIS on >= 80% of the
graphs and within 5% of KaMinPar's default in geometric mean; hec+jet within 10% of hec+fm.

    python benchmarks/bench_partition.py --json benchmarks/results/partition-cpu.json
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
#: gbgraph's configurations: (name, coarsening, refine).
OURS = (("hec+fm", "hec", "fm"), ("hec+jet", "hec", "jet"), ("hec+spectral", "hec", "spectral"),
        ("mis2+fm", "mis2", "fm"), ("hem+fm", "hem", "fm"))
OURS_K = (("hec+fm", "hec", "fm"), ("hec+jet", "hec", "jet"))
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


def peer_runners(A, k, tmp):
    """name -> zero-argument callable returning the parts, for every installed peer."""
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
        for name, mode in (("kahip-fast", 0), ("kahip-strong", 2)):
            runners[name] = (lambda mode: lambda: kahip.kaffpa(vwgt, x, adjcwgt, adj, k, EPS, True, 0, mode)[1])(mode)
    except ImportError:
        pass
    try:
        import kaminpar

        path = pathlib.Path(tmp) / "graph.metis"
        write_metis(A, path)
        graph = kaminpar.load_graph(str(path), kaminpar.GraphFileFormat.METIS)
        threads = os.cpu_count()
        for name, context in (("kaminpar", kaminpar.default_context), ("kaminpar-strong", kaminpar.strong_context)):
            def run(context=context):
                kaminpar.reseed(0)
                return kaminpar.KaMinPar(threads, context()).compute_partition(graph, k, EPS)
            runners[name] = run
    except ImportError:
        pass
    return runners


def write_metis(A, path):
    """A symmetric pattern in METIS' text format (1-based neighbour lists)."""
    with open(path, "w") as f:
        f.write(f"{A.shape[0]} {A.nnz // 2}\n")
        for i in range(A.shape[0]):
            f.write(" ".join(map(str, A.indices[A.indptr[i]:A.indptr[i + 1]] + 1)) + "\n")


def measure(runs, repeat):
    """{name: (median ms, parts of the last run)}, the runs interleaved."""
    times = {name: [] for name in runs}
    parts = {}
    for _ in range(repeat):
        for name, fn in runs.items():
            start = time.perf_counter()
            parts[name] = fn()
            times[name].append(time.perf_counter() - start)
    return {name: (1e3 * statistics.median(times[name]), parts[name]) for name in runs}


def ours_on(A, backend):
    """The graph gbgraph's runs take (a cupyx matrix for --backend cupy) and a function that
    waits for the device."""
    if backend != "cupy":
        return gg.as_graph(A), (lambda: None), (lambda parts: parts)
    import cupy
    import cupyx.scipy.sparse as csp

    return (gg.as_graph(csp.csr_matrix(A.astype(np.float64))), cupy.cuda.Device().synchronize,
            lambda parts: parts.get())


def bench(spec, repeat, k, backend="numba", tries=3, only=None, phases=False):
    """One graph's row; ``only``: the names of the configurations and peers to run (None: all);
    ``phases``: also hec+fm's ``seconds`` (where its time goes) from one more run."""
    A = largest_component(matrix(spec))
    G, sync, host = ours_on(A, backend)
    ours = [o for o in (OURS if k == 2 else OURS_K) if only is None or o[0] in only]

    def ours_run(c, r):
        parts = gg.partition(G, k, coarsening=c, refine=r, tries=tries, backend=backend).parts
        sync()
        return host(parts)

    runs = {name: (lambda c=c, r=r: ours_run(c, r)) for name, c, r in ours}
    for fn in runs.values():  # compile and cache the kernels before timing
        fn()
    with tempfile.TemporaryDirectory() as tmp:
        runs.update((name, run) for name, run in peer_runners(A, k, tmp).items() if only is None or name in only)
        results = measure(runs, repeat)
    x = np.ones(A.shape[0])
    start = time.perf_counter()
    for _ in range(10):
        A @ x
    spmv_ms = 1e3 * (time.perf_counter() - start) / 10
    row = {"graph": graph_name(spec), "n": A.shape[0], "edges": A.nnz // 2, "k": k, "spmv_ms": spmv_ms, "runs": {}}
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
        peers = peer_runners(A, k, tmp)
        if "kaminpar" in peers:
            import kaminpar

            context = kaminpar.default_context

            def one_thread():
                kaminpar.reseed(0)
                return kaminpar.KaMinPar(1, context()).compute_partition(kaminpar_graph, k, EPS)

            path = pathlib.Path(tmp) / "graph.metis"
            kaminpar_graph = kaminpar.load_graph(str(path), kaminpar.GraphFileFormat.METIS)
            runs["kaminpar"] = one_thread
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


def columns(k):
    return [name for name, _, _ in (OURS if k == 2 else OURS_K)] + list(PEERS)


def print_header(k):
    print(f"\nk = {k}: cut / imbalance % / ms (median); largest connected components, patterns, eps = {EPS}")
    print(f"{'graph':<22}{'n':>9}{'SpMV ms':>9}" + "".join(f"{c:>22}" for c in columns(k)))


def print_row(row, k):
    cells = []
    for c in columns(k):
        r = row["runs"].get(c)
        cells.append(f"{'-':>22}" if r is None else f"{r['cut']:>9,}{100 * r['imbalance']:>5.1f}{r['ms']:>8.0f}")
    print(f"{row['graph']:<22}{row['n']:>9,}{row['spmv_ms']:>9.2f}" + "".join(cells), flush=True)


def geomean(values):
    return float(np.exp(np.mean(np.log(values)))) if values else float("nan")


def ratio(rows, a, b):
    """Geometric mean of cut(a) / cut(b) over the rows that have both (cuts of 0 count as 1)."""
    pairs = [(r["runs"][a]["cut"], r["runs"][b]["cut"]) for r in rows if a in r["runs"] and b in r["runs"]]
    return geomean([max(x, 1) / max(y, 1) for x, y in pairs]), len(pairs)


def summary(rows, k):
    lines = []
    have_metis = [r for r in rows if "metis" in r["runs"] and "hec+fm" in r["runs"]]
    if have_metis:
        wins = sum(r["runs"]["hec+fm"]["cut"] <= r["runs"]["metis"]["cut"] for r in have_metis)
        lines.append(f"k={k}: hec+fm cuts no more than METIS on {wins} of {len(have_metis)} graphs "
                     f"({100 * wins / len(have_metis):.0f}%; target >= 80%)")
    for a, b, target in (("hec+fm", "kaminpar", "target <= 1.05"), ("hec+jet", "hec+fm", "target <= 1.10"),
                         ("hec+fm", "metis", None), ("hec+fm", "kahip-strong", None),
                         ("hec+fm", "kaminpar-strong", None), ("hec+spectral", "hec+fm", None),
                         ("mis2+fm", "hec+fm", None), ("hem+fm", "hec+fm", None)):
        value, count = ratio(rows, a, b)
        if count:
            lines.append(f"k={k}: cut({a}) / cut({b}) geometric mean {value:.3f} over {count} graphs"
                         + (f" ({target})" if target else ""))
    sizable = [r for r in rows if r["n"] >= 30_000 and "hec+fm" in r["runs"] and "kaminpar" in r["runs"]]
    if sizable:
        faster = sum(r["runs"]["hec+fm"]["ms"] <= r["runs"]["kaminpar"]["ms"] for r in sizable)
        slowest = max(r["runs"]["hec+fm"]["ms"] / r["runs"]["kaminpar"]["ms"] for r in sizable)
        lines.append(f"k={k}: hec+fm no slower than kaminpar on {faster} of {len(sizable)} graphs of >= 30,000 "
                     f"vertices, at most {slowest:.1f} times its time (target: all)")
    large = [r for r in rows if r["n"] >= 100_000 and "hec+jet" in r["runs"] and "kaminpar" in r["runs"]]
    if large:
        faster = sum(r["runs"]["hec+jet"]["ms"] < r["runs"]["kaminpar"]["ms"] for r in large)
        lines.append(f"k={k}: hec+jet faster than kaminpar on {faster} of {len(large)} graphs of >= 100,000 vertices "
                     "(target: all)")
    worst = max((r["runs"][c]["imbalance"], r["graph"], c) for r in rows for c in r["runs"] if c in dict.fromkeys(
        n for n, _, _ in OURS))
    lines.append(f"k={k}: gbgraph's largest imbalance {100 * worst[0]:.2f}% ({worst[2]} on {worst[1]}; bound 3%)")
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
    parser.add_argument("--tries", type=int, default=3, help="gbgraph's tries per bisection (default 3, the default "
                                                             "of gg.partition)")
    parser.add_argument("--phases", action="store_true",
                        help="also print hec+fm's time per phase (coarse mappings, coarse graphs, initial "
                             "bisections, refinement, induced subgraphs)")
    parser.add_argument("--methods", action="store_true",
                        help="compare gg.partition's method='recursive' and 'kway' (3 tries and 1) with KaMinPar's "
                             "default on one thread, in CPU time (issue 40)")
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
        print_header(k)
        rows = []
        for spec in progress(specs, lambda spec: f"k = {k}, {graph_name(spec)}"):
            rows.append(bench(spec, args.repeat, k, args.backend, args.tries, args.only, args.phases))
            print_row(rows[-1], k)
        if args.phases:
            print_phases(rows, k)
        all_rows[k] = rows
        lines += summary(rows, k)
    print("\n".join(lines))
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(
            {"machine": describe_machine(repeat=args.repeat, eps=EPS, backend=args.backend, tries=args.tries,
                                         only=args.only, threads_kaminpar=os.cpu_count()),
             "rows": {str(k): rows for k, rows in all_rows.items()}, "summary": lines}, indent=1))


if __name__ == "__main__":
    main()

"""Vertex coloring on the CPU: gbgraph's methods beside networkx and pyamg, in one run.

For each graph it prints, per gbgraph method, the number of colors, of rounds and the time
(median of --repeat warm calls, interleaved with scipy's CSR SpMV on the same matrix, whose
median gives the SpMV-equivalents); then networkx's ``greedy_color`` (largest_first,
smallest_last, DSATUR; sequential Python) and pyamg's ``vertex_coloring`` (MIS, JP, LDF;
sequential C++), each timed once. Every coloring is checked with ``gg.validate.is_coloring``.
Distance-2 methods run on graphs whose maximum degree is at most --d2-max-degree (a hub of
degree d forces d + 1 colors and as many rounds). On the skewed graphs, the hybrid's rounds
are listed for several switch points (``degree_rounds``). A table of hard inputs times the
complete graph K₂₀₀₀ and distance 2 on a 200,000-leaf star and on debian_bookworm_deps, where
a coloring must not cost a round per vertex nor a degree² per round. A last table weighs the
issue's targets, and a first one measures the bitset reduction that first-fit needs
(docs/coloring.md).

    python benchmarks/bench_coloring.py      # Laplace3D 50³, 100³, Elasticity3D 30³ + ../shared/data
    python benchmarks/bench_coloring.py --graphs laplace3d:100 --json out.json
"""

import argparse
import json
import math
import pathlib
import time

import networkx as nx
import numpy as np
import scipy.sparse as sp
from pyamg.graph import vertex_coloring

import gbgraph as gg
from common import common_arguments, describe_machine, graph_name, graph_specs, matrix, median_ms, progress

# (label, method, distance, priority)
METHODS = [("greedy", "greedy", 1, None), ("greedy-random", "greedy", 1, "random"),
           ("jones_plassmann", "jones_plassmann", 1, None), ("hybrid", "hybrid", 1, None), ("mis", "mis", 1, None),
           ("greedy-d2", "greedy", 2, None), ("jones_plassmann-d2", "jones_plassmann", 2, None)]
NX_STRATEGIES = ("largest_first", "smallest_last", "DSATUR")
GENERATED = ("laplace3d:50", "laplace3d:100", "elasticity3d:30")
PYAMG_METHODS = ("MIS", "JP", "LDF")
SWITCH_POINTS = (1, 2, 4, 8, 16, None)
# Skewed-degree graphs of ../shared/data/README.md, where Che et al. expect the hybrid to help.
SKEWED = ("coAuthorsDBLP", "pgp-strong-2009", "cond-mat-2005", "astro-ph", "wiki-Vote", "PGPgiantcompo",
          "debian_bookworm_deps")


def name_of(spec):
    return pathlib.Path(spec).name.removesuffix(".mtx.gz") if spec.endswith(".mtx.gz") else spec


def bench(spec, repeat, dsatur_max_n, d2_max_degree):
    A = matrix(spec)
    G = gg.as_graph(A, weights=False)
    x = np.ones(A.shape[0])
    max_degree = int(np.diff(G.indptr).max())
    row = {"graph": name_of(spec), "n": G.n, "nnz": G.nnz, "max_degree": max_degree, "gbgraph": {},
           "networkx": {}, "pyamg": {}, "hybrid_rounds_by_degree_rounds": None}
    methods = [m for m in METHODS if m[2] == 1 or max_degree <= d2_max_degree]
    calls = [lambda: A @ x]
    for label, method, distance, priority in methods:
        r = gg.color(G, method, distance=distance, priority=priority)  # warm-up: builds the backend matrices
        row["gbgraph"][label] = {"colors": r.n_colors, "rounds": r.iterations,
                                 "valid": gg.validate.is_coloring(G, r.colors, distance=distance)}
        calls.append(lambda m=method, d=distance, p=priority: gg.color(G, m, distance=d, priority=p))
    times = median_ms(*calls, repeat=repeat)
    row["spmv_ms"] = times[0]
    for (label, *_), t in zip(methods, times[1:]):
        row["gbgraph"][label].update(ms=t, spmv_equivalents=t / times[0])
    row["networkx"] = networkx_colorings(A, G, dsatur_max_n)
    row["pyamg"] = pyamg_colorings(A, G)
    if row["graph"] in SKEWED:
        row["hybrid_rounds_by_degree_rounds"] = {
            str(k): gg.color(G, "hybrid", degree_rounds=k).iterations for k in SWITCH_POINTS}
    return row


def networkx_colorings(A, G, dsatur_max_n):
    S = A.tocsr(copy=True)
    S.setdiag(0)
    S.eliminate_zeros()
    graph = nx.from_scipy_sparse_array(S)
    out = {}
    for strategy in NX_STRATEGIES:
        if strategy == "DSATUR" and G.n > dsatur_max_n:
            out[strategy] = None  # networkx's DSATUR takes O(n^2): 64 s at n = 8,000
            continue
        t = time.perf_counter()
        coloring = nx.greedy_color(graph, strategy)
        seconds = time.perf_counter() - t
        colors = np.array([coloring[v] for v in range(G.n)], np.int64)
        out[strategy] = {"colors": int(colors.max()) + 1, "ms": 1e3 * seconds,
                         "valid": gg.validate.is_coloring(G, colors)}
    return out


def pyamg_colorings(A, G):
    out = {}
    for method in PYAMG_METHODS:
        np.random.seed(0)  # pyamg draws its random weights from numpy's global generator
        t = time.perf_counter()
        colors = vertex_coloring(A.tocsr(), method)
        seconds = time.perf_counter() - t
        out[method] = {"colors": int(colors.max()) + 1, "ms": 1e3 * seconds,
                       "valid": gg.validate.is_coloring(G, colors.astype(np.int64))}
    return out


def bitset_costs(spec, repeat):
    """The ⊕bor reduction of bit words, over every row and over a frontier of n/7 rows.

    ``bor_second`` is what ``gg.color`` uses; python-graphblas has no name for it and the
    backend builds it from the ``bor`` monoid, which the wheel runs with a generic kernel.
    ``max_second`` (precompiled) shows what a precompiled kernel costs on the same rows.
    Two alternatives: ``plus_second`` over digit counts (each color a base-2^k digit, k =
    bit_length(max degree), so that no digit overflows; a digit is nonzero when a neighbour
    holds the color, read back by or-ing the digit's bits; 64 // k colors per word), and the
    array path: the rows (``extract`` for the frontier), a gather of the bit words and
    ``bitwise_or.reduceat``.
    """
    A = matrix(spec)
    G = gg.as_graph(A, weights=False)
    be = gg.backend("suitesparse")
    P = be.adjacency(G)
    words = np.random.default_rng(0).integers(0, 2**63, G.n).astype(np.uint64)
    w = be.full(G.n, 0, "uint64")
    be.assign(w, be.vector(np.arange(G.n), words, G.n), mask=w)
    indptr, indices = G.indptr.astype(np.int64), G.indices.astype(np.int64)
    frontier = np.sort(np.random.default_rng(1).choice(G.n, G.n // 7, replace=False))
    mask = be.vector(frontier, True, G.n)

    k = int(np.diff(G.indptr).max()).bit_length()
    digits = be.full(G.n, 0, "uint64")
    be.assign(digits, be.vector(np.arange(G.n), np.uint64(1) << np.uint64(k) * (words % np.uint64(64 // k)), G.n),
              mask=digits)

    def digit_path(rows_mask):
        counts = be.values(be.mxv("plus_second", P, digits, mask=rows_mask))
        used = counts.copy()
        for j in range(1, k):
            used |= counts >> np.uint64(j)
        return used

    def array_path(rows):
        rows_indptr, rows_indices, _ = be.to_csr(be.extract(P, rows))
        return np.bitwise_or.reduceat(np.append(words[rows_indices], np.uint64(0)), rows_indptr[:-1])

    x = np.ones(G.n)
    every = be.full(G.n, True, "bool")
    names = ["scipy SpMV (float64)", "max_second (precompiled)", "bor_second (generic)",
             "plus_second digits (precompiled)", "array path"]
    full = median_ms(lambda: A @ x, lambda: be.mxv("max_second", P, w), lambda: be.mxv("bor_second", P, w),
                     lambda: digit_path(every), lambda: np.bitwise_or.reduceat(words[indices], indptr[:-1]),
                     repeat=repeat)
    part = median_ms(lambda: A @ x, lambda: be.mxv("max_second", P, w, mask=mask),
                     lambda: be.mxv("bor_second", P, w, mask=mask), lambda: digit_path(mask),
                     lambda: array_path(frontier), repeat=repeat)
    return {"graph": name_of(spec), "frontier": int(frontier.size),
            "every_row_ms": dict(zip(names, full)), "frontier_ms": dict(zip(names, part))}


def targets(rows):
    """The issue's targets, measured."""
    lf = [(r["gbgraph"]["greedy"]["colors"], r["networkx"]["largest_first"]["colors"], r["graph"]) for r in rows]
    shared = [(a, b) for a, b, g in lf if ":" not in g]

    def geomean(pairs):
        return math.exp(sum(math.log(a / b) for a, b in pairs) / len(pairs)) if pairs else None

    skewed = {r["graph"]: (r["gbgraph"]["hybrid"]["rounds"], r["gbgraph"]["jones_plassmann"]["rounds"])
              for r in rows if r["graph"] in SKEWED}
    valid = all(v["valid"] for r in rows for group in ("gbgraph", "networkx", "pyamg")
                for v in r[group].values() if v is not None)
    laplace = [r for r in rows if r["graph"] == "laplace3d:100"]
    spmv_eq = laplace[0]["gbgraph"]["greedy"]["spmv_equivalents"] if laplace else None
    return {
        "greedy_over_largest_first_geomean": geomean([(a, b) for a, b, _ in lf]),
        "greedy_over_largest_first_geomean_shared_data": geomean(shared),
        "greedy_within_10_percent": geomean([(a, b) for a, b, _ in lf]) <= 1.10 if lf else None,
        "hybrid_vs_jones_plassmann_rounds_skewed": skewed,
        "hybrid_fewer_rounds_on_every_skewed_graph": all(h < j for h, j in skewed.values()) if skewed else None,
        "every_coloring_valid": valid,
        "greedy_laplace3d_100_spmv_equivalents": spmv_eq,
        "greedy_laplace3d_100_within_5_spmv": spmv_eq <= 5 if spmv_eq is not None else None,
    }


def print_row(row):
    cells = [f"{row['graph']:<22}", f"{row['n']:>10,}", f"{row['nnz']:>11,}", f"{row['spmv_ms']:>7.2f}"]
    for label, *_ in METHODS:
        m = row["gbgraph"].get(label)
        if m is None:
            cells.append(f"{'-':>22}")
            continue
        mark = "" if m["valid"] else "!"
        cells.append(f"{m['colors']:>5}{mark}/{m['rounds']:<4}{m['ms']:>7.1f}{m['spmv_equivalents']:>6.1f}")
    print(" ".join(cells), flush=True)


def print_baselines(rows):
    print("\nBaselines, same run (colors, ms; '!' marks an invalid coloring; DSATUR '-': n above --dsatur-max-n; "
          "gbgraph greedy: colors)")
    print(f"{'graph':<22} " + " ".join(f"{'nx ' + s:>19}" for s in NX_STRATEGIES) + " "
          + " ".join(f"{'pyamg ' + m:>16}" for m in PYAMG_METHODS) + f" {'gbgraph greedy':>15}")
    for row in rows:
        cells = [f"{row['graph']:<22}"]
        for s in NX_STRATEGIES:
            v = row["networkx"][s]
            cells.append(f"{'-':>19}" if v is None else f"{v['colors']:>5}{'' if v['valid'] else '!'}{v['ms']:>13.1f}")
        for m in PYAMG_METHODS:
            v = row["pyamg"][m]
            cells.append(f"{v['colors']:>5}{'' if v['valid'] else '!'}{v['ms']:>10.1f}")
        cells.append(f"{row['gbgraph']['greedy']['colors']:>15}")
        print(" ".join(cells))


def print_switch_points(rows):
    print("\nHybrid rounds by degree_rounds (None: switch after a round that colors nothing), skewed graphs")
    print(f"{'graph':<22} {'jones_plassmann':>15} " + " ".join(f"{str(k):>6}" for k in SWITCH_POINTS))
    for row in rows:
        if row["hybrid_rounds_by_degree_rounds"] is not None:
            print(f"{row['graph']:<22} {row['gbgraph']['jones_plassmann']['rounds']:>15} "
                  + " ".join(f"{v:>6}" for v in row["hybrid_rounds_by_degree_rounds"].values()))


#: (name, method, distance, target seconds): inputs where a coloring once took a round per vertex
#: or a degree² per round
HARD = [("K2000", "greedy", 1, 0.1), ("star 200,000 leaves", "greedy", 2, 1.0),
        ("star 200,000 leaves", "jones_plassmann", 2, 1.0), ("debian_bookworm_deps", "greedy", 2, 5.0),
        ("debian_bookworm_deps", "jones_plassmann", 2, 5.0)]


def hard_input(name, data):
    if name == "K2000":
        return np.ones((2000, 2000)) - np.eye(2000)
    if name.startswith("star"):
        leaves = 200_000
        hub = sp.csr_array((np.ones(leaves), (np.zeros(leaves, np.int64), np.arange(1, leaves + 1))),
                           shape=(leaves + 1, leaves + 1))
        return gg.symmetrize(hub)
    return matrix(str(pathlib.Path(data) / f"{name}.mtx.gz"))


def hard_inputs(data, repeat):
    """Each HARD row: colors, rounds and the median seconds of ``repeat`` calls after a warm-up."""
    rows = []
    for name, method, distance, target in HARD:
        try:
            A = hard_input(name, data)
        except FileNotFoundError:
            continue
        G = gg.as_graph(A)
        r = gg.color(G, method, distance=distance)
        (ms,) = median_ms(lambda: gg.color(G, method, distance=distance), repeat=repeat)
        rows.append({"graph": name, "method": method, "distance": distance, "colors": r.n_colors,
                     "rounds": r.iterations, "valid": gg.validate.is_coloring(G, r.colors, distance=distance),
                     "seconds": ms / 1e3, "target_seconds": target, "met": ms / 1e3 <= target})
    return rows


def print_hard_inputs(rows):
    print("\nHard inputs (seconds, median; target from the issue)")
    print(f"{'graph':<22} {'method':<16} {'d':>2} {'colors':>7} {'rounds':>7} {'seconds':>9} {'target':>7}")
    for r in rows:
        print(f"{r['graph']:<22} {r['method']:<16} {r['distance']:>2} {r['colors']:>7,}{'' if r['valid'] else '!'} "
              f"{r['rounds']:>7} {r['seconds']:>9.3f} {r['target_seconds']:>7.1f}  {'met' if r['met'] else 'NOT met'}")


def print_targets(t):
    print("\nTargets")
    print(f"  greedy colors / networkx largest_first, geometric mean: {t['greedy_over_largest_first_geomean']:.3f} "
          f"(target <= 1.10: {'met' if t['greedy_within_10_percent'] else 'NOT met'}); "
          f"over ../shared/data only: {t['greedy_over_largest_first_geomean_shared_data']:.3f}")
    for graph, (h, j) in t["hybrid_vs_jones_plassmann_rounds_skewed"].items():
        print(f"  rounds on {graph}: hybrid {h}, jones_plassmann {j} ({'fewer' if h < j else 'NOT fewer'})")
    print(f"  hybrid needs fewer rounds on every skewed graph: "
          f"{'met' if t['hybrid_fewer_rounds_on_every_skewed_graph'] else 'NOT met'}")
    print(f"  every coloring valid: {'met' if t['every_coloring_valid'] else 'NOT met'}")
    if t["greedy_laplace3d_100_spmv_equivalents"] is not None:
        print(f"  greedy on Laplace3D 100³: {t['greedy_laplace3d_100_spmv_equivalents']:.1f} SpMV-equivalents "
              f"(target <= 5, issue 11: {'met' if t['greedy_laplace3d_100_within_5_spmv'] else 'NOT met'})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser, GENERATED, repeat=5)
    parser.add_argument("--dsatur-max-n", type=int, default=8000,
                        help="largest n given to networkx's DSATUR, which is quadratic (default 8,000)")
    parser.add_argument("--d2-max-degree", type=int, default=100,
                        help="largest maximum degree of a graph given to the distance-2 methods (default 100)")
    parser.add_argument("--bitset-graph", default="laplace3d:100", help="graph of the bitset measurement")
    args = parser.parse_args(argv)
    specs = graph_specs(args, GENERATED)
    machine = describe_machine(networkx=nx.__version__, repeat=args.repeat)
    bitsets = bitset_costs(args.bitset_graph, args.repeat)
    print(f"⊕bor reduction of bit words on {bitsets['graph']} (ms, median of {args.repeat}): every row, and the rows "
          f"of a frontier of {bitsets['frontier']:,} vertices (masked products; array path: extract, gather, "
          f"reduceat)")
    for name in bitsets["every_row_ms"]:
        print(f"  {name:<34} {bitsets['every_row_ms'][name]:8.2f} {bitsets['frontier_ms'][name]:8.2f}")
    print(f"\nColoring, CPU; per method: colors/rounds, ms (median of {args.repeat}), SpMV-eq = ms / SpMV")
    print(f"{'graph':<22} {'n':>10} {'nnz':>11} {'SpMV':>7} " + " ".join(f"{label:>22}" for label, *_ in METHODS))
    rows = []
    for spec in progress(specs, graph_name):
        rows.append(bench(spec, args.repeat, args.dsatur_max_n, args.d2_max_degree))
        print_row(rows[-1])
    print_baselines(rows)
    print_switch_points(rows)
    hard = hard_inputs(args.data, args.repeat)
    print_hard_inputs(hard)
    result = targets(rows)
    print_targets(result)
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(
            {"machine": machine, "bitsets": bitsets, "rows": rows, "hard_inputs": hard, "targets": result}, indent=1))


if __name__ == "__main__":
    main()

"""MIS-2 priority experiments: Table I of Kelley & Rajamanickam (IPDPS 2022), and Lemma IV.2.

Table I analogue: rounds (and set sizes) of ``gg.mis2`` with fixed random priorities (Bell
et al., Table I's "Fixed"), priorities refreshed every round by plain xorshift ("Xor Hash")
and by xorshift* ("Xor* Hash", Kokkos Kernels' MIS2_FAST, gbgraph's default), and with
Kokkos Kernels' MIS2_QUALITY priorities, on Laplace3D 100³ and Elasticity3D 60³ (the two
generated matrices of the paper's Table I, whose numbers are printed beside) and on every
graph in ../shared/data.

Lemma IV.2 check: with the same priorities in every round, MIS-1 of G² (closed
neighbourhoods) is MIS-2 of G. gbgraph's ``mis1(G², "random")`` uses the hashed priorities of
``mis2(G)``, so both must return the same set in the same rounds; likewise
``mis1(G², "permutation")`` and ``mis2(G, priority="fixed")``. The timing columns compare
MIS-2 on G with the SpGEMM route (form G², then MIS-1; Tuminaro and Tong's MIS-2 in ML).
Graphs whose G² could exceed --max-square entries (sum of (d + 1)²) are skipped.

Frontier ablation (fixed priorities, the generated graphs): the time of each fixed-priority
variant as gbgraph runs it (worklist rounds, then frontier rounds once two rounds decide
under 1/8 of the undecided rows), with worklist rounds only, and with frontier rounds from
round 1 on (the private switch ``gbgraph.algorithms.mis._NARROW`` set to inf and 0).

    python benchmarks/bench_mis_priorities.py      # Laplace3D 100³, Elasticity3D 60³ + ../shared/data
    python benchmarks/bench_mis_priorities.py --graphs laplace3d:50 --json out.json
"""

import argparse
import json
import math
import pathlib
import time

import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.algorithms import mis
from common import common_arguments, describe_machine, graph_name, graph_specs, matrix, median_ms, progress

#: The paper's two generated matrices, measured by default before those of --data.
GENERATED = ("laplace3d:100", "elasticity3d:60")
#: Kelley & Rajamanickam, Table I: MIS-2 rounds with Fixed, Xor and Xor* priorities.
PAPER_TABLE_I = {"laplace3d:100": (14, 20, 10), "elasticity3d:60": (13, 23, 10)}
#: (label, mis2 keyword arguments), Table I's columns then MIS2_QUALITY.
VARIANTS = (("fixed", {"priority": "fixed"}), ("xor", {"priority_hash": "xorshift"}),
            ("xor*", {}), ("quality", {"priority": "quality"}))


def name_of(spec):
    return pathlib.Path(spec).name.removesuffix(".mtx.gz") if spec.endswith(".gz") else spec


def table_i_row(spec, G):
    """Rounds and sizes of the four priority variants on one graph."""
    row = {"graph": name_of(spec), "n": G.n, "nnz": G.nnz, "paper": PAPER_TABLE_I.get(spec)}
    for label, kwargs in VARIANTS:
        r = gg.mis2(G, **kwargs)
        assert gg.validate.is_mis(G, r.vertices, distance=2), (spec, label)
        row[label] = {"iterations": r.iterations, "size": len(r.vertices)}
    return row


def square(G):
    """Pattern of (A + I)² without the diagonal, as a scipy CSR array (the SpGEMM route)."""
    indptr, indices = G.closed_csr(np, np.int64)
    C = sp.csr_array((np.ones(indices.size, np.int64), indices, indptr), shape=(G.n, G.n))
    S = C @ C
    S.setdiag(0)
    S.eliminate_zeros()
    return S


def lemma_row(spec, G, repeat, limit):
    """MIS-1 of G² against MIS-2 of G, or a skip note when G² may be too large."""
    bound = int(np.sum((np.diff(G.indptr) + 1.0) ** 2))
    row = {"graph": name_of(spec), "n": G.n, "nnz": G.nnz, "square_bound": bound}
    if bound > limit:
        row["skipped"] = f"nnz(G²) bound {bound:,} > --max-square {limit:,}"
        return row
    S = square(G)
    refresh, fixed = gg.mis2(G), gg.mis2(G, priority="fixed")
    on_square, fixed_on_square = gg.mis1(S, "random"), gg.mis1(S, "permutation")
    row.update({
        "square_nnz": S.nnz, "iterations": refresh.iterations, "size": len(refresh.vertices),
        "random_equal": bool(np.array_equal(on_square.vertices, refresh.vertices)
                             and on_square.iterations == refresh.iterations),
        "permutation_equal": bool(np.array_equal(fixed_on_square.vertices, fixed.vertices)
                                  and fixed_on_square.iterations == fixed.iterations),
    })
    t_mis2, t_route = median_ms(lambda: gg.mis2(G), lambda: gg.mis1(square(G), "random"), repeat=repeat)
    row.update({"mis2_ms": t_mis2, "square_then_mis1_ms": t_route})
    return row


#: (label, call) of the fixed-priority variants in the frontier ablation.
FIXED = (("mis2 quality", lambda G: gg.mis2(G, priority="quality")),
         ("mis2 fixed", lambda G: gg.mis2(G, priority="fixed")),
         ("mis1 degree", lambda G: gg.mis1(G, "degree")),
         ("mis1 permutation", lambda G: gg.mis1(G, "permutation")))
#: _NARROW of each column of the ablation: gbgraph's, worklists only, frontier from round 1.
SWITCHES = (("switch", mis._NARROW), ("worklists", math.inf), ("frontier", 0))


def ablation_rows(spec, G, repeat):
    """Milliseconds of each fixed-priority variant under each round strategy."""
    rows = []
    for label, call in FIXED:
        def run(narrow, call=call):
            mis._NARROW = narrow
            try:
                return call(G)
            finally:
                mis._NARROW = SWITCHES[0][1]
        times = median_ms(*[lambda v=v: run(v) for _, v in SWITCHES], repeat=repeat)
        rows.append({"graph": name_of(spec), "variant": label, "iterations": call(G).iterations,
                     **{name: ms for (name, _), ms in zip(SWITCHES, times)}})
    return rows


def print_ablation(rows):
    print("\nFrontier ablation, ms (median): gbgraph's switch, worklist rounds only, frontier rounds from round 1")
    print(f"{'graph':<22} {'variant':<17} {'iters':>5} {'switch':>9} {'worklists':>10} {'frontier':>9}")
    for r in rows:
        print(f"{r['graph']:<22} {r['variant']:<17} {r['iterations']:>5} {r['switch']:>9.1f} {r['worklists']:>10.1f} "
              f"{r['frontier']:>9.1f}", flush=True)


def geometric_mean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


def print_table_i(rows):
    print("Table I analogue: MIS-2 rounds (|MIS-2|) by priority; paper = Kelley & Rajamanickam Table I "
          "(Fixed/Xor/Xor*)")
    print(f"{'graph':<22} {'n':>9} {'nnz':>11} {'Fixed':>14} {'Xor':>14} {'Xor*':>14} {'Quality':>14}  paper")
    for r in rows:
        cells = " ".join(f"{r[v]['iterations']:>4} ({r[v]['size']:>7,})" for v, _ in VARIANTS)
        paper = "" if r["paper"] is None else "/".join(map(str, r["paper"]))
        print(f"{r['graph']:<22} {r['n']:>9,} {r['nnz']:>11,} {cells}  {paper}", flush=True)


def table_i_summary(rows):
    """Geometric-mean rounds per variant and how often Table I's order Xor > Fixed > Xor* holds."""
    means = {v: geometric_mean([r[v]["iterations"] for r in rows]) for v, _ in VARIANTS}
    order = sum(r["xor"]["iterations"] > r["fixed"]["iterations"] > r["xor*"]["iterations"] for r in rows)
    xor_worse = sum(r["xor"]["iterations"] > r["xor*"]["iterations"] for r in rows)
    return {"geometric_mean_iterations": means, "graphs": len(rows), "xor_gt_fixed_gt_xorstar": order,
            "xor_gt_xorstar": xor_worse}


def print_lemma(rows):
    print("\nLemma IV.2: MIS-1 of G² (closed neighbourhoods) against MIS-2 of G, same hashed priorities")
    print(f"{'graph':<22} {'n':>9} {'nnz(G)':>11} {'nnz(G²)':>12} {'iters':>5} {'|MIS-2|':>8} "
          f"{'random':>7} {'perm':>7} {'mis2 ms':>9} {'G²+mis1 ms':>11}")
    for r in rows:
        if "skipped" in r:
            print(f"{r['graph']:<22} {r['n']:>9,} {r['nnz']:>11,}  skipped: {r['skipped']}", flush=True)
            continue
        print(f"{r['graph']:<22} {r['n']:>9,} {r['nnz']:>11,} {r['square_nnz']:>12,} {r['iterations']:>5} "
              f"{r['size']:>8,} {'equal' if r['random_equal'] else 'DIFFER':>7} "
              f"{'equal' if r['permutation_equal'] else 'DIFFER':>7} {r['mis2_ms']:>9.1f} "
              f"{r['square_then_mis1_ms']:>11.1f}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser, GENERATED, repeat=5)
    parser.add_argument("--max-square", type=int, default=60_000_000,
                        help="skip the Lemma IV.2 check where sum((d + 1)²) exceeds this (default 6e7)")
    args = parser.parse_args(argv)
    specs = graph_specs(args, GENERATED)
    t0 = time.perf_counter()
    graphs = [(spec, gg.as_graph(matrix(spec), weights=False)) for spec in progress(specs, graph_name)]
    table = [table_i_row(spec, G) for spec, G in progress(graphs, lambda g: graph_name(g[0]))]
    print_table_i(table)
    summary = table_i_summary(table)
    means = summary["geometric_mean_iterations"]
    print("geometric mean rounds: " + ", ".join(f"{v} {means[v]:.2f}" for v, _ in VARIANTS)
          + f"; Xor > Fixed > Xor* on {summary['xor_gt_fixed_gt_xorstar']} of {summary['graphs']} graphs, "
          f"Xor > Xor* on {summary['xor_gt_xorstar']}")
    lemma = [lemma_row(spec, G, args.repeat, args.max_square)
             for spec, G in progress(graphs, lambda g: graph_name(g[0]))]
    print_lemma(lemma)
    checked = [r for r in lemma if "skipped" not in r]
    holds = all(r["random_equal"] and r["permutation_equal"] for r in checked)
    print(f"Lemma IV.2 {'holds' if holds else 'FAILS'} on all {len(checked)} graphs checked "
          f"({len(lemma) - len(checked)} skipped)")
    ablation = [row for spec, G in graphs if spec in GENERATED for row in ablation_rows(spec, G, args.repeat)]
    if ablation:
        print_ablation(ablation)
    print(f"{time.perf_counter() - t0:.0f} s in all")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(
            {"machine": describe_machine(repeat=args.repeat), "table_i": table, "table_i_summary": summary,
             "lemma_iv2": lemma, "lemma_iv2_holds": holds, "frontier_ablation": ablation}, indent=1))


if __name__ == "__main__":
    main()

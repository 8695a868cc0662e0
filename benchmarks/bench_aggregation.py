"""Aggregation and coarse-graph construction on the CPU, beside pyamg, scipy and graphblas.

For each graph, in one run with interleaved timings (median of --repeat):

* ``gg.aggregate`` (``mis2`` and ``mis2_basic``), pyamg's ``standard_aggregation`` (serial
  greedy, C++) and scipy's CSR SpMV (the yardstick: "SpMV-equivalents"), with aggregate
  counts; Laplace3D rows check Kokkos Kernels' own counts;
* ``gg.coarse_graph`` with each method on the ``mis2`` aggregates, scipy's ``Pt @ A @ P``
  (P = ``gg.aggregation_operator(labels)``, ``Pt`` its transpose converted to CSR beforehand;
  also ``P.T @ A @ P`` as written) and python-graphblas' ``mxm`` (plus_times, matrices
  prepared beforehand). Target: the fastest method at most scipy's ``Pt @ A @ P``, the
  stricter of the two, on every graph;
* ``gg.coarsen`` (the whole hierarchy, with its default construction and with ``"sort"``),
  in SpMV-equivalents and split into aggregation, construction and the rest (one further,
  instrumented run). Target: Laplace3D 100³ in at most 40 SpMV-equivalents.

    python benchmarks/bench_aggregation.py                       # Laplace3D 100³ + ../shared/data
    python benchmarks/bench_aggregation.py --graphs laplace3d:50 --json out.json
"""

import argparse
import time

import graphblas as gb
import numpy as np
import pyamg.aggregation
import scipy.sparse as sp

import gbgraph as gg
from common import (DEFAULT_DATA, describe_machine, graph_name, matrix, median_ms, progress, specs_or_default,
                    timed_functions, write_results)
import gbgraph.algorithms.coarsen
from gbgraph.algorithms.coarsen import COARSE_METHODS

# Kokkos Kernels' own aggregate counts: graph_mis2_aggregate, graph_mis2_coarsen
KOKKOS = {"laplace3d:50": (17859, 11469), "laplace3d:100": (142014, 90041), "elasticity3d:30": (1187, 634)}


def bench(spec, repeat):
    A = sp.csr_array(matrix(spec))
    G = gg.as_graph(A)  # with weights, for coarse_graph
    x = np.ones(A.shape[0])
    mis2, basic = gg.aggregate(G, "mis2"), gg.aggregate(G, "mis2_basic")
    pyamg_count = pyamg.aggregation.standard_aggregation(A)[0].shape[1]
    t_mis2, t_basic, t_pyamg, t_spmv = median_ms(
        lambda: gg.aggregate(G, "mis2"), lambda: gg.aggregate(G, "mis2_basic"),
        lambda: pyamg.aggregation.standard_aggregation(A), lambda: A @ x, repeat=repeat)
    labels = np.asarray(mis2.labels)
    P = gg.aggregation_operator(labels)
    Pt = P.T.tocsr()
    Ab, Pb, Ptb = (_graphblas(M) for M in (A, P, Pt))
    coarse = median_ms(*(lambda m=m: gg.coarse_graph(G, labels, m) for m in COARSE_METHODS),
                       lambda: Pt @ A @ P, lambda: Ptb.mxm(Ab.mxm(Pb, gb.semiring.plus_times).new(),
                                                          gb.semiring.plus_times).new(),
                       lambda: P.T @ A @ P, repeat=repeat)
    hierarchy = median_ms(lambda: gg.coarsen(G), lambda: gg.coarsen(G, construction="sort"), lambda: A @ x,
                          repeat=repeat)
    kk = KOKKOS.get(spec)
    return {
        "graph": graph_name(spec),
        "n": G.n, "nnz": G.nnz, "spmv_ms": t_spmv,
        "mis2": {"count": mis2.n_aggregates, "ms": t_mis2, "spmv_equivalents": t_mis2 / t_spmv},
        "mis2_basic": {"count": basic.n_aggregates, "ms": t_basic, "spmv_equivalents": t_basic / t_spmv},
        "pyamg_standard": {"count": pyamg_count, "ms": t_pyamg},
        "kokkos_counts": None if kk is None else {"mis2": kk[0], "mis2_basic": kk[1],
                                                  "equal": kk == (mis2.n_aggregates, basic.n_aggregates)},
        "coarse_graph_ms": dict(zip(("spgemm", "sort", "hash", "scipy", "graphblas_mxm", "scipy_PT"), coarse)),
        "coarsen": {"default_ms": hierarchy[0], "sort_ms": hierarchy[1], "spmv_ms": hierarchy[2],
                    "default_spmv_equivalents": hierarchy[0] / hierarchy[2],
                    "sort_spmv_equivalents": hierarchy[1] / hierarchy[2],
                    "levels": len(gg.coarsen(G)), "split_ms": {c: hierarchy_split(G, c) for c in ("spgemm", "sort")}},
    }


def hierarchy_split(G, construction):
    """Milliseconds of one ``gg.coarsen(G, construction=...)``: aggregation of every level,
    construction of every coarse level (its Graph included) and the rest."""
    coarsen = gbgraph.algorithms.coarsen
    with timed_functions([(coarsen, "coarse_mapping", "aggregation"), (coarsen, "_coarse_level", "construction")]) as ms:
        start = time.perf_counter()
        gg.coarsen(G, construction=construction)
        total = 1e3 * (time.perf_counter() - start)
    return {"aggregation": ms["aggregation"], "construction": ms["construction"],
            "rest": total - ms["aggregation"] - ms["construction"], "total": total}


def _graphblas(M):
    M = sp.csr_array(M)
    return gb.Matrix.from_csr(M.indptr, M.indices, M.data.astype(np.float64), ncols=M.shape[1])


def print_header():
    print(f"{'graph':<22}{'n':>10}{'SpMV':>7}{'mis2 ms':>9}{'eq':>6}{'count':>9}{'basic ms':>10}{'eq':>6}"
          f"{'count':>9}{'pyamg ms':>10}{'count':>9}  {'spgemm':>7}{'sort':>7}{'hash':>7}{'scipy':>7}{'gb mxm':>7}"
          f"  fastest<=scipy")


def print_row(r):
    c = r["coarse_graph_ms"]
    fastest = min(c["spgemm"], c["sort"], c["hash"])
    kk = r["kokkos_counts"]
    print(f"{r['graph']:<22}{r['n']:>10,}{r['spmv_ms']:>7.2f}{r['mis2']['ms']:>9.1f}"
          f"{r['mis2']['spmv_equivalents']:>6.1f}{r['mis2']['count']:>9,}{r['mis2_basic']['ms']:>10.1f}"
          f"{r['mis2_basic']['spmv_equivalents']:>6.1f}{r['mis2_basic']['count']:>9,}"
          f"{r['pyamg_standard']['ms']:>10.1f}{r['pyamg_standard']['count']:>9,}  {c['spgemm']:>7.1f}"
          f"{c['sort']:>7.1f}{c['hash']:>7.1f}{c['scipy']:>7.1f}{c['graphblas_mxm']:>7.1f}  "
          f"{'yes' if fastest <= c['scipy'] else 'NO'}"
          + ("" if kk is None else f"  KK {kk['mis2']:,}/{kk['mis2_basic']:,}: {'equal' if kk['equal'] else 'DIFFERENT'}"),
          flush=True)


def print_hierarchy_header():
    print(f"{'graph':<22}{'P.T@A@P':>9}{'coarsen':>9}{'eq':>6}{'sort':>8}{'eq':>6}{'levels':>7}  "
          f"coarsen(construction='sort'): aggregation / construction / rest ms")


def print_hierarchy_row(r):
    h, split = r["coarsen"], r["coarsen"]["split_ms"]["sort"]
    print(f"{r['graph']:<22}{r['coarse_graph_ms']['scipy_PT']:>9.1f}{h['default_ms']:>9.1f}"
          f"{h['default_spmv_equivalents']:>6.1f}{h['sort_ms']:>8.1f}{h['sort_spmv_equivalents']:>6.1f}{h['levels']:>7}  "
          f"{split['aggregation']:.1f} / {split['construction']:.1f} / {split['rest']:.1f}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", nargs="*", help="GRAPH specs as in the CLI (default: Laplace3D 100³ "
                                                    "and every graph in --data)")
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="folder of .mtx.gz graphs")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per measurement (median)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows and the machine's description")
    args = parser.parse_args(argv)
    specs = specs_or_default(args.graphs, args.data, ["laplace3d:100"])
    print(f"Aggregation and coarse graphs, CPU; ms, median of {args.repeat}; eq = SpMV-equivalents; "
          "coarse graphs on the mis2 aggregates")
    print_header()
    rows = []
    for spec in progress(specs, graph_name):
        rows.append(bench(spec, args.repeat))
        print_row(rows[-1])
    print(f"\nscipy's P.T @ A @ P (Pᵀ not prepared) and whole hierarchies, gg.coarsen with its default construction "
          f"and with 'sort'; ms, median of {args.repeat}; eq = SpMV-equivalents (target: laplace3d:100 <= 40)")
    print_hierarchy_header()
    for r in rows:
        print_hierarchy_row(r)
    if args.json:
        write_results(args.json, describe_machine(repeat=args.repeat), rows)


if __name__ == "__main__":
    main()

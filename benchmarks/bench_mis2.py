"""MIS-2 on the CPU: gbgraph beside scipy's SpMV (the yardstick) and pyamg, in one run.

For each graph it prints gbgraph's time on a prepared Graph (median of --repeat warm calls),
the user's call ``gg.mis2(A)`` on the scipy matrix and ``gg.as_graph(A)`` alone (the
canonicalisation it includes), scipy's CSR SpMV time on the same matrix and the ratios
(SpMV-equivalents), pyamg's
``maximal_independent_set(A, k=2)`` (Bell et al.'s MIS-k, C++), set sizes and rounds, and
the peak memory of one cold ``gg.mis2(A)`` call from the scipy matrix (canonicalisation,
backend setup and the algorithm together) beside the CSR's own size. Rows with a Kokkos
Kernels figure (Kelley & Rajamanickam 2022, Table III) check it.

    python benchmarks/bench_mis2.py     # Laplace3D 50³, 100³, Elasticity3D 30³, 60³ + ../shared/data
    python benchmarks/bench_mis2.py --graphs laplace3d:100 elasticity3d:60 --json out.json
"""

import argparse
import gc
import pathlib
import tracemalloc

import numpy as np
import pyamg.graph

import gbgraph as gg
from common import (common_arguments, describe_machine, graph_name, graph_specs, matrix, median_ms, progress,
                    write_results)


#: The generated graphs measured by default, before those of --data.
GENERATED = ("laplace3d:50", "laplace3d:100", "elasticity3d:30", "elasticity3d:60")

# (|MIS-2|, rounds) from Kokkos Kernels' graph_d2_mis, MIS2_FAST, 32-bit ordinals.
KOKKOS_TABLE_III = {
    "laplace3d:50": (11469, 9), "laplace3d:100,50,50": (22909, 9), "laplace3d:100,100,50": (45333, 9),
    "laplace3d:100": (90041, 10), "elasticity3d:30": (634, 8), "elasticity3d:60": (4833, 10),
}












def peak_memory(A):
    """Peak bytes allocated by one cold gg.mis2(A), beyond what existed before."""
    gc.collect()
    tracemalloc.start()
    base = tracemalloc.get_traced_memory()[0]
    gg.mis2(A)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak - base


def bench(spec, repeat):
    A = matrix(spec)
    csr_bytes = A.data.nbytes + A.indices.nbytes + A.indptr.nbytes
    peak = peak_memory(A)
    G = gg.as_graph(A, weights=False)
    r = gg.mis2(G)  # warm-up: builds and caches the backend matrix
    x = np.ones(A.shape[0])

    def run_pyamg():
        np.random.seed(0)
        return pyamg.graph.maximal_independent_set(A, k=2)

    pyamg_size = int(np.count_nonzero(run_pyamg() == 1))
    gg.mis2(A)
    t_gbgraph, t_call, t_as_graph, t_spmv, t_pyamg = median_ms(
        lambda: gg.mis2(G), lambda: gg.mis2(A), lambda: gg.as_graph(A, weights=False), lambda: A @ x, run_pyamg,
        repeat=repeat)
    expected = KOKKOS_TABLE_III.get(spec)
    row = {
        "graph": pathlib.Path(spec).name.removesuffix(".mtx.gz") if spec.endswith(".gz") else spec,
        "n": G.n, "nnz": G.nnz, "mis2_size": len(r.vertices), "iterations": r.iterations,
        "gbgraph_ms": t_gbgraph, "spmv_ms": t_spmv, "spmv_equivalents": t_gbgraph / t_spmv,
        "call_on_scipy_ms": t_call, "call_spmv_equivalents": t_call / t_spmv,
        "as_graph_ms": t_as_graph, "as_graph_spmv_equivalents": t_as_graph / t_spmv,
        "pyamg_ms": t_pyamg, "pyamg_size": pyamg_size,
        "peak_extra_mb": peak / 2**20, "csr_mb": csr_bytes / 2**20, "peak_over_csr": peak / csr_bytes,
        "kokkos_kernels": None if expected is None else {"size": expected[0], "iterations": expected[1],
                                                         "equal": expected == (len(r.vertices), r.iterations)},
    }
    assert gg.validate.is_mis(G, r.vertices, distance=2), spec
    return row


COLUMNS = [("graph", "{:<22}"), ("n", "{:>10,}"), ("nnz", "{:>11,}"), ("mis2_size", "{:>8,}"),
           ("iterations", "{:>5}"), ("gbgraph_ms", "{:>9.1f}"), ("spmv_ms", "{:>8.2f}"),
           ("spmv_equivalents", "{:>7.1f}"), ("call_on_scipy_ms", "{:>9.1f}"), ("call_spmv_equivalents", "{:>7.1f}"),
           ("as_graph_ms", "{:>8.1f}"), ("as_graph_spmv_equivalents", "{:>7.1f}"), ("pyamg_ms", "{:>9.1f}"), ("pyamg_size", "{:>8,}"),
           ("peak_extra_mb", "{:>8.1f}"), ("csr_mb", "{:>7.1f}"), ("peak_over_csr", "{:>6.2f}")]
HEADERS = ["graph", "n", "nnz", "|MIS-2|", "iters", "mis2(G)", "SpMV", "SpMV-eq", "mis2(A)", "eq", "as_graph", "eq", "pyamg", "|pyamg|",
           "peak MB", "CSR MB", "peak/CSR"]


def print_row(row):
    cells = [fmt.format(row[key]) for key, fmt in COLUMNS]
    kk = row["kokkos_kernels"]
    if kk is not None:
        cells.append(f"  KK {kk['size']:,}/{kk['iterations']}: {'equal' if kk['equal'] else 'DIFFERENT'}")
    print(" ".join(cells), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser, GENERATED, repeat=11)
    args = parser.parse_args(argv)
    specs = graph_specs(args, GENERATED)
    machine = describe_machine(repeat=args.repeat)
    print("MIS-2, CPU; times in ms (median of {repeat}); G = gg.as_graph(A) prepared once, A the scipy "
          "matrix; eq = ms / SpMV; peak = one cold gg.mis2(A) beyond A".format(**machine))
    print(" ".join(f"{h:<22}" if h == "graph" else f"{h:>{len(fmt.format(0))}}"
                   for h, (_, fmt) in zip(HEADERS, COLUMNS)))
    rows = []
    for spec in progress(specs, graph_name):
        rows.append(bench(spec, args.repeat))
        print_row(rows[-1])
    if args.json:
        write_results(args.json, machine, rows)


if __name__ == "__main__":
    main()

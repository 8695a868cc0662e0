"""The price of algebra: each algorithm's algebraic GPU time (``backend="cupy"``) beside its
native fused kernels' (``backend="native"``), on the same input in one run.

Per graph and algorithm: both times (median of --repeat after --warmup, CUDA events), their
ratio (the price of algebra), cuSPARSE SpMV on the same matrix (the yardstick), Kokkos
Kernels' recorded H100 figures where they exist, and each run's memory: the CuPy pool's
high-water mark beyond the input, per vertex. Every row first checks that the two results
are identical.

    python benchmarks/bench_native.py                 # Laplace3D 50³-300³, Elasticity3D 60³, ../shared/data
    python benchmarks/bench_native.py --graphs laplace3d:100 --json out.json
"""

import argparse

import cupy
import cupyx.scipy.sparse as csp
import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from bench_gpu import KOKKOS_H100, gpu_ms, high_water
from common import (common_arguments, describe_gpu, describe_machine, graph_name, graph_specs, matrix, progress,
                    write_results)

#: name -> (call on a graph with a backend, the result's arrays that must agree, the index
#: into KOKKOS_H100's tuples or None)
ALGORITHMS = {
    "mis2": (lambda G, be: gg.mis2(G, backend=be), ("vertices",), 0),
    "mis1": (lambda G, be: gg.mis1(G, backend=be), ("vertices",), None),
    "aggregate": (lambda G, be: gg.aggregate(G, backend=be), ("labels", "roots"), 1),
    "aggregate_basic": (lambda G, be: gg.aggregate(G, "mis2_basic", backend=be), ("labels", "roots"), None),
    "color": (lambda G, be: gg.color(G, backend=be), ("colors",), 2),
    "hec": (lambda G, be: gg.coarse_mapping(G, "hec", backend=be), ("labels",), None),
}
GENERATED = ["laplace3d:50", "laplace3d:100", "laplace3d:200", "laplace3d:300", "elasticity3d:60"]


def bench(spec, algorithms, repeat, warmup):
    A = csp.csr_matrix(sp.csr_matrix(matrix(spec)))
    n = A.shape[0]
    G = gg.as_graph(A, weights=False)  # canonicalised once, on the GPU; HEC on the pattern: keys decide
    x = cupy.ones(n)
    row = {"graph": graph_name(spec), "n": n, "nnz": G.nnz, "spmv_ms": gpu_ms(lambda: A @ x, repeat, warmup)}
    kk = KOKKOS_H100.get(row["graph"])
    for name in algorithms:
        run, fields, kk_index = ALGORITHMS[name]
        algebraic, native = run(G, "cupy"), run(G, "native")
        for field in fields:
            if not bool(cupy.array_equal(getattr(algebraic, field), getattr(native, field))):
                raise AssertionError(f"{name} on {row['graph']}: native {field} differ from the algebraic ones")
        row[name] = {"algebraic_ms": gpu_ms(lambda: run(G, "cupy"), repeat, warmup),
                     "native_ms": gpu_ms(lambda: run(G, "native"), repeat, warmup),
                     "algebraic_bytes_per_vertex": high_water(lambda: run(G, "cupy")) / n,
                     "native_bytes_per_vertex": high_water(lambda: run(G, "native")) / n,
                     "kokkos_ms": None if kk is None or kk_index is None else kk[kk_index]}
    return row


def print_row(r, algorithms):
    for i, name in enumerate(algorithms):
        t = r[name]
        kk = "" if t["kokkos_ms"] is None else f"{t['kokkos_ms']:>8.2f}{t['native_ms'] / t['kokkos_ms']:>7.2f}"
        head = (f"{r['graph']:<22}{r['n']:>11,}{r['spmv_ms']:>8.3f}" if i == 0 else " " * 41)
        print(f"{head}  {name:<16}{t['algebraic_ms']:>9.3f}{t['native_ms']:>9.3f}"
              f"{t['algebraic_ms'] / t['native_ms']:>7.1f}{t['native_ms'] / r['spmv_ms']:>7.1f}"
              f"{t['algebraic_bytes_per_vertex']:>8.0f}{t['native_bytes_per_vertex']:>8.0f}{kk}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser, GENERATED, repeat=21, warmup=3)
    parser.add_argument("--algorithms", nargs="*", choices=list(ALGORITHMS), default=list(ALGORITHMS),
                        help="what to measure (default: all)")
    args = parser.parse_args(argv)
    specs = graph_specs(args, GENERATED)
    device = describe_gpu()
    print(f"GPU: {device['name']}; ms, median of {args.repeat} after {args.warmup} warm-up runs (CUDA events); "
          "price = algebraic / native; SpMVs = native / cuSPARSE SpMV; B/v = CuPy pool high-water bytes per vertex "
          "beyond the input; KK = Kokkos Kernels on an H100 (recorded), x = native / KK")
    print(f"{'graph':<22}{'n':>11}{'SpMV':>8}  {'algorithm':<16}{'algebra':>9}{'native':>9}{'price':>7}{'SpMVs':>7}"
          f"{'B/v alg':>8}{'B/v nat':>8}{'KK':>8}{'x':>7}")
    rows = []
    for spec in progress(specs, graph_name):
        rows.append(bench(spec, args.algorithms, args.repeat, args.warmup))
        print_row(rows[-1], args.algorithms)
    if args.json:
        write_results(args.json, describe_machine(repeat=args.repeat, device=device, warmup=args.warmup), rows)


if __name__ == "__main__":
    main()

"""gbgraph's GPU backend on the device: MIS-2, aggregation, coloring and coarse graphs, with
the GPU yardsticks measured in the same run.

Each time is the median of --repeat runs after --warmup, between CUDA events. Beside
gbgraph: cuSPARSE's SpMV on the same matrix (``cupyx.scipy.sparse``, the GPU yardstick) and
cupyx's SpGEMM ``P.T @ A @ P``. Memory: the CuPy pool's high-water mark during one run (the
pool is emptied first and only grows when it cannot reuse a block), less the input CSR,
per vertex.

    python benchmarks/bench_gpu.py                              # Laplace3D 100³, 200³ + ../shared/data
    python benchmarks/bench_gpu.py --graphs laplace3d:50 --json out.json
"""

import argparse
import statistics

import cupy
import cupyx.scipy.sparse as csp
import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from common import (common_arguments, describe_gpu, describe_machine, graph_name, graph_specs, matrix, progress,
                    write_results)
from gbgraph.algorithms.coarsen import COARSE_METHODS

GENERATED = ["laplace3d:100", "laplace3d:200"]  # the default graphs, before those of --data
#: Kokkos Kernels 4.x on an H100 (CUDA 13), ms: MIS-2, graph_mis2_aggregate, vertex-based
#: coloring (the issue's anchors)
KOKKOS_H100 = {"laplace3d:50": (0.73, 1.72, 0.31), "laplace3d:100": (1.63, 3.38, 0.57),
               "laplace3d:200": (4.63, 10.45, 3.6)}


def gpu_ms(fn, repeat, warmup):
    for _ in range(warmup):
        fn()
    start, end = cupy.cuda.Event(), cupy.cuda.Event()
    times = []
    for _ in range(repeat):
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(cupy.cuda.get_elapsed_time(start, end))
    return statistics.median(times)


def high_water(fn):
    """Bytes the CuPy pool holds after one run that started from an empty pool."""
    pool = cupy.get_default_memory_pool()
    cupy.cuda.Device().synchronize()
    before = pool.used_bytes()
    pool.free_all_blocks()
    fn()
    cupy.cuda.Device().synchronize()
    return pool.total_bytes() - before


def bench(spec, repeat, warmup):
    A_host = sp.csr_array(matrix(spec))
    A = csp.csr_matrix(sp.csr_matrix(A_host))
    n = A.shape[0]
    G = gg.as_graph(A)  # canonicalised once, on the GPU
    gg.mis2(G)
    x = cupy.ones(n)
    row = {"graph": graph_name(spec), "n": n, "nnz": G.nnz, "spmv_ms": gpu_ms(lambda: A @ x, repeat, warmup)}
    # what a user calls: a cupyx matrix in, canonicalisation included
    row["as_graph_ms"] = gpu_ms(lambda: gg.as_graph(A), repeat, warmup)
    row["mis2_of_cupyx_ms"] = gpu_ms(lambda: gg.mis2(A), repeat, warmup)
    r = gg.mis2(G)
    row["mis2"] = {"size": int(r.vertices.size), "iterations": r.iterations,
                   "ms": gpu_ms(lambda: gg.mis2(G), repeat, warmup),
                   "extra_bytes_per_vertex": high_water(lambda: gg.mis2(G)) / n}
    for method in ("mis2", "mis2_basic"):
        agg = gg.aggregate(G, method)
        row[f"aggregate_{method}"] = {"count": agg.n_aggregates,
                                      "ms": gpu_ms(lambda: gg.aggregate(G, method), repeat, warmup),
                                      "extra_bytes_per_vertex": high_water(lambda: gg.aggregate(G, method)) / n}
    colors = gg.color(G)
    row["color"] = {"colors": colors.n_colors, "iterations": colors.iterations,
                    "ms": gpu_ms(lambda: gg.color(G), repeat, warmup),
                    "extra_bytes_per_vertex": high_water(lambda: gg.color(G)) / n}
    row["coarsen"] = {"levels": len(gg.coarsen(G)), "ms": gpu_ms(lambda: gg.coarsen(G), max(3, repeat // 3), 1),
                      "extra_bytes_per_vertex": high_water(lambda: gg.coarsen(G)) / n}
    labels = gg.aggregate(G).labels
    P = csp.csr_matrix((cupy.ones(n), labels, cupy.arange(n + 1)), shape=(n, int(labels.max()) + 1))
    Pt = P.T.tocsr()
    Aw = csp.csr_matrix(A, dtype=np.float64)
    row["coarse_graph_ms"] = {m: gpu_ms(lambda m=m: gg.coarse_graph(G, labels, m), repeat, warmup)
                              for m in COARSE_METHODS}
    row["coarse_graph_ms"]["cupyx_spgemm"] = gpu_ms(lambda: Pt @ Aw @ P, repeat, warmup)
    return row


def print_row(r):
    kk = KOKKOS_H100.get(r["graph"])
    c = r["coarse_graph_ms"]
    fastest = min(c[m] for m in COARSE_METHODS)
    print(f"{r['graph']:<22}{r['n']:>10,}{r['spmv_ms']:>7.3f}"
          f"{r['mis2']['ms']:>8.2f}{r['mis2']['ms'] / r['spmv_ms']:>6.1f}{r['mis2']['size']:>10,}{r['mis2']['iterations']:>3}"
          f"{r['mis2']['extra_bytes_per_vertex']:>6.0f}"
          f"{r['aggregate_mis2']['ms']:>8.2f}{r['aggregate_mis2']['count']:>10,}{r['aggregate_mis2_basic']['ms']:>8.2f}"
          f"{r['color']['ms']:>8.2f}{r['color']['colors']:>4}"
          f"  {c['spgemm']:>7.2f}{c['sort']:>7.2f}{c['hash']:>7.2f}{c['cupyx_spgemm']:>7.2f}"
          f"{c['cupyx_spgemm'] / fastest:>6.2f}x"
          + ("" if kk is None else f"   KK: MIS-2 {kk[0]}, aggregate {kk[1]}, coloring {kk[2]} ms"), flush=True)
    print(f"{'':<22}as_graph(cupyx) {r['as_graph_ms']:.2f} ms = {r['as_graph_ms'] / r['spmv_ms']:.1f} SpMV; "
          f"mis2(cupyx) {r['mis2_of_cupyx_ms']:.2f} ms; coarsen {r['coarsen']['ms']:.2f} ms "
          f"({r['coarsen']['levels']} levels); B/vertex: aggregate {r['aggregate_mis2']['extra_bytes_per_vertex']:.0f}, "
          f"color {r['color']['extra_bytes_per_vertex']:.0f}, coarsen {r['coarsen']['extra_bytes_per_vertex']:.0f}",
          flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser, GENERATED, repeat=21, warmup=3)
    args = parser.parse_args(argv)
    specs = graph_specs(args, GENERATED)
    device = describe_gpu()
    print(f"GPU: {device['name']}; ms, median of {args.repeat} after {args.warmup} warm-up runs (CUDA events); "
          "eq = MIS-2 / SpMV; B/v = pool high-water bytes per vertex beyond the CSR during MIS-2; agg, basic = "
          "aggregate(mis2, mis2_basic); color = first-fit greedy, distance 1; spgemm/sort/hash = coarse_graph "
          "methods, cupyx = P.T @ A @ P, x = cupyx / fastest gbgraph")
    print(f"{'graph':<22}{'n':>10}{'SpMV':>7}{'MIS-2':>8}{'eq':>6}{'|MIS-2|':>10}{'it':>3}{'B/v':>6}"
          f"{'agg':>8}{'count':>10}{'basic':>8}{'color':>8}{'#c':>4}  {'spgemm':>7}{'sort':>7}{'hash':>7}{'cupyx':>7}{'x':>7}")
    rows = []
    for spec in progress(specs, graph_name):
        rows.append(bench(spec, args.repeat, args.warmup))
        print_row(rows[-1])
    if args.json:
        write_results(args.json, describe_machine(repeat=args.repeat, device=device, warmup=args.warmup), rows)


if __name__ == "__main__":
    main()

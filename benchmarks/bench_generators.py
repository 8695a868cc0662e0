"""Laplace3D and Elasticity3D generators beside scipy's SpMV on the matrix they build.

For each size, in one run with interleaved timings (median of --repeat after a warm-up):
``gg.generators.laplace3d`` / ``elasticity3d``, the same matrix assembled by
``scipy.sparse.kron`` (the construction the tests compare against) and scipy's CSR SpMV
(the yardstick: "SpMV-equivalents"). Target: Laplace3D 100³ in at most 3 SpMV-equivalents.

    python benchmarks/bench_generators.py                      # laplace3d 100, elasticity3d 40
    python benchmarks/bench_generators.py --laplace 50 100 --elasticity 30 --json out.json
"""

import argparse

import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from common import describe_machine, median_ms, progress, write_results

B = np.array([[1.0, 0.5, 0.5], [0.5, 1.0, 0.5], [0.5, 0.5, 1.0]])


def laplace_by_kron(n):
    T, I = sp.diags([-np.ones(n - 1), -np.ones(n - 1)], [-1, 1], shape=(n, n)), sp.identity(n)
    return sp.csr_array(sp.kron(I, sp.kron(I, T)) + sp.kron(I, sp.kron(T, I)) + sp.kron(T, sp.kron(I, I))
                        + 6 * sp.identity(n ** 3))


def elasticity_by_kron(n):
    T = sp.diags([np.ones(n - 1), np.ones(n), np.ones(n - 1)], [-1, 0, 1], shape=(n, n))
    K = 27 * sp.identity(n ** 3) - sp.kron(T, sp.kron(T, T))
    return sp.csr_array(sp.kron(K, B, format="bsr"))


def bench(name, size, repeat):
    generate = getattr(gg.generators, name)
    by_kron = laplace_by_kron if name == "laplace3d" else elasticity_by_kron
    A = generate(size)
    x = np.ones(A.shape[0])
    ours, kron, spmv = median_ms(lambda: generate(size), lambda: by_kron(size), lambda: A @ x, repeat=repeat)
    return {"matrix": f"{name}:{size}", "n": A.shape[0], "nnz": A.nnz, "gbgraph_ms": ours, "scipy_kron_ms": kron,
            "spmv_ms": spmv, "spmv_equivalents": ours / spmv}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--laplace", nargs="*", type=int, default=[100], help="Laplace3D sizes (default 100)")
    parser.add_argument("--elasticity", nargs="*", type=int, default=[40], help="Elasticity3D sizes (default 40)")
    parser.add_argument("--repeat", type=int, default=7, help="timed runs per measurement (median)")
    parser.add_argument("--threads", type=int, help="threads of gbgraph's kernels (default: all cores)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows and the machine's description")
    args = parser.parse_args(argv)
    if args.threads is not None:
        gg.backends.set_threads(args.threads)
    gg.backend("suitesparse")  # as in any gbgraph session: freed blocks kept for reuse
    print(f"Generators, CPU; ms, median of {args.repeat}; eq = SpMV-equivalents (target: laplace3d:100 <= 3)")
    print(f"{'matrix':<18}{'n':>10}{'nnz':>12}{'gbgraph':>9}{'kron':>9}{'SpMV':>8}{'eq':>6}")
    runs = [(name, size) for name, sizes in (("laplace3d", args.laplace), ("elasticity3d", args.elasticity))
            for size in sizes]
    rows = [bench(name, size, args.repeat) for name, size in progress(runs, lambda run: f"{run[0]}:{run[1]}")]
    for r in rows:
        print(f"{r['matrix']:<18}{r['n']:>10,}{r['nnz']:>12,}{r['gbgraph_ms']:>9.1f}{r['scipy_kron_ms']:>9.1f}"
              f"{r['spmv_ms']:>8.2f}{r['spmv_equivalents']:>6.1f}")
    if args.json:
        write_results(args.json, describe_machine(repeat=args.repeat), rows)


if __name__ == "__main__":
    main()

"""Smoothed-aggregation AMG with gbgraph's aggregates against pyamg's, after Table V of
Kelley & Rajamanickam (IPDPS 2022).

Laplace3D, CG to a relative residual of 1e-12, smoothed aggregation with 2 Jacobi sweeps
(omega = 2/3) before and after each coarse correction, everything else at pyamg's defaults;
for gbgraph ``mis2`` (Kokkos Kernels' MIS-2 aggregation, MueLu's "MIS2 Agg"), gbgraph
``mis2_basic`` (Bell et al.'s, "MIS2 Basic") and pyamg ``standard``: iterations, setup and
solve times (median of --repeat), levels and operator complexity. Target: mis2 needs no more
iterations than pyamg standard and mis2_basic.

    python benchmarks/bench_amg.py                  # Laplace3D 60³ and 100³
    python benchmarks/bench_amg.py --sizes 40 --json out.json
"""

import argparse
import json
import pathlib

import numpy as np
import pyamg

import gbgraph as gg
from common import describe_machine, median_ms

JACOBI = ("jacobi", {"omega": 2.0 / 3.0, "iterations": 2})
SOLVERS = {
    "gbgraph mis2": lambda A: gg.amg.smoothed_aggregation_solver(A, "mis2", presmoother=JACOBI, postsmoother=JACOBI),
    "gbgraph mis2_basic": lambda A: gg.amg.smoothed_aggregation_solver(A, "mis2_basic", presmoother=JACOBI,
                                                                       postsmoother=JACOBI),
    "pyamg standard": lambda A: pyamg.smoothed_aggregation_solver(A, presmoother=JACOBI, postsmoother=JACOBI),
}


def bench(size, repeat):
    A = gg.generators.laplace3d(size)
    b = np.random.default_rng(0).random(A.shape[0])
    rows = []
    for name, build in SOLVERS.items():
        np.random.seed(0)  # pyamg estimates spectral radii from random vectors
        ml = build(A)
        residuals = []
        x = ml.solve(b, tol=1e-12, accel="cg", residuals=residuals)
        assert np.linalg.norm(b - A @ x) <= 1e-12 * np.linalg.norm(b) * 10, name
        setup, solve = median_ms(lambda: build(A), lambda: ml.solve(b, tol=1e-12, accel="cg"), repeat=repeat)
        rows.append({"problem": f"laplace3d:{size}", "method": name, "iterations": len(residuals) - 1,
                     "setup_ms": setup, "solve_ms": solve, "levels": len(ml.levels),
                     "operator_complexity": ml.operator_complexity(), "grid_complexity": ml.grid_complexity()})
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="*", type=int, default=[60, 100], help="grid sizes (default 60 100)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measurement (median)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows and the machine's description")
    args = parser.parse_args(argv)
    print(f"SA-AMG + CG to 1e-12, 2+2 Jacobi sweeps (omega 2/3); times in ms, median of {args.repeat}")
    print(f"{'problem':<15}{'method':<21}{'iters':>6}{'setup':>10}{'solve':>10}{'levels':>7}{'op. cx':>8}{'grid cx':>8}")
    rows = []
    for size in args.sizes:
        rows += bench(size, args.repeat)
        for r in rows[-len(SOLVERS):]:
            print(f"{r['problem']:<15}{r['method']:<21}{r['iterations']:>6}{r['setup_ms']:>10.1f}{r['solve_ms']:>10.1f}"
                  f"{r['levels']:>7}{r['operator_complexity']:>8.3f}{r['grid_complexity']:>8.3f}", flush=True)
        it = {r["method"]: r["iterations"] for r in rows[-len(SOLVERS):]}
        met = it["gbgraph mis2"] <= min(it["pyamg standard"], it["gbgraph mis2_basic"])
        print(f"  target (mis2 <= pyamg standard and <= mis2_basic): {'met' if met else 'NOT met'}")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps({"machine": describe_machine(repeat=args.repeat), "rows": rows},
                                                      indent=1))


if __name__ == "__main__":
    main()

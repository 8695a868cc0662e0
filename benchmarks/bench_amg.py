"""Smoothed-aggregation AMG with gbgraph's aggregates against pyamg's, after Table V of
Kelley & Rajamanickam (IPDPS 2022).

Laplace3D, CG to a relative residual of 1e-12, in two configurations: every solver at its
defaults (``defaults``: symmetric block Gauss-Seidel smoothing, pyamg's strength ``symmetric``
with theta 0, gbgraph's A's own pattern, which is the same graph on these matrices), and the
paper's smoothed aggregation with 2 Jacobi sweeps (omega = 2/3) before and after each coarse
correction, everything else at the defaults (``jacobi``). For gbgraph ``mis2`` (Kokkos
Kernels' MIS-2 aggregation, MueLu's "MIS2 Agg"), gbgraph ``mis2_basic`` (Bell et al.'s,
"MIS2 Basic") and pyamg ``standard``: iterations, setup and solve times (median of --repeat,
interleaved, with scipy's SpMV on A as the yardstick), levels and operator complexity, and
where each setup spends its time. Targets: with the defaults, mis2 sets up no slower than
pyamg and needs no more iterations; with Jacobi, mis2 needs no more iterations than pyamg
standard and mis2_basic (the paper's Table V).

The setup phases come from one further, instrumented setup of each solver (the functions
that carry each phase wrapped with timers; pyamg's Galerkin product ``R @ A @ P`` is inline
in its code, so it is timed again on the levels it built):

* strength: the strength-of-connection matrix C;
* aggregation: the aggregates of C (gbgraph: graph canonicalisation, ``gg.aggregate`` and
  ``AggOp``; pyamg: ``standard_aggregation``);
* candidates: relaxing B on A x = 0 (``improve_candidates``);
* tentative: ``fit_candidates``;
* prolongator: Jacobi prolongation smoothing, with its spectral-radius estimate;
* Galerkin: ``R A P``;
* smoothers: the relaxation setup (``change_smoothers``; Jacobi estimates rho(D⁻¹A) unless
  the prolongation smoothing left it on the level's matrix);
* rest: the setup's time outside these.

    python benchmarks/bench_amg.py                  # Laplace3D 60³ and 100³
    python benchmarks/bench_amg.py --sizes 40 --json out.json
"""

import argparse
import contextlib
import time

import numpy as np
import pyamg
import pyamg.aggregation.aggregation
import pyamg.relaxation.smoothing

import gbgraph as gg
import gbgraph.amg
from common import describe_machine, median_ms, phase_timer, progress, timed_functions, write_results

JACOBI = ("jacobi", {"omega": 2.0 / 3.0, "iterations": 2})
CONFIGURATIONS = {"defaults": {}, "jacobi": {"presmoother": JACOBI, "postsmoother": JACOBI}}
SOLVERS = {
    "gbgraph mis2": lambda A, options: gg.amg.smoothed_aggregation_solver(A, "mis2", **options),
    "gbgraph mis2_basic": lambda A, options: gg.amg.smoothed_aggregation_solver(A, "mis2_basic", **options),
    "pyamg standard": lambda A, options: pyamg.smoothed_aggregation_solver(A, **options),
}
PHASES = ("strength", "aggregation", "candidates", "tentative", "prolongator", "Galerkin", "smoothers", "rest")

_PYAMG_SA = pyamg.aggregation.aggregation
#: (module, function, phase): the functions that carry each phase, where each solver calls them
_TIMED = [
    (_PYAMG_SA, "symmetric_strength_of_connection", "strength"), (_PYAMG_SA, "standard_aggregation", "aggregation"),
    (_PYAMG_SA, "fit_candidates", "tentative"), (_PYAMG_SA, "jacobi_prolongation_smoother", "prolongator"),
    (_PYAMG_SA, "change_smoothers", "smoothers"),
    (gbgraph.amg, "_strength", "strength"), (gbgraph.amg, "_aggregation_operator", "aggregation"),
    (gbgraph.amg, "_improved_candidates", "candidates"), (pyamg.aggregation, "fit_candidates", "tentative"),
    (gbgraph.amg, "_smoothed_prolongator", "prolongator"), (gbgraph.amg, "_galerkin", "Galerkin"),
    (pyamg.relaxation.smoothing, "change_smoothers", "smoothers"),
]


@contextlib.contextmanager
def timed_phases():
    """Wrap the functions of _TIMED (and pyamg's candidate relaxation) with timers; yields
    the dict of milliseconds per phase they fill."""
    relax = _PYAMG_SA.relaxation_as_linear_operator
    with timed_functions(_TIMED) as ms:
        def timed_relaxation(*args, **kwargs):  # pyamg applies the operator inline: time its product
            operator = relax(*args, **kwargs)
            timed = phase_timer(ms, "candidates", operator.__matmul__)
            return type("TimedOperator", (), {"__matmul__": lambda self, B: timed(B)})()

        _PYAMG_SA.relaxation_as_linear_operator = timed_relaxation
        try:
            yield ms
        finally:
            _PYAMG_SA.relaxation_as_linear_operator = relax


def phase_split(build, A):
    """Milliseconds per phase of one setup by ``build``."""
    np.random.seed(0)
    with timed_phases() as ms:
        start = time.perf_counter()
        ml = build(A)
        total = 1e3 * (time.perf_counter() - start)
    if "Galerkin" not in ms:  # pyamg: its products again, on the same operands
        ms["Galerkin"] = sum(median_ms(lambda lv=lv: lv.R @ lv.A @ lv.P, repeat=3)[0] for lv in ml.levels[:-1])
    ms["rest"] = total - sum(ms[p] for p in PHASES if p != "rest")
    return {p: ms.get(p, 0.0) for p in PHASES}, total


def bench(size, configuration, repeat):
    A = gg.generators.laplace3d(size)
    b = np.random.default_rng(0).random(A.shape[0])
    options = CONFIGURATIONS[configuration]
    builds = {name: (lambda M, solver=solver: solver(M, options)) for name, solver in SOLVERS.items()}
    rows, solvers = [], {}
    for name, build in builds.items():
        np.random.seed(0)  # pyamg estimates spectral radii from random vectors
        ml = build(A)
        residuals = []
        x = ml.solve(b, tol=1e-12, accel="cg", residuals=residuals)
        assert np.linalg.norm(b - A @ x) <= 1e-12 * np.linalg.norm(b) * 10, name
        solvers[name] = ml
        rows.append({"problem": f"laplace3d:{size}", "configuration": configuration, "method": name,
                     "iterations": len(residuals) - 1, "levels": len(ml.levels),
                     "sizes": [lv.A.shape[0] for lv in ml.levels], "operator_complexity": ml.operator_complexity(),
                     "grid_complexity": ml.grid_complexity()})
    x = np.ones(A.shape[0])
    setups = [lambda build=build: build(A) for build in builds.values()]
    solves = [lambda ml=ml: ml.solve(b, tol=1e-12, accel="cg") for ml in solvers.values()]
    times = median_ms(*setups, *solves, lambda: A @ x, repeat=repeat)
    spmv = times[-1]
    for r, setup, solve in zip(rows, times[:len(builds)], times[len(builds):-1]):
        phases, total = phase_split(builds[r["method"]], A)
        r.update(setup_ms=setup, solve_ms=solve, spmv_ms=spmv, setup_spmv_equivalents=setup / spmv,
                 phases_ms=phases, instrumented_setup_ms=total)
    return rows


def print_rows(rows):
    for r in rows:
        print(f"{r['problem']:<15}{r['configuration']:<10}{r['method']:<21}{r['iterations']:>6}{r['setup_ms']:>10.1f}"
              f"{r['solve_ms']:>10.1f}{r['setup_spmv_equivalents']:>8.0f}{r['levels']:>7}{r['operator_complexity']:>8.3f}"
              f"{r['grid_complexity']:>8.3f}", flush=True)
    it = {r["method"]: r["iterations"] for r in rows}
    setup = {r["method"]: r["setup_ms"] for r in rows}
    if rows[0]["configuration"] == "defaults":
        met = it["gbgraph mis2"] <= it["pyamg standard"] and setup["gbgraph mis2"] <= setup["pyamg standard"]
        print(f"  target (mis2 with its defaults: iterations and setup <= pyamg's with its defaults): "
              f"{'met' if met else 'NOT met'} ({it['gbgraph mis2']} against {it['pyamg standard']} iterations, "
              f"{setup['gbgraph mis2']:.0f} ms against {setup['pyamg standard']:.0f}; SpMV {rows[0]['spmv_ms']:.2f} ms)")
    else:
        met = it["gbgraph mis2"] <= min(it["pyamg standard"], it["gbgraph mis2_basic"])
        print(f"  target (Table V: mis2 iterations <= pyamg standard and <= mis2_basic): {'met' if met else 'NOT met'}")
    print(f"  setup phases, ms (one instrumented setup each):\n  {'phase':<13}"
          + "".join(f"{r['method']:>21}" for r in rows))
    for p in PHASES + ("total",):
        print(f"  {p:<13}" + "".join(f"{r['phases_ms'][p] if p != 'total' else r['instrumented_setup_ms']:>21.1f}"
                                     for r in rows))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="*", type=int, default=[60, 100], help="grid sizes (default 60 100)")
    parser.add_argument("--configurations", nargs="*", choices=list(CONFIGURATIONS), default=list(CONFIGURATIONS),
                        help="solver options: every solver's defaults, and/or 2+2 Jacobi sweeps (default both)")
    parser.add_argument("--repeat", type=int, default=5, help="timed runs per measurement (median)")
    parser.add_argument("--threads", type=int, help="CPU threads of GraphBLAS and gbgraph's kernels (default: all)")
    parser.add_argument("--json", metavar="FILE", help="also write the rows and the machine's description")
    args = parser.parse_args(argv)
    if args.threads is not None:
        gg.backends.set_threads(args.threads)
    print(f"SA-AMG + CG to 1e-12; defaults, and 2+2 Jacobi sweeps (omega 2/3); times in ms, median of "
          f"{args.repeat}, interleaved; eq = setup in SpMV-equivalents")
    print(f"{'problem':<15}{'config':<10}{'method':<21}{'iters':>6}{'setup':>10}{'solve':>10}{'eq':>8}{'levels':>7}"
          f"{'op. cx':>8}{'grid cx':>8}")
    rows = []
    runs = [(size, configuration) for size in args.sizes for configuration in args.configurations]
    for size, configuration in progress(runs, lambda run: f"Laplace3D {run[0]}³, {run[1]}"):
        rows += bench(size, configuration, args.repeat)
        print_rows(rows[-len(SOLVERS):])
    if args.json:
        write_results(args.json, describe_machine(repeat=args.repeat), rows)


if __name__ == "__main__":
    main()

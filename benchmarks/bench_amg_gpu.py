"""Smoothed-aggregation AMG and multicolor Gauss-Seidel on the GPU, after Tables V and VI of
Kelley & Rajamanickam (IPDPS 2022; MueLu and Kokkos Kernels on a V100).

Table V's setting: CG to a relative residual of 1e-12, smoothed aggregation with MIS-2
aggregates, two Jacobi sweeps with damping 2/3 before and after each coarse correction
(MueLu's Jacobi, Ifpack2's x += omega D^-1 (b - A x); pyamg's ``withrho=False``), no
candidate improvement and a direct solve once a level has 2,000 rows or fewer (MueLu's
defaults: "coarse: max size" 2000), and MueLu's drivers' right-hand side: b = A x for x
uniform on [-1, 1], solved from x = 0 (muelu/test/scaling/Driver.cpp); the iterations for
b = ones beside them, and for 100³ also the hierarchy with pyamg's reading of the damping,
omega / rho(D^-1 A). On Laplace3D 100³ and 200³ and
Elasticity3D 60³ (B: the six rigid-body modes) it prints gbgraph's hierarchy on the GPU
(``gg.amg.smoothed_aggregation_solver`` of a cupyx matrix): iterations, the fine level's
aggregation, setup and solve times (median of --repeat, the device synchronised), operator
complexity and levels; beside it, for 100³, the same hierarchy on the CPU (gbgraph's CPU
path, pyamg's levels) and pyamg's own ``smoothed_aggregation_solver`` with the same
smoothers, in the same run, with cuSPARSE's SpMV on A as the yardstick and the paper's
MueLu figures.

Table VI's analogue: GMRES(50) to 1e-8 preconditioned by point and cluster multicolor
symmetric Gauss-Seidel on the GPU, on Laplace3D 100³ and Elasticity3D 60³: setup time,
iterations (one application each), the time of one application (median of 20) and the
apply time of the solve (iterations × that time). The GMRES stops at the iteration that
reaches the tolerance, as Belos' does in the paper; cupyx's ``gmres``, which tests only at
restarts, and its applications are printed beside it.

    python benchmarks/bench_amg_gpu.py --json benchmarks/results/amg-gpu.json
"""

import argparse
import json
import pathlib
import statistics
import time

import cupy
import cupyx.scipy.sparse as csp
import cupyx.scipy.sparse.linalg as csla
import numpy as np
import pyamg
import scipy.linalg
import scipy.sparse as sp

import gbgraph as gg
from common import describe_machine

# MueLu's Jacobi is Ifpack2's, x += omega D^-1 (b - A x): pyamg's with withrho=False (pyamg's
# default divides omega by rho(D^-1 A), about 2 here, which halves the damping)
JACOBI = ("jacobi", {"omega": 2.0 / 3.0, "withrho": False, "iterations": 2})
# MueLu's defaults otherwise (MueLu_MasterList.cpp): "coarse: max size" 2000, a direct solve below
TABLE_V = dict(presmoother=JACOBI, postsmoother=JACOBI, improve_candidates=None, max_coarse=2000)
OVER_RHO = ("jacobi", {"omega": 2.0 / 3.0, "iterations": 2})  # pyamg's reading: omega / rho
TABLE_V_OVER_RHO = dict(TABLE_V, presmoother=OVER_RHO, postsmoother=OVER_RHO)
# Kelley & Rajamanickam 2022, Table V (V100, Laplace3D 100³, MueLu, MIS2 aggregation):
# iterations, setup s, of it aggregation s, solve s.
PAPER_TABLE_V = {"iterations": 22, "setup_s": 0.538, "aggregation_s": 0.035, "solve_s": 0.370}
# Table VI (V100, Laplace3D 100³, GMRES to 1e-8): setup s, apply s, iterations.
PAPER_TABLE_VI = {"point": (0.055, 0.664, 158.4), "cluster": (0.041, 0.567, 144.6)}
H100_OVER_V100 = 3.35 / 0.9  # HBM3 3.35 TB/s over HBM2 0.9 TB/s


def synced_ms(fn, repeat):
    """(median ms, last result) of fn() with the device synchronised around each run."""
    times, result = [], None
    for _ in range(repeat):
        cupy.cuda.Device().synchronize()
        t = time.perf_counter()
        result = fn()
        cupy.cuda.Device().synchronize()
        times.append(1e3 * (time.perf_counter() - t))
    return statistics.median(times), result


def host_ms(fn, repeat):
    times, result = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(1e3 * (time.perf_counter() - t))
    return statistics.median(times), result


def problems(sizes, elasticity):
    for n in sizes:
        yield f"laplace3d:{n}", sp.csr_array(gg.generators.laplace3d(n)), None
    for n in elasticity:
        yield f"elasticity3d:{n}", sp.csr_array(gg.generators.elasticity3d(n)), gg.generators.rigid_body_modes(n)


def muelu_rhs(A):
    """MueLu's drivers' right-hand side: A x for x uniform on [-1, 1] (normalised there, which
    a relative tolerance does not see)."""
    return A @ np.random.default_rng(0).uniform(-1.0, 1.0, A.shape[0])


def table_v(name, A, B, repeat, cpu_peers, options=TABLE_V, label="gbgraph GPU mis2"):
    dA = csp.csr_matrix(A)
    dB = None if B is None else cupy.asarray(B)
    hb = muelu_rhs(A)
    b = cupy.asarray(hb)
    for _ in range(3):  # compile the kernels, warm the pools and the clocks
        gg.amg.smoothed_aggregation_solver(dA, B=dB, **options)
    setup, ml = synced_ms(lambda: gg.amg.smoothed_aggregation_solver(dA, B=dB, **options), repeat)
    graph = gg.as_graph(dA, weights=False)
    aggregation, _ = synced_ms(lambda: gg.aggregate(graph, "mis2", backend="native"), repeat)  # as the setup runs it
    ml.solve(b, tol=1e-12, accel="cg")  # capture the cycle
    residuals, ones = [], []
    solve, _ = synced_ms(lambda: ml.solve(b, tol=1e-12, accel="cg", residuals=residuals), repeat)
    ml.solve(cupy.ones(A.shape[0]), tol=1e-12, accel="cg", residuals=ones)
    spmv, _ = synced_ms(lambda: dA @ b, 20)
    rows = [{"graph": name, "solver": label, "iterations": len(residuals) - 1, "iterations_ones": len(ones) - 1,
             "setup_ms": setup, "aggregation_ms": aggregation, "solve_ms": solve,
             "operator_complexity": ml.operator_complexity(), "levels": len(ml.levels), "spmv_ms": spmv,
             "final_relative_residual": residuals[-1] / float(cupy.linalg.norm(b))}]
    if cpu_peers:
        for solver, build in (("gbgraph CPU mis2", lambda: gg.amg.smoothed_aggregation_solver(A, B=B, **options)),
                              ("pyamg standard", lambda: pyamg.smoothed_aggregation_solver(A, B=B, **options))):
            if solver.startswith("gbgraph"):
                build()  # numba compiles the CPU backend's kernels at their first call
            setup_c, cpu = host_ms(build, 1)
            res, res_ones = [], []
            solve_c, _ = host_ms(lambda: cpu.solve(hb, tol=1e-12, accel="cg", residuals=res), 1)
            cpu.solve(np.ones(A.shape[0]), tol=1e-12, accel="cg", residuals=res_ones)
            spmv_c, _ = host_ms(lambda: A @ hb, 20)
            rows.append({"graph": name, "solver": solver, "iterations": len(res) - 1,
                         "iterations_ones": len(res_ones) - 1, "setup_ms": setup_c, "aggregation_ms": None,
                         "solve_ms": solve_c, "operator_complexity": cpu.operator_complexity(),
                         "levels": len(cpu.levels), "spmv_ms": spmv_c,
                         "final_relative_residual": res[-1] / np.linalg.norm(hb)})
    return rows


def setup_profile(dA, dB):
    """Where one GPU setup spends its time: each phase's function wrapped with a timer that
    synchronises the device (ms, summed over the levels); 'rest' is the setup outside them."""
    import gbgraph.algorithms.aggregation as aggregation_module
    import gbgraph.amg.multilevel as multilevel
    import gbgraph.amg.setup as setup

    targets = [(aggregation_module, "aggregate", "aggregation"), (setup, "_graph", "graph of A"),
               (setup, "fit_candidates", "tentative"), (setup, "spectral_radius", "rho(D^-1 A)"),
               (setup, "smoothed_prolongator", "prolongator"), (setup, "galerkin", "Galerkin"),
               (multilevel, "smoother", "smoothers"), (multilevel.MultilevelSolver, "__init__", "coarse pinv")]
    ms = dict.fromkeys([phase for *_, phase in targets], 0.0)
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in targets]

    def timed(fn, phase):
        def run(*args, **kwargs):
            cupy.cuda.Device().synchronize()
            t = time.perf_counter()
            out = fn(*args, **kwargs)
            cupy.cuda.Device().synchronize()
            ms[phase] += 1e3 * (time.perf_counter() - t)
            return out
        return run

    try:
        for (owner, name, phase), (_, _, fn) in zip(targets, saved):
            setattr(owner, name, timed(fn, phase))
        total, ml = synced_ms(lambda: gg.amg.smoothed_aggregation_solver(dA, B=dB, **TABLE_V), 1)
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)
    ms["prolongator"] -= ms["rho(D^-1 A)"]  # nested in it
    ms["rest"] = total - sum(ms.values())
    return total, ms, ml


def cycle_profile(ml, b):
    """ms of one V-cycle (the captured CUDA graph), of the same cycle by cupyx's products
    (MultilevelSolver.cycle, the reference form), and of cupyx's SpMV on each level."""
    apply, _ = synced_ms(lambda: ml._apply(b), 10)
    reference, _ = synced_ms(lambda: ml.cycle(cupy.zeros_like(b), b), 10)
    spmv = [synced_ms(lambda A=level.A: A @ cupy.ones(A.shape[0]), 10)[0] for level in ml.levels]
    return apply, reference, spmv


def cupyx_gmres(A, b, M):
    """cupyx's GMRES(50) to 1e-8 from x = 0; returns (x, info)."""
    try:
        return csla.gmres(A, b, rtol=1e-8, atol=0.0, restart=50, maxiter=800, M=M)
    except TypeError:  # CuPy before the rename of tol
        return csla.gmres(A, b, tol=1e-8, atol=0.0, restart=50, maxiter=800, M=M)


def gmres(A, b, M, restart=50, rtol=1e-8, maxiter=800):
    """GMRES(restart) from x = 0, right-preconditioned by M, stopping at the first iteration
    whose residual estimate |g_(j+1)| (Givens rotations of the Hessenberg matrix) is at most
    rtol ‖b‖: Belos' test, which the paper's solves use. cupyx's ``gmres`` tests only at the
    end of each restart cycle, so it reports whole cycles (154 applications for both SGS
    variants here). Classical Gram-Schmidt, twice. Returns (x, iterations, applications)."""
    n, bound = b.size, rtol * float(cupy.linalg.norm(b))
    x, r = cupy.zeros(n), b.copy()
    iterations = applications = 0
    while iterations < maxiter:
        beta = float(cupy.linalg.norm(r))
        if beta <= bound:
            break
        V, Z = cupy.empty((restart + 1, n)), cupy.empty((restart, n))
        H, g = np.zeros((restart + 1, restart)), np.zeros(restart + 1)
        rotations = []
        V[0], g[0] = r / beta, beta
        k = 0
        while k < restart and iterations < maxiter:
            Z[k] = M @ V[k]
            w = A @ Z[k]
            applications, iterations = applications + 1, iterations + 1
            h = cupy.zeros(k + 1)
            for _ in range(2):
                c = V[:k + 1] @ w
                w -= V[:k + 1].T @ c
                h += c
            column = np.append(h.get(), float(cupy.linalg.norm(w)))
            V[k + 1] = w / column[-1] if column[-1] else w
            for i, (cs, sn) in enumerate(rotations):
                column[i], column[i + 1] = cs * column[i] + sn * column[i + 1], -sn * column[i] + cs * column[i + 1]
            radius = np.hypot(column[k], column[k + 1])
            cs, sn = (1.0, 0.0) if radius == 0 else (column[k] / radius, column[k + 1] / radius)
            rotations.append((cs, sn))
            column[k], column[k + 1] = radius, 0.0
            H[:k + 2, k] = column
            g[k], g[k + 1] = cs * g[k], -sn * g[k]
            k += 1
            if abs(g[k]) <= bound:
                break
        y = scipy.linalg.solve_triangular(H[:k, :k], g[:k])
        x += Z[:k].T @ cupy.asarray(y)
        r = b - A @ x
    return x, iterations, applications


def table_vi(name, A, repeat):
    dA = csp.csr_matrix(A)
    x_star = cupy.asarray(np.random.default_rng(0).standard_normal(A.shape[0]))
    b = dA @ x_star
    rows = []
    for kind, build in (("point", gg.solvers.multicolor_gauss_seidel), ("cluster", gg.solvers.cluster_gauss_seidel)):
        build(dA)  # compile
        setup, M = synced_ms(lambda: build(dA), repeat)
        apply_one, _ = synced_ms(lambda: M @ b, 20)
        calls = [0]

        def counted(r, M=M):
            calls[0] += 1
            return M @ r

        op = csla.LinearOperator(dA.shape, matvec=counted, dtype=cupy.float64)
        solve, (x, iterations, applications) = synced_ms(lambda: gmres(dA, b, op), 1)
        assert applications == calls[0]
        relative = float(cupy.linalg.norm(b - dA @ x) / cupy.linalg.norm(b))
        calls[0] = 0
        cupyx_gmres(dA, b, op)
        cupyx_calls = calls[0]
        rows.append({"graph": name, "preconditioner": f"{kind} SGS", "colors": M.n_colors, "setup_ms": setup,
                     "iterations": iterations, "applications": applications, "apply_one_ms": apply_one,
                     "apply_ms": applications * apply_one, "solve_ms": solve, "relative_residual": relative,
                     "cupyx_gmres_applications": cupyx_calls})
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[100, 200])
    parser.add_argument("--elasticity", type=int, nargs="*", default=[60])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json")
    args = parser.parse_args()
    results = {"machine": describe_machine(gpu=cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()),
               "paper_table_v": PAPER_TABLE_V, "paper_table_vi": PAPER_TABLE_VI, "table_v": [], "table_vi": []}
    print("Table V's setting: CG to 1e-12, SA with MIS-2 aggregates, 2 Jacobi sweeps (omega 2/3), "
          "b = A x (x uniform on [-1, 1], MueLu's drivers); iters b=1: the same for b = ones")
    print(f"{'graph':<18}{'solver':<22}{'iters':>6}{'b=1':>5}{'agg ms':>9}{'setup ms':>10}{'solve ms':>10}"
          f"{'op cx':>7}{'levels':>7}{'SpMV ms':>9}")
    runs = [(name, A, B, TABLE_V, "gbgraph GPU mis2", name == "laplace3d:100")
            for name, A, B in problems(args.sizes, args.elasticity)]
    runs[1:1] = [(name, A, B, TABLE_V_OVER_RHO, "gbgraph GPU omega/rho", False) for name, A, B in problems([100], [])]
    for name, A, B, options, label, cpu_peers in runs:
        cupy.get_default_memory_pool().free_all_blocks()  # the last problem's hierarchies
        for row in table_v(name, A, B, args.repeat, cpu_peers, options, label):
            results["table_v"].append(row)
            agg = "" if row["aggregation_ms"] is None else f"{row['aggregation_ms']:.1f}"
            print(f"{row['graph']:<18}{row['solver']:<22}{row['iterations']:>6}{row['iterations_ones']:>5}{agg:>9}"
                  f"{row['setup_ms']:>10.1f}{row['solve_ms']:>10.1f}{row['operator_complexity']:>7.2f}"
                  f"{row['levels']:>7}{row['spmv_ms']:>9.3f}", flush=True)
    p = PAPER_TABLE_V
    print(f"{'paper (V100 MueLu)':<18}{'laplace3d:100':<22}{p['iterations']:>6}{'':>5}{1e3 * p['aggregation_s']:>9.1f}"
          f"{1e3 * p['setup_s']:>10.1f}{1e3 * p['solve_s']:>10.1f}")
    print("\nTable VI's analogue: GMRES(50) to 1e-8, b = A x*, point / cluster multicolor SGS on the GPU")
    print(f"{'graph':<18}{'preconditioner':<16}{'colors':>7}{'setup ms':>10}{'iters':>7}{'1 apply ms':>11}"
          f"{'apply ms':>10}{'solve ms':>10}{'rel. res.':>10}{'cupyx its':>10}")
    for name, A, _ in problems([100], args.elasticity):
        cupy.get_default_memory_pool().free_all_blocks()
        for row in table_vi(name, A, args.repeat):
            results["table_vi"].append(row)
            print(f"{row['graph']:<18}{row['preconditioner']:<16}{row['colors']:>7}{row['setup_ms']:>10.2f}"
                  f"{row['iterations']:>7}{row['apply_one_ms']:>11.3f}{row['apply_ms']:>10.1f}{row['solve_ms']:>10.1f}"
                  f"{row['relative_residual']:>10.1e}{row['cupyx_gmres_applications']:>10}", flush=True)
    print("\nProfile of one GPU setup (ms; each phase synchronised) and of one V-cycle")
    results["profile"] = []
    for name, A, B in problems(args.sizes[:1], args.elasticity[:1]):
        cupy.get_default_memory_pool().free_all_blocks()
        dA, dB = csp.csr_matrix(A), None if B is None else cupy.asarray(B)
        total, ms, ml = setup_profile(dA, dB)
        cycle, reference, spmv = cycle_profile(ml, cupy.ones(A.shape[0]))
        results["profile"].append({"graph": name, "setup_ms": total, "phases_ms": ms, "v_cycle_ms": cycle,
                                   "v_cycle_cupyx_ms": reference, "spmv_ms_per_level": spmv})
        print(f"{name}: setup {total:.1f} = " + ", ".join(f"{k} {v:.1f}" for k, v in ms.items()))
        print(f"{name}: V-cycle {cycle:.3f} ms as one CUDA graph ({reference:.2f} ms by cupyx's products); "
              "cupyx SpMV per level " + ", ".join(f"{s:.3f}" for s in spmv))
    for kind, (setup, apply_s, iterations) in PAPER_TABLE_VI.items():
        print(f"{'paper (V100)':<18}{kind + ' SGS':<16}{'':>7}{1e3 * setup:>10.2f}{iterations:>7}{'':>11}"
              f"{1e3 * apply_s:>10.1f}   (÷ {H100_OVER_V100:.1f}, the bandwidth ratio: {1e3 * apply_s / H100_OVER_V100:.0f} ms)")
    if args.json:
        pathlib.Path(args.json).write_text(json.dumps(results, indent=1, default=float) + "\n")


if __name__ == "__main__":
    main()

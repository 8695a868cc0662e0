"""Point vs cluster multicolor SGS as GMRES preconditioners, after Kelley & Rajamanickam's Table VI.

GMRES from scipy (restart 50, relative tolerance 1e-8, at most 800 iterations: 16 restart
cycles; scipy preconditions from the left and stops on ||b - A x|| <= 1e-8 ||b||) solves
A x = b from x = 0 on Laplace3D 100³ and on L + I (graph Laplacian plus identity) of the
mesh-like graphs of ../shared/data; b = A x* with x* standard normal (seed 0), as MueLu's
drivers make it (--rhs random: b itself standard normal). For each preconditioner it prints the
GMRES iterations, the setup time (median of --repeat; cluster: the aggregation, then the
coarse graph, its coloring and the row order) and the time spent applying it during the
solve, beside the size of the graph each setup colors. Sequential SGS in natural order
(pyamg's C++ ``gauss_seidel``, from x = 0) shows the iterations that cluster GS approaches.

    python benchmarks/bench_gauss_seidel.py                        # aggregation: gg.aggregate(A, "mis2")
    python benchmarks/bench_gauss_seidel.py --aggregation pyamg    # pyamg.aggregation.standard_aggregation
"""

import argparse
import pathlib
import statistics
import time

import numpy as np
import pyamg
import scipy.sparse as sp
import scipy.sparse.linalg as sla
from pyamg.relaxation.relaxation import gauss_seidel

import gbgraph as gg
from common import DEFAULT_DATA, describe_machine, matrix, progress, write_results

# Regular/mesh-like graphs of ../shared/data/README.md.
MESHES = ("delaunay_n14", "delaunay_n15", "delaunay_n17", "fe_4elt2", "4elt", "commanche_dual", "rgg_n_2_15_s0",
          "rgg_n_2_16_s0", "copter2", "wave", "mdual", "usroads-48", "usroads")
# Kelley & Rajamanickam 2022, Table VI, Laplace3D_100: GMRES iterations with point / cluster SGS.
PAPER_LAPLACE = (158.4, 144.6)


def laplacian_plus_identity(path):
    """L + I of the pattern of a Matrix Market graph: SPD, degree + 1 on the diagonal."""
    G = gg.as_graph(path, weights=False)
    P = sp.csr_array((np.ones(G.nnz), G.indices, G.indptr), shape=(G.n, G.n))
    return sp.csr_array(sp.diags_array(np.diff(G.indptr) + 1.0) - P)


def labels_of(A, how):
    if how == "mis2":
        return np.asarray(gg.aggregate(A, "mis2").labels)
    AggOp = pyamg.aggregation.standard_aggregation(sp.csr_matrix(A))[0].tocsr()
    labels = np.full(A.shape[0], -1, np.int64)
    rows = np.repeat(np.arange(A.shape[0]), np.diff(AggOp.indptr))
    labels[rows] = AggOp.indices
    lone = labels < 0  # standard_aggregation leaves isolated rows out: each is its own cluster
    labels[lone] = AggOp.shape[1] + np.arange(lone.sum())
    return labels


def median_seconds(fn, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), result


def solve(A, b, M):
    """(iterations, seconds in M, converged) of GMRES(50) with preconditioner M."""
    spent = [0.0]

    def apply(v):
        t = time.perf_counter()
        out = M @ v
        spent[0] += time.perf_counter() - t
        return out

    count = []
    operator = sla.LinearOperator(A.shape, matvec=apply, dtype=np.float64)
    x, info = sla.gmres(A, b, M=operator, restart=50, rtol=1e-8, maxiter=16,
                        callback=lambda _: count.append(1), callback_type="pr_norm")
    converged = bool(np.linalg.norm(b - A @ x) <= 1e-8 * np.linalg.norm(b))
    return len(count), spent[0], converged


def sequential_sgs(A):
    """Natural-order symmetric Gauss-Seidel from x = 0 (pyamg's C++ kernel), one sweep."""
    def apply(v):
        x = np.zeros(A.shape[0])
        gauss_seidel(A, x, np.ravel(v).astype(np.float64), iterations=1, sweep="symmetric")
        return x
    return sla.LinearOperator(A.shape, matvec=apply, dtype=np.float64)


def bench(name, A, how, repeat, rhs):
    A = sp.csr_array(A, dtype=np.float64)
    b = np.random.default_rng(0).standard_normal(A.shape[0])
    if rhs == "Ax":
        b = A @ b
    row = {"matrix": name, "n": A.shape[0], "nnz": A.nnz}
    setup, M = median_seconds(lambda: gg.solvers.multicolor_gauss_seidel(A), repeat)
    iterations, apply_s, converged = solve(A, b, M)
    row["point"] = {"setup_ms": 1e3 * setup, "colored_n": A.shape[0], "colors": M.n_colors, "steps": M.steps,
                    "iterations": iterations, "apply_ms": 1e3 * apply_s, "converged": converged}
    aggregate_s, labels = median_seconds(lambda: labels_of(A, how), repeat)
    setup, M = median_seconds(lambda: gg.solvers.cluster_gauss_seidel(A, labels), repeat)
    iterations, apply_s, converged = solve(A, b, M)
    row["cluster"] = {"aggregation": how, "aggregation_ms": 1e3 * aggregate_s, "setup_ms": 1e3 * setup,
                      "colored_n": int(labels.max()) + 1, "colors": M.n_colors, "steps": M.steps,
                      "iterations": iterations, "apply_ms": 1e3 * apply_s, "converged": converged}
    iterations, apply_s, converged = solve(A, b, sequential_sgs(A))
    row["sequential"] = {"iterations": iterations, "apply_ms": 1e3 * apply_s, "converged": converged}
    return row


def print_row(row):
    p, c, s = row["point"], row["cluster"], row["sequential"]

    def iters(v):
        return f"{v['iterations']}{'' if v['converged'] else '*'}"

    print(f"{row['matrix']:<16} {row['n']:>9,} {row['nnz']:>10,} | {iters(p):>6} {p['setup_ms']:>8.1f} "
          f"{p['apply_ms']:>9.1f} {p['colored_n']:>9,} {p['colors']:>4} {p['steps']:>5} | {iters(c):>6} "
          f"{c['aggregation_ms']:>8.1f} {c['setup_ms']:>8.1f} {c['apply_ms']:>9.1f} {c['colored_n']:>8,} "
          f"{c['colors']:>4} {c['steps']:>5} | {iters(s):>6}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", default=str(DEFAULT_DATA), help="folder of .mtx.gz graphs (default ../shared/data)")
    parser.add_argument("--aggregation", default="mis2", choices=("mis2", "pyamg"),
                        help="clusters: gg.aggregate(A, 'mis2') (default) or pyamg's standard_aggregation")
    parser.add_argument("--laplace", default="laplace3d:100", help="generated matrix to start with")
    parser.add_argument("--repeat", type=int, default=3, help="setups timed per measurement (median), default 3")
    parser.add_argument("--rhs", default="Ax", choices=("Ax", "random"),
                        help="b = A x* with x* standard normal (default), or b standard normal")
    parser.add_argument("--json", metavar="FILE", help="also write the rows and the machine's description here")
    args = parser.parse_args(argv)
    machine = describe_machine(repeat=args.repeat, aggregation=args.aggregation, rhs=args.rhs)
    matrices = [(args.laplace, lambda: matrix(args.laplace))]
    for name in MESHES:
        path = pathlib.Path(args.data) / f"{name}.mtx.gz"
        if path.exists():
            matrices.append((f"{name} L+I", lambda p=path: laplacian_plus_identity(p)))
    print(f"GMRES(50), rtol 1e-8, <= 800 iterations; setup ms median of {args.repeat}; apply ms = time in M during "
          f"the solve; colored n = size of the graph the setup colors; '*' = not converged; clusters: "
          f"{args.aggregation}; b: {'A x*' if args.rhs == 'Ax' else 'random'}")
    print(f"{'matrix':<16} {'n':>9} {'nnz':>10} | {'point SGS: iters':>16} {'setup':>7} {'apply':>9} {'colored n':>9} "
          f"{'cols':>4} {'steps':>5} | {'cluster SGS: iters':>18} {'aggregate':>8} {'setup':>8} {'apply':>9} "
          f"{'colored n':>8} {'cols':>4} {'steps':>5} | {'sequential':>6}")
    rows = []
    for name, make in progress(matrices, lambda m: m[0]):
        rows.append(bench(name, make(), args.aggregation, args.repeat, args.rhs))
        print_row(rows[-1])
    laplace = rows[0]
    fewer = laplace["cluster"]["iterations"] < laplace["point"]["iterations"]
    ratio = laplace["point"]["colored_n"] / laplace["cluster"]["colored_n"]
    print(f"\nTarget on {laplace['matrix']}: cluster {laplace['cluster']['iterations']} vs point "
          f"{laplace['point']['iterations']} iterations ({'met' if fewer else 'NOT met'}; paper "
          f"{PAPER_LAPLACE[1]} vs {PAPER_LAPLACE[0]}); cluster setup colors a graph {ratio:.1f} times smaller")
    if args.json:
        write_results(args.json, machine, rows, target={
            "cluster_fewer_iterations_on_laplace": fewer, "colored_graph_ratio": ratio,
            "paper_point_cluster_iterations": PAPER_LAPLACE})


if __name__ == "__main__":
    main()

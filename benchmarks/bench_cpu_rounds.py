"""The CPU rows of the one-compiled-pass-per-round issue, in SpMV-equivalents.

Per graph, on the ``numba`` backend (gbgraph's default on the CPU): ``as_graph`` of the scipy
matrix, ``mis2`` of the prepared graph and of the matrix, ``aggregate``, greedy ``color``, the
MIS-2 hierarchy (``coarsen``) and the HEC hierarchy. Each time is the minimum of --repeat
calls after one untimed call (their median beside it, which a busy machine moves first), beside
scipy's ``A @ x`` (float64) measured in the same process, the yardstick. ``--clock cpu`` times
the process's CPU time instead of the wall clock: with ``--threads 1``, the work of each call,
which other processes on a busy machine stretch much less than its wall time. The targets
(Laplace3D 100³): ``as_graph`` <= 2, ``mis2(G)`` <= 9, ``mis2(A)`` <= 12, ``aggregate`` <= 20,
``color`` <= 5, ``coarsen`` <= 40, HEC hierarchy <= 20.

    python benchmarks/bench_cpu_rounds.py                          # Laplace3D 100³
    python benchmarks/bench_cpu_rounds.py --graphs laplace3d:100 ../shared/data/coAuthorsDBLP.mtx.gz --json out.json
    python benchmarks/bench_cpu_rounds.py --threads 1 --clock cpu     # the work, on a busy machine
"""

import argparse
import time

import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from common import common_arguments, describe_machine, graph_name, graph_specs, matrix, write_results

GENERATED = ["laplace3d:100"]
#: row -> (the call on (scipy matrix, prepared graph), target in SpMV-eq at 100³)
ROWS = {
    "as_graph": (lambda A, G: gg.as_graph(A), 2),
    "mis2(G)": (lambda A, G: gg.mis2(G, backend="numba"), 9),
    "mis2(A)": (lambda A, G: gg.mis2(A, backend="numba"), 12),
    "aggregate": (lambda A, G: gg.aggregate(G, backend="numba"), 20),
    "color": (lambda A, G: gg.color(G, backend="numba"), 5),
    "coarsen": (lambda A, G: gg.coarsen(G, backend="numba"), 40),
    "hec hierarchy": (lambda A, G: gg.coarsen(G, "hec", backend="numba"), 20),
}


CLOCKS = {"wall": time.perf_counter, "cpu": time.process_time}


def times_ms(fn, calls, clock=time.perf_counter):
    """The minimum and the median of ``calls`` timed calls after an untimed one, in ms."""
    fn()
    times = []
    for _ in range(calls):
        start = clock()
        fn()
        times.append(clock() - start)
    return 1e3 * min(times), 1e3 * float(np.median(times))


def bench(spec, repeat, clock="wall"):
    A = sp.csr_matrix(matrix(spec))
    x = np.ones(A.shape[0])
    row = {"graph": graph_name(spec), "n": A.shape[0], "clock": clock,
           "spmv_ms": times_ms(lambda: A @ x, 30, CLOCKS[clock])[0]}
    G = gg.as_graph(A)
    for name, (call, _) in ROWS.items():
        row[name], row[f"{name} median"] = times_ms(lambda: call(A, G), repeat, CLOCKS[clock])
    return row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    common_arguments(parser, GENERATED, repeat=5)
    parser.add_argument("--clock", choices=sorted(CLOCKS), default="wall",
                        help="wall time (default) or the process's CPU time (with --threads 1: the work)")
    args = parser.parse_args(argv)
    rows = []
    for spec in graph_specs(args, GENERATED):
        r = bench(spec, args.repeat, args.clock)
        rows.append(r)
        print(f"{r['graph']}: SpMV {r['spmv_ms']:.2f} ms | " + " | ".join(
            f"{name} {r[name]:.1f} ms = {r[name] / r['spmv_ms']:.1f} ({r[name + ' median'] / r['spmv_ms']:.1f})"
            for name in ROWS), flush=True)
        if r["graph"] == "laplace3d:100":
            print("  targets (SpMV-eq): " + ", ".join(
                f"{name} <= {target}: {'met' if r[name] / r['spmv_ms'] <= target else 'NOT met'}"
                for name, (_, target) in ROWS.items()))
    if args.json:
        write_results(args.json, describe_machine(), rows)


if __name__ == "__main__":
    main()

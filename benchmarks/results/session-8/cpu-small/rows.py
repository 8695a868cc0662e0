"""Rows of issue 39 in SpMV-eq, numba backend, interleaving threshold settings in one process.
usage: rows.py THREADS REPEAT SETTINGS(comma: default,0,inf) GRAPH..."""
import sys, time, statistics, numpy as np, scipy.sparse as sp
sys.path.insert(0, "/work/wt/small39/benchmarks")
import numba
import gbgraph as gg
from gbgraph.backends.numba.kernels import threads as kt
from common import matrix
threads, repeat = int(sys.argv[1]), int(sys.argv[2])
settings = sys.argv[3].split(",")
numba.set_num_threads(threads)
default = kt.PARALLEL_WORK
val = {"default": default, "0": 0, "inf": 1 << 62}
ROWS = {"as_graph": lambda A, G: gg.as_graph(A), "mis2(G)": lambda A, G: gg.mis2(G, backend="numba"),
        "mis2(A)": lambda A, G: gg.mis2(A, backend="numba"), "aggregate": lambda A, G: gg.aggregate(G, backend="numba")}
for spec in sys.argv[4:]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    G = gg.as_graph(A)
    times = {(s, r): [] for s in settings for r in ROWS}
    spmv = []
    for s in settings:
        kt.PARALLEL_WORK = val[s]
        for r, f in ROWS.items(): f(A, G)
    for k in range(repeat):
        t = time.perf_counter(); A @ x; spmv.append(time.perf_counter() - t)
        for s in settings:
            kt.PARALLEL_WORK = val[s]
            for r, f in ROWS.items():
                t = time.perf_counter(); f(A, G); times[s, r].append(time.perf_counter() - t)
    for _ in range(20):
        t = time.perf_counter(); A @ x; spmv.append(time.perf_counter() - t)
    sm = min(spmv)
    print(f"{spec.split('/')[-1]} n={A.shape[0]} nnz={A.nnz} spmv {1e3*sm:.2f} ms threads={threads}")
    for s in settings:
        print(f"  {s:8s} " + " | ".join(f"{r} {min(times[s,r])/sm:.1f} (med {statistics.median(times[s,r])/sm:.1f})" for r in ROWS))

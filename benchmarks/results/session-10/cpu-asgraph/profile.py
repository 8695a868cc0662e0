"""The steps of ``gg.as_graph(scipy A)`` and of ``gg.mis2(A)``'s as_graph call, one at a time,
process CPU time (minimum of --repeat calls after one), beside scipy's SpMV.

    NUMBA_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results/session-10/cpu-asgraph/profile.py
"""
import argparse
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../.."))
from common import matrix  # noqa: E402

import gbgraph as gg  # noqa: E402
from gbgraph import graph as gm  # noqa: E402
from gbgraph.backends.numba.kernels import canonical  # noqa: E402

GRAPHS = ["laplace3d:100", "elasticity3d:40", "/work/shared/data/coAuthorsDBLP.mtx.gz",
          "/work/shared/data/delaunay_n17.mtx.gz"]


def t(fn, repeat, clock=time.process_time):
    fn()
    best = []
    for _ in range(repeat):
        s = clock()
        fn()
        best.append(clock() - s)
    return 1e3 * min(best)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--repeat", type=int, default=7)
    p.add_argument("--clock", default="cpu")
    args = p.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    print(open("/proc/loadavg").read().strip(), gg.__file__)
    for spec in GRAPHS:
        A = sp.csr_matrix(matrix(spec))
        x = np.ones(A.shape[0])
        spmv = t(lambda: A @ x, 30, clock)
        idx = A.indices
        vals = A.data
        closed = bool(A.diagonal().all())
        rows = {
            "as_graph(A)": lambda: gg.as_graph(A),
            "as_graph(A, weights=False, closed=True)": lambda: gg.as_graph(A, weights=False, closed=True),
            "check_sparse_arrays(columns=False)": lambda: gm.check_sparse_arrays(A, "A", np, columns=False),
            "scan_rows check only": lambda: canonical.scan_rows(A.indptr, idx, None, False, False),
            "scan_rows copy+values": lambda: canonical.scan_rows(A.indptr, idx, vals, closed, False),
            "scan_rows pattern copy (mis2)": lambda: canonical.scan_rows(A.indptr, idx, None, closed, not closed),
            "indptr.astype(int64)": lambda: A.indptr.astype(np.int64),
            "mis2(A)": lambda: gg.mis2(A, backend="numba"),
            "mis2(G)": lambda: gg.mis2(G, backend="numba"),
            "mis2(Gclosed)": lambda: gg.mis2(Gc, backend="numba"),
        }
        G = gg.as_graph(A)
        Gc = gg.as_graph(A, weights=False, closed=True)
        out = [f"{spec.split('/')[-1]}: SpMV {spmv:.2f} ms"]
        for name, fn in rows.items():
            ms = t(fn, args.repeat, clock)
            out.append(f"  {name:42s} {ms:7.2f} ms = {ms / spmv:5.2f}")
        print("\n".join(out), flush=True)


if __name__ == "__main__":
    main()

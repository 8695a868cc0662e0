"""What as_graph's pass costs on a grouped matrix (Elasticity3D 40³), one thread, process CPU
time, median of 15 calls: the groups' marking, the check alone, the check with the pattern
copied (mis2(A)'s), with values (as_graph's), the same passes with groups forced off, a sum
of the column indices (a read of them) and scipy's SpMV.
usage: NUMBA_NUM_THREADS=1 PYTHONPATH=<tree> python parts.py [graph]"""
import os
import sys
import time

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
from common import matrix  # noqa: E402
from gbgraph._malloc import keep_freed_blocks  # noqa: E402
from gbgraph.backends.numba.kernels import canonical as c  # noqa: E402

keep_freed_blocks()


def t(fn, k=15):
    fn()
    ts = []
    for _ in range(k):
        a = time.process_time()
        fn()
        ts.append(time.process_time() - a)
    return 1e3 * np.median(ts)


A = sp.csr_matrix(matrix(sys.argv[1] if len(sys.argv) > 1 else "elasticity3d:40"))
ip, ind, x = A.indptr, A.indices, np.ones(A.shape[0])
grouped = c._row_groups
print(open("/proc/loadavg").read().split()[0], "load; groups:", grouped(ip, ind) is not None)
for _ in range(2):
    row = {"spmv": t(lambda: A @ x), "read": t(lambda: ind.sum()), "marking": t(lambda: grouped(ip, ind))}
    for name, off in (("grouped", False), ("ungrouped", True)):
        c._row_groups = (lambda ip, ind: None) if off else grouped
        row[f"{name} check"] = t(lambda: c.scan_rows(ip, ind, None, False))
        row[f"{name} pattern copy"] = t(lambda: c.scan_rows(ip, ind, None, True))
        row[f"{name} weighted copy"] = t(lambda: c.scan_rows(ip, ind, A.data, True))
    c._row_groups = grouped
    print(", ".join(f"{k} {v:.2f}" for k, v in row.items()), flush=True)

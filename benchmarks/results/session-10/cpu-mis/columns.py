"""Issue 39: what the column passes of aggregation's two MIS-2 runs read, round by round.

For each round of ``mis._rounds`` (k = 2): the decision's rows (wl1) and the column
worklist (wl2) with their entries of A + I; "needed": the columns of wl2 next to a row of
wl1, the only ones a decision of this or a later round reads (the others leave in this
pass); "turned IN": the columns whose minimum this pass finds IN (next to a row that
joined last round). Counts only, no timing.

usage: PYTHONPATH=<tree>:<tree>/benchmarks python columns.py GRAPH
"""
import sys

import numpy as np, scipy.sparse as sp

from gbgraph.algorithms import mis
from common import matrix
from phase1 import candidates

closed = sp.csr_matrix(matrix(sys.argv[1]))
n = closed.shape[0]
closed = ((abs(closed) + sp.eye(n)) != 0).astype(np.int8).tocsr()  # the pattern of A + I
deg = np.diff(closed.indptr)
plain_round = mis._worklist_round
totals = np.zeros(3, np.int64)


def counted_round(be, A, T, levels, wl1, columns, statuses, it, shrink):
    rows, cols = be.indices(wl1), be.indices(columns[0])
    flags = np.zeros(n, np.int8); flags[rows] = 1
    needed = (closed @ flags)[cols] > 0
    y = plain_round(be, A, T, levels, wl1, columns, statuses, it, shrink)
    turned = be.values(levels[0])[cols] == statuses.IN
    print(f"  round {it}: wl1 {rows.size:,} ({deg[rows].sum():,}); wl2 {cols.size:,} ({deg[cols].sum():,}); "
          f"needed {needed.sum():,} ({deg[cols][needed].sum():,}); turned IN {turned.sum():,} ({deg[cols][turned].sum():,})")
    totals[:] += deg[cols].sum(), deg[cols][needed].sum(), deg[cols][turned].sum()
    return y


mis._worklist_round = counted_round
print("first MIS-2 (every vertex)")
be, G, bits, _, free = candidates(sys.argv[1])
print("second MIS-2 (candidates)")
mis._mis2(be, G, bits, n + 1, candidates=free)
print(f"both: column passes read {totals[0]:,} entries, of which needed {totals[1]:,}, turned IN {totals[2]:,}")

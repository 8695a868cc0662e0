"""The input's symmetry check: A - Aᵀ (graph.check_symmetric_matrix, 81b2177's) against the pass
that copies A's upper triangle and checks each entry's mirror (kernels/lanczos.upper_triangle),
and that pass without the check (checked=True, where A - Aᵀ ran first); one process,
alternated, CPU ms, medians. usage: check_ab.py laplace3d:100 [rounds]"""
import sys, time
import numpy as np
import gbgraph as gg
from gbgraph.graph import check_symmetric_matrix
from gbgraph.backends.numba.kernels.lanczos import upper_triangle

kind, size = sys.argv[1].split(":")
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 7
A = gg.amg._checked_matrix(getattr(gg.generators, kind)(int(size)), "hermitian")
cases = {"A - Aᵀ": lambda: check_symmetric_matrix(A, ""),
         "triangle, checked": lambda: upper_triangle(A.indptr, A.indices, A.data),
         "triangle, copy only": lambda: upper_triangle(A.indptr, A.indices, A.data, checked=True)}
times = {name: [] for name in cases}
for _ in range(rounds + 1):
    for name, f in cases.items():
        t = time.process_time()
        f()
        times[name].append(1e3 * (time.process_time() - t))
print(sys.argv[1], {k: round(float(np.median(v[1:])), 1) for k, v in times.items()},
      "load", open("/proc/loadavg").read().split()[:3])

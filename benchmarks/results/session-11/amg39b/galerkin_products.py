import time, sys, importlib.util, numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph import amg
from gbgraph.backends.numba.kernels import spgemm as new
spec = importlib.util.spec_from_file_location("gbgraph.backends.numba.kernels.spgemm_old", "/work/main/.old/gbgraph/backends/numba/kernels/spgemm.py")
old = importlib.util.module_from_spec(spec); spec.loader.exec_module(old)
A = gg.generators.laplace3d(int(sys.argv[1]))
ml = amg.smoothed_aggregation_solver(A, "mis2")
pairs = []
for lv in ml.levels[:-1]:
    AP = lv.A @ lv.P
    pairs += [(lv.A, lv.P, {}), (lv.R, sp.csr_array(AP), {"ordered": lv.A.nnz >= amg._SORTED_GALERKIN, "index_type": np.int64 if lv.A.nnz >= amg._SORTED_GALERKIN else None})]
calls = 0
orig = new._slots
def counting(*a, **k):
    global calls; calls += 1; return orig(*a, **k)
for X, Y, kw in pairs:
    new._slots = counting; new.matmat(X, Y, **kw); new._slots = orig
print("leftover ranges:", calls)
for r in range(3):
    for name, mod in (("old", old), ("new", new)):
        c, w = time.process_time(), time.perf_counter()
        for X, Y, kw in pairs: mod.matmat(X, Y, **kw)
        print(name, f"cpu {1e3*(time.process_time()-c):.0f} wall {1e3*(time.perf_counter()-w):.0f}", end="  ")
    print()

import sys, time, importlib; sys.path.insert(0, "/work/wt/cpu39/benchmarks"); sys.path.insert(0, "/tmp/cpu39")
import numpy as np, scipy.sparse as sp
from common import matrix
from gbgraph._malloc import keep_freed_blocks; keep_freed_blocks()
mods = [importlib.import_module(m) for m in sys.argv[1].split(",")]
def same(a, b):
    if isinstance(a, tuple):
        return all(same(x, y) for x, y in zip(a, b)) and len(a) == len(b)
    if a is None or b is None: return a is b
    if isinstance(a, np.ndarray): return np.array_equal(a, b)
    return a == b
def t(fn, k):
    fn(); best = 1e9
    for _ in range(k):
        s = time.process_time(); fn(); best = min(best, time.process_time() - s)
    return 1e3 * best
graphs = sys.argv[2:] or ["laplace3d:100", "elasticity3d:40", "/work/shared/data/coAuthorsDBLP.mtx.gz", "/work/shared/data/delaunay_n17.mtx.gz"]
for spec in graphs:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    closed = bool(A.diagonal().all())
    cases = {"check": (A.indptr, A.indices, None, False, False),
             "copy+values": (A.indptr, A.indices, A.data, closed, False),
             "mis2": (A.indptr, A.indices, None, closed, not closed)}
    line = [spec.split("/")[-1][:12], open("/proc/loadavg").read().split()[0], f"spmv {t(lambda: A @ x, 30):.2f}"]
    for name, args in cases.items():
        for m in mods[1:]:
            assert same(mods[0].scan_rows(*args), m.scan_rows(*args)), (spec, name)
        res = [[] for _ in mods]
        for _ in range(3):
            for r, m in zip(res, mods):
                r.append(t(lambda: m.scan_rows(*args), 5))
        line.append(f"{name} " + " / ".join(f"{min(r):.2f}" for r in res))
    print(" | ".join(line), flush=True)

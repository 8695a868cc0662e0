"""Per-verb CPU time of mis2(G) and aggregate(G) (numba, one thread): each backend verb wrapped
with a process_time clock; totals over 5 calls after one, per call, ms, with counts.

    PYTHONPATH=<tree> python verbs.py [graphs...]
"""
import collections, os, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))
import numpy as np, scipy.sparse as sp
from common import matrix
import gbgraph as gg
THREADS = int(os.environ.get("THREADS", "1")); gg.backends.set_threads(THREADS)
clock = time.process_time if THREADS == 1 else time.perf_counter  # CPU time at one thread, wall at more
be = gg.backends.backend("numba")
acc = collections.defaultdict(lambda: [0.0, 0])
depth = [0]
def wrap(name):
    f = getattr(be, name)
    def g(*a, **k):
        if depth[0]:
            return f(*a, **k)
        depth[0] += 1
        c = clock()
        try:
            return f(*a, **k)
        finally:
            depth[0] -= 1
            key = name
            if name in ("mxv", "select", "vxm"):
                op = a[0]
                key = f"{name}:{getattr(op, 'name', op)}"
            acc[key][0] += clock() - c; acc[key][1] += 1
    setattr(be, name, g)
for name in ("mxv", "vxm", "select", "assign", "apply_index", "apply", "full", "nvals", "indices", "values",
             "ewise_add", "ewise_mult", "reduce", "extract", "vector", "matrix", "scatter", "gather", "mxm"):
    if hasattr(be, name):
        wrap(name)
graphs = sys.argv[1:] or ["/work/shared/data/coAuthorsDBLP.mtx.gz", "/work/shared/data/delaunay_n17.mtx.gz"]
for spec in graphs:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0])
    G = gg.as_graph(A)
    c = clock()
    for _ in range(30): A @ x
    spmv = 1e3 * (clock() - c) / 30
    for label, fn in (("mis2(G)", lambda: gg.mis2(G, backend=be)), ("aggregate(G)", lambda: gg.aggregate(G, backend=be))):
        fn(); acc.clear()
        c = clock()
        for _ in range(5): fn()
        total = 1e3 * (clock() - c) / 5
        print(f"{spec.split('/')[-1]} {label}: {total:.2f} ms ({total / spmv:.2f} SpMV-eq, SpMV {spmv:.2f} ms)")
        for k, (s, n) in sorted(acc.items(), key=lambda kv: -kv[1][0]):
            print(f"   {k:40s} {1e3 * s / 5:7.2f} ms  {n / 5:5.0f} calls")

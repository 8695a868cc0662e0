import sys, time
import numpy as np
sys.path.insert(0, "benchmarks")
import gbgraph as gg
from gbgraph.algorithms import heavy as H
from gbgraph.backends.numba.kernels import heavy as K
from bench_partition import largest_component
from common import matrix
gg.backends.set_threads(1)
for name in sys.argv[1:]:
    G = gg.as_graph(largest_component(matrix(f"/work/shared/data/{name}.mtx.gz")))
    n = G.n
    keys = H.host_keys(G, 0)
    w = np.zeros(0); vw = np.ones(n, np.int64)
    args = (G.indptr, G.indices, w, True, keys, vw, 0.5 * n / 2, True, H.CAP_PASSES)
    K.capped_hec(*args)
    pending = np.ones(n, np.bool_); Hh = np.empty(n, np.int64); target = np.empty(n, np.int64)
    def t(f, *a, reps=20):
        best = 1e9
        for _ in range(reps):
            c = time.process_time(); out = f(*a); best = min(best, time.process_time() - c)
        return best * 1e3, out
    tot, _ = t(K.capped_hec, *args)
    th, _ = t(K._heavy, G.indptr, G.indices, w, True, keys, pending, True, Hh, target)
    def visit():
        free = np.zeros(n, np.bool_); K._visit(Hh, target, pending, free); return free
    tv, free = t(visit)
    parent = np.arange(n); parent[free] = Hh[free]
    tr, (labels, count) = t(K._roots, parent)
    depth = np.zeros(n, np.int64)
    for v in range(0, n, max(1, n // 2000)):
        d, r = 0, v
        while parent[r] != r: r = parent[r]; d += 1
        depth[v] = d
    print(f"{name}: n {n} total {tot:.2f} heavy {th:.2f} visit {tv:.2f} roots {tr:.2f} ms; count {count}, max depth (sampled) {depth.max()}")

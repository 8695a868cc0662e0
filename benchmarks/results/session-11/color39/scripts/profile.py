# Stage profile of the numba greedy kernel (kernels/coloring.py, greedy), one thread, CPU time:
# the minimum of each stage over 9 calls, beside scipy's A @ x. python profile.py GRAPH...
import sys, time, numpy as np, scipy.sparse as sp, gbgraph as gg
from gbgraph.algorithms import coloring as C
from gbgraph.backends.numba.kernels import coloring as K
gg.backends.set_threads(1)
clock = time.process_time
for spec in sys.argv[1:]:
    if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
    else:
        name, _, d = spec.partition(":"); A = getattr(gg.generators, name)(*(int(x) for x in d.split(",")))
    A = sp.csr_matrix(A); G = gg.as_graph(A); ip, ix = G.indptr, G.indices; n = G.n
    keys = C._Keys(gg.backends.backend("numba"), G, 0).every("largest_degree")
    order = K.by_decreasing(keys)
    T, rows_of = {}, {}
    def tm(name, f, *a, rows=None):
        s = clock(); out = f(*a); T.setdefault(name, []).append(clock() - s)
        if rows is not None: rows_of[name] = rows
        return out
    for rep in range(9):
        colors = np.empty(n, np.int32); work = np.empty(n, np.int32); lost = np.empty(n, np.bool_)
        few = tm("guess (1024 rows)", K._few_maxima, ip, ix, keys, 32)
        if few:
            colors[:] = -1
            tm("sort of the keys (kept after the first call)", K.by_decreasing, keys, rows=n)
            w = tm("sweep of every row in key order", K._sweep_counting, ip, ix, colors, order, rows=n)
            assert w * 32 < n - w
        else:
            larger = np.empty(n, np.uint64)
            left = tm("round 0 and round 1's first fits", K._first_rounds, ip, ix, keys, colors, work, np.zeros(n, np.bool_), larger, rows=n)
            before, r = n, 1
            while left and (before - left) * 32 >= left:
                rows = work[:left]
                if r > 1: tm(f"round {r} first fits", K._fits, ip, ix, colors, rows, False, True, rows=left)
                tm(f"round {r} contest", K._contest, ip, ix, keys, colors, rows, False, lost, larger, rows=left)
                before = left
                left = tm(f"round {r} settle", K._settle, colors, lost, work, left, rows=before); r += 1
            assert not left
        tm("recoloring: classes (counting sort)", K._classes, colors, rows=n)
        tm("recoloring (with its classes)", K._recolor, ip, ix, colors, rows=n)
        tm("greedy, whole", K.greedy, ip, ix, keys, n + 1, 32, lambda build: order)
        tm("gg.color(G), whole", gg.color, G)
    x = np.ones(n)
    for _ in range(30): tm("scipy SpMV", A.__matmul__, x)
    spmv = min(T["scipy SpMV"])
    print(f"## {spec.split('/')[-1]} (n = {n:,}, nnz = {ix.size:,})")
    for k, v in T.items():
        r = rows_of.get(k)
        print(f"{k:50s} {1e3*min(v):8.2f} ms  {min(v)/spmv:6.2f} SpMV" + (f"  {r:>10,} rows  {1e9*min(v)/max(r,1):6.1f} ns/row" if r else ""))
    print(flush=True)

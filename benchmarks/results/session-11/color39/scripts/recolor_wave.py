import sys, time, numpy as np, gbgraph as gg
from gbgraph.algorithms import coloring as C
from gbgraph.backends.numba.kernels import coloring as K
gg.backends.set_threads(1)
G = gg.as_graph(gg.generators.laplace3d(100)); ip, ix = G.indptr, G.indices; n = G.n
keys = C._Keys(gg.backends.backend("numba"), G, 0).every("largest_degree")
colors = np.empty(n, np.int32); work = np.empty(n, np.int32); lost = np.empty(n, np.bool_)
left = K._first_rounds(ip, ix, keys, colors, work, np.zeros(n, np.bool_)); before = n; r = 1
while left and (before - left) * 32 >= left:
    rows = work[:left]
    if r > 1: K._tentative(ip, ix, colors, rows, False)
    K._contest(ip, ix, keys, colors, rows, False, lost); before = left; left = K._settle(colors, lost, work, left); r += 1
order, starts = K._classes(colors)
print("classes", starts.size - 1, np.diff(starts))
bw = max(int(np.max(np.abs(ix - np.repeat(np.arange(n), np.diff(ip))))), 0); print("bandwidth", bw)
st = np.empty(n, np.int32)
def tm(f, *a):
    t = []
    for _ in range(7):
        s = time.process_time(); f(*a); t.append(time.process_time() - s)
    return f"{1e3*min(t):.2f}"
for block in (4096, 15625, 32768, 65536):
    print(block, tm(K._recolor_waves, ip, ix, colors, order, starts, block, st))
print("sweep", tm(lambda: K._sweep(ip, ix, np.full(n, -1, np.int32), order)))
print("index sweep", tm(lambda: K._sweep(ip, ix, np.full(n, -1, np.int32), np.arange(n, dtype=np.int32))))

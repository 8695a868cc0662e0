import sys, time, numpy as np, numba, gbgraph as gg
from gbgraph.algorithms import coloring as C
from gbgraph.backends.numba.kernels import coloring as K
from gbgraph.backends.numba.kernels.coloring import _request_ahead
from gbgraph.backends.numba.kernels.products import sparse_list
spec = sys.argv[1]
if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
else:
    name,_,d = spec.partition(":"); A = getattr(gg.generators,name)(*(int(x) for x in d.split(",")))
G = gg.as_graph(A); ip, ix = G.indptr, G.indices; n = G.n
keys = C._Keys(gg.backends.backend("numba"), G, 0).every("largest_degree")
colors = np.empty(n, np.int32); work = np.empty(n, np.int32); lost = np.empty(n, np.bool_)
higher = np.empty(ix.size, ix.dtype); count = np.empty(n, np.int32)
left = K._first_rounds(ip, ix, keys, colors, work, np.zeros(n, np.bool_), higher, count); before = n; r = 1
states = []
while left and (before - left) * 32 >= left:
    rows = work[:left]
    if r > 1: K._tentative(ip, ix, colors, rows, False)
    states.append((colors.copy(), rows.copy()))
    K._contest(ip, higher, count, colors, rows, False, lost); before = left; left = K._settle(colors, lost, work, left); r += 1
    if len(states) == 4: break
def mk(masked):
    @numba.njit
    def f(indptr, higher, count, colors, rows, lost):
        sparse = sparse_list(rows, indptr)
        for k in range(rows.size):
            if sparse:
                _request_ahead(np.uint64(k), rows, indptr, higher)
            i = np.uint64(rows[k])
            tag = colors[i]
            beaten = False
            start = np.uint64(indptr[i])
            if masked:
                end = start + np.uint64(count[i])
                for p in range(start, np.uint64(indptr[i + np.uint64(1)])):
                    beaten |= (colors[np.uint64(higher[p])] == tag) & (p < end)
            else:
                for p in range(start, start + np.uint64(count[i])):
                    beaten |= colors[np.uint64(higher[p])] == tag
            lost[k] = beaten
    return f
@numba.njit
def old(indptr, cols, keys, colors, rows, lost):
    sparse = sparse_list(rows, indptr)
    for k in range(rows.size):
        if sparse:
            _request_ahead(np.uint64(k), rows, indptr, cols)
        i = np.uint64(rows[k])
        tag, key = colors[i], keys[i]
        beaten = False
        for p in range(np.uint64(indptr[i]), np.uint64(indptr[i + np.uint64(1)])):
            j = np.uint64(cols[p])
            beaten |= (colors[j] == tag) & (keys[j] > key)
        lost[k] = beaten
fs = {"variable": (mk(False), (ip, higher, count)), "masked": (mk(True), (ip, higher, count)), "keys": (old, (ip, ix, keys))}
for name, (f, args) in fs.items():
    res = []
    for c0, w0 in states:
        l = np.empty(n, np.bool_)
        def run():
            s = time.process_time(); f(*args, c0, w0, l); return time.process_time() - s
        run(); res.append(1e3*min(run() for _ in range(9)))
    print(name, " ".join(f"{x:.2f}" for x in res))

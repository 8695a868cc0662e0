import time, numpy as np, numba, scipy.sparse as sp
import gbgraph as gg
from gbgraph.algorithms import coloring as C
from gbgraph import backends
A = gg.generators.laplace3d(100); G = gg.as_graph(sp.csr_matrix(A))
be = backends.for_graph("numba", G)
keys = C._Keys(be, G, 0)
ids = np.arange(G.n)
key = C._ordered(keys, ids, "largest_degree").astype(np.uint64)
indptr, cols = G.indptr, G.indices
n = G.n
print(indptr.dtype, cols.dtype)

@numba.njit
def lowest_zero(w):
    x = (~w & (w + np.uint64(1))) - np.uint64(1)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))

@numba.njit
def contest(indptr, cols, rows, keys, colors, lost):
    for k in range(rows.size):
        i = rows[k]; c = colors[i]; key = keys[i]; b = False
        for p in range(indptr[i], indptr[i+1]):
            j = cols[p]
            b |= (colors[j] == c) & (keys[j] > key)
        lost[k] = b

@numba.njit
def ff(indptr, cols, rows, colors, out):
    for k in range(rows.size):
        i = rows[k]; w = np.uint64(0)
        for p in range(indptr[i], indptr[i+1]):
            o = colors[cols[p]]
            if o >= 0 and o < 64:
                w |= np.uint64(1) << np.uint64(o)
        out[k] = lowest_zero(w)

@numba.njit
def fused(indptr, cols, rows, keys, colors, F, lost):
    for k in range(rows.size):
        i = rows[k]; c = colors[i]; key = keys[i]; b = False
        for p in range(indptr[i], indptr[i+1]):
            j = cols[p]
            b |= (colors[j] == c) & (keys[j] > key)
        lost[k] = b
        if not b:
            bit = np.uint64(1) << np.uint64(c)
            for p in range(indptr[i], indptr[i+1]):
                F[cols[p]] |= bit

@numba.njit
def refit(rows, F, colors):
    for k in range(rows.size):
        i = rows[k]
        colors[i] = lowest_zero(F[i])

def tm(f, *a, reps=7):
    f(*a); t=[]
    for _ in range(reps):
        s=time.perf_counter(); f(*a); t.append(time.perf_counter()-s)
    return 1e3*min(t)

# simulate rounds with current semantics, collecting U lists
colors = np.zeros(n, np.int64)
rows = ids.copy()
lost = np.zeros(n, bool)
Us=[]
r=0
while rows.size:
    if r > 0:
        out = np.empty(rows.size, np.int64); ff(indptr, cols, rows, colors, out); colors[rows] = out
    l = np.empty(rows.size, bool); contest(indptr, cols, rows, key, colors, l)
    Us.append((rows.copy(), colors.copy()))
    rows = rows[l]; colors[rows] = -1; r += 1
print("rounds", r, [u[0].size for u in Us])
tc=tf=tfu=tr=0
for r,(rows, col) in enumerate(Us):
    l = np.empty(rows.size, bool)
    a = tm(contest, indptr, cols, rows, key, col, l)
    c2 = col.copy(); c2[rows]=-1  # ff reads colors with U at -1
    o = np.empty(rows.size, np.int64)
    b = tm(ff, indptr, cols, rows, c2, o) if r else 0
    F = np.zeros(n, np.uint64)
    cc = tm(fused, indptr, cols, rows, key, col, F, l)
    d = tm(refit, rows, F, c2.copy())
    tc+=a; tf+=b; tfu+=cc; tr+=d
    print(f"round {r} rows {rows.size}: contest {a:.2f} ff {b:.2f} fused {cc:.2f} refit {d:.2f}")
print(f"total contest {tc:.1f} ff {tf:.1f} | fused {tfu:.1f} refit {tr:.1f}")
x=np.ones(n); M=sp.csr_matrix(A)
print("spmv", tm(lambda: M@x, reps=20))

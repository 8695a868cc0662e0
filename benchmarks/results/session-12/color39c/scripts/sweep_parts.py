# Parts of the ordered sweeps of gg.color (numba, one thread, CPU time, min of 9): the sort of
# the order (by_decreasing), the sweep kernel alone in key, class and index order, the verb.
# python sweep_parts.py GRAPH...
import sys, time, numpy as np, scipy.sparse as sp, gbgraph as gg
from gbgraph import backends
from gbgraph.algorithms import coloring as C
from gbgraph.backends.numba import operators as O
from gbgraph.backends.numba.kernels.coloring import by_decreasing
from gbgraph.backends.numba import _values
backends.set_threads(1)
clock = time.process_time
be = backends.backend("numba")
def mn(f, k=9):
    f(); t = []
    for _ in range(k):
        s = clock(); f(); t.append(clock() - s)
    return 1e3 * min(t)
for spec in sys.argv[1:]:
    if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
    else:
        name, _, d = spec.partition(":"); A = getattr(gg.generators, name)(*(int(x) for x in d.split(",")))
    A = sp.csr_matrix(A); G = gg.as_graph(A); x = np.ones(A.shape[0]); n = G.n
    keys = C._Keys(be, G, 0).every("largest_degree")
    colors = gg.color(G).colors
    M = be.adjacency(G)
    ip, ix = M.indptr, M.indices
    vals = _values(M)
    c32 = np.full(n, -1, np.int32)
    spmv = mn(lambda: A @ x, 30)
    print(f"## {spec.split('/')[-1]} SpMV {spmv:.2f} ms")
    print(f"  by_decreasing(keys)   {mn(lambda: by_decreasing(keys)):.2f} ms")
    print(f"  by_decreasing(colors) {mn(lambda: by_decreasing(colors)):.2f} ms")
    bk = by_decreasing(keys); bc = by_decreasing(colors)
    mod = O._row_module(C.FIRST_FIT, vals.dtype, (np.dtype(np.int32),))
    out = np.empty(n, np.int32); found = np.empty(n, bool)
    def sw(by):
        c = c32.copy(); mod._gb_rows_ordered(ip, ix, vals, by, by, out, found, c)
    print(f"  sweep, key order      {mn(lambda: sw(bk)):.2f} ms")
    print(f"  sweep, class order    {mn(lambda: sw(bc)):.2f} ms")
    ident = np.arange(n)
    print(f"  sweep, index order    {mn(lambda: sw(ident)):.2f} ms")
    print(f"  copy c32              {mn(lambda: c32.copy()):.3f} ms")
    Uk = be.full(n, keys, "uint64")
    print(f"  mxv ordered whole     {mn(lambda: be.mxv(C.FIRST_FIT, M, be.full(n, -1, 'int32'), mask=be.full(n, True, 'bool'), order=Uk)):.2f} ms")

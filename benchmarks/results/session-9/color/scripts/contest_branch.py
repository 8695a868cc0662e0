import time, sys, numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph.algorithms import coloring as C
from gbgraph.backends.operators import RowOperator
from gbgraph import backends
backends.set_threads(1)

def _scl_branch(i, start, stop, cols, vals, keys, colors):
    c = colors[i]
    key = keys[i]
    if stop - start > LONG:  # noqa
        for p in range(np.uint64(start), np.uint64(stop)):
            j = np.uint64(cols[p])
            if colors[j] == c and keys[j] > key:
                return True, True
        return True, False
    beaten = False
    for p in range(np.uint64(start), np.uint64(stop)):
        j = np.uint64(cols[p])
        if colors[j] == c:
            beaten |= keys[j] > key
    return True, beaten

V = RowOperator(_scl_branch, fill=None, name="scl_branch", constants={"LONG": 16})
spec = sys.argv[1]
if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
else:
    name,_,d = spec.partition(":"); A = getattr(gg.generators,name)(*(int(x) for x in d.split(",")))
G = gg.as_graph(sp.csr_matrix(A))
def tm(f, reps=9):
    f(); t=[]
    for _ in range(reps):
        s=time.process_time(); f(); t.append(time.process_time()-s)
    return 1e3*min(t)
orig = C.SAME_COLOR_LOST
ref = gg.color(G, backend="numba").colors
for k in range(2):
    C.SAME_COLOR_LOST = orig
    a = tm(lambda: gg.color(G, backend="numba"))
    C.SAME_COLOR_LOST = V
    b = tm(lambda: gg.color(G, backend="numba"))
    same = np.array_equal(gg.color(G, backend="numba").colors, ref)
    print(spec, f"today {a:.1f} branch {b:.1f} same {same}", flush=True)

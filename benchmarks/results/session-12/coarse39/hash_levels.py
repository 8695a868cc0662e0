import sys, hashlib, warnings, numpy as np
sys.path.insert(0, "/work/wt/coarse39/benchmarks")
warnings.simplefilter("ignore")
import gbgraph as gg
from common import matrix, graph_name
gg.backends.set_threads(int(sys.argv[1]))
def hx(*arrays):
    h = hashlib.sha1()
    for x in arrays:
        x = np.asarray(x); h.update(str(x.dtype).encode()); h.update(np.ascontiguousarray(x).tobytes())
    return h.hexdigest()[:12]
def levels(H):
    return [hx(L.graph.indptr, L.graph.indices, *( [] if L.graph.weights is None else [L.graph.weights]),
               *([] if L.labels is None else [L.labels])) for L in H.levels]
for spec in sys.argv[2:]:
    A = matrix(spec).tocsr(); G = gg.as_graph(A); name = graph_name(spec)
    for m in ("mis2", "hec"):
        H = gg.coarsen(G, m, backend="numba")
        print(name, m, levels(H), flush=True)
    r = gg.partition(A, 2); print(name, "partition2", hx(r.parts), r.cut, flush=True)

# where a call's wall time goes at 100³: host-timed pieces (perf_counter), with and without a sync after each
import sys, time, functools, collections, cupy, numpy as np, cupyx.scipy.sparse as cs, gbgraph as gg
from gbgraph.generators import laplace3d
from gbgraph.backends.cupy import program
import gbgraph.backends.cupy as C
G = gg.as_graph(cs.csr_matrix(laplace3d(int(sys.argv[2])).astype(np.float64)))
f = {"mis2": lambda: gg.mis2(G, backend="cupy"), "color": lambda: gg.color(G, backend="cupy"),
     "aggregate": lambda: gg.aggregate(G, backend="cupy"), "hec": lambda: gg.coarsen(G, "hec", backend="cupy"),
     "coarsen": lambda: gg.coarsen(G, backend="cupy")}[sys.argv[1]]
sync = cupy.cuda.Device().synchronize
acc = collections.defaultdict(float); cnt = collections.Counter()
SYNC = False
def wrap(obj, name, label):
    fn = getattr(obj, name)
    @functools.wraps(fn)
    def g(*a, **k):
        if SYNC: sync()
        s = time.perf_counter()
        try: return fn(*a, **k)
        finally:
            if SYNC: sync()
            acc[label] += time.perf_counter() - s; cnt[label] += 1
    setattr(obj, name, g)
wrap(program, "compile_rounds", "trace+key")
wrap(program._Program, "run", "run (prep+kernel+state)")
wrap(program._Program, "_state", "  _state")
# every backend verb
be = gg.backend("cupy")
for v in ["mxv", "vxm", "select", "apply", "apply_index", "assign", "full", "vector", "indices", "values", "nvals",
          "extract", "build", "reduce", "reduce_rows", "ewise_add", "ewise_mult", "iterate", "adjacency", "fused"]:
    if hasattr(type(be), v): wrap(type(be), v, "verb " + v)
for mode in (False, True):
    SYNC = mode
    for _ in range(3): f()
    sync(); acc.clear(); cnt.clear()
    N = 20; s = time.perf_counter()
    for _ in range(N): f()
    sync(); wall = (time.perf_counter() - s) / N
    print(f"== {sys.argv[1]} {sys.argv[2]} sync-after-each={mode} wall/call {wall*1e3:.3f} ms")
    for k, v in sorted(acc.items(), key=lambda kv: -kv[1]):
        print(f"  {k:32s} {v / N * 1e3:8.3f} ms/call  {cnt[k] / N:6.1f} calls")

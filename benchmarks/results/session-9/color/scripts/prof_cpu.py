import sys, time, collections
import numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph import backends
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 2
backends.set_threads(threads)
spec = sys.argv[1] if len(sys.argv) > 1 else "laplace3d:100"
if spec.endswith(".mtx.gz"):
    A = gg.io.read_matrix_market(spec)[0]
else:
    name, _, d = spec.partition(":"); A = getattr(gg.generators, name)(*(int(x) for x in d.split(",")))
A = sp.csr_matrix(A); x = np.ones(A.shape[0])
G = gg.as_graph(A)
def mn(f, k):
    f(); t=[]
    for _ in range(k):
        s=time.process_time(); f(); t.append(time.process_time()-s)
    return 1e3*min(t)
spmv = mn(lambda: A@x, 30)
be = backends.get("numba") if hasattr(backends,"get") else None
c = mn(lambda: gg.color(G, backend="numba"), 7)
print(f"{spec} nnz={A.nnz} spmv {spmv:.2f} ms color {c:.1f} ms = {c/spmv:.2f} SpMV-eq")
# per-verb profile
from gbgraph.backends.numba import NumbaBackend as NB
stats = collections.defaultdict(lambda: [0,0.0])
log = []
for name in ["mxv","assign","apply","select","full","vector","iterate","reduce","ewise_add","extract","nvals","values","adjacency"]:
    f = getattr(NB, name, None)
    if f is None: continue
    def wrap(f=f, name=name):
        def g(self, *a, **k):
            if name == "iterate":
                return f(self, *a, **k)
            s = time.process_time(); r = f(self, *a, **k); dt = time.process_time()-s
            op = a[0] if a else None
            key = name + ":" + (getattr(op, "name", None) or (op if isinstance(op,str) else ""))
            if k.get("order") is not None: key += "(ordered)"
            stats[key][0]+=1; stats[key][1]+=dt
            m = k.get("mask"); log.append((key, 1e3*dt, getattr(m,"nvals",None) if m is not None else None))
            return r
        return g
    setattr(NB, name, wrap())
best = None; tots=[]
for _ in range(int(sys.argv[3]) if len(sys.argv) > 3 else 10):
    stats.clear(); log.clear()
    s=time.process_time(); r=gg.color(G, backend="numba"); tots.append(1e3*(time.process_time()-s))
    if best is None: best = [list(l) for l in log]
    else:
        for b, l in zip(best, log): b[1] = min(b[1], l[1])
print("total min", min(tots), "rounds", r.iterations, "ncolors", r.n_colors, "sum of per-call minima", sum(b[1] for b in best))
agg = collections.defaultdict(lambda: [0,0.0])
for b in best: agg[b[0]][0]+=1; agg[b[0]][1]+=b[1]
for k,(cnt,t) in sorted(agg.items(), key=lambda kv:-kv[1][1]):
    print(f"  {k:40s} {cnt:4d} {t:8.2f} ms")
if "-v" in sys.argv:
    for l in best: print("   ", l[0], f"{l[1]:.2f}", l[2])

import sys, time, resource, warnings, numpy as np
sys.path.insert(0, "/work/wt/coarse39/benchmarks"); warnings.simplefilter("ignore")
import gbgraph as gg
from gbgraph.backends.numba.kernels import coarse
from common import matrix
gg.backends.set_threads(1)
orig = coarse.coarse_by_sort
log = []
def w(*a):
    r0 = resource.getrusage(0); s = time.process_time(); r = orig(*a); t = time.process_time() - s; r1 = resource.getrusage(0)
    log.append((a[1].size, 1e3 * t, r1.ru_minflt - r0.ru_minflt, 1e3 * (r1.ru_stime - r0.ru_stime))); return r
coarse.coarse_by_sort = w
G = gg.as_graph(matrix(sys.argv[2]).tocsr())
for _ in range(4):
    log.clear(); s = time.process_time(); gg.coarsen(G, sys.argv[1], backend="numba"); tot = 1e3 * (time.process_time() - s)
    r0 = resource.getrusage(0)
    print(f"total {tot:.1f} ms; kernel " + " ".join(f"{t:.1f}/{f}f/{st:.0f}s" for n, t, f, st in log[:3]), f"sum {sum(l[1] for l in log):.1f}")

"""suitesparse backend, one thread, process CPU time: mis2(A), mis2(G), aggregate(G), coarsen(G), min of 3 calls after one, SpMV-eq.
    PYTHONPATH=<tree> python suitesparse.py graphs..."""
import sys, time
sys.path.insert(0, "/work/wt/mis2a39/benchmarks")
import numpy as np, scipy.sparse as sp
from common import matrix
import gbgraph as gg
gg.backends.set_threads(1)
def t(fn, k=3):
    fn(); ts = []
    for _ in range(k):
        c = time.process_time(); fn(); ts.append(time.process_time() - c)
    return 1e3 * min(ts)
for spec in sys.argv[1:]:
    A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0]); G = gg.as_graph(A)
    s = t(lambda: A @ x, 30)
    r = {k: t(f) for k, f in (("mis2(A)", lambda: gg.mis2(A, backend="suitesparse")), ("mis2(G)", lambda: gg.mis2(G, backend="suitesparse")),
                             ("aggregate", lambda: gg.aggregate(G, backend="suitesparse")), ("coarsen", lambda: gg.coarsen(G, backend="suitesparse")))}
    print(gg.__file__.split("/")[-3], spec.split("/")[-1], f"SpMV {s:.2f} ms", " ".join(f"{k} {v:.1f} = {v / s:.1f}" for k, v in r.items()), flush=True)

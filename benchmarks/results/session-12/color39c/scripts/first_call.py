# The first gg.color(G) on a fresh prepared graph (keys, and now their ranks, made and kept on
# the graph) against the later calls; one thread, CPU time. python first_call.py GRAPH...
import sys, time, numpy as np, scipy.sparse as sp, gbgraph as gg
from gbgraph import backends
backends.set_threads(1)
clock = time.process_time
for spec in sys.argv[1:]:
    if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
    else:
        name, _, d = spec.partition(":"); A = getattr(gg.generators, name)(*(int(x) for x in d.split(",")))
    A = sp.csr_matrix(A)
    gg.color(gg.as_graph(A))  # compiled code loaded
    firsts, laters = [], []
    for _ in range(3):
        G = gg.as_graph(A)
        s = clock(); gg.color(G); firsts.append(clock() - s)
        s = clock(); gg.color(G); laters.append(clock() - s)
    print(f"{spec.split('/')[-1]:24s} first {1e3*min(firsts):7.2f} ms  later {1e3*min(laters):7.2f} ms")

# The first gg.color(G) on a prepared graph (keys and, on the sweep path, their order made and
# kept on the graph) against later calls; one thread, CPU time. python first_call.py GRAPH...
import sys, time, numpy as np, scipy.sparse as sp, gbgraph as gg
gg.backends.set_threads(1)
gg.color(gg.as_graph(gg.generators.laplace3d(5)))  # compiled code loaded
for spec in sys.argv[1:]:
    if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
    else:
        name, _, d = spec.partition(":"); A = getattr(gg.generators, name)(*(int(x) for x in d.split(",")))
    firsts, laters = [], []
    for _ in range(3):
        G = gg.as_graph(sp.csr_matrix(A))
        s = time.process_time(); gg.color(G); firsts.append(time.process_time() - s)
        for _ in range(3):
            s = time.process_time(); gg.color(G); laters.append(time.process_time() - s)
    print(f"{spec.split('/')[-1]}: first call {1e3*min(firsts):.1f} ms, later calls {1e3*min(laters):.1f} ms", flush=True)

# where the layered mpi-cupy path (one rank, no exchange) spends a MIS-2 call: cProfile, H100
import sys, time, cProfile, pstats, io, cupy, numpy as np, gbgraph as gg
from mpi4py import MPI
from gbgraph.backends.mpi import MPIBackend
class Layered(MPIBackend):
    pass
be = Layered(MPI.COMM_SELF, local="cupy")
G = gg.as_graph(gg.generators.laplace3d(int(sys.argv[1])), weights=False)
sync = cupy.cuda.Device().synchronize
for _ in range(2): gg.mis2(G, backend=be); sync()
for _ in range(3):
    s = time.perf_counter(); gg.mis2(G, backend=be); sync(); print("layered mis2 ms", (time.perf_counter() - s) * 1e3)
import numba; print("numba threads", numba.get_num_threads(), "threading layer", numba.threading_layer())
p = cProfile.Profile(); p.enable(); gg.mis2(G, backend=be); sync(); p.disable()
for key in ("cumulative", "tottime"):
    out = io.StringIO(); pstats.Stats(p, stream=out).sort_stats(key).print_stats(30); print("\n".join(l[:170] for l in out.getvalue().splitlines()[4:]))

"""Where an mpi-cupy run spends its time, rank 0's view: each run timed whole, the time
inside the collectives (MPI's and NCCL's) and their number, then a cProfile of one run.
On one rank, the layered backend (the layer's code path without exchanges).

    mpiexec -n 2 python profile.py 200 mis2 aggregate
"""
import cProfile
import io
import pstats
import sys
import time

sys.path.insert(0, "benchmarks")
import cupy  # noqa: E402
from mpi4py import MPI  # noqa: E402

import bench_mpi  # noqa: E402
from gbgraph.backends.mpi import MPIBackend, exchange, nccl  # noqa: E402

comm = MPI.COMM_WORLD
rank, ranks = comm.Get_rank(), comm.Get_size()
side, names = int(sys.argv[1]), sys.argv[2:]
spent = {}


def timed(cls, name):
    verb = getattr(cls, name)

    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return verb(*args, **kwargs)
        finally:
            t, c = spent.get(name, (0.0, 0))
            spent[name] = (t + time.perf_counter() - start, c + 1)
    setattr(cls, name, wrapper)


for verb in ("alltoallv", "allgatherv", "allreduce", "allgather"):
    timed(exchange.Exchange, verb)
timed(nccl.DeviceExchange, "alltoallv")
be = MPIBackend(comm, local="cupy") if ranks > 1 else bench_mpi.layered_backend(comm)
G = bench_mpi.grid_graph((side,) * 3, comm)
if ranks == 1:
    G = G.on_device_of(__import__("numpy"))
be.adjacency(G, closed=True)
be.adjacency(G)
sync = cupy.cuda.Device().synchronize
for name in names:
    run = bench_mpi.ALGORITHMS[name]
    run(G, be)
    for _ in range(int(__import__("os").environ.get("REPEAT", 3))):
        spent.clear()
        comm.Barrier()
        start = time.perf_counter()
        run(G, be)
        sync()
        comm.Barrier()
        ms = (time.perf_counter() - start) * 1e3
        if rank == 0:
            print(f"{name} {side}^3 on {ranks} rank(s) (device exchange: {type(be.device).__name__}): {ms:.1f} ms; "
                  "in collectives: " + ", ".join(f"{k} {t * 1e3:.1f} ms/{c}" for k, (t, c) in sorted(spent.items())),
                  flush=True)
    p = cProfile.Profile()
    comm.Barrier()
    p.enable()
    run(G, be)
    sync()
    p.disable()
    if rank == 0:
        for key in ("tottime", "cumulative"):
            out = io.StringIO()
            pstats.Stats(p, stream=out).sort_stats(key).print_stats(28)
            print("\n".join(line[:180] for line in out.getvalue().splitlines()[4:] if line.strip()))

"""MIS-2 and MIS-2 aggregation on ``backend="mpi"``: per round, the bytes and messages the
ranks send and the time, beside the yardstick: 20 distributed SpMVs on the same matrix
(``spmv``), as many products as MIS-2 runs, which scale only as far as the machine's memory
system and the ghost exchange let any product.

Run it under MPI; every rank runs it, rank 0 prints and writes the JSON file:

    mpiexec -n 4 python benchmarks/bench_mpi.py                    # Laplace3D 60³
    mpiexec -n 8 python benchmarks/bench_mpi.py --graphs laplace3d:100 laplace3d:200 --json mpi.json

With --ranks it launches itself under mpiexec once per rank count and prints the scaling
tables (strong over --graphs, weak with --weak³ vertices per rank, and MIS-2's bytes per
round beside the partition's ghost columns). Beside each strong-scaling efficiency stands
the machine's ceiling at that rank count (:func:`ceiling`): each rank's local product,
timed alone and with every rank at once, which is as far as any product-bound code can
scale there before it exchanges a byte:

    python benchmarks/bench_mpi.py --ranks 1 2 4 8 --graphs laplace3d:100 laplace3d:200 --weak 100

With --blocks cupy the ranks' blocks run on the GPU (``backend="mpi-cupy"``, one GPU per
rank, the ranks of a node taking its GPUs in turn), and rank 0 times the single-process
``cupy`` backend on the same graph beside them (``one GPU``): what the layer costs on one
rank, and what more GPUs gain.

With --blocks cupy a run is timed whole (no segment boundaries: a barrier and a device
synchronisation each round would be timed too), its result checked against the ``cupy``
backend's, and a one-rank launch also times the layer that ``mpi-cupy`` had on one rank
before it became the ``cupy`` backend's verbs (``layered``, graphs up to --layered³). Laplace3D
graphs (``laplace3d:NX[,NY,NZ]``) are made by :func:`grid_rows`, each rank only its rows
(a :class:`~gbgraph.distributed.DistributedGraph`; on one rank the whole graph on the GPU);
--targets prints issue 41's targets beside the measured numbers:

    python benchmarks/bench_mpi.py --blocks cupy --ranks 1 2 --graphs laplace3d:100 laplace3d:200 \
        laplace3d:400 --weak 300 --big 700 --targets

Each algorithm's run is cut into segments at the rounds that
:meth:`~gbgraph.backends.base.Backend.iterate` runs (MIS-2's rounds 1, 2, ...; aggregation
runs two MIS-2, the second over the unaggregated vertices), with what comes before and
after them as segments of their own: round 0 and the set-up, the final gather of the set,
aggregation's other phases. A segment ends with a barrier, so its time is the slowest
rank's. Bytes and messages are summed over the ranks (``MPIBackend.traffic``); the graph's
matrices are built before the timed run. Timings from one run (``--repeat`` runs, the
fastest total kept); the result is checked against the single-process ``suitesparse`` one.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile
import time

import numpy as np

import gbgraph as gg
from common import common_arguments, describe_machine, graph_name, matrix, write_results

GENERATED = ("laplace3d:60",)
#: The yardstick's products: as many as MIS-2 runs on Laplace3D (two a round, ten rounds).
PRODUCTS = 20


def spmv(G, be):
    """The yardstick: PRODUCTS products ``w = A ⊕plus.second u`` on MIS-2's matrix (the
    closed adjacency, its ghosts exchanged each time as MIS-2's are), u(j) = j mod 7; returns
    the sum of w's values."""
    be = gg.backend(be) if isinstance(be, str) else be
    A = be.adjacency(G, closed=True)
    u = be.apply_index(lambda ids, mod: ids % mod, be.full(G.n, 0, "int64"), 7)  # u(j) = j mod 7
    for _ in range(PRODUCTS):
        w = be.mxv("plus_second", A, u)  # w = A ⊕plus.second u
    return be.reduce(w, "plus")


ALGORITHMS = {"spmv": spmv,
              "mis2": lambda G, be: gg.mis2(G, backend=be).vertices,
              "aggregate": lambda G, be: gg.aggregate(G, backend=be).labels}


def recording_backend(comm, blocks):
    """The mpi backend on ``comm`` with its blocks on ``blocks`` (``suitesparse``), cutting a run into segments
    at the rounds of ``iterate`` (mpi4py is imported here: the driver that launches the
    ranks must not start MPI)."""
    from gbgraph.backends.mpi import MPIBackend

    class RecordingBackend(MPIBackend):
        def start(self):
            self.segments, self._label = [], "set-up and round 0"
            self.comm.Barrier()
            self.traffic.reset()
            self._t = time.perf_counter()

        def close(self, next_label):
            self.comm.Barrier()
            now = time.perf_counter()
            self.segments.append(dict(segment=self._label, ms=(now - self._t) * 1e3, **self.traffic.reset()))
            self._label, self._t = next_label, time.perf_counter()

        def iterate(self, step, state, *, first=0, stop=None):
            def recorded(*args):
                self.close(f"round {args[-1]}")  # what came before this round
                return step(*args)

            result = super().iterate(recorded, state, first=first, stop=stop)
            self.close("after the rounds")
            return result

    return RecordingBackend(comm, local=blocks)


def _device_synchronize():
    import cupy

    cupy.cuda.Device().synchronize()


def _free_device_memory():
    import cupy

    cupy.get_default_memory_pool().free_all_blocks()


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


def one_gpu(G, name, repeat):
    """The fastest of ``repeat`` runs of ``name`` on the single-process ``cupy`` backend, in
    ms (after one untimed run, which compiles the kernels), and its result on the host."""
    result = _host(ALGORITHMS[name](G, "cupy"))
    best = float("inf")
    for _ in range(repeat):
        _device_synchronize()
        start = time.perf_counter()
        ALGORITHMS[name](G, "cupy")
        _device_synchronize()
        best = min(best, (time.perf_counter() - start) * 1e3)
    return best, result


def whole_runs(be, G, name, repeat):
    """The fastest of ``repeat`` runs of ``name`` on ``be`` timed whole, from a barrier to
    the device synchronised and a barrier (the slowest rank's time), after one untimed run;
    returns one segment (its counts summed over the ranks) and the result on the host."""
    comm = be.comm
    ALGORITHMS[name](G, be)  # compiles the kernels
    best = None
    for _ in range(repeat):
        comm.Barrier()
        be.traffic.reset()
        start = time.perf_counter()
        result = ALGORITHMS[name](G, be)
        _device_synchronize()
        comm.Barrier()
        ms = (time.perf_counter() - start) * 1e3
        if best is None or ms < best[0]:
            best = (ms, be.traffic.reset(), result)
    ms, counts, result = best
    counts = {key: int(comm.allreduce(value)) for key, value in counts.items()}
    return [dict(segment="run", ms=ms, **counts)], _host(result)


def grid_dims(spec):
    """``(nx, ny, nz)`` of a ``laplace3d:NX[,NY,NZ]`` spec, None for another graph."""
    name, _, dims = spec.partition(":")
    if name != "laplace3d":
        return None
    dims = [int(d) for d in dims.split(",")]
    return tuple(dims) if len(dims) == 3 else (dims[0],) * 3


def grid_rows(dims, lo, hi, xp, index_dtype, chunk=1 << 24):
    """CSR arrays ``(indptr, indices)`` of rows ``lo`` to ``hi`` of the graph of
    ``gbgraph.generators.laplace3d(*dims)`` (its numbering: point (x, y, z) is row
    x + y·nx + z·nx·ny, adjacent to its six grid neighbours), without the diagonal, in
    ``xp``'s memory: row offsets from 0 (int64), global columns (``index_dtype``), sorted.
    Made ``chunk`` rows at a time, with no sort: the neighbours' offsets are increasing."""
    nx, ny, nz = dims
    plane = nx * ny
    offsets = xp.asarray([-plane, -nx, -1, 1, nx, plane], dtype=xp.int64)

    def rows(a, b):
        r = xp.arange(a, b, dtype=xp.int64)
        x, y, z = r % nx, (r // nx) % ny, r // plane
        return r, xp.stack((z > 0, y > 0, x > 0, x < nx - 1, y < ny - 1, z < nz - 1), axis=1)

    indptr = xp.zeros(hi - lo + 1, dtype=xp.int64)
    for a in range(lo, hi, chunk):
        b = min(a + chunk, hi)
        indptr[a - lo + 1:b - lo + 1] = rows(a, b)[1].sum(axis=1)
    xp.cumsum(indptr, out=indptr)
    indices = xp.empty(int(indptr[-1]), dtype=index_dtype)
    for a in range(lo, hi, chunk):
        b = min(a + chunk, hi)
        r, valid = rows(a, b)
        indices[int(indptr[a - lo]):int(indptr[b - lo])] = (r[:, None] + offsets)[valid]
    return indptr, indices


def grid_graph(dims, comm=None):
    """The graph of Laplace3D on grid ``dims``: on the GPU, whole (``comm`` None or of one
    rank), else each rank's rows in host memory (a DistributedGraph), made there."""
    from gbgraph.backends.mpi.layout import bounds
    from gbgraph.distributed import DistributedGraph
    from gbgraph.graph import Graph

    n = int(np.prod(dims))
    if comm is None or comm.Get_size() == 1:
        import cupy

        index = np.int32 if 6 * n < 2**31 else np.int64  # 6 n: the most entries
        indptr, indices = grid_rows(dims, 0, n, cupy, index)
        return Graph(n, indptr, indices, None, "cupyx")
    lo, hi = (int(b) for b in bounds(n, comm.Get_size())[comm.Get_rank():comm.Get_rank() + 2])
    indptr, indices = grid_rows(dims, lo, hi, np, np.int64)
    return DistributedGraph(n, indptr, indices, None, comm)


def grid_mis2_valid(dims, vertices):
    """Whether ``vertices`` is a maximal distance-2 independent set of the grid graph of
    ``dims``, checked on the GPU by shifts of the grid, independently of the backends: each
    closed neighbourhood holds at most one vertex of the set (no two within distance 2),
    and each vertex has one within distance 2 (a neighbour or itself whose closed
    neighbourhood holds one)."""
    import cupy

    nx, ny, nz = dims
    member = cupy.zeros(nx * ny * nz, cupy.int32)
    member[cupy.asarray(vertices)] = 1

    def closed_sums(a):  # a(v) summed over v and its grid neighbours
        a = a.reshape(nz, ny, nx)
        out = a.copy()
        for axis in range(3):
            head, tail = [slice(None)] * 3, [slice(None)] * 3
            head[axis], tail[axis] = slice(1, None), slice(None, -1)
            out[tuple(head)] += a[tuple(tail)]
            out[tuple(tail)] += a[tuple(head)]
        return out.ravel()

    held = closed_sums(member)
    return bool((held <= 1).all()) and bool((closed_sums((held > 0).astype(cupy.int32)) > 0).all())


def layered_backend(comm):
    """``mpi-cupy`` with its layer on one rank too (a subclass keeps it): what one rank cost
    before :mod:`gbgraph.backends.mpi.alone`."""
    from gbgraph.backends.mpi import MPIBackend

    class Layered(MPIBackend):
        pass

    return Layered(comm, local="cupy")


def measure_gpu(args):
    """One launch with --blocks cupy: every rank runs the algorithms on ``mpi-cupy``, each
    run timed whole; rank 0 also runs the ``cupy`` backend on the whole graph (the result
    every rank's must equal, and the one-GPU time) and, on one rank, the layered backend."""
    from mpi4py import MPI

    from gbgraph.backends.mpi import MPIBackend
    from gbgraph.backends.mpi.nccl import DeviceExchange

    comm = MPI.COMM_WORLD
    rank, ranks = comm.Get_rank(), comm.Get_size()
    be = MPIBackend(comm, local="cupy")
    layered = layered_backend(comm) if ranks == 1 else None
    by_nccl = isinstance(be.device, DeviceExchange)
    host = MPIBackend(comm, local="cupy", nccl=False) if ranks > 1 and args.host_replies and by_nccl else None
    rows = []
    specs = [(spec, tuple(ALGORITHMS)) for spec in (GENERATED if args.graphs is None else args.graphs)] + \
        [(spec, ("mis2",)) for spec in args.big or ()]
    for spec, names in specs:
        dims = grid_dims(spec)
        start = time.perf_counter()
        G = grid_graph(dims, comm) if dims else gg.as_graph(matrix(spec), weights=False)
        fits = G.nnz + G.n < 2**31  # a cupy matrix's entries on one GPU (docs/distributed.md)
        whole = G if ranks == 1 or not dims else (grid_graph(dims) if rank == 0 and fits else None)
        be.adjacency(G, closed=True)  # the matrices, built before the timed runs
        if names != ("mis2",):
            be.adjacency(G)
        built = comm.allreduce(time.perf_counter() - start, op=MPI.MAX)
        for name in names:
            segments, result = whole_runs(be, G, name, args.repeat)
            single = expected = before = through_host = None
            if rank == 0 and fits:
                single, expected = one_gpu(whole if whole is not None else G, name, args.repeat)
            if layered is not None and dims and max(dims) <= args.layered:  # from host memory, as it reads a graph
                before = whole_runs(layered, G.on_device_of(np), name, args.repeat)[0][0]["ms"]
            if host is not None and names != ("mis2",):  # the ghost replies through the host, beside NCCL's
                through_host = whole_runs(host, G, name, args.repeat)[0][0]["ms"]
            same = bool(comm.bcast(np.array_equal(result, expected) if rank == 0 and fits else None))
            valid = None
            if name == "mis2" and dims:
                valid = bool(comm.bcast(grid_mis2_valid(dims, result) if rank == 0 else None))
            if rank == 0:
                ms = segments[0]["ms"]
                print(f"{graph_name(spec)} (n = {G.n:,}, {G.nnz:,} stored entries), {name} on {ranks} ranks (mpi-cupy): "
                      f"{ms:.2f} ms, one GPU (cupy) "
                      + (f"{single:.2f} ms" if fits else "not run (more than 2³¹ entries with the diagonal)")
                      + ("" if before is None else f", layered {before:.2f} ms")
                      + ("" if through_host is None else f", replies through the host {through_host:.2f} ms")
                      + (", ghosts by NCCL" if by_nccl else "")
                      + f"; equal to cupy: {same if fits else '-'}"
                      + ("" if valid is None else f", a maximal distance-2 independent set (grid check): {valid}")
                      + f"; {segments[0]['bytes']:,} bytes, {segments[0]['collectives']:,} "
                        f"collectives; graph made and matrices built in {built:.1f} s", flush=True)
            rows += [dict(graph=graph_name(spec), n=G.n, nnz=G.nnz, ranks=ranks, algorithm=name, blocks="cupy",
                          equal=same if fits else None, valid=valid, one_gpu_ms=single, layered_ms=before, host_replies_ms=through_host,
                          nccl=by_nccl, build_s=built, **s) for s in segments]
        del G, whole
        _free_device_memory()
    if args.json and rank == 0:
        from common import describe_gpu

        write_results(args.json, describe_machine(ranks=ranks, blocks="cupy", gpu=describe_gpu(),
                                                  mpi=MPI.Get_library_version().split("\n")[0]), rows, ceilings=[])


def run(be, G, name, repeat):
    """The segments of the fastest of ``repeat`` runs, their counts summed over the ranks."""
    best = None
    for _ in range(repeat):
        be.start()
        result = ALGORITHMS[name](G, be)
        be.close(None)
        total = sum(s["ms"] for s in be.segments)
        if best is None or total < best[0]:
            best = (total, be.segments, result)
    segments = best[1]
    for key in ("bytes", "messages", "collectives"):
        counts = np.array(be.comm.allreduce(np.array([s[key] for s in segments])))
        for s, c in zip(segments, counts):
            s[key] = int(c)
    return segments, best[2]


def ceiling(be, G, products=5):
    """What the machine allows product-bound code at this rank count: each rank's local
    product over its block of MIS-2's matrix (``plus_second``, no exchange), timed with the
    rank running alone, rank after rank, then with every rank at once. Returns ms a
    product: the median rank alone and the slowest rank together; their ratio is the
    parallel efficiency a code made only of such products, exchanging nothing, would reach
    (1.0 where the ranks do not slow each other down: memory bandwidth, clock)."""
    comm, local = be.comm, be.local
    A = be.adjacency(G, closed=True).local
    x = local.full(A.ncols, 1, "int64")

    def timed():
        start = time.perf_counter()
        for _ in range(products):
            local.mxv("plus_second", A, x)  # w = A_r ⊕plus.second x
        return (time.perf_counter() - start) * 1e3 / products

    timed()
    alone = None
    for r in range(comm.Get_size()):
        comm.Barrier()
        if comm.Get_rank() == r:
            alone = timed()
        comm.Barrier()
    together = timed()
    return float(np.median(comm.allgather(alone))), max(comm.allgather(together))


def ghost_columns(be, G):
    """The partition's boundary: the ghost columns of the ranks' blocks of the graph's
    matrix (their column maps), summed over the ranks."""
    return be.comm.allreduce(int(be.adjacency(G).columns.ghosts.size))


def measure(args):
    """One launch: every rank runs the algorithms; rank 0 prints and writes the JSON."""
    if args.blocks == "cupy":
        return measure_gpu(args)
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    be = recording_backend(comm, args.blocks)
    rows, ceilings = [], []
    if args.threads is not None:
        gg.backends.set_threads(args.threads)
    for spec in args.graphs or GENERATED:  # --data is not read: the shared graphs are small for MPI
        G = gg.as_graph(matrix(spec), weights=False)
        for closed in (True, False):  # the matrices, built before the timed runs
            be.adjacency(G, closed=closed)
        ghosts = ghost_columns(be, G)
        for name in ALGORITHMS:
            segments, result = run(be, G, name, args.repeat)
            same = bool(np.array_equal(result, ALGORITHMS[name](G, "suitesparse")))
            comm.Barrier()
            if comm.Get_rank() == 0:
                print(f"\n{graph_name(spec)} (n = {G.n:,}), {name} on {comm.Get_size()} ranks ({args.blocks} blocks), "
                      f"{ghosts:,} ghost columns, equal to suitesparse: {same}")
                print(f"{'segment':>22} {'ms':>9} {'bytes':>13} {'messages':>9} {'collectives':>11}")
                for s in segments:
                    print(f"{s['segment']:>22} {s['ms']:9.2f} {s['bytes']:13,} {s['messages']:9,} {s['collectives']:11,}")
                print(f"{'total':>22} {sum(s['ms'] for s in segments):9.2f} {sum(s['bytes'] for s in segments):13,}",
                      flush=True)
            rows += [dict(graph=graph_name(spec), n=G.n, ranks=comm.Get_size(), ghosts=ghosts, algorithm=name,
                          blocks=args.blocks, equal=same, one_gpu_ms=None, **s) for s in segments]
        alone, together = ceiling(be, G)
        ceilings.append(dict(graph=graph_name(spec), ranks=comm.Get_size(), alone_ms=alone, together_ms=together))
        if comm.Get_rank() == 0:
            print(f"local products (no exchange), ms each: a rank alone {alone:.2f}, every rank at once "
                  f"{together:.2f} (the slowest): the machine's ceiling {alone / together:.2f}", flush=True)
    if args.json and comm.Get_rank() == 0:
        write_results(args.json, describe_machine(ranks=comm.Get_size(), blocks=args.blocks,
                                                  mpi=MPI.Get_library_version().split("\n")[0]), rows,
                      ceilings=ceilings)


def drive(args):
    """Launch :func:`measure` under ``mpiexec -bind-to core -n P`` for each P of --ranks (one
    GraphBLAS thread per rank unless --threads says otherwise), then print the scaling tables: strong
    over --graphs (efficiency T1 P1 / (P TP), P1 the fewest ranks), weak with Laplace3D of
    about --weak³ vertices per rank (T1 / TP), and each MIS-2 round's bytes beside the
    partition's ghost columns."""
    strong = list(args.graphs or GENERATED)
    rows, ceilings = [], {}
    for ranks in args.ranks:
        weak = weak_spec(args, ranks)
        results = launch(args, ranks, strong + ([weak] if weak and weak not in strong else []),
                         ["--host-replies"] if args.host_replies else [])
        rows += [dict(row, strong=row["graph"] in strong, weak=row["graph"] == weak) for row in results["rows"]]
        ceilings.update({(c["graph"], c["ranks"]): c["alone_ms"] / c["together_ms"] for c in results["ceilings"]})
    base = min(args.ranks)
    summary = []
    for scaling in ("strong", "weak"):
        totals = {}
        for row in rows:
            if row[scaling]:
                key = (row["graph"] if scaling == "strong" else "weak", row["algorithm"], row["ranks"])
                totals[key] = totals.get(key, 0.0) + row["ms"]
        for (graph, algorithm, ranks), ms in sorted(totals.items()):
            one = totals[(graph, algorithm, base)]
            efficiency = one * base / (ranks * ms) if scaling == "strong" else one / ms
            summary.append(dict(scaling=scaling, graph=graph, algorithm=algorithm, ranks=ranks, ms=ms,
                                efficiency=efficiency, ceiling=ceilings.get((graph, ranks))))
    print(f"\n{'scaling':>8} {'graph':>15} {'algorithm':>10} {'ranks':>6} {'ms':>10} {'efficiency':>11} "
          f"{'ceiling':>8}")
    for t in summary:
        print(f"{t['scaling']:>8} {t['graph']:>15} {t['algorithm']:>10} {t['ranks']:>6} {t['ms']:10.1f} "
              f"{t['efficiency']:11.2f} " + ("" if t["ceiling"] is None else f"{t['ceiling']:8.2f}"))
    targets = []
    if args.blocks == "cupy":  # the peer: one GPU, no MPI, timed by rank 0 of each launch
        peer = {(r["graph"], r["algorithm"], r["ranks"]): r for r in rows}
        print(f"\n{'graph':>22} {'algorithm':>10} {'ranks':>6} {'mpi-cupy ms':>12} {'one GPU ms':>11} "
              f"{'layered ms':>11} {'host replies':>13} {'equal':>6}")
        for (graph, algorithm, ranks), r in sorted(peer.items(), key=lambda item: (item[0][2], item[0][0], item[0][1])):
            layered = "" if r.get("layered_ms") is None else f"{r['layered_ms']:11.2f}"
            through_host = "" if r.get("host_replies_ms") is None else f"{r['host_replies_ms']:13.2f}"
            single = "" if r["one_gpu_ms"] is None else f"{r['one_gpu_ms']:11.2f}"
            print(f"{graph:>22} {algorithm:>10} {ranks:>6} {r['ms']:12.2f} {single:>11} {layered:>11} "
                  f"{through_host:>13} {str(r['equal']):>6}")
        targets = gpu_targets(args, rows, summary)
        print()
        for t in targets:
            print(f"target: {t['target']}: measured {t['measured']} (goal {t['goal']}): "
                  f"{'met' if t['met'] else 'NOT met'}")
    else:  # runs cut at their rounds
        print(f"\n{'graph':>15} {'ranks':>6} {'ghosts':>10} {'MIS-2 bytes/round':>18} {'bytes/ghost':>12}")
    for graph, ranks in sorted({(r["graph"], r["ranks"]) for r in rows if r["ranks"] > 1 and args.blocks != "cupy"}):
        rounds = [r for r in rows if (r["graph"], r["ranks"], r["algorithm"]) == (graph, ranks, "mis2")
                  and r["segment"].startswith("round")]
        per_round = sum(r["bytes"] for r in rounds) / len(rounds)
        print(f"{graph:>15} {ranks:>6} {rounds[0]['ghosts']:10,} {per_round:18,.0f} {per_round / rounds[0]['ghosts']:12.1f}")
    machine = describe_machine(ranks=args.ranks, threads_per_rank=args.threads or 1, bind=args.bind, blocks=args.blocks)
    if args.json:
        write_results(args.json, machine, rows, summary=summary, targets=targets)
    if args.big and args.blocks == "cupy":  # last, in a launch of its own: the tables above are out already
        results = launch(args, max(args.ranks), [], ["--big", *args.big])
        rows += [dict(row, strong=False, weak=False) for row in results["rows"]]
        new = [t for t in gpu_targets(args, rows, summary) if t not in targets]
        for t in new:
            print(f"target: {t['target']}: measured {t['measured']} (goal {t['goal']}): "
                  f"{'met' if t['met'] else 'NOT met'}")
        if args.json:
            write_results(args.json, machine, rows, summary=summary, targets=targets + new)


def launch(args, ranks, specs, extra):
    """:func:`measure` of ``specs`` under ``mpiexec -n ranks`` (and --bind), ``extra`` its
    other options; returns its JSON results."""
    mpiexec = pathlib.Path(sys.executable).parent / "mpiexec"
    mpiexec = str(mpiexec) if mpiexec.exists() else "mpiexec"
    binding = [] if args.bind == "none" else ["-bind-to", args.bind]
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, f"{ranks}.json")
        subprocess.run([mpiexec, *binding, "-n", str(ranks), sys.executable, __file__, "--graphs", *specs, *extra,
                        "--repeat", str(args.repeat), "--threads", str(args.threads or 1), "--blocks", args.blocks,
                        "--layered", str(args.layered), "--json", out],
                       check=True)
        return json.loads(pathlib.Path(out).read_text())


def weak_spec(args, ranks):
    """The weak-scaling graph at ``ranks`` ranks: Laplace3D of about --weak³ vertices per
    rank (CPU blocks: a cube of that many), or --weak³ exactly (GPU blocks: the grid
    stretched along z, so that each rank's rows are a --weak³ cube); None without --weak."""
    if not args.weak:
        return None
    if args.blocks == "cupy":
        return f"laplace3d:{args.weak},{args.weak},{args.weak * ranks}"
    return f"laplace3d:{round(args.weak * ranks ** (1 / 3))}"


def gpu_targets(args, rows, summary):
    """Issue 41's targets for two GPUs beside the measured numbers: mpi-cupy on one rank
    against the cupy backend (MIS-2 and aggregation on every strong graph up to 200³), weak
    scaling from one rank to the most, strong scaling on --strong-target and the edges of
    the --big runs across the most ranks (each needs those graphs and rank counts measured)."""
    targets = []
    top = max(args.ranks)
    for r in rows:
        if r["ranks"] == 1 and r["algorithm"] in ("mis2", "aggregate") and not r["graph"].count(",") \
                and grid_dims(r["graph"]) and max(grid_dims(r["graph"])) <= 200:
            ratio = r["ms"] / r["one_gpu_ms"]
            targets.append(dict(target=f"mpi-cupy on 1 rank / cupy, {r['algorithm']} {r['graph']}",
                                measured=f"{ratio:.2f} ({r['ms']:.2f} / {r['one_gpu_ms']:.2f} ms)", goal="<= 1.2",
                                met=bool(ratio <= 1.2 and r["equal"])))
    for t in summary:
        if t["ranks"] != top or top == 1 or t["algorithm"] not in ("mis2", "aggregate"):
            continue
        if t["scaling"] == "weak":
            targets.append(dict(target=f"weak scaling, {args.weak}³ per GPU, {t['algorithm']}, {top} GPUs (T1 / T{top})",
                                measured=f"{t['efficiency']:.2f} ({t['ms']:.1f} ms)", goal=">= 0.8",
                                met=bool(t["efficiency"] >= 0.8)))
        elif t["graph"] == args.strong_target:
            speedup = t["efficiency"] * top
            targets.append(dict(target=f"strong scaling, {t['graph']}, {t['algorithm']}, {top} GPUs against 1 "
                                       f"(T1 / T{top})",
                                measured=f"{speedup:.2f}x ({t['ms']:.1f} ms)", goal=">= 1.6x", met=bool(speedup >= 1.6)))
    for r in rows:
        if r["ranks"] == top and r["graph"] in (args.big or ()):
            targets.append(dict(target=f"a run across {top} GPUs: {r['graph']}, {r['algorithm']}, "
                                       f"{r['nnz']:,} stored entries ({r['nnz'] // 2:,} undirected edges)",
                                measured=f"{r['nnz']:.3g} entries in {r['ms']:.1f} ms, equal to cupy: {r['equal']}, "
                                         f"valid (grid check): {r['valid']}",
                                goal=">= 2e9", met=bool(r["nnz"] >= 2e9 and r["equal"] is not False and r["valid"])))
    return targets


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser, GENERATED, repeat=3)
    parser.add_argument("--ranks", type=int, nargs="+",
                        help="launch the measurement under mpiexec -n P for each P and print the scaling tables")
    parser.add_argument("--bind", default="core", choices=("core", "hwthread", "none"),
                        help="with --ranks: pin each rank to a core (MPICH's -bind-to), so that ranks neither "
                             "share a core nor migrate (default: core)")
    parser.add_argument("--blocks", default="suitesparse", choices=("suitesparse", "cupy"),
                        help="what computes on each rank's blocks: suitesparse on the CPU (default), or cupy on a "
                             "GPU of the rank's node (backend mpi-cupy)")
    parser.add_argument("--weak", type=int, metavar="SIDE",
                        help="with --ranks: weak scaling too, Laplace3D with about SIDE³ vertices per rank")
    parser.add_argument("--big", nargs="+", metavar="GRAPH",
                        help="--blocks cupy: graphs run with MIS-2 only (with --ranks: at the most ranks only)")
    parser.add_argument("--layered", type=int, default=200, metavar="SIDE",
                        help="--blocks cupy, one rank: also time the layered backend on Laplace3D up to SIDE per "
                             "side (default 200)")
    parser.add_argument("--host-replies", action="store_true",
                        help="--blocks cupy, several ranks: also time each run with the ghost replies through the "
                             "host (nccl=False) where NCCL carries them")
    parser.add_argument("--strong-target", default="laplace3d:400", metavar="GRAPH",
                        help="--blocks cupy: the graph of the strong-scaling target (default laplace3d:400)")
    args = parser.parse_args(argv)
    if args.ranks:
        drive(args)
    else:
        measure(args)


if __name__ == "__main__":
    main()

"""Capacity on one GPU: how large a graph MIS-2, aggregation, coloring and the HEC hierarchy
take on the cupy backend, with their time and device bytes per vertex and per edge.

Graphs: ``laplace3d:N`` (built on the host, 7-point stencil, diagonal stored) and
``rmat:SCALE[,EDGE_FACTOR]`` (Graph500's R-MAT, built on the GPU by
``gg.generators.rmat(device=True)``). Each is handed over as a cupyx CSR of float32 values
with int32 indices (what cupyx holds: below 2**31 stored entries), as a user would:
``G = gg.as_graph(A, weights=False)``, then ``gg.mis2(G)``, ``gg.aggregate(G)``,
``gg.color(G)`` and ``gg.coarsen(G, "hec")``, each on a fresh Graph so that the derived
matrices an algorithm caches count for it.

Time: the minimum of --repeat runs after a first (cold) one, synchronised, perf_counter.
Memory: the high-water mark of the bytes the CuPy pool hands out during the cold run (a
MemoryHook reads ``used_bytes`` at every allocation), including the input CSR and the Graph:
what must fit. "beyond" is the same less the input CSR. Beside them, the yardstick: cuSPARSE's
SpMV ``A @ x`` on the input.

--predict scales, per algorithm, each family's largest measured graph to the largest one that
fits --margin of the device's free memory at the start (and of each --memory GiB): Laplace3D by
its vertices, R-MAT by its stored entries (the fraction of drawn edges lost to self loops and
duplicates extrapolated geometrically from the two largest scales), within cupyx's int32
offsets. --verify then builds the predicted largest graphs for the
device's free memory and runs on each the algorithms predicted to fit it (whatever
--deadline says). Running out of memory is caught and reported with the gbgraph frames where
it happened.

    python benchmarks/bench_capacity.py --graphs laplace3d:100 rmat:18 --repeat 3
    python benchmarks/bench_capacity.py --graphs laplace3d:674 rmat:26@mis2+aggregate --repeat 0
    python benchmarks/bench_capacity.py --graphs laplace3d:200 laplace3d:300 rmat:20 rmat:22 \\
        --predict --memory 79 139 --verify --json capacity.json
"""

import argparse
import gc
import math
import time
import traceback

import numpy as np

import gbgraph as gg
from common import describe_gpu, describe_machine, write_results

ALGORITHMS = {"mis2": lambda G: gg.mis2(G), "aggregate": lambda G: gg.aggregate(G),
              "color": lambda G: gg.color(G), "hec": lambda G: gg.coarsen(G, "hec")}
INT32_OFFSETS = 2**31 - 1  # cupyx's CSR: int32 row pointers
GIB = 2**30


def peak_hook(pool):
    """A CuPy MemoryHook whose ``peak`` is the largest ``used_bytes`` of ``pool`` seen after an
    allocation, while it is entered."""
    import cupy

    class Peak(cupy.cuda.MemoryHook):
        name = "capacity_peak"

        def __init__(self):
            self.peak = pool.used_bytes()

        def malloc_postprocess(self, **kwargs):
            self.peak = max(self.peak, pool.used_bytes())

    return Peak()


def release(pool):
    """Give the pool's free blocks back, after collecting the cycles that keep arrays alive
    (an exception's frames; graphs and the matrices cached on them)."""
    gc.collect()
    pool.free_all_blocks()


def synchronize():
    import cupy

    cupy.cuda.Device().synchronize()


def seconds(fn):
    synchronize()
    start = time.perf_counter()
    result = fn()
    synchronize()
    return time.perf_counter() - start, result


def where_it_failed(error):
    """The innermost frames of gbgraph (and cupy under it) of an exception's traceback."""
    frames = traceback.extract_tb(error.__traceback__)
    ours = [f for f in frames if "/gbgraph/" in f.filename][-3:]
    ours += [f for f in frames if "cupy" in f.filename and "/gbgraph/" not in f.filename][-1:]
    return [f"{f.filename.split('site-packages/')[-1].split('/gbgraph/')[-1]}:{f.lineno} {f.name}" for f in ours]


def failure(error):
    kind = "out of memory" if isinstance(error, MemoryError) else type(error).__name__
    return {"failed": kind, "message": str(error)[:300], "where": where_it_failed(error)}


def parse(spec):
    """(graph, algorithms) of a spec ``graph[@algorithm+algorithm...]``; all by default."""
    graph, _, names = spec.partition("@")
    names = names.split("+") if names else list(ALGORITHMS)
    unknown = [a for a in names if a not in ALGORITHMS]
    if unknown:
        raise ValueError(f"unknown algorithms {unknown} in {spec!r}; choose from {list(ALGORITHMS)}")
    return graph, names


def build(spec):
    """(cupyx CSR of float32 values, seconds to build it, pool peak while building)."""
    import cupy
    import cupyx.scipy.sparse as csp

    pool = cupy.get_default_memory_pool()
    family, _, args = spec.partition(":")
    sizes = [int(a) for a in args.split(",")]
    start = time.perf_counter()
    hook = peak_hook(pool)
    with hook:
        if family == "laplace3d":
            N = sizes[0]
            if 7 * N**3 - 6 * N**2 > INT32_OFFSETS:
                raise ValueError(f"laplace3d:{N} has more than 2**31 - 1 stored entries: cupyx's int32 offsets")
            H = gg.generators.laplace3d(N)
            parts = [cupy.asarray(H.data.astype(np.float32)), cupy.asarray(H.indices.astype(np.int32)),
                     cupy.asarray(H.indptr.astype(np.int32))]
            del H
            A = csp.csr_matrix(tuple(parts), shape=(N**3, N**3))
        elif family == "rmat":
            A = gg.generators.rmat(*sizes, dtype=np.float32, device=True)
        else:
            raise ValueError(f"unknown graph family {family!r}: laplace3d:N or rmat:SCALE[,EDGE_FACTOR]")
        synchronize()
    return A, time.perf_counter() - start, hook.peak


def fresh(name, A):
    """A new Graph of ``A`` and the algorithm's result on it: the graph's caches start empty."""
    G = gg.as_graph(A, weights=False)
    return G, ALGORITHMS[name](G)


def measure_algorithm(A, name, repeat, slow):
    import cupy

    pool = cupy.get_default_memory_pool()
    input_bytes = pool.used_bytes()
    G, row = None, {}
    try:
        release(pool)
        hook = peak_hook(pool)
        with hook:
            cold, (G, result) = seconds(lambda: fresh(name, A))
        row = {"cold_ms": 1e3 * cold, "peak_bytes": hook.peak, "beyond_input_bytes": hook.peak - input_bytes,
               **summary(name, result)}
        del result  # the timed runs hold the graph's caches, as the first did, and no earlier result
        runs = repeat if cold < slow else 0  # a run this slow is timed once: its first-use costs are small beside it
        row["ms"] = 1e3 * min([seconds(lambda: ALGORITHMS[name](G))[0] for _ in range(runs)], default=cold)
        row["timed_runs"] = runs
    except Exception as error:  # noqa: BLE001 (out of memory, or a failure to report beside the others)
        row = failure(error) | {"in": "timed runs" if row else "first run", **row}
    del G
    release(pool)
    return row


def summary(name, result):
    if name == "mis2":
        return {"size": int(result.vertices.size), "iterations": result.iterations}
    if name == "aggregate":
        return {"aggregates": int(result.n_aggregates)}
    if name == "color":
        return {"colors": int(result.n_colors), "iterations": result.iterations}
    return {"levels": len(result), "coarsest": int(result[-1].graph.n)}


def bench(spec, repeat, slow, rows, save):
    """Measure ``spec``; its row is appended to ``rows`` first and ``save()`` called after every
    algorithm, so that a run stopped midway keeps what it measured."""
    import cupy

    pool = cupy.get_default_memory_pool()
    release(pool)
    spec, algorithms = parse(spec)
    row = {"graph": spec}
    rows.append(row)
    try:
        A, build_s, build_peak = build(spec)
    except Exception as error:  # noqa: BLE001
        row.update(failure(error))
        release(pool)
        print_graph(row)
        return row
    release(pool)
    n = A.shape[0]
    input_bytes = pool.used_bytes()
    row.update({"n": n, "input_nnz": int(A.nnz), "build_s": build_s, "build_peak_bytes": build_peak,
                "input_bytes": input_bytes})
    try:
        first, G = seconds(lambda: gg.as_graph(A, weights=False))
        row["nnz"] = G.nnz  # the graph's: off-diagonal entries, both directions
        row["graph_bytes"] = pool.used_bytes() - input_bytes
        del G
        row["as_graph_ms"] = 1e3 * min([seconds(lambda: gg.as_graph(A, weights=False))[0] for _ in range(repeat)],
                                       default=first)
        x = cupy.ones(n, cupy.float32)
        A @ x
        row["spmv_ms"] = 1e3 * min(seconds(lambda: A @ x)[0] for _ in range(max(repeat, 3)))
        del x
    except Exception as error:  # noqa: BLE001
        row.update(failure(error))
    release(pool)
    print_graph(row)
    for name in algorithms:
        row[name] = measure_algorithm(A, name, repeat, slow)
        print_algorithm(row, name)
        save()
    del A
    release(pool)
    return row


def print_graph(row):
    if "n" not in row:
        print(f"{row['graph']:<16} {row['failed']}: {row['message']}  at {' <- '.join(reversed(row['where']))}",
              flush=True)
        return
    spmv = f"{row['spmv_ms']:.2f} ms" if "spmv_ms" in row else "-"
    print(f"{row['graph']:<16} n {row['n']:,}  nnz {row.get('nnz', row['input_nnz']):,}  input {row['input_bytes'] / GIB:.2f} GiB"
          f"  built in {row['build_s']:.1f} s (GPU peak {row['build_peak_bytes'] / GIB:.1f} GiB)  SpMV {spmv}", flush=True)


def print_algorithm(row, name):
    r = row[name]
    if "failed" in r:
        print(f"  {name:<10} {r['failed']} in its {r['in']}: {r['message'][:120]}  at {' <- '.join(reversed(r['where']))}",
              flush=True)
        return
    n, nnz = row["n"], row.get("nnz", row["input_nnz"])
    extra = {k: v for k, v in r.items() if k in ("size", "iterations", "aggregates", "colors", "levels")}
    print(f"  {name:<10}{r['ms']:>10.1f} ms (cold {r['cold_ms']:.0f})  peak {r['peak_bytes'] / GIB:6.2f} GiB"
          f"  {r['peak_bytes'] / n:7.0f} B/vertex {r['peak_bytes'] / max(nnz, 1):6.1f} B/edge"
          f"  beyond input {r['beyond_input_bytes'] / n:6.0f} B/vertex  {extra}", flush=True)


def family_of(spec):
    return spec.partition(":")[0]


def predict(rows, memory):
    """Per family and algorithm, the largest graph whose run (and construction) fits
    ``memory`` bytes, scaled from the largest graph of the family it ran on."""
    out = {}
    for family in ("laplace3d", "rmat"):
        for name in ALGORITHMS:
            done = sorted((r for r in rows if family_of(r["graph"]) == family and "peak_bytes" in r.get(name, {})),
                          key=lambda r: r["n"])
            graphs = sorted((r for r in rows if family_of(r["graph"]) == family and "nnz" in r), key=lambda r: r["n"])
            if done:
                out.setdefault(family, {})[name] = largest(family, done, graphs, name, memory)
    return out


def rmat_arguments(graph):
    """(scale, edge factor) of an ``rmat:SCALE[,EDGE_FACTOR]`` spec."""
    sizes = [int(a) for a in graph.partition(":")[2].split(",")]
    return sizes[0], sizes[1] if len(sizes) > 1 else 16


def largest(family, done, graphs, name, memory):
    """The prediction of :func:`predict` from ``done`` (the family's graphs ``name`` ran on)
    and ``graphs`` (all the family's, for the edges R-MAT keeps)."""
    last = done[-1]
    need = max(last[name]["peak_bytes"], last["build_peak_bytes"])
    if family == "laplace3d":
        N = round(last["n"] ** (1 / 3))
        by_memory = math.floor((memory * last["n"] / need) ** (1 / 3))
        by_offsets = max(M for M in range(N, 2000) if 7 * M**3 - 6 * M**2 <= INT32_OFFSETS)
        size = min(by_memory, by_offsets)
        return {"spec": f"laplace3d:{size}", "n": size**3, "nnz": 6 * size**3 - 6 * size**2,
                "bound": "memory" if by_memory <= by_offsets else "int32 offsets",
                "predicted_peak_bytes": need / last["n"] * size**3}
    scale, edge_factor = rmat_arguments(last["graph"])
    # the fraction of drawn edges lost to self loops and duplicates shrinks geometrically with the scale
    graphs = [r for r in graphs if rmat_arguments(r["graph"])[1] == edge_factor]
    lost = {round(math.log2(r["n"])): 1 - r["nnz"] / (2 * edge_factor * r["n"]) for r in graphs}
    (s1, l1), (s2, l2) = sorted(lost.items())[-2:] if len(lost) > 1 else (sorted(lost.items()) * 2)[:2]
    shrink = (l2 / l1) ** (1 / (s2 - s1)) if s2 > s1 else 1.0
    best, bound = (scale, last["nnz"]), "scale 31"
    for s in range(scale + 1, 32):
        nnz = 2 * edge_factor * 2**s * (1 - l2 * shrink ** (s - s2))
        if nnz > INT32_OFFSETS or need / last["nnz"] * nnz > memory:
            bound = "int32 offsets" if nnz > INT32_OFFSETS else "memory"
            break
        best = (s, nnz)
    return {"spec": f"rmat:{best[0]},{edge_factor}", "n": 2**best[0], "nnz": best[1], "bound": bound,
            "predicted_peak_bytes": need / last["nnz"] * best[1]}


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--graphs", nargs="*", default=["laplace3d:100", "laplace3d:200", "rmat:18", "rmat:20"],
                        help="laplace3d:N and rmat:SCALE[,EDGE_FACTOR] specs, smallest first within a family, "
                             "each with @ALGORITHM+ALGORITHM... to run only those (default: all)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="timed runs after the cold one (minimum; 0: the cold run's time), default 3")
    parser.add_argument("--slow", type=float, default=30.0,
                        help="seconds above which a cold run is not repeated (its time is the result), default 30")
    parser.add_argument("--predict", action="store_true", help="extrapolate the largest graphs that fit --memory")
    parser.add_argument("--memory", nargs="*", type=float, default=[],
                        help="GiB to predict for, besides the device's free memory at the start")
    parser.add_argument("--margin", type=float, default=0.95,
                        help="fraction of the memory a prediction may fill (fragmentation), default 0.95")
    parser.add_argument("--verify", action="store_true",
                        help="run the predicted largest graphs for the device's free memory")
    parser.add_argument("--verify-repeat", type=int, default=1,
                        help="timed runs of the verified graphs (0: the cold run's time), default 1")
    parser.add_argument("--deadline", type=float, help="seconds after which no graph of --graphs is started")
    parser.add_argument("--json", metavar="FILE", help="write the rows, fits and predictions here (after every graph)")
    args = parser.parse_args(argv)
    import cupy

    started = time.perf_counter()
    free, total = cupy.cuda.runtime.memGetInfo()
    device = describe_gpu() | {"free_bytes_at_start": free, "total_bytes": total}
    memories = [free] + [m * GIB for m in args.memory]
    print(f"GPU: {device['name']}, {total / GIB:.1f} GiB, {free / GIB:.1f} free; ms: minimum of {args.repeat} after a "
          "cold run; peak: the CuPy pool's high-water mark of bytes in use, input CSR (float32, int32) included",
          flush=True)
    rows, results = [], {}

    def save():
        if args.json:
            write_results(args.json, describe_machine(repeat=args.repeat, device=device), rows, **results)

    def run(spec, repeat):
        bench(spec, repeat, args.slow, rows, save)
        save()

    for spec in args.graphs:
        if args.deadline is not None and time.perf_counter() - started > args.deadline:
            print(f"{spec}: not started, past --deadline {args.deadline:.0f} s", flush=True)
            continue
        run(spec, args.repeat)
    if args.predict:
        results["margin"] = args.margin
        results["predictions"] = {f"{m / GIB:.1f}": predict(rows, args.margin * m) for m in memories}
        for memory, families in results["predictions"].items():
            for family, by_algorithm in families.items():
                for name, p in by_algorithm.items():
                    print(f"largest {family} for {name} in {args.margin:.2f} x {memory} GiB: {p['spec']} (n {p['n']:,}, "
                          f"nnz {p['nnz']:,.0f}; {p['predicted_peak_bytes'] / GIB:.1f} GiB; bound: {p['bound']})",
                          flush=True)
        save()
        if args.verify:
            measured = {(r["graph"], a) for r in rows for a in ALGORITHMS if a in r}
            wanted = {}
            for by_algorithm in results["predictions"][f"{memories[0] / GIB:.1f}"].values():
                for name, p in by_algorithm.items():
                    if (p["spec"], name) not in measured:
                        wanted.setdefault(p["spec"], []).append(name)
            for spec, names in wanted.items():
                print(f"verify {spec} for {', '.join(names)}:", flush=True)
                run(f"{spec}@{'+'.join(names)}", args.verify_repeat)


if __name__ == "__main__":
    main()

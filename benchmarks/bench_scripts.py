"""Scripts written against the protocol: gbgraph.lagraph beside python-graphblas, in one run.

For each graph and each of LAGraph's basic algorithms (BFS levels and parents, FastSV
connected components, Sandia triangle count, PageRank, Bellman-Ford SSSP, k-core numbers) it
times, interleaved (median of --repeat warm calls):

* ``gbgraph.lagraph`` on the ``suitesparse`` and on the ``numba`` backend;
* the same algorithm written directly in python-graphblas (this module's ``pgb_*``
  functions: the same verbs, one python-graphblas call each), the targets' reference;
* graphblas-algorithms' own function where it has one (BFS levels: ``bfs_layers``; triangles:
  ``total_triangles``; PageRank: ``pagerank``; SSSP: ``single_source_bellman_ford_path_length``;
  it has no labelling connected components and no core numbers);
* scipy's CSR SpMV on the same matrix, the yardstick.

Every implementation's result is compared with the python-graphblas one (``agree``). The
issue's targets: ``numba`` no slower than python-graphblas on each algorithm, ``suitesparse``
within 1.2x of it. SSSP runs on the graph with symmetric random integer weights 1..20 (on
unit weights graphblas-algorithms switches to BFS).

    python benchmarks/bench_scripts.py --graphs laplace3d:60 --json benchmarks/results/scripts-cpu.json
"""

import argparse
import pathlib

import graphblas as gb
import graphblas_algorithms as ga
import numpy as np
import scipy.sparse as sp
from graphblas import Matrix, Vector, binary, monoid, replace, select, semiring

import gbgraph as gg
from gbgraph import lagraph
from gbgraph.lagraph.bfs import ALPHA, BETA1, BETA2
from common import common_arguments, describe_machine, graph_name, graph_specs, matrix, median_ms, progress, \
    write_results

GENERATED = ("laplace3d:60",)
ALGORITHMS = ("bfs", "components", "triangles", "pagerank", "sssp", "core")
BACKENDS = ["suitesparse", "numba"]  # --backends: the ones timed in this run (cupy on a GPU machine)
#: PageRank's stopping test for every implementation: Σ |r - r_previous| <= n * PAGERANK_TOL
#: (networkx's and graphblas-algorithms' ``tol``; LAGraph's is the sum itself). networkx's
#: default, 1e-6, stops a mesh after one iteration (the uniform start is nearly stationary).
PAGERANK_TOL = 1e-10


# ---- the algorithms written directly in python-graphblas, verb for verb as gbgraph.lagraph ----

def pgb_bfs(A, source):
    """Levels and parents, push/pull by LAGraph's (Beamer's) rule, as ``lagraph.bfs``."""
    n = A.nrows
    q = Vector.from_coo([source], [source], size=n)
    pi = Vector.from_scalar(-1, n)
    pi(q.S) << q
    level = Vector.from_scalar(-1, n)
    level(q.S) << 0
    visited = Vector.from_scalar(False, n)
    visited(q.S) << True
    degree = semiring.plus_pair(A @ Vector.from_scalar(0, n)).new()
    unexplored, last_nq, nq, any_pull, enabled, push = A.nvals, 0, 1, False, True, True
    for k in range(1, n):
        growing, shrinking, last_nq = nq > last_nq, nq < last_nq, nq
        if enabled and push and unexplored < n:
            enabled = False
        elif enabled and push:
            if any_pull:
                pull = growing and nq > n / BETA1
            else:
                frontier = Vector(degree.dtype, n)
                frontier(q.S) << degree
                edges = frontier.reduce(monoid.plus).new().value or 0
                unexplored -= edges
                pull = growing and edges > unexplored / ALPHA
            any_pull |= pull
            push = not pull
        elif enabled:
            push = shrinking and nq <= n / BETA2
        if push:
            q(~visited.V, replace) << semiring.ss.min_secondi(q @ A)
        else:
            q(~visited.V, replace) << semiring.ss.min_secondi(A @ q)
        nq = q.nvals
        if nq == 0:
            break
        pi(q.S) << q
        level(q.S) << k
        visited(q.S) << True
    return level, pi


def pgb_components(A):
    """FastSV, as ``lagraph.connected_components``."""
    n = A.nrows
    f = Vector.from_coo(np.arange(n), np.arange(n), size=n)
    gp, mngp = f.dup(), f.dup()
    while True:
        mngp(binary.min) << semiring.min_second(A @ gp)
        ids, parents = f.to_coo()
        P = Matrix.from_coo(ids, parents, parents, nrows=n, ncols=n)
        f(binary.min) << semiring.min_first(mngp @ P)
        f(binary.min) << binary.min(mngp | gp)
        grand = f[f.to_coo()[1]].new()
        changed = binary.ne(grand & gp).new().reduce(monoid.lor).new().value
        gp = grand
        if not changed:
            return f


def pgb_triangles(A):
    """Sandia LL, as ``lagraph.triangle_count``."""
    L = select.tril(A, -1).new()
    return semiring.plus_pair(L @ L).new(mask=L.S).reduce_scalar(monoid.plus).new().value or 0


def pgb_pagerank(A, tol, damping=0.85, max_iter=100):
    """LAGraph's PageRank in float64, as ``lagraph.pagerank``."""
    n = A.nrows
    d_out = semiring.plus_pair(A @ Vector.from_scalar(0, n)).new()
    d = binary.truediv(d_out, damping).new()
    r = Vector.from_scalar(1.0 / n, n)
    for k in range(1, max_iter + 1):
        sink = Vector(float, n)
        sink(~d_out.S) << r
        teleport = (1 - damping) / n + damping / n * (sink.reduce(monoid.plus).new().value or 0.0)
        t = r
        w = binary.truediv(t & d).new()
        r = Vector.from_scalar(teleport, n)
        r(binary.plus) << semiring.plus_second(A @ w)
        if binary.minus(t | r).new().apply(gb.unary.abs).reduce(monoid.plus).new().value <= tol:
            return r, k
    raise RuntimeError("pgb_pagerank: no convergence")


def pgb_sssp(W, source):
    """Bellman-Ford over min_plus, as ``lagraph.sssp``."""
    d = Vector.from_coo([source], [0.0], size=W.nrows)
    for _ in range(W.nrows):
        t = d.dup()
        t(binary.min) << semiring.min_plus(d @ W)
        if t.nvals == d.nvals and not binary.lt(t & d).new().reduce(monoid.lor).new().value:
            return d
        d = t
    raise ValueError("pgb_sssp: negative cycle")


def pgb_core(A):
    """Core numbers by peeling, LAGraph_KCore_All, as ``lagraph.core_number``."""
    n = A.nrows
    deg = semiring.plus_pair(A @ Vector.from_scalar(0, n)).new()
    decomp = Vector.from_scalar(0, n)
    done = Vector.from_scalar(False, n)
    level = 0
    while deg.nvals:
        level += 1
        decomp(deg.S) << level
        q = select.valuele(deg, level).new()
        while q.nvals:
            done(q.S) << True
            delta = semiring.plus_pair(q @ A).new()
            deg(~done.V, replace) << binary.minus(deg | delta)
            q = select.valuele(deg, level).new()
    return decomp


# ---- one graph ----------------------------------------------------------------------------

def _dense(v, fill, dtype):
    out = np.full(v.size, fill, dtype)
    i, x = v.to_coo()
    out[i] = x
    return out


def _weighted(A, seed=0):
    U = sp.triu(A, 1, format="coo")
    w = np.random.default_rng(seed).integers(1, 21, U.nnz).astype(np.float64)
    W = sp.coo_array((w, (U.row, U.col)), shape=A.shape)
    return sp.csr_array(W + W.T)


def implementations(G, Gw, A, W, source, tol):
    """algorithm -> {implementation: (call, result as numpy)} for one graph."""
    # graphblas-algorithms' PageRank does not converge on a boolean matrix: give it float64 ones
    gaG, gaW = ga.Graph(A.apply(gb.unary.one["FP64"]).new()), ga.Graph(W)
    out = {}

    def per_backend(fn):
        return {name: (lambda b=name: _synced(b, fn(b))) for name in BACKENDS}

    out["bfs"] = {**per_backend(lambda b: lagraph.bfs(G, source, backend=b)),
                  "python-graphblas": lambda: pgb_bfs(A, source),
                  "graphblas-algorithms": lambda: list(ga.algorithms.bfs_layers(gaG, source))}
    out["components"] = {**per_backend(lambda b: lagraph.connected_components(G, backend=b)),
                         "python-graphblas": lambda: pgb_components(A)}
    out["triangles"] = {**per_backend(lambda b: lagraph.triangle_count(G, backend=b)),
                        "python-graphblas": lambda: pgb_triangles(A),
                        "graphblas-algorithms": lambda: ga.algorithms.total_triangles(gaG)}
    out["pagerank"] = {**per_backend(lambda b: lagraph.pagerank(G, tol=G.n * tol, backend=b)),
                       "python-graphblas": lambda: pgb_pagerank(A, G.n * tol),
                       "graphblas-algorithms": lambda: ga.algorithms.pagerank(gaG, tol=tol)}
    out["sssp"] = {**per_backend(lambda b: lagraph.sssp(Gw, source, backend=b)),
                   "python-graphblas": lambda: pgb_sssp(W, source),
                   "graphblas-algorithms": lambda: ga.algorithms.single_source_bellman_ford_path_length(gaW, source)}
    out["core"] = {**per_backend(lambda b: lagraph.core_number(G, backend=b)),
                   "python-graphblas": lambda: pgb_core(A)}
    return out


def _synced(backend, result):
    """``result`` once the device has finished it (the GPU backend's kernels run ahead of the host)."""
    if backend == "cupy":
        import cupy

        cupy.cuda.Device().synchronize()
    return result


def _on_host(result):
    """A lagraph result with its CuPy arrays brought to the host."""
    if hasattr(result, "__dataclass_fields__"):
        import dataclasses

        return dataclasses.replace(result, **{f: _on_host(getattr(result, f)) for f in result.__dataclass_fields__})
    return result.get() if type(result).__module__.startswith("cupy") else result


def as_numpy(algorithm, name, result, n):
    """A comparable numpy form of each implementation's result."""
    result = _on_host(result)
    if algorithm == "bfs":
        if name == "graphblas-algorithms":
            levels = np.full(n, -1)
            for k, layer in enumerate(result):
                levels[layer.to_coo()[0]] = k
            return levels
        if name == "python-graphblas":
            return np.concatenate([_dense(result[0], -1, np.int64), _dense(result[1], -1, np.int64)])
        return np.concatenate([result.levels, result.parents])
    if algorithm == "pagerank":
        if name == "python-graphblas":
            return _dense(result[0], 0, float), result[1]
        if name == "graphblas-algorithms":
            return _dense(result, 0, float), None
        return result.ranks, result.iterations
    if algorithm in ("components", "core"):
        return _dense(result, -1, np.int64) if isinstance(result, Vector) else result
    if algorithm == "sssp":
        return _dense(result, np.inf, float) if isinstance(result, Vector) else result
    return int(result)


def agree(algorithm, name, value, reference):
    if algorithm == "bfs" and name == "graphblas-algorithms":
        return bool(np.array_equal(value, reference[:value.size]))
    if algorithm == "pagerank":
        return bool(np.allclose(value[0], reference[0], rtol=0, atol=1e-8))
    return bool(np.array_equal(value, reference))


def bench(spec, repeat, algorithms):
    A_scipy = sp.csr_array(matrix(spec))
    G = gg.as_graph(A_scipy, weights=False)
    pattern = sp.csr_array((np.ones(G.nnz, bool), np.asarray(G.indices), np.asarray(G.indptr)), shape=(G.n, G.n))
    W_scipy = _weighted(pattern)
    Gw = gg.as_graph(W_scipy)
    A = gb.io.from_scipy_sparse(pattern)
    W = gb.io.from_scipy_sparse(W_scipy)
    source = int(np.argmax(np.diff(G.indptr)))
    x = np.ones(G.n)
    row = {"graph": graph_name(spec), "n": G.n, "nnz": G.nnz, "source": source, "algorithms": {}}
    for algorithm, calls in implementations(G, Gw, A, W, source, PAGERANK_TOL).items():
        if algorithm not in algorithms:
            continue
        results = {name: as_numpy(algorithm, name, call(), G.n) for name, call in calls.items()}  # warm-up
        names = list(calls)
        times = median_ms(lambda: pattern @ x, *calls.values(), repeat=repeat)
        reference = results["python-graphblas"]
        entry = {"spmv_ms": times[0], "ms": dict(zip(names, times[1:])),
                 "agree": {name: agree(algorithm, name, results[name], reference) for name in names}}
        if algorithm == "pagerank":
            entry["iterations"] = {name: results[name][1] for name in names}
        pgb = entry["ms"]["python-graphblas"]
        entry["over_python_graphblas"] = {name: entry["ms"][name] / pgb for name in names}
        row["algorithms"][algorithm] = entry
        print_line(row, algorithm, entry)
    return row


def print_header(repeat):
    print(f"gbgraph.lagraph beside python-graphblas and graphblas-algorithms, CPU (ms, median of {repeat}); "
          f"x: time over python-graphblas'")
    print(f"{'graph':<16} {'algorithm':<11} {'SpMV':>7} " + " ".join(f"{b:>17}" for b in BACKENDS) +
          f" {'python-graphblas':>16} {'graphblas-algorithms':>26}  agree")


def print_line(row, algorithm, entry):
    ms, ratio = entry["ms"], entry["over_python_graphblas"]

    def cell(name, width):
        if name not in ms:
            return f"{'-':>{width}}"
        return f"{ms[name]:>{width - 7}.1f} ({ratio[name]:4.2f}x)"

    ok = "yes" if all(entry["agree"].values()) else "NO: " + ", ".join(k for k, v in entry["agree"].items() if not v)
    print(f"{row['graph']:<16} {algorithm:<11} {entry['spmv_ms']:>7.2f} " + " ".join(cell(b, 17) for b in BACKENDS) +
          f" {ms['python-graphblas']:>16.1f} {cell('graphblas-algorithms', 26)}  {ok}", flush=True)


def targets(rows):
    """The issue's targets per algorithm: worst ratio over the graphs."""
    out = {}
    for algorithm in ALGORITHMS:
        ratios = [r["algorithms"][algorithm]["over_python_graphblas"] for r in rows if algorithm in r["algorithms"]]
        if not ratios:
            continue
        out[algorithm] = {}
        if "numba" in BACKENDS:
            numba = max(r["numba"] for r in ratios)
            out[algorithm].update(numba_over_python_graphblas=numba, numba_no_slower=numba <= 1.0)
        if "suitesparse" in BACKENDS:
            suitesparse = max(r["suitesparse"] for r in ratios)
            out[algorithm].update(suitesparse_over_python_graphblas=suitesparse,
                                  suitesparse_within_1_2=suitesparse <= 1.2)
        large = [r["algorithms"][algorithm]["over_python_graphblas"]["cupy"] for r in rows
                 if algorithm in r["algorithms"] and "cupy" in BACKENDS and r["nnz"] >= 2_000_000]
        if large:  # the GPU target: graphs of 1M+ edges (2M+ stored entries)
            out[algorithm].update(cupy_over_python_graphblas=max(large), cupy_10x_faster=max(large) <= 0.1)
    return out


def print_targets(t):
    print("\nTargets (worst graph): numba <= 1.0x python-graphblas, suitesparse <= 1.2x, "
          "cupy <= 0.1x on graphs of 1M+ edges")
    for algorithm, v in t.items():
        parts = [f"{name} {v[f'{name}_over_python_graphblas']:5.2f}x {'met' if v[key] else 'NOT met':<8}"
                 for name, key in (("numba", "numba_no_slower"), ("suitesparse", "suitesparse_within_1_2"),
                                   ("cupy", "cupy_10x_faster")) if key in v]
        print(f"  {algorithm:<11} " + " ".join(parts))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    common_arguments(parser, GENERATED, repeat=3)
    parser.add_argument("--algorithms", nargs="*", choices=ALGORITHMS, default=ALGORITHMS,
                        help=f"what to time (default: all of {', '.join(ALGORITHMS)})")
    parser.add_argument("--backends", nargs="*", choices=("suitesparse", "numba", "cupy"), default=BACKENDS,
                        help=f"gbgraph backends to time (default: {' '.join(BACKENDS)}; cupy needs a GPU)")
    args = parser.parse_args(argv)
    BACKENDS[:] = args.backends
    specs = graph_specs(args, GENERATED)
    machine = describe_machine(graphblas_algorithms=ga.__version__, repeat=args.repeat, backends=list(BACKENDS))
    print_header(args.repeat)
    rows = [bench(spec, args.repeat, args.algorithms) for spec in progress(specs, graph_name)]
    result = targets(rows)
    print_targets(result)
    if args.json:
        write_results(args.json, machine, rows, targets=result)


if __name__ == "__main__":
    main()

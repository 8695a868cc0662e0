"""In-process A/B: 079f126's aggregation.py, mapping.py, heavy.py and kernels/coarse.py (from
/work/main/.old, loaded as modules beside this tree's) against this tree's, alternated call by
call in one process, one thread, thread CPU time; scipy's SpMV timed between them.

Everything else (MIS-2, the verbs, the row kernels) is this tree's in both, so the
comparison isolates the files this branch changes. usage: PYTHONPATH=<this tree>
python inproc.py OUT.json [--calls 9] [graph specs...]
"""
import importlib.util, json, os, sys, time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../../../benchmarks"))
import numba, numpy as np, scipy.sparse as sp
THREADS = int(sys.argv[sys.argv.index("--threads") + 1]) if "--threads" in sys.argv else 1
CLOCK = time.thread_time if THREADS == 1 else time.perf_counter
numba.set_num_threads(THREADS)
import gbgraph as gg
gg.backends.set_threads(THREADS)
from common import matrix
import gbgraph.algorithms.aggregation as new_aggregation
import gbgraph.algorithms.coarsen as coarsen_module
import gbgraph.algorithms.heavy as new_heavy
import gbgraph.algorithms.mapping as new_mapping
import gbgraph.backends.numba as numba_backend
from gbgraph.backends.numba.kernels import coarse as new_coarse

OLD = "/work/main/.old/gbgraph"


def load(relative, name):
    """A module of the old tree, as a submodule of this tree's package (its relative imports
    then resolve to this tree's modules)."""
    spec = importlib.util.spec_from_file_location(name, os.path.join(OLD, relative))
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


old_coarse = load("backends/numba/kernels/coarse.py", "gbgraph.backends.numba.kernels._old_coarse")
old_aggregation = load("algorithms/aggregation.py", "gbgraph.algorithms._old_aggregation")
old_heavy = load("algorithms/heavy.py", "gbgraph.algorithms._old_heavy")
old_mapping = load("algorithms/mapping.py", "gbgraph.algorithms._old_mapping")
old_mapping.aggregate = old_aggregation.aggregate
old_mapping.heavy = old_heavy
old_mapping._ALGORITHMS.update(hec=old_heavy.hec)
TREES = {"before": (old_aggregation, old_mapping, old_heavy, old_coarse),
         "after": (new_aggregation, new_mapping, new_heavy, new_coarse)}


def use(tree):
    aggregation, mapping, heavy, coarse = TREES[tree]
    numba_backend.coarse = coarse
    coarsen_module.coarse_mapping, coarsen_module.map_vertices = mapping.coarse_mapping, mapping.map_vertices
    coarsen_module.coarse_weights = heavy.coarse_weights
    return aggregation


def main():
    args = sys.argv[1:]
    out = args.pop(0)
    calls = int(args[args.index("--calls") + 1]) if "--calls" in args else 9
    specs = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] not in ("--calls", "--threads"))]
    specs = specs or ["/work/shared/data/coAuthorsDBLP.mtx.gz", "/work/shared/data/delaunay_n17.mtx.gz"]
    rows = []
    for spec in specs:
        A = sp.csr_matrix(matrix(spec)); x = np.ones(A.shape[0]); G = gg.as_graph(A)
        work = {"aggregate": lambda agg: agg.aggregate(G, backend="numba"),
                "coarsen": lambda agg: gg.coarsen(G, backend="numba"),
                "hec hierarchy": lambda agg: gg.coarsen(G, "hec", backend="numba")}
        times = {(t, w): [] for t in TREES for w in work}
        spmv = []
        for tree in TREES:
            for w, fn in work.items():
                fn(use(tree))  # untimed
        for c in range(calls):
            for tree in (TREES if c % 2 == 0 else list(TREES)[::-1]):
                for w, fn in work.items():
                    aggregation = use(tree)
                    start = CLOCK(); fn(aggregation); times[tree, w].append(CLOCK() - start)
                start = CLOCK()
                for _ in range(10):
                    A @ x
                spmv.append((CLOCK() - start) / 10)
        s = float(np.median(spmv))
        row = {"graph": os.path.basename(spec), "threads": THREADS, "spmv_ms median": 1e3 * s, "spmv_ms min": 1e3 * min(spmv), "load": os.getloadavg()}
        for (tree, w), v in times.items():
            row[f"{w} {tree} min"], row[f"{w} {tree} median"] = 1e3 * min(v), 1e3 * float(np.median(v))
        rows.append(row)
        print(f"{row['graph']}: SpMV median {row['spmv_ms median']:.2f} ms, load {row['load'][0]:.1f}")
        for w in work:
            b, a = row[f"{w} before min"], row[f"{w} after min"]
            print(f"  {w:14s} before {b:6.1f} ms ({row[f'{w} before median']:.1f})  after {a:6.1f} ms ({row[f'{w} after median']:.1f})"
                  f"  = {b / row['spmv_ms median']:.1f} -> {a / row['spmv_ms median']:.1f} SpMV-eq (min / median SpMV)", flush=True)
    json.dump(rows, open(out, "w"), indent=1)


main()

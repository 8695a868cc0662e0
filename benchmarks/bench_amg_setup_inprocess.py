"""SA-AMG setup before (e947982) and after session 11's amg39b, alternated in one process,
beside pyamg's.

"before" runs e947982's ``gbgraph/amg/__init__.py`` and ``kernels/spgemm.py`` (loaded from
``--old``, the tree at e947982), "after" this tree's. Each setup's wall and CPU time (every thread's); the
runs alternate (before, after, pyamg), so that a busy machine weighs on all three alike.
Checks that before and after build the same hierarchy bit for bit (every level's A, P, R).

    python benchmarks/bench_amg_setup_inprocess.py --old /work/main/.old --sizes 60 100 --repeat 5
"""

import argparse
import importlib.util
import json
import os
import time

import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from gbgraph import amg


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=None)  # a module, not a package
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _before(old):
    """e947982's solver function and products."""
    spgemm = _load("gbgraph.backends.numba.kernels._spgemm_e947982", f"{old}/gbgraph/backends/numba/kernels/spgemm.py")
    module = _load("gbgraph.amg._amg_e947982", f"{old}/gbgraph/amg/__init__.py")
    module.matmat = spgemm.matmat

    return lambda A: module.smoothed_aggregation_solver(A, "mis2")


def _arrays(ml):
    return [a.tobytes() + str(a.dtype).encode() for level in ml.levels
            for M in (level.A, getattr(level, "P", None), getattr(level, "R", None)) if M is not None
            for a in (M.data, M.indices, M.indptr)]


def main(argv=None):
    import pyamg

    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--old", default="/work/main/.old")
    parser.add_argument("--sizes", nargs="*", type=int, default=[60, 100])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    before = _before(args.old)
    rows = []
    print(f"SA-AMG setup, ms, median of {args.repeat} alternated runs: wall / CPU (all threads)")
    for size in args.sizes:
        A = gg.generators.laplace3d(size)
        M = sp.csr_matrix(A)
        runs = {"before": lambda: before(A), "after": lambda: amg.smoothed_aggregation_solver(A, "mis2"),
                "pyamg": lambda: pyamg.smoothed_aggregation_solver(M)}
        built = {name: run() for name, run in runs.items()}  # first use: compiles, loads caches
        same = _arrays(built["before"]) == _arrays(built["after"])
        times, loads = {name: [] for name in runs}, []
        for _ in range(args.repeat):
            for name, run in runs.items():
                wall, cpu = time.perf_counter(), time.process_time()
                run()
                times[name].append((1e3 * (time.perf_counter() - wall), 1e3 * (time.process_time() - cpu)))
            loads.append(os.getloadavg()[0])
        print(f"laplace3d:{size}  same hierarchy: {same}  load {min(loads):.1f}-{max(loads):.1f}")
        for name, values in times.items():
            wall, cpu = np.median(values, axis=0)
            print(f"  {name:<8}{wall:>9.1f}{cpu:>9.1f}   CPU runs {', '.join(f'{t[1]:.0f}' for t in values)}")
        rows.append({"problem": f"laplace3d:{size}", "same_hierarchy": same, "loads": loads, "times_ms": times,
                     "threads": os.environ.get("NUMBA_NUM_THREADS")})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

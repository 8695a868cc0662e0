"""SA-AMG setup, before and after a change of its host code, in one process.

Times ``gg.amg.smoothed_aggregation_solver(A, "mis2")``'s setup as it was ("before") and as it
is ("after"), alternated with pyamg's ``smoothed_aggregation_solver`` setup (the peer) in one
process, so that a busy machine weighs on all three alike. "before" is, with ``--old TREE``,
that tree's ``gbgraph/amg/__init__.py`` and ``kernels/spgemm.py`` (session 11: e947982's,
``/work/main/.old``); without it, session 10's change: scipy's Galerkin products ``R @ (A @ P)``
and ``sort_indices`` instead of the numba kernel. Prints medians of wall and CPU time (every
thread's) and checks that both hierarchies are the same bit for bit.

Usage::

    python benchmarks/bench_amg_setup_ab.py --sizes 60 100 --repeat 5 --json out.json
    python benchmarks/bench_amg_setup_ab.py --old /work/main/.old --sizes 60 100 --repeat 5
"""

import argparse
import importlib
import importlib.util
import json
import os
import re
import sys
import tempfile
import time

import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from gbgraph import amg


def _scipy_galerkin(R, A, P):
    """The products before: scipy's, rows sorted and int64 indices for large levels."""
    RAP = sp.csr_array(R @ (A @ P))
    if A.nnz < amg._SORTED_GALERKIN:
        return RAP
    RAP.sort_indices()
    return sp.csr_array((RAP.data, RAP.indices.astype(np.int64), RAP.indptr.astype(np.int64)), shape=RAP.shape)


def _setup(A, variant):
    galerkin = amg._galerkin
    if variant == "before":
        amg._galerkin = _scipy_galerkin
    try:
        return amg.smoothed_aggregation_solver(A, "mis2")
    finally:
        amg._galerkin = galerkin


def _load(name, path):
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=None)  # a module
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def old_products(tree):
    """``tree``'s ``kernels/spgemm.py`` as a module: a copy in a temporary folder, since
    numba caches its compiled kernels beside the source, and entries written from a module
    loaded under another name break the other tree's own imports of that source."""
    folder = tempfile.mkdtemp()
    with open(f"{tree}/gbgraph/backends/numba/kernels/spgemm.py") as f:
        source = re.sub(r"^from \.threads import", "from gbgraph.backends.numba.kernels.threads import", f.read(),
                        flags=re.M)
    with open(f"{folder}/spgemm_old.py", "w") as f:
        f.write(source)
    sys.path.insert(0, folder)
    return importlib.import_module("spgemm_old")


def _old_setup(tree):
    """The solver function of ``tree``'s ``gbgraph/amg/__init__.py``, with its products."""
    module = _load("gbgraph.amg._amg_old", f"{tree}/gbgraph/amg/__init__.py")
    module.matmat = old_products(tree).matmat
    return lambda A: module.smoothed_aggregation_solver(A, "mis2")


def _pyamg(A):
    import pyamg
    return pyamg.smoothed_aggregation_solver(A)


def _arrays(ml):
    return [a.tobytes() for level in ml.levels for M in (level.A, getattr(level, "P", None), getattr(level, "R", None))
            if M is not None for a in (M.data, M.indices, M.indptr)]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", nargs="*", type=int, default=[60, 100])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--old", metavar="TREE", help="'before' is this source tree's setup")
    args = parser.parse_args(argv)
    before = _old_setup(args.old) if args.old else (lambda A: _setup(A, "before"))
    rows = []
    print(f"SA-AMG setup, ms, median of {args.repeat} alternated runs (wall / CPU of all threads)")
    for size in args.sizes:
        A = gg.generators.laplace3d(size)
        runs = {"before": lambda: before(A), "after": lambda: _setup(A, "after"),
                "pyamg": lambda: _pyamg(sp.csr_matrix(A))}
        hierarchies = {name: run() for name, run in runs.items()}  # first use: compiles, loads caches
        same = _arrays(hierarchies["before"]) == _arrays(hierarchies["after"])
        times = {name: [] for name in runs}
        loads = []
        for _ in range(args.repeat):
            for name, run in runs.items():
                wall, cpu = time.perf_counter(), time.process_time()
                run()
                times[name].append((1e3 * (time.perf_counter() - wall), 1e3 * (time.process_time() - cpu)))
            loads.append(os.getloadavg()[0])
        medians = {name: tuple(float(np.median([t[k] for t in values])) for k in range(2))
                   for name, values in times.items()}
        print(f"laplace3d:{size}  same hierarchy: {same}  load {min(loads):.1f}-{max(loads):.1f}")
        for name, (wall, cpu) in medians.items():
            print(f"  {name:<8}{wall:>9.1f}{cpu:>9.1f}   runs {', '.join(f'{t[0]:.0f}' for t in times[name])}")
        rows.append({"problem": f"laplace3d:{size}", "same_hierarchy": same, "loads": loads, "times_ms": times,
                     "medians_ms": medians})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

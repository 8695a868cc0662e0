"""SA-AMG setup of two source trees of gbgraph, alternated in fresh processes, each beside
pyamg's setup in the same process (Laplace3D, and Elasticity3D with ``--elasticity``).

For each round and each tree, a process with ``PYTHONPATH=<tree>`` builds
``gg.amg.smoothed_aggregation_solver(A, "mis2")`` and ``pyamg.smoothed_aggregation_solver``
once (compiling, loading caches), then ``--repeat`` times each, alternated; at ``--threads``
numba, OpenMP and OpenBLAS threads and ``GBGRAPH_WARMUP=0``. Prints the medians of wall and
CPU time (every thread's) per tree, ours beside pyamg's, with the load average, and the
SA-AMG hierarchy's hash (every level's A, P, R arrays and dtypes) per tree.

    python benchmarks/bench_amg_trees.py /work/main/.old . --sizes 60 100 --elasticity 40 --threads 1 --json out.json
"""

import argparse
import json
import os
import subprocess
import sys

import numpy as np

_CHILD = r"""
import hashlib, json, os, sys, time
import scipy.sparse as sp
import gbgraph as gg, pyamg
generator, size = sys.argv[1].split(":")
repeat = int(sys.argv[2])
A = getattr(gg.generators, generator)(int(size))
M = sp.csr_matrix(A)
ml = gg.amg.smoothed_aggregation_solver(A, "mis2")
pyamg.smoothed_aggregation_solver(M)
h = hashlib.sha256()
for level in ml.levels:
    for X in (level.A, getattr(level, "P", None), getattr(level, "R", None)):
        for a in () if X is None else (X.data, X.indices, X.indptr):
            h.update(str(a.dtype).encode() + a.tobytes())
runs = {"ours": [], "pyamg": []}
for _ in range(repeat):
    for name, build in (("ours", lambda: gg.amg.smoothed_aggregation_solver(A, "mis2")),
                        ("pyamg", lambda: pyamg.smoothed_aggregation_solver(M))):
        wall, cpu = time.perf_counter(), time.process_time()
        build()
        runs[name].append([1e3 * (time.perf_counter() - wall), 1e3 * (time.process_time() - cpu)])
print(json.dumps({"hash": h.hexdigest()[:16], "load": os.getloadavg()[0], "runs": runs}))
"""


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("trees", nargs=2, help="the two trees: before, after")
    parser.add_argument("--sizes", nargs="*", type=int, default=[60, 100])
    parser.add_argument("--elasticity", nargs="*", type=int, default=[], help="Elasticity3D sizes too")
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", metavar="FILE")
    args = parser.parse_args(argv)
    threads = str(args.threads)
    env = dict(os.environ, GBGRAPH_WARMUP="0", NUMBA_NUM_THREADS=threads, OMP_NUM_THREADS=threads,
               OPENBLAS_NUM_THREADS=threads)
    rows = []
    print(f"SA-AMG setup, ms: median wall / CPU of {args.rounds} rounds x {args.repeat} runs, {threads} thread(s)")
    problems = [f"laplace3d:{size}" for size in args.sizes] + [f"elasticity3d:{size}" for size in args.elasticity]
    for problem in problems:
        results = {tree: [] for tree in args.trees}
        for _ in range(args.rounds):
            for tree in args.trees:
                out = subprocess.run([sys.executable, "-c", _CHILD, problem, str(args.repeat)], check=True,
                                     capture_output=True, text=True, env=dict(env, PYTHONPATH=os.path.abspath(tree)))
                results[tree].append(json.loads(out.stdout.splitlines()[-1]))
        loads = [r["load"] for rs in results.values() for r in rs]
        print(f"{problem}  load {min(loads):.1f}-{max(loads):.1f}")
        for tree, rs in results.items():
            medians = {name: np.median([run for r in rs for run in r["runs"][name]], axis=0) for name in ("ours", "pyamg")}
            print(f"  {tree:<24} ours {medians['ours'][0]:7.0f} / {medians['ours'][1]:6.0f}   pyamg "
                  f"{medians['pyamg'][0]:7.0f} / {medians['pyamg'][1]:6.0f}   hierarchy {rs[0]['hash']}")
            rows.append({"problem": problem, "tree": tree, "threads": args.threads, "rounds": rs,
                         "medians_ms": {k: v.tolist() for k, v in medians.items()}})
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

"""SA-AMG setup with .old's spgemm.py (6bc62d6) and this tree's, alternated in one process:
every product of the setup (gbgraph.amg.matmat) through one or the other. Prints the medians
of the setup's CPU time and of the products' user and system time (ms), one line per run.

    PYTHONPATH=<this tree> NUMBA_NUM_THREADS=1 python galerkin_ab.py laplace3d:100 5 [OLD_TREE]
"""
import os, resource, sys, time
import numpy as np
import gbgraph as gg
from gbgraph import amg
from gbgraph.backends.numba.kernels import spgemm as new

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../.."))  # benchmarks/
from bench_amg_setup_ab import old_products  # noqa: E402

old = old_products(sys.argv[3] if len(sys.argv) > 3 else "/work/main/.old")
generator, size = sys.argv[1].split(":")
A = getattr(gg.generators, generator)(int(size))
spent = {}


def timed(module):
    def matmat(X, Y, **options):
        before = resource.getrusage(resource.RUSAGE_SELF)
        C = module.matmat(X, Y, **options)
        after = resource.getrusage(resource.RUSAGE_SELF)
        spent["user"] += after.ru_utime - before.ru_utime
        spent["sys"] += after.ru_stime - before.ru_stime
        return C
    return matmat


runs = {"old": [], "new": []}
for r in range(int(sys.argv[2]) + 1):
    for label, module in (("old", old), ("new", new)):
        amg.matmat = timed(module)
        spent.update(user=0.0, sys=0.0)
        start, wall = time.process_time(), time.perf_counter()
        gg.amg.smoothed_aggregation_solver(A, "mis2")
        total, wall = time.process_time() - start, time.perf_counter() - wall
        if r:  # the first round compiles and fills the caches
            runs[label].append((1e3 * total, 1e3 * spent["user"], 1e3 * spent["sys"], 1e3 * wall))
print(f"{sys.argv[1]}  load {os.getloadavg()[0]:.1f}  setup CPU / products' user / products' sys / setup wall, ms, medians")
for label, values in runs.items():
    values = np.array(values)
    print(f"  {label}: {np.median(values, axis=0).round().tolist()}  setups {values[:, 0].round().tolist()}  "
          f"products {values[:, 1].round().tolist()}  walls {values[:, 3].round().tolist()}")

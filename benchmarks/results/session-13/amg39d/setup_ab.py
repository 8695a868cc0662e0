"""The SA-AMG setup with this branch's changes on and off, alternated in one process (off: the
triangle's pass refuses every matrix, so the input's check is A - Aᵀ and the Lanczos steps are
numpy's, 81b2177's code path), CPU ms (user + system) and system ms, medians; the hierarchies'
hashes must be equal. usage: setup_ab.py laplace3d:100 [rounds]"""
import hashlib, resource, sys, time
import numpy as np
import gbgraph as gg
from gbgraph import amg
from gbgraph.backends.numba.kernels import lanczos

kind, size = sys.argv[1].split(":")
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
A = getattr(gg.generators, kind)(int(size))
triangle = lanczos.upper_triangle
modes = {"off": lambda *args, **kwargs: None, "on": triangle}


def setup(mode):
    lanczos.upper_triangle = amg.upper_triangle = modes[mode]
    r0, t = resource.getrusage(resource.RUSAGE_SELF), time.process_time()
    ml = gg.amg.smoothed_aggregation_solver(A, "mis2")
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    h = hashlib.sha256()
    for level in ml.levels:
        for X in (level.A, getattr(level, "P", None), getattr(level, "R", None)):
            for a in () if X is None else (X.data, X.indices, X.indptr):
                h.update(str(a.dtype).encode() + a.tobytes())
    return 1e3 * (time.process_time() - t), 1e3 * (r1.ru_stime - r0.ru_stime), h.hexdigest()[:16]


setup("off"), setup("on")
runs = {"off": [], "on": []}
for _ in range(rounds):
    for mode in runs:
        runs[mode].append(setup(mode))
assert len({r[2] for rs in runs.values() for r in rs}) == 1, runs
print(sys.argv[1], {m: (round(float(np.median([r[0] for r in rs])), 1), round(float(np.median([r[1] for r in rs])), 1))
                    for m, rs in runs.items()}, "(CPU, system ms)", "hierarchy", runs["on"][0][2],
      "load", open("/proc/loadavg").read().split()[:3])

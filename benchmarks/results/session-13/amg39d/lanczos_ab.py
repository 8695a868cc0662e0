"""The finest level's ρ(D⁻¹A) estimate: numpy's steps (_HostLanczos) against the upper-triangle
steps (_TriangleLanczos, with its triangle's check and copy), alternated in one process,
CPU ms, medians; the estimates must be equal bit for bit.
usage: lanczos_ab.py laplace3d:100 [rounds]"""
import sys, time
import numpy as np
import gbgraph as gg
from gbgraph.solvers import polynomial as poly

kind, size = sys.argv[1].split(":")
rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 5
A = getattr(gg.generators, kind)(int(size))
A, triangle = gg.amg._checked_matrix_and_triangle(A, "hermitian")
d = A.diagonal()
new = poly._host_recurrence
old = lambda A, scale, v, steps, triangle: poly._HostLanczos(A, scale, v, steps)


def timed(recurrence):
    """The estimate with the given recurrence (numpy: _HostLanczos; triangle: the one the input check leaves, as in the setup)."""
    poly._host_recurrence = recurrence
    t = time.process_time()
    rho = poly.spectral_radius(A, d, triangle=triangle)
    return 1e3 * (time.process_time() - t), rho


timed(old), timed(new)
times = {"numpy": [], "triangle": []}
for _ in range(rounds):
    for name, f in (("numpy", old), ("triangle", new)):
        ms, rho = timed(f)
        times[name].append(ms)
        times.setdefault(name + "_rho", rho)
assert times["numpy_rho"] == times["triangle_rho"], times
print(sys.argv[1], A.shape[0], A.nnz, {k: round(float(np.median(v)), 1) for k, v in times.items() if not k.endswith("rho")},
      "rho", times["numpy_rho"], "load", open("/proc/loadavg").read().split()[:3])

"""One SA-AMG setup after an untimed one, in this (fresh) process: user, system ms and minor
faults of each of 3 setups. usage: PYTHONPATH=<tree> fresh_rusage.py laplace3d:100"""
import resource, sys
import gbgraph as gg

kind, size = sys.argv[1].split(":")
A = getattr(gg.generators, kind)(int(size))
gg.amg.smoothed_aggregation_solver(A, "mis2")
for _ in range(3):
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    gg.amg.smoothed_aggregation_solver(A, "mis2")
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    print(sys.argv[1], gg.__file__.split("/")[-3], "user", round(1e3 * (r1.ru_utime - r0.ru_utime)),
          "sys", round(1e3 * (r1.ru_stime - r0.ru_stime)), "minflt", r1.ru_minflt - r0.ru_minflt)

import time, sys
t0 = time.process_time()
import gbgraph as gg
A = gg.generators.laplace3d(6)
t1 = time.process_time()
gg.color(A, backend="numba")
t2 = time.process_time()
gg.color(gg.generators.elasticity3d(3), backend="numba")
t3 = time.process_time()
print(f"import+gen {t1-t0:.1f} s, first color {t2-t1:.1f} s, elasticity color {t3-t2:.1f} s")

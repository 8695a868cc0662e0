"""First calls with an empty numba cache: as_graph of laplace3d(10), then of elasticity3d(5)
(the grouped pass), then mis2 of it; CPU seconds. usage: NUMBA_CACHE_DIR=<empty> GBGRAPH_WARMUP=0
PYTHONPATH=<tree> python first_use.py"""
import time, sys
import gbgraph as gg
t=time.process_time(); gg.as_graph(gg.generators.laplace3d(10)); a=time.process_time()-t
t=time.process_time(); gg.as_graph(gg.generators.elasticity3d(5)); b=time.process_time()-t
t=time.process_time(); gg.mis2(gg.generators.elasticity3d(5), backend="numba"); c=time.process_time()-t
print(f"{gg.__file__}: first as_graph (laplace) {a:.2f} s, then elasticity {b:.2f} s, then mis2(elasticity) {c:.2f} s")

"""Phase breakdown of our SA-AMG setup, CPU and wall, + cProfile."""
import cProfile, pstats, sys, time, os, collections
import numpy as np, scipy.sparse as sp
import gbgraph as gg
from gbgraph import amg
import gbgraph.solvers.polynomial as poly
import gbgraph.graph as graph
import gbgraph.algorithms.aggregation as aggmod
import gbgraph.algorithms.coarsen as coarsen
n = int(sys.argv[1]); mode = sys.argv[2] if len(sys.argv) > 2 else "phases"
A = gg.generators.laplace3d(n)
amg.smoothed_aggregation_solver(A, "mis2")
ms = collections.defaultdict(float); cpu = collections.defaultdict(float)
def wrap(mod, name, phase):
    f = getattr(mod, name)
    def g(*a, **k):
        t, c = time.perf_counter(), time.process_time()
        try: return f(*a, **k)
        finally:
            ms[phase] += 1e3*(time.perf_counter()-t); cpu[phase] += 1e3*(time.process_time()-c)
    setattr(mod, name, g)
if mode == "phases":
    for mod, name, ph in [(amg, "_checked_matrix", "check"), (amg, "_strength", "strength"),
                          (amg, "_undirected", "as_graph"), (amg, "aggregate", "aggregate"),
                          (amg, "aggregation_operator", "AggOp"), (amg, "spectral_radius", "lanczos"),
                          (amg, "_improved_candidates", "candidates"),
                          (amg, "_smoothed_prolongator", "prolongator"), (amg, "_galerkin", "galerkin"),
                          (amg, "_stalled", "stalled")]:
        wrap(mod, name, ph)
    import pyamg.aggregation
    wrap(pyamg.aggregation, "fit_candidates", "tentative")
    import pyamg.relaxation.smoothing as sm
    wrap(sm, "change_smoothers", "smoothers")
    for r in range(3):
        ms.clear(); cpu.clear()
        t, c = time.perf_counter(), time.process_time()
        amg.smoothed_aggregation_solver(A, "mis2")
        tot, ctot = 1e3*(time.perf_counter()-t), 1e3*(time.process_time()-c)
        print(f"total wall {tot:.0f} cpu {ctot:.0f} load {os.getloadavg()[0]:.1f}: " + ", ".join(f"{k} {ms[k]:.0f}/{cpu[k]:.0f}" for k in ms) + f", rest {tot-sum(ms.values()):.0f}")
elif mode != "callers":
    pr = cProfile.Profile(); pr.enable(); amg.smoothed_aggregation_solver(A, "mis2"); pr.disable()
    pstats.Stats(pr).sort_stats(mode).print_stats(40)
if mode == "callers":
    pr = cProfile.Profile(); pr.enable(); amg.smoothed_aggregation_solver(A, "mis2"); pr.disable()
    st = pstats.Stats(pr); st.sort_stats("tottime")
    for pat in sys.argv[3:]:
        st.print_callers(pat)

"""Where our SA-AMG setup goes, one thread, CPU ms: each phase's function in gbgraph.amg
wrapped with a timer (rest: the setup's time outside them: fit_candidates, Rᵀ, the input's
checks, pyamg's MultilevelSolver). Medians of 3 setups after one untimed.

    PYTHONPATH=<tree> python phases.py laplace3d:100
"""
import json, os, sys, time
import numpy as np
import gbgraph as gg
from gbgraph import amg

generator, size = sys.argv[1].split(":")
A = getattr(gg.generators, generator)(int(size))
spent = {}


def timed(name):
    function = getattr(amg, name)

    def call(*args, **kwargs):
        start = time.process_time()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] = spent.get(name, 0.0) + 1e3 * (time.process_time() - start)
    setattr(amg, name, call)


phases = {"_undirected": "as_graph", "_aggregation_operator": "aggregation (as_graph + aggregate + AggOp)",
          "spectral_radius": "Lanczos ρ(D⁻¹A)", "_improved_candidates": "candidates (pyamg's Gauss-Seidel)",
          "_smoothed_prolongator": "prolongator", "_galerkin": "Galerkin"}
for name in phases:
    timed(name)
gg.amg.smoothed_aggregation_solver(A, "mis2")
runs = []
for _ in range(3):
    spent.clear()
    start = time.process_time()
    gg.amg.smoothed_aggregation_solver(A, "mis2")
    total = 1e3 * (time.process_time() - start)
    runs.append(dict(spent, total=total, rest=total - sum(v for k, v in spent.items() if k != "_undirected")))
medians = {phases.get(k, k): round(float(np.median([r[k] for r in runs])), 1) for k in runs[0]}
print(json.dumps({"problem": sys.argv[1], "tree": os.environ.get("PYTHONPATH"), "load": os.getloadavg()[0],
                  "cpu_ms": medians}))

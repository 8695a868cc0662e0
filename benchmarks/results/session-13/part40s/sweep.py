"""Quality and CPU time of gg.partition's default under tries schedules of the bisection
(issue 40, session 13, part40s): session 11's sweep (``../../session-11/init40/sweep.py``,
session 10's with the grown starts' knob) with its configurations replaced. Run from the
repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-13/part40s/sweep.py \\
        --k 2 8 --configs default t2f1 --json sweep.json

``t2``, ``f1``, ``t2f1``, ... set ``TRIES`` and ``FINALISTS``, which on this branch are the
schedule of graphs below ``SMALL_ENTRIES`` only (``LARGE_TRIES`` the larger ones'): they ran
on 81b2177 with ``finalist-gap-experiment.diff`` applied (FINALIST_GAP, which the ``gap*``
configurations need).
"""

import importlib.util
import pathlib

HERE = pathlib.Path(__file__).resolve()
spec = importlib.util.spec_from_file_location("sweep11", HERE.parents[2] / "session-11/init40/sweep.py")
sweep11 = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sweep11)
sweep = sweep11.sweep

P = sweep.MODULES["P"]
for name in ("FINALIST_GAP", "LARGE_TRIES"):
    if hasattr(P, name):
        sweep.DEFAULTS[("P", name)] = getattr(P, name)
sweep.CONFIGS.clear()
sweep.CONFIGS.update({
    "default": (None, None, {}),
    "t3f2": (None, None, {("P", "LARGE_TRIES"): (3, 2)}),  # this branch with 81b2177's schedule everywhere
    "t2": (None, None, {("P", "TRIES"): 2}),
    "f1": (None, None, {("P", "FINALISTS"): 1}),
    "t2f1": (None, None, {("P", "TRIES"): 2, ("P", "FINALISTS"): 1}),
    "t2f1g16": (None, None, {("P", "TRIES"): 2, ("P", "FINALISTS"): 1, ("I", "TRIES"): 16}),
    "t2f1s2": (None, None, {("P", "TRIES"): 2, ("P", "FINALISTS"): 1, ("P", "SELECT_LEVEL"): 2}),
    **{f"g{t}": (None, None, {("I", "TRIES"): t}) for t in (2, 4, 6)},
    **{f"t2gap{g}": (None, None, {("P", "TRIES"): 2, ("P", "FINALIST_GAP"): g / 100}) for g in (3, 5, 10)},
    **{f"gap{g}": (None, None, {("P", "FINALIST_GAP"): g / 100}) for g in (1, 2, 3, 5, 8, 12)},
})

if __name__ == "__main__":
    sweep.main()

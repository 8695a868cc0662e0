"""Quality and CPU time of gg.partition(A, 8)'s default (direct k-way) under k-way settings
(issue 40, session 13, kway40d): session 10's sweep (``../../session-10/partition/sweep.py``)
with its configurations replaced; each configuration sets refine_kway's module constants
before its call, all in one process, graph by graph. Run from the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-13/kway40d/sweep.py \
        --k 8 --configs default p512 --json sweep.json
"""

import importlib.util
import pathlib

HERE = pathlib.Path(__file__).resolve()
spec = importlib.util.spec_from_file_location("sweep10", HERE.parents[2] / "session-10/partition/sweep.py")
sweep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sweep)

R = sweep.MODULES["R"]
for name in ("INITIAL_TRIES", "FM_PER_PART", "AT_CAP", "LOCAL_ROUNDS", "LOCAL_BUDGET", "FM_PASSES"):
    sweep.DEFAULTS[("R", name)] = getattr(R, name)
sweep.CONFIGS.clear()
sweep.CONFIGS["default"] = (None, None, {})
for p in (256, 384, 512, 768):
    sweep.CONFIGS[f"p{p}"] = (None, None, {("R", "FM_PER_PART"): p})
sweep.CONFIGS["it2"] = (None, None, {("R", "INITIAL_TRIES"): 2})
from gbgraph.algorithms import initial  # noqa: E402
sweep.MODULES["I"] = initial
sweep.DEFAULTS[("I", "TRIES")] = initial.TRIES
for t in (2, 4, 6):
    sweep.CONFIGS[f"g{t}"] = (None, None, {("I", "TRIES"): t})
sweep.CONFIGS["it2g4"] = (None, None, {("R", "INITIAL_TRIES"): 2, ("I", "TRIES"): 4})
for c in (0.5, 1, 2):
    sweep.CONFIGS[f"capw{c}"] = (None, None, {("R"): c})
sweep.CONFIGS["lr2"] = (None, None, {("R", "LOCAL_ROUNDS"): 2})
sweep.CONFIGS["nocap"] = (None, None, {("R", "AT_CAP"): 2.0})

if __name__ == "__main__":
    sweep.main()

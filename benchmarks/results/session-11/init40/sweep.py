"""Quality and CPU time of gg.partition's default under several counts of grown starts
(``initial.TRIES``) for the coarsest graphs' bisections (issue 40, session 11): session 10's
sweep (``../../session-10/partition/sweep.py``) with its configurations replaced. Run from the
repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-11/init40/sweep.py \
        --k 2 8 --configs default g16 g4 --kaminpar --json sweep.json
"""

import importlib.util
import pathlib

HERE = pathlib.Path(__file__).resolve()
spec = importlib.util.spec_from_file_location("sweep10", HERE.parents[2] / "session-10/partition/sweep.py")
sweep = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sweep)

from gbgraph.algorithms import initial  # noqa: E402  (sweep10 put benchmarks/ on the path and imported gbgraph)

sweep.MODULES["I"] = initial
sweep.DEFAULTS[("I", "TRIES")] = initial.TRIES
sweep.CONFIGS.clear()
sweep.CONFIGS.update({f"g{t}": (None, None, {("I", "TRIES"): t}) for t in (16, 8, 4, 2)})
sweep.CONFIGS["default"] = (None, None, {})

if __name__ == "__main__":
    sweep.main()

"""A/B of kway_fm alone on captured calls (capture.py): the ``--before`` tree's refine_kway.py
(loaded as a module of this tree's package) against this tree's, alternated in one process,
CPU time, median of ``--runs`` after a first untimed run; each run's parts checked equal to
the captured ones. From the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-14/kway41/replay_ab.py \
        --before /work/main/.old CAPTURED.npz...
"""

import argparse
import importlib.util
import pathlib
import statistics
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
from replay import load  # noqa: E402

from gbgraph.algorithms import refine_kway  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", required=True)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("files", nargs="+")
    args = parser.parse_args()
    path = pathlib.Path(args.before) / "gbgraph" / "algorithms" / "refine_kway.py"
    spec = importlib.util.spec_from_file_location("gbgraph.algorithms._before_refine_kway", path)
    before = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(before)
    for name in args.files:
        hg, z, cut = load(name)
        times = {"before": [], "after": []}
        for _ in range(args.runs + 1):
            for tree, module in (("before", before), ("after", refine_kway)):
                parts = z["parts"].copy()
                start = time.process_time()
                module.kway_fm(hg, parts, int(z["k"]), float(z["bound"]), cut=cut)
                times[tree].append(time.process_time() - start)
                assert np.array_equal(parts, z["after"]), (name, tree)
        b, a = (statistics.median(times[t][1:]) for t in ("before", "after"))
        print(f"{pathlib.Path(name).name:<30} before {1e3 * b:8.2f} ms  after {1e3 * a:8.2f} ms  after/before {a / b:.3f}",
              flush=True)


if __name__ == "__main__":
    main()

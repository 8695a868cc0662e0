"""Quality and CPU time of gg.partition's recursive bisection under several tries schedules
(issue 40, sessions 10 and 11). One thread, one process; each configuration is set through
partition.py's module constants before its call. Cuts against session 9's KaMinPar default
and METIS cuts (benchmarks/results/session-9/partition/quality.json, one thread, seed 0:
deterministic), KaMinPar's time measured here in the same process. Run from the root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-11/init40/sweep.py --k 2 8 \
        --configs default g8 g4 --kaminpar --json sweep-g.json
"""

import argparse
import json
import math
import os
import pathlib
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[3]))  # benchmarks/

import gbgraph as gg  # noqa: E402
from gbgraph.algorithms import partition as P  # noqa: E402
from bench_partition import cut_and_imbalance, largest_component, peer_runners  # noqa: E402
from common import matrix  # noqa: E402

from gbgraph.algorithms import initial as I  # noqa: E402
from gbgraph.algorithms import refine_kway as R  # noqa: E402

MODULES = {"P": P, "R": R, "I": I}
#: The module constants the configurations set, and their values here. The experiment-only
#: ones (INNER_TRIES, INITIAL_CUTOFF, INITIAL_INNER, FM_SCALE, FM_TOLERANCE) exist at commit
#: ce7fd75 only, where the sweeps that name them ran (README.md).
KNOBS = {"I": ("TRIES",), "P": ("TRIES", "INNER_TRIES", "FINALISTS", "SELECT_LEVEL"),
         "R": ("INITIAL_TRIES", "INITIAL_CUTOFF", "FM_PASSES", "FM_SCALE", "PER_PART", "FM_PER_PART", "FM_TOLERANCE",
               "INITIAL_INNER")}
DEFAULTS = {(m, name): getattr(MODULES[m], name) for m, names in KNOBS.items() for name in names
            if hasattr(MODULES[m], name)}
#: name -> (method, tries, module constants); PER_PART was k-way FM's hierarchy size at ce7fd75,
#: FM_PER_PART after it.
CONFIGS = {
    "default": (None, None, {}),
    "g8": (None, None, {("I", "TRIES"): 8}),
    "g4": (None, None, {("I", "TRIES"): 4}),
    "g2": (None, None, {("I", "TRIES"): 2}),
}


def run(config, G, k):
    method, tries, constants = CONFIGS[config]
    for (module, name), value in {**DEFAULTS, **constants}.items():
        if (module, name) not in DEFAULTS:
            raise SystemExit(f"{config} sets {module}.{name}, which exists at commit ce7fd75 only")
        setattr(MODULES[module], name, value)
    c = time.process_time()
    r = gg.partition(G, k, method=method, tries=tries)
    return r, time.process_time() - c


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--k", type=int, nargs="*", default=[2, 8])
    parser.add_argument("--configs", nargs="*", default=["base", "inner1"])
    parser.add_argument("--graphs", nargs="*")
    parser.add_argument("--min-n", type=int, default=0)
    parser.add_argument("--kaminpar", action="store_true", help="time KaMinPar's default too")
    parser.add_argument("--json")
    args = parser.parse_args()
    gg.backends.set_threads(1)
    print("load average", os.getloadavg(), flush=True)
    ref = json.load(open(HERE.parents[2] / "session-9/partition/quality.json"))["rows"]
    data = pathlib.Path("/work/shared/data")
    specs = args.graphs or ["laplace3d:100"] + [str(p) for p in sorted(data.glob("*.mtx.gz"))]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for spec in specs:
            name = pathlib.Path(spec).name.removesuffix(".mtx.gz")
            A = largest_component(matrix(spec))
            if A.shape[0] < args.min_n:
                continue
            G = gg.as_graph(A)
            for k in args.k:
                peers = next(r["runs"] for r in ref[str(k)] if r["graph"] == name)
                row = {"graph": name, "n": A.shape[0], "k": k, "metis": peers["metis"]["cut"],
                       "kaminpar": peers["kaminpar"]["cut"]}
                if args.kaminpar:
                    km = peer_runners(A, k, tmp, threads=1)["kaminpar"]
                    km()
                    c = time.process_time()
                    km()
                    row["kaminpar_s"] = time.process_time() - c
                run(args.configs[0], G, k)  # compile
                for config in args.configs:
                    r, s = run(config, G, k)
                    parts = np.asarray(r.parts, dtype=np.int64)
                    cut, imb = cut_and_imbalance(A, parts, k)
                    row[config] = {"cut": int(cut), "imbalance": float(imb), "cpu_s": s,
                                   "seconds": {a: round(b, 4) for a, b in r.seconds.items()}}
                print(json.dumps(row), flush=True)
                rows.append(row)
    for k in args.k:
        ks = [r for r in rows if r["k"] == k]
        for config in args.configs:
            ratio = math.exp(np.mean([math.log(r[config]["cut"] / r["kaminpar"]) for r in ks]))
            metis = sum(r[config]["cut"] <= r["metis"] for r in ks)
            imb = max(r[config]["imbalance"] for r in ks)
            cpu = sum(r[config]["cpu_s"] for r in ks)
            line = (f"k={k} {config:8s} cut/KM {ratio:.3f}  <=METIS {metis}/{len(ks)}  max imb {100 * imb:.2f}%  "
                    f"cpu {cpu:.2f} s")
            big = [r for r in ks if r["n"] >= 30_000 and "kaminpar_s" in r]
            if big:
                t = [r[config]["cpu_s"] / r["kaminpar_s"] for r in big]
                line += (f"  time/KM geomean {math.exp(np.mean(np.log(t))):.2f} max {max(t):.2f}"
                         f" no slower {sum(x <= 1 for x in t)}/{len(t)}")
            print(line, flush=True)
    if args.json:
        json.dump({"load_average": os.getloadavg(), "rows": rows}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()

"""Quality and CPU time of gg.partition(A, 8)'s default (direct k-way FM) under settings of
refine_kway's module constants (issue 40 item 2, session 11). One thread, one process; the
configurations run alternated on each graph, `--rounds` times, CPU time (`process_time`) the
median. Cuts against session 9's KaMinPar default and METIS cuts
(benchmarks/results/session-9/partition/quality.json, one thread, seed 0: deterministic).
Time: each configuration's over the first configuration's, geometric mean over the 15 graphs
of >= 30,000 vertices (and over KaMinPar's default, timed in the same process, with
--kaminpar). Run from the root:

    NUMBA_NUM_THREADS=1 PYTHONPATH=$PWD python benchmarks/results/session-11/kway40b/sweep.py \
        --configs default NAME ... --json out.json
"""

import argparse
import hashlib
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
from gbgraph.algorithms import refine_kway as R  # noqa: E402
from bench_partition import cut_and_imbalance, largest_component, peer_runners  # noqa: E402
from common import matrix  # noqa: E402

#: name -> refine_kway module constants set for the call (the others at their defaults).
CONFIGS = json.loads(os.environ.get("SWEEP_CONFIGS", "{}"))
CONFIGS.setdefault("default", {})


def run(config, G, k, defaults):
    for name, value in {**defaults, **CONFIGS[config]}.items():
        if name not in defaults:
            raise SystemExit(f"{config} sets refine_kway.{name}, which does not exist")
        setattr(R, name, value)
    c = time.process_time()
    r = gg.partition(G, k)
    s = time.process_time() - c
    for name, value in defaults.items():
        setattr(R, name, value)
    return r, s


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--configs", nargs="*", default=["default"])
    parser.add_argument("--graphs", nargs="*")
    parser.add_argument("--rounds", type=int, default=1)
    parser.add_argument("--kaminpar", action="store_true", help="time KaMinPar's default too")
    parser.add_argument("--json")
    args = parser.parse_args()
    gg.backends.set_threads(1)
    print("load average", os.getloadavg(), flush=True)
    names = {name for c in args.configs for name in CONFIGS[c]}
    defaults = {name: getattr(R, name) for name in names if hasattr(R, name)}
    for name in names - set(defaults):
        raise SystemExit(f"refine_kway.{name} does not exist")
    ref = json.load(open(HERE.parents[2] / "session-9/partition/quality.json"))["rows"]
    data = pathlib.Path("/work/shared/data")
    specs = args.graphs or ["laplace3d:100"] + [str(p) for p in sorted(data.glob("*.mtx.gz"))]
    rows, k = [], args.k
    with tempfile.TemporaryDirectory() as tmp:
        for spec in specs:
            name = pathlib.Path(spec).name.removesuffix(".mtx.gz")
            A = largest_component(matrix(spec))
            G = gg.as_graph(A)
            peers = next(r["runs"] for r in ref[str(k)] if r["graph"] == name)
            row = {"graph": name, "n": A.shape[0], "k": k, "metis": peers["metis"]["cut"],
                   "kaminpar": peers["kaminpar"]["cut"]}
            if args.kaminpar:
                km = peer_runners(A, k, tmp, threads=1)["kaminpar"]
                km()
                times = []
                for _ in range(args.rounds):
                    c = time.process_time()
                    km()
                    times.append(time.process_time() - c)
                row["kaminpar_s"] = float(np.median(times))
            run(args.configs[0], G, k, defaults)  # compile
            times = {c: [] for c in args.configs}
            for _ in range(args.rounds):
                for config in args.configs:
                    r, s = run(config, G, k, defaults)
                    times[config].append(s)
            for config in args.configs:
                parts = np.asarray(r.parts if config == args.configs[-1] else run(config, G, k, defaults)[0].parts,
                                   dtype=np.int64)
                cut, imb = cut_and_imbalance(A, parts, k)
                row[config] = {"cut": int(cut), "imbalance": float(imb), "cpu_s": float(np.median(times[config])),
                               "hash": hashlib.sha1(parts.tobytes()).hexdigest()[:12]}
            print(json.dumps(row), flush=True)
            rows.append(row)
    base = args.configs[0]
    for config in args.configs:
        ratio = math.exp(np.mean([math.log(r[config]["cut"] / r["kaminpar"]) for r in rows]))
        metis = sum(r[config]["cut"] <= r["metis"] for r in rows)
        imb = max(r[config]["imbalance"] for r in rows)
        big = [r for r in rows if r["n"] >= 30_000]
        t = [r[config]["cpu_s"] / r[base]["cpu_s"] for r in big]
        line = (f"k={k} {config:10s} cut/KM {ratio:.4f}  <=METIS {metis}/{len(rows)}  max imb {100 * imb:.2f}%  "
                f"time/{base} {math.exp(np.mean(np.log(t))):.3f}")
        if args.kaminpar:
            t = [r[config]["cpu_s"] / r["kaminpar_s"] for r in big]
            line += f"  time/KM {math.exp(np.mean(np.log(t))):.2f} no slower {sum(x <= 1 for x in t)}/{len(t)}"
        print(line, flush=True)
    if args.json:
        json.dump({"load_average": os.getloadavg(), "configs": {c: CONFIGS[c] for c in args.configs}, "rows": rows},
                  open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()

"""Quality, Jet rounds and CPU time of ``gg.partition(A, k, refine="jet", tries=1)`` under
variants of Jet's rules (issue 40 part 4, session 14, cut41), beside hec+fm with one try
(as the GPU bench runs both, ``--tries 1``) and session 9's KaMinPar default and METIS cuts.
Numba backend, one thread; numba's Jet gives the cupy backend's sides bit for bit. The
variants are set by patching refine_jet (module constants, or the filter's threshold θ of
``_Level`` for the rules this branch did not keep). Run from the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-14/cut41/sweep.py \\
        --k 2 8 --configs base c25 --json sweep.json
"""

import argparse
import json
import math
import os
import pathlib
import sys
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve()
sys.path.insert(0, str(HERE.parents[3]))  # benchmarks/

import gbgraph as gg  # noqa: E402
from gbgraph.algorithms import refine_jet as J  # noqa: E402
from bench_partition import cut_and_imbalance, largest_component  # noqa: E402
from common import matrix  # noqa: E402

ORIGINAL = {"PATIENCE": J.PATIENCE, "SCHEDULE": J.SCHEDULE, "init": J._Level.__init__, "step": J._Rounds.step,
            "level": J._refine_level}
ROUNDS = []


def _theta(rule):
    """A ``_Level.__init__`` whose θ follows ``rule(d, c)`` (the verbs' path: numba)."""
    def init(self, be, level, vertex_weights, seed, c):
        ORIGINAL["init"](self, be, level, vertex_weights, seed, c)
        d = np.asarray(be.values(be.ewise_add("plus", self.zero, be.reduce_rows(self.A, "plus"))))
        self.theta = be.full(d.size, np.where(d > 0, rule(d, c), -1.0), "float64")
    return init


def _phased(filters):
    """A ``_refine_level`` whose runs of rounds take the filters ``filters[c0]``, c0 the first
    of the level's :data:`refine_jet.SCHEDULE` (as 0.75 on coarse levels, 0.25 on the
    finest), each run from the best bisection of the one before."""
    def refine(be, level, vertex_weights, sides, bounds, targets, seed, schedule):
        patience = J.PATIENCE
        for c in filters.get(schedule[0], (schedule[0],)):
            c, J.PATIENCE = c if isinstance(c, tuple) else (c, patience)  # (c, that run's patience)
            sides = ORIGINAL["level"](be, level, vertex_weights, sides, bounds, targets, seed, (c,))
        J.PATIENCE = patience
        return sides
    return refine


def _counted(self, moves, r):
    ROUNDS.append(1)
    return ORIGINAL["step"](self, moves, r)


#: θ rules: "relaxed" c d / (2 - c) (gain >= -c int); "jet": Jet's own test, gain >= 0 or
#: -gain < floor(c int), which for whole weights is l <= max(0, 2 floor((d - 1) / (2 - c)) - d).
RULES = {"relaxed": lambda d, c: d * c / (2 - c),
         "jet": lambda d, c: np.maximum(0.0, 2 * np.floor((d - 1) / (2 - c)) - d)}
#: name -> (refine, tries, {"patience", "filter", "rule", "phases"}); absent: the branch's own
#: value. "single" is 9009bd3's Jet (one run per level at c = 0.75, 0.25 on the finest), the
#: "before"; "base" this branch's (``SCHEDULE``, ``LATER_PATIENCE``), the same as "then6";
#: "anneal" the second runs with patience 12. A "phases" entry is c or (c, that run's patience).
CONFIGS = {
    "fm1": ("fm", 1, {}),
    "base": ("jet", 1, {}),
    "relaxed": ("jet", 1, {"rule": "relaxed"}),
    "floor": ("jet", 1, {"rule": "jet"}),
    "c25": ("jet", 1, {"filter": (0.25, 0.25)}),
    "c5": ("jet", 1, {"filter": (0.5, 0.25)}),
    "c75": ("jet", 1, {"filter": (0.75, 0.25)}),
    "floor25": ("jet", 1, {"rule": "jet", "filter": (0.25, 0.25)}),
    "p24": ("jet", 1, {"patience": 24}),
    "floorp24": ("jet", 1, {"rule": "jet", "patience": 24}),
    "c25p24": ("jet", 1, {"filter": (0.25, 0.25), "patience": 24}),
    "single": ("jet", 1, {"phases": {c: (c,) for c in J.FILTER}}),
    "anneal": ("jet", 1, {"phases": {0.75: (0.75, 0.25)}}),
    "anneal3": ("jet", 1, {"phases": {0.75: (0.75, 0.5, 0.25)}}),
    "annealall": ("jet", 1, {"phases": {0.75: (0.75, 0.25), 0.25: (0.75, 0.25)}}),
    "greedy": ("jet", 1, {"phases": {0.75: (0.25, 0.75, 0.25)}}),
    **{f"then{p}": ("jet", 1, {"phases": {0.75: (0.75, (0.25, p))}}) for p in (2, 4, 6)},
}


def run(config, G, k, seed=0):
    refine, tries, knobs = CONFIGS[config]
    J.PATIENCE = knobs.get("patience", ORIGINAL["PATIENCE"])
    f = knobs.get("filter")  # one run per level at c = f[0] on coarse levels, f[1] on the finest
    J.SCHEDULE = ((f[0],), (f[1],)) if f else ORIGINAL["SCHEDULE"]
    J._Level.__init__ = _theta(RULES[knobs["rule"]]) if "rule" in knobs else ORIGINAL["init"]
    J._Rounds.step = _counted
    J._refine_level = _phased(knobs["phases"]) if "phases" in knobs else ORIGINAL["level"]
    ROUNDS.clear()
    c = time.process_time()
    r = gg.partition(G, k, refine=refine, tries=tries, seed=seed, backend="numba")
    return r, time.process_time() - c, len(ROUNDS)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--k", type=int, nargs="*", default=[2, 8])
    parser.add_argument("--configs", nargs="*", default=["base", "c25"])
    parser.add_argument("--graphs", nargs="*")
    parser.add_argument("--seeds", type=int, nargs="*", default=[0])
    parser.add_argument("--json")
    args = parser.parse_args()
    gg.backends.set_threads(1)
    print("load average", os.getloadavg(), flush=True)
    ref = json.load(open(HERE.parents[2] / "session-9/partition/quality.json"))["rows"]
    data = pathlib.Path("/work/shared/data")
    specs = args.graphs or ["laplace3d:100"] + [str(p) for p in sorted(data.glob("*.mtx.gz"))]
    configs = ["fm1"] + [c for c in args.configs if c != "fm1"]
    rows = []
    for spec in specs:
        name = pathlib.Path(spec).name.removesuffix(".mtx.gz")
        A = largest_component(matrix(spec))
        G = gg.as_graph(A)
        for k, seed in ((k, seed) for k in args.k for seed in args.seeds):
            peers = next(r["runs"] for r in ref[str(k)] if r["graph"] == name)
            row = {"graph": name, "n": A.shape[0], "k": k, "seed": seed, "metis": peers["metis"]["cut"],
                   "kaminpar": peers["kaminpar"]["cut"]}
            run("base", G, k, seed)  # compile, and the graph's cached views
            for config in configs:
                r, s, rounds = run(config, G, k, seed)
                cut, imb = cut_and_imbalance(A, np.asarray(r.parts, dtype=np.int64), k)
                row[config] = {"cut": int(cut), "imbalance": float(imb), "cpu_s": round(s, 3), "rounds": rounds}
            print(json.dumps(row), flush=True)
            rows.append(row)
    for k in args.k:
        ks = [r for r in rows if r["k"] == k]
        for config in configs:
            km = math.exp(np.mean([math.log(r[config]["cut"] / r["kaminpar"]) for r in ks]))
            fm = math.exp(np.mean([math.log(r[config]["cut"] / r["fm1"]["cut"]) for r in ks]))
            big = [r[config]["cut"] / r["fm1"]["cut"] for r in ks if r["n"] >= 100_000 and r["seed"] == 0]
            line = (f"k={k} {config:9s} {len(ks)} runs cut/KM {km:.3f}  cut/fm1 {fm:.3f}  <=METIS "
                    f"{sum(r[config]['cut'] <= r['metis'] for r in ks)}/{len(ks)}  max imb "
                    f"{100 * max(r[config]['imbalance'] for r in ks):.2f}%  rounds {sum(r[config]['rounds'] for r in ks)}"
                    f"  cpu {sum(r[config]['cpu_s'] for r in ks):.1f} s  n>=1e5: max/fm1 {max(big or [0]):.3f}"
                    f" <=1.05 {sum(b <= 1.05 for b in big)}/{len(big)}")
            print(line, flush=True)
    if args.json:
        json.dump({"load_average": os.getloadavg(), "rows": rows}, open(args.json, "w"), indent=1)


if __name__ == "__main__":
    main()

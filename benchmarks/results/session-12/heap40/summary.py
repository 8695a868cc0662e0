"""Table of a repeat-*.txt file: per (graph, k) the least CPU ms of gg.partition over its rounds'
minima, d56ef1d ("base") and this branch ("new"), base / new (> 1: new faster), and where
recorded the same for the refinement phase's least wall ms; geometric means below.

    python summary.py repeat-bottom-up-2.txt
"""

import collections
import json
import math
import sys

runs = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    if not line.startswith("#"):
        tree, row = line.split(" ", 1)
        runs[tree][(row := json.loads(row))["graph"], row["k"]].append(row)


def least(rows, field):
    return min(r[field] for r in rows) if all(field in r for r in rows) else math.nan


def geomean(xs):
    xs = [x for x in xs if x == x]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else math.nan


print("| graph | k | total d56ef1d → this (ms) | speed-up | refine d56ef1d → this (ms) | speed-up |")
print("|---|---:|---:|---:|---:|---:|")
total, refine = [], []
for key, rows in runs["base"].items():
    new = runs["new"][key]
    (b, n), (rb, rn) = [(least(rows, f), least(new, f)) for f in ("min_s", "refine_min_s")]
    total.append(b / n)
    refine.append(rb / rn)
    print(f"| {key[0]} | {key[1]} | {1000 * b:.1f} → {1000 * n:.1f} | {b / n:.3f} "
          f"| {1000 * rb:.1f} → {1000 * rn:.1f} | {rb / rn:.3f} |")
print(f"geometric-mean speed-up: total {geomean(total):.3f}, refine {geomean(refine):.3f}")

"""Gathers the bench passes of each run (bench-*.json): hec+jet ms per graph, new against base
(81b2177) or, in run 6, prev (run 5's tree), with KaMinPar's from the first new pass and the
cuts; writes ab.txt."""
import glob
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
lines = []
for run in sorted(glob.glob(os.path.join(HERE, "run*"))):
    passes = {}
    for path in sorted(glob.glob(os.path.join(run, "bench-*.json"))):
        name = os.path.basename(path)[6:-5]
        for row in json.load(open(path))["rows"]["2"]:
            passes.setdefault(row["graph"].split("/")[-1], []).append((name, row["runs"]))
    lines.append(os.path.basename(run))
    for graph, seen in passes.items():
        ms = {tree: [round(r["hec+jet"]["ms"]) for name, r in seen if name.startswith(tree)]
              for tree in ("new", "base", "prev")}
        kaminpar = [round(r["kaminpar"]["ms"]) for _, r in seen if "kaminpar" in r]
        cuts = sorted({r["hec+jet"]["cut"] for _, r in seen})
        other = "prev" if ms["prev"] else "base"  # run 6 ran run 5's tree (prev) against its own
        lines.append(f"  {graph:22s} new {ms['new']}  {other} {ms[other]}  kaminpar {kaminpar}  cuts {cuts}")
open(os.path.join(HERE, "ab.txt"), "w").write("\n".join(lines) + "\n")
print("\n".join(lines))

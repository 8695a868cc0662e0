"""The A/B table of each run's bench passes (runN/bench-*.json, bench_partition.py): per graph,
KaMinPar's ms (16 threads, the first new pass), hec+jet's ms in every base and new pass, the
medians over passes, and the cuts seen; writes ab.txt."""
import glob
import json
import os
import statistics

HERE = os.path.dirname(os.path.abspath(__file__))
out = []
for run in sorted(glob.glob(os.path.join(HERE, "run*"))):
    passes = sorted(glob.glob(os.path.join(run, "bench-*.json")))
    if not passes:
        continue
    table = {}
    for path in passes:
        tree = os.path.basename(path)[len("bench-"):-len(".json")].rstrip("0123456789")
        for row in json.load(open(path))["rows"]["2"]:
            entry = table.setdefault(row["graph"].split("/")[-1].removesuffix(".mtx.gz"), {"cuts": set()})
            entry.setdefault(tree, []).append(row["runs"]["hec+jet"]["ms"])
            entry["cuts"].add(row["runs"]["hec+jet"]["cut"])
            if "kaminpar" in row["runs"]:
                entry["kaminpar"] = row["runs"]["kaminpar"]["ms"]
    out.append(f"{os.path.basename(run)}: ms, medians of --repeat 5 per pass; median over passes in brackets")
    out.append(f"  {'graph':16s} {'KaMinPar':>8s}  {'base passes':22s} {'new passes':22s} {'base':>6s} {'new':>6s}  cuts")
    for graph, e in table.items():
        base, new = e.get("base", []), e.get("new", [])
        out.append(f"  {graph:16s} {e.get('kaminpar', float('nan')):8.0f}  {' '.join(f'{x:.0f}' for x in base):22s} "
                   f"{' '.join(f'{x:.0f}' for x in new):22s} [{statistics.median(base):4.0f}] [{statistics.median(new):4.0f}]  "
                   f"{sorted(e['cuts'])}")
open(os.path.join(HERE, "ab.txt"), "w").write("\n".join(out) + "\n")
print("\n".join(out))

"""Issue 39's rows from cpu_final.sh's JSON: SpMV-eq (the least of 5 calls, or with a third argument
``median`` their median, over scipy's SpMV), old -> new, two runs each:
``python table.py FOLDER 2t|1t [median]``."""
import json, sys
from pathlib import Path
d = Path(sys.argv[1]); t = sys.argv[2] if len(sys.argv) > 2 else "2t"
stat = " median" if sys.argv[3:] == ["median"] else ""
cols = ["as_graph", "mis2(G)", "mis2(A)", "aggregate", "color", "coarsen", "hec hierarchy"]
runs = {(tree, k): {r["graph"]: r for r in json.load(open(d / f"rounds-{tree}-{t}-{k}.json"))["rows"]}
        for tree in ("old", "new") for k in (1, 2)}
print("| row |", " | ".join(runs["old", 1]), "|")
print("|---" * 5 + "|")
for c in cols:
    cells = []
    for g in runs["old", 1]:
        f = lambda tree, k: runs[tree, k][g][c + stat] / runs[tree, k][g]["spmv_ms"]
        cells.append(f"{f('old', 1):.1f}, {f('old', 2):.1f} → {f('new', 1):.1f}, {f('new', 2):.1f}")
    print(f"| {c} |", " | ".join(cells), "|")

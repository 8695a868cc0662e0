"""Table of an ab.py JSON: per graph and row, SpMV-eq (the call's minimum over the same
process's scipy SpMV), range over the rounds and median, each tree; ms medians beside.
usage: python summary.py ab-1thread.json [cpu|wall]"""
import json
import statistics
import sys

runs = json.load(open(sys.argv[1]))
clock = sys.argv[2] if len(sys.argv) > 2 else "cpu"
trees = list(dict.fromkeys(r["tree"] for r in runs))
graphs = [g for g in runs[0]["result"] if g != "gbgraph"]
rows = [k for k in runs[0]["result"][graphs[0]] if k != "spmv"]
loads = [float(r["load"].split()[0]) for r in runs]
print(f"{len(runs)} processes, load average {min(loads):.1f}-{max(loads):.1f}, clock {clock}")
print("| graph | " + " | ".join(rows) + " |")
print("|---" * (len(rows) + 1) + "|")
for g in graphs:
    cells = []
    for k in rows:
        parts = []
        for t in trees:
            eq = [r["result"][g][k][clock][0] / r["result"][g]["spmv"][clock][0] for r in runs if r["tree"] == t]
            ms = [r["result"][g][k][clock][0] for r in runs if r["tree"] == t]
            parts.append(f"{min(eq):.2f}-{max(eq):.2f} ({statistics.median(eq):.2f}; {statistics.median(ms):.1f} ms)")
        cells.append(" → ".join(parts))
    print(f"| {g.split('.')[0]} | " + " | ".join(cells) + " |")

"""The table of docs/backends.md ("Session 10: as_graph") from ab.py's JSON: per graph and
tree, each row's SpMV-eq (the minimum of the process's calls over its own SpMV) in every
round, as a range, and their median. usage: summary.py ab-2.json [threads] [clock]"""
import json, os, statistics, sys

runs = json.load(open(sys.argv[1]))
threads = int(sys.argv[2]) if len(sys.argv) > 2 else 1
clock = sys.argv[3] if len(sys.argv) > 3 else ("cpu" if threads == 1 else "wall")
trees = list(dict.fromkeys(r["tree"] for r in runs))
loads = [float(r["load"].split()[0]) for r in runs if r["threads"] == threads]
print(f"threads {threads}, {clock} clock, load average {min(loads):.1f}-{max(loads):.1f}")
graphs = [g for g in runs[0]["result"] if g != "gbgraph"]
for g in graphs:
    cells = []
    for name in ("as_graph", "mis2(A)", "mis2(G)"):
        parts = []
        for tree in trees:
            v = [r["result"][g][name][clock][0] / r["result"][g]["spmv"][clock][0]
                 for r in runs if r["tree"] == tree and r["threads"] == threads]
            parts.append(f"{min(v):.2f}-{max(v):.2f} (median {statistics.median(v):.2f})")
        cells.append(f"{name}: " + " -> ".join(parts))
    print(f"{g}: " + " | ".join(cells))
print("trees:", " -> ".join(os.path.basename(t.rstrip("/")) for t in trees))

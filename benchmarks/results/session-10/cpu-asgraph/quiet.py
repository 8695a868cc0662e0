"""2-thread wall-clock rows of ab.py's JSON files, kept only where the process ran at the
machine's quiet speed: per graph, the rounds whose ``mis2(G)`` (code the trees share) took at
most 1.15 times its least time over both trees and all files; a competing process that
slows the parallel regions slows that call too. usage: quiet.py ab-3.json ab-4.json"""
import json, os, sys

runs = [r for f in sys.argv[1:] for r in json.load(open(f)) if r["threads"] == 2]
graphs = [g for g in runs[0]["result"] if g != "gbgraph"]
trees = list(dict.fromkeys(r["tree"] for r in runs))
for g in graphs:
    eq = lambda r, k: r["result"][g][k]["wall"][0] / r["result"][g]["spmv"]["wall"][0]
    floor = min(eq(r, "mis2(G)") for r in runs)
    quiet = [r for r in runs if eq(r, "mis2(G)") <= 1.15 * floor]
    cells = []
    for k in ("as_graph", "mis2(A)", "mis2(G)"):
        parts = []
        for t in trees:
            v = sorted(eq(r, k) for r in quiet if r["tree"] == t)
            parts.append(f"{v[0]:.2f}-{v[-1]:.2f} (n={len(v)})" if v else "none quiet")
        cells.append(f"{k} " + " -> ".join(parts))
    print(f"{g}: " + " | ".join(cells))
print("trees:", " -> ".join(os.path.basename(t.rstrip("/")) for t in trees))

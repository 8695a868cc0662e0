"""Medians over the rounds of ab.py's JSON files: per graph and row, each tree's ms (CPU, min of the calls)
and SpMV-eq (that over the same process's SpMV), with the range of SpMV-eq.

    python summary.py ab-1thread.json [more.json ...]
"""
import collections, json, os, sys
import numpy as np

rows = collections.defaultdict(list)
for path in sys.argv[1:]:
    for run in json.load(open(path)):
        clock = "cpu" if run["threads"] == 1 else "wall"
        tree = os.path.basename(run["tree"].rstrip("/"))
        for graph, r in run["result"].items():
            if graph == "gbgraph":
                continue
            spmv = r["spmv"][clock][0]
            for name, v in r.items():
                if name != "spmv":
                    rows[graph, name, tree].append((v[clock][0], v[clock][0] / spmv))
graphs = sorted({g for g, _, _ in rows})
names = list(dict.fromkeys(n for _, n, _ in rows))
trees = list(dict.fromkeys(t for _, _, t in rows))
for g in graphs:
    print(g)
    for n in names:
        cells = []
        for t in trees:
            v = np.array(rows.get((g, n, t), []))
            if v.size:
                cells.append(f"{t} {np.median(v[:, 0]):.1f} ms, {np.median(v[:, 1]):.2f} ({v[:, 1].min():.2f}-{v[:, 1].max():.2f}, {len(v)} rounds)")
        print(f"  {n:10s} " + " -> ".join(cells))

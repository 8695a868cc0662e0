"""The rows of bench_cpu_rounds.py's JSON files (rounds-1thread-TAG-TREE-rN.json), per graph and row: each
tree's SpMV-eq (the minimum of the calls over the same process's SpMV) in every round, and the median ms.

    python rounds_summary.py small mesh
"""
import glob, json, os, sys
import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
NAMES = ("mis2(G)", "mis2(A)", "aggregate", "coarsen")
for tag in sys.argv[1:]:
    table = {}
    for path in sorted(glob.glob(os.path.join(HERE, f"rounds-1thread-{tag}-*-r*.json"))):
        tree = path.split(f"rounds-1thread-{tag}-")[1].split("-r")[0]
        for row in json.load(open(path))["rows"]:
            for name in NAMES:
                table.setdefault((row["graph"], name), {}).setdefault(tree, []).append((row[name], row[name] / row["spmv_ms"]))
    for (graph, name), trees in table.items():
        cells = [f"{tree}: " + ", ".join(f"{eq:.1f}" for _, eq in v) + f" (median {np.median([ms for ms, _ in v]):.1f} ms)"
                 for tree, v in sorted(trees.items(), key=lambda kv: kv[0] != "old")]
        print(f"{graph:14s} {name:10s} " + " -> ".join(cells))

"""ab-N.txt -> the table: per graph and configuration the cut (deterministic) and the minimum
CPU ms over the rounds, before (main) / after (cap 0.5) / cap 0.25, and geometric means of the
after/before ratios without c-55. Usage: python table.py ab-1.txt"""
import json, math, sys
runs = {}
for line in open(sys.argv[1]):
    tree, rest = line.split(" ", 1)
    data = json.loads(rest[rest.index("{"):])
    for graph, configs in data.items():
        for config, (cut, ms, imb) in configs.items():
            r = runs.setdefault((graph, config), {}).setdefault(tree, [cut, ms, imb, 0])
            assert r[0] == cut, (graph, config, tree, r[0], cut)
            r[1] = min(r[1], ms)
            r[3] += 1
print("| graph | config | cut before | cut cap 0.5 | cut cap 0.25 | ms before | ms cap 0.5 | ms cap 0.25 |")
print("|---|---|---|---|---|---|---|---|")
ratios = {t: {"cut": [], "ms": []} for t in ("new", "new25")}
for (graph, config), r in runs.items():
    row = [graph, config]
    row += [f"{r[t][0]:,.0f}" if t in r else "-" for t in ("old", "new", "new25")]
    row += [f"{r[t][1]:,.0f}" if t in r else "-" for t in ("old", "new", "new25")]
    print("| " + " | ".join(row) + " |")
    if graph != "c-55" and "old" in r:
        for t in ("new", "new25"):
            if t in r:
                ratios[t]["cut"].append(r[t][0] / r["old"][0])
                ratios[t]["ms"].append(r[t][1] / r["old"][1])
for t, name in (("new", "cap 0.5"), ("new25", "cap 0.25")):
    for q in ("cut", "ms"):
        v = ratios[t][q]
        if v:
            print(f"{name}: geomean {q} ratio over the other graphs = {math.exp(sum(map(math.log, v)) / len(v)):.4f} "
                  f"(min {min(v):.3f}, max {max(v):.3f}, {len(v)} rows)")
print("rounds per tree:", {t: max([r[t][3] for r in runs.values() if t in r], default=0) for t in ("old", "new", "new25")})

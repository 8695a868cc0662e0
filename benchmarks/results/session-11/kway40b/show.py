"""Print a sweep's rows compactly: per graph, each configuration's cut over KaMinPar's and CPU s."""
import json
import sys

data = json.load(open(sys.argv[1]))
configs = sys.argv[2:] or list(data["configs"])
print(f"{'graph':22s} {'n':>8s} {'KaMinPar':>8s} {'METIS':>7s} " + " ".join(f"{c:>16s}" for c in configs))
for r in data["rows"]:
    cells = " ".join(f"{r[c]['cut']:7d} {r[c]['cut'] / r['kaminpar']:.3f} {r[c]['cpu_s']:.2f}"[:16].rjust(16)
                     for c in configs)
    print(f"{r['graph']:22s} {r['n']:8d} {r['kaminpar']:8d} {r['metis']:7d} {cells}")

"""Summary of a sweep's JSON (issue 40, session 13, kway40d): per graph each configuration's cut
and CPU ms; per configuration the geometric-mean cut ÷ KaMinPar's over all graphs, the graphs
≤ METIS, and the geometric-mean CPU time ÷ the first configuration's over the graphs of
≥ 30,000 vertices (the same process). Run: ``python summary.py sweep-1.json``.
"""

import json
import math
import sys

rows = json.load(open(sys.argv[1]))["rows"]
configs = [k for k in rows[0] if isinstance(rows[0][k], dict)]
big = [r for r in rows if r["n"] >= 30000]
print("graph".ljust(22), " ".join(f"{c:>16}" for c in configs))
for r in rows:
    print(r["graph"][:21].ljust(22), " ".join(f"{r[c]['cut']:>8} {1e3 * r[c]['cpu_s']:6.0f}ms" for c in configs))
for c in configs:
    cut = math.exp(sum(math.log(r[c]["cut"] / r["kaminpar"]) for r in rows) / len(rows))
    metis = sum(r[c]["cut"] <= r["metis"] for r in rows)
    time = math.exp(sum(math.log(r[c]["cpu_s"] / r[configs[0]]["cpu_s"]) for r in big) / len(big))
    print(f"{c:10} cut/KM {cut:.4f} <=METIS {metis}/{len(rows)} time/{configs[0]} (>=30k, gm) {time:.3f}")

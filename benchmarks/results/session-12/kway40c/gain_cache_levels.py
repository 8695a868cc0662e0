"""Each k-way FM level of gg.partition(A, 8) timed with the row sums, the gain cache, and the
cache in the passes only (issue 40, session 12). Needs gain-cache.patch applied (git apply): its
``_exact`` and ``LOCAL_CACHE`` choose the mode. Run from the root, one thread:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-12/kway40c/gain_cache_levels.py \
        lap60 mdual coAuthorsDBLP
"""

import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))  # benchmarks/
import gbgraph as gg
from gbgraph.algorithms import refine_kway as R
from bench_partition import largest_component
from common import matrix
gg.backends.set_threads(1)
exact = R._exact
orig = R.kway_fm
rows = []
def probe(hg, parts, k, bound, **kw):
    res = {}
    for rep in range(3):
        for mode, lc in (("row", False), ("cache", True), ("cache-rowlocal", False)):
            R._exact = exact if mode != "row" else (lambda w: False); R.LOCAL_CACHE = lc
            p = parts.copy(); c = time.process_time(); key = orig(hg, p, k, bound, **kw); t = time.process_time() - c
            res.setdefault(mode, []).append(t)
    R._exact = exact; R.LOCAL_CACHE = True
    deg = np.diff(hg.indptr)
    rows.append((hg.n, hg.indices.size / hg.n, int(deg.max()), {m: min(v) for m, v in res.items()}))
    return orig(hg, parts, k, bound, **kw)
R.kway_fm = probe
for name in sys.argv[1:]:
    A = largest_component(matrix(f"/work/shared/data/{name}.mtx.gz")) if not name.startswith("lap") else gg.generators.laplace3d(int(name[3:]))
    R.kway_fm = orig; gg.partition(A, 8); R.kway_fm = probe
    rows.clear(); gg.partition(A, 8)
    tot = {m: sum(r[3][m] for r in rows) for m in rows[0][3]}
    print(name, "total", {m: round(v, 4) for m, v in tot.items()}, flush=True)
    for n, d, mx, t in rows:
        print(f"   n {n:8d} mean deg {d:6.1f} max {mx:6d} " + " ".join(f"{m} {v*1000:7.2f}" for m, v in t.items()), flush=True)

"""c-55's HEC hierarchy: the heaviest coarse vertex per level, against other graphs; and the cut
of hec+fm against hem+fm and mis2+fm (gbgraph's other coarsenings) on it."""
import sys, warnings
sys.path.insert(0, "benchmarks")  # run from the repository root
import numpy as np
import gbgraph as gg
from bench_partition import largest_component, cut_and_imbalance
from common import matrix

gg.backends.set_threads(1)
for name in sys.argv[1:]:
    A = largest_component(matrix(f"/work/shared/data/{name}.mtx.gz"))
    n = A.shape[0]
    for seed in (0, 1, 2):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            h = gg.coarsen(A, "hec", seed=seed)
        cells = [f"{lv.n}:{100 * int(np.max(lv.vertex_weights)) / n:.0f}%" for lv in h]
        print(f"{name} n={n:,} seed {seed}: levels n:heaviest share  " + " ".join(cells), flush=True)
    if name == "c-55":
        for k in (2, 8):
            row = []
            for c in ("hec", "hem", "mis2"):
                parts = gg.partition(A, k, coarsening=c).parts
                cut, imb = cut_and_imbalance(A, parts, k)
                row.append(f"{c}+fm {cut:,} ({100 * imb:.1f}%)")
            print(f"c-55 k={k}: " + ", ".join(row), flush=True)

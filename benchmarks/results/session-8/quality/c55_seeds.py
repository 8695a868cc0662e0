"""c-55: the cut of one try from each seed (seed 0's HEC hierarchy collapses), recursive and kway."""
import sys
sys.path.insert(0, "benchmarks")  # run from the repository root
import gbgraph as gg
from bench_partition import largest_component, cut_and_imbalance
from common import matrix

gg.backends.set_threads(1)
A = largest_component(matrix("/work/shared/data/c-55.mtx.gz"))
for k in (2, 8):
    for method in ("recursive", "kway"):
        cells = []
        for seed in (0, 1, 2):
            cut, imb = cut_and_imbalance(A, gg.partition(A, k, method=method, tries=1, seed=seed).parts, k)
            cells.append(f"seed {seed}: {cut:,}")
        cut, imb = cut_and_imbalance(A, gg.partition(A, k, method=method).parts, k)
        print(f"c-55 k={k} {method}, tries=1: " + ", ".join(cells) + f"; tries=3 (seeds 0-2): {cut:,}", flush=True)

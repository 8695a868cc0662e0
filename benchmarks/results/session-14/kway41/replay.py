"""Replay captured kway_fm calls (capture.py): check the parts against the captured ones and
time kway_fm alone (CPU, median of --runs). From the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-14/kway41/replay.py FILES...
"""

import argparse
import statistics
import time

import numpy as np
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.algorithms import refine_kway as K
from gbgraph.algorithms.refine_fm import HostGraph


def load(path):
    z = np.load(path)
    n = z["indptr"].size - 1
    A = sp.csr_matrix((z["weights"], z["indices"], z["indptr"]), shape=(n, n))
    hg = HostGraph(gg.as_graph(A), z["vw"], z["keys"])
    hg.indptr, hg.indices, hg.weights = z["indptr"], z["indices"], z["weights"]  # exactly the captured arrays
    cut = float(z["cut"])
    return hg, z, None if np.isnan(cut) else cut


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    gg.backends.set_threads(1)
    for path in args.files:
        hg, z, cut = load(path)
        times = []
        for _ in range(args.runs):
            parts = z["parts"].copy()
            start = time.process_time()
            key = K.kway_fm(hg, parts, int(z["k"]), float(z["bound"]), cut=cut)
            times.append(time.process_time() - start)
        same = np.array_equal(parts, z["after"]) and tuple(key) == tuple(z["key"])
        print(f"{path}: {1e3 * statistics.median(times):7.2f} ms  same {same}  key {key}", flush=True)


if __name__ == "__main__":
    main()

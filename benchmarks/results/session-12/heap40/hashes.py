"""sha1 of gg.partition(A, k)'s parts, k = 2 and 8, on the graphs named below, for the tree on
PYTHONPATH; prints one JSON line per (graph, k) with the parts' hash and the CPU seconds of
the second (timed) call. Run with PYTHONPATH=<tree> and NUMBA_NUM_THREADS=1."""

import gzip
import hashlib
import json
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp

import gbgraph as gg

DATA = "/work/shared/data"


def shared(name):
    with gzip.open(f"{DATA}/{name}.mtx.gz") as f:
        A = sp.csr_matrix(scipy.io.mmread(f))
    A = abs(A) + abs(A.T)
    A.setdiag(0)
    A.eliminate_zeros()
    A.data[:] = 1.0  # a pattern, as bench_partition.py
    return A


def weighted_grid(n=200, seed=1):
    """A 2D grid's graph with real edge weights in (0, 1] (seeded)."""
    G = sp.kron(sp.eye(n), sp.diags([1, 1], [-1, 1], (n, n))) + sp.kron(sp.diags([1, 1], [-1, 1], (n, n)), sp.eye(n))
    U = sp.triu(G, 1).tocoo()
    w = 1.0 - np.random.default_rng(seed).random(U.nnz)
    U = sp.csr_matrix((w, (U.row, U.col)), U.shape)
    return (U + U.T).tocsr()


GRAPHS = {
    "laplace3d-30": lambda: gg.generators.laplace3d(30),
    "elasticity3d-12": lambda: gg.generators.elasticity3d(12),
    "weighted-grid-200": weighted_grid,
    **{name: (lambda name=name: shared(name)) for name in
       ["c-55", "wiki-Vote", "PGPgiantcompo", "debian_bookworm_deps", "mdual", "coAuthorsDBLP"]},
}

names = sys.argv[1:] or list(GRAPHS)
for name in names:
    A = GRAPHS[name]()
    for k in (2, 8):
        gg.partition(A, k)
        t = time.process_time()
        parts = np.asarray(gg.partition(A, k).parts, np.int64)
        cpu = time.process_time() - t
        print(json.dumps({"graph": name, "k": k, "sha1": hashlib.sha1(parts.tobytes()).hexdigest()[:12],
                          "cpu_s": round(cpu, 3)}), flush=True)

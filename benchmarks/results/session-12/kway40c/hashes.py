"""Hash (sha1 of the int64 parts) and cut of gg.partition(A, k)'s defaults on the shared graphs,
Laplace3D and Elasticity3D, for comparing two trees (issue 40, session 12). Each
partition is timed (CPU) on its second run. Run from a tree's
root, once per tree and thread count, and compare the lines:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-12/kway40c/hashes.py \
        /work/shared/data 8 > new-1t.txt
"""

import hashlib
import pathlib
import sys
import time

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402

data, ks = pathlib.Path(sys.argv[1]), [int(k) for k in sys.argv[2:]] or [8]
graphs = [("Laplace3D 40³", lambda: gg.generators.laplace3d(40)),
          ("Elasticity3D 12³", lambda: gg.generators.elasticity3d(12))]


def weighted():
    """Laplace3D 30³ with random real weights (symmetric): the path without the gain cache."""
    import scipy.sparse as sp

    A = sp.triu(gg.generators.laplace3d(30), 1).tocoo()
    A.data = np.random.default_rng(1).uniform(0.5, 2.0, A.nnz)
    return (A + A.T).tocsr()


graphs.append(("Laplace3D 30³ real", weighted))
graphs += [(p.name[:-7], lambda p=p: largest_component(matrix(str(p)))) for p in sorted(data.glob("*.mtx.gz"))]
print(f"gbgraph from {gg.__file__}", flush=True)
for name, make in graphs:
    A = make()
    for k in ks:
        gg.partition(A, k)  # compiled on first use: timed the second time
        start = time.process_time()
        r = gg.partition(A, k)
        seconds = time.process_time() - start
        parts = np.asarray(r.parts, np.int64)
        print(f"{name:22s} k={k} {hashlib.sha1(parts.tobytes()).hexdigest()[:12]} cut {r.cut:g} "
              f"cpu {seconds:.3f}", flush=True)

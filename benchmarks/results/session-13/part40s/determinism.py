"""gg.partition(A, 2)'s parts on both CPU backends and at 1 and 2 threads (issue 40, session 13,
part40s): sha1 of the int64 parts per run, one line per graph. Run from the repository root:

    GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-13/part40s/determinism.py [graphs]
"""

import hashlib
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402


def sha(parts):
    return hashlib.sha1(np.asarray(parts, np.int64).tobytes()).hexdigest()[:12]


for name in sys.argv[1:] or ["c-55", "cond-mat-2005", "pgp-strong-2009", "usroads", "delaunay_n17",
                             "coAuthorsDBLP", "delaunay_n14", "laplace3d:30"]:
    A = largest_component(gg.generators.laplace3d(30) != 0) if name == "laplace3d:30" else \
        largest_component(matrix(f"/work/shared/data/{name}.mtx.gz"))
    runs = {}
    for backend, threads in (("numba", 1), ("numba", 2), ("suitesparse", 1), ("suitesparse", 2)):
        gg.backends.set_threads(threads)
        r = gg.partition(A, 2, backend=backend)
        runs[f"{backend}/{threads}"] = (sha(r.parts), r.cut)
    same = len(set(runs.values())) == 1
    print(f"{name:22s} nnz {A.nnz:>9,}  {'same' if same else 'DIFFERENT'}  {runs}", flush=True)

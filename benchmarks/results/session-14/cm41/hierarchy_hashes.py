"""sha1 of coarsen() hierarchies (every level's graph, labels and vertex weights) and of an
AMG hierarchy's coarse operators, for comparing two trees (issue 40, session 14, cm41: the
coarse-graph kernel's changes must leave them bit for bit). Run from a tree's root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python benchmarks/results/session-14/cm41/hierarchy_hashes.py
"""

import hashlib
import pathlib
import sys

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402


def digest(*arrays):
    h = hashlib.sha1()
    for a in arrays:
        if a is not None:
            h.update(np.ascontiguousarray(np.asarray(a)).tobytes())
    return h.hexdigest()[:12]


def hierarchy(h):
    return digest(*[x for level in h for x in (level.graph.indptr, level.graph.indices, level.graph.weights,
                                                level.labels, level.vertex_weights)])


def weighted():
    A = sp.triu(gg.generators.laplace3d(20), 1).tocoo()
    A.data = np.random.default_rng(1).uniform(0.5, 2.0, A.nnz)
    return (A + A.T).tocsr()


data = pathlib.Path("/work/shared/data")
graphs = [("Laplace3D 30³", gg.generators.laplace3d(30)), ("Elasticity3D 10³", gg.generators.elasticity3d(10)),
          ("Laplace3D 20³ real", weighted())]
graphs += [(name, largest_component(matrix(str(data / f"{name}.mtx.gz"))))
           for name in ("cond-mat-2005", "usroads", "wiki-Vote", "c-55")]
print(f"gbgraph from {gg.__file__}")
for name, A in graphs:
    for method, options in (("hec", {}), ("hec", {"max_weight": 64}), ("mis2", {}), ("hem", {})):
        h = gg.coarsen(A, method, **options)
        print(f"{name:20s} {method} {options or ''} levels {len(h)} {hierarchy(h)}", flush=True)
    for weights in ("abs", "pattern"):
        h = gg.coarsen(A, "hec", weights=weights, seed=3)
        print(f"{name:20s} hec weights={weights} seed 3 levels {len(h)} {hierarchy(h)}", flush=True)
for name, A in graphs[:2]:
    ml = gg.amg.smoothed_aggregation_solver(sp.csr_array(A))
    print(f"{name:20s} smoothed_aggregation_solver levels {len(ml.levels)} "
          f"{digest(*[x for level in ml.levels for x in (level.A.indptr, level.A.indices, level.A.data)])}", flush=True)

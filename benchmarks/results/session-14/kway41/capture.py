"""Save every kway_fm call's inputs and result inside gg.partition(A, k)'s default (one
thread) to an .npz per level, for replaying k-way FM alone (replay.py). From the repository root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python \
        benchmarks/results/session-14/kway41/capture.py OUT coAuthorsDBLP
"""

import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402
from gbgraph.algorithms import refine_kway as K  # noqa: E402


def main():
    out = pathlib.Path(sys.argv[1])
    out.mkdir(parents=True, exist_ok=True)
    k = 8
    inner = K.kway_fm
    for name in sys.argv[2:]:
        calls = []

        def fm(hg, parts, kk, bound, **kw):
            before = parts.copy()
            key = inner(hg, parts, kk, bound, **kw)
            calls.append(dict(indptr=hg.indptr, indices=hg.indices, weights=hg.weights, vw=hg.vertex_weights,
                              keys=hg.keys, parts=before, k=kk, bound=bound, cut=np.nan if kw.get("cut") is None
                              else kw["cut"], after=parts.copy(), key=np.array(key)))
            return key
        K.kway_fm = fm
        gg.backends.set_threads(1)
        A = largest_component(matrix(f"/work/shared/data/{name}.mtx.gz"))
        gg.partition(gg.as_graph(A), k)
        for i, c in enumerate(calls):
            np.savez(out / f"{name}-{i}-{c['indptr'].size - 1}.npz", **c)
            print(name, i, c["indptr"].size - 1, c["key"])


if __name__ == "__main__":
    main()

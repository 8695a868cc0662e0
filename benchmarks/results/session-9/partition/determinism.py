"""Hash of gg.partition(A, k)'s parts (defaults) on a few shared graphs, k = 2 and 8, on the
numba and suitesparse backends; run it once per thread count and compare the lines:

    for t in 1 2; do NUMBA_NUM_THREADS=$t python determinism.py $t ../shared/data; done
"""

import hashlib
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402

threads, data = int(sys.argv[1]), pathlib.Path(sys.argv[2])
gg.backends.set_threads(threads)
for name in ("c-55", "coAuthorsDBLP", "delaunay_n17", "debian_bookworm_deps", "wave"):
    A = largest_component(matrix(str(data / f"{name}.mtx.gz")))
    for k in (2, 8):
        hashes = {b: hashlib.sha1(np.asarray(gg.partition(A, k, backend=b).parts, np.int64).tobytes()).hexdigest()[:12]
                  for b in ("numba", "suitesparse")}
        same = "same" if len(set(hashes.values())) == 1 else "DIFFERENT"
        print(f"{threads} thread(s) {name} k={k} numba {hashes['numba']} suitesparse {hashes['suitesparse']} ({same})",
              flush=True)

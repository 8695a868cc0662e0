"""Hash (sha1 of the int64 parts) of gg.partition(A, k)'s defaults on the shared graphs on one
backend, in kway40c's ``hashes.py`` line format less the time, so that its lines compare with
that script's (numba) lines of another tree (issue 40, session 13, kway40e). Run from a
tree's root:

    NUMBA_NUM_THREADS=1 GBGRAPH_WARMUP=0 PYTHONPATH=$PWD python \
        benchmarks/results/session-13/kway40e/backend_hashes.py suitesparse /work/shared/data 2 8
"""

import hashlib
import pathlib
import sys

import numpy as np

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[3]))
import gbgraph as gg  # noqa: E402
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402

backend, data, ks = sys.argv[1], pathlib.Path(sys.argv[2]), [int(k) for k in sys.argv[3:]] or [8]
print(f"gbgraph from {gg.__file__}, backend {backend}", flush=True)
for p in sorted(data.glob("*.mtx.gz")):
    A = largest_component(matrix(str(p)))
    for k in ks:
        r = gg.partition(A, k, backend=backend)
        parts = np.asarray(r.parts, np.int64)
        print(f"{p.name[:-7]:22s} k={k} {hashlib.sha1(parts.tobytes()).hexdigest()[:12]} cut {r.cut:g}", flush=True)

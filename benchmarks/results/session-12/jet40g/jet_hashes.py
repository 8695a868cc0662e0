"""Hashes of gg.partition(cupyx A, k, refine="jet") parts on the GPU (k = 2, 4; tries 1 and the
default), for an A/B of two trees: the same hashes mean the same parts."""
import hashlib
import sys

import cupy
import cupyx.scipy.sparse as csp
import numpy as np
import scipy.sparse as sp

sys.path.insert(0, "benchmarks")
from bench_partition import largest_component  # noqa: E402
from common import matrix  # noqa: E402

import gbgraph as gg  # noqa: E402

for spec in sys.argv[1:]:
    A = largest_component(matrix(spec))
    G = csp.csr_matrix(sp.csr_matrix(A, dtype=np.float64))
    for k, tries in ((2, 1), (2, None), (4, 1)):
        r = gg.partition(G, k, refine="jet", tries=tries)
        parts = cupy.asnumpy(r.parts).astype(np.int64)
        print(f"{spec.split('/')[-1]:28s} k={k} tries={tries} cut={float(r.cut):,.0f} "
              f"sha={hashlib.sha256(parts.tobytes()).hexdigest()[:16]}", flush=True)

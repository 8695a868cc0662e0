import os, sys, hashlib, json, numpy as np, scipy.sparse as sp, numba
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../.."))  # benchmarks/common.py
import gbgraph as gg
from common import matrix
backend = sys.argv[1]; numba.set_num_threads(int(sys.argv[2]))
out = {}
for spec in sys.argv[3:]:
    A = sp.csr_matrix(matrix(spec))
    variants = {"w": gg.as_graph(A), "abs": gg.as_graph(abs(A)), "pat": gg.as_graph(A != 0)}
    for vn, G in variants.items():
        for method in ("hec", "hec3", "hem", "mtmetis", "gosh", "gosh_hec"):
            for seed in (0, 5):
                try:
                    m = gg.coarse_mapping(G, method, seed=seed, backend=backend)
                    r = hashlib.sha256(np.ascontiguousarray(m.labels).tobytes()).hexdigest()[:12] + f" {m.n_coarse} {m.rounds}"
                except Exception as e:
                    r = type(e).__name__
                out[f"{spec.split('/')[-1]}:{vn}:{method}:{seed}"] = r
json.dump(out, sys.stdout, indent=0)

import numpy as np, gbgraph as gg, scipy.sparse as sp
from gbgraph.algorithms import coloring as C
from gbgraph import backends
for spec in ["laplace3d:30", "/work/shared/data/coAuthorsDBLP.mtx.gz"]:
    if spec.endswith(".mtx.gz"): A = gg.io.read_matrix_market(spec)[0]
    else:
        name,_,d = spec.partition(":"); A = getattr(gg.generators,name)(*(int(x) for x in d.split(",")))
    G = gg.as_graph(sp.csr_matrix(A)); be = backends.for_graph("numba", G)
    for seed in (0, 7, 2**62):
        k = C._Keys(be, G, seed)
        rng = np.random.default_rng(seed % 1000)
        for bits in (1, k.degree_bits, 64 - k.nv):
            ids = np.sort(rng.choice(G.n, G.n // 3, replace=False))
            field = rng.integers(0, 2**bits, ids.size, dtype=np.uint64) if bits < 64 else rng.integers(0, 2**63, ids.size, dtype=np.uint64)
            u = np.uint64
            key = k._hash(ids); low = key & u((1 << k.nv) - 1); key >>= u(k.nv + bits); key <<= u(k.nv); key |= low; key |= field.astype(u) << u(64 - bits)
            assert np.array_equal(key, k.led(ids, field, bits)), (spec, seed, bits)
            f2 = field.astype(np.int64)
            assert np.array_equal(key, k.led(ids, f2, bits))
print("led same")

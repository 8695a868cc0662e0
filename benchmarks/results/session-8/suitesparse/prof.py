"""cProfile and per-verb wall timers of gg.coarsen(G, backend=BACKEND) on prepared
Laplace3D 100³, 2 threads: python prof.py [cprofile|verbs] [calls] [backend]"""
import sys, time, cProfile, pstats, collections, functools
import numpy as np, numba, graphblas as gb
import gbgraph as gg
numba.set_num_threads(2); gb.ss.config["nthreads"] = 2
G = gg.as_graph(gg.generators.laplace3d(100))
BACKEND = sys.argv[3] if len(sys.argv) > 3 else "suitesparse"
be = gg.backend(BACKEND)
mode = sys.argv[1] if len(sys.argv) > 1 else "verbs"; calls = int(sys.argv[2]) if len(sys.argv) > 2 else 3
gg.coarsen(G, backend=BACKEND)
if mode == "cprofile":
    p = cProfile.Profile(); p.enable()
    for _ in range(calls):
        gg.coarsen(G, backend=BACKEND)
    p.disable()
    pstats.Stats(p).sort_stats("tottime").print_stats(30)
else:
    acc = collections.defaultdict(lambda: [0, 0.0])
    depth = [0]
    def wrap(name, f):
        @functools.wraps(f)
        def g(*a, **k):
            if depth[0]:
                return f(*a, **k)
            depth[0] += 1; s = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                depth[0] -= 1
                key = name
                if name in ("mxv", "vxm", "select", "apply_index", "ewise_add", "ewise_mult", "apply"):
                    op = a[0]; key = f"{name}:{getattr(op, 'name', None) or getattr(op, '__name__', None) or op}"
                e = acc[key]; e[0] += 1; e[1] += time.perf_counter() - s
        return g
    for name in dir(type(be)):
        if name.startswith("_") or name in ("guard", "xp", "name", "index_dtype", "shares_arrays", "iterate", "fused"):
            continue
        f = getattr(be, name)
        if callable(f):
            setattr(be, name, wrap(name, f))
    best = 1e9
    for _ in range(calls):
        acc.clear(); s = time.perf_counter(); gg.coarsen(G, backend=BACKEND); t = time.perf_counter() - s
        if t < best:
            best, snap = t, {k: tuple(v) for k, v in acc.items()}
    print(f"coarsen {best*1e3:.1f} ms (verbs timed at top level)")
    for k, (c, t) in sorted(snap.items(), key=lambda kv: -kv[1][1]):
        print(f"  {k:50s} {c:5d} {t*1e3:8.1f} ms")
    print(f"  sum {sum(v[1] for v in snap.values())*1e3:.1f} ms")

import time, numpy as np, numba
from gbgraph.backends.numba.kernels import coarse as kc
@numba.njit
def by_sort(x, d, reps):
    y = np.empty(d, x.dtype)
    for _ in range(reps):
        y[:] = x[:d]; y.sort()
    return y
@numba.njit
def by_bits(x, d, reps, seen, first, last):
    y = np.empty(d, x.dtype)
    for _ in range(reps):
        y[:] = x[:d]; kc._sort_as_bits(y, d, seen, first, last)
    return y
rng = np.random.default_rng(0)
for d in (25, 50, 200, 1000):
    for words_per in (1, 2, 4, 8, 16):
        span = words_per * d * 64
        x = rng.choice(span, d, replace=False).astype(np.int64)
        seen = np.zeros(span // 64 + 2, np.uint64)
        lo, hi = x.min() // 64, x.max() // 64
        assert (by_sort(x, d, 1) == by_bits(x, d, 1, seen, lo, hi)).all()
        reps = max(1, 200000 // d)
        r = {}
        for _ in range(3):
            for name, f in (("sort", lambda: by_sort(x, d, reps)), ("bits", lambda: by_bits(x, d, reps, seen, lo, hi))):
                t = time.perf_counter(); f(); r[name] = min(r.get(name, 1e9), (time.perf_counter() - t) / reps / d * 1e9)
        print(f"d {d:5d} words/value {words_per:3d}: sort {r['sort']:.1f} ns/value, bits {r['bits']:.1f}")
print("short rows: insertion (the kernel's) against bits")
@numba.njit
def by_ins(x, d, reps):
    y = np.empty(d, x.dtype)
    for _ in range(reps):
        y[:] = x[:d]
        for i in range(1, d):
            value = y[i]
            y[i] = max(y[i - 1], value)
            for j in range(i - 1, 0, -1):
                y[j] = min(max(y[j - 1], value), y[j])
            y[0] = min(y[0], value)
    return y
for d in (6, 8, 12, 16, 24):
    for words_per in (0.5, 1, 2, 4, 8):
        span = int(words_per * d * 64)
        x = rng.choice(span, d, replace=False).astype(np.int64)
        seen = np.zeros(span // 64 + 2, np.uint64)
        lo, hi = x.min() // 64, x.max() // 64
        assert (by_ins(x, d, 1) == by_bits(x, d, 1, seen, lo, hi)).all()
        reps = max(1, 200000 // d)
        r = {}
        for _ in range(3):
            for name, f in (("ins", lambda: by_ins(x, d, reps)), ("bits", lambda: by_bits(x, d, reps, seen, lo, hi))):
                t = time.perf_counter(); f(); r[name] = min(r.get(name, 1e9), (time.perf_counter() - t) / reps / d * 1e9)
        print(f"d {d:5d} words/value {words_per:4}: insertion {r['ins']:.1f} ns/value, bits {r['bits']:.1f}")

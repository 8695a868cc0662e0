import time, numpy as np, numba
from gbgraph.backends.numba.kernels.coloring import _radix_order

def make(bits):
    B = 1 << bits
    P = (64 + bits - 1) // bits
    @numba.njit(cache=False)
    def radix(keys):
        n = keys.size
        order = np.arange(n)
        current = keys
        next_order = np.empty(n, np.int64)
        next_keys = np.empty(n, np.uint64)
        counts = np.zeros((P, B + 1), np.int64)
        mask = np.uint64(B - 1)
        for k in range(n):
            x = keys[k]
            for d in range(P):
                counts[d, ((x >> np.uint64(bits * d)) & mask) + np.uint64(1)] += 1
        for d in range(P):
            shift = np.uint64(bits * d)
            start = counts[d]
            if start.max() == n:
                continue
            for v in range(1, B + 1):
                start[v] += start[v - 1]
            for k in range(n):
                v = (current[k] >> shift) & mask
                slot = start[v]
                start[v] = slot + 1
                next_order[slot] = order[k]
                next_keys[slot] = current[k]
            order, next_order = next_order, order
            current, next_keys = next_keys, current
        return order
    return radix

def tm(f, *a, reps=7):
    f(*a); t=[]
    for _ in range(reps):
        s=time.process_time(); f(*a); t.append(time.process_time()-s)
    return 1e3*min(t)
rng = np.random.default_rng(1)
for n in (192000, 300000, 1000000):
    keys = rng.integers(0, 2**64-1, n, dtype=np.uint64, endpoint=True)
    ref = _radix_order(keys.copy())
    print(n, "8-bit", tm(lambda: _radix_order(keys.copy())))
    for b in (11, 13, 16):
        f = make(b)
        assert np.array_equal(f(keys.copy()), ref)
        print(n, f"{b}-bit", tm(lambda: f(keys.copy())))
    print(n, "copy", tm(lambda: keys.copy()))

import numba, numpy as np
numba.set_num_threads(2)
@numba.njit(parallel=True)
def sweep(x):
    for i in numba.prange(x.size):
        x[i] = x[i] * 1.000001 + 1e-9
x = np.ones(1 << 22)
while True:
    sweep(x)

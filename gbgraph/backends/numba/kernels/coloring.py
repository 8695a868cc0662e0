"""The order of the ordered row kernels (``mxv(op, A, vectors, order=)``): rows by
decreasing order value, equal values by increasing index (``backends/numba/operators.py``).
The file keeps its name from the coloring kernels that first needed this order.
"""

import numba
import numpy as np

__all__ = ["by_decreasing"]


def by_decreasing(values):
    """The stable order of ``values`` from the largest down (equal values keep their order):
    a counting sort where the values span at most a few times their number (colors, as the
    recoloring's priority), numpy's stable sort of the reversed keys otherwise."""
    if values.size == 0 or values.dtype.kind not in "iu":
        return np.argsort(~values if values.dtype.kind == "b" else -values, kind="stable")
    low = values.min()
    if int(values.max()) - int(low) <= 4 * values.size + 1024:
        # offsets from the least, in int64: uint64 hash priorities reach 2**64 - 1
        return _counting_order((values - low).astype(np.int64))
    return np.argsort(~values, kind="stable")  # ~ reverses the order of either signedness


@numba.njit(cache=True)
def _counting_order(offsets):
    high = offsets.max()
    start = np.zeros(high + 2, np.int64)
    for v in offsets:
        start[high - v + 1] += 1
    for k in range(1, start.size):
        start[k] += start[k - 1]
    order = np.empty(offsets.size, np.int64)
    for k in range(offsets.size):
        slot = high - offsets[k]
        order[start[slot]] = k
        start[slot] += 1
    return order

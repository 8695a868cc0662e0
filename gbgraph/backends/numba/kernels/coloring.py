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
    recoloring's priority), numpy's stable sort of the reversed keys otherwise.

    Examples
    --------
    >>> by_decreasing(np.array([1, 3, 1, 2])).tolist()
    [1, 3, 0, 2]
    """
    if values.size == 0 or values.dtype.kind not in "iu":
        return np.argsort(~values if values.dtype.kind == "b" else -values, kind="stable")
    low, high = (int(v) for v in _bounds(values))  # numba returns uint64 scalars as Python ints
    if high - low <= 4 * values.size + 1024:
        return _counting_order(values, values.dtype.type(low), np.int64(high - low))
    return np.argsort(~values, kind="stable")  # ~ reverses the order of either signedness


@numba.njit(cache=True)
def _bounds(values):
    """(least, largest) of a nonempty array, in one pass."""
    low = high = values[0]
    for v in values:
        low = min(low, v)
        high = max(high, v)
    return low, high


@numba.njit(cache=True)
def _counting_order(values, low, high):
    """The counting sort of the offsets ``values - low`` (0..high, in int64: uint64 hash
    priorities reach 2**64 - 1, their offsets here do not) from the largest down."""
    start = np.zeros(high + 2, np.int64)
    for v in values:
        start[high - np.int64(v - low) + 1] += 1
    for k in range(1, start.size):
        start[k] += start[k - 1]
    order = np.empty(values.size, np.int64)
    for k in range(values.size):
        slot = high - np.int64(values[k] - low)
        order[start[slot]] = k
        start[slot] += 1
    return order

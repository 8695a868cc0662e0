import numpy as np
from gbgraph.backends.operators import RowOperator
from gbgraph.algorithms.coloring import _lowest_zero, _WIDE

def _window_u(start, stop, cols, colors, base):
    word = np.uint64(0)
    for p in range(np.uint64(start), np.uint64(stop)):
        offset = np.uint64(colors[np.uint64(cols[p])] - base)
        word |= np.uint64(offset < np.uint64(64)) << (offset & np.uint64(63))
    return word

def _window_v(start, stop, cols, colors, base):
    word = np.uint64(0)
    for p in range(np.uint64(start), np.uint64(stop)):
        offset = colors[np.uint64(cols[p])] - base
        if np.uint64(offset) < np.uint64(64):
            word |= np.uint64(1) << np.uint64(offset)
    return word

def _ff_u(i, start, stop, cols, vals, colors):
    word = _window_u(start, stop, cols, colors, 0)
    return _lowest_zero(word), True

def _ff_v(i, start, stop, cols, vals, colors):
    word = _window_v(start, stop, cols, colors, 0)
    return _lowest_zero(word), True

FF_U = RowOperator(_ff_u, fill=-1, name="ffu3", helpers=(_window_u, _lowest_zero))
FF_NB = RowOperator(_ff_v, fill=-1, name="ffv3", helpers=(_window_v, _lowest_zero))

"""Native greedy coloring: the speculative rounds of
:func:`gbgraph.algorithms.coloring._speculative` (distance 1), their ordered finish and the
recoloring pass in one cooperative kernel (``kernels/color.cu``); the host waits once, for
the counts."""

import cupy
import numpy as np

from ...results import ColoringResult
from ...errors import StallError
from .kernels import THREADS, c_type, cooperative_blocks, function, warp_span
from .mis import narrow_csr

__all__ = ["color"]


def color(graph, seed, priority, max_iter):
    """:func:`gbgraph.color` with ``method="greedy"`` and ``distance=1`` on a graph of at
    least one vertex, ``priority`` ``"largest_degree"`` or ``"random"``."""
    n = graph.n
    indptr, indices = narrow_csr(graph)
    if indices.data.ptr % 16:  # the kernel reads the column indices 16 bytes at a time
        indices = indices.copy()
    nv = (n + 1).bit_length()
    out = cupy.empty(n, cupy.int64)
    counts = cupy.zeros(8, cupy.uint64)
    led = priority == "largest_degree"
    i = c_type(indices.dtype)  # row pointers in the indices' type
    name = f"gbgraph::native::greedy_color<{i}, {i}, {str(led).lower()}>"
    grid = cooperative_blocks(n)
    warps = grid * (THREADS // 32)
    span = warp_span(n, grid)
    function("color.cu", name, cooperative=True)(
        (grid,), (THREADS,),
        (np.int64(n), indptr, indices, np.int64(seed), np.int32(nv), np.int64(max_iter), np.int64(span),
         cupy.empty(n, indices.dtype), cupy.empty(n, indices.dtype), cupy.empty(2 * warps * span, indices.dtype), out,
         counts))
    _, _, _, degree, _, n_colors, rounds, left = (int(x) for x in counts.get())  # the only wait for the host
    bits = max(1, degree.bit_length())
    if led and bits + nv > 64:
        raise ValueError(f"degree-led priorities need bit_length(max degree) + bit_length(n + 1) "
                         f"<= 64; the graph has {bits} + {nv}")
    if left:
        raise StallError(f"color: {left:,} of {n:,} vertices uncolored after max_iter={max_iter} rounds")
    return ColoringResult(out, n_colors, rounds)

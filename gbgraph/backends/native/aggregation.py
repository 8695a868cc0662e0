"""Native MIS-2 aggregation: both MIS-2 runs in the cooperative kernel of ``mis.cu``, each
later phase one pass of ``kernels/aggregate.cu``. The host waits three times, for the sizes
of the two sets and of the result; never between rounds."""

import cupy
import numpy as np

from ...results import Aggregation
from ...hashing import Packing, packing_bits
from .kernels import THREADS, blocks, c_type, cooperative_blocks, function, head
from .mis import narrow_csr, run

__all__ = ["aggregate"]


def aggregate(graph, secondary):
    """:func:`gbgraph.aggregate` (``"mis2"`` when ``secondary``, else ``"mis2_basic"``) on
    a graph of at least one vertex."""
    n = graph.n
    indptr, indices = narrow_csr(graph)
    statuses = Packing(n, packing_bits(n), cupy)
    s, i = c_type(statuses.dtype), c_type(indices.dtype)  # row pointers in the indices' type
    T, _, roots = run(graph, statuses, 2, n + 1)  # [1] Alg.3 l.3, the roots in ascending id
    rank = cupy.empty(n, cupy.int64)  # the aggregate of each root (read at roots only)
    _kernel("number_roots", roots.size)(roots, np.int64(roots.size), rank)
    label = cupy.empty(n, cupy.int64)
    is_root = cupy.empty(n, bool)
    size = cupy.zeros(n, cupy.int64)
    _kernel(f"grow_roots<{s}, {i}, {i}>", n)(np.int64(n), indptr, indices, T, statuses.IN, rank, label, is_root,
                                             size)  # l.4-6
    if secondary:
        _, _, candidates = run(graph, statuses, 2, n + 1, label < 0)  # l.8: an MIS-2 among the unaggregated
        found = np.int64(candidates.size)
        kept = cupy.empty(candidates.size, cupy.int64)
        _kernel(f"keep_secondary<{i}, {i}>", found)(candidates, found, indptr, indices, label, kept)  # l.9-10
        keep = cupy.zeros(n, bool)
        _kernel("number_kept", found)(candidates, found, cupy.cumsum(kept), np.int64(roots.size), rank, keep)
        _kernel(f"grow_secondary<{i}, {i}>", n)(np.int64(n), indptr, indices, keep, rank, label, is_root,
                                                size)  # l.11
    moved = cupy.empty(n, cupy.int64)
    _kernel(f"join_leftovers<{i}, {i}>", n)(np.int64(n), indptr, indices, label, is_root, size, moved)  # l.14-22
    grid = cooperative_blocks(n, 6)
    roots, count = cupy.empty(n, cupy.int64), cupy.empty(1, cupy.uint64)
    function("aggregate.cu", "gbgraph::native::select_roots", cooperative=True)(
        (grid,), (THREADS,), (np.int64(n), is_root, cupy.empty(grid, cupy.uint64), roots, count))
    count = int(count.get()[0])  # the host waits here, and in each MIS-2 for its size
    return Aggregation(moved, head(roots, count), count)


def _kernel(name, work):
    """A launcher of ``aggregate.cu``'s kernel ``name`` over ``work`` items."""
    kernel = function("aggregate.cu", f"gbgraph::native::{name}")
    return lambda *args: kernel((blocks(work),), (THREADS,), args)

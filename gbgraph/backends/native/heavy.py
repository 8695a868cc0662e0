"""Native HEC: :func:`gbgraph.algorithms.heavy.hec` (Gilbert et al.'s Algorithm 3 visiting
by decreasing key) as five fused passes of ``kernels/heavy.cu`` launched back to back: heavy
neighbours with the keys hashed where they are compared, the visit in key order as chains
handed from thread to thread, and the numbering of the roots (a count and a scan per slice
of the vertices, then each vertex its root's number); the host waits once, for the count."""

import cupy
import numpy as np

from .kernels import THREADS, blocks, c_type, function
from .mis import csr

__all__ = ["hec"]


def hec(graph, seed):
    """(labels, count, rounds) of :func:`gbgraph.algorithms.heavy.hec` with the keys of
    ``seed``, on a graph of at least one vertex whose weights (if any) are checked: the
    verbs' labels and count, and their rounds (1 + the longest run of vertices each waiting
    on the next, over the vertices with a neighbour)."""
    n = graph.n
    indptr, indices = csr(graph)
    weights = graph.weights
    lanes = _lanes(graph)
    w, i = "unsigned char" if weights is None else c_type(weights.dtype), c_type(indices.dtype)
    length, seed, nv = np.int64(n), np.int64(seed), np.int32((n + 1).bit_length())
    zeroed = cupy.zeros(16 + 5 * n, cupy.uint8)  # one memset: count and rounds, waiting, flags
    out, waiting, flags = zeroed[:16].view(cupy.uint64), zeroed[16:16 + 4 * n].view(cupy.int32), zeroed[16 + 4 * n:]
    H, depth, labels = cupy.empty(n, indices.dtype), cupy.empty(n, cupy.int32), cupy.empty(n, cupy.int64)
    grid = blocks(n)
    slice_roots = cupy.empty(grid, cupy.uint64)
    # H = A ⊕max.(W, key) keys ([1] Alg.3 l.5-10); waiting = the in-neighbours that precede each vertex
    function("heavy.cu", f"gbgraph::native::hec_heavy<{w}, {i}, {lanes}>")(
        (blocks(n * lanes),), (THREADS,),
        (length, indptr, indices, np.uint64(0) if weights is None else weights, seed, nv, H, waiting, flags, depth))
    # l.3-14: H = the parent of each vertex, H(u) for u unmapped when visited, else u
    function("heavy.cu", f"gbgraph::native::hec_visit<{i}>")(
        (grid,), (THREADS,), (length, seed, nv, H, waiting, flags, depth, out))
    # labels = the rank of H^∞ among the roots ([1] Alg.5 l.17-22)
    function("heavy.cu", f"gbgraph::native::hec_count<{i}>")((grid,), (THREADS,), (length, H, slice_roots))
    function("heavy.cu", f"gbgraph::native::hec_number<{i}>")(
        (grid,), (THREADS,), (length, H, slice_roots, labels, out))
    function("heavy.cu", f"gbgraph::native::hec_labels<{i}>")((grid,), (THREADS,), (length, H, labels))
    count, rounds = out.get().tolist()  # the only wait for the host
    return labels, count, rounds


def _lanes(graph):
    """Threads sharing a row in the heavy-neighbour pass: the largest power of two up to half
    the square root of the mean degree, 1 to 32 (on an H100, one thread per row of
    Laplace3D's six and four for Elasticity3D's 76 are within 10% of the best)."""
    root = np.sqrt(graph.nnz / graph.n) / 2
    return int(min(32, 2 ** int(np.log2(max(root, 1.0)))))

"""Native MIS-1 and MIS-2: the rounds of :func:`gbgraph.algorithms.mis._rounds` in one
cooperative kernel (``kernels/mis.cu``), and ECL-MIS's asynchronous kernel for MIS-1 with
fixed statuses (``kernels/ecl.cu``)."""

import cupy
import numpy as np

from ...results import MISResult
from ...errors import StallError
from .kernels import THREADS, c_type, cooperative_blocks, function, head, ptr

__all__ = ["mis1", "mis2", "csr", "narrow_csr", "run"]

_HASHES = {"xorshift*": 1, "xorshift": 2}


def csr(graph):
    """The graph's CSR with int64 row pointers (cached on the graph) and its own column
    indices."""
    return graph.cached(("native", "indptr"), lambda: cupy.asarray(graph.indptr, dtype=cupy.int64)), graph.indices


def narrow_csr(graph):
    """The graph's CSR with the row pointers in the column indices' type (int32 whenever
    every offset fits, cached on the graph): a row then costs half the pointer bytes."""
    indptr = graph.cached(("native", "narrow indptr"), lambda: cupy.asarray(graph.indptr, dtype=graph.indices.dtype))
    return indptr, graph.indices


def mis1(graph, statuses, max_iter, candidates=None):
    """MIS-1: ECL-MIS's kernel for fixed statuses over every vertex (``iterations`` is 1:
    it has no rounds), else Luby's rounds."""
    if statuses.refresh or candidates is not None:
        return rounds(graph, statuses, 1, max_iter, candidates)
    return _ecl(graph, statuses)


def mis2(graph, statuses, max_iter, candidates=None):
    """MIS-2: Algorithm 1 of Kelley & Rajamanickam, one cooperative kernel."""
    return rounds(graph, statuses, 2, max_iter, candidates)


def rounds(graph, statuses, k, max_iter, candidates=None):
    """The set of :func:`run`, as a :class:`MISResult`; ``candidates`` may be a
    cupy-backend vector (its structure is used)."""
    if candidates is not None and not isinstance(candidates, cupy.ndarray):
        dense = cupy.zeros(graph.n, bool)
        dense[candidates.indices[:candidates.nvals]] = True
        candidates = dense
    _, rounds_run, vertices = run(graph, statuses, k, max_iter, candidates)
    return MISResult(vertices, rounds_run)


def run(graph, statuses, k, max_iter, candidates=None, select=True):
    """``mis.cu``'s kernel: the final statuses (T = IN marks the set), the number of rounds
    and, with ``select``, the set (sorted int64, else None). ``candidates``: a dense bool
    CuPy array or None (every vertex).

    Raises
    ------
    StallError
        when ``max_iter`` rounds leave vertices undecided.
    """
    n = graph.n
    indptr, indices = narrow_csr(graph)
    fixed = None if statuses.refresh else statuses.values
    code = _HASHES[statuses.priority_hash] if statuses.refresh else 0
    per_multiprocessor = rounds_blocks(n)
    grid = cooperative_blocks(n, per_multiprocessor)
    T = cupy.empty(n, statuses.dtype)
    M = cupy.empty(n, statuses.dtype)
    counts = cupy.zeros(5, cupy.uint64)
    vertices = cupy.empty(n, cupy.int64) if select else None
    range_counts = cupy.empty(grid, cupy.uint64) if select else None
    i = c_type(indices.dtype)
    name = (f"gbgraph::native::mis_rounds<{c_type(statuses.dtype)}, {i}, {i}, {k}, {statuses.bits}, {code}, "
            f"{per_multiprocessor}>")
    high_bits = np.uint64(0xFFFFFFFF >> statuses.nv << statuses.nv)
    function("mis.cu", name, cooperative=True)(
        (grid,), (THREADS,),
        (np.int64(n), indptr, indices, ptr(fixed), ptr(candidates), np.int32(statuses.nv), high_bits, statuses.IN,
         statuses.OUT, np.int64(max_iter), T, M, counts, np.int32(_select_shift(n, grid)), ptr(range_counts),
         ptr(vertices)))
    counts = counts.get()  # the only wait for the host: the rounds, what stayed undecided, the set's size
    rounds_run = int(counts[3])
    left = int(counts[rounds_run % 3])
    if left:
        raise StallError(f"MIS-{k}: {left:,} of {n:,} vertices undecided after max_iter={max_iter} rounds")
    return T, rounds_run, head(vertices, int(counts[4])) if select else None


def _select_shift(n, grid):
    """``select_shift`` of ``worklist.cuh``: the least s with grid * 2**s >= n."""
    return max(0, (-(-n // grid) - 1).bit_length())


def rounds_blocks(n):
    """Blocks per multiprocessor of ``mis_rounds`` on n vertices: 8 (32 registers) once
    every thread has many rows, where the rounds stream memory and more warps in flight
    hide more of it; 6 below, where each barrier waits on fewer blocks."""
    return 8 if n >= _MANY_ROWS else 6


#: Vertices from which ``mis_rounds`` runs 8 blocks per multiprocessor
_MANY_ROWS = 1 << 21


def _ecl(graph, statuses):
    n = graph.n
    indptr, indices = narrow_csr(graph)
    grid = cooperative_blocks(n, 6)
    state = cupy.zeros(n, cupy.uint8)
    count = cupy.empty(1, cupy.uint64)
    vertices = cupy.empty(n, cupy.int64)
    i = c_type(indices.dtype)
    name = f"gbgraph::native::ecl_mis<{c_type(statuses.dtype)}, {i}, {i}>"
    function("ecl.cu", name, cooperative=True)((grid,), (THREADS,), (
        np.int64(n), indptr, indices, statuses.values, state, count, cupy.empty(grid, cupy.uint64), vertices))
    return MISResult(head(vertices, int(count.get()[0])), 1)  # one kernel: no rounds to count

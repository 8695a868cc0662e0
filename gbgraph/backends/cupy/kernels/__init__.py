"""gbgraph's CUDA kernels: sources (``*.cu``, ``*.cuh``) and launchers of their instances.

``RawModule`` takes source text (``code=``), so each kernel instance is compiled from a
translation unit that includes its family's file, with this folder on the include path, after
a digest of the sources (:func:`sources_digest`); instances are cached per device and type
signature. Launchers size their grids from
host-known capacities and read entry counts from the device, so no launch waits for the
host. Each kernel's Python reference: ``mxv`` — the suitesparse backend's ``mxv``;
``segment_reduce`` — ``numpy.ufunc.reduceat``; ``vector.cu`` — the numpy expressions in the
docstrings below; ``packed_statuses`` — ``gbgraph.hashing.Packing``.
"""

import functools
import hashlib
import pathlib
from importlib import resources

import cupy
import numpy as np

__all__ = ["inspect_rows", "drop_diagonal", "mxv_kernel", "segment_reduce", "reduceat_sum", "scatter", "scatter_scalar", "gather_op", "compact",
           "packed_statuses", "gather", "build_atomic", "unclaimed", "roots", "count_args", "copy_entries", "advance", "coarse_by_sort", "gauss_seidel_sweep",
           "lanes_per_row", "csr_product", "jacobi_from_zero", "dense_product", "lanczos_shares", "lanczos_steps", "cooperative_blocks",
           "tentative", "smoothed_prolongator", "sources_digest",
           "JetJudge", "jet_level", "jet_moves", "jet_update", "jet_rebalance_keys", "jet_rebalance_flip", "JET_SMALL",
           "jet_rebalance_small", "JetRounds", "jet_sigma", "KERNEL_DIR"]

KERNEL_DIR = str(resources.files(__name__))
_THREADS = 256
_TILE = 2048  # vector.cu: THREADS * ITEMS
_NULL = np.uint64(0)  # a null pointer argument

_C_TYPES = {np.dtype(bool): "bool", np.dtype(np.uint8): "unsigned char", np.dtype(np.int32): "int",
            np.dtype(np.int64): "long long", np.dtype(np.uint64): "unsigned long long",
            np.dtype(np.float64): "double"}
_MONOIDS = {"min": "Min", "max": "Max", "plus": "Plus", "times": "Times", "any": "Any", "lor": "Lor",
            "land": "Land", "bor": "Bor", "band": "Band"}
_MULTIPLIES = {"first": "First", "second": "Second", "pair": "Pair", "times": "TimesOp", "secondi": "SecondI",
               "land": "LandOp", "plus": "PlusMul", "minus": "MinusMul", "rminus": "RminusMul", "min": "MinMul",
               "max": "MaxMul"}
_COMPARE = {"eq": "Eq", "ne": "Ne", "lt": "Lt", "le": "Le", "gt": "Gt", "ge": "Ge"}
#: element-wise operators with a kernel for (sparse vector) ⊙ (full vector)
GATHER_OPS = dict(_COMPARE, min="MinOp", max="MaxOp", plus="PlusOp", minus="MinusOp", times="TimesBinary",
                  first="FirstOp", second="SecondOp")


def c_type(dtype):
    dtype = np.dtype(dtype)
    if dtype not in _C_TYPES:
        raise NotImplementedError(f"the cupy backend has no kernels for {dtype}")
    return _C_TYPES[dtype]


@functools.lru_cache(maxsize=None)
def sources_digest(*folders):
    """A digest of the kernel sources in ``folders``, the first line of every translation unit:
    CuPy caches compiled modules on disk by their source text, which names the files it includes
    but not what they hold, so without it a kernel edited (or upgraded with gbgraph) would be
    served from an old binary, its parameters perhaps no longer the launcher's."""
    digest = hashlib.sha256()
    for folder in folders:
        for path in sorted(pathlib.Path(folder).glob("*.cu*")):
            digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def _function(source, name, device, cooperative):
    module = cupy.RawModule(code=f'// gbgraph kernels {sources_digest(KERNEL_DIR)}\n#include "{source}"\n',
                            options=("-std=c++17", f"-I{KERNEL_DIR}"),
                            name_expressions=(name,), enable_cooperative_groups=cooperative)
    return module.get_function(name)


def _get(source, name, cooperative=False):
    """The kernel ``name`` of ``source``; a cooperative one (grid-wide barriers) is launched
    with ``cuLaunchCooperativeKernel``."""
    return _function(source, name, cupy.cuda.runtime.getDevice(), cooperative)


@functools.lru_cache(maxsize=None)
def _resident_blocks(device):
    """Blocks of _THREADS threads the device holds at once (8 per multiprocessor): kernels
    stride over longer inputs, so launches over short worklists stay cheap."""
    return 8 * cupy.cuda.Device(device).attributes["MultiProcessorCount"]


def cooperative_blocks(work, per_multiprocessor=4):
    """Blocks of a cooperative kernel over ``work`` items: one per 256 items, at most as many
    as the device holds at once, ``per_multiprocessor`` on each multiprocessor (the kernel's
    ``__launch_bounds__(256, per_multiprocessor)`` caps its registers so that they fit; a
    cooperative grid must be resident all at once)."""
    limit = per_multiprocessor * _resident_blocks(cupy.cuda.runtime.getDevice()) // 8
    return max(1, min(-(-int(work) // _THREADS), limit))


def _max_blocks():
    return _resident_blocks(cupy.cuda.runtime.getDevice())


def _blocks(work):
    return max(1, min((work + _THREADS - 1) // _THREADS, _max_blocks()))


def _ptr(array):
    return _NULL if array is None else array


def count_args(v):
    """(device count or null, host count): the entries of vector ``v``."""
    return (_ptr(v.count), np.int64(v.capacity if v.count is not None else v.nvals))


def mxv_kernel(monoid, multiply, out_dtype, A, u_dtype):
    """A launcher ``f(rows, count_ptr, count, capacity, indptr, indices, a, u, present, out,
    found)`` of the masked product for this semiring and these types; pointers may be None.
    Rows get a warp each when A's average degree is 16 or more, as in Kokkos Kernels."""
    if monoid not in _MONOIDS or multiply not in _MULTIPLIES:
        raise NotImplementedError(f"the cupy backend has no kernel for the semiring {monoid}_{multiply}")
    warps = A.avg_degree >= 16
    tw = c_type(out_dtype)
    name = (f"gbgraph::mxv_{'warps' if warps else 'rows'}<gbgraph::{_MONOIDS[monoid]}<{tw}>, "
            f"gbgraph::{_MULTIPLIES[multiply]}<{tw}>, {tw}, {c_type(A.dtype)}, {c_type(u_dtype)}, "
            f"{c_type(A.indices.dtype)}>")
    kernel = _get("mxv.cu", name)

    def launch(rows, count_ptr, count, capacity, indptr, indices, a, u, present, out, found):
        kernel((_blocks(capacity * 32 if warps else capacity),), (_THREADS,),
               (_ptr(rows), _ptr(count_ptr), np.int64(count), indptr, indices, _ptr(a), u, _ptr(present), out,
                _ptr(found)))

    return launch


def segment_reduce(monoid, values, starts):
    """``out[k]`` = ``values[starts[k]:starts[k + 1]]`` reduced in order with ``monoid``
    (``"any"`` takes the first); every segment must be non-empty."""
    if starts.size == 0 or monoid == "any":
        return values[starts]
    if monoid not in _MONOIDS:
        raise NotImplementedError(f"the cupy backend has no segmented reduction for {monoid}")
    out = cupy.empty(starts.size, values.dtype)
    t = c_type(values.dtype)
    kernel = _get("segments.cu", f"gbgraph::segment_reduce<gbgraph::{_MONOIDS[monoid]}<{t}>, {t}>")
    kernel((_blocks(starts.size),), (_THREADS,), (cupy.ascontiguousarray(values), starts.astype(cupy.int64),
                                                  np.int64(starts.size), np.int64(values.size), out))
    return out


def reduceat_sum(values, starts):
    """``numpy.add.reduceat(values, starts)`` for non-empty segments, with numpy's order of
    additions (its pairwise summation), so floating-point sums equal numpy's bit for bit."""
    out = cupy.empty(starts.size, values.dtype)
    if starts.size:
        _get("segments.cu", f"gbgraph::reduceat_sum<{c_type(values.dtype)}>")(
            (_blocks(starts.size),), (_THREADS,), (cupy.ascontiguousarray(values), starts.astype(cupy.int64),
                                                   np.int64(starts.size), np.int64(values.size), out))
    return out


def scatter(w_values, v):
    """``w_values[v.indices[k]] = v.values[k]`` over v's entries."""
    t = c_type(w_values.dtype)
    kernel = _get("vector.cu", f"gbgraph::scatter<{t}>")
    kernel((_blocks(v.capacity),), (_THREADS,),
           (_ptr(v.indices), v.values.astype(w_values.dtype, copy=False), *count_args(v), w_values))


def scatter_scalar(w_values, v, value, condition=None):
    """``w_values[v.indices[k]] = value`` over v's entries, where ``condition[k]`` holds."""
    t = c_type(w_values.dtype)
    kernel = _get("vector.cu", f"gbgraph::scatter_scalar<{t}>")
    kernel((_blocks(v.capacity),), (_THREADS,),
           (_ptr(v.indices), _ptr(condition), *count_args(v), np.asarray(value, w_values.dtype)[()], w_values))


def gather(full_values, indices, count_ptr, count, capacity):
    """``out[k] = full_values[indices[k]]`` for the first ``count`` (or ``*count_ptr``) k."""
    out = cupy.empty(capacity, full_values.dtype)
    _get("vector.cu", f"gbgraph::gather<{c_type(full_values.dtype)}>")(
        (_blocks(capacity),), (_THREADS,), (_ptr(indices), _ptr(count_ptr), np.int64(count), full_values, out))
    return out


def gather_op(op, v, full_values, out_dtype):
    """``out[k] = op(v.values[k], full_values[v.indices[k]])``, aligned with v's entries."""
    out = cupy.empty(v.capacity, out_dtype)
    ta, tb = c_type(v.dtype), c_type(full_values.dtype)
    kernel = _get("vector.cu", f"gbgraph::gather_op<gbgraph::{GATHER_OPS[op]}, {ta}, {tb}, {c_type(out_dtype)}>")
    kernel((_blocks(v.capacity),), (_THREADS,), (_ptr(v.indices), v.values, *count_args(v), full_values, out))
    return out


def compact(op, v, thunk, keys=None, with_values=True):
    """(indices, values or None, device count) of v's entries where ``op(key, thunk)``
    holds, in order; ``keys`` (aligned with v's values) default to v's values. The buffers
    keep v's capacity; the count stays on the device."""
    keys = v.values if keys is None else keys
    tiles = max(1, (v.capacity + _TILE - 1) // _TILE)
    indices = cupy.empty(v.capacity, cupy.int64)
    values = cupy.empty(v.capacity, v.dtype) if with_values else None
    total = cupy.empty(1, cupy.int64)
    _get("vector.cu", _compaction_name(op, keys.dtype, v.dtype))(
        (min(tiles, _max_blocks()),), (_THREADS,),
        (_ptr(v.indices), keys, v.values, *count_args(v), keys.dtype.type(thunk), indices, _ptr(values), total,
         _tile_state(tiles)))
    return indices, values, total


@functools.lru_cache(maxsize=None)
def _compaction_name(op, key_dtype, value_dtype):
    return f"gbgraph::compact<gbgraph::{_COMPARE[op]}, {c_type(key_dtype)}, {c_type(value_dtype)}>"


#: vector.cu's compaction state per (device, stream), zero between compactions: buffers
#: outgrown stay allocated, since recorded rounds may still name them
_tile_states = {}


def _tile_state(tiles):
    """The zeroed state (ticket, finished blocks, tile statuses) of the current stream's
    compactions, for ``tiles`` tiles at least. Compactions on one stream run one after
    another, so they share it."""
    key = (cupy.cuda.runtime.getDevice(), cupy.cuda.get_current_stream().ptr)
    states = _tile_states.setdefault(key, [])
    if not states or states[-1].size < tiles + 2:
        states.append(cupy.zeros(max(tiles + 2, 4096), cupy.uint64))
    return states[-1]


#: entries and members an aggregate may have for coarse.cu's warp kernel and block kernel
_WARP_AGGREGATE, _BLOCK_AGGREGATE = 256, 2048


def coarse_by_sort(indptr, indices, weights, labels, k, value_type):
    """The coarse graph of ``labels`` (``k`` aggregates) by coarse.cu: CSR arrays (int64
    row pointers, columns of the fine indices' type, weights summed in ``value_type``, edge
    counts without ``weights``), or None when an aggregate has more than 2048 entries or
    members and (a k + b, position) keys would not fit in 63 bits."""
    labels32 = labels.astype(cupy.int32)
    n = labels32.size
    counted = cupy.zeros(2 * k, cupy.int64)  # one memset
    sizes, entries = counted[:k], counted[k:]
    _get("aggregates.cuh", "gbgraph::aggregate_sizes<int, long long>")((_blocks(n),), (_THREADS,),
                                                                        (np.int64(n), labels32, indptr, sizes, entries))
    starts = cupy.zeros(k + 1, cupy.int64)
    cupy.cumsum(sizes, out=starts[1:])
    members = cupy.empty(n, cupy.int32)
    _get("aggregates.cuh", "gbgraph::aggregate_members<int, long long, int>")(
        (_blocks(n),), (_THREADS,), (np.int64(n), labels32, starts[:-1].copy(), members))
    load = cupy.maximum(entries, sizes)
    # a warp takes each aggregate of up to 256 entries and members (it skips the others), a
    # block each of those listed here, on the device: the host waits once, for the size
    from ..containers import Vector

    large, _, count = compact("gt", Vector(k, None, load), _WARP_AGGREGATE, with_values=False)
    ti, tv = c_type(indices.dtype), c_type(value_type)
    slot = cupy.zeros(k + 1, cupy.int64)  # each aggregate's edges first go where its fine entries start
    cupy.cumsum(entries, out=slot[1:])
    counts = cupy.empty(k, cupy.int64)  # the block kernel writes 0 for the larger aggregates
    columns, values = cupy.empty(int(indices.size), indices.dtype), cupy.empty(int(indices.size), value_type)
    arrays = (starts, members, indptr, indices, labels32, _ptr(weights), counts, slot, columns, values)
    if k:
        _get("coarse.cu", f"gbgraph::coarse_by_sort_warp<{ti}, {tv}>")(
            (min(-(-k // 4), 8 * _max_blocks()),), (128,), (load, np.int64(k)) + arrays)
        _get("coarse.cu", f"gbgraph::coarse_by_sort<256, {_BLOCK_AGGREGATE}, {ti}, {tv}>")(
            (min(k, 2 * _max_blocks()),), (256,), (large, count, load) + arrays)
    row_ptr = cupy.zeros(k + 1, cupy.int64)
    cupy.cumsum(counts, out=row_ptr[1:])
    largest, nnz = (int(x) for x in cupy.stack((load.max(), row_ptr[-1])).get()) if k else (0, 0)
    if largest > _BLOCK_AGGREGATE:  # the larger aggregates' edges by one sort of them all, then counted again
        if not _huge_edges(indptr, indices, weights, labels32, load, k, counts, slot, columns, values, ti, tv):
            return None
        cupy.cumsum(counts, out=row_ptr[1:])
        nnz = int(row_ptr[-1])
    out_columns, out_values = cupy.empty(nnz, indices.dtype), cupy.empty(nnz, value_type)
    _get("coarse.cu", f"gbgraph::pack_rows<{ti}, {tv}>")((_blocks(32 * k),), (_THREADS,),
                                                         (np.int64(k), slot, row_ptr, columns, values, out_columns,
                                                          out_values))
    return row_ptr, out_columns, out_values


def _huge_edges(indptr, indices, weights, labels32, load, k, counts, slot, columns, values, ti, tv):
    """coarse.cu's ``huge_keys``, a radix sort of the keys, ``huge_heads`` and ``huge_edges``:
    the coarse edges of the aggregates of more than 2048 entries or members written at their
    slots, and their counts. False, with nothing written, where the keys need over 63 bits."""
    nnz, n = int(indices.size), labels32.size
    pos_bits = max(nnz - 1, 1).bit_length()
    if max(k * k - 1, 1).bit_length() + pos_bits > 63:  # a valid key stays below NO_ENTRY and its edge below NO_ENTRY's
        return False
    keys = cupy.empty(nnz, cupy.uint64)
    grid = (_blocks(nnz),)
    _get("coarse.cu", f"gbgraph::huge_keys<{ti}>")(grid, (_THREADS,), (np.int64(nnz), np.int64(n), indptr, indices,
                                                                      labels32, load, np.int64(_BLOCK_AGGREGATE),
                                                                      np.int64(k), np.int32(pos_bits), keys))
    keys.sort()  # positions make the keys unique: any sort keeps each coarse edge's fine order
    heads = cupy.empty(nnz, cupy.int64)
    _get("coarse.cu", "gbgraph::huge_heads")(grid, (_THREADS,), (np.int64(nnz), np.int32(pos_bits), keys, heads))
    rank = cupy.cumsum(heads)  # inclusive: each edge's rank among them all
    _get("coarse.cu", f"gbgraph::huge_edges<{ti}, {tv}>")(grid, (_THREADS,),
                                                         (np.int64(nnz), np.int32(pos_bits), np.int64(k), keys, rank,
                                                          _ptr(weights), counts, slot, columns, values))
    return True


def inspect_rows(indptr, indices):
    """(has_diagonal per row, count of entries not above their predecessor, count of
    entries (i, j), i != j, without (j, i)), the counts on the device; the last holds only
    when no row is unsorted (it searches row j by bisection)."""
    n = indptr.size - 1
    diagonal = cupy.zeros(n, bool)
    unsorted = cupy.zeros(1, cupy.uint64)
    if n:
        _get("canonical.cu", f"gbgraph::inspect_rows<{c_type(indices.dtype)}>")(
            (_blocks(n),), (_THREADS,), (indptr, indices, np.int64(n), diagonal, unsorted))
    return diagonal, unsorted[0], count_one_way(indptr, indices)


def count_one_way(indptr, indices, values=None):
    """Entries (i, j), i != j, of a row-sorted CSR without (j, i), or with float64 ``values``
    the entries of A - Aᵀ that are not zero: a device scalar."""
    n = indptr.size - 1
    one_way = cupy.zeros(1, cupy.uint64)
    if n:
        _get("canonical.cu", f"gbgraph::count_one_way<{c_type(indices.dtype)}>")(
            (_blocks(n),), (_THREADS,), (indptr.astype(np.int64, copy=False), indices, _ptr(values), np.int64(n),
                                         one_way))
    return one_way[0]


def drop_diagonal(indptr, indices, values, new_indptr):
    """(indices, values or None) of every row without its entry (i, i), in the rows of
    ``new_indptr``."""
    n = indptr.size - 1
    nnz = int(new_indptr[-1])
    new_indices = cupy.empty(nnz, indices.dtype)
    new_values = None if values is None else cupy.empty(nnz, values.dtype)
    value_type = "unsigned char" if values is None else c_type(values.dtype)
    if n:
        _get("canonical.cu", f"gbgraph::drop_diagonal<{c_type(indices.dtype)}, {value_type}>")(
            (_blocks(n),), (_THREADS,), (indptr, indices, _ptr(values), np.int64(n), new_indptr, new_indices,
                                         _ptr(new_values)))
    return new_indices, new_values


def insert_diagonal(indptr, indices, dtype, index_dtype):
    """(row pointers of ``dtype``, column indices of ``index_dtype``) of a sorted CSR without
    diagonal entries with (i, i) added to every row: A + I in one pass, one thread a row (the
    CPU's is ``backends/numba/kernels/canonical.py``'s, line for line), without the host
    waits of boolean scatters."""
    n = indptr.size - 1
    closed_indptr = cupy.empty(n + 1, dtype)
    closed = cupy.empty(indices.size + n, index_dtype)
    if n:
        _get("canonical.cu", f"gbgraph::insert_diagonal<{c_type(indptr.dtype)}, {c_type(indices.dtype)}, "
                             f"{c_type(closed_indptr.dtype)}, {c_type(closed.dtype)}>")(
            (_blocks(n),), (_THREADS,), (indptr, indices, np.int64(n), closed_indptr, closed))
    else:
        closed_indptr[0] = 0
    return closed_indptr, closed


def copy_entries(dtype):
    """A launcher ``f(source, target)`` that copies a vector's entries and device count over
    another's buffers (``dtype``: the values' type, None for a vector without values)."""
    t = "unsigned char" if dtype is None else c_type(dtype)
    kernel = _get("vector.cu", f"gbgraph::copy_entries<{t}>")

    def launch(source, target):
        kernel((_blocks(target.capacity),), (_THREADS,),
               (source.indices, _ptr(source.values), source.count, target.indices, _ptr(target.values), target.count))

    return launch


def advance():
    """A launcher ``f(r)`` adding one to the device scalar ``r``."""
    kernel = _get("vector.cu", "gbgraph::advance")
    return lambda r: kernel((1,), (1,), (r,))


def loop_while():
    """A launcher ``f(count, round, bound, handle)`` ending a recorded round: it sets the
    while node of ``handle`` to run the round again while ``count > 0`` and
    ``round < bound`` (device scalars)."""
    kernel = _get("vector.cu", "gbgraph::loop_while")
    return lambda count, r, bound, handle: kernel((1,), (1,), (count, r, bound, np.uint64(handle)))


def packed_statuses(packing, indices, count_ptr, count, capacity, r, star=True):
    """``Packing.__call__`` in one kernel: statuses of the listed vertices in round ``r`` (an
    int, or a device scalar that a captured round reads when it runs)."""
    out = cupy.empty(capacity, cupy.int32 if packing.bits == 32 else cupy.uint64)
    on_device = isinstance(r, cupy.ndarray)
    high = np.uint64(0xFFFFFFFF >> packing.nv << packing.nv)
    _get("hashing.cu", f"gbgraph::packed_statuses<{packing.bits}, {str(star).lower()}>")(
        (_blocks(capacity),), (_THREADS,),
        (_ptr(indices), _ptr(count_ptr), np.int64(count), r if on_device else _NULL, np.int64(0 if on_device else r),
         np.int32(packing.nv), high, out))
    return out


def unclaimed(H, key, visited):
    """(free, rounds) of Algorithm 3's visit (heavy.py's ``visit_in_order``) for the pending
    vertices ``visited`` (int64, sorted): ``free`` flags (uint8, length n) and the rounds of heavy.py's form as a
    one-element device array (mapping.cu's ``mark``, ``count_waiting``, ``visit_chains``)."""
    n = H.size
    flags = cupy.zeros(3 * n, cupy.uint8)  # pending, claimed, free
    counters = cupy.zeros(2 * n + 1, cupy.int32)  # waiting, depth, rounds
    pending, claimed, free = flags[:n], flags[n:2 * n], flags[2 * n:]
    waiting, depth, rounds = counters[:n], counters[n:2 * n], counters[2 * n:]
    count = np.int64(visited.size)
    if count:
        grid = (_blocks(int(count)),)
        _get("mapping.cu", "gbgraph::mark")(grid, (_THREADS,), (visited, count, pending))
        _get("mapping.cu", "gbgraph::count_waiting")(grid, (_THREADS,), (H, key, pending, visited, count, waiting))
        _get("mapping.cu", "gbgraph::visit_chains")(grid, (_THREADS,), (H, key, pending, visited, count, waiting,
                                                                        claimed, depth, free, rounds))
    return free, rounds


def roots(parent):
    """(root, is_root): the root of each vertex under ``parent`` (int64) and flags of the
    roots (uint8), by mapping.cu's ``roots``."""
    n = parent.size
    out, is_root = cupy.empty_like(parent), cupy.empty(n, cupy.uint8)
    if n:
        _get("mapping.cu", "gbgraph::roots")((_blocks(n),), (_THREADS,), (parent, np.int64(n), out, is_root))
    return out, is_root


def number_roots(root, listed, count):
    """``root[u] = k`` in place where ``root[u]`` is ``listed[k]``, the roots listed in
    ascending order (their count on the device): mapping.cu's ``number_roots`` and ``relabel``."""
    n = root.size
    label = cupy.empty(n, cupy.int64)  # written and read at the roots only
    grid = (_blocks(n),)
    _get("mapping.cu", "gbgraph::number_roots")(grid, (_THREADS,), (listed, count, label))
    _get("mapping.cu", "gbgraph::relabel")(grid, (_THREADS,), (root, np.int64(n), label))
    return root


class JetJudge:
    """jet.cu's test between a level's Jet rounds (refine_jet's ``_Rounds._judge``) on the
    device: ``judge(moves_count)`` adds ℓ and w σ (``jet_sums``, a grid fixed per level, so
    the same order each run), judges (``jet_judge``: the state in :attr:`state`, and the
    worklist's count emptied when no Jet round comes next) and copies σ < 0 into
    :attr:`best` when the bisection is a new best (``jet_best``); no launch waits for the
    host. ``moves_count`` is None for a judge after a rebalancing round. ``degrees`` and
    ``total`` (Σ d, Σ w) are device scalars."""

    #: jet.cu's JetState, the places read back: rounds, mode, side weights.
    ROUNDS, MODE, PW0, PW1, SIZE = 0, 5, 6, 7, 9

    def __init__(self, loss, wsigma, sigma, degrees, total, bounds, keep, patience, max_rounds):
        n = sigma.size
        self._n, self._loss, self._wsigma, self._sigma = np.int64(n), loss, wsigma, sigma
        self._grid = max(1, min(-(-n // _THREADS), 1024))  # jet_judge adds the partial sums with one block
        self._partial = cupy.empty(2 * self._grid, cupy.float64)
        self._scalars = (degrees, total) + tuple(np.float64(x) for x in (bounds[0], bounds[1], keep, patience,
                                                                          max_rounds))
        self.state = cupy.zeros(self.SIZE, cupy.float64)
        self.best = cupy.zeros(n, cupy.bool_)
        self._kernels = tuple(_get("jet.cu", f"gbgraph::{name}") for name in ("jet_sums", "jet_judge", "jet_best"))

    def __call__(self, moves_count=None):
        sums, judge, best = self._kernels
        sums((self._grid,), (_THREADS,), (self._loss, self._wsigma, self._n, self._partial))
        judge((1,), (_THREADS,),
              (self._partial, np.int32(self._grid)) + self._scalars + (_ptr(moves_count), self.state))
        best((_blocks(int(self._n)),), (_THREADS,), (self._sigma, self._n, self.state, self.best))


def jet_moves(A, theta, loss, locks, sigma, keys):
    """jet.cu's ``jet_candidates`` then ``jet_afterburner`` on a level's CSR matrix ``A`` and
    full float64 arrays (keys uint64): the afterburner's score at Jet's candidates, -inf
    elsewhere (float64, length n); locks = -inf where the score is >= 0 (the moves), else 0,
    and σ flipped there, in place."""
    n = sigma.size
    u, score = cupy.empty(n, cupy.float64), cupy.empty(n, cupy.float64)
    grid = (_blocks(n),)
    _get("jet.cu", "gbgraph::jet_candidates")(grid, (_THREADS,), (np.int64(n), theta, loss, locks, sigma, u))
    iso = A.values is None
    name = f"gbgraph::jet_afterburner<{c_type(A.indices.dtype)}, {str(iso).lower()}>"
    _get("jet.cu", name)(grid, (_THREADS,), (A.indptr, A.indices, _ptr(A.values), np.int64(n), loss, sigma, keys, u,
                                             np.float64(-np.inf), score, locks))
    return score


def jet_sigma(coarse, labels):
    """jet.cu's ``jet_sigma``: σ = 1 - 2 coarse[labels] (float64) from the coarse sides (bool or
    int8, 0 or 1) and the labels (int32 or int64)."""
    labels = labels if labels.dtype in (np.int32, np.int64) else labels.astype(cupy.int64)
    coarse = coarse if coarse.dtype.itemsize == 1 else coarse.astype(cupy.int8)
    n = labels.size
    sigma = cupy.empty(n, cupy.float64)
    _get("jet.cu", f"gbgraph::jet_sigma<{c_type(labels.dtype)}>")((_blocks(n),), (_THREADS,),
                                                                  (coarse, labels, np.int64(n), sigma))
    return sigma


def jet_level(A, k):
    """jet.cu's ``jet_level`` on a level's CSR matrix ``A`` (float64 values): (the weighted
    degrees d, the threshold θ = d k where d > 0, else -1), float64 arrays of length n."""
    n = A.nrows
    d, theta = cupy.empty(n, cupy.float64), cupy.empty(n, cupy.float64)
    _get("jet.cu", "gbgraph::jet_level")((_blocks(n),), (_THREADS,), (A.indptr, A.values, np.int64(n), np.float64(k),
                                                                      d, theta))
    return d, theta


def _row_warps(A):
    """:func:`mxv_kernel`'s choice, a warp a row on graphs of average degree >= 16, from the
    host's counts (``Matrix.avg_degree`` also reads the shortest row from the device: a wait
    a level)."""
    return A.nvals / max(A.nrows, 1) >= 16


def jet_update(A, sigma, w, loss, wsigma):
    """jet.cu's ``jet_update``: ℓ = σ (A ⊕plus.times σ) and w σ into ``loss`` and ``wsigma``
    (full float64 arrays), the product's rows reduced as :func:`mxv_kernel`'s would."""
    n = sigma.size
    warps = _row_warps(A)
    name = f"gbgraph::jet_update<{c_type(A.indices.dtype)}, {str(A.values is None).lower()}, {str(warps).lower()}>"
    _get("jet.cu", name)((_blocks(n * 32 if warps else n),), (_THREADS,),
                         (A.indptr, A.indices, _ptr(A.values), np.int64(n), sigma, w, loss, wsigma))


def jet_rebalance_keys(sigma, loss, w, keys, side_sigma):
    """(sort keys, movable count): jet.cu's ``jet_rebalance_keys`` over full float64 arrays
    (keys uint64): a (2, n) float64 array for ``cupy.lexsort`` and the count of the movable
    vertices (uint64, one element), on the device."""
    n = sigma.size
    sort_keys, movable = cupy.empty((2, n), cupy.float64), cupy.zeros(1, cupy.uint64)
    _get("jet.cu", "gbgraph::jet_rebalance_keys")((_blocks(n),), (_THREADS,),
                                                  (np.int64(n), sigma, loss, w, keys, np.float64(side_sigma),
                                                   np.float64(np.inf), sort_keys, movable))
    return sort_keys, movable


def jet_rebalance_flip(order, found, movable, positive, sigma):
    """jet.cu's ``jet_rebalance_flip``: σ flipped in place at the first ``min(found + 1,
    movable)`` of ``order`` (none unless ``positive``); that count as a device scalar."""
    moved = cupy.empty(1, cupy.int64)
    _get("jet.cu", "gbgraph::jet_rebalance_flip")((_blocks(sigma.size),), (_THREADS,),
                                                  (order, found, movable, bool(positive), sigma, moved))
    return moved


#: jet.cu's ``JET_SMALL``: the most vertices of a level whose rebalancing round is one block.
JET_SMALL = 4096


def jet_rebalance_small(sigma, loss, w, keys, side_sigma, amount):
    """jet.cu's ``jet_rebalance_small``: a level's rebalancing round (:func:`jet_rebalance_keys`,
    the lexsort, prefix sums, search and :func:`jet_rebalance_flip`) in one launch of one
    block, for n <= :data:`JET_SMALL`; σ flipped in place, the count moved as a device scalar."""
    n = sigma.size
    moved = cupy.empty(1, cupy.int64)
    _get("jet.cu", "gbgraph::jet_rebalance_small")((1,), (1024,),
                                                   (np.int64(n), np.int32(1 << max(n - 1, 0).bit_length()), sigma,
                                                    loss, w, keys, np.float64(side_sigma), np.float64(np.inf),
                                                    np.float64(amount), moved))
    return moved


class JetRounds:
    """jet.cu's ``jet_rounds``: a level's rounds after :class:`JetJudge`'s set-up (its ℓ, w σ, σ,
    sums' grid, scalars, state and best bisection), the judge, Jet's and the rebalancing
    rounds, in one cooperative launch (``rounds()``) that ends with the level. ``small``:
    whether the rebalancing rounds are jet_rebalance_small's (a level of at most
    :data:`JET_SMALL` vertices), else jet.cu's radix select (``rebalance_select``)."""

    def __init__(self, judge, A, theta, locks, keys, w, targets):
        n = int(judge._n)
        warps = _row_warps(A)  # jet_update's choice
        name = f"gbgraph::jet_rounds<{c_type(A.indices.dtype)}, {str(A.values is None).lower()}, {str(warps).lower()}>"
        self._kernel = _get("jet.cu", name, cooperative=True)
        self.small = n <= JET_SMALL
        work = -(-(n * 32 if warps else n) // 1024)
        self._blocks = max(1, min(work, _max_blocks() // 8))  # one block of 1024 a multiprocessor: all resident
        counts, select = cupy.zeros(1, cupy.int64), cupy.zeros(3 * 256 + 6, cupy.float64)
        self._args = (A.indptr, A.indices, _ptr(A.values), judge._n, theta, keys, w, judge._loss, judge._wsigma,
                      judge._sigma, locks, cupy.empty(n, cupy.float64), np.int64(judge._grid), judge._partial) + \
            judge._scalars + tuple(np.float64(t) for t in targets) + \
            (judge.state, judge.best, counts, select, np.int32(1 << max(n - 1, 0).bit_length() if self.small else 0))

    def __call__(self):
        self._kernel((self._blocks,), (1024,), self._args)


#: ``build``'s ``dup`` operators with a device kernel, on the integer types of
#: :data:`BUILD_TYPES` (atomics in any order give one result).
BUILD_MONOIDS = {"max": 0, "min": 1, "plus": 2}
BUILD_TYPES = {np.dtype(np.int64), np.dtype(np.uint64)}


def build_atomic(keys, values, size, dup):
    """(out, found, outside): a vector build of int64 ``keys`` and int64 or uint64
    ``values``, duplicates combined by ``dup`` (vector.cu's ``build_atomic``); ``outside``
    counts the keys not in [0, size), which it leaves out (a device scalar)."""
    dtype = values.dtype
    code = BUILD_MONOIDS[dup]
    out = cupy.full(size, {0: np.iinfo(dtype).min, 1: np.iinfo(dtype).max, 2: 0}[code], dtype)
    found = cupy.zeros(size, cupy.uint8)
    outside = cupy.zeros(1, cupy.uint64)
    if keys.size:
        _get("vector.cu", f"gbgraph::build_atomic<{code}, {c_type(dtype)}>")(
            (_blocks(keys.size),), (_THREADS,), (keys, values, np.int64(keys.size), np.int64(size), out, found,
                                                 outside))
    return out, found, outside


def gauss_seidel_sweep(layout, lanes, backward):
    """A function ``sweep(b, x)``: one forward (or backward) sweep of (cluster) Gauss-Seidel on
    ``layout`` (:class:`gbgraph.solvers.gauss_seidel_gpu.Layout`) in place on ``x``, one launch
    per color (gauss_seidel.cu), ``lanes`` threads (a power of two up to 32) to a row (point
    sweeps) or to a cluster, of which as many as its rows have entries in it share each turn.
    Kernels, grids and scratch are settled here, so that a sweep costs the host only its
    launches."""
    I = c_type(layout.out_col.dtype)
    colors = [c for c in (reversed(layout.colors) if backward else layout.colors) if c[1] > c[0]]
    if layout.point:
        kernel = _get("gauss_seidel.cu", f"gbgraph::gauss_seidel_points<{I}, {lanes}>")
        grids = [(_blocks((last - first) * lanes),) for first, last in colors]
        block, shared, tail = (_THREADS,), 0, ()
        arrays = (layout.rows, layout.out_ptr, layout.out_col, layout.out_val, layout.inverse_diagonal)
    else:
        # a turn's lanes: as many as its row's entries in the cluster, at most the cluster's lanes
        turn = min(lanes, lanes_for(layout.in_val.size / max(layout.n, 1)))
        kernel = _get("gauss_seidel.cu", f"gbgraph::gauss_seidel_clusters<{I}, {lanes}, {turn}, "
                                         f"{'true' if backward else 'false'}>")
        width = max(layout.width, 1)
        fixed = 8 * 3 * width + 8 * (width + 2)  # a cluster's x, s, 1 / A_rr and its rows' offsets
        per_warp = 32 // lanes  # a block holds whole warps: the kernel's shuffles take all 32 lanes
        groups = next((g * per_warp for g in (_THREADS // 32, 4, 2, 1) if fixed <= _SHARED_BYTES // (g * per_warp)), 0)
        spill, spill_offsets = _NULL, _NULL
        if groups:
            room = (_SHARED_BYTES // groups - fixed) // 20  # staged entries: a product; a value and its place
            shared = groups * 8 * (3 * width + 2 * room + (2 * width + 3 + room) // 2)
        else:  # a cluster too large for shared memory: the scratch in global memory
            groups, room, shared = _THREADS // lanes, 0, 0
            spill = cupy.empty(3 * layout.n)
            spill_offsets = cupy.empty(layout.n + layout.start.size, cupy.int32)
        block = (groups * lanes,)
        most = _max_blocks() * _THREADS // block[0]
        grids = [(max(1, min(-(-(last - first) // groups), most)),) for first, last in colors]
        tail = (np.int32(width), np.int32(room), np.int64(layout.n), spill, spill_offsets)
        arrays = (layout.start, layout.out_ptr[layout.start], layout.in_ptr[layout.start], layout.rows,
                  layout.out_ptr, layout.out_col, layout.out_val, layout.in_ptr, layout.in_loc, layout.in_val,
                  layout.inverse_diagonal)
    launches = [(grid, (np.int64(first), np.int64(last)) + arrays) for grid, (first, last) in zip(grids, colors)]

    def sweep(b, x):
        for grid, head in launches:
            kernel(grid, block, head + (b, x) + tail, shared_mem=shared)

    return sweep


#: Dynamic shared memory a block may take without asking for more (every CUDA device has it).
_SHARED_BYTES = 48 * 1024


_PRODUCTS = {"times": "Times", "residual": "Residual", "accumulate": "Accumulate", "jacobi": "Jacobi"}


def lanes_per_row(A):
    """Lanes sharing a row in ``csr_product``: :func:`lanes_for` A's mean row length."""
    return lanes_for(A.nnz / A.shape[0] if A.shape[0] else 1.0)


def lanes_for(entries):
    """The power of two nearest ``entries`` (a mean row length), 1 to 32."""
    return int(min(32, 2 ** max(0, round(np.log2(max(entries, 1.0))))))


def csr_product(op, A, x, y, b=None, s=None, omega=0.0, lanes=None):
    """One product of a V-cycle on the CSR ``A`` into ``y`` (cycle.cu): ``"times"`` y = A x,
    ``"residual"`` y = b - A x, ``"accumulate"`` y += A x, ``"jacobi"`` y = x + ω s (b - A x)."""
    n = A.shape[0]
    if n:
        lanes = lanes or lanes_per_row(A)
        kernel = _get("cycle.cu", f"gbgraph::csr_product<{c_type(A.indices.dtype)}, {lanes}, "
                                  f"gbgraph::Product::{_PRODUCTS[op]}>")
        kernel((_blocks(n * lanes),), (_THREADS,), (np.int64(n), A.indptr, A.indices, A.data, x, _ptr(b), _ptr(s),
                                                    np.float64(omega), y))


def jacobi_from_zero(b, s, omega, y):
    """y = ω s b: a Jacobi sweep from x = 0 (cycle.cu)."""
    if b.size:
        _get("cycle.cu", "gbgraph::jacobi_from_zero")((_blocks(b.size),), (_THREADS,),
                                                       (np.int64(b.size), b, s, np.float64(omega), y))


def dense_product(M, x, y):
    """y = M x for a dense, C-ordered square M (cycle.cu)."""
    if x.size:
        _get("cycle.cu", "gbgraph::dense_product")((_blocks(x.size),), (_THREADS,), (np.int64(x.size), M, x, y))


def _lanczos_lanes(A):
    """Lanes to a row in lanczos_steps: :func:`lanes_per_row` for rows of 16 entries or more,
    else one. On the H100, 10 steps with 7 entries a row (Laplace3D 100³) took 0.79 ms with
    a row per thread and 1.42 ms with 8 lanes; with 35 (its first coarse level), 1.26 ms
    against 0.85 ms with 32 lanes."""
    return lanes_per_row(A) if A.nnz >= 16 * A.shape[0] else 1


def lanczos_shares(A):
    """The length of :func:`lanczos_steps`'s ``partial`` for A: two sums' shares per block."""
    return 2 * cooperative_blocks(A.shape[0] * _lanczos_lanes(A))


def lanczos_steps(A, s, vectors, first, last, alphas, betas, partial):
    """Steps ``first`` .. ``last - 1`` of Lanczos' recurrence on ``diag(s) A diag(s)`` (or A, s
    None) in one cooperative launch (lanczos.cu), a row to one thread or a few lanes: α
    and β of each step into ``alphas[j]`` and
    ``betas[j]``. ``vectors`` is (v, previous, w) at step ``first``; returns it at step
    ``last``."""
    n = A.shape[0]
    name = f"gbgraph::lanczos_steps<{c_type(A.indices.dtype)}, {_lanczos_lanes(A)}>"
    _get("lanczos.cu", name, cooperative=True)(
        (partial.size // 2,), (_THREADS,), (np.int64(n), A.indptr, A.indices, A.data, _ptr(s), *vectors,
                                            np.int32(first), np.int32(last), alphas, betas, partial))
    turns = (last - first) % 3  # each step: (v, previous, w) becomes (w, v, previous)
    v, previous, w = vectors
    for _ in range(turns):
        v, previous, w = w, v, previous
    return v, previous, w


def tentative(labels, tol, Q, R):
    """pyamg's ``fit_candidates`` on the GPU, a thread per aggregate (prolongator.cu): Q (n × K,
    C order, the candidates on entry) orthonormalised in place over each aggregate's rows in
    ascending order, the coefficients into R (k × K × K, zeros on entry). The aggregates'
    rows are gathered by a counting sort (two atomic passes), not a sort of the labels."""
    n, (k, K) = labels.size, R.shape[:2]
    if k == 0:
        return
    index = np.int32 if n < 2**31 else np.int64
    grid, types = (_blocks(n),), f"{c_type(labels.dtype)}, {c_type(index)}"
    sizes, offsets, members = cupy.zeros(k, index), cupy.zeros(k + 1, index), cupy.empty(n, index)
    _get("aggregates.cuh", f"gbgraph::aggregate_sizes<{types}>")(grid, (_THREADS,), (np.int64(n), labels, _NULL, sizes,
                                                                                  _NULL))
    cupy.cumsum(sizes, dtype=index, out=offsets[1:])
    cursor = offsets[:-1].copy()
    _get("aggregates.cuh", f"gbgraph::aggregate_members<{types}, {c_type(index)}>")(
        grid, (_THREADS,), (np.int64(n), labels, cursor, members))
    _get("prolongator.cu", f"gbgraph::tentative<{c_type(index)}>")(
        (_blocks(k),), (_THREADS,), (np.int64(k), np.int32(K), offsets, members, np.float64(tol), Q, R))


def smoothed_prolongator(A, s, labels, Q):
    """(indptr, indices, values) of P = T - diag(s) A T for the tentative prolongator T with
    K entries Q[i] in each row i, at columns ``labels[i] K + c`` (prolongator.cu): each row's
    aggregates, then its values; rows sorted, zeros kept."""
    n, K = Q.shape
    index = A.indices.dtype
    indptr, labels = A.indptr.astype(index, copy=False), labels.astype(index, copy=False)
    groups, counts = cupy.empty(A.nnz + n, index), cupy.empty(n, index)
    P_indptr = cupy.zeros(n + 1, index)
    if n:
        _get("prolongator.cu", f"gbgraph::prolongator_groups<{c_type(index)}>")(
            (_blocks(n),), (_THREADS,), (np.int64(n), indptr, A.indices, labels, groups, counts))
        cupy.cumsum(counts * index.type(K), dtype=index, out=P_indptr[1:])
    nnz = int(P_indptr[-1])
    P_indices, P_values = cupy.empty(nnz, index), cupy.empty(nnz)
    if nnz:
        _get("prolongator.cu", f"gbgraph::prolongator_values<{c_type(index)}>")(
            (_blocks(n),), (_THREADS,), (np.int64(n), np.int32(K), indptr, A.indices, A.data, s, labels, Q, groups,
                                         counts, P_indptr, P_indices, P_values))
    return P_indptr, P_indices, P_values

"""Graphs split over MPI ranks, for ``backend="mpi"``: scatter one, read one's rows, gather.

Run a script under ``mpiexec -n 4 python script.py``; every rank calls the same functions.
Two ways in:

* the whole graph on every rank: ``gg.mis2(A, backend="mpi")`` with the same ``A`` on every
  rank; each rank keeps only its rows of the backend's matrices;
* a :class:`DistributedGraph`, each rank holding only its block of rows: from
  :func:`scatter` (rank 0 holds the graph) or :func:`read_csr` (each rank reads its rows of
  CSR arrays on disk, memory-mapped). Algorithms given one run on the mpi backend of its
  communicator.

Every rank gets the whole result, equal to the single-process call's bit for bit (the
sorted vertex ids of an MIS, the labels of every vertex). :func:`gather` concatenates
per-rank arrays (this rank's part of a result, ``labels[lo:hi]`` with ``(lo, hi) =
graph.rows``) on every rank or on one. docs/distributed.md says how to launch and what is
exchanged when. mpi4py is imported on first use, so ``import gbgraph`` never starts MPI.
"""

import os
import struct
import zipfile

import numpy as np

from .errors import AsymmetricGraphError
from .graph import Graph, as_graph

__all__ = ["DistributedGraph", "scatter", "read_csr", "gather", "local_rows"]


class DistributedGraph(Graph):
    """This rank's block of rows of an undirected graph split over an MPI communicator.

    Made by :func:`scatter` or :func:`read_csr`; pass it to any algorithm on every rank.
    The rows follow :func:`gbgraph.backends.mpi.layout.bounds`; each is sorted, without
    duplicates or diagonal entries, as in a :class:`~gbgraph.graph.Graph`.

    Attributes
    ----------
    n, nnz : int
        Vertices and stored entries of the whole graph.
    comm : mpi4py.MPI.Comm
    rows : (int, int)
        This rank's rows ``lo`` to ``hi``.
    local_indptr, local_indices, local_weights : numpy.ndarray
        CSR of those rows (offsets from 0, global column ids; weights None for a pattern).
    indptr, indices, weights
        The whole graph's arrays, gathered from every rank on first use (O(nnz) on each
        rank: what code outside the mpi backend reads, such as the coarse-graph checks).
    """

    def __init__(self, n, indptr, indices, weights, comm):
        lo, hi = _block(n, comm)
        if indptr.size != hi - lo + 1:
            raise ValueError(f"rank {comm.Get_rank()} holds {indptr.size - 1:,} rows; its block is rows {lo:,} "
                             f"to {hi:,} of {n:,}")
        for name, value in (("n", n), ("container", "scipy.csr_array"), ("_cache", {}), ("comm", comm),
                            ("rows", (lo, hi)), ("local_indptr", indptr), ("local_indices", indices),
                            ("local_weights", weights), ("_nnz", comm.allreduce(int(indices.size)))):
            object.__setattr__(self, name, value)

    @property
    def nnz(self):
        return self._nnz

    @property
    def indptr(self):
        def gather_indptr():
            indptr = np.zeros(self.n + 1, np.int64)
            np.cumsum(gather(np.diff(self.local_indptr), self.comm), out=indptr[1:])
            return indptr

        return self.cached(("distributed", "indptr"), gather_indptr)

    @property
    def indices(self):
        return self.cached(("distributed", "indices"), lambda: gather(self.local_indices, self.comm))

    @property
    def weights(self):
        if self.local_weights is None:
            return None
        return self.cached(("distributed", "weights"), lambda: gather(self.local_weights, self.comm))

    @property
    def default_backend(self):
        """The mpi backend of this graph's communicator (``backend=None`` picks it)."""
        from . import backends

        def make():
            mpi = backends.backend("mpi")
            if mpi.comm.Compare(self.comm) in (_mpi().IDENT, _mpi().CONGRUENT):
                return mpi
            return type(mpi)(self.comm)

        return self.cached(("distributed", "backend"), make)

    def on_device_of(self, xp):
        if xp is not np:
            raise TypeError("a DistributedGraph lives in host memory; run it on backend='mpi'")
        return self

    def __repr__(self):
        lo, hi = self.rows
        return (f"DistributedGraph(n={self.n:,}, nnz={self.nnz:,}, weighted={self.local_weights is not None}, "
                f"rows {lo:,}..{hi:,} on rank {self.comm.Get_rank()} of {self.comm.Get_size()})")


def local_rows(graph, lo, hi, comm):
    """CSR arrays ``(indptr, indices, weights)`` of rows ``lo`` to ``hi`` of ``graph``.

    Parameters
    ----------
    graph : Graph or DistributedGraph
        A Graph every rank holds whole, or a DistributedGraph of a communicator congruent
        with ``comm`` (the same ranks in the same order), holding exactly these rows.
    lo, hi : int
    comm : mpi4py.MPI.Comm

    Returns
    -------
    (numpy.ndarray, numpy.ndarray, numpy.ndarray or None)
        int64 row offsets from 0, int64 global columns, the weights or None.

    Raises
    ------
    ValueError
        for a DistributedGraph of another communicator.

    Examples
    --------
    >>> import gbgraph as gg
    >>> indptr, cols, w = local_rows(gg.as_graph(gg.generators.laplace3d(3)), 1, 3, None)
    >>> indptr.tolist(), cols[:3].tolist()
    ([0, 4, 7], [0, 2, 4])
    """
    if isinstance(graph, DistributedGraph):
        if graph.comm.Compare(comm) not in (_mpi().IDENT, _mpi().CONGRUENT) or graph.rows != (lo, hi):
            raise ValueError(f"the graph is split over another communicator ({graph.comm.Get_size()} ranks, rows "
                             f"{graph.rows}) than the backend's ({comm.Get_size()} ranks, rows {(lo, hi)})")
        return graph.local_indptr, graph.local_indices, graph.local_weights
    start, end = int(graph.indptr[lo]), int(graph.indptr[hi])
    indptr = np.asarray(graph.indptr[lo:hi + 1], np.int64) - start
    weights = None if graph.weights is None else np.asarray(graph.weights[start:end])
    return indptr, np.asarray(graph.indices[start:end], np.int64), weights


def scatter(A, comm=None, *, root=0):
    """Split a graph that ``root`` holds into row blocks, one per rank of ``comm``.

    Parameters
    ----------
    A : graph or None
        On ``root``, anything :func:`gbgraph.as_graph` accepts; ignored elsewhere (pass
        None).
    comm : mpi4py.MPI.Comm, optional
        Default ``MPI.COMM_WORLD``.
    root : int
        The rank holding ``A``.

    Returns
    -------
    DistributedGraph
        On every rank, its block of rows.

    Raises
    ------
    InvalidGraphError, UnsupportedGraphTypeError
        on every rank, for an ``A`` that :func:`gbgraph.as_graph` rejects on ``root``.

    Examples
    --------
    >>> import gbgraph as gg
    >>> G = scatter(gg.generators.laplace3d(4))          # one rank here: every row
    >>> G.n, G.nnz, G.rows
    (64, 288, (0, 64))
    >>> bool((gg.mis2(G).vertices == gg.mis2(gg.generators.laplace3d(4)).vertices).all())
    True
    """
    comm = _world() if comm is None else comm
    graph = error = None
    if comm.Get_rank() == root:
        try:
            graph = as_graph(A)
        except Exception as e:  # every rank raises it, none waits for the others
            error = e
    meta = comm.bcast((error, None) if graph is None else
                      (None, (graph.n, None if graph.weights is None else graph.weights.dtype)), root=root)
    if meta[0] is not None:
        raise meta[0]
    n, weight_dtype = meta[1]
    b = bounds(n, comm.Get_size())
    lo, hi = b[comm.Get_rank()], b[comm.Get_rank() + 1]
    degrees = _scatterv(comm, root, None if graph is None else np.diff(graph.indptr).astype(np.int64), np.diff(b),
                        hi - lo, np.int64)
    indptr = np.zeros(degrees.size + 1, np.int64)
    np.cumsum(degrees, out=indptr[1:])
    per_rank = None if graph is None else np.diff(graph.indptr[b]).astype(np.int64)
    indices = _scatterv(comm, root, None if graph is None else graph.indices.astype(np.int64), per_rank,
                        indptr[-1], np.int64)
    weights = None if weight_dtype is None else _scatterv(comm, root, None if graph is None else graph.weights,
                                                          per_rank, indptr[-1], weight_dtype)
    return DistributedGraph(n, indptr, indices, weights, comm)


def read_csr(path, comm=None, *, name="A"):
    """Each rank reads only its rows of a graph stored as CSR arrays.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.npz`` file with arrays ``indptr``, ``indices`` and optionally ``data`` (and
        ``shape``, ``format``: what ``scipy.sparse.save_npz`` writes for a CSR matrix), or
        a folder holding ``indptr.npy``, ``indices.npy`` and optionally ``data.npy``.
        ``.npy`` files and the members of an uncompressed ``.npz``
        (``save_npz(..., compressed=False)``, ``numpy.savez``) are memory-mapped, so a rank
        reads its rows only; a compressed member is read whole by every rank.
    comm : mpi4py.MPI.Comm, optional
        Default ``MPI.COMM_WORLD``.
    name : str
        How error messages refer to the graph.

    Returns
    -------
    DistributedGraph
        Boolean ``data`` (or none) gives a pattern; other values are the weights. Diagonal
        entries are dropped, rows sorted, duplicates summed, as :func:`gbgraph.as_graph`
        does.

    Raises
    ------
    FileNotFoundError
        for a path that does not exist (naming it).
    ValueError
        for a non-square shape, a format other than CSR, a missing array, or indices out
        of range.
    AsymmetricGraphError
        on every rank, for a pattern that is not symmetric (the number of one-way entries).

    Examples
    --------
    >>> import os, tempfile, scipy.sparse as sp, gbgraph as gg
    >>> A = gg.generators.laplace3d(4)
    >>> path = os.path.join(tempfile.mkdtemp(), "A.npz")
    >>> sp.save_npz(path, A, compressed=False)
    >>> G = read_csr(path)
    >>> G.n, G.nnz, bool((gg.aggregate(G).labels == gg.aggregate(A).labels).all())
    (64, 288, True)
    """
    comm = _world() if comm is None else comm
    arrays = _csr_arrays(os.fspath(path))
    n = arrays["indptr"].shape[0] - 1
    shape = tuple(int(s) for s in arrays.get("shape", (n, n)))
    if shape != (n, n):
        raise ValueError(f"{name} must be square with {n:,} rows, got shape {shape}")
    lo, hi = _block(n, comm)
    indptr = np.array(arrays["indptr"][lo:hi + 1], dtype=np.int64)
    start, end = int(indptr[0]), int(indptr[-1])
    cols = np.array(arrays["indices"][start:end], dtype=np.int64)
    data = arrays.get("data")
    weights = None if data is None or data.dtype == np.bool_ else np.array(data[start:end])
    indptr -= start
    bad = bool(np.any(np.diff(indptr) < 0) or (cols.size and (cols.min() < 0 or cols.max() >= n)))
    bad_ranks = comm.allreduce(int(bad))
    if bad_ranks:  # every rank raises, none waits in a collective
        raise ValueError(f"{name} has decreasing row pointers or columns outside 0..{n - 1} (in the rows of "
                         f"{bad_ranks} of {comm.Get_size()} ranks)")
    indptr, cols, weights = _canonical_rows(indptr, cols, weights, lo)
    graph = DistributedGraph(n, indptr, cols, weights, comm)
    _check_symmetric(graph, name)
    return graph


def gather(local, comm=None, *, root=None):
    """Every rank's ``local`` array concatenated in rank order.

    Parameters
    ----------
    local : numpy.ndarray
        One-dimensional, the same dtype on every rank (e.g. ``labels[lo:hi]`` of a
        result, or per-row data of a DistributedGraph's rows).
    comm : mpi4py.MPI.Comm, optional
        Default ``MPI.COMM_WORLD``.
    root : int, optional
        None: the result on every rank (Allgatherv); else on ``root`` only (Gatherv),
        None elsewhere.

    Returns
    -------
    numpy.ndarray or None

    Raises
    ------
    ValueError
        for an array that is not one-dimensional.

    Examples
    --------
    >>> gather(np.arange(3)).tolist()                     # one rank
    [0, 1, 2]
    """
    local = np.ascontiguousarray(local)
    if local.ndim != 1:
        raise ValueError(f"gather takes one-dimensional arrays, got shape {local.shape}")
    comm = _world() if comm is None else comm
    counts = np.array(comm.allgather(local.size), np.int64)
    displs = np.concatenate(([0], np.cumsum(counts)[:-1]))
    wire = local.view(np.uint8) if local.dtype == np.bool_ else local
    if root is None:
        out = np.empty(int(counts.sum()), wire.dtype)
        comm.Allgatherv(wire, [out, (counts, displs)])
    else:
        out = np.empty(int(counts.sum()), wire.dtype) if comm.Get_rank() == root else None
        comm.Gatherv(wire, None if out is None else [out, (counts, displs)], root=root)
        if out is None:
            return None
    return out.view(np.bool_) if local.dtype == np.bool_ else out


def _scatterv(comm, root, send, counts, size, dtype):
    """This rank's part of ``send`` (on root), ``counts[r]`` entries to rank r."""
    recv = np.empty(int(size), dtype)
    if comm.Get_rank() == root:
        displs = np.concatenate(([0], np.cumsum(counts)[:-1]))
        comm.Scatterv([np.ascontiguousarray(send, dtype), (counts, displs)], recv, root=root)
    else:
        comm.Scatterv(None, recv, root=root)
    return recv


def _canonical_rows(indptr, cols, weights, lo):
    """Rows sorted by column, diagonal entries dropped, duplicates summed (as_graph's rules)."""
    rows = np.repeat(np.arange(indptr.size - 1), np.diff(indptr))
    keep = cols != rows + lo
    rows, cols = rows[keep], cols[keep]
    order = np.lexsort((cols, rows))
    rows, cols = rows[order], cols[order]
    first = np.flatnonzero(np.concatenate(([True], (rows[1:] != rows[:-1]) | (cols[1:] != cols[:-1])))) \
        if rows.size else np.zeros(0, np.int64)
    if weights is not None:
        weights = weights[keep][order]
        weights = np.add.reduceat(weights, first) if first.size else weights[:0]
    out = np.zeros(indptr.size, np.int64)
    np.cumsum(np.bincount(rows[first], minlength=indptr.size - 1), out=out[1:])
    return out, cols[first], weights


def _check_symmetric(graph, name):
    """Raise on every rank when some entry (i, j) has no (j, i): ``A`` against ``Aᵀ``."""
    be = graph.default_backend
    A = be.adjacency(graph)
    both = be.nvals(be.ewise_mult("pair", A, be.transpose(A)))  # A ∩ Aᵀ
    if both != graph.nnz:
        raise AsymmetricGraphError(name, graph.nnz - both, graph.nnz, f"use gg.symmetrize({name}) for the pattern "
                                   "of A ∪ Aᵀ, and write that")


def _csr_arrays(path):
    """name -> array (memory-mapped where it can be) of a ``.npz`` file or a folder of ``.npy``."""
    if os.path.isdir(path):
        arrays = {}
        for key in ("indptr", "indices", "data"):
            file = os.path.join(path, key + ".npy")
            if os.path.exists(file):
                arrays[key] = np.load(file, mmap_mode="r")
    elif os.path.exists(path):
        with zipfile.ZipFile(path) as archive:
            members = {m.filename.removesuffix(".npy"): m for m in archive.infolist()}
        arrays = {key: _npz_member(path, member) for key, member in members.items()
                  if key in ("indptr", "indices", "data", "shape", "format")}
    else:
        raise FileNotFoundError(f"no CSR graph at {path!r} (a .npz file or a folder of .npy files)")
    for key in ("indptr", "indices"):
        if key not in arrays:
            raise ValueError(f"{path!r} has no {key!r} array; it needs indptr and indices (and data for weights)")
    if "format" in arrays and bytes(np.asarray(arrays["format"]).item()).decode() != "csr":
        raise ValueError(f"{path!r} holds a {np.asarray(arrays['format']).item()!r} matrix; save it as CSR")
    return arrays


def _npz_member(path, member):
    """One array of a ``.npz``: memory-mapped when stored uncompressed, else read whole."""
    if member.compress_type != zipfile.ZIP_STORED:
        with np.load(path, allow_pickle=False) as archive:
            return archive[member.filename.removesuffix(".npy")]
    with open(path, "rb") as f:
        f.seek(member.header_offset)
        name_length, extra_length = struct.unpack("<HH", f.read(30)[26:30])
        f.seek(member.header_offset + 30 + name_length + extra_length)
        version = np.lib.format.read_magic(f)
        read_header = np.lib.format.read_array_header_1_0 if version == (1, 0) else np.lib.format.read_array_header_2_0
        shape, fortran, dtype = read_header(f)
        offset = f.tell()
    if dtype.hasobject or fortran or not shape or not shape[0]:
        with np.load(path, allow_pickle=False) as archive:
            return archive[member.filename.removesuffix(".npy")]
    return np.memmap(path, dtype=dtype, mode="r", offset=offset, shape=shape)


def _mpi():
    from mpi4py import MPI

    return MPI


def _block(n, comm):
    """``(lo, hi)``: this rank's block of ``n`` rows (:func:`bounds`)."""
    b = bounds(n, comm.Get_size())
    return int(b[comm.Get_rank()]), int(b[comm.Get_rank() + 1])


def bounds(size, nranks):
    """:func:`gbgraph.backends.mpi.layout.bounds`, imported on first use (it starts MPI)."""
    from .backends.mpi import layout

    return layout.bounds(size, nranks)


def _world():
    return _mpi().COMM_WORLD

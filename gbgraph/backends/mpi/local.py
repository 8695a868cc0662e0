"""The blocks' backend as the mpi layer sees it: the local backend's verbs, arrays on the host.

The mpi layer computes its exchanges with numpy, since mpi4py sends host buffers, while a
rank's blocks live where its local backend keeps them: SuiteSparse objects in host memory
(``suitesparse``) or CuPy arrays on the rank's GPU (``cupy``). A :class:`Local` passes the
verbs through to the local backend, which takes host arrays as it takes its own, and gives
host arrays back where the layer reads a block:

* :meth:`~Local.indices`, :meth:`~Local.values`, :meth:`~Local.csr`, :meth:`~Local.entries`:
  a block's entries as numpy arrays (from the GPU, one copy each);
* :meth:`~Local.read`: a vector's values and presence at a few positions (the entries a
  ghost request asks for; on the GPU gathered there, so that only they are copied);
* :meth:`~Local.around`: the vector a product over a block reads, the block's own vector
  placed among the ghosts' values (on the GPU the block is copied on the device and only
  the ghosts cross from the host);
* :meth:`~CupyLocal.placed`: a block placed among ghost values received on the device
  (:mod:`.nccl`), without a wait for the device;
* :meth:`~Local.matrix`: a block of rows from CSR arrays with local column numbers;
* :meth:`~Local.apply_index`: an index-unary operator at a block's global positions (on the
  GPU by the operator's device version, where it has one: the MIS statuses).
"""

import contextlib

import numpy as np

__all__ = ["Local", "local_backend"]


class Local:
    """The local backend ``backend`` of a rank's blocks, with host-array conversions.

    Attributes other than those below are the local backend's (its verbs).
    """

    def __init__(self, backend):
        self.backend = backend

    def __getattr__(self, name):
        return getattr(self.backend, name)

    def host(self, x):
        """An array of the local backend's ``xp`` as a numpy array."""
        return np.asarray(x)

    def indices(self, v):
        """Positions of a local vector's entries, a numpy int64 array."""
        return np.asarray(self.backend.indices(v), dtype=np.int64)

    def values(self, v):
        """Values of a local vector's entries, a numpy array."""
        return np.asarray(self.backend.values(v))

    def matrix(self, ncols, indptr, cols, values=None):
        """A CSR matrix of ``indptr.size - 1`` rows from local column numbers, ascending
        within rows (numpy arrays, which it may take over); values None gives a pattern."""
        index = self.backend.index_dtype
        return self.backend.matrix(np.asarray(indptr).astype(index), np.asarray(cols).astype(index), ncols=ncols,
                                   values=None if values is None else np.ascontiguousarray(values), copy=False)

    def apply_index(self, op, u, lo, thunk):
        """``w(i) = op(lo + i, thunk)`` for each entry ``u(i)`` of a block starting at global
        position ``lo``: the operator sees global positions."""
        ids = self.indices(u)
        return self.backend.vector(ids, op(ids + lo, thunk), u.size, copy=False)


class SuiteSparseLocal(Local):
    """Blocks held by python-graphblas: read through its import and export of arrays."""

    def csr(self, M):
        """``(indptr, cols, values)`` of a local matrix, int64 indices."""
        indptr, cols, values = M.to_csr()
        return indptr.view(np.int64), cols.view(np.int64), values

    def entries(self, M, values=True):
        """``(rows, cols[, values])`` of a local matrix, int64, sorted by row then column."""
        rows, cols, vals = M.to_coo(values=values)
        rows, cols = rows.view(np.int64), cols.view(np.int64)
        return (rows, cols, vals) if values else (rows, cols)

    def dtype(self, x):
        """The numpy dtype of a local vector's or matrix's values."""
        return np.dtype(x.dtype.np_type)

    def apply_index(self, op, u, lo, thunk):
        if u.size and u.nvals == u.size:  # every position: stored full, as SuiteSparse's apply keeps a full input
            import graphblas as gb
            from ..suitesparse import _acyclic

            values = np.ascontiguousarray(op(np.arange(lo, lo + u.size, dtype=np.int64), thunk))
            return _acyclic(gb.Vector.ss.import_full(values=values, take_ownership=True))
        return super().apply_index(op, u, lo, thunk)

    def is_pattern(self, M):
        """Whether a local matrix is an iso boolean pattern (what ``matrix`` makes of None)."""
        return M.ss.is_iso and self.dtype(M) == np.bool_

    def read(self, u, ids):
        """``(values, present)`` of local vector ``u`` at local positions ``ids``."""
        values = np.zeros(ids.size, dtype=self.dtype(u))
        present = np.zeros(ids.size, dtype=bool)
        with _full_values(u) as block:
            if block is not None:  # u(ids), read in place
                values[:], present[:] = block[ids], True
                return values, present
        found = self.backend.extract(u, ids)  # found = u(ids)
        at = self.indices(found)
        values[at], present[at] = self.values(found), True
        return values, present

    def around(self, u, size, below, ids, values, keep=None, pad=False):
        """A local vector of ``size`` entries: ``u``'s entry i at ``below + i`` and
        ``values`` at the positions ``ids`` (outside u's range). Full when every position
        has an entry, else a bitmap, which a masked product reads by position (a sparse
        one, by binary search: 5x the time on Laplace3D 80³).

        ``pad``: the other positions hold 0 when u is full, so that the vector is full (a
        masked product that reads none of them runs 15–20% faster on a full vector than
        on a bitmap). ``keep``: a dict of the caller's in which the vector is kept and
        refilled by the next call given it, for a caller done with it by then: an array
        handed to SuiteSparse and freed there comes back from the next allocation as
        fresh pages (1.3 ms for 4 MB, against 0.08 ms to refill it), so a product's
        array is allocated once, not per product.
        """
        inside = slice(below, below + u.size)
        with _full_values(u) as block:
            full = block is not None and (pad or u.size + ids.size == size)
            kept, arrays = _storage(keep, self.dtype(u), size, full)
            x = arrays[-1]
            if full:
                x[:below] = 0
                x[inside.stop:] = 0
                x[inside] = block
                nvals = size
            else:
                bitmap = arrays[0]
                bitmap[:] = 0
                at = inside if block is not None else self.indices(u) + below
                x[at] = block if block is not None else self.values(u)
                bitmap[at] = 1
                nvals = (u.size if block is not None else at.size) + ids.size
                bitmap[ids] = 1
        x[ids] = values
        return _packed(keep, kept, arrays, nvals)


def _storage(keep, dtype, size, full):
    """``(vector, arrays)``: the vector kept in ``keep`` for ``dtype`` and ``full`` (or
    None) and its arrays, ``(values,)`` or ``(bitmap, values)``, lent back from it (O(1)),
    or new arrays of ``size`` entries."""
    kept = None if keep is None else keep.get((dtype, full))
    if kept is None:
        values = np.empty(size, dtype=dtype)
        return None, (values,) if full else (np.empty(size, dtype=np.int8), values)
    if full:
        return kept, (kept.ss.unpack("full")["values"],)
    unpacked = kept.ss.unpack("bitmap")
    return kept, (unpacked["bitmap"], unpacked["values"])


def _packed(keep, kept, arrays, nvals):
    """The vector of ``arrays`` (:func:`_storage`'s): packed back into ``kept``, or a new
    one, kept in ``keep`` when given."""
    import graphblas as gb
    from ..suitesparse import _acyclic

    full = len(arrays) == 1
    if kept is not None:
        if full:
            kept.ss.pack_full(arrays[0], take_ownership=True)
        else:
            kept.ss.pack_bitmap(bitmap=arrays[0], values=arrays[1], nvals=nvals, take_ownership=True)
        return kept
    if full:
        vector = gb.Vector.ss.import_full(values=arrays[0], take_ownership=True)
    else:
        vector = gb.Vector.ss.import_bitmap(bitmap=arrays[0], values=arrays[1], nvals=nvals, take_ownership=True)
    if keep is not None:
        keep[(np.dtype(arrays[-1].dtype), full)] = vector
    return _acyclic(vector)


class CupyLocal(Local):
    """Blocks on this rank's GPU (the ``cupy`` backend's containers); numpy arrays cross
    to and from the device where the layer reads or builds a block."""

    def __init__(self, backend):
        super().__init__(backend)
        import cupy

        self.cupy = cupy

    def host(self, x):
        return self.cupy.asnumpy(x)

    def indices(self, v):
        return self.cupy.asnumpy(self.backend.indices(v)).astype(np.int64, copy=False)

    def values(self, v):
        return self.cupy.asnumpy(self.backend.values(v))

    def apply_index(self, op, u, lo, thunk):
        # an operator with a device version (the MIS statuses) computes on the GPU
        cuda = getattr(op, "cuda", None)
        if cuda is None:
            return super().apply_index(op, u, lo, thunk)
        from ..cupy import kernels
        from ..cupy.containers import Vector

        # at the global positions of u's buffers, with u's count (on the device: no wait for it)
        ids = self.cupy.arange(lo, lo + u.size, dtype=self.cupy.int64) if u.indices is None else u.indices + lo
        values = cuda(ids, u.count, kernels.count_args(u)[1], u.capacity, thunk)
        return Vector(u.size, u.indices, values, u.count)

    def csr(self, M):
        indptr, cols, values = self.backend.to_csr(M)
        return self.cupy.asnumpy(indptr), self.cupy.asnumpy(cols), self.cupy.asnumpy(values)

    def entries(self, M, values=True):
        indptr, cols, vals = self.csr(M)
        rows = np.repeat(np.arange(M.nrows, dtype=np.int64), np.diff(indptr))
        return (rows, cols, vals) if values else (rows, cols)

    def dtype(self, x):
        return np.dtype(x.dtype)

    def is_pattern(self, M):
        return M.values is None

    def read(self, u, ids):
        block, present = u.dense()  # on the device: u's values at every position, and presence
        at = self.cupy.asarray(ids)
        values = self.cupy.asnumpy(block[at])
        return values, (np.ones(ids.size, bool) if present is None else self.cupy.asnumpy(present[at]).astype(bool))

    def around(self, u, size, below, ids, values, keep=None, pad=False):
        # CuPy's memory pool reuses a product's arrays: nothing is kept
        cupy = self.cupy
        block, present = u.dense()
        own = u.size
        pad = pad and present is None
        full = cupy.zeros(size, dtype=block.dtype) if pad else cupy.empty(size, dtype=block.dtype)
        full[below:below + own] = block  # a copy on the device
        at = cupy.asarray(ids)
        full[at] = cupy.asarray(values)  # the ghosts, from the host
        if present is None and (pad or own + ids.size == size):
            return self.backend.full(size, full, full.dtype)
        held = cupy.zeros(size, bool)
        held[below:below + own] = True if present is None else present.astype(bool)
        held[at] = True
        positions = cupy.flatnonzero(held)
        return self.backend.vector(positions, full[positions], size, copy=False)

    def placed(self, u, size, lo, at=None, values=None, present=None):
        """A local vector of ``size`` entries: ``u``'s entry i at ``lo + i`` and, with
        ``at``, ``values`` at the device positions ``at`` (outside u's range) where
        ``present``. Made on the device without a wait for it: its entries are compacted
        there and their count kept there (:class:`~gbgraph.backends.cupy.containers.Vector`),
        where placing them by their presence copied the presence to the host first."""
        cupy = self.cupy
        from ..cupy import kernels
        from ..cupy.containers import Vector

        block, own = u.dense()
        values_at, held = cupy.zeros(size, block.dtype), cupy.zeros(size, cupy.uint8)
        values_at[lo:lo + u.size] = block
        held[lo:lo + u.size] = 1 if own is None else own
        if at is not None:
            values_at[at] = values
            held[at] = present
        if values_at.dtype not in kernels._C_TYPES:  # no compaction kernel for this type: the positions, by a wait
            positions = cupy.flatnonzero(held)
            return Vector(size, positions, values_at[positions])
        return Vector(size, *kernels.compact("ne", Vector(size, None, values_at), 0, keys=held))

    def shifted(self, u, size, lo):
        """``u``'s entry i at ``lo + i`` in a vector of ``size`` entries (``lo`` negative and
        ``u`` within ``-lo .. -lo + size``: a block of a vector), on ``u``'s buffers and
        with its count, which stays on the device: no wait for it, where reading the
        positions made the host wait."""
        from ..cupy.containers import Vector

        if u.indices is not None:
            return Vector(size, u.indices + lo, u.values, u.count)
        if lo <= 0 and u.size + lo >= size:  # the block of a full vector
            return Vector(size, None, u.values[-lo:size - lo])
        return Vector(size, self.cupy.arange(lo, lo + u.size, dtype=self.cupy.int64), u.values)

    def full_placed(self, u, size, lo, at=None, values=None):
        """:meth:`placed` for a vector that every rank holds full: its values at every
        position as a full vector, 0 where none is placed."""
        block, _ = u.dense()
        values_at = self.cupy.zeros(size, block.dtype)
        values_at[lo:lo + u.size] = block
        if at is not None:
            values_at[at] = values
        return self.backend.full(size, values_at, values_at.dtype)


def local_backend(name):
    """The :class:`Local` of the backend called ``name`` (``"suitesparse"`` or ``"cupy"``).

    Raises
    ------
    ValueError
        for another name.
    """
    from .. import backend

    kinds = {"suitesparse": SuiteSparseLocal, "cupy": CupyLocal}
    if name not in kinds:
        raise ValueError(f"the mpi backend's blocks run on 'suitesparse' or 'cupy', got {name!r}")
    return kinds[name](backend(name))


@contextlib.contextmanager
def _full_values(v):
    """The values of a SuiteSparse vector with an entry at every position, lent without a
    copy; None for one with fewer entries.

    SuiteSparse's data are unpacked into a numpy array (O(1)) and packed back on exit, so
    that a product's ghosts and its own block are read from them directly instead of
    through two copies (``extractTuples``, then the copy into place). The vector is empty
    meanwhile: read the array, not the vector. An iso-valued vector lends a broadcast view.
    A vector stored sparse or as a bitmap with every entry (``vector`` given every
    position) is converted once, O(n), and packed back full, so that later reads cost
    O(1) too (the SpMV yardstick's u: 10 of its 27 ms a product at 60³ on 2 ranks went
    to extracting it).
    """
    if v.ss.format != "full" and not (v.size and v.nvals == v.size):
        yield None
        return
    unpacked = v.ss.unpack("full")
    values, iso = unpacked["values"], unpacked["is_iso"]
    try:
        yield np.broadcast_to(values, v.size) if iso else values
    finally:
        v.ss.pack_full(values, is_iso=iso, take_ownership=True)

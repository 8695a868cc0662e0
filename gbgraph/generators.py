"""Test matrices: Trilinos Galeri's Laplace3D and Elasticity3D, and Graph500's R-MAT graphs.

Both number grid points as Galeri does, ``id = x + y*nx + z*nx*ny``, so that results (MIS-2
sizes, aggregates) can be compared with Kokkos Kernels and MueLu runs on Galeri matrices.

Both write their CSR arrays directly, in one compiled pass that copies a precomputed row per
kind of node (interior, or on one of the faces, edges, corners): about two SpMV-equivalents
(benchmarks/bench_generators.py), where building through coordinate lists or ``scipy.sparse.kron``
took 15.

:func:`rmat` draws the skewed graphs of the Graph500 benchmark from a counter-based hash, as
array code that runs on numpy or CuPy alike, so a GPU builds the same graph as the host.
"""

import itertools

import numba
import numpy as np
import scipy.sparse as sp

from ._checks import check_integer
from .backends.numba.kernels.threads import parallel_above

__all__ = ["laplace3d", "elasticity3d", "rmat", "grid_coordinates", "rigid_body_modes"]

# Couples the three displacement components of a node in elasticity3d: symmetric positive
# definite (eigenvalues 2, 1/2, 1/2) and dense, as the Galeri dof pattern requires.
_DOF_COUPLING = np.array([[1.0, 0.5, 0.5], [0.5, 1.0, 0.5], [0.5, 0.5, 1.0]])


def laplace3d(nx, ny=None, nz=None):
    """7-point finite-difference Laplacian on an ``nx × ny × nz`` grid.

    Parameters
    ----------
    nx : int
        Grid points along x.
    ny, nz : int, optional
        Grid points along y and z; default ``nx``.

    Returns
    -------
    scipy.sparse.csr_array
        Order ``nx*ny*nz``, float64, 6 on the diagonal and −1 for each of the (up to six)
        grid neighbours, columns sorted; point ``(x, y, z)`` is row ``x + y*nx + z*nx*ny``
        (Galeri's numbering). Dirichlet boundary: rows at the boundary keep the 6.

    Raises
    ------
    ValueError
        if a dimension is below 1.
    TypeError
        if a dimension is not an integer (numpy integers are).

    Examples
    --------
    >>> A = laplace3d(2)
    >>> A.shape, A.nnz, A.toarray()[0, [0, 1, 2, 4]].tolist()
    ((8, 8), 32, [6.0, -1.0, -1.0, -1.0])
    """
    dims = _dims(nx, ny, nz)
    offsets = [o for o in _unit_cube() if sum(map(abs, o)) <= 1]
    n = dims[0] * dims[1] * dims[2]
    index_dtype = np.int32 if 27 * n < 2**31 else np.int64
    return _stencil(dims, offsets, lambda o: 6.0 if o == (0, 0, 0) else -1.0, np.ones((1, 1)), index_dtype)


def elasticity3d(nx, ny=None, nz=None):
    """Matrix with the pattern of Galeri's Elasticity3D: 27-point stencil, 3 dofs per node.

    Parameters
    ----------
    nx : int
        Grid nodes along x.
    ny, nz : int, optional
        Grid nodes along y and z; default ``nx``.

    Returns
    -------
    scipy.sparse.csr_array
        Order ``3*nx*ny*nz``, float64, columns sorted. Node ``(x, y, z)`` is
        ``node = x + y*nx + z*nx*ny`` and its dofs are ``3*node + d``, ``d = 0, 1, 2``; every
        dof is coupled to all three dofs of the node itself and of each of its (up to 26)
        neighbouring nodes, so interior rows hold 81 entries.

    Notes
    -----
    The values are ``K ⊗ B``: K is the 27-point node stencil with 26 on the diagonal and −1
    for each neighbour, B = [[1, ½, ½], [½, 1, ½], [½, ½, 1]] couples the components. Both
    factors are symmetric positive definite, hence so is the matrix. Galeri's Elasticity3D
    holds brick-element stiffness values instead; only the pattern is the same, and the
    pattern is all that MIS-2, aggregation and coloring read.

    Raises
    ------
    ValueError
        if a dimension is below 1.
    TypeError
        if a dimension is not an integer (numpy integers are).

    Examples
    --------
    >>> A = elasticity3d(3)
    >>> A.shape, int(A[[39]].nnz)   # dof 0 of the centre node (13) sees 27 nodes x 3 dofs
    ((81, 81), 81)
    """
    dims = _dims(nx, ny, nz)
    offsets = list(_unit_cube())
    # scipy's index type for this matrix (as kron(K, B) gives it): int32 while it fits
    index_dtype = np.int32 if max(_nnz(dims, offsets, 3), 3 * dims[0] * dims[1] * dims[2]) < 2**31 else np.int64
    return _stencil(dims, offsets, lambda o: 26.0 if o == (0, 0, 0) else -1.0, _DOF_COUPLING, index_dtype)


def rmat(scale, edge_factor=16, a=0.57, b=0.19, c=0.19, *, seed=0, dtype=np.float64, device=False):
    """Undirected R-MAT (Kronecker) graph of Graph500: ``2**scale`` vertices, skewed degrees.

    Each of ``edge_factor * 2**scale`` edges picks its endpoints one bit at a time, from
    the most significant: with probability ``a`` both bits are 0, ``b`` the row's is 0 and
    the column's 1, ``c`` the reverse and ``d = 1 - a - b - c`` both are 1 [1]_. The vertex
    labels are then scrambled by a bijection of ``scale`` bits, as Graph500's generator
    does [2]_, so that vertex ids say nothing of degrees. Self loops are dropped, both
    directions stored and duplicates merged.

    Parameters
    ----------
    scale : int
        log2 of the number of vertices, 1 to 31.
    edge_factor : int
        Edges drawn per vertex (Graph500: 16), before self loops and duplicates go.
    a, b, c : float
        Quadrant probabilities (Graph500: 0.57, 0.19, 0.19; ``d = 0.05``).
    seed : int
        Any integer from 0 to 2**64 - 1: the same seed gives the same graph, on either device.
    dtype : dtype
        Of the stored values, which are all 1: float64 or float32.
    device : bool
        Build it on the GPU with CuPy and return a ``cupyx.scipy.sparse.csr_matrix``: the same
        arrays as the host's, bit for bit.

    Returns
    -------
    scipy.sparse.csr_array or cupyx.scipy.sparse.csr_matrix
        Order ``2**scale``, symmetric pattern, no diagonal, sorted columns, no duplicates.
        Indices are int32 while the vertices and stored entries fit, else int64.

    Raises
    ------
    ValueError
        for a scale outside 1..31, an edge factor below 1, a probability outside [0, 1] or
        ``a + b + c > 1``, a dtype other than float32 or float64, or with ``device=True`` a
        graph whose stored entries exceed the int32 offsets of cupyx.
    TypeError
        for a non-integer scale, edge factor or seed.

    Notes
    -----
    Bit ``l`` of edge ``e`` comes from a 32-bit half of splitmix64 at counter
    ``e * ceil(scale / 2) + l // 2``, compared with ``a``, ``a + b`` and ``a + b + c``
    scaled to 2**32: integer arithmetic, the same on every device. The edges are drawn in
    chunks, the undirected ones sorted and merged, then both directions sorted into rows:
    O(M log M) for ``M = edge_factor * 2**scale``; the memory peaks at about 24 bytes per
    stored entry (47 GiB at scale 26 on a GPU, in 4 s). Graph500 counts ``M`` edges; the
    graph keeps fewer undirected ones: 0.94 M at scale 20, 0.98 M at scale 26.

    References
    ----------
    .. [1] D. Chakrabarti, Y. Zhan, C. Faloutsos, "R-MAT: A recursive model for graph
       mining", Proc. SIAM Int. Conf. Data Mining, 2004, pp. 442–446.
       https://doi.org/10.1137/1.9781611972740.43
    .. [2] Graph 500 Steering Committee, "Graph 500 benchmark specification", version 3.0,
       section 3 (Kronecker generator, initiator 0.57, 0.19, 0.19, 0.05; edge factor 16),
       https://graph500.org/?page_id=12

    Examples
    --------
    >>> A = rmat(10, seed=1)
    >>> A.shape, bool((A != A.T).nnz == 0), bool(A.diagonal().any())
    ((1024, 1024), True, False)
    >>> degrees = A.indptr[1:] - A.indptr[:-1]
    >>> bool(degrees.max() > 10 * degrees.mean())   # a few hubs
    True
    """
    scale = check_integer("scale", scale, minimum=1, maximum=31)
    edge_factor = check_integer("edge_factor", edge_factor, minimum=1)
    seed = check_integer("seed", seed, minimum=0, maximum=2**64 - 1)
    thresholds = _quadrant_thresholds(a, b, c)
    dtype = np.dtype(dtype)
    if dtype not in (np.float32, np.float64):
        raise ValueError(f"dtype must be float32 or float64, got {dtype}")
    if device:
        import cupy as xp
    else:
        xp = np
    keys = _undirected_keys(xp, scale, edge_factor, thresholds, seed)
    return _symmetric_csr(xp, keys, scale, dtype, device)


def grid_coordinates(nx, ny=None, nz=None, *, dofs=1):
    """The grid point of every row of :func:`laplace3d` (``dofs=1``) or :func:`elasticity3d` (``dofs=3``).

    For pictures (:mod:`gbgraph.plot`) and geometric checks of a generated matrix.

    Parameters
    ----------
    nx : int
        Grid points along x.
    ny, nz : int, optional
        Grid points along y and z; default ``nx``.
    dofs : int
        Rows per grid point: 1 for :func:`laplace3d`, 3 for :func:`elasticity3d`.

    Returns
    -------
    numpy.ndarray
        ``(dofs*nx*ny*nz, 3)`` float64: row ``dofs*(x + y*nx + z*nx*ny) + d`` holds
        ``(x, y, z)`` (Galeri's numbering).

    Raises
    ------
    ValueError
        if a dimension or ``dofs`` is below 1.
    TypeError
        if one is not an integer (numpy integers are).

    Examples
    --------
    >>> grid_coordinates(3, 2, 1)[[0, 1, 3]].tolist()   # points 0, 1 and 3 = (0, 1, 0)
    [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    nx, ny, nz = _dims(nx, ny, nz)
    dofs = check_integer("dofs", dofs, minimum=1)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")  # x varies fastest
    points = np.column_stack((x.ravel(), y.ravel(), z.ravel())).astype(np.float64)
    return np.repeat(points, dofs, axis=0)


def rigid_body_modes(nx, ny=None, nz=None):
    """The six rigid-body modes of :func:`elasticity3d`'s grid: the near-nullspace ``B`` of
    smoothed aggregation for elasticity (pyamg's ``B`` for ``fit_candidates``).

    Columns: the translations along x, y and z, then the rotations about x, y and z,
    ``u(p) = e × (p - c)`` about the grid's centre c, in Galeri's numbering (row
    ``3 point + component``).

    Parameters
    ----------
    nx : int
    ny, nz : int, optional
        Default ``nx``.

    Returns
    -------
    numpy.ndarray
        ``(3*nx*ny*nz, 6)`` float64.

    Raises
    ------
    ValueError
        if a dimension is below 1.
    TypeError
        if one is not an integer.

    Examples
    --------
    >>> import numpy as np
    >>> A, B = elasticity3d(5), rigid_body_modes(5)
    >>> interior = grid_coordinates(5, dofs=3)   # rows away from the Dirichlet boundary
    >>> inside = np.all((interior > 1) & (interior < 3), axis=1)
    >>> bool(np.abs((A @ B)[inside]).max() < 1e-12)   # rigid motions carry no strain
    True
    """
    points = grid_coordinates(nx, ny, nz, dofs=3)
    component = np.tile(np.arange(3), points.shape[0] // 3)
    p = points - points.mean(axis=0)
    B = np.zeros((points.shape[0], 6))
    rows = np.arange(points.shape[0])
    B[rows, component] = 1.0  # translations
    for axis in range(3):  # the rotation about axis: e_axis × p
        a, b = (axis + 1) % 3, (axis + 2) % 3  # (e_axis × p)_a = -p_b, (e_axis × p)_b = p_a
        B[component == a, 3 + axis] = -p[component == a, b]
        B[component == b, 3 + axis] = p[component == b, a]
    return B


_MASK64 = 2**64 - 1
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
#: Edges drawn at a time: bounds the temporaries of :func:`rmat` to about 0.2 GB.
_RMAT_CHUNK = 2**24


def _quadrant_thresholds(a, b, c):
    """``a``, ``a + b``, ``a + b + c`` as thresholds of a uniform 32-bit draw."""
    for name, p in (("a", a), ("b", b), ("c", c)):
        if not isinstance(p, (int, float, np.integer, np.floating)) or isinstance(p, bool) or not 0 <= p <= 1:
            raise ValueError(f"{name} must be a probability in [0, 1], got {p!r}")
    if a + b + c > 1 + 1e-12:
        raise ValueError(f"a + b + c must be at most 1 (d = 1 - a - b - c), got {a} + {b} + {c} = {a + b + c}")
    return tuple(np.uint64(min(round(p * 2**32), 2**32)) for p in (a, a + b, min(a + b + c, 1.0)))


def _splitmix64(z):
    """splitmix64's output function (Steele, Lea, Flood 2014) on a uint64 array, in place."""
    z ^= z >> np.uint64(30)
    z *= np.uint64(0xBF58476D1CE4E5B9)
    z ^= z >> np.uint64(27)
    z *= np.uint64(0x94D049BB133111EB)
    z ^= z >> np.uint64(31)
    return z


def _seed_words(seed, count):
    """``count`` uint64 words derived from ``seed``: the hash's offset, then the scramble's keys."""
    words = np.arange(1, count + 1, dtype=np.uint64) * _GOLDEN + np.uint64(seed)
    return _splitmix64(words)


def _rmat_endpoints(xp, scale, first, last, thresholds, offset):
    """Endpoints (u, v) of edges ``first..last-1`` before scrambling, as uint64 arrays."""
    pairs = (scale + 1) // 2
    ta, tab, tabc = (xp.uint64(t) for t in thresholds)
    e = xp.arange(first, last, dtype=xp.uint64)
    u, v = xp.zeros_like(e), xp.zeros_like(e)
    for p in range(pairs):
        h = _splitmix64(e * xp.uint64(pairs) + xp.uint64(p) + xp.uint64(offset))
        for level in range(2 * p, min(2 * p + 2, scale)):
            r = (h >> xp.uint64(32 * (level % 2))) & xp.uint64(0xFFFFFFFF)
            row = r >= tab
            col = (r >= ta) ^ row ^ (r >= tabc)  # quadrants a, b, c, d: (0,0) (0,1) (1,0) (1,1)
            bit = xp.uint64(scale - 1 - level)  # the first draw picks the half, as R-MAT's recursion
            u |= row.astype(xp.uint64) << bit
            v |= col.astype(xp.uint64) << bit
    return u, v


def _scramble(xp, v, scale, keys):
    """A bijection of ``scale``-bit labels, in place: rounds of an added key, an odd multiplier
    (both mod 2**scale, carrying low bits up) and a shift-xor (carrying high bits down)."""
    mask = xp.uint64(2**scale - 1)
    for add, multiply in zip(keys[0::2], keys[1::2]):
        v += xp.uint64(add)
        v *= xp.uint64(multiply | np.uint64(1))
        v &= mask
        v ^= v >> xp.uint64((scale + 1) // 2)
    return v


def _undirected_keys(xp, scale, edge_factor, thresholds, seed):
    """The sorted, distinct keys ``min(u, v) << scale | max(u, v)`` of the drawn edges."""
    m = edge_factor << scale
    words = _seed_words(seed, 5)
    keys = xp.empty(m, xp.uint64)
    for first in range(0, m, _RMAT_CHUNK):
        last = min(first + _RMAT_CHUNK, m)
        u, v = _rmat_endpoints(xp, scale, first, last, thresholds, words[0])
        u, v = _scramble(xp, u, scale, words[1:]), _scramble(xp, v, scale, words[1:])
        lo, hi = xp.minimum(u, v), xp.maximum(u, v)
        # a self loop becomes the largest key, which no edge reaches (2 * scale < 64 bits)
        keys[first:last] = xp.where(lo == hi, xp.uint64(_MASK64), (lo << xp.uint64(scale)) | hi)
    keys.sort()
    distinct = xp.empty(m, bool)
    distinct[:1] = True
    xp.not_equal(keys[1:], keys[:-1], out=distinct[1:])
    distinct &= keys != xp.uint64(_MASK64)
    return keys[distinct]


def _symmetric_csr(xp, keys, scale, dtype, device):
    """CSR of both directions of the undirected ``keys``, rows and columns sorted."""
    n, low = 2**scale, xp.uint64(2**scale - 1)
    nnz = 2 * keys.size
    if device and nnz >= 2**31:
        raise ValueError(f"the graph has {nnz:,} stored entries; cupyx's CSR holds int32 offsets, below 2**31: "
                         "lower scale or edge_factor")
    both = xp.empty(nnz, xp.uint64)
    both[:keys.size] = keys
    both[keys.size:] = ((keys & low) << xp.uint64(scale)) | (keys >> xp.uint64(scale))
    del keys
    both.sort()
    index_dtype = np.int32 if max(n, nnz) < 2**31 else np.int64
    indptr = xp.searchsorted(both, xp.arange(n + 1, dtype=xp.uint64) << xp.uint64(scale)).astype(index_dtype)
    indices = (both & low).astype(index_dtype)
    del both
    data = xp.ones(nnz, dtype)
    if device:
        import cupyx.scipy.sparse as csp

        return csp.csr_matrix((data, indices, indptr), shape=(n, n))
    return sp.csr_array((data, indices, indptr), shape=(n, n))


def _dims(nx, ny, nz):
    return tuple(check_integer(name, nx if d is None else d, minimum=1)
                 for name, d in (("nx", nx), ("ny", ny), ("nz", nz)))


def _unit_cube():
    """The 27 offsets (dx, dy, dz) in {-1, 0, 1}³, ordered by dz, dy, dx: by id difference."""
    return (o[::-1] for o in itertools.product((-1, 0, 1), repeat=3))


def _nnz(dims, offsets, b):
    """Stored entries: offset o couples the prod(d - |o|) nodes whose neighbour lies inside."""
    return b * b * sum(int(np.prod([max(d - abs(c), 0) for d, c in zip(dims, o)])) for o in offsets)


def _stencil(dims, offsets, value, coupling, index_dtype):
    """CSR of ``K ⊗ coupling``, K the grid stencil with Galeri numbering; ``offsets`` must be
    in id order, so that every row comes out sorted."""
    nx, ny, nz = dims
    b = coupling.shape[0]
    n = b * nx * ny * nz
    columns, values, lengths = _row_templates(dims, offsets, value, coupling)
    indptr = np.empty(n + 1, index_dtype)
    indices = np.empty(_nnz(dims, offsets, b), index_dtype)
    data = np.empty(indices.size)
    _fill_stencil(nx, ny, nz, b, columns, values, lengths, indptr, indices, data)
    return sp.csr_array((data, indices, indptr), shape=(n, n))


def _row_templates(dims, offsets, value, coupling):
    """The rows of every kind of node, relative to the node's first dof.

    A node's kind says, per axis, whether it has a neighbour below (bit 0) and above (bit 1):
    kind ``kx + 4*ky + 16*kz``. Row ``d`` of a node of kind c holds ``lengths[c]`` entries,
    columns ``b*node + columns[c*b + d]`` and values ``values[c*b + d]``, in column order.
    """
    nx, ny, _ = dims
    b = coupling.shape[0]
    width = b * len(offsets)
    columns = np.zeros((64 * b, width), np.int64)
    values = np.zeros((64 * b, width))
    lengths = np.zeros(64, np.int64)
    for c in range(64):
        kinds = (c & 3, (c >> 2) & 3, c >> 4)
        kept = [o for o in offsets if all((k & 1 or s >= 0) and (k & 2 or s <= 0) for k, s in zip(kinds, o))]
        lengths[c] = b * len(kept)
        for d in range(b):
            row = [(b * (o[0] + o[1] * nx + o[2] * nx * ny) + e, value(o) * coupling[d, e]) for o in kept for e in range(b)]
            if row:
                columns[c * b + d, :len(row)], values[c * b + d, :len(row)] = zip(*row)
    return columns, values, lengths


@parallel_above(np.size, "data")  # a parallel region (and its compile) only for large grids
@numba.njit(cache=True, parallel=True)
def _fill_stencil(nx, ny, nz, b, columns, values, lengths, indptr, indices, data):
    """Write the CSR arrays of ``_stencil`` from the row templates, one z plane per task, in a
    single parallel loop: a plane's entries depend only on whether it has planes below and
    above, so where each plane starts is known beforehand. Rows are written by their owner
    only, so the result does not depend on the number of threads."""
    size = np.zeros(4, np.int64)  # entries of a plane of each z kind (neighbours below, above)
    for kz in range(4):
        for y in range(ny):
            for x in range(nx):
                size[kz] += b * lengths[_kind(x, y, 0, nx, ny, 1) + 16 * kz]  # z = 0 of 1: x, y kinds only
    start = np.zeros(nz + 1, np.int64)
    for z in range(nz):
        start[z + 1] = start[z] + size[_kind(0, 0, z, 1, 1, nz) // 16]  # x = y = 0 of 1: the z kind
    indptr[b * nx * ny * nz] = start[nz]
    for z in numba.prange(nz):
        p = start[z]
        for y in range(ny):
            for x in range(nx):
                c = _kind(x, y, z, nx, ny, nz)
                first = b * (x + y * nx + z * nx * ny)
                for d in range(b):
                    indptr[first + d] = p
                    t = c * b + d
                    for q in range(lengths[c]):
                        indices[p + q] = first + columns[t, q]
                        data[p + q] = values[t, q]
                    p += lengths[c]


@numba.njit(inline="always")
def _kind(x, y, z, nx, ny, nz):
    return ((x > 0) + 2 * (x < nx - 1) + 4 * ((y > 0) + 2 * (y < ny - 1)) + 16 * ((z > 0) + 2 * (z < nz - 1)))

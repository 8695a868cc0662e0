"""Structured test matrices of Trilinos' Galeri package: Laplace3D and Elasticity3D.

Both number grid points as Galeri does, ``id = x + y*nx + z*nx*ny``, so that results (MIS-2
sizes, aggregates) can be compared with Kokkos Kernels and MueLu runs on Galeri matrices.

Both write their CSR arrays directly, in one compiled pass that copies a precomputed row per
kind of node (interior, or on one of the faces, edges, corners): about two SpMV-equivalents
(benchmarks/bench_generators.py), where building through coordinate lists or ``scipy.sparse.kron``
took 15.
"""

import itertools

import numba
import numpy as np
import scipy.sparse as sp

from ._checks import check_integer
from .backends.numba.kernels.threads import parallel_above

__all__ = ["laplace3d", "elasticity3d", "grid_coordinates", "rigid_body_modes"]

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

"""Structured test matrices of Trilinos' Galeri package: Laplace3D and Elasticity3D.

Both number grid points as Galeri does, ``id = x + y*nx + z*nx*ny``, so that results (MIS-2
sizes, aggregates) can be compared with Kokkos Kernels and MueLu runs on Galeri matrices.
"""

import itertools

import numpy as np
import scipy.sparse as sp

from ._checks import check_integer

__all__ = ["laplace3d", "elasticity3d"]

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
    offsets = [(0, 0, 0)] + [o for o in _unit_cube() if sum(map(abs, o)) == 1]
    return _stencil(dims, offsets, lambda o: 6.0 if o == (0, 0, 0) else -1.0)


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
    K = _stencil(dims, list(_unit_cube()), lambda o: 26.0 if o == (0, 0, 0) else -1.0)
    return sp.csr_array(sp.kron(K, _DOF_COUPLING, format="bsr").tocsr())


def _dims(nx, ny, nz):
    return tuple(check_integer(name, nx if d is None else d, minimum=1)
                 for name, d in (("nx", nx), ("ny", ny), ("nz", nz)))


def _unit_cube():
    """The 27 offsets (dx, dy, dz) in {-1, 0, 1}³, ordered by dz, dy, dx: by id difference."""
    return (o[::-1] for o in itertools.product((-1, 0, 1), repeat=3))


def _stencil(dims, offsets, value):
    """CSR of a grid stencil with Galeri numbering; ``offsets`` must be in id order."""
    nx, ny, nz = dims
    n = nx * ny * nz
    index_dtype = np.int32 if 27 * n < 2**31 else np.int64
    ids = np.arange(n, dtype=index_dtype)
    coords = (ids % nx, (ids // nx) % ny, ids // (nx * ny))
    offsets = sorted(offsets, key=lambda o: (o[2], o[1], o[0]))
    valid = [_inside(coords, dims, o) for o in offsets]
    indptr = np.zeros(n + 1, index_dtype)
    np.cumsum(np.sum(valid, axis=0), out=indptr[1:])
    indices = np.empty(indptr[-1], index_dtype)
    data = np.empty(indptr[-1])
    cursor = indptr[:-1].copy()
    for o, inside in zip(offsets, valid):
        dest = cursor[inside]
        indices[dest] = ids[inside] + (o[0] + o[1] * nx + o[2] * nx * ny)
        data[dest] = value(o)
        cursor[inside] += 1
    return sp.csr_array((data, indices, indptr), shape=(n, n))


def _inside(coords, dims, offset):
    ok = np.ones(coords[0].shape, bool)
    for c, d, o in zip(coords, dims, offset):
        if o:
            ok &= (c + o >= 0) & (c + o < d)
    return ok

"""Preconditioners built on gbgraph's graph algorithms, as ``LinearOperator`` objects: scipy's
for scipy input, cupyx's (on the GPU) for cupyx input.

``multicolor_gauss_seidel`` orders the rows by a coloring of the matrix graph; ``cluster_gauss_seidel``
(Kelley and Rajamanickam's Algorithm 4) by a coloring of the graph of aggregates, updating the
rows of each aggregate in turn; on the GPU each color is one kernel. ``jacobi`` and
``chebyshev`` are polynomial smoothers, the ones :mod:`gbgraph.amg` also uses.

Why arrays, not the backend protocol: a smoother applies floating-point sweeps whose order of
operations defines its result (a Gauss-Seidel step reads the values the step before it
wrote), and users compose them with scipy's and cupyx's Krylov solvers, which call a
``LinearOperator`` on arrays. They are written on scipy/numpy (cupyx/CuPy on the GPU) arrays
with the matrix's own sparse products; the graph steps they need (coloring, aggregates) come
from gbgraph's algorithms, on any backend.
"""

from .gauss_seidel import GaussSeidel, cluster_gauss_seidel, multicolor_gauss_seidel
from .polynomial import chebyshev, jacobi, spectral_radius

__all__ = ["GaussSeidel", "chebyshev", "cluster_gauss_seidel", "jacobi", "multicolor_gauss_seidel", "spectral_radius"]

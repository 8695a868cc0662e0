"""Preconditioners built on gbgraph's graph algorithms, as ``LinearOperator`` objects: scipy's
for scipy input, cupyx's (on the GPU) for cupyx input.

``multicolor_gauss_seidel`` orders the rows by a coloring of the matrix graph; ``cluster_gauss_seidel``
(Kelley and Rajamanickam's Algorithm 4) by a coloring of the graph of aggregates, updating the
rows of each aggregate in turn; on the GPU each color is one kernel. ``jacobi`` and
``chebyshev`` are polynomial smoothers, the ones :mod:`gbgraph.amg` also uses.
"""

from .gauss_seidel import GaussSeidel, cluster_gauss_seidel, multicolor_gauss_seidel
from .polynomial import chebyshev, jacobi, spectral_radius

__all__ = ["GaussSeidel", "chebyshev", "cluster_gauss_seidel", "jacobi", "multicolor_gauss_seidel", "spectral_radius"]

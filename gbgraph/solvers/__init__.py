"""Preconditioners built on gbgraph's graph algorithms, as scipy ``LinearOperator`` objects.

``multicolor_gauss_seidel`` orders the rows by a coloring of the matrix graph; ``cluster_gauss_seidel``
(Kelley and Rajamanickam's Algorithm 4) by a coloring of the graph of aggregates, updating the
rows of each aggregate in turn. Both work on scipy sparse matrices on the CPU.
"""

from .gauss_seidel import GaussSeidel, cluster_gauss_seidel, multicolor_gauss_seidel

__all__ = ["GaussSeidel", "cluster_gauss_seidel", "multicolor_gauss_seidel"]

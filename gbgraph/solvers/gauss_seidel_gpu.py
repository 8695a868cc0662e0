"""Point and cluster multicolor Gauss-Seidel on the GPU, as ``cupyx.scipy.sparse.linalg``
operators: what :mod:`gbgraph.solvers.gauss_seidel` builds for cupyx input.

A forward sweep is one kernel launch per color (``gauss_seidel.cu``): the rows are listed
cluster after cluster, the clusters color after color, and a few lanes of a warp update the
rows of one cluster in turn, as Algorithm 4 of Kelley and Rajamanickam does (a point sweep: clusters
of one row). The rows of a cluster and the clusters of a color are those of the CPU's steps,
in the same order, so the result is the CPU's to rounding (the sums run in another order).
"""

import cupy
import cupyx.scipy.sparse as csp
from cupyx.scipy.sparse.linalg import LinearOperator

from ..backends.cupy import kernels
from .polynomial import inverse

__all__ = ["DeviceGaussSeidel", "check_on_gpu", "cluster_graph", "dense_labels", "pattern_graph"]


class DeviceGaussSeidel(LinearOperator):
    """``sweeps`` (symmetric) Gauss-Seidel sweeps on ``A x = b`` from ``x = 0``, on the GPU.

    The attributes are :class:`~gbgraph.solvers.GaussSeidel`'s, as CuPy arrays; ``steps``
    counts kernel launches per forward sweep (one per color).
    """

    def __init__(self, A, colors, labels, *, symmetric, sweeps):
        super().__init__(shape=A.shape, dtype=cupy.float64)
        n = A.shape[0]
        self.colors, self.labels = colors, labels
        self.n_colors = int(colors.max()) + 1 if colors.size else 0
        self.steps, self.symmetric, self.sweeps = self.n_colors, symmetric, sweeps
        self._A = A
        self._lanes = kernels.lanes_per_row(A)
        self._inverse_diagonal = inverse(A.diagonal())  # 0 for a zero row of a coarse operator (checked elsewhere)
        cluster = cupy.arange(n, dtype=cupy.int64) if labels is None else labels
        # rows by (color of their cluster, cluster, row)
        self.order = cupy.lexsort(cupy.stack([cupy.arange(n, dtype=cupy.int64), cluster, colors[cluster]]))
        sorted_clusters = cluster[self.order]
        self._start = cupy.concatenate((cupy.zeros(1, cupy.int64),
                                        cupy.flatnonzero(sorted_clusters[1:] != sorted_clusters[:-1]) + 1,
                                        cupy.full(1 if n else 0, n, cupy.int64)))
        # clusters are numbered 0..k-1, so the clusters of color c are a run in sweep order
        per_color = cupy.bincount(colors, minlength=self.n_colors) if colors.size else cupy.zeros(0, cupy.int64)
        bounds = [0] + cupy.cumsum(per_color).get().tolist()
        self._colors = list(zip(bounds[:-1], bounds[1:]))

    def sweep(self, x, b, backward=False):
        """One forward (or backward) sweep on ``A x = b``, in place on ``x``."""
        for clusters in (reversed(self._colors) if backward else self._colors):
            kernels.gauss_seidel_color(clusters, self._start, self.order, self._A, self._inverse_diagonal, b, x,
                                       backward, self._lanes)

    def _matvec(self, b):
        check_on_gpu(b)
        b = cupy.ascontiguousarray(b, dtype=cupy.float64).reshape(-1)
        x = cupy.zeros(self.shape[0])
        for _ in range(self.sweeps):
            self.sweep(x, b)
            if self.symmetric:
                self.sweep(x, b, backward=True)
        return x

    def __repr__(self):
        kind = "point" if self.labels is None else "cluster"
        return (f"<{kind} multicolor {'symmetric ' if self.symmetric else ''}Gauss-Seidel on the GPU, "
                f"n={self.shape[0]:,}, {self.n_colors} colors, sweeps={self.sweeps}>")


def check_on_gpu(b, name="b"):
    """A TypeError unless ``b`` is a CuPy array: an operator on the GPU takes device vectors
    (a host vector would be copied over at every application, without a word)."""
    if not isinstance(b, cupy.ndarray):
        raise TypeError(f"{name} must be a cupy array for an operator on the GPU, got {type(b).__module__}."
                        f"{type(b).__name__}; move it with cupy.asarray({name})")


def pattern_graph(A):
    """The pattern of A + Aᵀ, a cupyx CSR matrix of ones."""
    pattern = csp.csr_matrix((cupy.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
    return (pattern + pattern.T).tocsr()


def dense_labels(labels):
    """Labels renumbered 0..k-1 in order (int64)."""
    return cupy.unique(labels, return_inverse=True)[1].astype(cupy.int64).reshape(-1)


def cluster_graph(graph, labels):
    """Pattern of ``Pᵀ G P``: clusters coupled when two of their rows are."""
    n = labels.size
    P = csp.csr_matrix((cupy.ones(n), labels, cupy.arange(n + 1)), shape=(n, int(labels.max()) + 1 if n else 0))
    return (P.T @ graph @ P).tocsr()

"""Point and cluster multicolor Gauss-Seidel on the GPU, as ``cupyx.scipy.sparse.linalg``
operators: what :mod:`gbgraph.solvers.gauss_seidel` builds for cupyx input.

A forward sweep is one kernel launch per color (``gauss_seidel.cu``), as Algorithm 4 of Kelley
and Rajamanickam: a few lanes of a warp update the rows of one cluster in turn (a point sweep:
clusters of one row). The setup lays A out for it once (:class:`Layout`): rows at their sweep
positions, and each row's entries split into those that leave its cluster, summed for all the
cluster's rows at once, and those inside it, the only ones the rows' turns wait on. The rows of
a cluster and the clusters of a color are those of the CPU's steps, in the same order, so the
result is the CPU's to rounding (the sums run in another order). An application is captured
once as a CUDA graph and replayed.
"""

from dataclasses import dataclass

import cupy
import cupyx.scipy.sparse as csp
from cupyx.scipy.sparse.linalg import LinearOperator

from ..backends.cupy import kernels
from ..backends.cupy.replay import captured
from .polynomial import inverse

__all__ = ["DeviceGaussSeidel", "Layout", "check_on_gpu", "cluster_graph", "dense_labels", "pattern_graph"]


class DeviceGaussSeidel(LinearOperator):
    """``sweeps`` (symmetric) Gauss-Seidel sweeps on ``A x = b`` from ``x = 0``, on the GPU.

    The attributes are :class:`~gbgraph.solvers.GaussSeidel`'s, as CuPy arrays; ``steps``
    counts kernel launches per forward sweep (one per color).
    """

    def __init__(self, A, colors, labels, *, symmetric, sweeps):
        super().__init__(shape=A.shape, dtype=cupy.float64)
        self.colors, self.labels = colors, labels
        self.n_colors = int(colors.max()) + 1 if colors.size else 0
        self.steps, self.symmetric, self.sweeps = self.n_colors, symmetric, sweeps
        self.layout = Layout.of(A, colors, labels)
        self.order = self.layout.rows
        # as many lanes to a row or a cluster as A's rows have entries (of a cluster's lanes, as
        # many as a row has entries in it share each turn): on the H100, the best of 2 to 32 on
        # Laplace3D and Elasticity3D
        self.lanes = kernels.lanes_per_row(A)
        self._b, self._x, self._graph = cupy.zeros(A.shape[0]), cupy.zeros(A.shape[0]), None

    @property
    def lanes(self):
        """Threads to a row (point sweeps) or to a cluster: a power of two up to 32."""
        return self._lanes

    @lanes.setter
    def lanes(self, lanes):
        self._lanes = lanes
        self._sweeps = {backward: kernels.gauss_seidel_sweep(self.layout, lanes, backward) for backward in (False, True)}
        self._graph = None

    def sweep(self, x, b, backward=False):
        """One forward (or backward) sweep on ``A x = b``, in place on ``x``."""
        self._sweeps[backward](b, x)

    def _apply(self):
        self._x.fill(0)
        for _ in range(self.sweeps):
            self.sweep(self._x, self._b)
            if self.symmetric:
                self.sweep(self._x, self._b, backward=True)

    def _matvec(self, b):
        check_on_gpu(b)
        cupy.copyto(self._b, cupy.ascontiguousarray(b, dtype=cupy.float64).reshape(-1))
        if self._graph is None:
            self._apply()  # compiles the kernels: no module loads while capturing
            self._graph = captured(self._apply)
        self._graph.launch()
        return self._x.copy()

    def __repr__(self):
        kind = "point" if self.labels is None else "cluster"
        return (f"<{kind} multicolor {'symmetric ' if self.symmetric else ''}Gauss-Seidel on the GPU, "
                f"n={self.shape[0]:,}, {self.n_colors} colors, sweeps={self.sweeps}>")


@dataclass
class Layout:
    """A's rows at their positions in a forward sweep, for ``gauss_seidel.cu``.

    Position p holds row ``rows[p]``; cluster c the positions ``start[c]:start[c + 1]``, the
    clusters of color k the range ``colors[k]``. A position's off-diagonal entries are split:
    ``out_*`` (CSR by position, original column indices) leave its cluster, ``in_*`` stay in
    it, ``in_loc`` numbering the column by its place in the cluster. ``inverse_diagonal`` is
    1 / A_rr by position (0 for a zero row), ``width`` the largest cluster.
    """

    n: int
    point: bool
    rows: cupy.ndarray
    start: cupy.ndarray
    colors: list
    width: int
    out_ptr: cupy.ndarray
    out_col: cupy.ndarray
    out_val: cupy.ndarray
    in_ptr: cupy.ndarray
    in_loc: cupy.ndarray
    in_val: cupy.ndarray
    inverse_diagonal: cupy.ndarray

    @classmethod
    def of(cls, A, colors, labels):
        """The layout of the CSR ``A`` for point sweeps (``labels`` None; ``colors`` by row) or
        cluster sweeps (``labels`` 0..k-1 by row; ``colors`` by cluster)."""
        n = A.shape[0]
        cluster = cupy.arange(n, dtype=cupy.int64) if labels is None else labels
        rows = cupy.lexsort(cupy.stack([cupy.arange(n, dtype=cupy.int64), cluster, colors[cluster]]))
        by_position = cluster[rows]
        start = cupy.concatenate((cupy.zeros(1, cupy.int64),
                                  cupy.flatnonzero(by_position[1:] != by_position[:-1]) + 1,
                                  cupy.full(1 if n else 0, n, cupy.int64)))
        sizes = cupy.diff(start)
        # clusters are numbered 0..k-1, so the clusters of color c are a run in sweep order
        per_color = cupy.bincount(colors, minlength=int(colors.max()) + 1) if colors.size else cupy.zeros(0, cupy.int64)
        bounds = [0] + cupy.cumsum(per_color).get().tolist()
        width = int(sizes.max()) if sizes.size else 0
        # the entries of the row at each position, in A's order
        position = cupy.empty(n, cupy.int64)
        position[rows] = cupy.arange(n, dtype=cupy.int64)
        ptr = cupy.concatenate((cupy.zeros(1, cupy.int64), cupy.cumsum(cupy.diff(A.indptr)[rows], dtype=cupy.int64)))
        at = _positions(ptr, A.nnz)
        entry = A.indptr[rows].astype(cupy.int64)[at] + cupy.arange(A.nnz, dtype=cupy.int64) - ptr[at]
        column, value = A.indices[entry], A.data[entry]
        cluster_of = _positions(start, n)[at]  # the cluster at the entry's position
        place = position[column] - start[cluster_of]  # the column's place in that cluster, if it is there
        inside = (place >= 0) & (place < sizes[cluster_of])
        outside, inside = ~inside, inside & (position[column] != at)
        return cls(n=n, point=labels is None, rows=rows, start=start, colors=list(zip(bounds[:-1], bounds[1:])),
                   width=width, out_ptr=_pointers(at[outside], n), out_col=column[outside],
                   out_val=value[outside], in_ptr=_pointers(at[inside], n), in_loc=place[inside].astype(cupy.int32),
                   in_val=value[inside], inverse_diagonal=inverse(A.diagonal())[rows])


def _positions(pointers, count):
    """The segment of each of ``count`` items under CSR ``pointers``."""
    return cupy.searchsorted(pointers, cupy.arange(count, dtype=cupy.int64), side="right") - 1


def _pointers(at, n):
    """CSR row pointers of entries at the (sorted) positions ``at``."""
    if not at.size:
        return cupy.zeros(n + 1, cupy.int64)
    return cupy.concatenate((cupy.zeros(1, cupy.int64), cupy.cumsum(cupy.bincount(at, minlength=n))))


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

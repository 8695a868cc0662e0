"""Point and cluster multicolor (symmetric) Gauss-Seidel, as scipy ``LinearOperator`` objects.

Gauss-Seidel updates ``x_i = (b_i - sum_{j != i} A_ij x_j) / A_ii`` row after row. Rows that
share no matrix entry can be updated together, so both preconditioners cut a sweep into
*steps* of mutually uncoupled rows, found by coloring, and update each step with one sparse
matrix-vector product over its rows:

* point multicolor GS: a step is a color class of the matrix graph;
* cluster multicolor GS (Kelley and Rajamanickam [1]_, Algorithm 4): the rows are grouped
  into clusters (aggregates), the graph of clusters is colored, and step (c, k) holds the
  k-th row of every cluster of color c; rows inside a cluster are so updated in turn, as
  classical Gauss-Seidel does, while clusters of one color advance together.

The backward sweep of the symmetric variants runs the steps in reverse, which reverses the
order inside each cluster too. Rows are permuted once, so that each step is a contiguous
block of rows; an application costs ``(1 + symmetric) * sweeps`` products with the matrix,
in ``steps`` pieces each.
"""

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from ..algorithms.coloring import color
from .._checks import check_integer
from ..graph import check_finite_matrix, check_sparse_arrays, check_symmetric_matrix, checked_on_gpu

__all__ = ["GaussSeidel", "multicolor_gauss_seidel", "cluster_gauss_seidel"]

#: Why symmetric Gauss-Seidel needs a symmetric A, and what to do (ends the error message).
_SYMMETRIC_REMEDY = ("symmetric Gauss-Seidel, M = (D + U)⁻¹ D (D + L)⁻¹, is a symmetric preconditioner (for conjugate "
                     "gradients) only for a symmetric A; make it symmetric with gg.symmetrize(A, values=\"max\") or "
                     "values=\"sum\" (which doubles the diagonal), or pass symmetric=False for forward sweeps on a "
                     "nonsymmetric A")


class GaussSeidel(LinearOperator):
    """``sweeps`` (symmetric) Gauss-Seidel sweeps on ``A x = b`` from ``x = 0``.

    Made by :func:`multicolor_gauss_seidel` and :func:`cluster_gauss_seidel`; ``M @ b``
    returns the approximation of ``A^{-1} b``, so ``M`` serves as ``M=`` in
    :func:`scipy.sparse.linalg.cg` (symmetric variants, for symmetric positive definite A)
    and :func:`scipy.sparse.linalg.gmres`.

    Attributes
    ----------
    order : numpy.ndarray
        The rows in the order of a forward sweep.
    steps : int
        Groups of uncoupled rows updated together in one forward sweep.
    colors : numpy.ndarray
        Color of each row (point GS) or of each cluster (cluster GS).
    n_colors : int
    labels : numpy.ndarray or None
        Cluster of each row (cluster GS), or None.
    symmetric : bool
    sweeps : int
    """

    def __init__(self, A, order, bounds, *, colors, labels, symmetric, sweeps):
        super().__init__(np.float64, A.shape)
        self.order, self.colors, self.labels = order, colors, labels
        self.n_colors = int(colors.max()) + 1 if colors.size else 0
        self.steps, self.symmetric, self.sweeps = bounds.size - 1, symmetric, sweeps
        P = A[order][:, order]
        self._inverse_diagonal = 1.0 / P.diagonal()
        P.setdiag(0)
        self._bounds = bounds.tolist()
        self._blocks = [P[lo:hi] for lo, hi in zip(self._bounds[:-1], self._bounds[1:])]

    def _matvec(self, b):
        b = np.asarray(b, np.float64)
        permuted_b = b.reshape(-1)[self.order]
        x = np.zeros(self.shape[0])
        for _ in range(self.sweeps):
            self._sweep(x, permuted_b, range(self.steps))
            if self.symmetric:
                self._sweep(x, permuted_b, range(self.steps - 1, -1, -1))
        out = np.empty_like(x)
        out[self.order] = x
        return out.reshape(b.shape)

    def _sweep(self, x, b, steps):
        """``x_S = D_S^{-1} (b_S - A(S, :) x)`` for each step S in turn (A without its diagonal)."""
        bounds, blocks, inverse_diagonal = self._bounds, self._blocks, self._inverse_diagonal
        for s in steps:
            lo, hi = bounds[s], bounds[s + 1]
            x[lo:hi] = (b[lo:hi] - blocks[s] @ x) * inverse_diagonal[lo:hi]

    def __repr__(self):
        kind = "point" if self.labels is None else "cluster"
        return (f"<{kind} multicolor {'symmetric ' if self.symmetric else ''}Gauss-Seidel, n={self.shape[0]:,}, "
                f"{self.n_colors} colors, {self.steps} steps, sweeps={self.sweeps}>")


def multicolor_gauss_seidel(A, colors=None, *, symmetric=True, sweeps=1):
    """Point multicolor (symmetric) Gauss-Seidel preconditioner.

    Parameters
    ----------
    A : scipy sparse matrix or array, or 2-D numpy array
        Square, real and finite, with no zero on the diagonal.
    colors : array_like of int, optional
        A coloring of the graph of A (rows i and j coupled when A_ij or A_ji is stored).
        None: ``gg.color`` of that graph (first-fit greedy).
    symmetric : bool
        Follow each forward sweep (colors in increasing order) by a backward one (SGS): a
        symmetric preconditioner, for a symmetric A (checked). False: forward sweeps only,
        for any A.
    sweeps : int
        Sweeps (forward, or forward and backward) per application.

    Returns
    -------
    GaussSeidel
        A ``scipy.sparse.linalg.LinearOperator``; ``M @ b`` runs the sweeps on A x = b
        from x = 0.

    Raises
    ------
    TypeError
        if A is not a scipy sparse matrix or numpy array, or has non-real values, or if
        ``sweeps`` is not an integer (numpy integers are).
    ValueError
        if A is not square, has NaN or infinite entries (the message gives their number
        and the first one's row and column; the sweeps would spread them to every row they
        reach) or a zero diagonal entry (the message names the first such row), if
        ``symmetric`` and A is not symmetric
        (:class:`~gbgraph.errors.AsymmetricValuesError`, naming the largest difference
        ``|A[i, j] - A[j, i]|``: the symmetric sweeps would not be a symmetric operator, and
        conjugate gradients would fail without a word), if ``colors`` is not a coloring of
        A's graph (the message names two coupled rows with one color), or ``sweeps`` is
        below 1.

    Notes
    -----
    One step per color: an application costs ``(1 + symmetric) * sweeps`` products with
    A in ``n_colors`` pieces. Rows of one color are uncoupled, so the result is that of
    sequential Gauss-Seidel visiting the rows color by color [2]_; it depends on the
    coloring, not on the order inside a color.

    References
    ----------
    .. [2] M. Deveci, E. G. Boman, K. D. Devine and S. Rajamanickam, "Parallel graph
       coloring for manycore architectures," IPDPS 2016, pp. 892-901.
       https://doi.org/10.1109/IPDPS.2016.54

    Examples
    --------
    >>> import numpy as np, scipy.sparse.linalg as sla, gbgraph as gg
    >>> A = gg.generators.laplace3d(6)
    >>> M = gg.solvers.multicolor_gauss_seidel(A)
    >>> b = np.ones(A.shape[0])
    >>> bool(np.linalg.norm(b - A @ (M @ b)) < np.linalg.norm(b))   # one SGS application reduces the residual
    True
    >>> x, info = sla.cg(A, b, M=M, rtol=1e-10)
    >>> info, bool(np.linalg.norm(b - A @ x) < 1e-8 * np.linalg.norm(b))
    (0, True)
    """
    A, graph = _checked(A, sweeps, symmetric)
    if _on_gpu(A):
        from .gauss_seidel_gpu import DeviceGaussSeidel

        colors = color(graph).colors if colors is None else _checked_colors_on_gpu(graph, colors)
        return DeviceGaussSeidel(A, colors, None, symmetric=bool(symmetric), sweeps=sweeps)
    if colors is None:
        colors = np.asarray(color(graph).colors)
    else:
        colors = _checked_colors(graph, colors)
    order = np.argsort(colors, kind="stable")
    bounds = np.concatenate(([0], np.cumsum(np.bincount(colors))))
    return GaussSeidel(A, order, bounds, colors=colors, labels=None, symmetric=bool(symmetric), sweeps=sweeps)


def cluster_gauss_seidel(A, aggregation=None, *, symmetric=True, sweeps=1):
    """Cluster multicolor (symmetric) Gauss-Seidel preconditioner, [1]_ Algorithm 4.

    Parameters
    ----------
    A : scipy sparse matrix or array, or 2-D numpy array
        Square, real and finite, with no zero on the diagonal.
    aggregation : array_like of int, or an object with ``.labels``, optional
        The cluster of each row (any non-negative integers; clusters need not be
        connected). None: ``gg.aggregate(A, "mis2")``, the MIS-2 aggregation of [1]_
        (Algorithm 3).
    symmetric : bool
        Follow each forward sweep by a backward one, which visits the colors in reverse and
        the rows of each cluster in reverse: for a symmetric A (checked). False: forward
        sweeps only, for any A.
    sweeps : int
        Sweeps (forward, or forward and backward) per application.

    Returns
    -------
    GaussSeidel
        A ``scipy.sparse.linalg.LinearOperator``; ``colors`` holds the color of each
        cluster and ``labels`` the cluster of each row.

    Raises
    ------
    TypeError, ValueError
        as :func:`multicolor_gauss_seidel` for A and ``sweeps``; ValueError also if the
        labels are not one non-negative integer per row.

    Notes
    -----
    Setup (Algorithm 4 l.3-5): the graph of clusters ``P^T A P`` (P the n × clusters
    indicator matrix) and its coloring, on a graph several times smaller than A's. Rows
    inside a cluster are updated by increasing index (backward sweep: decreasing). Step
    (c, k) updates the k-th row of every cluster of color c, so a forward sweep has
    ``sum over colors of the largest cluster of that color`` steps; the rows of a step
    lie in distinct, uncoupled clusters, and the result is that of the sequential loops of
    Algorithm 4 (l.7-14).

    References
    ----------
    .. [1] B. Kelley and S. Rajamanickam, "Parallel, portable algorithms for distance-2
       maximal independent set and graph coarsening," IPDPS 2022, pp. 280-290.
       https://doi.org/10.1109/IPDPS53621.2022.00035

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> A = gg.generators.laplace3d(6)
    >>> labels = np.arange(A.shape[0]) // 6            # clusters: runs of 6 grid points along x
    >>> M = gg.solvers.cluster_gauss_seidel(A, labels)
    >>> M.colors.size, M.n_colors < 36
    (36, True)
    >>> b = np.ones(A.shape[0])
    >>> bool(np.linalg.norm(b - A @ (M @ b)) < np.linalg.norm(b))   # one SGS application reduces the residual
    True
    """
    A, graph = _checked(A, sweeps, symmetric)
    if aggregation is None:
        import gbgraph

        aggregation = gbgraph.aggregate(graph, "mis2")
    if _on_gpu(A):
        from .gauss_seidel_gpu import DeviceGaussSeidel, cluster_graph, dense_labels

        labels = getattr(aggregation, "labels", aggregation)
        _labels(labels.get() if hasattr(labels, "get") else labels, A.shape[0])  # the CPU's checks and messages
        labels = dense_labels(cupy_array(labels))
        return DeviceGaussSeidel(A, color(cluster_graph(graph, labels)).colors, labels, symmetric=bool(symmetric),
                                 sweeps=sweeps)
    labels = _labels(aggregation, A.shape[0])
    cluster_colors = np.asarray(color(_cluster_graph(graph, labels)).colors)
    order, bounds = _cluster_steps(labels, cluster_colors)
    return GaussSeidel(A, order, bounds, colors=cluster_colors, labels=labels, symmetric=bool(symmetric),
                       sweeps=sweeps)


def _checked(A, sweeps, symmetric):
    """A as a float64 CSR array, and the pattern of A + Aᵀ; checks A (symmetric, for the
    symmetric sweeps) and ``sweeps``."""
    check_integer("sweeps", sweeps, minimum=1)
    if _on_gpu(A):
        return _checked_on_gpu(A, symmetric)
    if isinstance(A, np.ndarray) and A.ndim == 2:
        A = sp.csr_array(A)
    elif not sp.issparse(A):
        raise TypeError(f"A must be a scipy sparse matrix or a 2-D numpy array, got {type(A).__name__}")
    check_sparse_arrays(A)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square, got shape {A.shape}")
    if A.dtype.kind not in "iuf":
        raise TypeError(f"A must have real values, got {A.dtype}")
    A = sp.csr_array(A, dtype=np.float64)
    A.sum_duplicates()
    check_finite_matrix(A, "Gauss-Seidel needs finite values (the sweeps would spread a NaN to every row they reach)")
    if symmetric:
        check_symmetric_matrix(A, _SYMMETRIC_REMEDY)
    zero = np.flatnonzero(A.diagonal() == 0)
    if zero.size:
        more = f" ({zero.size:,} such rows)" if zero.size > 1 else ""
        raise ValueError(f"A has a zero diagonal entry in row {zero[0]}{more}; Gauss-Seidel divides by the diagonal")
    pattern = sp.csr_array((np.ones(A.nnz, bool), A.indices, A.indptr), shape=A.shape)
    return A, pattern + pattern.T


def _on_gpu(A):
    return type(A).__module__.split(".")[0] in ("cupyx", "cupy")


def cupy_array(x):
    import cupy

    return cupy.asarray(x)


def _checked_on_gpu(A, symmetric):
    """_checked for a cupyx matrix or 2-D CuPy array: the tests run on the device; a failing
    one repeats on the host copy, for the CPU's message."""
    import cupy
    import cupyx.scipy.sparse as csp

    from .gauss_seidel_gpu import pattern_graph

    if csp.issparse(A):
        check_sparse_arrays(A, "A", cupy)
    elif A.ndim != 2:
        raise TypeError(f"A must be a cupyx sparse matrix or a 2-D cupy array, got {A.ndim} dimensions")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square, got shape {A.shape}")
    if A.dtype.kind not in "iuf":
        raise TypeError(f"A must have real values, got {A.dtype}")
    A = checked_on_gpu(A, lambda host: _checked(host, 1, symmetric), symmetric=symmetric, nonzero_diagonal=True)
    return A, pattern_graph(A)


def _checked_colors_on_gpu(graph, colors):
    """_checked_colors of device colors: on the host (n integers), back to the device."""
    host = colors.get() if hasattr(colors, "get") else colors
    return cupy_array(_checked_colors(sp.csr_array(graph.get()), host))


def _checked_colors(graph, colors):
    colors = np.asarray(colors)
    n = graph.shape[0]
    if colors.shape != (n,) or (n and colors.dtype.kind not in "iu") or (n and colors.min() < 0):
        raise ValueError(f"colors must hold one non-negative integer per row, shape ({n},); got {colors.dtype} "
                         f"values of shape {colors.shape}")
    rows = np.repeat(np.arange(n), np.diff(graph.indptr))
    clash = np.flatnonzero((colors[rows] == colors[graph.indices]) & (rows != graph.indices))
    if clash.size:
        i, j = rows[clash[0]], graph.indices[clash[0]]
        raise ValueError(f"colors is not a coloring of A's graph: rows {i} and {j} are coupled and both have "
                         f"color {colors[i]}")
    return colors.astype(np.int64)


def _labels(aggregation, n):
    """Cluster labels numbered 0..k-1 in order, from labels or an object with ``.labels``."""
    labels = np.asarray(getattr(aggregation, "labels", aggregation))
    if labels.shape != (n,) or (n and labels.dtype.kind not in "iu") or (n and labels.min() < 0):
        raise ValueError(f"aggregation labels must be one non-negative integer per row, shape ({n},); got "
                         f"{labels.dtype} values of shape {labels.shape}")
    return np.unique(labels, return_inverse=True)[1].astype(np.int64)


def _cluster_graph(graph, labels):
    """Pattern of ``P^T G P``: clusters coupled when two of their rows are."""
    # the shape is given: scipy cannot infer it from the empty labels of a 0 × 0 matrix
    P = sp.csr_array((np.ones(labels.size), (np.arange(labels.size), labels)),
                     shape=(labels.size, int(labels.max()) + 1 if labels.size else 0))
    return (P.T @ graph.astype(np.float64) @ P).tocsr()


def _cluster_steps(labels, cluster_colors):
    """Rows ordered by (color of their cluster, position in their cluster, cluster), and
    the bounds of the steps: the runs of equal (color, position)."""
    by_cluster = np.argsort(labels, kind="stable")  # rows grouped by cluster, ascending inside
    sizes = np.bincount(labels)
    position = np.empty_like(labels)
    position[by_cluster] = np.arange(labels.size) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    row_color = cluster_colors[labels]
    order = np.lexsort((labels, position, row_color))
    new_step = (np.diff(row_color[order]) != 0) | (np.diff(position[order]) != 0)
    ends = [labels.size] if labels.size else []  # no rows, no steps (as point GS)
    bounds = np.concatenate(([0], np.flatnonzero(new_step) + 1, ends)).astype(np.int64)
    return order, bounds

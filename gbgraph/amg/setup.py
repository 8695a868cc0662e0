"""The pieces of smoothed-aggregation setup that run on the matrix's own device (numpy and
scipy on the CPU, CuPy and cupyx on the GPU), in pyamg's formulas, so that a hierarchy built
on the GPU has the operators pyamg builds on the CPU from the same aggregates.

* :func:`fit_candidates`: the tentative prolongator T and the coarse candidates, pyamg's
  ``fit_candidates`` (modified Gram-Schmidt of B's rows in each aggregate, a column dropped
  where it falls below ``tol`` times its norm), with the per-aggregate sums as products with
  the aggregation operator instead of a loop over aggregates;
* :func:`smoothed_prolongator`: P = (I - ω/ρ D⁻¹A)ᵈ T, pyamg's
  ``jacobi_prolongation_smoother`` with ρ = ρ(D⁻¹A) from Lanczos;
* :func:`galerkin`: Pᵀ (A P).
"""

import numpy as np

from ..solvers.polynomial import array_modules, inverse, spectral_radius

__all__ = ["aggregate_sums", "fit_candidates", "smoothed_prolongator", "galerkin", "sparse_module", "row_scaled"]


def aggregate_sums(labels, k):
    """The k × n transpose of the aggregation operator (ones at (labels[i], i)), CSR on the
    labels' device: its product with a vector sums the vector over each aggregate."""
    xp = array_modules(labels)[0]
    n = labels.size
    index = np.int32 if n < 2**31 else np.int64
    members = xp.argsort(labels, kind="stable").astype(index)  # each aggregate's rows, ascending: no COO sort
    indptr = xp.concatenate((xp.zeros(1, index), xp.cumsum(xp.bincount(labels, minlength=k)).astype(index)))
    return sparse_module(xp).csr_matrix((xp.ones(n), members, indptr), shape=(k, n))


def sparse_module(xp):
    """scipy.sparse for numpy, cupyx.scipy.sparse for cupy."""
    if xp is np:
        import scipy.sparse as xsp
    else:
        import cupyx.scipy.sparse as xsp
    return xsp


def fit_candidates(labels, k, B, tol=1e-10):
    """(T, coarse B): pyamg's ``fit_candidates`` for aggregates ``labels`` (0..k-1, every row
    aggregated) and candidates B (n × K).

    Column j of each aggregate's block of B is orthogonalised against the columns before it
    (modified Gram-Schmidt) and normalised, or set to zero where its norm falls to ``tol``
    times its norm before; the coefficients form the aggregate's K × K block of the coarse
    candidates, so that B = T (coarse B). T has K entries in each row i, at columns
    ``labels[i] K + c``, zeros included. On the GPU a thread takes an aggregate (the kernel
    ``tentative``), summing as the CPU's products do, so that T is the CPU's bit for bit.
    """
    xp = array_modules(labels)[0]
    n, K = B.shape
    index = np.int32 if n * K < 2**31 else np.int64  # cupyx checks the contents of int64 indices
    if xp is np:
        Q, R = _orthonormalised(labels, k, B, tol)
    else:
        from ..backends.cupy import kernels

        Q, R = xp.array(B, dtype=np.float64, order="C"), xp.zeros((k, K, K))
        kernels.tentative(labels, tol, Q, R)  # Q, R ← the QR factors of each aggregate's rows of B
    columns = (labels[:, None] * K + xp.arange(K)[None, :]).ravel().astype(index)
    T = sparse_module(xp).csr_matrix((xp.ascontiguousarray(Q).ravel(), columns, xp.arange(0, n * K + 1, K, dtype=index)),
                                     shape=(n, k * K))
    return T, R.reshape(k * K, K)


def _orthonormalised(labels, k, B, tol):
    """fit_candidates' (Q, R) on the CPU, each step over all aggregates at once: the sums over
    an aggregate as products with the aggregation operator."""
    n, K = B.shape
    S = aggregate_sums(labels, k)
    Q = np.array(B, dtype=np.float64, order="F")  # columns contiguous
    R = np.zeros((k, K, K))
    for j in range(K):
        threshold = tol * np.sqrt(S @ (Q[:, j] * Q[:, j]))
        for i in range(j):
            dot = S @ (Q[:, j] * Q[:, i])
            Q[:, j] -= dot[labels] * Q[:, i]
            R[:, i, j] = dot
        norm = np.sqrt(S @ (Q[:, j] * Q[:, j]))
        kept = norm > threshold
        R[:, j, j] = np.where(kept, norm, 0.0)
        Q[:, j] *= np.where(kept, 1.0 / np.where(kept, norm, 1.0), 0.0)[labels]
    return Q, R


def row_scaled(A, scale):
    """diag(scale) A, CSR, by scaling each stored value with its row's factor."""
    xp, _ = array_modules(A)
    rows = xp.searchsorted(A.indptr, xp.arange(A.nnz), side="right") - 1
    out = A.copy()
    out.data = out.data * scale[rows]
    return out


def smoothed_prolongator(A, T, omega=4.0 / 3.0, degree=1, rho=None):
    """(P, ρ): P = (I - ω/ρ D⁻¹A)ᵈ T with ρ = ρ(D⁻¹A), pyamg's ``jacobi_prolongation_smoother``
    operation for operation (given ρ, or :func:`~gbgraph.solvers.polynomial.spectral_radius`),
    for :func:`fit_candidates`' T. On the GPU, P = T - ω/ρ D⁻¹A T is a gather over each
    row's neighbours' aggregates (the kernels ``prolongator_groups`` and
    ``prolongator_values``), summed in the order of the CPU's product, so that P is the CPU's
    bit for bit."""
    xp, _ = array_modules(A)
    diagonal = A.diagonal()
    if rho is None:
        rho = spectral_radius(A, diagonal)
    scale = (omega / rho) * inverse(diagonal)
    if xp is not np and degree == 1:
        from ..backends.cupy import kernels

        K = T.nnz // max(T.shape[0], 1)
        indptr, indices, values = kernels.smoothed_prolongator(A, scale, T.indices[::K] // K, T.data.reshape(-1, K))
        return _pruned(sparse_module(xp).csr_matrix((values, indices, indptr), shape=T.shape)), rho
    D_inv_A = row_scaled(A, scale)
    P = T
    for _ in range(degree):
        P = P - D_inv_A @ P
    return _pruned(P.tocsr()), rho


def _pruned(M):
    """M without stored zeros: scipy's products drop them, cuSPARSE's keep them, and the
    levels' entry counts (operator complexity) should not depend on the device."""
    xp, _ = array_modules(M)
    keep = M.data != 0
    if bool(keep.all()):
        return M
    rows = xp.searchsorted(M.indptr, xp.arange(M.nnz), side="right") - 1
    indptr = xp.concatenate((xp.zeros(1, M.indptr.dtype), xp.cumsum(xp.bincount(rows[keep], minlength=M.shape[0]))))
    return sparse_module(xp).csr_matrix((M.data[keep], M.indices[keep], indptr.astype(M.indptr.dtype)), shape=M.shape)


def galerkin(A, P):
    """(R, Pᵀ A P) with R = Pᵀ: A P first, about as large as P, then R (A P)."""
    R = P.T.tocsr()
    return R, _pruned(_product(R, _product(A, P)))


#: Most intermediate products of one sparse product: cuSPARSE's SpGEMM sizes its work buffer by
#: them (Elasticity3D 60³'s Pᵀ (A P) in one product asked for 56 GB).
_PRODUCTS_AT_ONCE = 2**27


def _product(X, Y):
    """The CSR ``X @ Y``, a block of X's rows at a time when it has more than
    ``_PRODUCTS_AT_ONCE`` intermediate products (each row's entries are those of the whole
    product, in the same order)."""
    xp, _ = array_modules(X)
    lengths = xp.diff(Y.indptr).astype(np.int64)[X.indices]  # the products of each entry of X
    work = xp.concatenate((xp.zeros(1, np.int64), xp.cumsum(lengths)))[X.indptr[1:]]  # up to each row's end
    total = int(work[-1]) if work.size else 0
    if total <= _PRODUCTS_AT_ONCE:
        return (X @ Y).tocsr()
    ends = xp.searchsorted(work, xp.arange(1, total // _PRODUCTS_AT_ONCE + 1) * _PRODUCTS_AT_ONCE)
    bounds = sorted({0, X.shape[0], *(int(end) for end in ends.tolist())})
    blocks = [X[a:b] @ Y for a, b in zip(bounds[:-1], bounds[1:])]
    return sparse_module(xp).vstack(blocks, format="csr")


def build_levels(A, aggregation="mis2", *, B=None, smooth=("jacobi", {"omega": 4.0 / 3.0}),
                 presmoother=("block_gauss_seidel", {"sweep": "symmetric"}),
                 postsmoother=("block_gauss_seidel", {"sweep": "symmetric"}),
                 improve_candidates=(("block_gauss_seidel", {"sweep": "symmetric", "iterations": 4}), None),
                 max_levels=10, max_coarse=10, keep=False, backend=None):
    """The levels of a smoothed-aggregation hierarchy of the checked CSR ``A``, built on its
    device with gbgraph's aggregates of A's pattern at every level (the arguments of
    :func:`gbgraph.amg.smoothed_aggregation_solver`)."""
    from ..algorithms.aggregation import aggregate
    from ..algorithms.coarsen import _stalled
    from .multilevel import Level, smoother

    from pyamg.util.utils import levelize_smooth_or_improve_candidates as levelize

    xp, _ = array_modules(A)
    default = None if xp is np else "native"  # the cupy backend's aggregates, from fused kernels
    B = xp.ones((A.shape[0], 1)) if B is None else B
    smooth, improve_candidates = levelize(smooth, max_levels), levelize(improve_candidates, max_levels)
    levels = [Level(A, B)]
    while len(levels) < max_levels and levels[-1].A.shape[0] > max_coarse:
        level, depth = levels[-1], len(levels) - 1
        agg = aggregate(_graph(level.A), aggregation, backend=backend or default)  # on A's device
        if _stalled(agg.n_aggregates, level.A.shape[0], depth + 1, "rows"):  # coarsen's rule: keep 95% or less
            break
        improve, smooth_here = improve_candidates[depth], smooth[depth]
        if _unpack(improve)[0] is not None:  # B relaxed on A x = 0, column by column, as pyamg does
            relax = smoother(level, improve)
            zero = xp.zeros(level.A.shape[0])
            level.B = xp.array(level.B, order="F")
            for j in range(level.B.shape[1]):
                column = xp.ascontiguousarray(level.B[:, j])
                relax(level.A, column, zero)
                level.B[:, j] = column
        labels = xp.asarray(agg.labels)
        T, coarse_B = fit_candidates(labels, agg.n_aggregates, level.B)
        name, options = _unpack(smooth_here)
        if name is None:
            P = T
        elif name == "jacobi" and not set(options) - {"omega", "degree"}:
            P, level.rho_D_inv = smoothed_prolongator(level.A, T, options.get("omega", 4.0 / 3.0),
                                                      options.get("degree", 1), getattr(level, "rho_D_inv", None))
        else:
            raise ValueError(f"smooth on the GPU must be None or ('jacobi', {{'omega': ..., 'degree': ...}}), "
                             f"got {smooth_here!r}")
        level.P, (level.R, coarse_A) = P, galerkin(level.A, P)
        if keep:
            level.labels, level.T = labels, T
        levels.append(Level(coarse_A, coarse_B))
    for depth, level in enumerate(levels[:-1]):
        level.presmoother = smoother(level, _per_level(presmoother, depth))
        level.postsmoother = smoother(level, _per_level(postsmoother, depth))
    return levels


def _graph(A):
    """The graph of A's pattern; A ∪ Aᵀ where the products dropped an entry on one side only
    (scipy and cuSPARSE drop the sums that cancel to zero, so a coarse operator's pattern can
    lose its symmetry with its values kept). A's index arrays were checked on the way in or
    made by cuSPARSE."""
    from ..errors import InvalidGraphError
    from ..graph import _canonical_on_gpu, as_graph

    xp, _ = array_modules(A)

    def graph(M):
        return as_graph(M, weights=False) if xp is np else _canonical_on_gpu(M, False, "A", checked=True)

    try:
        return graph(A)
    except InvalidGraphError:
        ones = sparse_module(xp).csr_matrix((xp.ones(A.nnz), A.indices, A.indptr), shape=A.shape)
        return graph((ones + ones.T).tocsr())


def _per_level(option, depth):
    """A smoother for level ``depth``: a per-level list's entry (its last one below its end,
    as pyamg's ``change_smoothers``), or the option itself."""
    if isinstance(option, list):
        return option[min(depth, len(option) - 1)] if option else None
    return option


def _unpack(option):
    if option is None:
        return None, {}
    if isinstance(option, tuple):
        return option[0], dict(option[1]) if len(option) > 1 else {}
    return option, {}

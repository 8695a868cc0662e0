"""Smoothed-aggregation AMG whose aggregates come from gbgraph.

pyamg's ``smoothed_aggregation_solver`` takes no aggregation callable, so the hierarchy is
built here, level by level, with pyamg's own pieces (strength of connection, tentative
prolongator by ``fit_candidates``, Jacobi prolongation smoothing, smoothers) around
:func:`gbgraph.aggregate`, and the Galerkin product ``R A P`` on a gbgraph backend.

Why arrays, not the backend protocol: past the aggregates, smoothed-aggregation setup and
its cycle are numerical linear algebra on floating-point matrices (QR of each aggregate's
candidates, Jacobi-smoothed prolongators, Lanczos, dense coarse solves, the V-cycle) whose
reference is pyamg's scipy code. They are written in scipy/numpy (cupyx/CuPy on the GPU) so
that each step is pyamg's formula on the same arrays; the graph steps (aggregation, the
Galerkin product's pattern) go through gbgraph's algorithms and backends.
"""

import numpy as np
import scipy.sparse as sp

from .. import backends
from .._checks import check_integer
from ..algorithms.aggregation import METHODS, aggregate
from ..algorithms.coarsen import _stalled, aggregation_operator
from ..backends.numba.kernels.lanczos import TRIANGLE_ENTRIES, upper_triangle
from ..backends.numba.kernels.spgemm import matmat
from ..errors import InvalidGraphError
from ..graph import (as_graph, check_finite_matrix, check_sparse_arrays, check_symmetric_matrix, checked_on_gpu,
                     symmetrize)
from ..solvers.polynomial import inverse, spectral_radius
from . import multilevel
from .setup import _unpack, build_levels

__all__ = ["smoothed_aggregation_solver"]

#: Galerkin products of matrices with at least this many entries get sorted rows (:func:`_galerkin`)
_SORTED_GALERKIN = 1 << 20


def smoothed_aggregation_solver(A, aggregation="mis2", *, strength=None, B=None, symmetry="hermitian",
                                smooth=("jacobi", {"omega": 4.0 / 3.0}),
                                presmoother=("block_gauss_seidel", {"sweep": "symmetric"}),
                                postsmoother=("block_gauss_seidel", {"sweep": "symmetric"}),
                                improve_candidates=(("block_gauss_seidel", {"sweep": "symmetric", "iterations": 4}),
                                                    None),
                                max_levels=10, max_coarse=10, keep=False, backend=None, **kwargs):
    """A ``pyamg.MultilevelSolver`` for smoothed aggregation with gbgraph's MIS-2 aggregates.

    Each level aggregates the strength-of-connection graph with :func:`gbgraph.aggregate`
    (``"mis2"``: Kokkos Kernels' ``graph_mis2_aggregate``, as MueLu uses; ``"mis2_basic"``:
    Bell et al.'s roots-and-neighbours coarsening), then proceeds as pyamg's
    ``smoothed_aggregation_solver``: tentative prolongator ``T`` from the near-nullspace
    ``B``, smoothed prolongator ``P``, ``R = Pᴴ`` and the Galerkin operator ``R A P``.

    Parameters
    ----------
    A : sparse matrix
        Square, real; converted to CSR. A cupyx sparse matrix builds the hierarchy on the
        GPU.
    aggregation : {"mis2", "mis2_basic"}
    strength : None, str, (str, dict) or callable
        The graph to aggregate: None for A's own pattern (MueLu's default of no dropping),
        ``"symmetric"``, ``"classical"`` or ``"evolution"`` (pyamg's strength measures, with
        optional keyword arguments), or a function mapping a level's matrix to a matrix.
        An asymmetric strength pattern is aggregated as C ∪ Cᵀ, since MIS-2 needs an
        undirected graph.
    B, symmetry, smooth, presmoother, postsmoother, improve_candidates, max_levels, max_coarse, keep
        As in ``pyamg.smoothed_aggregation_solver`` (same defaults); ``symmetry`` may be
        ``"hermitian"`` or ``"symmetric"``. Per-level lists are accepted for ``smooth`` and
        ``improve_candidates``.
    backend : str or Backend, optional
        Backend for aggregation and the Galerkin product.
    **kwargs
        Passed to ``pyamg.multilevel.MultilevelSolver`` (e.g. ``coarse_solver``).

    Returns
    -------
    pyamg.multilevel.MultilevelSolver or gbgraph.amg.multilevel.MultilevelSolver
        pyamg's for CPU input. For a cupyx matrix the whole hierarchy is built and applied
        on the GPU (:class:`~gbgraph.amg.multilevel.MultilevelSolver`: ``levels``,
        ``operator_complexity()``, ``grid_complexity()``, ``solve(b, tol, maxiter,
        accel="cg", residuals=...)``, ``aspreconditioner()`` as a cupyx
        ``LinearOperator``): aggregates on the GPU, the tentative prolongator, the smoothed
        prolongator and ``R A P`` by cupyx's products, the smoothers Jacobi, Chebyshev and
        point or cluster multicolor Gauss-Seidel (pyamg's ``"gauss_seidel"`` and
        ``"block_gauss_seidel"``, defaults included, run as point multicolor Gauss-Seidel
        there, a lexicographic sweep having no parallel form), and a dense pseudo-inverse on
        the coarsest level. Its operators are those of the CPU path to rounding.

    Warns
    -----
    CoarseningStallWarning
        when a level would keep more than 95% of the rows of the one above (as in
        :func:`gbgraph.coarsen`); the hierarchy stops without it.

    Raises
    ------
    ValueError
        for a non-square A, NaN or infinite entries (the message gives their number and the
        first one), an A that is not symmetric (:class:`~gbgraph.errors.AsymmetricValuesError`,
        naming the largest difference ``|A[i, j] - A[j, i]|``), an unknown aggregation,
        strength or symmetry, a B of the wrong shape, a ``max_levels`` below 1 or a negative
        ``max_coarse``.
    TypeError
        for an A that cannot become a real CSR matrix, a vector on the other device than
        the hierarchy's (when solving), or a ``max_levels`` or
        ``max_coarse`` that is not an integer (numpy integers are).

    References
    ----------
    .. [1] P. Vaněk, J. Mandel and M. Brezina, "Algebraic multigrid by smoothed aggregation
       for second and fourth order elliptic problems," Computing 56 (1996), 179-196.
       https://doi.org/10.1007/BF02238511

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> A = gg.generators.laplace3d(12)
    >>> ml = gg.amg.smoothed_aggregation_solver(A, max_coarse=50)
    >>> b = np.ones(A.shape[0])
    >>> x = ml.solve(b, tol=1e-10, accel="cg")
    >>> bool(np.linalg.norm(b - A @ x) <= 1e-10 * np.linalg.norm(b))
    True
    """
    try:
        from pyamg.multilevel import MultilevelSolver
        from pyamg.relaxation.smoothing import change_smoothers
        from pyamg.util.utils import levelize_smooth_or_improve_candidates as levelize
    except ImportError as e:
        raise ImportError(f"gbgraph.amg builds pyamg solvers and needs pyamg: pip install 'gbgraph[amg]' ({e})") from e

    if _on_gpu(A):
        from .multilevel import MultilevelSolver

        A = _checked_matrix_on_gpu(A, symmetry)
        B = None if B is None else _checked_candidates_on_gpu(B, A)
        max_levels, max_coarse = _check_options(aggregation, max_levels, max_coarse)
        if strength is not None:
            raise ValueError(f"on the GPU, strength must be None (A's own pattern, MueLu's default), got {strength!r}")
        if kwargs:
            raise ValueError(f"options of pyamg's MultilevelSolver do not apply on the GPU: {sorted(kwargs)}")
        return MultilevelSolver(build_levels(A, aggregation, B=B, smooth=smooth, presmoother=presmoother,
                                             postsmoother=postsmoother, improve_candidates=improve_candidates,
                                             max_levels=max_levels, max_coarse=max_coarse, keep=keep,
                                             backend=backend))
    A, triangle = _checked_matrix_and_triangle(A, symmetry)
    triangles = [triangle]  # for the finest level's Lanczos steps; freed there, before its products
    del triangle
    max_levels, max_coarse = _check_options(aggregation, max_levels, max_coarse)
    B = np.ones((A.shape[0], 1), A.dtype) if B is None else _checked_candidates(B, A)
    be = backends.backend(backend)
    smooth, improve_candidates = levelize(smooth, max_levels), levelize(improve_candidates, max_levels)
    level = MultilevelSolver.Level()
    level.A, level.B = A, B
    levels = [level]
    while len(levels) < max_levels and levels[-1].A.shape[0] > max_coarse:
        depth = len(levels) - 1
        C = _strength(levels[-1].A, strength)
        AggOp = _aggregation_operator(C, aggregation, be)
        if _stalled(AggOp.shape[1], AggOp.shape[0], depth + 1, "rows"):  # coarsen's rule: keep 95% or less
            break
        levels.append(_next_level(levels[-1], C, AggOp, smooth[depth], improve_candidates[depth], symmetry, keep,
                                  triangles.pop() if triangles else None))
    for level in levels[:-1]:
        if _uses("chebyshev", presmoother, postsmoother):  # ρ(A) as on the GPU; pyamg reads A.rho
            level.A.rho = spectral_radius(level.A)
    ml = MultilevelSolver(levels, **kwargs)
    change_smoothers(ml, presmoother, postsmoother)
    return ml


def _uses(name, *specs):
    """Whether a smoother spec (a name, (name, options), or a list of them per level) names ``name``."""
    for spec in specs:
        for one in (spec if isinstance(spec, list) else [spec]):
            if (one[0] if isinstance(one, tuple) else one) == name:
                return True
    return False


def _check_options(aggregation, max_levels, max_coarse):
    if aggregation not in METHODS:
        raise ValueError(f"aggregation must be one of {METHODS}, got {aggregation!r}")
    return check_integer("max_levels", max_levels, minimum=1), check_integer("max_coarse", max_coarse, minimum=0)


def _on_gpu(A):
    return type(A).__module__.split(".")[0] in ("cupyx", "cupy")


def _checked_matrix_on_gpu(A, symmetry):
    """_checked_matrix for a cupyx matrix, on the device; a failing test repeats on the host
    copy for the CPU's message."""
    import cupy
    import cupyx.scipy.sparse as csp

    if symmetry not in ("hermitian", "symmetric"):
        raise ValueError(f"symmetry must be 'hermitian' or 'symmetric', got {symmetry!r}")
    if not csp.issparse(A):
        raise TypeError(f"A must be a cupyx sparse matrix, got {type(A).__module__}.{type(A).__name__}")
    check_sparse_arrays(A, "A", cupy)
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square, got shape {A.shape}")
    if A.dtype.kind not in "biuf":
        raise TypeError(f"A must be real, got {A.dtype}")
    return checked_on_gpu(A, lambda host: _checked_matrix(host, symmetry), symmetric=True)


def _checked_candidates_on_gpu(B, A):
    import cupy

    _checked_candidates(np.empty(B.shape), A)  # the shape's check and message
    return cupy.asarray(B, dtype=cupy.float64).reshape(A.shape[0], -1)


def _checked_matrix(A, symmetry):
    """A as a float64 CSR array with its duplicates summed, checked finite and symmetric (the
    errors of :func:`smoothed_aggregation_solver`)."""
    return _checked_matrix_and_triangle(A, symmetry)[0]


def _checked_matrix_and_triangle(A, symmetry):
    """:func:`_checked_matrix`, and A's upper triangle for the Lanczos steps of its ρ(D⁻¹A)
    (:func:`~gbgraph.backends.numba.kernels.lanczos.upper_triangle`'s, None where the product
    needs whole rows or A has fewer than its ``TRIANGLE_ENTRIES`` entries)."""
    if symmetry not in ("hermitian", "symmetric"):
        raise ValueError(f"symmetry must be 'hermitian' or 'symmetric', got {symmetry!r}")
    if sp.issparse(A):
        check_sparse_arrays(A)
    try:
        A = sp.csr_array(A)
    except (TypeError, ValueError) as e:
        raise TypeError(f"A must be a sparse matrix or convertible to one: {e}") from e
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square, got shape {A.shape}")
    if A.dtype.kind not in "biuf":
        raise TypeError(f"A must be real, got {A.dtype}")
    A = A.astype(np.float64, copy=A.dtype != np.float64)
    A.sum_duplicates()
    check_finite_matrix(A, "smoothed aggregation needs finite values")
    # triu(A) for the finest level's Lanczos steps, by a pass that checks A = Aᵀ bit for bit
    # (in 0.5-0.65 of the time of A - Aᵀ); where it fails, A - Aᵀ's test decides, which also
    # passes stored zeros without their mirror. A smaller A keeps A - Aᵀ and numpy's steps
    # (TRIANGLE_ENTRIES: the triangle's kernels would cost a first setup their compile)
    large = A.nnz >= TRIANGLE_ENTRIES
    triangle = upper_triangle(A.indptr, A.indices, A.data) if large else None
    if triangle is None:
        check_symmetric_matrix(A, f"symmetry={symmetry!r} declares A symmetric (R = Pᵀ, and the smoothers and "
                                  "Krylov methods rely on it); make it symmetric with gg.symmetrize(A, "
                                  "values=\"max\") or values=\"sum\" (which doubles the diagonal)")
        if large:
            triangle = upper_triangle(A.indptr, A.indices, A.data, checked=True)
    A.symmetry = symmetry
    return A, triangle


def _checked_candidates(B, A):
    B = np.asarray(B, dtype=A.dtype)
    B = B.reshape(-1, 1) if B.ndim == 1 else B
    if B.ndim != 2 or B.shape[0] != A.shape[0]:
        raise ValueError(f"B must have {A.shape[0]} rows, got shape {B.shape}")
    return B


def _next_level(level, C, AggOp, smooth, improve, symmetry, keep, triangle=None):
    """Build P and R from level.A's aggregates, and return the coarse level; ``triangle``:
    level.A's upper triangle for its Lanczos steps, where the caller holds it."""
    from pyamg.aggregation import fit_candidates
    from pyamg.multilevel import MultilevelSolver

    A = level.A
    diagonal = A.diagonal()
    if A.shape[0] > 1 and np.all(diagonal >= 0):  # ρ(D⁻¹A) as on the GPU, for Jacobi in improve too
        A.rho_D_inv = spectral_radius(A, diagonal, triangle=triangle)
    del triangle  # half of A, held no longer: the level's products raise the setup's peak of memory
    level.B = _improved_candidates(A, level.B, improve)
    T, B = fit_candidates(AggOp, level.B)
    P = _smoothed_prolongator(A, diagonal, T, C, B, smooth)
    R = sp.csr_array(P.T.conjugate(copy=False).tocsr())  # Pᴴ: a real P's transpose needs no copy first
    if keep:
        level.C, level.AggOp, level.T = C, AggOp, T
    level.P, level.R = P, R
    coarse = MultilevelSolver.Level()
    coarse.A = _galerkin(R, A, P)
    coarse.A.symmetry = symmetry
    coarse.B = B
    return coarse


def _aggregation_operator(C, aggregation, be):
    """pyamg's ``AggOp`` of gbgraph's aggregates of C's graph."""
    agg = aggregate(_undirected(C), aggregation, backend=be)
    return aggregation_operator(np.asarray(agg.labels), agg.n_aggregates)


def _improved_candidates(A, B, improve):
    """B relaxed on A x = 0, as pyamg's ``improve_candidates`` does (B itself for None)."""
    from pyamg.relaxation.utils import relaxation_as_linear_operator

    name, options = _unpack(improve)
    if name is None:
        return B
    return relaxation_as_linear_operator((name, options), A, np.zeros((A.shape[0], 1))) @ B


def _smoothed_prolongator(A, diagonal, T, C, B, smooth):
    """P = (I - ω/ρ D⁻¹A)ᵈ T, pyamg's ``jacobi_prolongation_smoother`` (or T for None), for
    A's ``diagonal``.

    With only ``omega`` and ``degree`` given, the product is pyamg's own, operation for
    operation, with ρ from :func:`_spectral_radius` instead of pyamg's Arnoldi estimate, and
    ρ is kept on A as ``A.rho_D_inv``, where pyamg's Jacobi relaxation (``rho_D_inv_A``)
    reads it instead of estimating the same radius again. The products D⁻¹A T run as
    :func:`~gbgraph.backends.numba.kernels.spgemm.matmat` (scipy's, bit for bit, on numba's
    threads), of the CSR form scipy's own product converts T to. Other options
    (``filter_entries``, ``weighting``) go to pyamg's function.
    """
    from pyamg.aggregation.smooth import jacobi_prolongation_smoother

    name, options = _unpack(smooth)
    if name is None:
        return sp.csr_array(T)
    if name != "jacobi":
        raise ValueError(f"smooth must be 'jacobi' or None, got {name!r}")
    if set(options) - {"omega", "degree"}:
        return sp.csr_array(jacobi_prolongation_smoother(A, T, C, B, **options))
    A.sort_indices()  # as pyamg's get_diagonal does, in place: the level's smoothers sweep A so
    if not hasattr(A, "rho_D_inv"):
        A.rho_D_inv = _spectral_radius(A, diagonal)
    # (ω/ρ) (D⁻¹ A), in pyamg's order: each entry times its row's 1/d, then the product by ω/ρ
    D_inv_A = sp.csr_array(A)  # A's index arrays, shared (a constructor from arrays could narrow their type)
    D_inv_A.data = A.data * np.repeat(inverse(diagonal), np.diff(A.indptr))
    D_inv_A.data *= options.get("omega", 4.0 / 3.0) / A.rho_D_inv
    P = T
    for _ in range(options.get("degree", 1)):
        P = P - matmat(D_inv_A, sp.csr_array(P))  # D⁻¹A plus.times P
    return sp.csr_array(P)


def _spectral_radius(A, diagonal):
    """ρ(D⁻¹A) by :func:`gbgraph.solvers.polynomial.spectral_radius` (Lanczos on
    D^-½ A D^-½, the same estimate as on the GPU), or pyamg's estimator for a diagonal that
    is not positive (pyamg's Arnoldi process on D⁻¹A)."""
    from pyamg.util.linalg import approximate_spectral_radius
    from pyamg.util.utils import scale_rows

    if A.shape[0] < 2 or not np.all(diagonal >= 0):
        return approximate_spectral_radius(scale_rows(A, inverse(diagonal), copy=True))
    return spectral_radius(A, diagonal)


def _undirected(C):
    """C's graph; asymmetric measures (classical, evolution) are symmetrized, C ∪ Cᵀ."""
    try:
        return as_graph(C, weights=False)
    except InvalidGraphError:
        return as_graph(symmetrize(C), weights=False)


def _strength(A, strength):
    from pyamg import strength as measures

    if strength is None:
        return A
    if callable(strength):
        return sp.csr_array(strength(A))
    name, options = _unpack(strength)
    functions = {"symmetric": measures.symmetric_strength_of_connection,
                 "classical": measures.classical_strength_of_connection,
                 "evolution": measures.evolution_strength_of_connection}
    if name not in functions:
        raise ValueError(f"strength must be None, a callable or one of {sorted(functions)}, got {name!r}")
    return sp.csr_array(functions[name](A, **options))


def _galerkin(R, A, P):
    """``R (A P)``, scipy's products bit for bit (:func:`~gbgraph.backends.numba.kernels.spgemm.matmat`
    on numba's threads), as a CSR array.

    A P first: its n × k product is about as large as P, where R A (k × n) holds every fine
    column that a coarse row reaches. The products add each entry's terms row by row, in the
    order of R's and A P's entries, as the backend's ``plus_times`` products did for the
    levels of at least ``_SORTED_GALERKIN`` entries; those levels get their rows sorted and
    int64 indices, the form those products gave them, so that the smoothers sweep every row
    in the same order and the hierarchy is the same bit for bit.
    """
    AP = matmat(A, P)  # AP = A plus.times P
    if A.nnz < _SORTED_GALERKIN:
        return matmat(R, AP)  # R plus.times AP
    return matmat(R, AP, ordered=True, index_type=np.int64)  # R plus.times AP, rows sorted

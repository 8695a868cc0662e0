"""Jacobi and Chebyshev relaxation, on the CPU (numpy, scipy) or the GPU (CuPy, cupyx): each a
polynomial in A applied to the residual, so a sweep is sparse products and vector updates on
the array's own device.

The smoothers of :mod:`gbgraph.amg` and the preconditioners :func:`jacobi` and
:func:`chebyshev` run these updates in place, with pyamg's formulas, so that a hierarchy on
the GPU smooths as pyamg does on the CPU:

* Jacobi: ``x ← x + ω D⁻¹ (b - A x)`` (pyamg's ``relaxation.jacobi``);
* Chebyshev: ``x ← x + p(A) (b - A x)``, ``p`` the Chebyshev polynomial of the interval
  ``[lower ρ, upper ρ]`` (pyamg's ``setup_chebyshev`` and ``relaxation.polynomial``).

ρ comes from :func:`spectral_radius`, Lanczos from a fixed start vector, the same on every
device.
"""

import numpy as np
import scipy.sparse as sp

from .._checks import check_integer

__all__ = ["spectral_radius", "jacobi_sweeps", "chebyshev_coefficients", "polynomial_sweeps", "jacobi", "chebyshev",
           "array_modules", "inverse", "product"]


def array_modules(A):
    """(numpy, scipy.sparse.linalg) for a scipy matrix, (cupy, cupyx.scipy.sparse.linalg) for a cupyx one."""
    if sp.issparse(A) or isinstance(A, np.ndarray):
        import scipy.sparse.linalg as sla

        return np, sla
    import cupy
    import cupyx.scipy.sparse.linalg as csla

    return cupy, csla


def start_vector(xp, n):
    """A fixed vector in (0, 1)ⁿ, the same on every device: the top 53 bits of a
    multiplicative hash of each index (Fibonacci hashing), so no host generator is needed."""
    i = xp.arange(1, n + 1, dtype=xp.uint64)
    return ((i * xp.uint64(0x9E3779B97F4A7C15)) >> xp.uint64(11)).astype(xp.float64) * 2.0**-53 + 2.0**-54


#: Lanczos steps between two tests of :func:`spectral_radius`'s estimate
TEST_EVERY = 10


def spectral_radius(A, diagonal=None, *, tol=0.01, maxiter=50, triangle=None):
    """ρ(A), or ρ(D⁻¹A) with ``diagonal`` = the diagonal of A, estimated by Lanczos.

    For a symmetric A with a positive diagonal, D⁻¹A is similar to the symmetric
    S = D^-½ A D^-½, so Lanczos' three-term recurrence on S gives the Ritz values of D⁻¹A.
    The estimate is the largest Ritz value once its residual is below ``tol`` times the
    value (pyamg's criterion for ``approximate_spectral_radius``), tested every
    :data:`TEST_EVERY` steps, from
    :func:`start_vector`, so that the same matrix gets the same estimate on every device
    (to rounding), run and number of BLAS threads (the host's sums are numpy's pairwise ones).

    Parameters
    ----------
    A : scipy or cupyx sparse matrix
        Symmetric.
    diagonal : numpy or cupy array, optional
        A's diagonal, non-negative: estimate ρ(D⁻¹A) instead of ρ(A) (D⁻¹ with 0 for a
        zero entry).
    tol : float
    maxiter : int
    triangle : tuple of numpy arrays, optional
        A scipy A's upper triangle, :func:`~gbgraph.backends.numba.kernels.lanczos.upper_triangle`'s,
        where the caller holds it. Either way, the host steps read A's upper triangle alone
        where that gives the same bits (``upper_triangle`` checks it, unless given this).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        for a ``diagonal`` that is not positive.

    Examples
    --------
    >>> import gbgraph as gg
    >>> A = gg.generators.laplace3d(10)
    >>> round(spectral_radius(A, A.diagonal()), 2)   # 1 + cos(π/11), to the estimate's tolerance
    1.96
    """
    from scipy.linalg.lapack import dstev

    xp, _ = array_modules(A)
    n = A.shape[0]
    if n == 0:
        return 0.0
    if diagonal is not None and not bool((diagonal >= 0).all()):
        raise ValueError("spectral_radius of D⁻¹A needs a non-negative diagonal")
    # S = D^-½ A D^-½, applied, not formed; a zero diagonal entry (a zero row of a coarse
    # operator whose candidate was dropped) scales by 0, as pyamg's D⁻¹ does
    scale = None if diagonal is None else inverse(xp.sqrt(diagonal))
    v = start_vector(xp, n)
    v /= xp.linalg.norm(v)
    steps = min(maxiter, n)
    # the test runs every TEST_EVERY steps, on every device: the GPU takes them in one launch
    # and reads α and β once
    if xp is np:
        recurrence = _host_recurrence(A, scale, v, steps, triangle)
    else:
        recurrence = _DeviceLanczos(A, scale, v, steps)
    for first in range(0, steps, TEST_EVERY):
        last = min(first + TEST_EVERY, steps)
        a, b = recurrence.run(first, last)
        theta, s, _ = dstev(a, b[:max(last - 1, 1)])  # the Ritz values; LAPACK's e has an entry at least
        if b[last - 1] * abs(s[-1, -1]) < tol * theta[-1]:  # the largest and its residual
            break
    return float(theta[-1])


def _host_recurrence(A, scale, v, steps, triangle=None):
    """:class:`_TriangleLanczos` on A's upper triangle ``triangle``, or where A has at least
    :data:`~gbgraph.backends.numba.kernels.lanczos.TRIANGLE_ENTRIES` entries and
    :func:`~gbgraph.backends.numba.kernels.lanczos.upper_triangle` finds that it is enough for
    the product; else :class:`_HostLanczos`."""
    if triangle is None and scale is not None and getattr(A, "format", None) == "csr" and A.dtype == np.float64:
        from ..backends.numba.kernels import lanczos

        if A.nnz >= lanczos.TRIANGLE_ENTRIES:
            triangle = lanczos.upper_triangle(A.indptr, A.indices, A.data)
    if triangle is None or scale is None:
        return _HostLanczos(A, scale, v, steps)
    return _TriangleLanczos(triangle, scale, v, steps)


class _HostLanczos:
    """Lanczos' recurrence on S = diag(scale) A diag(scale), from the unit vector v:
    ``run(first, last)`` takes steps first .. last - 1 and returns (α, β) of every step so far."""

    def __init__(self, A, scale, v, steps):
        self.A, self.scale, self.v = A, scale, v
        self.previous, self.beta = np.zeros_like(v), 0.0
        self.alphas, self.betas = np.zeros(steps), np.zeros(steps)

    def run(self, first, last):
        scale, v = self.scale, self.v
        for j in range(first, last):
            w = self.A @ (v if scale is None else scale * v)  # Lanczos: S v_j = β_(j-1) v_(j-1) + α_j v_j + β_j v_(j+1)
            if scale is not None:
                w *= scale
            w -= self.beta * self.previous
            # numpy's pairwise sums, not BLAS's dot: the same bits on any number of BLAS threads
            self.alphas[j] = alpha = np.add.reduce(w * v)
            w -= alpha * v
            self.betas[j] = self.beta = np.sqrt(np.add.reduce(w * w))
            if self.beta:  # β = 0: the Krylov space is exhausted, and the test stops here
                w /= self.beta
            self.previous, v = v, w
        self.v = v
        return self.alphas[:last], self.betas[:last]


class _TriangleLanczos:
    """:class:`_HostLanczos`'s steps, the same bits, for an A equal to Aᵀ bit for bit whose
    rows hold their left entries first, sorted (an SA-AMG setup's finest level, checked
    symmetric on the way in): numba passes over A's upper triangle ``triangle``
    (:func:`~gbgraph.backends.numba.kernels.lanczos.upper_triangle`), one over it and one over
    two vectors a step, where numpy's steps read all of A and make a dozen vector passes."""

    def __init__(self, triangle, scale, v, steps):
        from ..backends.numba.kernels import lanczos

        self.kernels, self.triangle, self.scale = lanczos, triangle, scale
        self.vectors = np.zeros((4, v.size))  # v and the previous v (in either order), w, x
        self.vectors[0] = v
        self.parity, self.alpha, self.beta, self.pending = 0, 0.0, 0.0, False
        self.plan = lanczos.pairwise_plan(v.size)
        self.alphas, self.betas = np.zeros(steps), np.zeros(steps)

    def run(self, first, last):
        self.alpha, self.beta, self.parity = self.kernels.symmetric_steps(
            *self.triangle, self.scale, self.vectors, self.parity, self.alpha, self.beta, self.pending, first, last,
            *self.plan, self.alphas, self.betas)
        self.pending = True
        return self.alphas[:last], self.betas[:last]


class _DeviceLanczos:
    """The same recurrence on the GPU, a batch of steps in one cooperative launch
    (lanczos.cu), α and β read once a batch."""

    def __init__(self, A, scale, v, steps):
        import cupy

        from ..backends.cupy import kernels

        self.kernels, self.A, self.scale = kernels, A, scale
        self.vectors = (v, cupy.zeros_like(v), cupy.empty_like(v))  # v, previous, w
        self.alphas, self.betas = cupy.zeros(steps), cupy.zeros(steps)
        self.partial = cupy.empty(kernels.lanczos_shares(A))

    def run(self, first, last):
        self.vectors = self.kernels.lanczos_steps(self.A, self.scale, self.vectors, first, last, self.alphas,
                                                  self.betas, self.partial)
        return self.alphas[:last].get(), self.betas[:last].get()


def product(A):
    """``v ↦ A v`` for the CSR ``A``: scipy's product, or on the GPU one launch of gbgraph's
    kernel (cupyx's product sets up cuSPARSE at every call, which costs more than a product
    on a coarse level)."""
    xp, _ = array_modules(A)
    if xp is np:
        return A.__matmul__
    from ..backends.cupy import kernels

    lanes = kernels.lanes_per_row(A)

    def matvec(v):
        y = xp.empty(A.shape[0])
        kernels.csr_product("times", A, xp.ascontiguousarray(v, dtype=xp.float64), y, lanes=lanes)
        return y

    return matvec


def inverse(d):
    """1 / d, and 0 where d is 0 (pyamg's ``get_diagonal(inv=True)``)."""
    xp, _ = array_modules(d)
    return xp.where(d != 0, 1.0 / xp.where(d != 0, d, 1.0), 0.0)


def jacobi_sweeps(A, x, b, omega, iterations, inverse_diagonal):
    """``iterations`` of ``x ← x + ω D⁻¹ (b - A x)``, in place."""
    for _ in range(iterations):
        x += omega * inverse_diagonal * (b - A @ x)


def chebyshev_coefficients(rho, lower_bound=1.0 / 30.0, upper_bound=1.1, degree=3):
    """The coefficients of pyamg's Chebyshev smoother for a matrix of spectral radius ρ:
    the polynomial of degree ``degree`` on ``[lower_bound ρ, upper_bound ρ]``, highest first."""
    from pyamg.relaxation.chebyshev import chebyshev_polynomial_coefficients

    return -chebyshev_polynomial_coefficients(rho * lower_bound, rho * upper_bound, degree)[:-1]


def polynomial_sweeps(A, x, b, coefficients, iterations):
    """``iterations`` of ``x ← x + p(A) (b - A x)``, ``p`` by Horner's rule, in place (pyamg's
    ``relaxation.polynomial``)."""
    xp, _ = array_modules(A)
    for _ in range(iterations):
        residual = b if not bool(xp.any(x)) else b - A @ x
        h = coefficients[0] * residual
        for c in coefficients[1:]:
            h = c * residual + A @ h
        x += h


def _operator(A, apply):
    xp, sla = array_modules(A)

    def matvec(b):
        if type(b).__module__.split(".")[0] != xp.__name__:
            raise TypeError(f"b must be a {xp.__name__} array for this operator, got {type(b).__module__}."
                            f"{type(b).__name__}")
        x = xp.zeros(A.shape[0])
        apply(x, b.reshape(-1).astype(xp.float64, copy=False))
        return x.reshape(b.shape)

    return sla.LinearOperator(A.shape, matvec=matvec, rmatvec=matvec, dtype=np.float64)


def _checked(A, sweeps):
    check_integer("sweeps", sweeps, minimum=1)
    xp, _ = array_modules(A)
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be square, got shape {A.shape}")
    A = A.tocsr().astype(np.float64)
    if not bool(xp.isfinite(A.data).all()):
        raise ValueError(f"A has {int((~xp.isfinite(A.data)).sum()):,} NaN or infinite entries; the sweeps need "
                         "finite values")
    return A, xp


def jacobi(A, omega=2.0 / 3.0, *, sweeps=1):
    """Weighted Jacobi preconditioner: ``sweeps`` of ``x ← x + ω D⁻¹ (b - A x)`` from x = 0.

    Parameters
    ----------
    A : scipy or cupyx sparse matrix
        Square, finite, with no zero on the diagonal.
    omega : float
        The weight ω (2/3 for the Laplacian's smoothing).
    sweeps : int

    Returns
    -------
    LinearOperator
        scipy's for scipy input, cupyx's (on the GPU) for cupyx input; it takes vectors of
        the same library (TypeError otherwise).

    Raises
    ------
    ValueError
        for a non-square A, NaN or infinite entries, a zero diagonal entry (the message names
        its row) or ``sweeps`` below 1.

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> A = gg.generators.laplace3d(8)
    >>> M = gg.solvers.jacobi(A, sweeps=2)
    >>> b = np.ones(A.shape[0])
    >>> bool(np.linalg.norm(b - A @ (M @ b)) < np.linalg.norm(b))
    True
    """
    A, xp = _checked(A, sweeps)
    diagonal = A.diagonal()
    zero = xp.flatnonzero(diagonal == 0)
    if zero.size:
        raise ValueError(f"A has a zero diagonal entry in row {int(zero[0])}; Jacobi divides by the diagonal")
    inverse_diagonal = 1.0 / diagonal
    return _operator(A, lambda x, b: jacobi_sweeps(A, x, b, omega, sweeps, inverse_diagonal))


def chebyshev(A, *, degree=3, lower_bound=1.0 / 30.0, upper_bound=1.1, sweeps=1):
    """Chebyshev polynomial preconditioner, pyamg's smoother: ``x ← x + p(A) (b - A x)``.

    ``p`` is the Chebyshev polynomial of degree ``degree`` for the interval
    ``[lower_bound ρ, upper_bound ρ]``, ρ = :func:`spectral_radius` of A.

    Parameters
    ----------
    A : scipy or cupyx sparse matrix
        Symmetric positive semidefinite, finite.
    degree : int
    lower_bound, upper_bound : float
        The interval, as fractions of ρ (pyamg's defaults).
    sweeps : int

    Returns
    -------
    LinearOperator
        scipy's for scipy input, cupyx's for cupyx input.

    Raises
    ------
    ValueError
        for a non-square A, NaN or infinite entries, or ``sweeps`` or ``degree`` below 1.

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> A = gg.generators.laplace3d(8)
    >>> M = gg.solvers.chebyshev(A)
    >>> b = np.ones(A.shape[0])
    >>> bool(np.linalg.norm(b - A @ (M @ b)) < np.linalg.norm(b))
    True
    """
    A, xp = _checked(A, sweeps)
    check_integer("degree", degree, minimum=1)
    coefficients = chebyshev_coefficients(spectral_radius(A), lower_bound, upper_bound, degree)
    return _operator(A, lambda x, b: polynomial_sweeps(A, x, b, coefficients, sweeps))

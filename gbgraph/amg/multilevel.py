"""A smoothed-aggregation hierarchy built and applied on the matrix's device: what
:func:`gbgraph.amg.smoothed_aggregation_solver` returns for cupyx input.

:class:`MultilevelSolver` mirrors ``pyamg.multilevel.MultilevelSolver`` where a user relies on
it (``levels``, ``operator_complexity``, ``grid_complexity``, ``solve``, ``aspreconditioner``,
``print``) and cycles as pyamg does: pre-smoothing, the restricted residual, the coarse
correction (recursively, or a dense pseudo-inverse on the coarsest level), post-smoothing.
Its smoothers are those with a parallel form: Jacobi, Chebyshev, and point or cluster
multicolor Gauss-Seidel (one kernel per color). On the GPU the cycle runs as
:mod:`gbgraph.amg.device_cycle`'s kernels, replayed as one CUDA graph; :meth:`MultilevelSolver.cycle`
is its reference form.
"""

import numpy as np

from ..solvers.polynomial import (array_modules, chebyshev_coefficients, inverse, jacobi_sweeps, polynomial_sweeps,
                                  product, spectral_radius)

__all__ = ["Level", "MultilevelSolver", "cg", "SMOOTHERS", "smoother", "Jacobi", "GaussSeidelSweeps",
           "no_smoothing"]

#: Smoothers with a parallel form. pyamg's "gauss_seidel" and "block_gauss_seidel" (blocks of
#: one row) run as point multicolor Gauss-Seidel: a lexicographic sweep has no parallel form
#: with the same result.
SMOOTHERS = ("jacobi", "chebyshev", "multicolor_gauss_seidel", "cluster_gauss_seidel", "gauss_seidel",
             "block_gauss_seidel")


class Level:
    """One level: ``A``, the candidates ``B`` and, above the coarsest, ``P``, ``R``, the
    smoothers and ρ(D⁻¹A) (``rho_D_inv``); with ``keep``, also the aggregate ``labels`` and
    the tentative prolongator ``T``."""

    def __init__(self, A, B):
        self.A, self.B = A, B

    def __repr__(self):
        return f"<Level n={self.A.shape[0]:,} nnz={self.A.nnz:,}>"


def smoother(level, spec):
    """``f(A, x, b)`` relaxing ``A x = b`` in place on ``x``, for a pyamg-style ``spec``:
    None, a name or ``(name, options)``."""
    name, options = (spec, {}) if not isinstance(spec, tuple) else (spec[0], dict(spec[1]) if len(spec) > 1 else {})
    if name is None:
        return no_smoothing
    if name not in SMOOTHERS:
        raise ValueError(f"the smoothers on the GPU are {SMOOTHERS} or None, got {name!r}")
    A = level.A
    iterations = options.pop("iterations", 1)
    if name == "jacobi":
        omega = options.pop("omega", 1.0)
        if options.pop("withrho", True):
            omega /= _rho_D_inv(level)
        _no_more(name, options)
        if not hasattr(level, "inverse_diagonal"):  # the pre- and post-smoother share it
            level.inverse_diagonal = inverse(A.diagonal())
        return Jacobi(omega, iterations, level.inverse_diagonal)
    if name == "chebyshev":
        if not hasattr(level, "rho"):
            level.rho = spectral_radius(A)
        coefficients = chebyshev_coefficients(level.rho, options.pop("lower_bound", 1.0 / 30.0),
                                              options.pop("upper_bound", 1.1), options.pop("degree", 3))
        _no_more(name, options)
        return lambda A, x, b: polynomial_sweeps(A, x, b, coefficients, iterations)
    sweep = options.pop("sweep", "forward")
    if sweep not in ("forward", "backward", "symmetric"):
        raise ValueError(f"sweep must be 'forward', 'backward' or 'symmetric', got {sweep!r}")
    _no_more(name, options)
    gs = _gauss_seidel(level, "cluster" if name == "cluster_gauss_seidel" else "point")
    return GaussSeidelSweeps(gs, {"forward": (False,), "backward": (True,), "symmetric": (False, True)}[sweep],
                             iterations)


def no_smoothing(A, x, b):
    """The smoother None."""


class Jacobi:
    """``iterations`` sweeps of ``x ← x + ω D⁻¹ (b - A x)`` (pyamg's ``jacobi``), ``s`` = D⁻¹."""

    def __init__(self, omega, iterations, s):
        self.omega, self.iterations, self.s = omega, iterations, s

    def __call__(self, A, x, b):
        jacobi_sweeps(A, x, b, self.omega, self.iterations, self.s)


class GaussSeidelSweeps:
    """``iterations`` times the (forward, backward) sweeps ``passes`` of a level's
    :class:`~gbgraph.solvers.gauss_seidel_gpu.DeviceGaussSeidel`."""

    def __init__(self, gs, passes, iterations):
        self.gs, self.passes, self.iterations = gs, passes, iterations

    def __call__(self, A, x, b):
        for _ in range(self.iterations):
            for backward in self.passes:
                self.gs.sweep(x, b, backward)


def _no_more(name, options):
    if options:
        raise ValueError(f"unknown options of {name!r} on the GPU: {sorted(options)}")


def _pseudo_inverse(M):
    """The pseudo-inverse of the symmetric M from its eigendecomposition: pinv's, to rounding
    (singular values are |eigenvalues|; below 1e-15 of the largest they count as zero, numpy's
    ``rcond``). On the GPU, cuSOLVER's symmetric eigensolver costs a fraction of pinv's SVD:
    on the H100 the solver's construction for Laplace3D 100³ (a 52 × 52 coarsest level) went
    from 5.6 ms to 1.8 ms."""
    xp, _ = array_modules(M)
    w, V = xp.linalg.eigh(M)
    kept = xp.abs(w) > 1e-15 * xp.abs(w).max()
    return (V * xp.where(kept, 1.0 / xp.where(kept, w, 1.0), 0.0)) @ V.T


def _rho_D_inv(level):
    if not hasattr(level, "rho_D_inv"):
        level.rho_D_inv = spectral_radius(level.A, level.A.diagonal())
    return level.rho_D_inv


def _gauss_seidel(level, kind):
    """The level's (cluster) multicolor Gauss-Seidel operator, colored once per kind."""
    from ..algorithms.aggregation import aggregate
    from ..algorithms.coloring import color

    xp, _ = array_modules(level.A)
    if xp is np:
        raise ValueError("this hierarchy's Gauss-Seidel smoothers run on the GPU; on the CPU, pyamg's levels "
                         "(gg.amg.smoothed_aggregation_solver of a scipy matrix) have their own")
    from ..solvers.gauss_seidel_gpu import DeviceGaussSeidel, cluster_graph, dense_labels, pattern_graph

    cache = level.__dict__.setdefault("gauss_seidel", {})
    if kind not in cache:  # a coarse level may have zero rows (dropped candidates): no checks, 1/0 read as 0
        graph = pattern_graph(level.A)
        if kind == "point":
            cache[kind] = DeviceGaussSeidel(level.A, color(graph).colors, None, symmetric=False, sweeps=1)
        else:
            labels = dense_labels(xp.asarray(aggregate(graph, "mis2").labels))
            cache[kind] = DeviceGaussSeidel(level.A, color(cluster_graph(graph, labels)).colors, labels,
                                            symmetric=False, sweeps=1)
    return cache[kind]


class MultilevelSolver:
    """A multigrid hierarchy on the GPU, pyamg's ``MultilevelSolver`` in the parts users
    rely on.

    Attributes
    ----------
    levels : list of Level
        The finest first.
    """

    def __init__(self, levels):
        self.levels = levels
        xp, _ = array_modules(levels[-1].A)
        coarse = levels[-1].A.toarray()
        self._coarse_inverse = _pseudo_inverse(coarse) if coarse.size else coarse  # pyamg's default: "pinv"
        self._device_cycle = None
        if xp is not np:
            from .device_cycle import DeviceCycle

            self._device_cycle = DeviceCycle(levels, self._coarse_inverse)

    def operator_complexity(self):
        """Entries of every level's A over those of the finest."""
        return sum(level.A.nnz for level in self.levels) / self.levels[0].A.nnz

    def grid_complexity(self):
        """Rows of every level over those of the finest."""
        return sum(level.A.shape[0] for level in self.levels) / self.levels[0].A.shape[0]

    def cycle(self, x, b, lvl=0):
        """One V-cycle on level ``lvl`` for ``A x = b``, in place on ``x``."""
        level = self.levels[lvl]
        A = level.A
        level.presmoother(A, x, b)
        coarse_b = level.R @ (b - A @ x)
        if lvl == len(self.levels) - 2:
            coarse_x = self._coarse_inverse @ coarse_b
        else:
            coarse_x = coarse_b * 0.0
            self.cycle(coarse_x, coarse_b, lvl + 1)
        x += level.P @ coarse_x
        level.postsmoother(A, x, b)

    def _apply(self, b):
        if self._device_cycle is not None:
            return self._device_cycle(b)
        xp, _ = array_modules(self.levels[0].A)
        x = xp.zeros_like(b)
        if len(self.levels) == 1:
            return self._coarse_inverse @ b
        self.cycle(x, b)
        return x

    def aspreconditioner(self, cycle="V"):
        """One V-cycle from x = 0 as a ``cupyx.scipy.sparse.linalg.LinearOperator``."""
        _check_cycle(cycle)
        _, sla = array_modules(self.levels[0].A)
        n = self.levels[0].A.shape[0]
        return sla.LinearOperator((n, n), matvec=lambda b: self._apply(self._vector(b)).reshape(b.shape),
                                  dtype=np.float64)

    def _vector(self, b, name="b"):
        xp, _ = array_modules(self.levels[0].A)
        if type(b).__module__.split(".")[0] != xp.__name__:
            raise TypeError(f"{name} must be a {xp.__name__} array for a hierarchy on this device, got "
                            f"{type(b).__module__}.{type(b).__name__}")
        n = self.levels[0].A.shape[0]
        if b.size != n:
            raise ValueError(f"{name} must have {n} entries, got shape {b.shape}")
        return b.reshape(-1).astype(np.float64, copy=False)

    def solve(self, b, x0=None, tol=1e-5, maxiter=100, cycle="V", accel=None, residuals=None, return_info=False):
        """Solve ``A x = b`` to ``||b - A x|| < tol ||b||`` by V-cycles, or by conjugate
        gradients preconditioned by one V-cycle (``accel="cg"``), as pyamg does.

        Parameters
        ----------
        b : cupy.ndarray
        x0 : cupy.ndarray, optional
        tol : float
        maxiter : int
        cycle : "V"
        accel : None or "cg"
        residuals : list, optional
            Filled with the residual norms, the initial one first (floats).
        return_info : bool
            Return ``(x, info)``: 0 when converged, else the iterations run.

        Returns
        -------
        cupy.ndarray or (cupy.ndarray, int)

        Raises
        ------
        TypeError
            for a ``b`` or ``x0`` that is not on the hierarchy's device.
        ValueError
            for vectors of the wrong length, another cycle or accel.
        """
        _check_cycle(cycle)
        b = self._vector(b)
        x = b * 0.0 if x0 is None else self._vector(x0, "x0").copy()
        A = self.levels[0].A
        if accel == "cg":
            x, info = cg(product(A), b, x, tol, maxiter, self._apply, residuals)
        elif accel is None:
            x, info = _stationary(self, A, b, x, tol, maxiter, residuals)
        else:
            raise ValueError(f"accel must be None or 'cg' on the GPU, got {accel!r}")
        return (x, info) if return_info else x

    def __repr__(self):
        lines = ["MultilevelSolver on the GPU",
                 f"Number of Levels:     {len(self.levels)}",
                 f"Operator Complexity:  {self.operator_complexity():6.3f}",
                 f"Grid Complexity:      {self.grid_complexity():6.3f}",
                 "  level   unknowns     nonzeros"]
        total = sum(level.A.nnz for level in self.levels)
        for i, level in enumerate(self.levels):
            lines.append(f"{i:>6} {level.A.shape[0]:>11} {level.A.nnz:>12} "
                         f"[{100 * level.A.nnz / total:2.2f}%]")
        return "\n".join(lines) + "\n"


def _check_cycle(cycle):
    if str(cycle).upper() != "V":
        raise ValueError(f"the hierarchy on the GPU runs V-cycles, got cycle={cycle!r}")


def _stationary(ml, A, b, x, tol, maxiter, residuals):
    """V-cycles until ``||b - A x|| < tol ||b||`` (pyamg's loop without acceleration)."""
    xp, _ = array_modules(A)
    normb = float(xp.linalg.norm(b)) or 1.0
    normr = float(xp.linalg.norm(b - A @ x))
    if residuals is not None:
        residuals[:] = [normr]
    for it in range(1, maxiter + 1):
        if ml._device_cycle is not None:
            x = ml._device_cycle(b, x)
        elif len(ml.levels) == 1:
            x = ml._apply(b)
        else:
            ml.cycle(x, b)
        normr = float(xp.linalg.norm(b - A @ x))
        if residuals is not None:
            residuals.append(normr)
        if normr < tol * normb:
            return x, 0
    return x, maxiter


def cg(A, b, x, tol, maxiter, M, residuals=None):
    """Preconditioned conjugate gradients, pyamg's ``krylov.cg`` step for step (the residual
    recomputed every 8th step, stopping at ``||r|| < tol ||b||``), in place on ``x``;
    returns ``(x, info)``. ``A`` and ``M`` are functions applying the matrix and the
    preconditioner."""
    xp, _ = array_modules(b)
    r = b - A(x)
    z = M(r)
    p = z.copy()
    rz = float(r @ z)
    normr = float(xp.linalg.norm(r))
    if residuals is not None:
        residuals[:] = [normr]
    normb = float(xp.linalg.norm(b)) or 1.0
    if normr < tol * normb:
        return x, 0
    for it in range(maxiter):
        Ap = A(p)
        rz_old = rz
        alpha = rz / float(Ap @ p)
        x += alpha * p
        if it % 8 and it > 0:
            r -= alpha * Ap
        else:
            r = b - A(x)
        z = M(r)
        rz = float(r @ z)
        p *= rz / rz_old
        p += z
        normr = float(xp.linalg.norm(r))
        if residuals is not None:
            residuals.append(normr)
        if normr < tol * normb:
            return x, 0
    return x, maxiter

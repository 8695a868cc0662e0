"""The V-cycle of a hierarchy on the GPU, replayed as one CUDA graph.

:meth:`MultilevelSolver.cycle <gbgraph.amg.multilevel.MultilevelSolver.cycle>` is the
cycle's reference form: sparse products through cupyx, each one a launch with its host-side
set-up (cuSPARSE descriptors, buffers, temporaries). On the coarse levels, a few thousand rows,
that set-up is the whole cost: Laplace3D 100³'s five-level cycle took 2.7 ms for 0.12 ms of
fine-level SpMV. :class:`DeviceCycle` runs the same cycle as kernels of its own
(``cycle.cu``: ``y = A x``, ``r = b - A x``, ``x += P e``, a Jacobi sweep) on buffers
allocated once, so the cycle can be captured as one CUDA graph and replayed in a single
launch. Jacobi's first sweep from ``x = 0`` skips its product with zero.

Smoothers without a host synchronisation (Jacobi, point and cluster Gauss-Seidel, none) are
captured; a hierarchy with another (Chebyshev) runs the same kernels without capture.
"""

import cupy

from ..backends.cupy import kernels
from ..backends.cupy.replay import captured
from .multilevel import GaussSeidelSweeps, Jacobi, no_smoothing

__all__ = ["DeviceCycle"]


class DeviceCycle:
    """One V-cycle of ``levels`` (coarsest level: the dense ``coarse_inverse``) on the GPU:
    ``cycle(b)`` returns the cycle from ``x = 0``, ``cycle(b, x)`` from ``x``."""

    def __init__(self, levels, coarse_inverse):
        self.levels = levels
        self._inverse = cupy.ascontiguousarray(coarse_inverse)
        self.x = [cupy.zeros(level.A.shape[0]) for level in levels]
        self.b = [cupy.zeros(level.A.shape[0]) for level in levels]
        self.r = [cupy.zeros(level.A.shape[0]) for level in levels[:-1]]  # residuals, and Jacobi's second buffer
        self.captured = all(isinstance(s, (Jacobi, GaussSeidelSweeps)) or s is no_smoothing
                            for level in levels[:-1] for s in (level.presmoother, level.postsmoother))
        self._graphs = {}  # by "from x = 0"

    def __call__(self, b, x=None):
        zero = x is None
        if self.captured and zero not in self._graphs:
            self._load(b, x)
            self._cycle(0, zero)  # compiles the kernels: no module loads while capturing
            self._graphs[zero] = captured(lambda: self._cycle(0, zero))
        self._load(b, x)
        if self.captured:
            self._graphs[zero].launch()
        else:
            self._cycle(0, zero)
        return self.x[0].copy()

    def _load(self, b, x):
        cupy.copyto(self.b[0], b)
        if x is not None:
            cupy.copyto(self.x[0], x)

    def _cycle(self, lvl, zero):
        """The cycle from level ``lvl`` down, on ``self.x[lvl]`` and ``self.b[lvl]``, as
        MultilevelSolver.cycle."""
        x, b = self.x[lvl], self.b[lvl]
        if lvl == len(self.levels) - 1:
            kernels.dense_product(self._inverse, b, x)  # x = A⁺ b
            return
        level = self.levels[lvl]
        self._relax(level.presmoother, lvl, zero)
        kernels.csr_product("residual", level.A, x, self.r[lvl], b)  # r = b - A x
        kernels.csr_product("times", level.R, self.r[lvl], self.b[lvl + 1])  # coarse b = R r
        self._cycle(lvl + 1, True)
        kernels.csr_product("accumulate", level.P, self.x[lvl + 1], x)  # x += P (coarse x)
        self._relax(level.postsmoother, lvl, False)

    def _relax(self, smoother, lvl, zero):
        A, x, b = self.levels[lvl].A, self.x[lvl], self.b[lvl]
        if not isinstance(smoother, Jacobi):
            if zero:
                x.fill(0)
            smoother(A, x, b)
            return
        if zero and not smoother.iterations:
            x.fill(0)
        current, other = x, self.r[lvl]
        for sweep in range(smoother.iterations):
            if sweep == 0 and zero:
                kernels.jacobi_from_zero(b, smoother.s, smoother.omega, x)  # x = ω D⁻¹ b
                continue
            kernels.csr_product("jacobi", A, current, other, b, smoother.s, smoother.omega)  # x ← x + ω D⁻¹ (b - A x)
            current, other = other, current
        if current is not x:
            cupy.copyto(x, current)


"""The ``native`` backend: whole-algorithm CUDA kernels beside the algebraic ones.

Kokkos Kernels and ECL-MIS write each algorithm as a few fused kernels with its loop on
the device; this backend does the same for MIS-1, MIS-2, MIS-2 aggregation, greedy coloring
and HEC, with results identical to the ``cupy`` and CPU backends' (docs/native.md says what
each kernel fuses and why the result is the same). It is the cupy backend otherwise: every
GraphBLAS verb, and so every algorithm without a native version, runs there. The price of
algebra is the time of ``backend="cupy"`` over ``backend="native"`` on the same input
(benchmarks/bench_native.py).

Examples
--------
>>> import cupyx.scipy.sparse as cs, gbgraph as gg
>>> A = cs.csr_matrix(gg.generators.laplace3d(10))
>>> bool((gg.mis2(A, backend="native").vertices == gg.mis2(A, backend="cupy").vertices).all())
True
"""

from ..cupy import CupyBackend
from . import aggregation, coloring, heavy, mis

__all__ = ["NativeBackend"]


class NativeBackend(CupyBackend):
    """The cupy backend with whole-algorithm kernels for the algorithms in :attr:`FUSED`."""

    name = "native"

    #: The algorithms this backend runs as fused kernels, by the name the algorithm
    #: modules ask :meth:`~gbgraph.backends.base.Backend.fused` for.
    FUSED = {"mis1": mis.mis1, "mis2": mis.mis2, "aggregate": aggregation.aggregate,
             "color": coloring.color, "hec": heavy.hec}

    def fused(self, algorithm):
        return self.FUSED.get(algorithm) or super().fused(algorithm)

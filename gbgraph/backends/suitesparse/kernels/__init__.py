"""gbgraph's own CPU kernels, compiled by numba, for the ``suitesparse`` backend.

The cupy backend runs its hot verbs as gbgraph's own CUDA kernels; these are their CPU
counterparts, for the steps where the suitesparse-graphblas 9.x wheel is the bottleneck:
it has no JIT (a user-defined operator runs through a generic kernel), it stores 64-bit
indices (twice the memory traffic of a 32-bit CSR), and each python-graphblas call costs
tens of microseconds, which a round of a dozen calls pays on every graph, however small.

Each kernel computes one protocol verb, or a fused verb with a semiring meaning; its
docstring gives the GraphBLAS form, and the tests check the kernel against that form run
through SuiteSparse. Kernels are deterministic whatever the number of threads: a parallel
loop writes only its own slots, and scans and reductions run in a fixed order.

numba compiles each kernel on its first call and caches the machine code on disk
(``cache=True``), so that only the first process pays for it.
"""

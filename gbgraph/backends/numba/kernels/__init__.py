"""gbgraph's CPU kernels, compiled by numba: the ``numba`` backend's counterparts of the
cupy backend's CUDA kernels.

Each kernel computes one protocol verb, or a fused verb with a semiring meaning whose
GraphBLAS form is in :mod:`gbgraph.backends.base` (the ``suitesparse`` backend runs that
form, and the tests check that both give the same result). Kernels are deterministic
whatever the number of threads: a parallel loop writes only its own slots, and reductions
run in a fixed order (a row in column order).

numba compiles each kernel on its first call and caches the machine code beside this file
(``cache=True``), so that later processes only load it.
"""

"""gbgraph's CPU kernels, compiled by numba: the ``numba`` backend's counterparts of the
cupy backend's CUDA kernels.

Each kernel computes one protocol verb, or a fused verb with a semiring meaning whose
GraphBLAS form is in :mod:`gbgraph.backends.base` (the ``suitesparse`` backend runs that
form, and the tests check that both give the same result). Kernels are deterministic
whatever the number of threads: a parallel loop writes only its own slots, and reductions
run in a fixed order (a row in column order).

numba compiles each kernel on its first call and caches the machine code (``cache=True``;
in ``__pycache__`` beside this file, or numba's user-wide cache where the package directory
is read-only), so that later processes only load it. A parallel kernel runs as its serial
twin below a work threshold (``threads.py``), and :mod:`gbgraph._warmup` fills the cache in
a background process after a fresh install (docs/backends.md, "First use").
"""

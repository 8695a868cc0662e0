"""Backends: implementations of the GraphBLAS protocol of :mod:`gbgraph.backends.base`.

``numba`` runs on the CPU in numpy arrays and gbgraph's compiled kernels (the default for
CPU inputs), ``suitesparse`` on the CPU through python-graphblas (the GraphBLAS reference),
``cupy`` on an NVIDIA GPU, and ``native`` on the GPU too, with whole-algorithm CUDA kernels
for MIS, aggregation, coloring and HEC (the cupy backend's verbs for the rest); ``mpi``
splits matrices and vectors by row blocks over MPI ranks, each block on ``suitesparse``
(``mpi-cupy``: on ``cupy``, one GPU per rank; docs/distributed.md). Use :func:`backend` to get one by name; each is created once and
shared.
"""

import importlib

from .. import _warmup
from .._checks import check_integer
from .base import Backend

__all__ = ["Backend", "backend", "for_graph", "names", "set_threads"]

_IMPLEMENTATIONS = {"numba": ("gbgraph.backends.numba", "NumbaBackend"),
                   "suitesparse": ("gbgraph.backends.suitesparse", "SuiteSparseBackend"),
                    "cupy": ("gbgraph.backends.cupy", "CupyBackend"),
                    "native": ("gbgraph.backends.native", "NativeBackend"),
                    "mpi": ("gbgraph.backends.mpi", "MPIBackend"),
                    "mpi-cupy": ("gbgraph.backends.mpi", "MPICupyBackend")}
_INSTANCES = {}


def names():
    """Names of the known backends, whether or not they can run here.

    Returns
    -------
    list of str
        Sorted; :func:`backend` takes each (``"cupy"`` and ``"native"`` need CuPy and a GPU).

    Examples
    --------
    >>> names()
    ['cupy', 'mpi', 'mpi-cupy', 'native', 'numba', 'suitesparse']
    """
    return sorted(_IMPLEMENTATIONS)


def backend(name=None):
    """The backend called ``name`` (a :class:`Backend` is returned unchanged).

    Parameters
    ----------
    name : str, Backend or None
        ``"numba"``, ``"suitesparse"``, ``"cupy"``, ``"native"``, ``"mpi"`` or
        ``"mpi-cupy"`` (over ``MPI.COMM_WORLD``, blocks on ``suitesparse`` or on one GPU per
        rank); None gives the default, ``"numba"``, or ``"suitesparse"`` while numba's cache
        of gbgraph's kernels is being filled in the background after a fresh install
        (docs/backends.md, "First use").

    Returns
    -------
    Backend
        The one instance of that backend in this process.

    Raises
    ------
    ValueError
        for an unknown name.
    ImportError
        for ``"cupy"`` or ``"native"`` without CuPy; the message names the
        ``cuda12``/``cuda13`` extras; for ``"mpi"`` without mpi4py, naming the ``mpi`` extra
        (``"mpi-cupy"`` needs both).

    Examples
    --------
    >>> import gbgraph as gg
    >>> gg.backend("suitesparse")
    <gbgraph backend 'suitesparse'>
    """
    if isinstance(name, Backend):
        return name
    if name is None:
        name = _warmup.default_cpu_backend()
    if name not in _IMPLEMENTATIONS:
        raise ValueError(f"unknown backend {name!r}; available: {', '.join(names())}")
    if name not in _INSTANCES:
        module, cls = _IMPLEMENTATIONS[name]
        _INSTANCES[name] = getattr(importlib.import_module(module), cls)()
    return _INSTANCES[name]


def for_graph(name, graph):
    """The backend for an algorithm on ``graph``: ``name``, or for None the GPU backend when
    the graph came from the GPU (cupyx sparse or CuPy arrays), the mpi backend of its
    communicator for a :class:`~gbgraph.distributed.DistributedGraph`, else the default.

    Parameters
    ----------
    name : str, Backend or None
        As in :func:`backend`.
    graph : Graph
        From :func:`gbgraph.as_graph`.

    Returns
    -------
    Backend

    Raises
    ------
    ValueError, ImportError
        as :func:`backend`.

    Examples
    --------
    >>> import numpy as np, gbgraph as gg
    >>> for_graph(None, gg.as_graph(np.ones((3, 3)))).name
    'numba'
    """
    if name is None and graph.container == "cupyx":
        name = "cupy"
    if name is None and hasattr(graph, "default_backend"):
        return graph.default_backend
    return backend(name)


def set_threads(count):
    """Use ``count`` CPU threads in SuiteSparse:GraphBLAS and in gbgraph's compiled kernels.

    Results do not depend on it (docs/determinism.md); times do.

    Parameters
    ----------
    count : int
        From 1 to the number of cores numba was started with (``numba.config.NUMBA_NUM_THREADS``).

    Returns
    -------
    int
        The previous count (GraphBLAS'), to restore it.

    Raises
    ------
    ValueError
        for a count outside that range.
    TypeError
        for a count that is not an integer (numpy integers are).

    Examples
    --------
    >>> import gbgraph as gg
    >>> before = gg.backends.set_threads(1)
    >>> gg.backends.set_threads(before)
    1
    """
    import graphblas
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    count = check_integer("count", count, 1, limit)
    before = graphblas.ss.config["nthreads"]
    graphblas.ss.config["nthreads"] = count
    numba.set_num_threads(count)
    return before

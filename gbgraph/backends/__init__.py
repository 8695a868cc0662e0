"""Backends: implementations of the GraphBLAS protocol of :mod:`gbgraph.backends.base`.

``suitesparse`` runs on the CPU through python-graphblas. Use :func:`backend` to get one by
name; each is created once and shared.
"""

import importlib

from .base import Backend

__all__ = ["Backend", "backend", "names"]

_IMPLEMENTATIONS = {"suitesparse": ("gbgraph.backends.suitesparse", "SuiteSparseBackend")}
_INSTANCES = {}


def names():
    """Names of the known backends."""
    return sorted(_IMPLEMENTATIONS)


def backend(name=None):
    """The backend called ``name`` (a :class:`Backend` is returned unchanged).

    Parameters
    ----------
    name : str, Backend or None
        ``"suitesparse"``; None gives the default, ``"suitesparse"``.

    Raises
    ------
    ValueError
        for an unknown name.

    Examples
    --------
    >>> import gbgraph as gg
    >>> gg.backend("suitesparse")
    <gbgraph backend 'suitesparse'>
    """
    if isinstance(name, Backend):
        return name
    name = "suitesparse" if name is None else name
    if name not in _IMPLEMENTATIONS:
        raise ValueError(f"unknown backend {name!r}; available: {', '.join(names())}")
    if name not in _INSTANCES:
        module, cls = _IMPLEMENTATIONS[name]
        _INSTANCES[name] = getattr(importlib.import_module(module), cls)()
    return _INSTANCES[name]

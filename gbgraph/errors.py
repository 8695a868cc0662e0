"""Exceptions raised by gbgraph."""

__all__ = ["GBGraphError", "InvalidGraphError", "UnsupportedGraphTypeError", "StallError"]


class GBGraphError(Exception):
    """Base class of every error gbgraph raises about its inputs or its progress."""


class InvalidGraphError(GBGraphError, ValueError):
    """The input is a matrix gbgraph understands, but not a valid graph (shape, symmetry)."""


class UnsupportedGraphTypeError(GBGraphError, TypeError):
    """The input is of a type gbgraph cannot read as a graph."""


class StallError(GBGraphError, RuntimeError):
    """An iterative algorithm reached ``max_iter`` with vertices still undecided."""

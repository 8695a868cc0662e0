"""User-defined operators, written once in restricted Python and compiled by every backend:
:mod:`gbgraph.backends.operators` under its public name (``from gbgraph.operators import
RowOperator``)."""

from .backends.operators import BinaryOp, IndexUnaryOp, Monoid, RowOperator, Semiring, TypingError, UnaryOp, local

__all__ = ["UnaryOp", "BinaryOp", "IndexUnaryOp", "Monoid", "Semiring", "RowOperator", "local", "TypingError"]

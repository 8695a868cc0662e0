"""Exceptions raised by gbgraph."""

__all__ = ["GBGraphError", "InvalidGraphError", "AsymmetricGraphError", "AsymmetricValuesError",
           "UnsupportedGraphTypeError", "StallError"]


class GBGraphError(Exception):
    """Base class of every error gbgraph raises about its inputs or its progress."""


class InvalidGraphError(GBGraphError, ValueError):
    """The input is a matrix gbgraph understands, but not a valid graph (shape, symmetry)."""


class AsymmetricGraphError(InvalidGraphError):
    """A square input whose pattern is not symmetric; the message says what to do about it.

    Attributes
    ----------
    name : str
        How the message refers to the input.
    one_way : int
        Off-diagonal entries (i, j) without an entry (j, i).
    stored : int
        Off-diagonal entries in all.
    remedy : str
        The advice that ends the message (the library's names :func:`gbgraph.symmetrize`,
        the command line's its ``--symmetrize`` option).
    """

    def __init__(self, name, one_way, stored, remedy):
        super().__init__(f"{name} does not have a symmetric pattern: {one_way:,} of its {stored:,} off-diagonal "
                         f"entries (i, j) have no (j, i); {remedy}")
        self.name, self.one_way, self.stored, self.remedy = name, one_way, stored, remedy

    def __reduce__(self):  # pickle through the fields, not the message alone
        return type(self), (self.name, self.one_way, self.stored, self.remedy)


class AsymmetricValuesError(InvalidGraphError):
    """A matrix whose values differ from their transpose where the computation needs them
    equal (coarse graphs, heavy edges, symmetric Gauss-Seidel); the message names the largest
    difference and what to do about it.

    Attributes
    ----------
    name : str
        How the message refers to the input.
    count : int
        Off-diagonal entries A[i, j] that differ from A[j, i] (both of a pair count).
    stored : int
        Off-diagonal entries in all.
    position : tuple of int
        (i, j) of the largest difference ``|A[i, j] - A[j, i]|``, i < j.
    values : tuple of float
        (A[i, j], A[j, i]) there (a missing entry reads 0).
    remedy : str
        Why the values must be symmetric there, and how to make them so.
    """

    def __init__(self, name, count, stored, position, values, remedy):
        (i, j), (a, b) = position, values
        super().__init__(f"{name} has asymmetric values: {count:,} of its {stored:,} off-diagonal entries A[i, j] "
                         f"differ from A[j, i]; the largest difference is |{name}[{i}, {j}] - {name}[{j}, {i}]| = "
                         f"|{a!r} - {b!r}| = {abs(a - b)!r}; {remedy}")
        self.name, self.count, self.stored, self.remedy = name, count, stored, remedy
        self.position, self.values = (i, j), (a, b)

    def __reduce__(self):  # pickle through the fields, not the message alone
        return type(self), (self.name, self.count, self.stored, self.position, self.values, self.remedy)


class UnsupportedGraphTypeError(GBGraphError, TypeError):
    """The input is of a type gbgraph cannot read as a graph."""


class StallError(GBGraphError, RuntimeError):
    """An iterative algorithm reached ``max_iter`` with vertices still undecided."""

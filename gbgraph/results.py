"""The results gbgraph's algorithms return.

A bottom module: it imports nothing of gbgraph's, so every layer (the algorithms, and the
native backend's whole-algorithm kernels, which return the same objects) can use it without
a backend importing an algorithm module.
"""

from dataclasses import dataclass

__all__ = ["MISResult", "ColoringResult", "Aggregation", "CoarseMapping"]


@dataclass(frozen=True)
class MISResult:
    """An independent set and the number of rounds that found it.

    Attributes
    ----------
    vertices : array or set
        Sorted int64 vertex ids (numpy on CPU backends, CuPy on the GPU), or the set of
        nodes for a networkx input.
    iterations : int
        Rounds of the main loop (Kokkos Kernels counts the same).
    """

    vertices: object
    iterations: int

    def __repr__(self):
        return f"MISResult(|vertices|={len(self.vertices):,}, iterations={self.iterations})"


@dataclass(frozen=True)
class ColoringResult:
    """A vertex coloring and the number of rounds that found it.

    Attributes
    ----------
    colors : array or dict
        int64 color of each vertex, ``0 .. n_colors - 1`` (numpy on CPU backends, CuPy on
        the GPU); for a networkx input, a dict node -> color.
    n_colors : int
        Number of colors used; every value below it occurs.
    iterations : int
        Semiring rounds: one per Jones-Plassmann round, or per MIS round for ``"mis"``; 1
        for ``"sequential"`` (one ordered first-fit pass).
    """

    colors: object
    n_colors: int
    iterations: int

    def __repr__(self):
        return f"ColoringResult(n={len(self.colors):,}, n_colors={self.n_colors}, iterations={self.iterations})"


@dataclass(frozen=True)
class Aggregation:
    """A partition of the vertices into aggregates.

    Attributes
    ----------
    labels : array or dict
        int64, length n: the aggregate of each vertex, ``0 .. n_aggregates - 1``; for a
        networkx input, a dict node -> aggregate.
    roots : array or set
        Sorted int64 ids of the roots, one in each aggregate (roots never move); for a
        networkx input, the set of root nodes.
    n_aggregates : int
    """

    labels: object
    roots: object
    n_aggregates: int

    def __repr__(self):
        return f"Aggregation(n={len(self.labels):,}, n_aggregates={self.n_aggregates:,})"


@dataclass(frozen=True)
class CoarseMapping:
    """The coarse vertex of every fine vertex.

    Attributes
    ----------
    labels : array
        int64, length n: the coarse vertex of each vertex, ``0 .. n_coarse - 1`` (numpy on
        the CPU, CuPy on the GPU); coarse vertices are numbered in the order of the vertex
        each one's pointers lead to (the MIS-2 aggregations: Kokkos Kernels' numbering).
    n_coarse : int
    method : str
    rounds : int or None
        Rounds of the mapping's synchronous loop (None for the MIS-2 aggregations).
    """

    labels: object
    n_coarse: int
    method: str
    rounds: object = None

    def __repr__(self):
        return f"CoarseMapping({self.method!r}, n={len(self.labels):,}, n_coarse={self.n_coarse:,})"

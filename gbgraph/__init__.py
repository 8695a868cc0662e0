"""gbgraph: graph algorithms for multilevel methods, written as GraphBLAS semiring algebra.

>>> import gbgraph as gg
>>> r = gg.mis2(gg.generators.laplace3d(50))
>>> len(r.vertices), r.iterations
(11469, 9)
"""

from . import datasets, generators, io, solvers, validate
from .algorithms.coloring import ColoringResult, color
from .algorithms.mis import MISResult, mis2
from .backends import Backend, backend
from .errors import GBGraphError, InvalidGraphError, StallError, UnsupportedGraphTypeError
from .graph import Graph, as_graph, symmetrize

__version__ = "0.1.0"

__all__ = [
    "Backend", "ColoringResult", "GBGraphError", "Graph", "InvalidGraphError", "MISResult", "StallError",
    "UnsupportedGraphTypeError", "as_graph", "backend", "color", "datasets", "generators", "io", "mis2",
    "solvers", "symmetrize", "validate",
]

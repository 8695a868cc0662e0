"""gbgraph: graph algorithms for multilevel methods, written as GraphBLAS semiring algebra.

>>> import gbgraph as gg
>>> r = gg.mis2(gg.generators.laplace3d(50))
>>> len(r.vertices), r.iterations
(11469, 9)
"""

from . import amg, datasets, distributed, generators, io, plot, solvers, validate
from .algorithms.aggregation import aggregate
from .algorithms.coarsen import Hierarchy, aggregation_operator, coarse_graph, coarsen
from .algorithms.coloring import color
from .algorithms.mapping import coarse_mapping
from .algorithms.mis import mis1, mis2, misk
from .algorithms.partition import PartitionResult, bisect, partition
from . import operators
from .backends import Backend, backend
from .errors import (AsymmetricGraphError, AsymmetricValuesError, GBGraphError, InvalidGraphError, StallError,
                     UnsupportedGraphTypeError)
from .graph import Graph, as_graph, symmetrize
from .results import Aggregation, CoarseMapping, ColoringResult, MISResult

__version__ = "0.1.0"

__all__ = [
    "Aggregation", "AsymmetricGraphError", "AsymmetricValuesError", "Backend", "CoarseMapping", "ColoringResult", "GBGraphError", "Graph", "Hierarchy", "InvalidGraphError",
    "MISResult", "PartitionResult", "StallError", "UnsupportedGraphTypeError", "aggregate", "aggregation_operator", "amg", "as_graph",
    "backend", "bisect", "coarse_graph", "coarse_mapping", "coarsen", "color", "datasets", "distributed", "generators", "io", "mis1", "mis2", "misk",
    "operators", "partition", "plot", "solvers", "symmetrize", "validate",
]

"""LAGraph's basic algorithms, written once against gbgraph's backend protocol.

Examples to import and to read: each function takes any graph (or a backend's own matrix)
and a ``backend=``, and its body is GraphBLAS verbs only, each with a comment in GraphBLAS
notation citing the LAGraph source or the paper it follows. They run unchanged on every
backend (``suitesparse``, ``numba``, ``cupy``, ``mpi``); docs/writing_algorithms.md explains
how to write one.

==============================  ===============================  ===============================
function                        LAGraph                          algebra per round
==============================  ===============================  ===============================
:func:`bfs`                     ``LAGr_BreadthFirstSearch``      ``q<¬pi> = q min.secondi A``
:func:`connected_components`    ``LAGr_ConnectedComponents``     ``mngp min= A min.second gp``
:func:`triangle_count`          ``LAGr_TriangleCount``           ``C<L> = L plus.pair L``
:func:`pagerank`                ``LAGr_PageRank``                ``r += Aᵀ plus.second (t ./ d)``
:func:`sssp`                    ``LAGraph_BF_basic``             ``d min= d min.plus A``
:func:`core_number`, kcore      ``LAGraph_KCore(_All)``          ``deg<deg> -= q plus.pair A``
==============================  ===============================  ===============================
"""

from .bfs import BFS_METHODS, BFSResult, bfs
from .components import connected_components
from .kcore import core_number, kcore
from .pagerank import PageRankResult, pagerank
from .sssp import sssp
from .triangles import TRIANGLE_METHODS, triangle_count

__all__ = ["BFSResult", "BFS_METHODS", "PageRankResult", "TRIANGLE_METHODS", "bfs", "connected_components",
           "core_number", "kcore", "pagerank", "sssp", "triangle_count"]

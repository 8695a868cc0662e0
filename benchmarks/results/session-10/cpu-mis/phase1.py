"""The state aggregation's second MIS-2 starts from, for the scripts of this folder."""
import scipy.sparse as sp

import gbgraph as gg
from gbgraph import backends
from gbgraph.algorithms import aggregation, mis
from gbgraph.hashing import packing_bits
from common import matrix


def candidates(spec):
    """The graph of ``spec`` (numba backend) and the vertices phase 1 of ``aggregate``
    leaves unaggregated: (backend, graph, bits, A + I, candidates)."""
    G = gg.as_graph(sp.csr_matrix(matrix(spec)))
    be = backends.for_graph("numba", G)
    n, bits = G.n, packing_bits(G.n)
    A = be.adjacency(G, closed=True)
    roots = mis._mis2(be, G, bits, n + 1).vertices
    labels = be.full(n, -1, "int64")
    reached = aggregation._grow(be, A, n, roots, 0)
    be.assign(labels, reached, mask=reached)  # label<reached> = reached
    return be, G, bits, A, be.select("valueeq", be.apply("lt", labels, right=0), True)

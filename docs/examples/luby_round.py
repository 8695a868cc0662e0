"""One round of Luby's maximal independent set algorithm, written with gbgraph's protocol.

Every undecided vertex draws a priority; those whose priority beats every undecided
neighbour join the set, and they and their neighbours leave the undecided set. The script
runs unchanged on any backend::

    python docs/examples/luby_round.py suitesparse
    python docs/examples/luby_round.py cupy
"""

import sys

import numpy as np

import gbgraph as gg
from gbgraph.hashing import xorshift_star


def luby_round(be, A, undecided, n):
    """Returns (joined, still undecided) after one round over the undecided vertices."""
    ids = be.indices(undecided)
    # w<undecided> = h(i): a deterministic priority per vertex (the project's hash)
    w = be.vector(ids, xorshift_star(ids, 64, be.xp).view(be.xp.int64) >> 1, n)
    # m<undecided> = A ⊕max.second w: the best undecided neighbour
    m = be.mxv("max_second", A, w, mask=undecided)
    # winners: undecided vertices beating every undecided neighbour (none: m absent)
    beats = be.ewise_add("gt", w, m, mask=undecided)
    joined = be.select("valueeq", beats, True)
    # gone = A ⊕any.pair joined: neighbours of the new members
    gone = be.mxv("any_pair", A, joined)
    # undecided<¬joined ∧ ¬gone> stays
    rest = be.select("valueeq", undecided, True, mask=joined, complement=True)
    return joined, be.select("valueeq", rest, True, mask=gone, complement=True)


def main(backend="suitesparse"):
    be = gg.backend(backend)
    graph = gg.as_graph(gg.generators.laplace3d(20), weights=False)
    A = be.adjacency(graph)
    joined, undecided = luby_round(be, A, be.full(graph.n, True, "bool"), graph.n)
    return np.asarray(be.indices(joined).tolist()), be.nvals(undecided)


if __name__ == "__main__":
    joined, left = main(*sys.argv[1:])
    print(f"{joined.size} vertices joined, {left} still undecided; first ids {joined[:8].tolist()}")

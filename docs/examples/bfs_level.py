"""Breadth-first search, one level at a time, with a complemented mask, in gbgraph's protocol.

``next<¬visited> = A ⊕any.pair frontier``: the complemented mask keeps already visited
vertices out. The script runs unchanged on any backend::

    python docs/examples/bfs_level.py suitesparse
    python docs/examples/bfs_level.py cupy
"""

import sys

import gbgraph as gg


def bfs_levels(be, A, source, n):
    """Level of every vertex reachable from ``source`` (-1 elsewhere) as a vector."""
    level = be.full(n, -1, "int64")
    frontier = be.vector(be.xp.asarray([source]), True, n)
    visited = be.vector(be.xp.asarray([source]), True, n)
    depth = 0
    while be.nvals(frontier):
        # level<frontier> = depth
        be.assign(level, depth, mask=frontier)
        # frontier<¬visited> = A ⊕any.pair frontier: the next level, visited vertices masked out
        frontier = be.mxv("any_pair", A, frontier, mask=visited, complement=True)
        # visited<frontier> = true
        visited = be.ewise_add("lor", visited, be.apply("one", frontier))
        depth += 1
    return level


def main(backend="suitesparse"):
    be = gg.backend(backend)
    graph = gg.as_graph(gg.generators.laplace3d(12, 10, 8), weights=False)
    level = bfs_levels(be, be.adjacency(graph), 0, graph.n)
    return be.values(level).tolist()


if __name__ == "__main__":
    levels = main(*sys.argv[1:])
    print(f"depth {max(levels)}, vertices per level {[levels.count(d) for d in range(max(levels) + 1)]}")

"""The algorithm calls that the backend-identity tests compare (test_identity: numba against
suitesparse; test_mpi: mpi against suitesparse): name -> call on (graph, backend) giving the
array that must agree."""

import gbgraph as gg

ALGORITHMS = {
    "mis2": lambda A, b: gg.mis2(A, backend=b).vertices,
    "mis2-fixed": lambda A, b: gg.mis2(A, "fixed", backend=b).vertices,
    "mis2-quality": lambda A, b: gg.mis2(A, "quality", backend=b).vertices,
    "mis1-degree": lambda A, b: gg.mis1(A, "degree", backend=b).vertices,
    "mis1-random": lambda A, b: gg.mis1(A, "random", backend=b).vertices,
    "misk-3": lambda A, b: gg.misk(A, 3, backend=b).vertices,
    "aggregate": lambda A, b: gg.aggregate(A, backend=b).labels,
    "aggregate-basic": lambda A, b: gg.aggregate(A, "mis2_basic", backend=b).labels,
    "greedy": lambda A, b: gg.color(A, backend=b).colors,
    "greedy-d2": lambda A, b: gg.color(A, distance=2, backend=b).colors,
    "jones_plassmann": lambda A, b: gg.color(A, "jones_plassmann", backend=b).colors,
    "jones_plassmann-d2": lambda A, b: gg.color(A, "jones_plassmann", distance=2, backend=b).colors,
    "hybrid": lambda A, b: gg.color(A, "hybrid", backend=b).colors,
    "mis-coloring": lambda A, b: gg.color(A, "mis", backend=b).colors,
}

"""Assertions on results, stated as the properties they must have."""

import numpy as np

import gbgraph as gg


def assert_is_mis(A, vertices, distance):
    vertices = np.asarray(vertices)
    assert vertices.dtype == np.int64
    assert np.all(np.diff(vertices) > 0), "vertices must be sorted and unique"
    assert gg.validate.is_independent(A, vertices, distance=distance), f"not distance-{distance} independent"
    assert gg.validate.is_maximal(A, vertices, distance=distance), f"not distance-{distance} maximal"


def assert_is_coloring(A, result, distance):
    colors = np.asarray(result.colors)
    assert colors.dtype == np.int64 and colors.shape == (gg.as_graph(A).n,)
    assert set(np.unique(colors).tolist()) == set(range(result.n_colors)), "colors must be 0..n_colors-1"
    assert gg.validate.is_coloring(A, colors, distance=distance), f"not a distance-{distance} coloring"

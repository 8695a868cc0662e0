"""Assertions on results, stated as the properties they must have."""

import numpy as np

import gbgraph as gg


def assert_is_mis(A, vertices, distance):
    vertices = np.asarray(vertices)
    assert vertices.dtype == np.int64
    assert np.all(np.diff(vertices) > 0), "vertices must be sorted and unique"
    assert gg.validate.is_independent(A, vertices, distance=distance), f"not distance-{distance} independent"
    assert gg.validate.is_maximal(A, vertices, distance=distance), f"not distance-{distance} maximal"

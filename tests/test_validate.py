import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import gbgraph as gg

from reference import within_distance
from strategies import graphs


@given(graphs(), st.data(), st.integers(1, 3))
def test_agrees_with_shortest_paths(A, data, k):
    n = A.shape[0]
    S = np.asarray(data.draw(st.lists(st.integers(0, n - 1), unique=True)), np.int64)
    near = within_distance(A, k)
    member = np.zeros(n, bool)
    member[S] = True
    independent = not near[np.ix_(member, member)].any()
    maximal = bool(np.all(member | near[:, member].any(axis=1)))
    assert gg.validate.is_independent(A, S, distance=k) == independent
    assert gg.validate.is_maximal(A, S, distance=k) == maximal
    assert gg.validate.is_mis(A, member, distance=k) == (independent and maximal)


def test_empty_graph_and_empty_set():
    assert gg.validate.is_mis(np.zeros((0, 0)), [], distance=2)
    assert gg.validate.is_independent(np.zeros((3, 3)), [], distance=1)
    assert not gg.validate.is_maximal(np.zeros((3, 3)), [], distance=1)


@pytest.mark.parametrize("S", [[0, 5], [-1], [0.5]])
def test_bad_ids(S):
    with pytest.raises(ValueError, match="vertex ids in 0..3"):
        gg.validate.is_independent(np.zeros((4, 4)), np.array(S))


def test_bad_mask_and_distance():
    with pytest.raises(ValueError, match=r"shape \(4,\)"):
        gg.validate.is_maximal(np.zeros((4, 4)), np.zeros(3, bool))
    with pytest.raises(ValueError, match="distance must be a positive integer, got 0"):
        gg.validate.is_mis(np.zeros((4, 4)), [0], distance=0)
    with pytest.raises(TypeError, match=r"distance must be an integer, got 1.0 \(float\)"):
        gg.validate.is_coloring(np.zeros((4, 4)), [0] * 4, distance=1.0)


@given(graphs(), st.data(), st.integers(1, 3))
def test_is_coloring_agrees_with_shortest_paths(A, data, k):
    n = A.shape[0]
    colors = np.asarray(data.draw(st.lists(st.integers(0, 4), min_size=n, max_size=n)), np.int64)
    near = within_distance(A, k)
    assert gg.validate.is_coloring(A, colors, distance=k) == (not np.any(near & (colors[:, None] == colors)))


@pytest.mark.parametrize(("colors", "message"), [
    ([0, 1], r"shape \(3,\)"), ([0.0, 1.0, 0.0], "integer"), ([0, -1, 2], "vertex 1 has color -1"),
])
def test_is_coloring_rejects_malformed_colors(colors, message):
    with pytest.raises(ValueError, match=message):
        gg.validate.is_coloring(np.ones((3, 3)), colors)


def test_is_coloring_rejects_bad_distance():
    with pytest.raises(ValueError, match="distance must be a positive integer, got 0"):
        gg.validate.is_coloring(np.ones((3, 3)), [0, 1, 2], distance=0)

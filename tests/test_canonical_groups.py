"""The symmetry check of rows that come in groups (consecutive rows with the same columns:
block matrices, several unknowns a node), against scipy's transpose."""

import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.backends.numba.kernels import canonical
from test_graph import row_passes  # noqa: F401 (the fixture: the pass serial, and parallel in two parts)


def _blocks(sizes, density, diagonal, seed):
    """A symmetric block pattern: groups of the given sizes, a random symmetric pattern of
    the groups blown up, with the diagonal blocks stored (``diagonal``) or empty."""
    rng = np.random.default_rng(seed)
    m = len(sizes)
    Q = sp.random_array((m, m), density=density, rng=rng, format="csr")
    Q = ((Q + Q.T) != 0).astype(np.float64).tolil()
    Q.setdiag(1.0 if diagonal else 0.0)
    Q = sp.csr_array(Q)
    Q.eliminate_zeros()
    starts = np.concatenate([[0], np.cumsum(sizes)])
    member = np.repeat(np.arange(m), sizes)  # each row's group
    rows, cols = [], []
    coo = Q.tocoo()
    for g, h in zip(coo.row, coo.col):
        r, c = np.meshgrid(np.arange(starts[g], starts[g + 1]), np.arange(starts[h], starts[h + 1]), indexing="ij")
        rows.append(r.ravel())
        cols.append(c.ravel())
    n = starts[-1]
    rows, cols = np.concatenate(rows), np.concatenate(cols)
    A = sp.csr_array((rng.uniform(1, 2, rows.size), (rows, cols)), shape=(n, n))
    A.sort_indices()
    return A, member


def _changed(A, change, rng):
    """A with one entry removed, a symmetric pair removed, one entry added or a pair added."""
    L = A.tolil()
    coo = A.tocoo()
    k = rng.integers(coo.nnz)
    i, j = coo.row[k], coo.col[k]
    if change == "remove one":
        L[i, j] = 0
    elif change == "remove pair":
        L[i, j] = L[j, i] = 0
    else:
        i, j = rng.integers(A.shape[0], size=2)
        L[i, j] = 1.0
        if change == "add pair":
            L[j, i] = 1.0
    B = sp.csr_array(L)
    B.eliminate_zeros()
    B.sort_indices()
    return B


def _symmetric(A):
    P = (A != 0).astype(np.int8)
    return abs(P - P.T).nnz == 0


@pytest.mark.parametrize("diagonal", [True, False])
@pytest.mark.parametrize("sizes", ["3", "2 and 4", "1 to 5"])
def test_grouped_rows_are_grouped_and_symmetric(row_passes, sizes, diagonal):
    rng = np.random.default_rng(3)
    m = 700
    group_sizes = {"3": np.full(m, 3), "2 and 4": rng.choice([2, 4], m), "1 to 5": rng.integers(1, 6, m)}[sizes]
    A, member = _blocks(group_sizes, 0.01, diagonal, seed=5)
    groups = canonical._row_groups(A.indptr, A.indices)
    assert groups is not None
    starts = np.flatnonzero(groups[:-1])
    assert starts.size <= m  # groups of equal rows next to each other merge; none split
    assert set(np.flatnonzero(np.diff(member)) + 1) <= set(starts)
    for closed in (False, True):
        assert canonical.scan_rows(A.indptr, A.indices, None, closed)[2]


@pytest.mark.parametrize("change", ["remove one", "remove pair", "add one", "add pair"])
@pytest.mark.parametrize("diagonal", [True, False])
def test_grouped_rows_changed_match_scipy(row_passes, change, diagonal):
    """One entry or pair changed breaks groups or the symmetry: the verdict is scipy's, and
    as_graph's arrays or its error are those of the ungrouped pattern."""
    rng = np.random.default_rng(11)
    A, _ = _blocks(rng.integers(1, 5, 300), 0.03, diagonal, seed=7)
    for _ in range(6):
        B = _changed(A, change, rng)
        truth = _symmetric(B)
        for closed in (False, True):
            assert canonical.scan_rows(B.indptr, B.indices, None, closed)[2] == truth
        if truth:
            G = gg.as_graph(B)
            coo = B.tocoo()
            off = coo.row != coo.col
            expected = sp.csr_array((coo.data[off], (coo.row[off], coo.col[off])), shape=B.shape)
            expected.sort_indices()
            np.testing.assert_array_equal(G.indptr, expected.indptr)
            np.testing.assert_array_equal(G.indices, expected.indices)
            np.testing.assert_array_equal(G.weights, expected.data)
        else:
            with pytest.raises(gg.errors.AsymmetricGraphError):
                gg.as_graph(B)


def test_first_rows_grouped_later_ones_not(row_passes):
    """Groups decided on the first rows and then absent: the check stays scipy's."""
    rng = np.random.default_rng(2)
    A, _ = _blocks(np.concatenate([np.full(600, 3), np.ones(3000, int)]), 0.002, True, seed=1)
    assert canonical._row_groups(A.indptr, A.indices) is not None
    assert canonical.scan_rows(A.indptr, A.indices, None, True)[2]
    for change in ("remove one", "add one"):
        B = _changed(A, change, rng)
        assert canonical.scan_rows(B.indptr, B.indices, None, True)[2] == _symmetric(B)


def test_ungrouped_rows_are_not_grouped():
    A = sp.csr_array(gg.generators.laplace3d(12))
    assert canonical._row_groups(A.indptr, A.indices) is None

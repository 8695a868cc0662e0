"""Hypothesis strategies for small undirected graphs of every shape that matters."""

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st


def _symmetric(n, rows, cols):
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    A = sp.coo_array((np.ones(rows.size), (rows, cols)), shape=(n, n)).tocsr()
    A = ((A + A.T) > 0).astype(np.float64)
    A.setdiag(0)
    A.eliminate_zeros()
    return sp.csr_array(A)


@st.composite
def random_graphs(draw, max_n=40, min_n=1):
    n = draw(st.integers(min_n, max_n))
    edges = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=3 * n))
    return _symmetric(n, [e[0] for e in edges], [e[1] for e in edges])


@st.composite
def structured_graphs(draw, max_n=40):
    n = draw(st.integers(1, max_n))
    kind = draw(st.sampled_from(["isolated", "star", "clique", "path", "cycle"]))
    ids = np.arange(n)
    if kind == "isolated":
        return _symmetric(n, [], [])
    if kind == "star":
        return _symmetric(n, np.zeros(n - 1, np.int64), ids[1:])
    if kind == "clique":
        r, c = np.triu_indices(n, 1)
        return _symmetric(n, r, c)
    if kind == "path":
        return _symmetric(n, ids[:-1], ids[1:])
    return _symmetric(n, ids, (ids + 1) % n)


@st.composite
def many_components(draw):
    """Disjoint union of several graphs plus isolated vertices, with shuffled vertex ids."""
    parts = draw(st.lists(st.one_of(random_graphs(12), structured_graphs(12)), min_size=2, max_size=6))
    A = sp.block_diag(parts + [sp.csr_array((draw(st.integers(0, 5)),) * 2)], format="csr")
    perm = np.asarray(draw(st.permutations(range(A.shape[0]))), np.int64)
    return sp.csr_array(A[perm][:, perm])


def graphs():
    return st.one_of(random_graphs(), structured_graphs(), many_components())

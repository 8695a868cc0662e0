"""Multilevel spectral bisection: the Fiedler vector by a cascade of power iterations.

Gilbert et al.'s spectral partitioner (section III-C of [1]_, after Urschel et al.'s
cascadic multigrid [2]_): the Fiedler vector of the coarsest graph (its Laplacian's
eigenvector of the second smallest eigenvalue, for the vertex weights M: ``L y = λ M y``),
interpolated to each finer level by the coarse mapping (``x = P x_c``) and improved there by
power iteration on the shifted operator ``g I - M⁻¹ L``, with the constant vector deflated
(cmg's ``g = max(2 · max d/m, 2)``), until successive iterates differ by less than 1e-10 in
2-norm (the paper's criterion) or :data:`MAX_ITER` iterations. The finest vector is split at
the weighted median: vertices in increasing order of their entry go to side 0 until it
reaches its target weight.

Every step is a product or an element-wise operation on the backend, so the iterations run
on the GPU for GPU input; the coarsest eigenproblem (about 50 vertices) is solved densely on
the host.

References
----------
.. [1] M. S. Gilbert, S. Acer, E. G. Boman, K. Madduri and S. Rajamanickam,
   "Performance-portable graph coarsening for efficient multilevel graph analysis,"
   IPDPS 2021, section III-C. https://doi.org/10.1109/IPDPS49936.2021.00030
.. [2] J. C. Urschel, J. Xu, X. Hu and L. T. Zikatanov, "A cascadic multigrid algorithm for
   computing the Fiedler vector of graph Laplacians," J. Comput. Math. 33(2), 2015,
   pp. 209-226. https://doi.org/10.4208/jcm.1412-m2014-0041
"""

import time

import numpy as np
import scipy.sparse as sp

from ..backends.partition_forms import lightest_prefix
from ..hashing import Packing
from .partition import project

__all__ = ["spectral_levels", "TOLERANCE", "MAX_ITER"]

#: Power iteration stops when successive iterates differ by less than this (2-norm).
TOLERANCE = 1e-10
#: Power iterations per level at most.
MAX_ITER = 200


def spectral_levels(be, h, weights, bounds, targets, seed, seconds):
    """Sides (int8 array of ``be.xp``) of the multilevel spectral bisection."""
    start = time.perf_counter()
    x = be.xp.asarray(_coarsest_fiedler(h[-1], weights[-1]))
    seconds["initial"] += time.perf_counter() - start
    start = time.perf_counter()
    for i in range(len(h) - 2, -1, -1):
        x = _power_iteration(be, h[i], weights[i], project(be, x, h[i].labels))
    sides = _median_split(be, h[0], weights[0], x, targets[0], seed)
    seconds["refine"] += time.perf_counter() - start
    return sides


def _coarsest_fiedler(level, vertex_weights):
    """The generalized Fiedler vector ``L y = λ M y`` of a small graph, dense, on the host;
    its sign fixed so that its largest entry in magnitude (the first of those) is positive."""
    graph = level.graph.on_device_of(np)
    n = graph.n
    m = np.maximum(_host(vertex_weights).astype(np.float64), 1e-12)
    if n < 2:
        return np.zeros(n)
    W = sp.csr_array((np.ones(graph.nnz) if graph.weights is None else graph.weights.astype(np.float64),
                      graph.indices, graph.indptr), shape=(n, n)).toarray()
    L = np.diag(W.sum(axis=1)) - W
    scale = 1.0 / np.sqrt(m)
    _, vectors = np.linalg.eigh(scale[:, None] * L * scale[None, :])  # M^-1/2 L M^-1/2 z = λ z
    y = scale * vectors[:, 1]
    return y if y[np.argmax(np.abs(y))] > 0 else -y


def _host(x):
    return x.get() if hasattr(x, "__cuda_array_interface__") else np.asarray(x)


def _power_iteration(be, level, vertex_weights, x0):
    """Power iteration on ``g I - M⁻¹ L`` from x0, the constant vector deflated in the M inner
    product, iterates normalised in the M norm."""
    xp, n = be.xp, level.n
    ids = xp.arange(n, dtype=xp.int64)
    A = be.adjacency(level.graph, weighted=True)
    zero = be.full(n, 0.0, "float64")
    m = be.apply("max", be.vector(ids, vertex_weights.astype(xp.float64), n), right=1e-12)  # M, kept invertible
    m_inv = be.vector(ids, 1.0 / be.values(m), n)  # M⁻¹ (a diagonal: its entries' reciprocals)
    d = be.ewise_add("plus", zero, be.reduce_rows(A, "plus"))  # d(i) = Σ_j A(i, j)
    g = max(2.0 * float(be.reduce(be.ewise_mult("times", d, m_inv), "max") or 0.0), 2.0)  # cmg's shift
    mass = float(be.reduce(m, "plus"))  # 1ᵀ M 1
    x = _normalised(be, m, mass, be.vector(ids, x0.astype(xp.float64), n))
    for _ in range(MAX_ITER):
        Ax = be.ewise_add("plus", zero, be.mxv("plus_times", A, x))  # A ⊕plus.times x
        Lx = be.ewise_add("minus", be.ewise_mult("times", d, x), Ax)  # L x = d x - A x
        z = be.ewise_add("minus", be.apply("times", x, right=g), be.ewise_mult("times", Lx, m_inv))  # (g I - M⁻¹L) x
        z = _normalised(be, m, mass, z)
        step = be.ewise_add("minus", z, x)  # z - x
        x = z
        if float(be.reduce(be.ewise_mult("times", step, step), "plus")) ** 0.5 < TOLERANCE:  # ‖z - x‖₂
            break
    return be.values(x)


def _normalised(be, m, mass, z):
    """z minus its M-weighted mean (the constant vector deflated), scaled to M-norm 1."""
    mean = float(be.reduce(be.ewise_mult("times", m, z), "plus")) / mass  # 1ᵀM z / 1ᵀM 1
    z = be.apply("minus", z, right=mean)  # z - mean
    norm = float(be.reduce(be.ewise_mult("times", m, be.ewise_mult("times", z, z)), "plus")) ** 0.5  # √(zᵀ M z)
    return be.apply("times", z, right=1.0 / norm) if norm > 0 else z  # z / ‖z‖_M


def _median_split(be, level, vertex_weights, x, target0, seed):
    """Side 0: the vertices of smallest entries (ties: larger hash key first) until their
    weight reaches ``target0``; side 1: the rest."""
    xp, n = be.xp, level.n
    ids = xp.arange(n, dtype=xp.int64)
    keys = be.vector(ids, Packing(n, 64, xp)(ids, seed), n)
    w = be.vector(ids, vertex_weights, n)
    first = lightest_prefix(be, be.vector(ids, x, n), w, keys, mask=be.full(n, True, "bool"), amount=target0)
    side0 = be.vector(be.indices(first), xp.int64(0), n)
    return be.values(be.ewise_add("second", be.full(n, 1, "int64"), side0)).astype(xp.int8)  # 1, 0 on side 0

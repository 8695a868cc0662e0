"""What the GPU test modules (cupy and native backends) share: the grids they compare the CPU
with, moving a graph to the device, and the aggregation comparison."""

import numpy as np
import pytest
import scipy.sparse as sp

import gbgraph as gg
from gbgraph.generators import elasticity3d, laplace3d

GRIDS = [pytest.param(lambda: laplace3d(30, 20, 10), id="laplace-30x20x10"),
         pytest.param(lambda: elasticity3d(10, 8, 6), id="elasticity-10x8x6"),
         pytest.param(lambda: gg.datasets.load("fe_4elt2"), id="fe_4elt2")]


def cupyx_matrix(A):
    """A (anything scipy reads as sparse) as a cupyx CSR matrix."""
    import cupyx.scipy.sparse

    return cupyx.scipy.sparse.csr_matrix(sp.csr_matrix(A))


def assert_same_aggregation(A, backend=None):
    """Both aggregation methods on the device (``backend`` None: cupy's, or "native") give the
    CPU's labels, roots and count."""
    for method in ("mis2", "mis2_basic"):
        cpu, device = gg.aggregate(A, method, backend="numba"), gg.aggregate(cupyx_matrix(A), method, backend=backend)
        np.testing.assert_array_equal(device.labels.get(), cpu.labels)
        np.testing.assert_array_equal(device.roots.get(), cpu.roots)
        assert device.n_aggregates == cpu.n_aggregates

"""A Lanczos step's product with its element-wise work, in one pass over the matrix.

``w = diag(s) A diag(s) v - β p``, as numpy and scipy compute it in separate passes
(``s * v``, scipy's CSR product ``A @ x``, ``w *= s``, ``w -= β * p``): each row's sum
starts at 0 and adds its entries' products in stored order, as scipy's ``csr_matvec`` does,
and every element-wise operation is the same, so ``w`` is the same bit for bit. Each row is
one thread's, so the result does not depend on the number of threads.
"""

import numba

from .threads import parallel_above

__all__ = ["scaled_product"]


@parallel_above(lambda indptr: int(indptr[-1]), "indptr")
@numba.njit(cache=True, parallel=True)
def scaled_product(indptr, indices, data, scale, v, beta, previous, w):
    """``w = diag(scale) A diag(scale) v - beta previous`` for the CSR ``A``.

    Parameters
    ----------
    indptr, indices, data : numpy arrays
        A's CSR arrays, float64 values.
    scale, v, previous, w : numpy arrays
        Of A's rows, float64; ``w`` is written.
    beta : float

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> A = sp.csr_array(np.array([[2.0, -1.0], [-1.0, 2.0]]))
    >>> w = np.empty(2)
    >>> scaled_product(A.indptr, A.indices, A.data, np.ones(2), np.array([1.0, 0.0]), 0.5, np.ones(2), w)
    >>> w
    array([ 1.5, -1.5])
    """
    for i in numba.prange(indptr.size - 1):
        total = 0.0
        for jj in range(indptr[i], indptr[i + 1]):
            j = indices[jj]
            total += data[jj] * (scale[j] * v[j])
        w[i] = total * scale[i] - beta * previous[i]

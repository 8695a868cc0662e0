"""The fused verb of the partitioner's parallel refinement (its GraphBLAS form is in
backends/partition_forms.py): ``ranked_rows``, the product over the entries ranked above
their row, in one pass over each row instead of a row extraction, a comparison of every
entry and a bincount."""

import numba
import numpy as np

from .threads import parallel_above, row_work

__all__ = ["ranked_rows"]


@parallel_above(row_work, "indptr", "rows")
@numba.njit(cache=True, parallel=True)
def ranked_rows(indptr, indices, weights, weighted, u, rank, keys, rows):
    """``Σ_j A(r, j) u[j]`` over the j with ``(rank[j], keys[j]) > (rank[r], keys[r])``, for
    each r of ``rows``, summed in column order from 0.0 (as the form's bincount does)."""
    out = np.zeros(rows.size, np.float64)
    for k in numba.prange(rows.size):
        r = rows[k]
        acc = 0.0
        for p in range(indptr[r], indptr[r + 1]):
            j = indices[p]
            if rank[j] > rank[r] or (rank[j] == rank[r] and keys[j] > keys[r]):
                acc += (np.float64(weights[p]) if weighted else 1.0) * u[j]
        out[k] = acc
    return out

"""The GraphBLAS forms of the protocol's fused verbs (:mod:`gbgraph.backends.base`).

Each function computes a fused verb with the backend's own GraphBLAS verbs, and array code
of its ``xp`` where the GraphBLAS API has no operation (bit shifts, a sort). Every backend
inherits them; the numba and cupy backends run the common cases as kernels of their own,
and the tests check that both agree.
"""

import numpy as np

__all__ = ["better_group"]

_LOW32 = np.uint64(0xFFFFFFFF)


def better_group(be, A, labels, rooted, sizes, mask, limit):
    """:meth:`~gbgraph.backends.base.Backend.better_group`: ``C = A(mask, :) ⊕plus.second P``
    with P's entries packed ``rooted << 32 | 1``, ``F = A(mask, :) ⊕min.secondi P`` (the first
    neighbour in each group), the ``limit`` applied to the rows it affects, two row-wise
    max-reductions of packed keys over the other groups, and the comparison with the
    incumbent ``C(i, labels(i))``."""
    xp = be.xp
    n = labels.size
    rows = be.indices(mask)
    label = xp.full(n, -1, xp.int64)
    label[be.indices(labels)] = be.values(labels)
    is_root = xp.zeros(n, bool)
    is_root[be.indices(rooted)] = True
    size = be.values(sizes)
    R = be.extract(A, rows)  # R = A(rows, :)
    member = xp.flatnonzero(label >= 0)
    pointer = xp.zeros(n + 1, dtype=xp.int64)
    pointer[1:] = xp.cumsum(label >= 0)
    P = be.matrix(pointer, label[member], ncols=size.size,
                  values=is_root[member].astype(xp.uint64) << np.uint64(32) | np.uint64(1))
    c_indptr, cols, coupling = be.to_csr(be.mxm("plus_second", R, P))  # C = R ⊕plus.second P
    first = be.to_csr(be.mxm("min_secondi", R, P))[2].astype(xp.int64)  # F = R ⊕min.secondi P
    owner = xp.repeat(rows, xp.diff(c_indptr))
    coupling = coupling.astype(xp.uint64)
    candidate = cols != label[owner]
    own_key = xp.zeros(n, xp.uint64)  # the incumbent: C(i, labels(i)), 0 where unlabelled
    own_key[owner[~candidate]] = coupling[~candidate]
    if limit is not None:
        candidate, coupling = _track_at_most(be, R, rows, label, is_root, owner, cols, candidate, coupling, first, limit)
    best_key, seen_at = _best_of(be, n, owner, cols, coupling, first, candidate, size)
    best = label[seen_at]
    own_size = xp.where(label >= 0, size[xp.maximum(label, 0)], 0)
    key, incumbent = best_key[rows], own_key[rows]
    moves = (key > incumbent) | ((key == incumbent) & (key > 0) & (size[xp.maximum(best[rows], 0)] < own_size[rows]))
    chosen = rows[moves]
    return be.vector(chosen, best[chosen], n, copy=False)


def _track_at_most(be, R, rows, label, is_root, owner, cols, candidate, coupling, first, limit):
    """The ``limit``-group scan for the rows that meet more groups: each stops reading at
    the first neighbour of its (limit + 1)-th group; later neighbours count for nothing and
    later groups are not considered. Returns the candidate mask and couplings with that
    applied."""
    xp = be.xp
    n = label.size
    seen = xp.bincount(owner[candidate], minlength=n)
    crowded = xp.flatnonzero(seen > limit)
    if crowded.size == 0:
        return candidate, coupling
    # stop(i) = the first-seen position of i's (limit + 1)-th group
    local = candidate & (seen[owner] > limit)
    order = xp.lexsort(xp.stack((first[local], owner[local])))
    r, f = owner[local][order], first[local][order]
    extra = (xp.arange(r.size) - xp.searchsorted(r, r)) == limit
    stop = xp.full(n, n, dtype=xp.int64)
    stop[r[extra]] = f[extra]
    kept = local & (first < stop[owner])
    # the couplings over the neighbours the crowded rows read before their stop
    r_indptr, j, _ = be.to_csr(be.extract(R, xp.searchsorted(rows, crowded)))
    reader = xp.repeat(crowded, xp.diff(r_indptr))
    read = (j < stop[reader]) & (label[j] >= 0)
    reader, j = reader[read], j[read]
    keys, counts = xp.unique(reader * n + label[j], return_counts=True)
    packed = counts.astype(xp.uint64)
    rooted_keys = reader[is_root[j]] * n + label[j[is_root[j]]]
    packed[xp.searchsorted(keys, rooted_keys)] |= np.uint64(1) << np.uint64(32)
    coupling = coupling.copy()
    coupling[kept] = packed[xp.searchsorted(keys, owner[kept] * n + cols[kept])]
    return candidate & ~(local & ~kept), coupling


def _best_of(be, n, owner, cols, coupling, first, candidate, size):
    """Per row, the best candidate's packed key and its first-seen neighbour: largest key,
    then smallest size, then first seen: two max-reductions of packed keys, the second over
    the entries reaching the first's maximum, with key ``(largest size - size) << 32 |
    (n - 1 - first)``."""
    xp = be.xp
    indptr = xp.zeros(n + 1, dtype=xp.int64)
    indptr[1:] = xp.cumsum(xp.bincount(owner, minlength=n))
    key = xp.where(candidate, coupling, np.uint64(0))
    best = _row_max(be, indptr, cols, key, n, int(size.size))
    top = candidate & (key == best[owner])
    biggest = np.uint64(int(size.max()) if size.size else 0)
    tie = xp.where(top, (biggest - size[cols].astype(xp.uint64)) << np.uint64(32)
                   | (np.uint64(n - 1) - first.astype(xp.uint64)), np.uint64(0))
    seen_at = (n - 1) - (_row_max(be, indptr, cols, tie, n, int(size.size)) & _LOW32).astype(xp.int64)
    return best, xp.where(best > 0, seen_at, 0)


def _row_max(be, indptr, cols, values, n, ncols):
    """``m(i) = max_j K(i, j)`` for the matrix K with the given CSR (0 for empty rows)."""
    xp = be.xp
    m = be.reduce_rows(be.matrix(indptr, cols, ncols=ncols, values=values), "max")  # m = K ⊕max.reduce_rows
    out = xp.zeros(n, dtype=values.dtype)
    out[be.indices(m)] = be.values(m)
    return out


def _stable_argsort(xp, x):
    """A stable argsort on numpy or CuPy (whose sorts are all stable and take no ``kind``)."""
    return xp.argsort(x, kind="stable") if xp.__name__ == "numpy" else xp.argsort(x)

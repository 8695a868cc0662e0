// Phase 3 of MIS-2 aggregation: each row's best neighbouring group, one thread per row,
// with at most SLOTS groups tracked as Kokkos Kernels does (the CPU's kernel is
// backends/numba/kernels/aggregation.py; the GraphBLAS form is in backends/forms.py).
#pragma once

namespace gbgraph {

// The best neighbouring group of row i and its key: over its neighbours j in column order
// with label[j] >= 0 and label[j] != label[i], group g scores (rooted << 32 | count); the
// best has the largest key, then the smallest size[g], then the earliest slot. The scan
// stops at the first neighbour of a group beyond the first SLOTS. (-1, 0) where no group
// qualifies.
template <int SLOTS, typename O, typename I>
__device__ __forceinline__ long long best_group_of(long long i, const O* indptr, const I* indices,
                                                   const long long* label, const bool* is_root, const long long* size,
                                                   unsigned long long* key)
{
    const long long own = label[i];
    long long group[SLOTS];
    unsigned long long score[SLOTS];
    int m = 0;
    for (O p = indptr[i]; p < indptr[i + 1]; ++p) {
        const long long j = indices[p], g = label[j];
        if (g < 0 || g == own) continue;
        int s = 0;
        while (s < m && group[s] != g) ++s;
        if (s == m) {
            if (m == SLOTS) break;
            group[m] = g;
            score[m] = 0;
            ++m;
        }
        score[s] += 1;
        if (is_root[j]) score[s] |= 1ULL << 32;
    }
    int chosen = -1;
    for (int s = 0; s < m; ++s)
        if (chosen < 0 || score[s] > score[chosen] || (score[s] == score[chosen] && size[group[s]] < size[group[chosen]]))
            chosen = s;
    *key = chosen < 0 ? 0ULL : score[chosen];
    return chosen < 0 ? -1 : group[chosen];
}

// best[k], key[k]: best_group_of row rows[k]
template <int SLOTS, typename I>
__global__ void best_group(const long long* rows, long long count, const long long* indptr, const I* indices,
                           const long long* label, const bool* is_root, const long long* size, long long* best,
                           unsigned long long* key)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x)
        best[k] = best_group_of<SLOTS>(rows[k], indptr, indices, label, is_root, size, &key[k]);
}

}  // namespace gbgraph

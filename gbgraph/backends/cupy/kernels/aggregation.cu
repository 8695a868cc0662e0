// Phase 3 of MIS-2 aggregation for the native backend's whole-algorithm kernel
// (backends/native/kernels/aggregate.cu): the neighbouring group a row moves to, with at
// most SLOTS groups tracked as Kokkos Kernels does. The other backends run the same rule as
// the row operator gbgraph.algorithms.aggregation.BETTER_GROUP.
#pragma once

namespace gbgraph {

// The group row i moves to, or -1: over its neighbours j in column order with label[j] >= 0,
// group g scores (rooted << 32 | count). The row's own group label[i] is counted over the
// whole row (key 0 when unlabelled); among the others the best has the largest key, then
// the smallest size[g], then the earliest slot, and the scan of other groups stops at the
// first neighbour of a group beyond the first SLOTS. The row moves if the best beats its
// own key, or equals it with a strictly smaller size.
template <int SLOTS, typename O, typename I>
__device__ __forceinline__ long long better_group_of(long long i, const O* indptr, const I* indices,
                                                     const long long* label, const bool* is_root,
                                                     const long long* size)
{
    const unsigned long long rooted = 1ULL << 32;
    const long long own = label[i];
    long long group[SLOTS];
    unsigned long long score[SLOTS];
    unsigned long long own_score = 0;
    int m = 0;
    bool stopped = false;
    for (O p = indptr[i]; p < indptr[i + 1]; ++p) {
        const long long j = indices[p], g = label[j];
        if (g < 0) continue;
        if (g == own) {
            own_score += 1;
            if (is_root[j]) own_score |= rooted;
            continue;
        }
        if (stopped) continue;
        int s = 0;
        while (s < m && group[s] != g) ++s;
        if (s == m) {
            if (m == SLOTS) {
                stopped = true;
                continue;
            }
            group[m] = g;
            score[m] = 0;
            ++m;
        }
        score[s] += 1;
        if (is_root[j]) score[s] |= rooted;
    }
    int chosen = -1;
    for (int s = 0; s < m; ++s)
        if (chosen < 0 || score[s] > score[chosen] || (score[s] == score[chosen] && size[group[s]] < size[group[chosen]]))
            chosen = s;
    if (chosen < 0) return -1;
    const bool beats = score[chosen] > own_score ||
                       (score[chosen] == own_score && own >= 0 && size[group[chosen]] < size[own]);
    return beats ? group[chosen] : -1;
}

}  // namespace gbgraph

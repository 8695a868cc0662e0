// MIS-2 aggregation's phases after each MIS-2 (Kokkos Kernels' graph_mis2_aggregate and
// graph_mis2_coarsen; the algebraic reference is gbgraph/algorithms/aggregation.py): one
// pass per phase, each a gather over closed neighbourhoods, the aggregate sizes counted
// as the labels are written (integer atomics: one result in any order).
#pragma once
#include "aggregation.cu"
#include "worklist.cuh"

namespace gbgraph {
namespace native {

// rank[roots[k]] = k: the aggregate of each primary root, in ascending id
__global__ void number_roots(const long long* __restrict__ roots, const long long count, long long* rank)
{
    for (long long k = first_thread(); k < count; k += thread_stride()) rank[roots[k]] = k;
}

// Alg.3 l.4-6: aggregate k is root k and its neighbours; a distance-2 independent set
// leaves at most one root per closed neighbourhood.
template <typename S, typename O, typename I>
__global__ void grow_roots(const long long n, const O* __restrict__ indptr, const I* __restrict__ indices,
                           const S* __restrict__ T, const S in, const long long* __restrict__ rank, long long* label,
                           bool* is_root, long long* size)
{
    for (long long v = first_thread(); v < n; v += thread_stride()) {
        long long root = T[v] == in ? v : -1;
        for (O p = indptr[v]; p < indptr[v + 1] && root < 0; ++p)
            if (T[indices[p]] == in) root = indices[p];
        const long long l = root < 0 ? -1 : rank[root];
        label[v] = l;
        is_root[v] = root == v;
        if (l >= 0) atomicAdd(reinterpret_cast<unsigned long long*>(size + l), 1ULL);
    }
}

// Alg.3 l.8-10: root candidates[k] of the second MIS-2 (among the unaggregated) is kept
// when 1 + its unaggregated neighbours >= 3
template <typename O, typename I>
__global__ void keep_secondary(const long long* __restrict__ candidates, const long long count,
                               const O* __restrict__ indptr, const I* __restrict__ indices,
                               const long long* __restrict__ label, long long* kept)
{
    for (long long k = first_thread(); k < count; k += thread_stride()) {
        const long long v = candidates[k];
        long long free = 1;
        for (O p = indptr[v]; p < indptr[v + 1]; ++p) free += label[indices[p]] < 0;
        kept[k] = free >= 3;
    }
}

// The kept roots take the ids after the primary ones, in ascending id (before: the
// inclusive prefix sum of ``kept``), and are marked in ``keep``
__global__ void number_kept(const long long* __restrict__ candidates, const long long count,
                            const long long* __restrict__ before, const long long primary, long long* rank,
                            bool* keep)
{
    for (long long k = first_thread(); k < count; k += thread_stride()) {
        const bool kept = k == 0 ? before[0] != 0 : before[k] != before[k - 1];
        if (!kept) continue;
        rank[candidates[k]] = primary + before[k] - 1;
        keep[candidates[k]] = true;
    }
}

// Alg.3 l.11: each kept root takes the unaggregated vertices of its closed neighbourhood
template <typename O, typename I>
__global__ void grow_secondary(const long long n, const O* __restrict__ indptr, const I* __restrict__ indices,
                               const bool* __restrict__ keep, const long long* __restrict__ rank, long long* label,
                               bool* is_root, long long* size)
{
    for (long long v = first_thread(); v < n; v += thread_stride()) {
        if (keep[v]) is_root[v] = true;
        if (label[v] >= 0) continue;
        long long root = keep[v] ? v : -1;
        for (O p = indptr[v]; p < indptr[v + 1] && root < 0; ++p)
            if (keep[indices[p]]) root = indices[p];
        if (root < 0) continue;
        const long long l = rank[root];
        label[v] = l;
        atomicAdd(reinterpret_cast<unsigned long long*>(size + l), 1ULL);
    }
}

// Alg.3 l.14-22 from the snapshot ``label``: a vertex that is not a root, and is
// unaggregated or next to two roots or more, moves to the neighbouring aggregate that beats
// its own (better_group_of, 8 tracked); any other vertex touches only its own root, which
// no other aggregate's key can beat.
template <typename O, typename I>
__global__ void join_leftovers(const long long n, const O* __restrict__ indptr, const I* __restrict__ indices,
                               const long long* __restrict__ label, const bool* __restrict__ is_root,
                               const long long* __restrict__ size, long long* moved)
{
    for (long long v = first_thread(); v < n; v += thread_stride()) {
        const long long old = label[v];
        long long result = old;
        if (!is_root[v]) {
            int touching = 0;
            for (O p = indptr[v]; p < indptr[v + 1]; ++p) touching += is_root[indices[p]];
            if (old < 0 || touching >= 2) {
                const long long target = better_group_of<8>(v, indptr, indices, label, is_root, size);
                if (target >= 0) result = target;
            }
        }
        moved[v] = result;
    }
}

// The roots in ascending id and their count (a cooperative kernel: ordered_select)
__global__ void __launch_bounds__(256, 6)
select_roots(const long long n, const bool* __restrict__ is_root, unsigned long long* block_counts, long long* roots,
             unsigned long long* count)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    ordered_select(grid, is_root, true, n, block_counts, roots, count);
}

}  // namespace native
}  // namespace gbgraph

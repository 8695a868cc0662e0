// What the native kernels share: warp-aggregated worklist pushes, closed-neighbourhood
// minima and the grid-stride loop bounds.
#pragma once
#include <cooperative_groups.h>

namespace gbgraph {
namespace native {

__device__ __forceinline__ long long first_thread() { return blockIdx.x * (long long)blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long thread_stride() { return (long long)gridDim.x * blockDim.x; }

// Appends ``value`` to ``list`` where ``keep``: one atomic per warp, so that a dense round
// does not serialise on the counter. The order within a list is the arrival order; every
// kernel reads its lists as sets, so results do not depend on it.
template <typename I>
__device__ __forceinline__ void push(bool keep, I value, I* list, unsigned long long* count)
{
    const unsigned active = __activemask();
    const unsigned keepers = __ballot_sync(active, keep);
    if (keepers == 0) return;
    const int lane = threadIdx.x & 31, leader = __ffs(keepers) - 1;
    unsigned long long base = 0;
    if (lane == leader) base = atomicAdd(count, (unsigned long long)__popc(keepers));
    base = __shfl_sync(active, base, leader);
    if (keep) list[base + __popc(keepers & ((1u << lane) - 1u))] = value;
}

// Adds every thread's ``mine`` to ``*count`` with one atomic per block (atomics on one
// word serialise: one per warp costs a quarter of a millisecond on a dense round of 8M
// vertices). Every thread of the block calls it.
__device__ __forceinline__ void add_over_block(unsigned mine, unsigned long long* count)
{
    __shared__ unsigned warp_sums[32];
    mine = __reduce_add_sync(0xffffffffu, mine);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = mine;
    __syncthreads();
    if (threadIdx.x == 0) {
        unsigned long long sum = 0;
        for (int w = 0; w < (int)(blockDim.x >> 5); ++w) sum += warp_sums[w];
        if (sum != 0) atomicAdd(count, sum);
    }
    __syncthreads();
}

// The sum of every thread's ``x`` over the block, returned to all of them. Every thread of
// the block calls it.
__device__ __forceinline__ unsigned long long sum_over_block(unsigned long long x)
{
    __shared__ unsigned long long warp_sums[32];
    for (int offset = 16; offset > 0; offset >>= 1) x += __shfl_down_sync(0xffffffffu, x, offset);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = x;
    __syncthreads();
    unsigned long long sum = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) sum += warp_sums[w];
    __syncthreads();
    return sum;
}

// This thread's position among the block's threads with ``flag`` (in thread order) and,
// in ``*total``, how many have it. Every thread of the block calls it.
__device__ __forceinline__ unsigned rank_in_block(bool flag, unsigned* total)
{
    __shared__ unsigned warp_counts[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned ballot = __ballot_sync(0xffffffffu, flag);
    if (lane == 0) warp_counts[warp] = __popc(ballot);
    __syncthreads();
    unsigned before = 0, sum = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) {
        before += w < warp ? warp_counts[w] : 0;
        sum += warp_counts[w];
    }
    __syncthreads();
    *total = sum;
    return before + __popc(ballot & ((1u << lane) - 1u));
}

// The vertices v < n with x[v] == value, ascending, into out[0 ..), their count into
// *count: each block takes a contiguous range and writes it after the ranges before it
// (block_counts: gridDim.x words). One barrier; every thread of the grid calls it.
template <typename S>
__device__ void ordered_select(cooperative_groups::grid_group& grid, const S* x, S value, long long n,
                              unsigned long long* block_counts, long long* out, unsigned long long* count)
{
    const long long chunk = (n + gridDim.x - 1) / gridDim.x;
    const long long begin = blockIdx.x * chunk, end = begin + chunk < n ? begin + chunk : n;
    unsigned long long mine = 0;
    for (long long v = begin + threadIdx.x; v < end; v += blockDim.x) mine += x[v] == value;
    mine = sum_over_block(mine);
    if (threadIdx.x == 0) block_counts[blockIdx.x] = mine;
    grid.sync();
    unsigned long long part = 0;  // the ranges before this block's, summed by all its threads
    for (unsigned b = threadIdx.x; b < blockIdx.x; b += blockDim.x) part += block_counts[b];
    unsigned long long before = sum_over_block(part);
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) *count = before + block_counts[blockIdx.x];
    for (long long tile = begin; tile < end; tile += blockDim.x) {
        const long long v = tile + threadIdx.x;
        const bool chosen = v < end && x[v] == value;
        unsigned total;
        const unsigned at = rank_in_block(chosen, &total);
        if (chosen) out[before + at] = v;
        before += total;
    }
}

// min over the closed neighbourhood {v} ∪ N(v) of x: one row of A ⊕min.second x, A + I's
// pattern. Eight gathers in flight at a time (positions past the row's end read x[v]
// again, which leaves the minimum as it is): a row is a chain of dependent loads otherwise.
template <typename S, typename O, typename I>
__device__ __forceinline__ S closed_min(const S* x, long long v, const O* indptr, const I* indices)
{
    constexpr int WIDTH = 8;
    S m = x[v];
    const O end = indptr[v + 1];
    for (O p = indptr[v]; p < end; p += WIDTH) {
        I column[WIDTH];
#pragma unroll
        for (int j = 0; j < WIDTH; ++j) column[j] = p + j < end ? indices[p + j] : (I)v;
#pragma unroll
        for (int j = 0; j < WIDTH; ++j) {
            const S y = x[column[j]];
            m = y < m ? y : m;
        }
    }
    return m;
}

}  // namespace native
}  // namespace gbgraph

// What the native kernels share: warp-aggregated worklist pushes, closed-neighbourhood
// minima and the grid-stride loop bounds.
#pragma once
#include <cooperative_groups.h>
#include "blocks.cuh"

namespace gbgraph {
namespace native {

using gbgraph::add_over_block;

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

// The ranges the blocks select in: block b's are the vertices v with v >> shift == b, for
// the least shift that covers n vertices with gridDim.x blocks
__device__ __forceinline__ int select_shift(long long n)
{
    const long long per_block = (n + gridDim.x - 1) / gridDim.x;
    return per_block <= 1 ? 0 : 64 - __clzll(per_block - 1);
}

// Block b's range: the vertices from b << shift up to (b + 1) << shift, clipped to n
__device__ __forceinline__ long long range_begin(int shift) { return (long long)blockIdx.x << shift; }
__device__ __forceinline__ long long range_end(long long n, int shift)
{
    const long long stop = ((long long)blockIdx.x + 1) << shift;
    return stop < n ? stop : n;
}

// The vertices v < n with x[v] == value, ascending, into out[0 ..), their count into
// *count, given range_counts[b]: how many lie in block b's range (select_shift). Each block
// writes its range after the ranges before it, VALUES consecutive vertices a thread per
// step, so that a step's loads go out together. Every thread of the grid calls it.
template <typename S>
__device__ void write_selected(const S* x, S value, long long n, int shift, const unsigned long long* range_counts,
                               long long* out, unsigned long long* count)
{
    constexpr int VALUES = 8;
    __shared__ unsigned warp_offsets[33];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const long long begin = range_begin(shift), end = range_end(n, shift);
    unsigned long long part = 0;  // the ranges before this block's, summed by all its threads
    for (unsigned b = threadIdx.x; b < blockIdx.x; b += blockDim.x) part += range_counts[b];
    unsigned long long before = sum_over_block(part);
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) *count = before + range_counts[blockIdx.x];
    for (long long tile = begin; tile < end; tile += (long long)VALUES * blockDim.x) {
        const long long first = tile + (long long)VALUES * threadIdx.x;
        unsigned chosen = 0;  // bit j: first + j
#pragma unroll
        for (int j = 0; j < VALUES; ++j) chosen |= (unsigned)(first + j < end && x[first + j] == value) << j;
        const unsigned mine = __popc(chosen);
        unsigned below = mine;  // inclusive sum over the warp's lanes
        for (int d = 1; d < 32; d <<= 1) {
            const unsigned other = __shfl_up_sync(0xffffffffu, below, d);
            if (lane >= d) below += other;
        }
        if (lane == 31) warp_offsets[warp] = below;
        __syncthreads();
        if (threadIdx.x == 0) {
            unsigned sum = 0;
            for (int w = 0; w < warps; ++w) {
                const unsigned own = warp_offsets[w];
                warp_offsets[w] = sum;
                sum += own;
            }
            warp_offsets[32] = sum;
        }
        __syncthreads();
        long long at = before + warp_offsets[warp] + below - mine;
        for (unsigned bits = chosen; bits != 0; bits &= bits - 1) out[at++] = first + __ffs(bits) - 1;
        before += warp_offsets[32];
        __syncthreads();  // warp_offsets is read before the next tile writes it
    }
}

// write_selected after counting: one barrier; every thread of the grid calls it
// (range_counts: gridDim.x words)
template <typename S>
__device__ void ordered_select(cooperative_groups::grid_group& grid, const S* x, S value, long long n,
                              unsigned long long* range_counts, long long* out, unsigned long long* count)
{
    const int shift = select_shift(n);
    const long long begin = range_begin(shift), end = range_end(n, shift);
    unsigned long long mine = 0;
    for (long long v = begin + threadIdx.x; v < end; v += blockDim.x) mine += x[v] == value;
    mine = sum_over_block(mine);
    if (threadIdx.x == 0) range_counts[blockIdx.x] = mine;
    grid.sync();
    write_selected(x, value, n, shift, range_counts, out, count);
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

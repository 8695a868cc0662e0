// Block-wide helpers of the cooperative kernels: the native backend's rounds and the cupy
// backend's compiled rounds (program.py).
#pragma once

namespace gbgraph {

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

}  // namespace gbgraph

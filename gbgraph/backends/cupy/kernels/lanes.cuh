// G consecutive lanes of a warp to each item (G a power of two up to 32): the V-cycle's
// products (cycle.cu) and the Gauss-Seidel sweeps (gauss_seidel.cu).
#pragma once

namespace gbgraph {

// This thread's lane in its group, the groups of the grid, this group, and the rounds that
// cover `items` items: the same for every lane, since full warps shuffle.
template <int G>
struct LaneGroups {
    int lane;
    long long count, group, rounds;
    __device__ explicit LaneGroups(long long items)
        : lane(threadIdx.x % G), count((long long)gridDim.x * blockDim.x / G),
          group((blockIdx.x * (long long)blockDim.x + threadIdx.x) / G), rounds((items + count - 1) / count)
    {
    }
};

// sum of values[e] * x[columns[e]] over begin <= e < end, into the group's lane 0: each lane
// sums every G-th entry in order, and a fixed shuffle tree adds the G sums, so the sum runs in
// the same order at every launch. Every lane of the warp must call it (begin = end for none).
template <int G, typename I>
__device__ double group_sum(long long begin, long long end, int lane, const double* values, const I* columns,
                            const double* x)
{
    double sum = 0.0;
    for (long long e = begin + lane; e < end; e += G)
        sum += values[e] * x[columns[e]];
    for (int offset = G / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, G);
    return sum;
}

}  // namespace gbgraph

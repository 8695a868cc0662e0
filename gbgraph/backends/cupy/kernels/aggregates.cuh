// The members of each aggregate, by a counting sort on the labels: aggregate_sizes counts
// them, a prefix sum turns the counts into first slots, aggregate_members places each row in
// its aggregate's slots in whatever order the atomics give (the kernels that read them sort
// each aggregate's). Integer counts, so the same in any order. Used by the coarse graph's
// sort (coarse.cu) and by the tentative prolongator (prolongator.cu).
#pragma once

namespace gbgraph {

__device__ __forceinline__ long long fetch_add(int* x, int y) { return atomicAdd(x, y); }
__device__ __forceinline__ long long fetch_add(long long* x, long long y)
{
    return (long long)atomicAdd((unsigned long long*)x, (unsigned long long)y);
}

// sizes[a] = rows labelled a; and, given indptr, entries[a] = their entries
template <typename L, typename C>
__global__ void aggregate_sizes(long long n, const L* labels, const long long* indptr, C* sizes, long long* entries)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        fetch_add(sizes + labels[i], 1);
        if (indptr)
            fetch_add(entries + labels[i], indptr[i + 1] - indptr[i]);
    }
}

// members[cursor[a]++] = i for each row i of aggregate a (cursor: the first slots on entry)
template <typename L, typename C, typename M>
__global__ void aggregate_members(long long n, const L* labels, C* cursor, M* members)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        members[fetch_add(cursor + labels[i], 1)] = (M)i;
}

}  // namespace gbgraph

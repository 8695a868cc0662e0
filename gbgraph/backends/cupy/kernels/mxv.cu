// Masked sparse matrix - vector products w<rows> = A (+).(x) u over any gbgraph semiring.
//
// One kernel per masked product: it computes only the rows listed in ``rows`` (the mask's
// entries; nullptr means every row), which is how Kokkos Kernels' worklists appear in
// algebra. The number of listed rows is *count_ptr when given (written by an earlier
// kernel, so no host waits for it), else ``count``. ``u`` is dense (``u_present`` marks its
// entries; nullptr: all present). Row r's result goes to out[k] for the k-th listed row,
// with found[k] = 1 if the row met an entry. The reduction visits each row in column order,
// so every backend and run sees the same order of operations.
#pragma once
#include "vector.cu"

namespace gbgraph {

template <typename Monoid, typename Mult, typename TW, typename TA, typename TU, typename I, typename P>
__device__ __forceinline__ bool reduce_row(long long r, const P* indptr, const I* indices,
                                           const TA* a, const TU* u, const unsigned char* present, TW& acc)
{
    bool found = false;
    acc = Monoid::identity();
    const long long stop = indptr[r + 1];
    long long p = indptr[r];
    // four entries a step: their columns, then their values, are loaded together (the gathers
    // of a row wait on one another's latency otherwise); combined in column order all the same
    for (; p + 4 <= stop; p += 4) {
        long long j[4];
        TU x[4];
        bool in[4];
#pragma unroll
        for (int k = 0; k < 4; ++k) j[k] = indices[p + k];
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            in[k] = present == nullptr || present[j[k]];
            x[k] = u[j[k]];
        }
#pragma unroll
        for (int k = 0; k < 4; ++k) {
            if (!in[k]) continue;
            const TW y = Mult::op(a == nullptr ? TA(1) : a[p + k], x[k], j[k]);
            acc = found ? Monoid::op(acc, y) : y;
            found = true;
        }
    }
    for (; p < stop; ++p) {
        const long long j = indices[p];
        if (present != nullptr && !present[j]) continue;
        const TW y = Mult::op(a == nullptr ? TA(1) : a[p], u[j], j);
        acc = found ? Monoid::op(acc, y) : y;
        found = true;
    }
    return found;
}

// One thread per listed row: the choice for graphs of average degree below 16.
template <typename Monoid, typename Mult, typename TW, typename TA, typename TU, typename I>
__global__ void mxv_rows(const long long* rows, const long long* count_ptr, long long count, const long long* indptr,
                         const I* indices, const TA* a, const TU* u, const unsigned char* present, TW* out,
                         unsigned char* found)
{
    const long long n = entries(count_ptr, count);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n;
         k += (long long)gridDim.x * blockDim.x) {
        const long long r = rows == nullptr ? k : rows[k];
        TW acc;
        const bool hit = reduce_row<Monoid, Mult>(r, indptr, indices, a, u, present, acc);
        out[k] = acc;
        if (found != nullptr) found[k] = hit;
    }
}

// Row r by a whole warp, for dense rows (Kokkos Kernels switches at average degree 16):
// lanes take strided entries, then a fixed shuffle tree combines them, so the order of
// operations depends on the row length only. Lane 0 gets the row's result.
template <typename Monoid, typename Mult, typename TW, typename TA, typename TU, typename I, typename P>
__device__ __forceinline__ bool reduce_row_warp(long long r, int lane, const P* indptr, const I* indices,
                                                const TA* a, const TU* u, const unsigned char* present, TW& acc)
{
    acc = Monoid::identity();
    bool hit = false;
    for (long long p = indptr[r] + lane; p < indptr[r + 1]; p += 32) {
        const long long j = indices[p];
        if (present != nullptr && !present[j]) continue;
        const TW x = Mult::op(a == nullptr ? TA(1) : a[p], u[j], j);
        acc = hit ? Monoid::op(acc, x) : x;
        hit = true;
    }
    for (int offset = 16; offset > 0; offset >>= 1) {
        TW other = __shfl_down_sync(0xffffffffu, acc, offset);
        bool other_hit = __shfl_down_sync(0xffffffffu, hit, offset);
        if (other_hit) acc = hit ? Monoid::op(acc, other) : other;
        hit = hit || other_hit;
    }
    return hit;
}

// One warp per listed row (reduce_row_warp).
template <typename Monoid, typename Mult, typename TW, typename TA, typename TU, typename I>
__global__ void mxv_warps(const long long* rows, const long long* count_ptr, long long count, const long long* indptr,
                          const I* indices, const TA* a, const TU* u, const unsigned char* present, TW* out,
                          unsigned char* found)
{
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    const long long n = entries(count_ptr, count);
    for (long long k = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; k < n; k += warps) {
        const long long r = rows == nullptr ? k : rows[k];
        TW acc;
        const bool hit = reduce_row_warp<Monoid, Mult>(r, lane, indptr, indices, a, u, present, acc);
        if (lane == 0) {
            out[k] = acc;
            if (found != nullptr) found[k] = hit;
        }
    }
}

}  // namespace gbgraph

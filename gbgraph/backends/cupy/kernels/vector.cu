// Element-wise kernels over sparse vectors whose entry count may live on the device.
//
// A vector's entries are indices[k], values[k] for k < count, where count is *count_ptr
// when count_ptr is not null (the length a previous kernel wrote) and the host value
// otherwise; buffers hold at least ``capacity`` entries, and a grid sized for the capacity
// lets no host wait for the count. indices == nullptr means position k itself (a full
// vector).
#pragma once
#include "semiring.cuh"

namespace gbgraph {

__device__ __forceinline__ long long entries(const long long* count_ptr, long long count) {
    return count_ptr != nullptr ? *count_ptr : count;
}
__device__ __forceinline__ long long position(const long long* indices, long long k) {
    return indices == nullptr ? k : indices[k];
}

// Binary operators on values, for ewise and select.
struct Eq { template <typename T> static __device__ __forceinline__ bool op(T a, T b) { return a == b; } };
struct Ne { template <typename T> static __device__ __forceinline__ bool op(T a, T b) { return a != b; } };
struct Lt { template <typename T> static __device__ __forceinline__ bool op(T a, T b) { return a < b; } };
struct Le { template <typename T> static __device__ __forceinline__ bool op(T a, T b) { return a <= b; } };
struct Gt { template <typename T> static __device__ __forceinline__ bool op(T a, T b) { return a > b; } };
struct Ge { template <typename T> static __device__ __forceinline__ bool op(T a, T b) { return a >= b; } };
struct MinOp { template <typename T> static __device__ __forceinline__ T op(T a, T b) { return b < a ? b : a; } };
struct MaxOp { template <typename T> static __device__ __forceinline__ T op(T a, T b) { return a < b ? b : a; } };
struct PlusOp { template <typename T> static __device__ __forceinline__ T op(T a, T b) { return a + b; } };
struct MinusOp { template <typename T> static __device__ __forceinline__ T op(T a, T b) { return a - b; } };
struct TimesBinary { template <typename T> static __device__ __forceinline__ T op(T a, T b) { return a * b; } };
struct FirstOp { template <typename T> static __device__ __forceinline__ T op(T a, T) { return a; } };
struct SecondOp { template <typename T> static __device__ __forceinline__ T op(T, T b) { return b; } };

// w[indices[k]] = values[k]
template <typename T>
__global__ void scatter(const long long* indices, const T* values, const long long* count_ptr, long long count, T* w)
{
    const long long n = entries(count_ptr, count);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x)
        w[position(indices, k)] = values[k];
}

// w[indices[k]] = value where condition[k] (condition == nullptr: everywhere)
template <typename T>
__global__ void scatter_scalar(const long long* indices, const bool* condition, const long long* count_ptr,
                               long long count, T value, T* w)
{
    const long long n = entries(count_ptr, count);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x)
        if (condition == nullptr || condition[k]) w[position(indices, k)] = value;
}

// out[k] = full[indices[k]]
template <typename T>
__global__ void gather(const long long* indices, const long long* count_ptr, long long count, const T* full, T* out)
{
    const long long n = entries(count_ptr, count);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x)
        out[k] = full[position(indices, k)];
}

// out[k] = Op(a[k], full[indices[k]]): the intersection of a sparse vector with a full one
template <typename Op, typename TA, typename TB, typename TO>
__global__ void gather_op(const long long* indices, const TA* a, const long long* count_ptr, long long count,
                          const TB* full, TO* out)
{
    const long long n = entries(count_ptr, count);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x)
        out[k] = TO(Op::op(a[k], TA(full[position(indices, k)])));
}

// Stream compaction in two passes that keep the entries' order (no atomics): tiles of
// TILE entries count their survivors, then each tile sums the counts of the tiles before it
// (a block-wide sum) and writes its survivors at that offset. The sums read tiles² / 2
// counts in all, from L2: less than a kernel launch of its own up to 8M entries (3,900
// tiles, measured); far beyond that a decoupled look-back scan would be the right form. The last tile writes the
// survivors' count to *out_count. A tile is read in ITEMS sweeps of THREADS consecutive
// entries (coalesced); within a sweep a warp ranks its survivors with a ballot. Grids are
// sized for the capacity, but only the tiles the (device) count needs are visited, so a
// short vector costs little.
constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;
constexpr int ITEMS = 8;
constexpr int TILE = THREADS * ITEMS;
static_assert(ITEMS * WARPS == 64, "compact_write scans ITEMS * WARPS counts with two per lane");

template <typename Op, typename T>
__device__ __forceinline__ bool keeps(const T* keys, long long k, long long n, T thunk) {
    return k < n && Op::op(keys[k], thunk);
}

__device__ __forceinline__ long long tiles_of(long long n) { return (n + TILE - 1) / TILE; }

// scan[t] = survivors in tile t; the grid loops over the tiles the count needs
template <typename Op, typename T>
__global__ void compact_count(const T* keys, const long long* count_ptr, long long count, T thunk, long long* scan,
                              long long* out_count)
{
    __shared__ int warp_counts[WARPS];
    const long long n = entries(count_ptr, count);
    if (blockIdx.x == 0 && threadIdx.x == 0 && n == 0) *out_count = 0;  // no tile to write it
    for (long long tile = blockIdx.x; tile < tiles_of(n); tile += gridDim.x) {
        const long long base = tile * TILE + threadIdx.x;
        int mine = 0;
        for (int i = 0; i < ITEMS; ++i)
            mine += __popc(__ballot_sync(0xffffffffu, keeps<Op>(keys, base + i * THREADS, n, thunk)));
        if ((threadIdx.x & 31) == 0) warp_counts[threadIdx.x >> 5] = mine;
        __syncthreads();
        if (threadIdx.x == 0) {
            int total = 0;
            for (int w = 0; w < WARPS; ++w) total += warp_counts[w];
            scan[tile] = total;
        }
        __syncthreads();
    }
}

// The sum of x over the block's threads, in every thread.
__device__ __forceinline__ long long block_sum(long long x)
{
    __shared__ long long warp_sums[WARPS];
    for (int d = 16; d > 0; d >>= 1) x += __shfl_down_sync(0xffffffffu, x, d);
    if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = x;
    __syncthreads();
    long long total = 0;
    for (int w = 0; w < WARPS; ++w) total += warp_sums[w];
    __syncthreads();
    return total;
}

template <typename Op, typename T, typename V>
__global__ void compact_write(const long long* indices, const T* keys, const V* values, const long long* count_ptr,
                              long long count, T thunk, const long long* scan, long long* out_indices, V* out_values,
                              long long* out_count)
{
    __shared__ int offsets[ITEMS * WARPS];  // survivors before each (sweep, warp), in entry order
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned below = (1u << lane) - 1u;
    const long long n = entries(count_ptr, count);
    for (long long tile = blockIdx.x; tile < tiles_of(n); tile += gridDim.x) {
        const long long base = tile * TILE + threadIdx.x;
        unsigned ballots[ITEMS];
        for (int i = 0; i < ITEMS; ++i) {
            ballots[i] = __ballot_sync(0xffffffffu, keeps<Op>(keys, base + i * THREADS, n, thunk));
            if (lane == 0) offsets[i * WARPS + warp] = __popc(ballots[i]);
        }
        __syncthreads();
        if (warp == 0) {  // exclusive scan of the 64 counts, two per lane
            const int a = offsets[2 * lane], b = offsets[2 * lane + 1];
            int inclusive = a + b;
            for (int d = 1; d < 32; d <<= 1) {
                const int y = __shfl_up_sync(0xffffffffu, inclusive, d);
                if (lane >= d) inclusive += y;
            }
            offsets[2 * lane] = inclusive - a - b;
            offsets[2 * lane + 1] = inclusive - b;
        }
        __syncthreads();
        long long before = 0;  // survivors in the tiles before this one
        for (long long t = threadIdx.x; t < tile; t += THREADS) before += scan[t];
        const long long tile_base = block_sum(before);
        if (tile == tiles_of(n) - 1 && threadIdx.x == 0) *out_count = tile_base + scan[tile];
        for (int i = 0; i < ITEMS; ++i) {
            if (ballots[i] >> lane & 1u) {
                const long long k = base + i * THREADS;
                const long long at = tile_base + offsets[i * WARPS + warp] + __popc(ballots[i] & below);
                out_indices[at] = position(indices, k);
                if (out_values != nullptr) out_values[at] = values[k];
            }
        }
        __syncthreads();  // offsets are rewritten by the next tile
    }
}

// dst = src for a vector whose entries' count is on the device (the end of a replayed
// round writes its results over its inputs): the first *src_count entries and the count.
template <typename V>
__global__ void copy_entries(const long long* src_indices, const V* src_values, const long long* src_count,
                             long long* dst_indices, V* dst_values, long long* dst_count)
{
    const long long n = *src_count;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
        dst_indices[k] = src_indices[k];
        if (dst_values != nullptr) dst_values[k] = src_values[k];
    }
    if (blockIdx.x == 0 && threadIdx.x == 0) *dst_count = n;
}

__global__ void advance(long long* round) { *round += 1; }

// The device side of a CUDA graph's while node (CUDA 12.4+): NVRTC has no cuda_runtime.h, so
// the builtin is declared here; the driver resolves it when the module loads.
extern "C" __device__ void cudaGraphSetConditional(unsigned long long handle, unsigned int value);

// Whether a recorded round runs again: while the worklist has entries and round < bound.
__global__ void loop_while(const long long* count, const long long* round, const long long* bound,
                           unsigned long long handle)
{
    cudaGraphSetConditional(handle, *count > 0 && *round < *bound);
}

// A vector build whose duplicates combine by max / min / plus (MONOID 0, 1, 2) of integers,
// the same in any order the atomics take: out[t] over the k with keys[k] = t (out holds the
// monoid's identity), found[t] = 1 where one exists.
template <int MONOID, typename T>
__global__ void build_atomic(const long long* keys, const T* values, long long count, T* out, unsigned char* found)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x) {
        const long long t = keys[k];
        found[t] = 1;
        if (MONOID == 0) atomicMax(out + t, values[k]);
        else if (MONOID == 1) atomicMin(out + t, values[k]);
        else atomicAdd((unsigned long long*)(out + t), (unsigned long long)values[k]);
    }
}

}  // namespace gbgraph

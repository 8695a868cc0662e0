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

// Stream compaction in one pass that keeps the entries' order (Merrill and Garland's
// single-pass scan with decoupled look-back): a block takes the next tile of TILE entries
// from a ticket counter, ranks its survivors, publishes their count, and looks back over
// the tiles before it for their sum, stopping at the first whose inclusive sum is out; then
// it writes its survivors at that offset. Tiles go out in the order blocks ask for them, so
// a tile waits only on tiles that running blocks hold: no deadlock whatever the scheduling.
// The last tile writes the survivors' count to *out_count. A tile is read in ITEMS sweeps
// of THREADS consecutive entries (coalesced); within a sweep a warp ranks its survivors with
// a ballot. Grids are sized for the capacity, but only the tiles the (device) count needs
// are taken, so a short vector costs little.
//
// ``state`` (the ticket, the blocks finished, a status per tile: 0 empty, else the flag
// above a 62-bit sum) is zero at entry; the last block to finish zeroes it again, so that a
// stream's compactions share one buffer and no launch clears it.
constexpr int THREADS = 256;
constexpr int WARPS = THREADS / 32;
constexpr int ITEMS = 8;
constexpr int TILE = THREADS * ITEMS;
static_assert(ITEMS * WARPS == 64, "compact scans ITEMS * WARPS counts with two per lane");
constexpr unsigned long long AGGREGATE = 1ULL << 62, INCLUSIVE = 2ULL << 62, SUM = AGGREGATE - 1;

template <typename Op, typename T>
__device__ __forceinline__ bool keeps(const T* keys, long long k, long long n, T thunk) {
    return k < n && Op::op(keys[k], thunk);
}

// The survivors of the tiles before ``tile``, whose own count ``mine`` is published first;
// called by a whole warp, which reads the statuses of 32 tiles at a time, as CUB does: with
// every tile taken at once, a tile may find only aggregates for many tiles back. The
// nearest tile whose inclusive sum is out ends the look-back; the tiles before 0 count as
// an inclusive 0.
__device__ __forceinline__ long long look_back(unsigned long long* status, long long tile, long long mine)
{
    volatile unsigned long long* published = status;
    const int lane = threadIdx.x & 31;
    if (tile == 0) {
        if (lane == 0) published[0] = INCLUSIVE | (unsigned long long)mine;
        return 0;
    }
    if (lane == 0) published[tile] = AGGREGATE | (unsigned long long)mine;
    long long before = 0;
    for (long long t = tile - 1 - lane;; t -= 32) {
        unsigned long long s;
        do {
            s = t >= 0 ? published[t] : (unsigned long long)INCLUSIVE;
        } while (__any_sync(0xffffffffu, s == 0));
        const unsigned inclusive = __ballot_sync(0xffffffffu, (s & INCLUSIVE) != 0);
        const int last = inclusive ? __ffs(inclusive) - 1 : 31;  // the lanes summed: 0..last
        long long part = lane <= last ? (long long)(s & SUM) : 0;
        for (int d = 16; d > 0; d >>= 1) part += __shfl_xor_sync(0xffffffffu, part, d);
        before += part;
        if (inclusive) break;
    }
    if (lane == 0) published[tile] = INCLUSIVE | (unsigned long long)(before + mine);
    return before;
}

template <typename Op, typename T, typename V>
__global__ void compact(const long long* indices, const T* keys, const V* values, const long long* count_ptr,
                        long long count, T thunk, long long* out_indices, V* out_values, long long* out_count,
                        unsigned long long* state)
{
    __shared__ int offsets[ITEMS * WARPS];  // survivors before each (sweep, warp), in entry order
    __shared__ long long tile_shared, base_shared;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned below = (1u << lane) - 1u;
    const long long n = entries(count_ptr, count), tiles = (n + TILE - 1) / TILE;
    unsigned long long* const status = state + 2;
    if (blockIdx.x == 0 && threadIdx.x == 0 && n == 0) *out_count = 0;  // no tile to write it
    for (;;) {
        if (threadIdx.x == 0) tile_shared = (long long)atomicAdd(&state[0], 1ULL);
        __syncthreads();
        const long long tile = tile_shared;
        if (tile >= tiles) break;
        const long long base = tile * TILE + threadIdx.x;
        unsigned ballots[ITEMS];
        for (int i = 0; i < ITEMS; ++i) {
            ballots[i] = __ballot_sync(0xffffffffu, keeps<Op>(keys, base + i * THREADS, n, thunk));
            if (lane == 0) offsets[i * WARPS + warp] = __popc(ballots[i]);
        }
        __syncthreads();
        if (warp == 0) {  // exclusive scan of the 64 counts, two per lane; then the look-back
            const int a = offsets[2 * lane], b = offsets[2 * lane + 1];
            int inclusive = a + b;
            for (int d = 1; d < 32; d <<= 1) {
                const int y = __shfl_up_sync(0xffffffffu, inclusive, d);
                if (lane >= d) inclusive += y;
            }
            offsets[2 * lane] = inclusive - a - b;
            offsets[2 * lane + 1] = inclusive - b;
            const int mine = __shfl_sync(0xffffffffu, inclusive, 31);
            const long long before = look_back(status, tile, mine);
            if (lane == 0) {
                base_shared = before;
                if (tile == tiles - 1) *out_count = before + mine;
            }
        }
        __syncthreads();
        const long long tile_base = base_shared;
        for (int i = 0; i < ITEMS; ++i) {
            if (ballots[i] >> lane & 1u) {
                const long long k = base + i * THREADS;
                const long long at = tile_base + offsets[i * WARPS + warp] + __popc(ballots[i] & below);
                out_indices[at] = position(indices, k);
                if (out_values != nullptr) out_values[at] = values[k];
            }
        }
        __syncthreads();  // offsets and the shared tile are rewritten by the next tile
    }
    __shared__ bool last_out;  // every block has taken its last ticket: the last one out clears
    if (threadIdx.x == 0) {
        __threadfence();
        last_out = atomicAdd(&state[1], 1ULL) == gridDim.x - 1;
    }
    __syncthreads();
    if (last_out) {
        for (long long t = threadIdx.x; t < tiles; t += blockDim.x) status[t] = 0;
        if (threadIdx.x == 0) state[0] = state[1] = 0;
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
// monoid's identity), found[t] = 1 where one exists. Keys outside [0, size) are counted in
// *outside and left out (the launcher raises), so that the bounds cost no pass of their own.
template <int MONOID, typename T>
__global__ void build_atomic(const long long* keys, const T* values, long long count, long long size, T* out,
                             unsigned char* found, unsigned long long* outside)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x) {
        const long long t = keys[k];
        if (t < 0 || t >= size) {
            atomicAdd(outside, 1ULL);
            continue;
        }
        found[t] = 1;
        if (MONOID == 0) atomicMax(out + t, values[k]);
        else if (MONOID == 1) atomicMin(out + t, values[k]);
        else atomicAdd((unsigned long long*)(out + t), (unsigned long long)values[k]);
    }
}

}  // namespace gbgraph

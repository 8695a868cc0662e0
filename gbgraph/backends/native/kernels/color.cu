// Distance-1 greedy coloring as one cooperative kernel: the speculative first-fit rounds of
// gbgraph/algorithms/coloring.py (_speculative), its ordered finish and Culberson's
// recoloring pass, with the round loop on the device (Deveci et al.'s vertex-based coloring,
// made synchronous as the verbs make it). Each phase reads only what the phase before it
// wrote, so colors and rounds are those of the verbs whatever the order in which threads run.
//
// Each warp owns every W-th chunk of 32 vertices (W warps) and keeps the worklist of its
// chunks itself, compacted by ballots: no barrier inside a phase and one global atomic per
// block and round. At any time the grid works on a window of neighbouring chunks, whose rows
// and whose neighbours' entries share the L2 cache (with a contiguous range per warp the grid
// spread over the whole graph, and the kernel took 9% longer on Laplace3D 200³). A thread
// reads its row's column indices 16 bytes at a time from an aligned start, a chunk per step,
// so that the gathers of a chunk go out together.
#pragma once
#include <cooperative_groups.h>
#include "hashing.cu"
#include "worklist.cuh"

namespace gbgraph {
namespace native {

constexpr unsigned FULL_WARP = 0xFFFFFFFFu;
// Colors per block and histogram of the recoloring pass's counting sort (more: in groups)
constexpr int CLASS_GROUP = 512;

// 16 bytes of column indices, read at once
template <typename I>
struct IndexPack;
template <>
struct IndexPack<int> {
    using type = int4;
    static constexpr int size = 4;
    static __device__ __forceinline__ void unpack(const int4& x, int* j)
    {
        j[0] = x.x;
        j[1] = x.y;
        j[2] = x.z;
        j[3] = x.w;
    }
};
template <>
struct IndexPack<long long> {
    using type = longlong2;
    static constexpr int size = 2;
    static __device__ __forceinline__ void unpack(const longlong2& x, long long* j)
    {
        j[0] = x.x;
        j[1] = x.y;
    }
};
// Entries of a row handled per step: two packs
template <typename I>
constexpr int row_chunk = 2 * IndexPack<I>::size;

// Calls visit(j, valid) on the row of v, row_chunk<I> entries at a time (``valid``: the entry
// lies in the row), until it returns true; returns whether it did. The packs start at the
// aligned position at or below the row's start, so a pack may hold entries of the rows
// around it (never bytes outside the 16-byte-aligned array: the host aligns it).
template <typename O, typename I, typename Visit>
__device__ __forceinline__ bool visit_row(long long v, const O* __restrict__ indptr,
                                          const I* __restrict__ indices, Visit visit)
{
    using Pack = IndexPack<I>;
    constexpr int CHUNK = row_chunk<I>;
    const O begin = indptr[v], end = indptr[v + 1];
    for (O q = begin & ~(O)(Pack::size - 1); q < end; q += CHUNK) {
        I j[CHUNK] = {};
        const typename Pack::type* packs = reinterpret_cast<const typename Pack::type*>(indices + q);
        Pack::unpack(packs[0], j);
        if (q + Pack::size < end) Pack::unpack(packs[1], j + Pack::size);
        bool valid[CHUNK];
#pragma unroll
        for (int u = 0; u < CHUNK; ++u) valid[u] = q + u >= begin && q + u < end;
        if (visit(j, valid)) return true;
    }
    return false;
}

// _Keys.random (LED false) or _Keys.led with the degree field (LED true) of vertex i: the
// 64-bit packed hash (f(f(i) ^ f(seed)) << nv) | (i + 1), and for led keys the degree in the
// top ``bits`` bits above the hash's top bits, shifted down to make room
template <bool LED>
__device__ __forceinline__ unsigned long long color_key(long long i, unsigned long long seed_half, int nv, int bits,
                                                        unsigned long long degree)
{
    const unsigned long long key = packed_status<64, true>(i, seed_half, nv, 0ULL);
    if (!LED) return key;
    const unsigned long long low = key & ((1ULL << nv) - 1ULL);
    const unsigned long long hashed = nv + bits < 64 ? key >> (nv + bits) << nv : 0ULL;
    return degree << (64 - bits) | hashed | low;
}

// The key of any vertex, computed where it is compared: its hash, and for led keys its degree
// from the row pointers. Round 0, which compares every vertex with all its neighbours, reads
// them from an array (StoredKeys) written once; later rounds compare few, and there a stored
// key would cost 8 bytes of every listed vertex's row.
template <typename O, bool LED>
struct Keys {
    const O* indptr;
    unsigned long long seed_half;
    int nv, bits;
    __device__ __forceinline__ unsigned long long operator()(long long i) const
    {
        const unsigned long long degree = LED ? (unsigned long long)(indptr[i + 1] - indptr[i]) : 0ULL;
        return color_key<LED>(i, seed_half, nv, bits, degree);
    }
};
struct StoredKeys {
    const unsigned long long* key;
    __device__ __forceinline__ unsigned long long operator()(long long i) const { return key[i]; }
};

// First fit of row v over ``colors`` (below 0: no color) from color ``base`` on, window after
// window of 64 colors, an entry at a time. With ``keys`` (a Keys), -1 instead when a neighbour
// of higher key than ``key`` has no color yet: v is not ready.
template <typename P, typename O, typename I, typename K>
__device__ long long first_fit_from(long long v, const O* __restrict__ indptr, const I* __restrict__ indices,
                                    P colors, const K* keys, unsigned long long key, long long base)
{
    for (;; base += 64) {
        unsigned long long word = 0;
        for (long long p = indptr[v]; p < indptr[v + 1]; ++p) {
            const long long j = indices[p];
            const long long c = colors[j];
            if (c < 0 && keys != nullptr && (*keys)(j) > key) return -1;
            const long long offset = c - base;
            if (offset >= 0 && offset < 64) word |= 1ULL << offset;
        }
        if (word != ~0ULL) return base + __ffsll((long long)~word) - 1;
    }
}

// First fit of row v: colors 0..63 by visit_row, the later windows (a row with 64 colors
// around it) by first_fit_from
template <typename O, typename I>
__device__ __forceinline__ long long first_fit(long long v, const O* __restrict__ indptr,
                                               const I* __restrict__ indices, const I* colors)
{
    unsigned long long word = 0;
    visit_row(v, indptr, indices, [&](const I* j, const bool* valid) {
        I c[row_chunk<I>];
#pragma unroll
        for (int u = 0; u < row_chunk<I>; ++u) c[u] = valid[u] ? colors[j[u]] : (I)-1;
#pragma unroll
        for (int u = 0; u < row_chunk<I>; ++u)
            if (c[u] >= 0 && c[u] < 64) word |= 1ULL << c[u];
        return false;
    });
    if (word != ~0ULL) return __ffsll((long long)~word) - 1;
    return first_fit_from(v, indptr, indices, colors, (const Keys<O, false>*)nullptr, 0ULL, 64);
}

// First fits of rows a and b (b < 0: none) over ``colors``, their loads in flight together:
// rows of at most SHORT entries (whose first fit lies below 64) read entry by entry, the
// others by first_fit. A thread that waits on one row's chain of loads at a time (row
// pointers, indices, colors) left the first-fit and class passes latency-bound: on the
// H100 pairs took Laplace3D 100³ from 0.303 to 0.281 ms. With 64-bit indices, whose pairs
// would spill, callers pass no b (PAIR<I> = 1).
template <typename I>
constexpr int PAIR = sizeof(I) == 4 ? 2 : 1;
template <typename O, typename I>
__device__ __forceinline__ void first_fit_pair(I a, I b, const O* __restrict__ indptr, const I* __restrict__ indices,
                                               const I* colors, long long* fa, long long* fb)
{
    constexpr int SHORT = 8;
    const O a0 = indptr[a], a1 = indptr[a + 1];
    O b0 = 0, b1 = 0;
    if (b >= 0) {
        b0 = indptr[b];
        b1 = indptr[b + 1];
    }
    if (a1 - a0 <= SHORT && b1 - b0 <= SHORT) {
        I ja[SHORT], jb[SHORT];
#pragma unroll
        for (int u = 0; u < SHORT; ++u) {
            ja[u] = a0 + u < a1 ? indices[a0 + u] : (I)-1;
            jb[u] = b0 + u < b1 ? indices[b0 + u] : (I)-1;
        }
        unsigned long long wa = 0, wb = 0;
#pragma unroll
        for (int u = 0; u < SHORT; ++u) {
            const I ca = ja[u] >= 0 ? colors[ja[u]] : (I)-1, cb = jb[u] >= 0 ? colors[jb[u]] : (I)-1;
            if (ca >= 0 && ca < 64) wa |= 1ULL << ca;
            if (cb >= 0 && cb < 64) wb |= 1ULL << cb;
        }
        *fa = __ffsll((long long)~wa) - 1;
        *fb = __ffsll((long long)~wb) - 1;
        return;
    }
    *fa = first_fit(a, indptr, indices, colors);
    *fb = b >= 0 ? first_fit(b, indptr, indices, colors) : -1;
}

// rival(v) = (A ∘ [t_v = t_j]) ⊕max.second key > key_v: a neighbour of higher key took the same
// tentative color t. With ``everyone`` (round 0: every first fit is 0) each neighbour did,
// and tentative is not read.
template <typename O, typename I, typename K>
__device__ __forceinline__ bool has_rival(long long v, I t, unsigned long long key, bool everyone,
                                          const O* __restrict__ indptr, const I* __restrict__ indices,
                                          const I* tentative, const K& keys)
{
    return visit_row(v, indptr, indices, [&](const I* j, const bool* valid) {
        bool same[row_chunk<I>];
#pragma unroll
        for (int u = 0; u < row_chunk<I>; ++u) same[u] = valid[u] && (everyone || tentative[j[u]] == t);
        bool rival = false;
#pragma unroll
        for (int u = 0; u < row_chunk<I>; ++u) rival |= same[u] && keys(j[u]) > key;
        return rival;
    });
}

// ``value`` reduced by ``op`` over the block, to every thread; every thread calls it together
template <typename Op>
__device__ __forceinline__ long long block_reduce(long long value, Op op)
{
    __shared__ long long partial[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    for (int d = 16; d > 0; d >>= 1) value = op(value, __shfl_xor_sync(FULL_WARP, value, d));
    if (lane == 0) partial[warp] = value;
    __syncthreads();
    value = partial[0];
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w) value = op(value, partial[w]);
    __syncthreads();
    return value;
}

struct Maximum {
    __device__ __forceinline__ long long operator()(long long a, long long b) const { return a > b ? a : b; }
};
struct Sum {
    __device__ __forceinline__ long long operator()(long long a, long long b) const { return a + b; }
};

// Culberson's pass: out = first fit in decreasing color. The classes are independent sets,
// so each class takes its colors at once, seeing the classes after it: each block sorts its
// vertices (its chunks of blockDim.x, every gridDim.x-th) by class into ``sorted`` (a counting
// sort in shared memory, CLASS_GROUP classes at a time, the last group first), then every
// class is one step over the block's part of it. tentative holds the new colors, -1 until
// given.
template <typename O, typename I>
__device__ __forceinline__ void recolor(const O* __restrict__ indptr, const I* __restrict__ indices,
                                        const long long n, const I* colors, I* tentative, I* sorted,
                                        long long* out, unsigned long long* counts)
{
    __shared__ unsigned class_count[CLASS_GROUP];  // each class's vertices, then the next free slot
    __shared__ unsigned class_start[CLASS_GROUP + 1];
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const unsigned lanes_below = (1u << lane) - 1u;
    const long long classes = (long long)counts[4];
    long long largest = -1;
    for (long long top = classes; top > 0; top -= CLASS_GROUP) {
        const long long low = max(0LL, top - CLASS_GROUP);  // the group: classes low..top - 1
        const int group = (int)(top - low);
        for (int c = threadIdx.x; c < group; c += blockDim.x) class_count[c] = 0;
        __syncthreads();
        for (long long chunk = blockIdx.x; chunk * blockDim.x < n; chunk += gridDim.x) {  // the histogram
            const long long i = chunk * blockDim.x + threadIdx.x;
            const long long c = i < n ? (long long)colors[i] : -1;
            if (top == classes && i < n) tentative[i] = -1;
            const bool member = c >= low && c < top;
            const unsigned peers = __match_any_sync(FULL_WARP, member ? (int)(c - low) : -1);
            if (member && lane == __ffs(peers) - 1) atomicAdd(&class_count[c - low], (unsigned)__popc(peers));
        }
        __syncthreads();
        if (warp == 0) {  // class_start: exclusive sums of class_count, which become the free slots
            unsigned carry = 0;
            for (int b = 0; b < group; b += 32) {
                const unsigned own = b + lane < group ? class_count[b + lane] : 0;
                unsigned total = own;
                for (int d = 1; d < 32; d <<= 1) {
                    const unsigned other = __shfl_up_sync(FULL_WARP, total, d);
                    if (lane >= d) total += other;
                }
                if (b + lane < group) class_start[b + lane] = class_count[b + lane] = carry + total - own;
                carry += __shfl_sync(FULL_WARP, total, 31);
            }
            if (lane == 0) class_start[group] = carry;
        }
        __syncthreads();
        for (long long chunk = blockIdx.x; chunk * blockDim.x < n; chunk += gridDim.x) {  // the scatter
            const long long i = chunk * blockDim.x + threadIdx.x;
            const long long c = i < n ? (long long)colors[i] : -1;
            const bool member = c >= low && c < top;
            const unsigned peers = __match_any_sync(FULL_WARP, member ? (int)(c - low) : -1);
            const int head = __ffs(peers) - 1;
            unsigned slot = 0;
            if (member && lane == head) slot = atomicAdd(&class_count[c - low], (unsigned)__popc(peers));
            slot = __shfl_sync(FULL_WARP, slot, head);
            if (member) sorted[slot + __popc(peers & lanes_below)] = (I)i;
        }
        grid.sync();  // every tentative is -1 (first group) before any block reads its neighbours'
        for (long long c = top - 1; c >= low; --c) {
            const long long stop = class_start[c - low + 1];
            for (long long k = class_start[c - low] + threadIdx.x; k < stop; k += PAIR<I> * blockDim.x) {
                const I i = sorted[k], i2 = PAIR<I> == 2 && k + blockDim.x < stop ? sorted[k + blockDim.x] : (I)-1;
                long long fit = 0, fit2 = 0;
                // the last class goes first and sees no color: its rows need not be read
                if (c != classes - 1) first_fit_pair(i, i2, indptr, indices, (const I*)tentative, &fit, &fit2);
                tentative[i] = (I)fit;
                if (i2 >= 0) tentative[i2] = (I)fit2;
                largest = max(largest, max(fit, i2 >= 0 ? fit2 : -1LL));
            }
            grid.sync();
        }
    }
    for (long long i = first_thread(); i < n; i += thread_stride()) out[i] = tentative[i];  // in order, not by class
    largest = block_reduce(largest, Maximum());
    if (threadIdx.x == 0) atomicMax(&counts[5], (unsigned long long)(largest + 1));
}

// out = the colors of gbgraph.color(A, "greedy") with distance 1; until the recoloring writes
// them it holds round 0's keys. colors, tentative and lists (2 * span entries per warp, span
// at least the vertices of the warp's chunks w, w + W, w + 2W, ...) are scratch. counts: 8
// zeroed words: [0..2] worklist sizes by round mod 3, [3] the largest degree (LED), [4] the
// colors after the rounds, [5] the colors of out, [6] the rounds, [7] the vertices left
// uncolored when max_iter rounds stop it. With LED, if bit_length(max degree) + nv > 64 the
// kernel returns after [3] (the host raises).
template <typename O, typename I, bool LED>
__global__ void __launch_bounds__(256, 4)
greedy_color(const long long n, const O* __restrict__ indptr, const I* __restrict__ indices,
             const long long seed, const int nv, const long long max_iter, const long long span, I* colors,
             I* tentative, I* lists, long long* out, unsigned long long* counts)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    const unsigned lanes_below = (1u << lane) - 1u;
    const long long W = (long long)gridDim.x * warps, w = blockIdx.x * (long long)warps + warp;
    const bool leader = threadIdx.x == 0, first = leader && blockIdx.x == 0;

    int bits = 0;
    if (LED) {  // _Keys.degree_bits = max(1, bit_length(max degree))
        long long degree = 0;
        for (long long i = first_thread(); i < n; i += thread_stride())
            degree = max(degree, (long long)(indptr[i + 1] - indptr[i]));
        degree = block_reduce(degree, Maximum());
        if (leader) atomicMax(&counts[3], (unsigned long long)degree);
        grid.sync();
        bits = max(1, 64 - __clzll((long long)counts[3]));
        if (bits + nv > 64) return;
    }
    const Keys<O, LED> keys{indptr, round_part<64, true>(seed), nv, bits};
    unsigned long long* const stored = reinterpret_cast<unsigned long long*>(out);  // out is written last
    for (long long i = first_thread(); i < n; i += thread_stride()) stored[i] = keys(i);
    grid.sync();

    // the warp's worklists, by round parity: lists[w * span..] and lists[(W + w) * span..];
    // round 0's is every vertex of the warp's chunks, none colored, each with first fit 0
    long long size = ((n + 31) / 32 - w + W - 1) / W * 32;  // of the warp's worklist (round 0: its chunks)
    long long r = 0, largest = -1;
    for (;;) {
        const unsigned long long listed = r == 0 ? n : counts[r % 3];
        const I* U = lists + ((r & 1) * W + w) * span;
        I* lost_list = lists + (((r + 1) & 1) * W + w) * span;
        // rival<U> = (A ∘ [t_i = t_j]) ⊕max.second key; lost = rival > key; colors<¬lost> = t.
        // A colored neighbour's t is its color, which no first fit of this round takes, so
        // only uncolored rivals match.
        long long kept = 0;
        for (long long base = 0; base < size; base += 32) {
            const long long k = base + lane;
            I v = 0;
            bool lost = false;
            const long long chunk_vertex = (w + (base >> 5) * W) * 32 + lane;  // round 0's k-th
            if (k < size && (r > 0 || chunk_vertex < n)) {
                I t = 0;
                if (r == 0) {  // every vertex passes here once: round 0 sets its first fit and color
                    v = (I)chunk_vertex;
                    lost = has_rival(v, t, stored[v], true, indptr, indices, tentative, StoredKeys{stored});
                    tentative[v] = 0;
                    colors[v] = lost ? -1 : 0;
                } else {
                    v = U[k];
                    t = tentative[v];
                    lost = has_rival(v, t, keys(v), false, indptr, indices, tentative, keys);
                    if (!lost) colors[v] = t;
                }
                if (!lost) largest = max(largest, (long long)t);
            }
            const unsigned losers = __ballot_sync(FULL_WARP, lost);
            if (lost) lost_list[kept + __popc(losers & lanes_below)] = v;
            kept += __popc(losers);
        }
        size = kept;
        const long long block_kept = block_reduce(lane == 0 ? kept : 0, Sum());
        if (leader && block_kept) atomicAdd(&counts[(r + 1) % 3], (unsigned long long)block_kept);
        if (first) counts[(r + 2) % 3] = 0;  // read by no one until the next round's barrier
        grid.sync();
        ++r;
        const unsigned long long left = counts[r % 3];
        if (left == 0) break;
        if ((listed - left) * 32 < left) {  // _few: the rest in key order, then stop
            volatile I* shared_colors = colors;  // read past the L1 cache: other threads write them
            for (bool waiting = true; waiting;) {
                waiting = false;
                for (long long k = lane; k < size; k += 32) {
                    const I v = lost_list[k];
                    if (shared_colors[v] >= 0) continue;
                    const long long c = first_fit_from(v, indptr, indices, (const volatile I*)shared_colors, &keys,
                                                       keys(v), 0);
                    if (c < 0) {
                        waiting = true;
                    } else {
                        shared_colors[v] = (I)c;
                        largest = max(largest, c);
                    }
                }
            }
            break;
        }
        if (r == max_iter) {
            if (first) counts[7] = left;
            return;
        }
        // t<U> = first_fit(A, colors)
        for (long long k = lane; k < size; k += PAIR<I> * 32) {
            const I v = lost_list[k], v2 = PAIR<I> == 2 && k + 32 < size ? lost_list[k + 32] : (I)-1;
            long long fit, fit2;
            first_fit_pair(v, v2, indptr, indices, (const I*)colors, &fit, &fit2);
            tentative[v] = (I)fit;
            if (v2 >= 0) tentative[v2] = (I)fit2;
        }
        grid.sync();
    }
    largest = block_reduce(largest, Maximum());
    if (leader) atomicMax(&counts[4], (unsigned long long)(largest + 1));
    grid.sync();
    recolor(indptr, indices, n, (const I*)colors, tentative, lists + blockIdx.x * warps * span, out, counts);
    if (first) counts[6] = r;
}

}  // namespace native
}  // namespace gbgraph

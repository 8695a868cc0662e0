// Gilbert et al.'s vertex-centric coarse graph construction (IPDPS 2021, Algorithm 6) with
// sort-based deduplication, one thread block per coarse vertex (aggregate).
//
// The reference is gbgraph.algorithms.coarsen._by_construction with method="sort": for
// aggregate a, the fine edges (u, v) with u in a and label(v) != a, taken in row-major order
// (members ascending, columns in order), are sorted stably by label(v); each run of equal
// labels becomes one coarse edge whose weight sums the run in that order, the way numpy's
// add.reduceat does (numpy_sum.cuh), so float weights match the CPU bit for bit.
//
// The members of each aggregate come from a counting sort by label (aggregates.cuh) in any
// order; each aggregate sorts them, then gathers its entries as keys
// (label(v) << POS_BITS | position in row-major order), so that one bitonic sort orders them
// by label and, within a label, stably. Aggregates of up to 256 entries and members take a
// warp and sort in registers (coarse_by_sort_warp); up to 2048, a block sorting in shared
// memory (coarse_by_sort); larger ones (few, on coarse levels of skewed graphs) sort their
// crossing entries together in global memory (huge_keys, then a radix sort of the keys, then
// huge_heads and huge_edges). Each aggregate writes
// its number of coarse edges to edge_counts[a], and the edges, sorted by column, at slot[a]
// (the start of its fine entries, room enough); pack_rows then moves the rows together.
#pragma once
#include "aggregates.cuh"
#include "numpy_sum.cuh"

namespace gbgraph {

constexpr int POS_BITS = 11;  // positions below 2048, the largest CAPACITY
constexpr unsigned long long NO_ENTRY = ~0ULL;

// Exclusive prefix sum over the block (THREADS <= 1024) through shared scratch; returns the
// thread's offset and leaves the total in *total.
template <int THREADS>
__device__ int block_scan(int x, int* scratch, int* total)
{
    scratch[threadIdx.x] = x;
    __syncthreads();
    for (int d = 1; d < THREADS; d <<= 1) {
        const int y = threadIdx.x >= d ? scratch[threadIdx.x - d] : 0;
        __syncthreads();
        scratch[threadIdx.x] += y;
        __syncthreads();
    }
    const int inclusive = scratch[threadIdx.x];
    *total = scratch[THREADS - 1];
    __syncthreads();
    return inclusive - x;
}

// Ascending bitonic sort of keys[0..p) in shared memory, p a power of two, by the block.
template <int THREADS, typename K>
__device__ void block_sort(K* keys, int p)
{
    for (int size = 2; size <= p; size <<= 1) {
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
            for (int i = threadIdx.x; i < p; i += THREADS) {
                const int j = i ^ stride;
                if (j > i) {
                    const K x = keys[i], y = keys[j];
                    if ((x > y) == ((i & size) == 0)) {
                        keys[i] = y;
                        keys[j] = x;
                    }
                }
            }
            __syncthreads();
        }
    }
}

__device__ __forceinline__ int pow2_at_least(int x)
{
    int p = 1;
    while (p < x) p <<= 1;
    return p;
}

// The member whose entries hold entry k: the last with offsets[member] <= k.
__device__ __forceinline__ int owner(const int* offsets, int m, int k)
{
    int lo = 0, hi = m;
    while (hi - lo > 1) {
        const int mid = (lo + hi) >> 1;
        if (offsets[mid] <= k) lo = mid; else hi = mid;
    }
    return lo;
}

// Ascending bitonic sort of a warp's 32 * R keys held in registers, element r * 32 + lane
// in key[r]: partners within a register row swap through shuffles, rows within a lane
// directly. Every loop unrolls, so the registers stay registers.
template <int R>
__device__ __forceinline__ void warp_sort(unsigned long long (&key)[8])
{
    const int lane = threadIdx.x & 31;
#pragma unroll
    for (int size = 2; size <= 32 * R; size <<= 1) {
#pragma unroll
        for (int stride = size >> 1; stride > 0; stride >>= 1) {
#pragma unroll
            for (int r = 0; r < R; ++r) {
                const bool up = ((r * 32 + lane) & size) == 0;
                if (stride >= 32) {
                    const int partner = r ^ (stride >> 5);
                    if (partner > r) {
                        const unsigned long long x = key[r], y = key[partner];
                        if ((x > y) == up) {
                            key[r] = y;
                            key[partner] = x;
                        }
                    }
                } else {
                    const unsigned long long other = __shfl_xor_sync(0xffffffffu, key[r], stride);
                    const bool lower = (lane & stride) == 0;
                    key[r] = (lower == up) ? (other < key[r] ? other : key[r]) : (other > key[r] ? other : key[r]);
                }
            }
        }
    }
}

// keys[0..32 * rows) of shared memory sorted by the warp in registers (rows 1, 2, 4 or 8).
// Not inlined: one copy of the unrolled sorts serves every call, which keeps the kernel
// small enough for the instruction cache.
__device__ __noinline__ void warp_sort_shared(unsigned long long* keys, int rows)
{
    const int lane = threadIdx.x & 31;
    unsigned long long key[8];
#pragma unroll
    for (int r = 0; r < 8; ++r) key[r] = r < rows ? keys[r * 32 + lane] : NO_ENTRY;
    switch (rows) {
        case 1: warp_sort<1>(key); break;
        case 2: warp_sort<2>(key); break;
        case 4: warp_sort<4>(key); break;
        default: warp_sort<8>(key); break;
    }
#pragma unroll
    for (int r = 0; r < 8; ++r)
        if (r < rows) keys[r * 32 + lane] = key[r];
    __syncwarp();
}

// coarse_by_sort for aggregates of at most 256 entries and 256 members, one warp each, in
// one pass: the members and the crossing entries (compacted with ballots) are sorted in
// registers, and the loads of all entries are issued together (a warp waits for memory
// about four times per aggregate, not per 32 entries). Aggregate a writes its edges at
// slot[a], the start of its fine entries, and their number to edge_counts[a];
// pack_rows moves them together.
template <typename I, typename V>
__global__ void coarse_by_sort_warp(const long long* load, long long k, const long long* starts,
                                    const int* members, const long long* indptr, const I* indices, const int* labels,
                                    const V* weights, long long* edge_counts, const long long* slot,
                                    I* out_columns, V* out_weights)
{
    constexpr int WARPS_PER_BLOCK = 4, CAPACITY = 256, CHUNKS = CAPACITY / 32;
    __shared__ unsigned long long shared_keys[WARPS_PER_BLOCK][CAPACITY];
    __shared__ long long shared_rows[WARPS_PER_BLOCK][CAPACITY];  // fine row start of each member
    __shared__ int shared_offsets[WARPS_PER_BLOCK][CAPACITY];     // entries before each member
    const int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
    unsigned long long* keys = shared_keys[w];
    long long* rows = shared_rows[w];
    int* offsets = shared_offsets[w];
    const unsigned below = (1u << lane) - 1u;
    const long long warps = (long long)gridDim.x * WARPS_PER_BLOCK;
    for (long long g = blockIdx.x * (long long)WARPS_PER_BLOCK + w; g < k; g += warps) {
        if (load[g] > CAPACITY) continue;  // the same for the whole warp: a block's, or too large
        const int a = (int)g;
        const long long first = starts[a];
        const int m = (int)(starts[a + 1] - first);
        const int member_rows = pow2_at_least((m + 31) / 32);  // members ascending, sorted as keys
        for (int i = lane; i < 32 * member_rows; i += 32) keys[i] = i < m ? (unsigned long long)members[first + i] : NO_ENTRY;
        __syncwarp();
        warp_sort_shared(keys, member_rows);
        int carry = 0;  // offsets[i] = entries before member i, by a warp scan per 32 members
        for (int base = 0; base < m; base += 32) {
            const int i = base + lane;
            const long long row = i < m ? indptr[keys[i]] : 0;
            const int degree = i < m ? (int)(indptr[keys[i] + 1] - row) : 0;
            int inclusive = degree;
            for (int d = 1; d < 32; d <<= 1) {
                const int y = __shfl_up_sync(0xffffffffu, inclusive, d);
                if (lane >= d) inclusive += y;
            }
            if (i < m) {
                offsets[i] = carry + inclusive - degree;
                rows[i] = row;
            }
            carry += __shfl_sync(0xffffffffu, inclusive, 31);
        }
        const int e = carry;
        __syncwarp();
        long long position[CHUNKS];  // entry c * 32 + lane, in row-major order of the members
        int label[CHUNKS];
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) {
            const int k = c * 32 + lane;
            int u = 0;
            if (k < e) u = owner(offsets, m, k);
            position[c] = k < e ? rows[u] + (k - offsets[u]) : -1;
        }
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) label[c] = position[c] >= 0 ? (int)indices[position[c]] : -1;
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) label[c] = label[c] >= 0 ? labels[label[c]] : a;
        int kept = 0;
#pragma unroll
        for (int c = 0; c < CHUNKS; ++c) {  // the crossing entries, compacted in order
            const bool crossing = label[c] != a;
            const unsigned ballot = __ballot_sync(0xffffffffu, crossing);
            if (crossing) keys[kept + __popc(ballot & below)] = (unsigned long long)label[c] << POS_BITS | (c * 32 + lane);
            kept += __popc(ballot);
        }
        __syncwarp();
        const int sort_rows = pow2_at_least((kept + 31) / 32);
        for (int i = kept + lane; i < 32 * sort_rows; i += 32) keys[i] = NO_ENTRY;
        __syncwarp();
        warp_sort_shared(keys, sort_rows);
        int rank = 0;  // coarse edges before this lane's entries
        for (int r = 0; r < sort_rows; ++r) {
            const int i = r * 32 + lane;
            const bool head = i < kept && (i == 0 || keys[i] >> POS_BITS != keys[i - 1] >> POS_BITS);
            const unsigned heads = __ballot_sync(0xffffffffu, head);
            if (head) {
                const unsigned long long column = keys[i] >> POS_BITS;
                int end = i + 1;
                while (end < kept && keys[end] >> POS_BITS == column) ++end;
                V weight;
                if (weights == nullptr) {
                    weight = V(end - i);
                } else {
                    const auto value = [&](long long q) {
                        const int k = (int)(keys[i + q] & ((1ULL << POS_BITS) - 1));
                        const int u = owner(offsets, m, k);
                        return weights[rows[u] + (k - offsets[u])];
                    };
                    weight = reduceat_sum<V>(value, end - i);
                }
                const long long at = slot[a] + rank + __popc(heads & below);
                out_columns[at] = (I)column;
                out_weights[at] = weight;
            }
            rank += __popc(heads);
        }
        if (lane == 0) edge_counts[a] = rank;
        __syncwarp();
    }
}

// Rows written at slot[a] moved to row_ptr[a] (a warp per aggregate)
template <typename I, typename V>
__global__ void pack_rows(long long k, const long long* slot, const long long* row_ptr, const I* columns,
                          const V* weights, I* out_columns, V* out_weights)
{
    const int lane = threadIdx.x & 31;
    const long long warps = ((long long)gridDim.x * blockDim.x) >> 5;
    for (long long a = (blockIdx.x * (long long)blockDim.x + threadIdx.x) >> 5; a < k; a += warps) {
        const long long from = slot[a], to = row_ptr[a], n = row_ptr[a + 1] - to;
        for (long long q = lane; q < n; q += 32) {
            out_columns[to + q] = columns[from + q];
            out_weights[to + q] = weights[from + q];
        }
    }
}

template <int THREADS, int CAPACITY, typename I, typename V>
__global__ void coarse_by_sort(const long long* aggregates, const long long* count, const long long* load,
                               const long long* starts, const int* members,
                               const long long* indptr, const I* indices, const int* labels, const V* weights,
                               long long* edge_counts, const long long* slot, I* out_columns, V* out_weights)
{
    static_assert(CAPACITY <= (1 << POS_BITS), "positions must fit in POS_BITS");
    __shared__ unsigned long long keys[CAPACITY];
    __shared__ int mine[CAPACITY];         // the members, ascending
    __shared__ int offsets[CAPACITY + 1];  // entries before each member
    __shared__ int scratch[THREADS];
    const int t = threadIdx.x;
    for (long long g = blockIdx.x; g < *count; g += gridDim.x) {
        const int a = (int)aggregates[g];
        if (load[a] > CAPACITY) {  // too large: the launcher's sort of the larger ones' keys adds its edges
            if (t == 0) edge_counts[a] = 0;
            continue;
        }
        const long long first = starts[a];
        const int m = (int)(starts[a + 1] - first);
        const int pm = pow2_at_least(m);
        for (int i = t; i < pm; i += THREADS) mine[i] = i < m ? members[first + i] : 0x7fffffff;
        __syncthreads();
        block_sort<THREADS>(mine, pm);
        int carry = 0, total;
        for (int base = 0; base < m; base += THREADS) {  // offsets of the members' rows
            const int i = base + t;
            const int degree = i < m ? (int)(indptr[mine[i] + 1] - indptr[mine[i]]) : 0;
            const int before = block_scan<THREADS>(degree, scratch, &total);
            if (i < m) offsets[i] = carry + before;
            carry += total;
        }
        if (t == 0) offsets[m] = carry;
        __syncthreads();
        const int e = carry;
        const int p = pow2_at_least(e);
        for (int k = t; k < p; k += THREADS) {  // gather, in row-major order of the members
            unsigned long long key = NO_ENTRY;
            if (k < e) {
                const int u = owner(offsets, m, k);
                const int b = labels[indices[indptr[mine[u]] + (k - offsets[u])]];
                if (b != a) key = (unsigned long long)b << POS_BITS | (unsigned long long)k;
            }
            keys[k] = key;
        }
        __syncthreads();
        block_sort<THREADS>(keys, p);
        // a run starts where the label changes; each thread takes a contiguous chunk
        const int chunk = (p + THREADS - 1) / THREADS;
        const int lo = min(t * chunk, p), hi = min(lo + chunk, p);
        int heads = 0;
        for (int i = lo; i < hi; ++i)
            heads += keys[i] != NO_ENTRY && (i == 0 || keys[i] >> POS_BITS != keys[i - 1] >> POS_BITS);
        int rank = block_scan<THREADS>(heads, scratch, &total);
        if (t == 0) edge_counts[a] = total;
        for (int i = lo; i < hi; ++i) {
            if (keys[i] == NO_ENTRY || (i > 0 && keys[i] >> POS_BITS == keys[i - 1] >> POS_BITS)) continue;
            const unsigned long long label = keys[i] >> POS_BITS;
            int end = i + 1;
            while (end < p && keys[end] != NO_ENTRY && keys[end] >> POS_BITS == label) ++end;
            V w;
            if (weights == nullptr) {
                w = V(end - i);
            } else {
                const auto at = [&](long long r) {
                    const int k = (int)(keys[i + r] & ((1ULL << POS_BITS) - 1));
                    const int u = owner(offsets, m, k);
                    return weights[indptr[mine[u]] + (k - offsets[u])];
                };
                w = reduceat_sum<V>(at, end - i);
            }
            out_columns[slot[a] + rank] = (I)label;
            out_weights[slot[a] + rank] = w;
            ++rank;
        }
        __syncthreads();  // shared arrays are reused by the next aggregate
    }
}

// The larger aggregates' entries as sortable keys, one thread an entry p of row u:
// (a k + label(v)) << pos_bits | p where u is in an aggregate a of more than capacity
// entries or members and label(v) != a, else NO_ENTRY. The position p orders each coarse
// edge's fine entries as row-major order of the members (rows ascending, columns in order),
// the order the other kernels sum them in.
template <typename I>
__global__ void huge_keys(long long nnz, long long n, const long long* indptr, const I* indices, const int* labels,
                          const long long* load, long long capacity, long long k, int pos_bits,
                          unsigned long long* keys)
{
    for (long long p = blockIdx.x * (long long)blockDim.x + threadIdx.x; p < nnz;
         p += (long long)gridDim.x * blockDim.x) {
        long long lo = 0, hi = n;  // the row of p: the last u with indptr[u] <= p
        while (hi - lo > 1) {
            const long long mid = (lo + hi) >> 1;
            if (indptr[mid] <= p) lo = mid; else hi = mid;
        }
        const int a = labels[lo];
        unsigned long long key = NO_ENTRY;
        if (load[a] > capacity) {
            const int b = labels[indices[p]];
            if (b != a) key = ((unsigned long long)a * (unsigned long long)k + (unsigned long long)b) << pos_bits | p;
        }
        keys[p] = key;
    }
}

// heads[i] = 1 where sorted key i starts a coarse edge (a new (a, b)), else 0
__global__ void huge_heads(long long nnz, int pos_bits, const unsigned long long* keys, long long* heads)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nnz;
         i += (long long)gridDim.x * blockDim.x)
        heads[i] = keys[i] != NO_ENTRY && (i == 0 || keys[i] >> pos_bits != keys[i - 1] >> pos_bits);
}

// Each coarse edge of the larger aggregates from its run of sorted keys (rank: the inclusive
// count of heads): written at slot[a] + its rank within a (the heads since a's first key,
// found by binary search), its weight the run's sum in numpy's reduceat order (a count
// without weights); the last edge of a writes edge_counts[a] (a larger aggregate without
// crossing entries keeps the block kernel's 0).
template <typename I, typename V>
__global__ void huge_edges(long long nnz, int pos_bits, long long k, const unsigned long long* keys,
                           const long long* rank, const V* weights,
                           long long* edge_counts, const long long* slot, I* out_columns, V* out_weights)
{
    const unsigned long long mask = (1ULL << pos_bits) - 1;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < nnz;
         i += (long long)gridDim.x * blockDim.x) {
        const unsigned long long edge = keys[i] >> pos_bits;
        if (keys[i] == NO_ENTRY || (i > 0 && keys[i - 1] >> pos_bits == edge)) continue;
        const long long a = (long long)(edge / (unsigned long long)k), b = (long long)(edge % (unsigned long long)k);
        const unsigned long long first_key = (unsigned long long)a * (unsigned long long)k << pos_bits;
        long long lo = 0, hi = i;  // a's first key: the first index with keys[index] >= first_key
        while (lo < hi) {
            const long long mid = (lo + hi) >> 1;
            if (keys[mid] < first_key) lo = mid + 1; else hi = mid;
        }
        const long long r = rank[i] - rank[lo];
        long long end = i + 1;
        while (end < nnz && keys[end] >> pos_bits == edge) ++end;
        V w;
        if (weights == nullptr) {
            w = V(end - i);
        } else {
            const auto at = [&](long long q) { return weights[keys[i + q] & mask]; };
            w = reduceat_sum<V>(at, end - i);
        }
        out_columns[slot[a] + r] = (I)b;
        out_weights[slot[a] + r] = w;
        if (end == nnz || keys[end] == NO_ENTRY || (long long)((keys[end] >> pos_bits) / (unsigned long long)k) != a)
            edge_counts[a] = r + 1;
    }
}

}  // namespace gbgraph

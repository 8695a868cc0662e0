// Heavy edge coarsening (Gilbert et al.'s Algorithm 3, visiting by decreasing key) as five
// fused passes launched back to back: heavy neighbours, the visit in key order, and the
// numbering of the roots in three. The algebraic reference is gbgraph/algorithms/heavy.py
// (hec): its row operators HEAVIEST and VISIT, pointer jumping, and the scan that numbers
// the roots. Each pass reads only what the passes before it wrote, or, in the visit, what a
// count brought to zero hands on; so the labels, their count and the rounds are the
// algebra's, whatever the order in which threads run.
#pragma once
#include "hashing.cu"
#include "worklist.cuh"

namespace gbgraph {
namespace native {

// flags: WAITED, set by the heavy pass, marks a vertex some in-neighbour waits on (key(w) >
// key(u) with H(w) = u); CLAIMED, set by the visit, one mapped before its own visit.
constexpr unsigned char WAITED = 1, CLAIMED = 2;
// vertices per thread in a tile of the numbering
constexpr int ITEMS = 8;

// key(v) = hash(v, seed) << nv | (v + 1), algorithms/heavy.py's Keys: Packing(n, 64) with
// the seed as its round, seed_half = round_part<64, true>(seed)
__device__ __forceinline__ unsigned long long vertex_key(long long v, unsigned long long seed_half, int nv)
{
    return packed_status<64, true>(v, seed_half, nv, 0ULL);
}

// (w, key) > (best_w, best) in lexicographic order, best = 0 standing for none yet (keys hold
// v + 1 in their low bits, so no key is 0); HEAVIEST's comparison, weights without NaN
template <typename W>
__device__ __forceinline__ bool heavier(W w, unsigned long long key, W best_w, unsigned long long best)
{
    return best == 0 || w > best_w || (w == best_w && key > best);
}

// __shfl_xor_sync for the weight types, the ones narrower than a word widened to int
template <typename W>
__device__ __forceinline__ W shuffle_xor(W x, int mask)
{
    if constexpr (sizeof(W) < 4)
        return (W)__shfl_xor_sync(0xffffffffu, (int)x, mask);
    else
        return __shfl_xor_sync(0xffffffffu, x, mask);
}

// Sum over the block of one value per thread, which every thread gets; scratch: a word per warp
__device__ __forceinline__ long long block_sum(long long x, long long* scratch)
{
    for (int o = 16; o > 0; o >>= 1) x += __shfl_xor_sync(0xffffffffu, x, o);
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = x;
    __syncthreads();
    long long sum = 0;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) sum += scratch[w];
    __syncthreads();  // before scratch is written again
    return sum;
}

// H<u> = A ⊕max.(W, key) keys ([1] Alg.3 l.5-10, HEAVIEST): LANES consecutive threads
// share a row and meet in shuffles; H(u) = u where u has no neighbour. A u that precedes its
// heavy neighbour v (key(u) > key(v)) waits on it: it counts in waiting[v] and marks v WAITED
// (count_waiting). waiting and flags come zeroed; depth[u] = 0 for the visit.
template <typename W, typename I, int LANES>
__global__ void hec_heavy(const long long n, const long long* __restrict__ indptr, const I* __restrict__ indices,
                          const W* __restrict__ weights, const long long seed, const int nv, I* H, int* waiting,
                          unsigned char* flags, int* depth)
{
    const unsigned long long seed_half = round_part<64, true>(seed), low = (1ULL << nv) - 1ULL;
    const int lane = threadIdx.x % LANES;
    const long long group = first_thread() / LANES, groups = thread_stride() / LANES;
    const long long warp_first = group - (threadIdx.x & 31) / LANES;  // the loop bound is the warp's, for the shuffles
    for (long long base = warp_first; base < n; base += groups) {
        const long long u = base + (group - warp_first);
        W heaviest = W(0);
        unsigned long long best = 0;
        if (u < n) {
            for (long long p = indptr[u] + lane; p < indptr[u + 1]; p += LANES) {
                const W w = weights ? weights[p] : W(1);
                const unsigned long long key = vertex_key(indices[p], seed_half, nv);
                if (heavier(w, key, heaviest, best)) {
                    heaviest = w;
                    best = key;
                }
            }
        }
        for (int o = LANES / 2; o > 0; o >>= 1) {
            const W w = shuffle_xor(heaviest, o);
            const unsigned long long key = __shfl_xor_sync(0xffffffffu, best, o);
            if (key != 0 && heavier(w, key, heaviest, best)) {
                heaviest = w;
                best = key;
            }
        }
        if (u < n && lane == 0) {
            const long long v = best ? (long long)(best & low) - 1 : u;
            H[u] = (I)v;
            depth[u] = 0;
            if (best && vertex_key(u, seed_half, nv) > best) {
                atomicAdd(waiting + v, 1);
                flags[v] = WAITED;
            }
        }
    }
}

// [1] Alg.3 l.3-14 by decreasing key, as visit_chains: u is decided once every in-neighbour
// that waits on it is; u is unmapped when visited unless one of them, itself unmapped,
// claimed it (l.11-12 map H(w) along with w). Threads start at the vertices nobody waits on
// (unmapped when visited, depth 0: no other thread writes them); the one that brings a count
// to zero goes on with that vertex, so each chain is walked once, in key order, and nobody
// spins. H[u] becomes u's parent as u is decided (only u's decider reads it): H(u) for an
// unmapped u (l.14, M(u) = M(H(u))), u itself for a claimed one, which roots its coarse
// vertex. depth[u] + 1 is the round in which the verbs decide u; out[1] gets the largest
// over the vertices with a neighbour (zeroed).
template <typename I>
__global__ void hec_visit(const long long n, const long long seed, const int nv, I* H, int* waiting,
                          volatile unsigned char* flags, volatile int* depth, unsigned long long* out)
{
    const unsigned long long seed_half = round_part<64, true>(seed);
    int deepest = 0;
    for (long long start = first_thread(); start < n; start += thread_stride()) {
        if (flags[start] & WAITED) continue;  // its last waiting in-neighbour's thread decides it
        long long u = start;
        int d = 1;
        while (true) {
            const bool unclaimed = !(flags[u] & CLAIMED);
            const long long v = H[u];
            if (!unclaimed) H[u] = (I)u;
            if (v == u) break;  // no neighbour: decided in no round
            deepest = max(deepest, d);
            if (vertex_key(u, seed_half, nv) <= vertex_key(v, seed_half, nv)) break;  // v came first
            if (unclaimed) flags[v] = WAITED | CLAIMED;
            atomicMax((int*)depth + v, d);
            __threadfence();  // the claim and depth before the count
            if (atomicSub(waiting + v, 1) != 1) break;
            __threadfence();  // the other waiting in-neighbours' claims and depths after it
            u = v;
            d = depth[u] + 1;
        }
    }
    deepest = __reduce_max_sync(0xffffffffu, deepest);  // one atomic per warp
    if ((threadIdx.x & 31) == 0 && deepest) atomicMax(out + 1, (unsigned long long)deepest);
}

// The numbering ([1] Alg.5 l.17-22: pointer jumping p = p(p), then FINDUNIQUEANDRELABEL,
// the roots numbered in ascending id), in three passes on the same grid: block b counts the
// roots (parent[u] = u) of its contiguous slice of the vertices, numbers them after those of
// the slices before it, and every vertex takes its root's number.
__device__ __forceinline__ void slice_of_block(const long long n, long long& lo, long long& hi)
{
    const long long slice = (n + gridDim.x - 1) / gridDim.x;
    lo = min(n, blockIdx.x * slice);
    hi = min(n, lo + slice);
}

template <typename I>
__global__ void hec_count(const long long n, const I* __restrict__ parent, unsigned long long* slice_roots)
{
    __shared__ long long scratch[32];
    long long lo, hi, roots = 0;
    slice_of_block(n, lo, hi);
    for (long long u = lo + threadIdx.x; u < hi; u += blockDim.x) roots += parent[u] == u;
    roots = block_sum(roots, scratch);
    if (threadIdx.x == 0) slice_roots[blockIdx.x] = roots;
}

// labels[r] = the rank of each root r among the roots; out[0] = their number. A tile is
// ITEMS rows of the block's threads (coalesced): a ballot per warp and row, then ranks.
template <typename I>
__global__ void hec_number(const long long n, const I* __restrict__ parent,
                           const unsigned long long* __restrict__ slice_roots, long long* labels,
                           unsigned long long* out)
{
    __shared__ long long scratch[32];
    __shared__ int warp_roots[ITEMS][32];
    long long lo, hi, before = 0;
    slice_of_block(n, lo, hi);
    for (long long b = threadIdx.x; b < blockIdx.x; b += blockDim.x) before += slice_roots[b];
    before = block_sum(before, scratch);
    if (blockIdx.x == gridDim.x - 1 && threadIdx.x == 0) out[0] = before + slice_roots[blockIdx.x];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
    for (long long tile = lo; tile < hi; tile += (long long)blockDim.x * ITEMS) {
        const long long base = tile + threadIdx.x;
        bool root[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            const long long u = base + (long long)k * blockDim.x;
            root[k] = u < hi && parent[u] == u;
        }
        unsigned ballots[ITEMS];
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            ballots[k] = __ballot_sync(0xffffffffu, root[k]);
            if (lane == 0) warp_roots[k][warp] = __popc(ballots[k]);
        }
        __syncthreads();
#pragma unroll
        for (int k = 0; k < ITEMS; ++k) {
            long long rank = before + __popc(ballots[k] & ((1u << lane) - 1u));
            for (int w = 0; w < warps; ++w) {
                const int c = warp_roots[k][w];
                if (w < warp) rank += c;
                before += c;
            }
            if (root[k]) labels[base + (long long)k * blockDim.x] = rank;
        }
        __syncthreads();  // before warp_roots is written again
    }
}

// labels[u] = labels[p^∞(u)], the number of u's root, for the other vertices
template <typename I>
__global__ void hec_labels(const long long n, const I* __restrict__ parent, long long* labels)
{
    for (long long u = first_thread(); u < n; u += thread_stride()) {
        long long r = parent[u];
        if (r == u) continue;
        while (parent[r] != r) r = parent[r];
        labels[u] = labels[r];
    }
}

}  // namespace native
}  // namespace gbgraph

// Distance-1 and distance-2 maximal independent sets as one cooperative kernel: Kelley &
// Rajamanickam's Algorithm 1 (Kokkos Kernels' MIS2_FAST with K = 2 and hashed statuses), its
// fixed-status variants, and Luby's rounds for K = 1. The algebraic reference is
// gbgraph/algorithms/mis.py (_rounds); this kernel runs the same rounds with the loop on the
// device: each phase reads only what the phase before it wrote, so the set and the number of
// rounds are those of the verbs, whatever the order in which threads run.
#pragma once
#include <cooperative_groups.h>
#include "hashing.cu"
#include "worklist.cuh"

namespace gbgraph {
namespace native {

// Status of vertex i: fixed[i] (HASH = 0), else T_i(r) from the round's half (hashing.cu;
// HASH = 1: xorshift*, 2: plain xorshift), in the container type S (int: 32-bit tuples with
// the top bit flipped; unsigned long long: 64-bit tuples).
template <typename S, int BITS, int HASH>
__device__ __forceinline__ S status(long long i, unsigned long long round_half, const S* fixed, int nv,
                                    unsigned long long high_bits)
{
    if (HASH == 0) return fixed[i];
    return (S)packed_status<BITS, HASH == 1>(i, round_half, nv, high_bits);
}

template <int BITS, int HASH>
__device__ __forceinline__ unsigned long long half_of_round(long long r)
{
    return HASH == 0 ? 0ULL : round_part<BITS, HASH == 1>(r);
}

// T: statuses (out), M: the column level (scratch), counts: 5 zeroed words (undecided rows
// x3, rounds, the set's size). T = IN marks the set on return; counts[rounds % 3] is what
// stayed undecided. With ``set`` (n entries, and range_counts: a word per block) the set's
// vertices are also written there in ascending order; the rounds count them by range
// (v >> shift, shift = select_shift(n)) as they join, so that the selection needs neither a
// pass of its own nor a barrier.
//
// The worklists are the statuses themselves, read in vertex order: row v is in wl1 while
// IN < T[v] < OUT, and column c in wl2 while IN < M[c] < OUT (M starts between them, and a
// column that reaches IN or OUT never moves again, l.34). Every pass then streams T or M
// and the rows' CSR in order, as a GPU reads best. (Lists of the undecided rows for the
// sparse rounds saved 0.09 of 1.71 ms at 200³ with 6 blocks per multiprocessor, but their
// live values spill at 8, which is faster without them: docs/native.md.) BLOCKS: blocks
// per multiprocessor, which caps the registers.
template <typename S, typename O, typename I, int K, int BITS, int HASH, int BLOCKS>
__global__ void __launch_bounds__(256, BLOCKS)
mis_rounds(const long long n, const O* __restrict__ indptr, const I* __restrict__ indices,
           const S* __restrict__ fixed, const bool* __restrict__ candidates, const int nv,
           const unsigned long long high_bits, const S in, const S out, const long long max_iter, S* T, S* M,
           unsigned long long* counts, const int shift, unsigned long long* range_counts, long long* set)
{
    cooperative_groups::grid_group grid = cooperative_groups::this_grid();
    const long long first = first_thread(), stride = thread_stride();

    // l.6-7, l.11-15 of round 0: the candidates (every vertex without a mask) get a status
    // and form wl1, the others start OUT; every column is in wl2
    const unsigned long long half0 = half_of_round<BITS, HASH>(0);
    unsigned listed_here = 0;
    for (long long i = first; i < n; i += stride) {
        const bool listed = candidates == nullptr || candidates[i];
        T[i] = listed ? status<S, BITS, HASH>(i, half0, fixed, nv, high_bits) : out;
        M[i] = in + 1;
        listed_here += listed;
    }
    if (set != nullptr)
        for (long long b = first; b < gridDim.x; b += stride) range_counts[b] = 0;
    add_over_block(listed_here, &counts[0]);
    grid.sync();

    long long r = 0;
    for (;; ++r) {
        if (counts[r % 3] == 0 || r == max_iter) break;  // l.9
        // l.17-22, l.34 (K = 2): M<wl2> = A ⊕min.second T, over the columns with IN < M < OUT;
        // (K = 1): M<wl1> = A ⊕min.second T, the minimum the decision compares with
        for (long long i = first; i < n; i += stride) {
            bool listed;
            if (K == 2) {
                const S m = M[i];
                listed = in < m && m < out;
            } else {
                const S t = T[i];
                listed = in < t && t < out;
            }
            if (listed) M[i] = closed_min(T, i, indptr, indices);
        }
        if (first == 0) counts[(r + 2) % 3] = 0;  // nobody reads it until the next round's barriers
        grid.sync();

        // l.24-31: D<wl1> = A ⊕min.second M (K = 2) or M itself (K = 1); T = IN where D == T,
        // OUT where D == IN; the rest stay in wl1 with next round's status (l.11-15, l.33)
        const unsigned long long half = half_of_round<BITS, HASH>(r + 1);
        unsigned undecided_here = 0;
        for (long long v = first; v < n; v += stride) {
            const S t = T[v];
            bool undecided = in < t && t < out;
            if (undecided) {
                const S d = K == 2 ? closed_min(M, v, indptr, indices) : M[v];
                undecided = d != t && d != in;
                if (!undecided) {
                    T[v] = d == t ? in : out;
                    if (d == t && set != nullptr) atomicAdd(&range_counts[v >> shift], 1ULL);
                } else if (HASH != 0)
                    T[v] = status<S, BITS, HASH>(v, half, fixed, nv, high_bits);
            }
            undecided_here += undecided;
        }
        add_over_block(undecided_here, &counts[(r + 1) % 3]);
        grid.sync();
    }
    if (first == 0) counts[3] = r;
    if (set != nullptr) write_selected(T, in, n, shift, range_counts, set, &counts[4]);  // l.37: select(T == IN)
}

}  // namespace native
}  // namespace gbgraph

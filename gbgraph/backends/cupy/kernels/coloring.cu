// The fused verbs of the coloring rounds (the CPU's are backends/numba/kernels/coloring.py;
// their GraphBLAS forms are in backends/base.py): first fit and in-group products, one
// thread per listed row.
#pragma once
#include "semiring.cuh"

namespace gbgraph {

// The colors base..base+63 reached from row i, as a bit word: its own row's colors, or,
// with net_words (distance 2), the OR of its nets' words.
template <typename I>
__device__ __forceinline__ unsigned long long forbidden_word(long long i, const long long* indptr, const I* indices,
                                                             const long long* colors, const unsigned long long* net_words,
                                                             long long base)
{
    unsigned long long word = 0;
    for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
        const long long j = indices[p];
        if (net_words != nullptr) {
            word |= net_words[j];
        } else {
            const long long offset = colors[j] - base;
            if (offset >= 0 && offset < 64) word |= 1ULL << offset;
        }
    }
    return word;
}

// chosen[k] = the first color of base..base+63 that row rows[k] does not reach, for the rows
// still at -1; rows whose window is full stay at -1 for the next window.
template <typename I>
__global__ void first_fit_window(const long long* rows, long long count, const long long* indptr, const I* indices,
                                 const long long* colors, const unsigned long long* net_words, long long base,
                                 long long* chosen)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x) {
        if (chosen[k] >= 0) continue;
        const unsigned long long word = forbidden_word(rows[k], indptr, indices, colors, net_words, base);
        if (word != ~0ULL) chosen[k] = base + __ffsll((long long)~word) - 1;
    }
}

// Sequential first fit by position (the greedy coloring in that order), as rounds that may
// run in any order: row rows[k] takes its first fit once every row of lower position[] among
// its neighbours has taken its own. A color taken is stored as TAKEN + color, so a neighbour
// can tell it from the colors the rows had before (-1: none), which still count until
// replaced. Only a row whose earlier neighbours are all done writes, and no later neighbour
// of it can be done yet, so a row's color depends on the order alone, not on the schedule;
// rows that find an earlier neighbour not done count themselves in left[0] for another
// round. A neighbour done during this round may be seen or not: either way the result is
// the same, only the number of rounds differs.
constexpr long long TAKEN = 1LL << 40;

template <typename I>
__global__ void first_fit_ready(const long long* rows, long long count, const long long* indptr, const I* indices,
                                const long long* position, long long* colors, unsigned long long* left)
{
    volatile long long* shared_colors = colors;  // read past the L1 cache: other threads write them
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x) {
        const long long i = rows[k];
        if (shared_colors[i] >= TAKEN) continue;
        const long long at = position[i];
        bool ready = true;
        for (long long p = indptr[i]; p < indptr[i + 1] && ready; ++p) {
            const long long j = indices[p], before = position[j];
            ready = j == i || before < 0 || before > at || shared_colors[j] >= TAKEN;
        }
        if (!ready) {
            atomicAdd(left, 1ULL);
            continue;
        }
        long long chosen = -1;
        for (long long base = 0; chosen < 0; base += 64) {
            unsigned long long word = 0;
            for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
                long long c = shared_colors[indices[p]];
                const long long offset = (c >= TAKEN ? c - TAKEN : c) - base;
                if (offset >= 0 && offset < 64) word |= 1ULL << offset;
            }
            if (word != ~0ULL) chosen = base + __ffsll((long long)~word) - 1;
        }
        shared_colors[i] = TAKEN + chosen;
    }
}

// net_words[w] = the colors base..base+63 in the net N[w] (every net).
template <typename I>
__global__ void net_words(const long long* indptr, const I* indices, long long n, const long long* colors,
                          long long base, unsigned long long* words)
{
    for (long long w = blockIdx.x * (long long)blockDim.x + threadIdx.x; w < n; w += (long long)gridDim.x * blockDim.x)
        words[w] = forbidden_word(w, indptr, indices, colors, (const unsigned long long*)nullptr, base);
}

// out[k] = (+) of values[j] over the j of row rows[k] with present[j] and groups[j] ==
// groups[rows[k]], in column order; found[k]: some j qualified.
template <typename Monoid, typename T, typename I>
__global__ void grouped_reduce(const long long* rows, long long count, const long long* indptr, const I* indices,
                               const T* values, const bool* present, const long long* groups, T* out, bool* found)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x) {
        const long long i = rows[k], g = groups[i];
        T acc = Monoid::identity();
        bool hit = false;
        for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
            const long long j = indices[p];
            if (!present[j] || groups[j] != g) continue;
            acc = hit ? Monoid::op(acc, values[j]) : values[j];
            hit = true;
        }
        out[k] = acc;
        found[k] = hit;
    }
}

}  // namespace gbgraph

// The device forms of the protocol's general products: a pushed vector-matrix product and
// a matrix product under a structural mask (dot products), over any semiring of
// semiring.cuh.
//
// Neither depends on the order in which threads run: push combines with integer atomics
// (min, max and a wrapping plus: the same result in any order), and each masked dot product
// is one thread merging two sorted rows, its terms reduced in the order of the inner index
// as the numba backend's expansion and SuiteSparse's dot products reduce them.
#pragma once
#include "vector.cu"

namespace gbgraph {

// Atomic ``*slot = slot (+) x`` for the monoids of integers whose result is the same in any
// order (MONOID 0 min, 1 max, 2 plus).
template <int MONOID, typename T>
__device__ __forceinline__ void combine(T* slot, T x)
{
    if constexpr (MONOID == 0) atomicMin(slot, x);
    else if constexpr (MONOID == 1) atomicMax(slot, x);
    else if constexpr (sizeof(T) == 8) atomicAdd((unsigned long long*)slot, (unsigned long long)x);
    else atomicAdd(slot, x);
}

// A sparse vector's entries written into dense arrays: out[indices[k]] = values[k] (out may
// be nullptr: the positions only) and present[indices[k]] = 1, in one pass.
template <typename T>
__global__ void scatter_dense(const long long* indices, const T* values, const long long* count_ptr, long long count,
                              T* out, unsigned char* present)
{
    const long long n = entries(count_ptr, count);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
        const long long j = indices[k];
        if (out != nullptr) out[j] = values[k];
        present[j] = 1;
    }
}

// w<mask> = u (+).(x) A pushed from u's entries: entry u(i) meets row i of A, and each
// A(i, j) whose j the mask lets through adds Mult(A(i, j), u(i), i) into out[j] (which
// holds the monoid's identity), marking found[j]. ``mask`` (nullptr: none) holds a byte per
// position, nonzero where the mask has an entry, read the other way round when
// ``complement``. Mult is the multiply as the pull over Aᵀ sees it (operands swapped).
// LANES threads share an entry of u (a power of two up to 32, about A's mean row length),
// taking the row's entries in turn: a long row is no one thread's loop.
template <int MONOID, typename Mult, typename TW, typename TA, typename TU, typename I, int LANES>
__global__ void push(const long long* u_indices, const TU* u_values, const long long* count_ptr, long long count,
                     const long long* indptr, const I* indices, const TA* a, const unsigned char* mask,
                     int complement, TW* out, unsigned char* found)
{
    const long long n = entries(count_ptr, count);
    const int lane = threadIdx.x % LANES;
    const long long groups = ((long long)gridDim.x * blockDim.x) / LANES;
    for (long long k = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / LANES; k < n; k += groups) {
        const long long i = position(u_indices, k);
        const TU x = u_values[k];
        for (long long p = indptr[i] + lane; p < indptr[i + 1]; p += LANES) {
            const long long j = indices[p];
            if (mask != nullptr && (mask[j] != 0) == (complement != 0)) continue;
            combine<MONOID>(out + j, Mult::op(a == nullptr ? TA(1) : a[p], x, i));
            found[j] = 1;
        }
    }
}

// C<M> = A (+).(x) B for a structural mask M, B given by the rows of Bᵀ: at each entry
// (rows[e], m_indices[e]) of M, row i of A merged with row j of Bᵀ, the terms
// Mult(A(i, k), B(k, j), k) reduced in increasing k; found[e] = 1 where a k exists.
template <typename Monoid, typename Mult, typename TW, typename TA, typename TB, typename I, typename J>
__global__ void masked_dot(const long long* rows, const J* m_indices, long long nnz, const long long* a_indptr,
                           const I* a_indices, const TA* a, const long long* bt_indptr, const I* bt_indices,
                           const TB* b, TW* out, unsigned char* found)
{
    for (long long e = blockIdx.x * (long long)blockDim.x + threadIdx.x; e < nnz;
         e += (long long)gridDim.x * blockDim.x) {
        const long long i = rows[e], j = m_indices[e];
        long long p = a_indptr[i], p_end = a_indptr[i + 1];
        long long q = bt_indptr[j], q_end = bt_indptr[j + 1];
        TW acc = Monoid::identity();
        bool hit = false;
        while (p < p_end && q < q_end) {
            const long long ka = a_indices[p], kb = bt_indices[q];
            if (ka < kb) { ++p; continue; }
            if (kb < ka) { ++q; continue; }
            // Mult's operands: A's value first, B's second; the index its positional forms take is k
            const TW x = Mult::op(a == nullptr ? TA(1) : a[p], b == nullptr ? TB(1) : b[q], ka);
            acc = hit ? Monoid::op(acc, x) : x;
            hit = true;
            ++p;
            ++q;
        }
        out[e] = acc;
        found[e] = hit;
    }
}

}  // namespace gbgraph

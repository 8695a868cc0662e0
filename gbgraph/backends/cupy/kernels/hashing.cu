// Packed MIS-2 statuses T_i(r) of the listed vertices in one pass, hashes included
// (gbgraph.hashing.Packing.__call__ is the reference and documents the formula).
// The round r comes from *round_ptr when given (a captured round reads it on the device),
// else from ``round``.
#pragma once
#include "vector.cu"

namespace gbgraph {

constexpr unsigned long long MULTIPLIER = 2685821657736338717ULL;

__device__ __forceinline__ unsigned long long xorshift(unsigned long long x)
{
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    return x;
}

// Kokkos Kernels' xorshiftHash<uint32_t or uint64_t> (STAR), or Table I's plain xorshift
template <int BITS, bool STAR>
__device__ __forceinline__ unsigned long long hash(unsigned long long x)
{
    x = STAR ? xorshift(x) * MULTIPLIER - 1ULL : xorshift(x);
    return BITS == 32 ? (x >> 16) & 0xFFFFFFFFULL : x;
}

// xorshift(f(r)), the round's half of every status of round r
template <int BITS, bool STAR>
__device__ __forceinline__ unsigned long long round_part(long long round)
{
    return xorshift(hash<BITS, STAR>(round));
}

// T_i(r) in its container's bits (32: the uint32 tuple with its top bit flipped, read as an
// int; 64: the tuple), from the round's half; high_bits masks bits nv..31 of 32-bit tuples
template <int BITS, bool STAR>
__device__ __forceinline__ unsigned long long packed_status(long long i, unsigned long long round_half, int nv,
                                                            unsigned long long high_bits)
{
    unsigned long long x = xorshift(hash<BITS, STAR>(i)) ^ round_half;  // xorshift is linear: xorshift(f(i) ^ f(r))
    if (STAR) x = x * MULTIPLIER - 1ULL;
    if (BITS == 32) {
        const int shift = nv - 16;
        x = shift >= 0 ? x << shift : x >> -shift;
        return ((x & high_bits) | (unsigned long long)(i + 1)) ^ 0x80000000ULL;
    }
    return (x << nv) | (unsigned long long)(i + 1);
}

template <int BITS, bool STAR>
__global__ void packed_statuses(const long long* ids, const long long* count_ptr, long long count,
                                const long long* round_ptr, long long round, int nv, unsigned long long high_bits,
                                void* out)
{
    const long long n = entries(count_ptr, count);
    const unsigned long long round_half = round_part<BITS, STAR>(round_ptr != nullptr ? *round_ptr : round);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
        const unsigned long long x = packed_status<BITS, STAR>(position(ids, k), round_half, nv, high_bits);
        if (BITS == 32)
            static_cast<int*>(out)[k] = (int)(unsigned int)x;
        else
            static_cast<unsigned long long*>(out)[k] = x;
    }
}

}  // namespace gbgraph

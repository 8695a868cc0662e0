// numpy's order of floating-point additions in ufunc.reduceat, so that sums on the GPU equal
// numpy's bit for bit.
#pragma once

namespace gbgraph {

// numpy's pairwise_sum of x[start..start+n) for n <= 128: fewer than 8 values added in
// order, otherwise 8 interleaved partial sums (numpy/_core/src/umath/loops_utils.h.src).
template <typename V, typename At>
__device__ V pairwise_block(const At& x, long long start, long long n)
{
    if (n < 8) {
        V res = V(-0.0);
        for (long long i = 0; i < n; ++i) res += x(start + i);
        return res;
    }
    V r[8];
    for (int j = 0; j < 8; ++j) r[j] = x(start + j);
    long long i = 8;
    for (; i < n - (n % 8); i += 8)
        for (int j = 0; j < 8; ++j) r[j] += x(start + i + j);
    V res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
    for (; i < n; ++i) res += x(start + i);
    return res;
}

// where numpy splits a run of more than 128 values: half of it, rounded down to a multiple of 8
__device__ inline long long pairwise_split(long long n)
{
    const long long half = n / 2;
    return half - half % 8;
}

// numpy's pairwise_sum: runs longer than 128 are split in two and the halves' sums added.
// numpy recurses; a device thread's stack is small (1 KiB by default, and recursion in a
// kernel overflows it on long segments), so this walks the same tree with the path from the
// root as bits and the pending left halves' sums on a fixed stack.
template <typename V, typename At>
__device__ V pairwise_sum(const At& x, long long start, long long n)
{
    if (n <= 128) return pairwise_block<V>(x, start, n);
    constexpr int DEPTH = 48;  // leaves hold >= 64 values, so any segment below 2^54 fits
    V left[DEPTH];
    unsigned long long right = 0;  // bit d: the node at depth d + 1 is its parent's right half
    int depth = 0;
    long long s = start, m = n;
    for (;;) {
        for (; m > 128; ++depth) m = pairwise_split(m);  // down the left halves
        V value = pairwise_block<V>(x, s, m);
        for (;;) {  // up past the right halves, adding each to its left sibling
            if (depth == 0) return value;
            --depth;
            if (!(right >> depth & 1)) break;
            value = left[depth] + value;
            right &= ~(1ull << depth);
        }
        left[depth] = value;
        right |= 1ull << depth;
        s = start;  // the right sibling, found again from the root
        m = n;
        for (int d = 0; d <= depth; ++d) {
            const long long h = pairwise_split(m);
            if (right >> d & 1) {
                s += h;
                m -= h;
            } else {
                m = h;
            }
        }
        ++depth;
    }
}

// numpy's summation of a segment x[0..n) in ufunc.reduceat: x[0] + pairwise_sum(x[1..n))
template <typename V, typename At>
__device__ V reduceat_sum(const At& x, long long n)
{
    return x(0) + pairwise_sum<V>(x, 1, n - 1);
}

}  // namespace gbgraph

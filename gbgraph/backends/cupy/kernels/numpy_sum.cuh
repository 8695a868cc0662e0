// numpy's order of floating-point additions in ufunc.reduceat, so that sums on the GPU equal
// numpy's bit for bit.
#pragma once

namespace gbgraph {

// numpy's summation of a segment x[0..n) in ufunc.reduceat: x[0] + pairwise_sum(x[1..n)),
// where pairwise_sum adds fewer than 8 values in order, up to 128 with 8 interleaved partial
// sums, and splits longer runs in two (numpy/_core/src/umath/loops_utils.h.src).
template <typename V, typename At>
__device__ V pairwise_sum(const At& x, long long start, long long n)
{
    if (n < 8) {
        V res = V(-0.0);
        for (long long i = 0; i < n; ++i) res += x(start + i);
        return res;
    }
    if (n <= 128) {
        V r[8];
        for (int j = 0; j < 8; ++j) r[j] = x(start + j);
        long long i = 8;
        for (; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; ++j) r[j] += x(start + i + j);
        V res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) res += x(start + i);
        return res;
    }
    long long n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum<V>(x, start, n2) + pairwise_sum<V>(x, start + n2, n - n2);
}

template <typename V, typename At>
__device__ V reduceat_sum(const At& x, long long n)
{
    return x(0) + pairwise_sum<V>(x, 1, n - 1);
}

}  // namespace gbgraph

// The products of a multigrid V-cycle on a CSR matrix (gbgraph.amg.device_cycle), one launch
// each and no allocation, so that a whole cycle can be captured as one CUDA graph:
//     Times       y = A x                         (restriction: R r)
//     Residual    y = b - A x
//     Accumulate  y += A x                        (prolongation: x += P e)
//     Jacobi      y = x + omega * s * (b - A x)   (s = D^-1; y and x distinct)
// G consecutive lanes of a warp share a row (G a power of two up to 32, about the mean row
// length), each summing every G-th entry in order; a fixed shuffle tree adds the G sums, so a
// row's sum runs in the same order at every launch (lanes.cuh).
#pragma once
#include "lanes.cuh"

namespace gbgraph {

enum class Product { Times, Residual, Accumulate, Jacobi };

template <typename I, int G, Product op>
__global__ void csr_product(long long n, const I* indptr, const I* indices, const double* values, const double* x,
                            const double* b, const double* s, double omega, double* y)
{
    const LaneGroups<G> groups(n);
    for (long long k = 0; k < groups.rounds; ++k) {
        const long long row = groups.group + k * groups.count;
        const double sum = group_sum<G>(row < n ? indptr[row] : 0, row < n ? indptr[row + 1] : 0, groups.lane, values,
                                        indices, x);
        if (row < n && groups.lane == 0) {
            if constexpr (op == Product::Times)
                y[row] = sum;
            else if constexpr (op == Product::Residual)
                y[row] = b[row] - sum;
            else if constexpr (op == Product::Accumulate)
                y[row] += sum;
            else
                y[row] = x[row] + omega * s[row] * (b[row] - sum);
        }
    }
}

// Jacobi's first sweep from x = 0, the Jacobi product's formula with x = 0 and A x = 0:
// y = 0 + omega * s * (b - 0)
__global__ void jacobi_from_zero(long long n, const double* b, const double* s, double omega, double* y)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        y[i] = 0.0 + omega * s[i] * (b[i] - 0.0);
}

// y = M x for the dense row-major k x k M (the coarsest level's pseudo-inverse), a row per
// thread, summed in order
__global__ void dense_product(long long k, const double* M, const double* x, double* y)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < k; i += (long long)gridDim.x * blockDim.x) {
        double sum = 0.0;
        for (long long j = 0; j < k; ++j)
            sum += M[i * k + j] * x[j];
        y[i] = sum;
    }
}

}  // namespace gbgraph

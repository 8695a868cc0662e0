// Lanczos' recurrence on S = D^-1/2 A D^-1/2 (or on A, s == nullptr) without a host read:
// gbgraph.solvers.polynomial.spectral_radius. One cooperative launch takes steps
// first .. last - 1, each in three phases that meet at grid-wide barriers:
//     w = S v_j - beta_(j-1) v_(j-1)      (and the blocks' shares of w . v_j)
//     alpha_j = w . v_j,  w -= alpha_j v_j  (and the shares of w . w)
//     beta_j = ||w||,  v_(j+1) = w / beta_j
// alpha and beta stay on the device. Every block sums the blocks' shares itself, in the same
// fixed order (per block, then over the blocks), so a step gives the same bits at every run
// and no block waits for another to publish a total.
#include <cooperative_groups.h>

namespace gbgraph {

constexpr int LANCZOS_THREADS = 256;

// The block's sum of its threads' values, in a fixed tree, returned to every thread.
__device__ double block_sum(double value, double* shared)
{
    shared[threadIdx.x] = value;
    __syncthreads();
    for (int half = LANCZOS_THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            shared[threadIdx.x] += shared[threadIdx.x + half];
        __syncthreads();
    }
    const double total = shared[0];
    __syncthreads();  // shared is free for the next sum only once every thread has read it
    return total;
}

// The sum of the blocks' shares partial[0 .. gridDim.x), the same in every block.
__device__ double sum_of_shares(const double* partial, double* shared)
{
    double local = 0.0;
    for (unsigned k = threadIdx.x; k < gridDim.x; k += LANCZOS_THREADS)
        local += partial[k];
    return block_sum(local, shared);
}

// Steps first .. last - 1. v, previous and w are the recurrence's three vectors at step
// `first`; each step turns them round (v_(j+1) is written where w was), so after the launch
// the vector v of step `last` is the one `(last - first) % 3` places on. partial holds
// 2 * gridDim.x doubles. G lanes share a row in the product, as in cycle.cu's csr_product.
template <typename I, int G>
__global__ void __launch_bounds__(LANCZOS_THREADS, 4)
lanczos_steps(long long n, const I* indptr, const I* indices, const double* values, const double* s, double* v,
              double* previous, double* w, int first, int last, double* alphas, double* betas, double* partial)
{
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    __shared__ double shared[LANCZOS_THREADS];
    double* const dot_shares = partial;
    double* const norm_shares = partial + gridDim.x;
    const long long stride = (long long)gridDim.x * LANCZOS_THREADS;
    const long long start = blockIdx.x * (long long)LANCZOS_THREADS + threadIdx.x;
    const bool writer = blockIdx.x == 0 && threadIdx.x == 0;
    const int lane = threadIdx.x % G;
    const long long groups = stride / G;
    const long long first_row = start / G;
    const long long rounds = (n + groups - 1) / groups;  // the same for every lane: full warps shuffle
    for (int j = first; j < last; ++j) {
        const double b = j ? betas[j - 1] : 0.0;
        double local = 0.0;
        for (long long k = 0; k < rounds; ++k) {
            const long long i = first_row + k * groups;
            double sum = 0.0;
            if (i < n)
                for (long long p = indptr[i] + lane; p < indptr[i + 1]; p += G) {
                    const long long c = indices[p];
                    sum += values[p] * (s == nullptr ? v[c] : s[c] * v[c]);
                }
            for (int offset = G / 2; offset > 0; offset /= 2)
                sum += __shfl_down_sync(0xffffffffu, sum, offset, G);
            if (i < n && lane == 0) {
                const double wi = (s == nullptr ? sum : s[i] * sum) - b * previous[i];
                w[i] = wi;
                local += wi * v[i];
            }
        }
        double total = block_sum(local, shared);
        if (threadIdx.x == 0)
            dot_shares[blockIdx.x] = total;
        grid.sync();
        const double alpha = sum_of_shares(dot_shares, shared);
        if (writer)
            alphas[j] = alpha;
        local = 0.0;
        for (long long i = start; i < n; i += stride) {
            const double wi = w[i] - alpha * v[i];
            w[i] = wi;
            local += wi * wi;
        }
        total = block_sum(local, shared);
        if (threadIdx.x == 0)
            norm_shares[blockIdx.x] = total;
        grid.sync();
        const double beta = sqrt(sum_of_shares(norm_shares, shared));
        if (writer)
            betas[j] = beta;
        if (beta != 0.0)  // beta = 0: the Krylov space is exhausted; w, then zero, is left
            for (long long i = start; i < n; i += stride)
                w[i] /= beta;
        grid.sync();  // the next product reads every entry of the new v
        double* const next = previous;
        previous = v;
        v = w;
        w = next;
    }
}

}  // namespace gbgraph

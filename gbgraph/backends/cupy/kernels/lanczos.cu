// Lanczos' recurrence on S = D^-1/2 A D^-1/2 (or on A, s == nullptr) without a host read:
// gbgraph.solvers.polynomial.spectral_radius, step j in five launches,
//     w = S v_j - beta_(j-1) v_(j-1)      lanczos_product   (and the blocks' shares of w . v_j)
//     alpha_j = w . v_j                   lanczos_sum
//     w -= alpha_j v_j                    lanczos_orthogonalise   (and the shares of w . w)
//     beta_j = ||w||                      lanczos_sum
//     v_(j+1) = w / beta_j                lanczos_normalise
// alpha and beta stay on the device; every sum runs in a fixed order (per block, then over
// the blocks), so a step gives the same bits at every run.
namespace gbgraph {

constexpr int LANCZOS_THREADS = 256;

// The block's sum of its threads' values, in a fixed tree; valid in thread 0.
__device__ double block_sum(double value, double* shared)
{
    shared[threadIdx.x] = value;
    __syncthreads();
    for (int half = LANCZOS_THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half)
            shared[threadIdx.x] += shared[threadIdx.x + half];
        __syncthreads();
    }
    return shared[0];
}

template <typename I>
__global__ void lanczos_product(long long n, const I* indptr, const I* indices, const double* values,
                                const double* s, const double* v, const double* previous, const double* beta,
                                double* w, double* partial)
{
    __shared__ double shared[LANCZOS_THREADS];
    const double b = beta == nullptr ? 0.0 : *beta;
    double local = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        double sum = 0.0;
        for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
            const long long j = indices[p];
            sum += values[p] * (s == nullptr ? v[j] : s[j] * v[j]);
        }
        const double wi = (s == nullptr ? sum : s[i] * sum) - b * previous[i];
        w[i] = wi;
        local += wi * v[i];
    }
    const double total = block_sum(local, shared);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = total;
}

// out = the sum of partial[0 .. blocks), or its square root; one block
__global__ void lanczos_sum(long long blocks, const double* partial, bool root, double* out)
{
    __shared__ double shared[LANCZOS_THREADS];
    double local = 0.0;
    for (long long k = threadIdx.x; k < blocks; k += blockDim.x)
        local += partial[k];
    const double total = block_sum(local, shared);
    if (threadIdx.x == 0)
        *out = root ? sqrt(total) : total;
}

__global__ void lanczos_orthogonalise(long long n, const double* alpha, const double* v, double* w, double* partial)
{
    __shared__ double shared[LANCZOS_THREADS];
    const double a = *alpha;
    double local = 0.0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const double wi = w[i] - a * v[i];
        w[i] = wi;
        local += wi * wi;
    }
    const double total = block_sum(local, shared);
    if (threadIdx.x == 0)
        partial[blockIdx.x] = total;
}

// w /= beta; beta = 0 (the Krylov space exhausted) leaves w, which is then zero
__global__ void lanczos_normalise(long long n, const double* beta, double* w)
{
    const double b = *beta;
    if (b == 0.0)
        return;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        w[i] /= b;
}

}  // namespace gbgraph

// The fused verb of the partitioner's parallel refinement (Backend.mxv_ranked; its GraphBLAS
// form, a select that compares each entry's column with its row and a product, is in
// backends/partition_forms.py).
#include "vector.cu"

namespace gbgraph {

// out[k] = sum of A(r, j) u[j] over the j ranked above r = rows[k] ((rank, key) larger), for
// the first *count_ptr (or count) listed rows. One thread per row, summing in column order
// from 0.0 as the form does, so the floating-point result is the CPU's.
template <typename W, typename I>
__global__ void mxv_ranked(const long long* rows, const long long* count_ptr, long long count,
                           const long long* indptr, const I* indices, const W* weights, const double* u,
                           const double* rank, const unsigned long long* keys, double* out)
{
    const long long n = entries(count_ptr, count);
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < n; k += (long long)gridDim.x * blockDim.x) {
        const long long r = rows == nullptr ? k : rows[k];
        const double own = rank[r];
        const unsigned long long key = keys[r];
        double acc = 0.0;
        for (long long p = indptr[r]; p < indptr[r + 1]; ++p) {
            const long long j = indices[p];
            if (rank[j] > own || (rank[j] == own && keys[j] > key))
                acc += (weights == nullptr ? 1.0 : (double)weights[p]) * u[j];
        }
        out[k] = acc;
    }
}

}  // namespace gbgraph

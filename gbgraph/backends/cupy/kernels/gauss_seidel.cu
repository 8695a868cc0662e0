// Multicolor and cluster Gauss-Seidel (gbgraph.solvers; Kelley and Rajamanickam's Algorithm 4):
// one launch per color. The rows are listed cluster after cluster, the clusters color after
// color; a point sweep is the case of clusters of one row. Clusters of one color share no
// matrix entry, so their threads update x together, and each thread updates its cluster's rows
// in turn, as classical Gauss-Seidel does:
//     x_r = (b_r - sum_{j != r} A_rj x_j) / A_rr
// The CPU form (gauss_seidel.py) updates the same rows in the same order, one step of
// uncoupled rows at a time, with a sparse product each.
#include "vector.cu"

namespace gbgraph {

// The clusters first .. last - 1: cluster c holds rows[start[c]:start[c + 1]], visited
// upward, or downward for a backward sweep.
template <typename I, bool backward>
__global__ void gauss_seidel_color(long long first, long long last, const long long* start, const long long* rows,
                                   const I* indptr, const I* indices, const double* values,
                                   const double* inverse_diagonal, const double* b, double* x)
{
    for (long long c = first + blockIdx.x * (long long)blockDim.x + threadIdx.x; c < last;
         c += (long long)gridDim.x * blockDim.x) {
        const long long lo = start[c], hi = start[c + 1];
        for (long long t = backward ? hi - 1 : lo; backward ? t >= lo : t < hi; t += backward ? -1 : 1) {
            const long long r = rows[t];
            double acc = b[r];
            for (long long p = indptr[r]; p < indptr[r + 1]; ++p) {
                const long long j = indices[p];
                if (j != r)
                    acc -= values[p] * x[j];
            }
            x[r] = acc * inverse_diagonal[r];
        }
    }
}

}  // namespace gbgraph

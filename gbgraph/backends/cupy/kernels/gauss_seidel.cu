// Multicolor and cluster Gauss-Seidel (gbgraph.solvers; Kelley and Rajamanickam's Algorithm 4):
// one launch per color. The rows are listed cluster after cluster, the clusters color after
// color; a point sweep is the case of clusters of one row. Clusters of one color share no
// matrix entry, so they are updated together, and each cluster's rows in turn, as classical
// Gauss-Seidel does:
//     x_r = (b_r - sum_{j != r} A_rj x_j) / A_rr
// The CPU form (gauss_seidel.py) updates the same rows in the same order, one step of
// uncoupled rows at a time, with a sparse product each.
#include "vector.cu"

namespace gbgraph {

// The clusters first .. last - 1: cluster c holds rows[start[c]:start[c + 1]], visited
// upward, or downward for a backward sweep. G consecutive lanes of a warp take one cluster
// and share each row's sum (every G-th entry each, then a shuffle tree); the warp steps
// through as many rows as its largest cluster holds, and __syncwarp publishes each new
// x_r before the cluster's next row reads it. A row's index, bounds, first entries and b_r
// are loaded a step ahead: they do not depend on x, so only the loads of x wait for the
// previous row's update.
template <typename I, int G, bool backward>
__global__ void gauss_seidel_color(long long first, long long last, const long long* start, const long long* rows,
                                   const I* indptr, const I* indices, const double* values,
                                   const double* inverse_diagonal, const double* b, double* x)
{
    struct Row {
        long long r = 0, p = 0, end = 0, j = -1;
        double a = 0.0, rhs = 0.0, d = 0.0;
    };
    const int lane = threadIdx.x % G;
    const long long groups = (long long)gridDim.x * blockDim.x / G;
    const long long group = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / G;
    const long long rounds = (last - first + groups - 1) / groups;  // the same for every lane: full warps shuffle
    for (long long k = 0; k < rounds; ++k) {
        const long long c = first + group + k * groups;
        const long long lo = c < last ? start[c] : 0, size = c < last ? start[c + 1] - lo : 0;
        long long steps = size;
        for (int offset = 16; offset > 0; offset /= 2)
            steps = max(steps, __shfl_xor_sync(0xffffffffu, steps, offset));
        auto load = [&](long long t) {
            Row row;
            if (t < size) {
                row.r = rows[lo + (backward ? size - 1 - t : t)];
                row.p = indptr[row.r] + lane;
                row.end = indptr[row.r + 1];
                if (row.p < row.end) {
                    row.j = indices[row.p];
                    row.a = values[row.p];
                }
                row.rhs = b[row.r];
                row.d = inverse_diagonal[row.r];
            }
            return row;
        };
        Row row = load(0);
        for (long long t = 0; t < steps; ++t) {
            const Row next = load(t + 1);
            double sum = 0.0;
            if (t < size && row.p < row.end) {
                if (row.j != row.r)
                    sum += row.a * x[row.j];
                for (long long p = row.p + G; p < row.end; p += G) {
                    const long long j = indices[p];
                    if (j != row.r)
                        sum += values[p] * x[j];
                }
            }
            for (int offset = G / 2; offset > 0; offset /= 2)
                sum += __shfl_down_sync(0xffffffffu, sum, offset, G);
            if (t < size && lane == 0)
                x[row.r] = (row.rhs - sum) * row.d;
            __syncwarp();
            row = next;
        }
    }
}

}  // namespace gbgraph

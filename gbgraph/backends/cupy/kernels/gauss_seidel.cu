// Multicolor and cluster Gauss-Seidel (gbgraph.solvers; Kelley and Rajamanickam's Algorithm 4):
// one launch per color. Rows sit at positions cluster after cluster, the clusters color after
// color (gauss_seidel_gpu.py's Layout), and each position's off-diagonal entries are split in
// two: `out` entries, whose column lies in another cluster, and `in` entries, whose column
// lies in the row's own cluster, numbered by its place there. Clusters of one color share no
// matrix entry, so they are updated together, and each cluster's rows in turn, as classical
// Gauss-Seidel does:
//     x_r = (b_r - sum_{j != r} A_rj x_j) / A_rr
// The CPU form (gauss_seidel.py) updates the same rows in the same order, one step of
// uncoupled rows at a time, with a sparse product each.
#include "lanes.cuh"

namespace gbgraph {

// One color of a point sweep: the positions first .. last - 1, clusters of one row, so no
// entry is `in`. G lanes share a row (every G-th entry each, then a shuffle tree); a color's
// rows are consecutive, so a warp reads consecutive entries.
template <typename I, int G>
__global__ void gauss_seidel_points(long long first, long long last, const long long* rows, const long long* out_ptr,
                                    const I* out_col, const double* out_val, const double* inverse_diagonal,
                                    const double* b, double* x)
{
    const LaneGroups<G> groups(last - first);
    for (long long k = 0; k < groups.rounds; ++k) {
        const long long p = first + groups.group + k * groups.count;
        const double sum = group_sum<G>(p < last ? out_ptr[p] : 0, p < last ? out_ptr[p + 1] : 0, groups.lane, out_val,
                                        out_col, x);
        if (p < last && groups.lane == 0) {
            const long long r = rows[p];
            x[r] = (b[r] - sum) * inverse_diagonal[p];
        }
    }
}

// One color of a cluster sweep: the clusters first .. last - 1, cluster c at positions
// start[c] .. start[c + 1] - 1, visited upward, or downward for a backward sweep. G lanes take
// a cluster, in three phases, so that only the rows' dependence on each other is serial:
//   1. each lane takes rows of the cluster and sums their `out` entries, which read x of
//      other colors only and so do not change during the color: s_t = b_r - sum_out A_rj x_j;
//      the cluster's x and the offsets of its rows' `in` entries go to a scratch of the group;
//   2. the rows in turn: x_t = (s_t - sum_in A_rj x_j) / A_rr, the lanes sharing the row's
//      `in` entries, which read and write x in the scratch only; a step's entries are loaded
//      a step ahead, their offsets being in the scratch, so no load waits on another;
//   3. the cluster's x back to x.
// The scratch is shared memory, `width` (the largest cluster) rows a group, or, for clusters
// too large for it, the global `spill` (2 n doubles) and `spill_offsets` (n + clusters ints).
struct ClusterEntry {  // a step of phase 2: the row's first `in` entry for this lane, and 1 / A_rr
    int begin = 0, end = 0, loc = 0;
    double a = 0.0, d = 0.0;
};

template <typename I, int G, bool backward>
__global__ void gauss_seidel_clusters(long long first, long long last, const long long* start, const long long* rows,
                                      const long long* out_ptr, const I* out_col, const double* out_val,
                                      const long long* in_ptr, const int* in_loc, const double* in_val,
                                      const double* inverse_diagonal, const double* b, double* x, int width,
                                      long long n, double* spill, int* spill_offsets)
{
    extern __shared__ double scratch[];
    const LaneGroups<G> groups(last - first);
    const int lane = groups.lane;
    for (long long k = 0; k < groups.rounds; ++k) {
        const long long c = first + groups.group + k * groups.count;
        const long long lo = c < last ? start[c] : 0;
        const int size = c < last ? (int)(start[c + 1] - lo) : 0;
        double *xs, *s;
        int* offsets;
        if (spill) {
            xs = spill + lo;
            s = spill + n + lo;
            offsets = spill_offsets + lo + c;
        } else {
            xs = scratch + (threadIdx.x / G) * (2 * width + (width + 2) / 2);
            s = xs + width;
            offsets = (int*)(s + width);
        }
        const long long base = c < last ? in_ptr[lo] : 0;
        const int count = c < last ? (int)(in_ptr[lo + size] - base) : 0;
        const int* loc = in_loc + base;
        const double* val = in_val + base;
        for (int t = lane; t < size; t += G) {  // phase 1
            const long long p = lo + t, r = rows[p];
            double sum = 0.0;
            for (long long e = out_ptr[p]; e < out_ptr[p + 1]; ++e)
                sum += out_val[e] * x[out_col[e]];
            s[t] = b[r] - sum;
            xs[t] = x[r];
            offsets[t] = (int)(in_ptr[p] - base);
        }
        if (lane == 0 && c < last)
            offsets[size] = count;
        int steps = size;
        for (int offset = 16; offset > 0; offset /= 2)
            steps = max(steps, __shfl_xor_sync(0xffffffffu, steps, offset));
        __syncwarp();
        auto fetch = [&](int t) {
            ClusterEntry entry;
            if (t < size) {
                const int u = backward ? size - 1 - t : t;
                entry.begin = offsets[u] + lane;
                entry.end = offsets[u + 1];
                if (entry.begin < entry.end) {
                    entry.loc = loc[entry.begin];
                    entry.a = val[entry.begin];
                }
                entry.d = inverse_diagonal[lo + u];
            }
            return entry;
        };
        ClusterEntry entry = fetch(0);
        for (int t = 0; t < steps; ++t) {  // phase 2
            const ClusterEntry next = fetch(t + 1);
            double sum = 0.0;
            if (entry.begin < entry.end) {
                sum = entry.a * xs[entry.loc];
                for (int e = entry.begin + G; e < entry.end; e += G)
                    sum += val[e] * xs[loc[e]];
            }
            for (int offset = G / 2; offset > 0; offset /= 2)
                sum += __shfl_down_sync(0xffffffffu, sum, offset, G);
            if (t < size && lane == 0) {
                const int u = backward ? size - 1 - t : t;
                xs[u] = (s[u] - sum) * entry.d;
            }
            __syncwarp();
            entry = next;
        }
        for (int t = lane; t < size; t += G)  // phase 3
            x[rows[lo + t]] = xs[t];
        __syncwarp();  // the scratch is the next round's
    }
}

}  // namespace gbgraph

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
// start[c] .. start[c + 1] - 1 and its `out` and `in` entries at out_start[c] .. and
// in_start[c] .. (contiguous, as its positions are), visited upward, or downward for a backward
// sweep. C lanes of a warp take a cluster, in three phases, so that only the rows' dependence on
// each other is serial:
//   1. the lanes read the cluster's rows, entries and the x and b they index into a scratch:
//      x, b and 1 / A_rr of each row, the offsets of its entries, the products of its `out`
//      entries with x (which they read of other colors only and so does not change during the
//      color), and its `in` entries. A lane loads its first R rows and E entries before it uses
//      any, so that its loads wait on memory together; then each lane sums a row's products in
//      order: s_t = b_r - sum_out A_rj x_j;
//   2. the rows in turn: x_t = (s_t - sum_in A_rj x_j) / A_rr, G of the C lanes sharing the
//      row's `in` entries, which read and write x in the scratch only; a turn's entries are
//      loaded a turn ahead, so that only x carries the turns' dependence;
//   3. the cluster's x back to x.
// The scratch is shared memory: `width` (the largest cluster) rows a cluster and `room` staged
// entries of each kind; a cluster with more entries than `room` reads them from global memory.
// Clusters too large for shared memory keep x, s and 1 / A_rr in the global `spill` (3 n
// doubles) and their `in` offsets in `spill_offsets` (n + clusters ints). Products are rounded
// before they are summed (__dmul_rn), staged or not, so the room does not change the result.
struct ClusterEntry {  // a turn of phase 2: the row's first `in` entry for this lane, and 1 / A_rr
    int begin = 0, end = 0, loc = 0;
    double a = 0.0, d = 0.0;
};

// Blocks of at most 256 threads, two a multiprocessor: the loads in flight of R rows and E
// entries a lane (128 registers) were worth more than occupancy (H100, Laplace3D 100^3: 0.36 ms
// an application; R = 1, E = 2 at 92 registers: 0.44 ms; E = 8 unbounded at 168: 0.50 ms).
template <typename I, int C, int G, bool backward>
__global__ void __launch_bounds__(256, 2) gauss_seidel_clusters(long long first, long long last, const long long* start,
                                      const long long* out_start, const long long* in_start, const long long* rows,
                                      const long long* out_ptr, const I* out_col, const double* out_val,
                                      const long long* in_ptr, const int* in_loc, const double* in_val,
                                      const double* inverse_diagonal, const double* b, double* x, int width, int room,
                                      long long n, double* spill, int* spill_offsets)
{
    static_assert(G <= C && C <= 32, "a turn's lanes are some of a cluster's, a cluster's some of a warp's");
    constexpr int R = 2, E = 6;  // rows and entries a lane loads before it uses any
    extern __shared__ double scratch[];
    const LaneGroups<C> groups(last - first);
    const int lane = groups.lane;
    double* const own = scratch + (threadIdx.x / C) * (3 * width + 2 * room + (2 * width + 3 + room) / 2);
    for (long long k = 0; k < groups.rounds; ++k) {
        const long long c = first + groups.group + k * groups.count;
        const bool live = c < last;
        const long long lo = live ? start[c] : 0, out_base = live ? out_start[c] : 0, in_base = live ? in_start[c] : 0;
        const int size = live ? (int)(start[c + 1] - lo) : 0;
        const int out_count = live ? (int)(out_start[c + 1] - out_base) : 0;
        const int in_count = live ? (int)(in_start[c + 1] - in_base) : 0;
        double *xs = own, *s = own + width, *d = own + 2 * width, *products = own + 3 * width;
        double* values = products + room;
        int *out_offsets = (int*)(values + room), *in_offsets = out_offsets + width + 1, *locs = in_offsets + width + 1;
        if (spill)
            xs = spill + lo, s = spill + n + lo, d = spill + 2 * n + lo, in_offsets = spill_offsets + lo + c;
        const bool out_staged = room && out_count <= room, in_staged = room && in_count <= room;  // no room: a spill
        long long r[R], out_at[R], in_at[R];  // phase 1
        double inverse[R], bs[R], xr[R], a[E], v[E], xc[E];
        I column[E];
        int place[E];
#pragma unroll
        for (int j = 0; j < R; ++j) {
            const int t = lane + j * C;
            if (t < size) {
                r[j] = rows[lo + t], out_at[j] = out_ptr[lo + t], in_at[j] = in_ptr[lo + t];
                inverse[j] = inverse_diagonal[lo + t];
            }
        }
#pragma unroll
        for (int j = 0; j < E; ++j) {
            const int e = lane + j * C;
            if (out_staged && e < out_count)
                column[j] = out_col[out_base + e], a[j] = out_val[out_base + e];
            if (in_staged && e < in_count)
                place[j] = in_loc[in_base + e], v[j] = in_val[in_base + e];
        }
#pragma unroll
        for (int j = 0; j < R; ++j)
            if (lane + j * C < size)
                bs[j] = b[r[j]], xr[j] = x[r[j]];
#pragma unroll
        for (int j = 0; j < E; ++j)
            if (out_staged && lane + j * C < out_count)
                xc[j] = x[column[j]];
#pragma unroll
        for (int j = 0; j < R; ++j) {
            const int t = lane + j * C;
            if (t < size) {
                s[t] = bs[j], xs[t] = xr[j], d[t] = inverse[j];
                in_offsets[t] = (int)(in_at[j] - in_base);
                if (out_staged)
                    out_offsets[t] = (int)(out_at[j] - out_base);
            }
        }
#pragma unroll
        for (int j = 0; j < E; ++j) {
            const int e = lane + j * C;
            if (out_staged && e < out_count)
                products[e] = __dmul_rn(a[j], xc[j]);
            if (in_staged && e < in_count)
                values[e] = v[j], locs[e] = place[j];
        }
        #pragma unroll 1
        for (int t = lane + R * C; t < size; t += C) {  // the rest, one at a time
            const long long p = lo + t, row = rows[p];
            s[t] = b[row], xs[t] = x[row], d[t] = inverse_diagonal[p];
            in_offsets[t] = (int)(in_ptr[p] - in_base);
            if (out_staged)
                out_offsets[t] = (int)(out_ptr[p] - out_base);
        }
        if (out_staged)
            #pragma unroll 1
            for (int e = lane + E * C; e < out_count; e += C)
                products[e] = __dmul_rn(out_val[out_base + e], x[out_col[out_base + e]]);
        if (in_staged)
            #pragma unroll 1
            for (int e = lane + E * C; e < in_count; e += C)
                values[e] = in_val[in_base + e], locs[e] = in_loc[in_base + e];
        if (lane == 0 && live) {  // a spill's offsets are its clusters' only
            in_offsets[size] = in_count;
            if (out_staged)
                out_offsets[size] = out_count;
        }
        __syncwarp();
        #pragma unroll 1
        for (int t = lane; t < size; t += C) {
            double sum = 0.0;
            if (out_staged)
                #pragma unroll 1
                for (int e = out_offsets[t]; e < out_offsets[t + 1]; ++e)
                    sum += products[e];
            else
                #pragma unroll 1
                for (long long e = out_ptr[lo + t]; e < out_ptr[lo + t + 1]; ++e)
                    sum += __dmul_rn(out_val[e], x[out_col[e]]);
            s[t] -= sum;
        }
        const int* loc = in_staged ? locs : in_loc + in_base;
        const double* val = in_staged ? values : in_val + in_base;
        int turns = size;  // the warp's clusters take as many turns as the largest of them
        for (int offset = 16; offset >= C; offset /= 2)
            turns = max(turns, __shfl_xor_sync(0xffffffffu, turns, offset));
        __syncwarp();
        auto fetch = [&](int t) {  // the entries of turn t for this lane: the first, its bounds, 1 / A_rr
            ClusterEntry entry;
            if (t < size) {
                const int u = backward ? size - 1 - t : t;
                entry.begin = in_offsets[u] + lane % G;
                entry.end = lane < G ? in_offsets[u + 1] : 0;
                if (entry.begin < entry.end) {
                    entry.loc = loc[entry.begin];
                    entry.a = val[entry.begin];
                }
                entry.d = d[u];
            }
            return entry;
        };
        ClusterEntry entry = fetch(0);
        #pragma unroll 1
        for (int t = 0; t < turns; ++t) {  // phase 2
            const ClusterEntry next = fetch(t + 1);
            double sum = 0.0;
            if (entry.begin < entry.end) {
                sum = entry.a * xs[entry.loc];
                #pragma unroll 1
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
#pragma unroll
        for (int j = 0; j < R; ++j)  // phase 3
            if (lane + j * C < size)
                x[r[j]] = xs[lane + j * C];
        #pragma unroll 1
        for (int t = lane + R * C; t < size; t += C)
            x[rows[lo + t]] = xs[t];
        __syncwarp();  // the scratch is the next cluster's
    }
}

}  // namespace gbgraph

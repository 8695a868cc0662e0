// The cupy backend's answer to Backend.fused("jet_judge") (gbgraph/algorithms/refine_jet.py):
// the test between Jet rounds on the device, so that a level's recorded rounds run with no
// host read in between. Every other backend runs _Rounds._judge on the host: the cut and the
// side weights from two sums, the best bisection and the patience count. Here the sums are a
// fixed-order tree (the same values on every run; exact, as on the host, while the weights
// are integers), the judge's state lives in device memory and the judge ends the round by
// emptying the worklist when a rebalancing round (host) or the end of the level comes next.
#pragma once
#include "mxv.cu"

namespace gbgraph {

constexpr int JET_THREADS = 256;

// The judge's state, doubles: rounds judged, rounds since the last real improvement, the best
// key (overload, cut) and whether there is one, what comes next, the side weights, whether
// the last judge kept a new best.
enum JetState { J_ROUNDS, J_SINCE, J_OVER, J_CUT, J_HAS_KEY, J_MODE, J_PW0, J_PW1, J_IMPROVED, J_SIZE };
enum JetMode { J_STOP = 0, J_JET = 1, J_REBALANCE = 2 };

__device__ __forceinline__ void block_sum2(double& a, double& b)
{
    __shared__ double sa[JET_THREADS], sb[JET_THREADS];
    sa[threadIdx.x] = a;
    sb[threadIdx.x] = b;
    __syncthreads();
    for (int half = JET_THREADS / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) {
            sa[threadIdx.x] += sa[threadIdx.x + half];
            sb[threadIdx.x] += sb[threadIdx.x + half];
        }
        __syncthreads();
    }
    a = sa[0];
    b = sb[0];
}

// partial[2 b], partial[2 b + 1]: block b's sums of loss and wsigma, over a grid-stride walk
// whose grid the launcher fixes per level (so every run adds in one order).
__global__ void jet_sums(const double* loss, const double* wsigma, long long n, double* partial)
{
    double a = 0.0, b = 0.0;
    for (long long i = blockIdx.x * (long long)JET_THREADS + threadIdx.x; i < n; i += (long long)gridDim.x * JET_THREADS) {
        a += loss[i];
        b += wsigma[i];
    }
    block_sum2(a, b);
    if (threadIdx.x == 0) {
        partial[2 * blockIdx.x] = a;
        partial[2 * blockIdx.x + 1] = b;
    }
}

// One block: the partial sums added, then _Rounds._judge's rule by thread 0 (the same
// operations on doubles as the host's). moves_count (null for a judge after a rebalancing
// round) is the Jet round's move count: a round that moved nothing ends the level unjudged,
// as iterate ends on an empty worklist; a judge that sends the level elsewhere empties it.
__global__ void jet_judge(const double* partial, int blocks, double degrees, double total, double bound0,
                          double bound1, double keep, double patience, double max_rounds, long long* moves_count,
                          double* state)
{
    double a = 0.0, b = 0.0;
    for (int k = threadIdx.x; k < blocks; k += JET_THREADS) {
        a += partial[2 * k];
        b += partial[2 * k + 1];
    }
    block_sum2(a, b);
    if (threadIdx.x != 0)
        return;
    state[J_IMPROVED] = 0.0;
    if (moves_count != nullptr && *moves_count == 0) {
        state[J_MODE] = J_STOP;
        return;
    }
    if (state[J_ROUNDS] == max_rounds) {
        state[J_MODE] = J_STOP;
    } else {
        state[J_ROUNDS] += 1.0;
        const double cut = (degrees - a) / 4;  // Σ ext / 2 = (Σ d - Σ ℓ) / 4
        const double heavy = (total - b) / 2;  // side 1's weight: Σ w (1 - σ) / 2
        const double pw0 = total - heavy, pw1 = heavy;
        const double o0 = pw0 - bound0, o1 = pw1 - bound1;
        const double over = (o0 < 0.0 ? 0.0 : o0) + (o1 < 0.0 ? 0.0 : o1);
        const bool has = state[J_HAS_KEY] != 0.0;
        const double k0 = state[J_OVER], k1 = state[J_CUT];
        if (!has || over < k0 || (over == k0 && cut < k1)) {
            const bool real = !has || over < k0 || cut < keep * k1;
            state[J_SINCE] = real ? 0.0 : state[J_SINCE] + 1.0;
            state[J_OVER] = over;
            state[J_CUT] = cut;
            state[J_HAS_KEY] = 1.0;
            state[J_IMPROVED] = 1.0;
        } else {
            state[J_SINCE] += 1.0;
        }
        state[J_PW0] = pw0;
        state[J_PW1] = pw1;
        state[J_MODE] = state[J_SINCE] >= patience ? J_STOP : over > 0.0 ? J_REBALANCE : J_JET;
    }
    if (moves_count != nullptr && state[J_MODE] != J_JET)
        *moves_count = 0;
}

// best = σ < 0 where the last judge kept a new best.
__global__ void jet_best(const double* sigma, long long n, const double* state, bool* best)
{
    if (state[J_IMPROVED] == 0.0)
        return;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        best[i] = sigma[i] < 0.0;
}

// The cupy backend's answer to Backend.fused("jet_moves"): a Jet round's moves in two passes
// where refine_jet's _jet_moves, the locks and the flip cost some twenty verbs, each a launch.
// jet_candidates: u = 2σ where Jet's filter (θ - ℓ) + locks >= 0 keeps the vertex, else 0.
__global__ void jet_candidates(long long n, const double* theta, const double* loss, const double* locks,
                               const double* sigma, double* u)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        u[i] = (theta[i] - loss[i]) + locks[i] >= 0.0 ? sigma[i] * 2.0 : 0.0;
}

// The afterburner (refine_jet's RANKED_ABOVE, the same sum in column order from 0.0, the
// rank g = -ℓ and the keys breaking ties), score = (Σ A(i, j) u(j) over j ranked above i) σ(i)
// - ℓ(i) at the candidates (u != 0), minus_inf elsewhere. u(j) is ±2 or 0, so each product and
// σ's are exact: a contracted multiply-add rounds as the verbs' separate kernels do. Then the
// move itself (score >= 0): locks = -inf there and 0 elsewhere, σ flipped there; no thread
// reads another vertex's σ or locks here (u holds the neighbours' 2σ), so the flip needs no
// pass of its own.
template <typename I, bool ISO>
__global__ void jet_afterburner(const long long* indptr, const I* cols, const double* vals, long long n,
                                const double* loss, double* sigma, const unsigned long long* keys,
                                const double* u, double minus_inf, double* score, double* locks)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        double s = minus_inf;
        if (u[i] != 0.0) {
            const double rank = -loss[i];
            const unsigned long long key = keys[i];
            double acc = 0.0;
            for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
                const long long j = cols[p];
                const double other = -loss[j];
                if (other > rank || (other == rank && keys[j] > key))
                    acc += (ISO ? 1.0 : vals[p]) * u[j];
            }
            s = acc * sigma[i] - loss[i];
        }
        score[i] = s;
        const bool move = s >= 0.0;
        locks[i] = move ? minus_inf : 0.0;
        if (move)
            sigma[i] = -sigma[i];
    }
}

// The cupy backend's answer to Backend.fused("jet_level"): refine_jet's _Level, the weighted
// degrees d (a row's sum in order from its first entry, as reduce_rows' segment_reduce, then
// 0 + d as the verbs' ewise_add with the zero vector: 0 on an empty row) and the filter's
// threshold θ = d k (k = c / (2 - c)) where d > 0, else -1, in one pass where the verbs cost a
// dozen launches and a host read of the rows that have entries.
__global__ void jet_level(const long long* indptr, const double* vals, long long n, double k, double* d,
                          double* theta)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const long long start = indptr[i], stop = indptr[i + 1];
        double di = 0.0;
        if (start < stop) {
            double acc = vals[start];
            for (long long p = start + 1; p < stop; ++p)
                acc = acc + vals[p];
            di = 0.0 + acc;
        }
        d[i] = di;
        theta[i] = di > 0.0 ? di * k : -1.0;
    }
}

// The cupy backend's answer to Backend.fused("jet_update"): refine_jet's _Rounds._update in
// one pass where its verbs cost six launches: t = A ⊕plus.times σ by the cupy mxv's own row
// reductions (a thread a row, or a warp a row on graphs of average degree >= 16, as
// mxv_kernel chooses; the same order of additions), then ℓ = σ (0 + t), 0 on an empty row
// (the verbs' ewise_add with the zero vector), and w σ.
template <typename I, bool ISO, bool WARPS>
__global__ void jet_update(const long long* indptr, const I* cols, const double* vals, long long n,
                           const double* sigma, const double* w, double* loss, double* wsigma)
{
    const double* a = ISO ? nullptr : vals;
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long k = WARPS ? thread >> 5 : thread; k < n; k += WARPS ? step >> 5 : step) {
        double acc;
        const bool hit = WARPS ? reduce_row_warp<Plus<double>, TimesOp<double>>(
                                     k, threadIdx.x & 31, indptr, cols, a, sigma, (const unsigned char*)nullptr, acc)
                               : reduce_row<Plus<double>, TimesOp<double>>(
                                     k, indptr, cols, a, sigma, (const unsigned char*)nullptr, acc);
        if (!WARPS || (threadIdx.x & 31) == 0) {
            loss[k] = sigma[k] * (hit ? 0.0 + acc : 0.0);
            wsigma[k] = w[k] * sigma[k];
        }
    }
}

// The cupy backend's answer to Backend.fused("jet_rebalance"), around a lexsort: the sort keys
// of refine_jet's rebalancing round over every vertex, (float64(~key), 0 + ℓ (1 / w)) as
// lightest_prefix stacks them, +inf in place of the score off the movable vertices (side σ =
// side_sigma, w > 0), so that they sort after every movable one; *movable counts those.
__global__ void jet_rebalance_keys(long long n, const double* sigma, const double* loss, const double* w,
                                   const unsigned long long* key, double side_sigma, double inf, double* sort_keys,
                                   unsigned long long* movable)
{
    unsigned long long mine = 0;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const bool m = sigma[i] == side_sigma && w[i] > 0.0;
        sort_keys[i] = (double)(~key[i]);
        sort_keys[n + i] = m ? 0.0 + loss[i] * (1.0 / w[i]) : inf;
        mine += m;
    }
    for (int offset = 16; offset > 0; offset >>= 1)
        mine += __shfl_down_sync(0xffffffffu, mine, offset);
    if ((threadIdx.x & 31) == 0 && mine)
        atomicAdd(movable, mine);
}

// The first min(*found + 1, *movable) vertices of ``order`` flipped (none unless positive: the
// amount to move is > 0), their count in *moved: lightest_prefix's count from the prefix sums'
// searchsorted (*found), on the device.
__global__ void jet_rebalance_flip(const long long* order, const long long* found, const unsigned long long* movable,
                                   bool positive, double* sigma, long long* moved)
{
    const long long most = (long long)*movable;
    const long long take = positive ? (*found + 1 < most ? *found + 1 : most) : 0;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < take; k += (long long)gridDim.x * blockDim.x)
        sigma[order[k]] = -sigma[order[k]];
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *moved = take;
}

// A whole rebalancing round of a small level (n <= JET_SMALL, one block of JET_SMALL_THREADS):
// jet_rebalance_keys' keys, the lexsort, the prefix sums, the search and the flip in one
// launch, where the large levels' path costs some fifteen launches (Thrust's merge passes,
// cupy.cumsum's scan). The same order: a bitonic sort under lexsort's total order (score, then
// float64(~key), then the index, as a stable sort from the identity leaves ties), padded past n
// with entries that sort last. The prefix sums go tile by tile in another order than
// cupy.cumsum's, the same sums while the weights are integers (as the judge's).
constexpr int JET_SMALL = 4096, JET_SMALL_THREADS = 1024;

__device__ __forceinline__ bool rebalance_before(const double* score, const unsigned short* at,
                                                 const unsigned long long* key, long long n, int a, int b)
{
    const int ia = at[a], ib = at[b];
    if (ia >= n || ib >= n)
        return ia < ib;
    if (score[a] != score[b])
        return score[a] < score[b];
    const double ka = (double)(~key[ia]), kb = (double)(~key[ib]);
    if (ka != kb)
        return ka < kb;
    return ia < ib;
}

__global__ void __launch_bounds__(JET_SMALL_THREADS)
jet_rebalance_small(long long n, int cap, double* sigma, const double* loss, const double* w,
                    const unsigned long long* key, double side_sigma, double inf, double amount, long long* moved)
{
    __shared__ double score[JET_SMALL];
    __shared__ unsigned short at[JET_SMALL];
    __shared__ double warp_total[JET_SMALL_THREADS / 32];
    __shared__ long long found;
    __shared__ int movable;
    const int t = threadIdx.x;
    if (t == 0) {
        found = n;  // searchsorted past the end
        movable = 0;
    }
    __syncthreads();
    int mine = 0;
    for (int i = t; i < cap; i += blockDim.x) {
        const bool m = i < n && sigma[i] == side_sigma && w[i] > 0.0;
        score[i] = m ? 0.0 + loss[i] * (1.0 / w[i]) : inf;
        at[i] = (unsigned short)i;
        mine += m;
    }
    atomicAdd(&movable, mine);
    __syncthreads();
    for (int k = 2; k <= cap; k <<= 1)
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int i = t; i < cap; i += blockDim.x) {
                const int l = i ^ j;
                if (l > i && ((i & k) == 0 ? rebalance_before(score, at, key, n, l, i)
                                           : rebalance_before(score, at, key, n, i, l))) {
                    const double s = score[i];
                    score[i] = score[l];
                    score[l] = s;
                    const unsigned short a = at[i];
                    at[i] = at[l];
                    at[l] = a;
                }
            }
            __syncthreads();
        }
    double carry = 0.0;
    for (long long base = 0; base < n; base += blockDim.x) {
        const long long k = base + t;
        double v = k < n ? w[at[k]] : 0.0, incl = v;
        for (int offset = 1; offset < 32; offset <<= 1) {
            const double up = __shfl_up_sync(0xffffffffu, incl, offset);
            if ((t & 31) >= offset)
                incl += up;
        }
        if ((t & 31) == 31)
            warp_total[t >> 5] = incl;
        __syncthreads();
        double before = 0.0, tile = 0.0;
        for (int q = 0; q < JET_SMALL_THREADS / 32; ++q) {
            before += q < (t >> 5) ? warp_total[q] : 0.0;
            tile += warp_total[q];
        }
        if (k < n && carry + before + incl >= amount)
            atomicMin((unsigned long long*)&found, (unsigned long long)k);
        carry += tile;
        __syncthreads();
    }
    const long long take = amount > 0.0 ? (found + 1 < movable ? found + 1 : (long long)movable) : 0;
    for (long long k = t; k < take; k += blockDim.x)
        sigma[at[k]] = -sigma[at[k]];
    if (t == 0)
        *moved = take;
}

}  // namespace gbgraph

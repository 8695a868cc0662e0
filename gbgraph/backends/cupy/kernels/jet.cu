// The cupy backend's answer to Backend.fused("jet_judge") (gbgraph/algorithms/refine_jet.py):
// the test between Jet rounds on the device, so that a level's recorded rounds run with no
// host read in between. Every other backend runs _Rounds._judge on the host: the cut and the
// side weights from two sums, the best bisection and the patience count. Here the sums are a
// fixed-order tree (the same values on every run; exact, as on the host, while the weights
// are integers), the judge's state lives in device memory and the judge ends the round by
// emptying the worklist when a rebalancing round (host) or the end of the level comes next.
#pragma once
#include <cooperative_groups.h>
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

// _Rounds._judge's rule by one thread on the sums a = Σ ℓ and b = Σ w σ (the same operations on
// doubles as the host's). moves_count (null for a judge after a rebalancing round) is the Jet
// round's move count: a round that moved nothing ends the level unjudged, as iterate ends on an
// empty worklist; a judge that sends the level elsewhere empties it.
__device__ void jet_rule(double a, double b, double degrees, double total, double bound0, double bound1, double keep,
                         double patience, double max_rounds, long long* moves_count, double* state)
{
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

// One block: the partial sums added, then the rule (jet_rule) by thread 0. degrees and total:
// the level's Σ d and Σ w, on the device (so the host waits for neither), a -0.0 read as 0.0.
__global__ void jet_judge(const double* partial, int blocks, const double* degrees, const double* total,
                          double bound0, double bound1, double keep, double patience, double max_rounds,
                          long long* moves_count, double* state)
{
    double a = 0.0, b = 0.0;
    for (int k = threadIdx.x; k < blocks; k += JET_THREADS) {
        a += partial[2 * k];
        b += partial[2 * k + 1];
    }
    block_sum2(a, b);
    if (threadIdx.x == 0)
        jet_rule(a, b, *degrees + 0.0, *total + 0.0, bound0, bound1, keep, patience, max_rounds, moves_count, state);
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
__device__ __forceinline__ double jet_candidate(long long i, const double* theta, const double* loss,
                                                const double* locks, const double* sigma)
{
    return (theta[i] - loss[i]) + locks[i] >= 0.0 ? sigma[i] * 2.0 : 0.0;
}

__global__ void jet_candidates(long long n, const double* theta, const double* loss, const double* locks,
                               const double* sigma, double* u)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        u[i] = jet_candidate(i, theta, loss, locks, sigma);
}

// The afterburner (refine_jet's RANKED_ABOVE, the same sum in column order from 0.0, the
// rank g = -ℓ and the keys breaking ties), score = (Σ A(i, j) u(j) over j ranked above i) σ(i)
// - ℓ(i) at the candidates (u != 0), minus_inf elsewhere. u(j) is ±2 or 0, so each product and
// σ's are exact: a contracted multiply-add rounds as the verbs' separate kernels do. Then the
// move itself (score >= 0): locks = -inf there and 0 elsewhere, σ flipped there; no thread
// reads another vertex's σ or locks here (u holds the neighbours' 2σ), so the flip needs no
// pass of its own. Returns the score.
template <typename I, bool ISO>
__device__ __forceinline__ double jet_afterburn(long long i, const long long* indptr, const I* cols,
                                                const double* vals, const double* loss, double* sigma,
                                                const unsigned long long* keys, const double* u, double minus_inf,
                                                double* locks)
{
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
    const bool move = s >= 0.0;
    locks[i] = move ? minus_inf : 0.0;
    if (move)
        sigma[i] = -sigma[i];
    return s;
}

template <typename I, bool ISO>
__global__ void jet_afterburner(const long long* indptr, const I* cols, const double* vals, long long n,
                                const double* loss, double* sigma, const unsigned long long* keys,
                                const double* u, double minus_inf, double* score, double* locks)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        score[i] = jet_afterburn<I, ISO>(i, indptr, cols, vals, loss, sigma, keys, u, minus_inf, locks);
}

// The cupy backend's answer to Backend.fused("jet_sigma"): a finer level's σ = 1 - 2 p from the
// coarse sides (bytes, 0 or 1) and the labels, project's gather p = p_c(labels) and _Rounds'
// arithmetic in one pass where they cost some ten launches.
template <typename L>
__global__ void jet_sigma(const unsigned char* coarse, const L* labels, long long n, double* sigma)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
        sigma[i] = coarse[labels[i]] ? -1.0 : 1.0;
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
__device__ __forceinline__ void jet_update_rows(long long thread, long long step, const long long* indptr,
                                                const I* cols, const double* vals, long long n, const double* sigma,
                                                const double* w, double* loss, double* wsigma)
{
    const double* a = ISO ? nullptr : vals;
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

template <typename I, bool ISO, bool WARPS>
__global__ void jet_update(const long long* indptr, const I* cols, const double* vals, long long n,
                           const double* sigma, const double* w, double* loss, double* wsigma)
{
    jet_update_rows<I, ISO, WARPS>(blockIdx.x * (long long)blockDim.x + threadIdx.x,
                                   (long long)gridDim.x * blockDim.x, indptr, cols, vals, n, sigma, w, loss, wsigma);
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

// The round by one block of JET_SMALL_THREADS threads, its sort in score and at (shared memory
// of JET_SMALL entries each, the caller's: jet_rounds uses score for its sums too).
__device__ void rebalance_block(long long n, int cap, double* sigma, const double* loss, const double* w,
                                const unsigned long long* key, double side_sigma, double inf, double amount,
                                long long* moved, double* score, unsigned short* at)
{
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


__global__ void __launch_bounds__(JET_SMALL_THREADS)
jet_rebalance_small(long long n, int cap, double* sigma, const double* loss, const double* w,
                    const unsigned long long* key, double side_sigma, double inf, double amount, long long* moved)
{
    __shared__ double score[JET_SMALL];
    __shared__ unsigned short at[JET_SMALL];
    rebalance_block(n, cap, sigma, loss, w, key, side_sigma, inf, amount, moved, score, at);
}

// block_sum2's tree on each quarter (JET_THREADS entries) of sa and sb, a block of
// JET_SMALL_THREADS threads holding x and y: quarter q's sums in sa[q JET_THREADS], sb[q JET_THREADS].
__device__ void quarter_sums(double* sa, double* sb, double x, double y)
{
    const int t = threadIdx.x, lane = t & (JET_THREADS - 1);
    sa[t] = x;
    sb[t] = y;
    __syncthreads();
    for (int half = JET_THREADS / 2; half > 0; half /= 2) {
        if (lane < half) {
            sa[t] += sa[t + half];
            sb[t] += sb[t + half];
        }
        __syncthreads();
    }
}

// The judge: jet_sums' partial sums (block b of its `sums` a quarter of a block here), then
// jet_judge's block (block 0's first quarter) and the rule; counts[0] emptied for the next
// round's moves; then jet_best.
__device__ void rounds_judge(cooperative_groups::grid_group& grid, const double* loss, const double* wsigma,
                             const double* sigma, long long n, long long sums, double* partial, double* sa, double* sb,
                             const double* scalars, long long* judged, long long* counts, double* state, bool* best)
{
    const int t = threadIdx.x, lane = t & (JET_THREADS - 1), per_block = JET_SMALL_THREADS / JET_THREADS;
    for (long long base = (long long)per_block * blockIdx.x; base < sums; base += (long long)per_block * gridDim.x) {
        const long long b = base + t / JET_THREADS;  // jet_sums' block
        double x = 0.0, y = 0.0;
        if (b < sums)
            for (long long i = b * JET_THREADS + lane; i < n; i += sums * JET_THREADS) {
                x += loss[i];
                y += wsigma[i];
            }
        quarter_sums(sa, sb, x, y);
        if (lane == 0 && b < sums) {
            partial[2 * b] = sa[t];
            partial[2 * b + 1] = sb[t];
        }
        __syncthreads();
    }
    grid.sync();
    if (blockIdx.x == 0) {
        double x = 0.0, y = 0.0;
        if (t < JET_THREADS)
            for (long long k = t; k < sums; k += JET_THREADS) {
                x += partial[2 * k];
                y += partial[2 * k + 1];
            }
        quarter_sums(sa, sb, x, y);
        if (t == 0) {
            jet_rule(sa[0], sb[0], scalars[0], scalars[1], scalars[2], scalars[3], scalars[4], scalars[5], scalars[6],
                     judged, state);
            counts[0] = 0;
        }
    }
    grid.sync();
    if (state[J_IMPROVED] != 0.0)
        for (long long i = blockIdx.x * (long long)blockDim.x + t; i < n; i += (long long)gridDim.x * blockDim.x)
            best[i] = sigma[i] < 0.0;
}

// A larger level's rebalancing round in jet_rounds, without a sort: the same vertices as
// jet_rebalance_keys, the lexsort, cupy.cumsum, searchsorted and jet_rebalance_flip take (the
// movable vertices in the lexsort's order, up to and including the first at which their
// weights reach `amount`), found by a weighted radix select on the order's key (the score's
// order-preserving bits, then float64(~key)'s, then the index: 20 digits of 8 bits, most
// significant first). Each pass the blocks add the weights and counts of the vertices that
// share the digits chosen so far into 256 bins (sel_w, sel_c: two sets, one emptied while the
// other fills), and block 0 picks the bin where the prefix sums reach `amount`; the pass that
// leaves one vertex in its bin ends the search. Then every movable vertex up to that one
// flips, and counts[0] counts them. The weights' sums are another order than cupy.cumsum's,
// the same while the weights are integers (the judge's assumption).
constexpr int SELECT_DIGITS = 20, SELECT_BINS = 256;

__device__ __forceinline__ unsigned long long ordered_bits(double x)  // no NaN; -0.0 comes as 0.0
{
    const unsigned long long b = (unsigned long long)__double_as_longlong(x);
    return b >> 63 ? ~b : b | 0x8000000000000000ULL;
}

// the masks of the key's words (score, float64(~key), index in its low 32 bits) over the first p digits
__device__ __forceinline__ void select_masks(int p, unsigned long long* m)
{
    const int d0 = p < 8 ? p : 8, d1 = p < 8 ? 0 : (p < 16 ? p - 8 : 8), d2 = p < 16 ? 0 : p - 16;
    m[0] = d0 ? ~0ULL << (64 - 8 * d0) : 0ULL;
    m[1] = d1 ? ~0ULL << (64 - 8 * d1) : 0ULL;
    m[2] = d2 ? (0xffffffffULL << (32 - 8 * d2)) & 0xffffffffULL : 0ULL;
}

__device__ __forceinline__ unsigned select_digit(const unsigned long long* k, int p)
{
    return p < 16 ? (unsigned)(k[p >> 3] >> (56 - 8 * (p & 7))) & 255u : (unsigned)(k[2] >> (24 - 8 * (p - 16))) & 255u;
}

__device__ void rebalance_select(cooperative_groups::grid_group& grid, long long n, double* sigma, const double* loss,
                                 const double* w, const unsigned long long* keys, double side_sigma, double amount,
                                 long long* counts, double* sel_w, unsigned* sel_c, double* shared,
                                 unsigned long long* chosen)
{
    const int t = threadIdx.x;
    const long long thread = blockIdx.x * (long long)blockDim.x + t, step = (long long)gridDim.x * blockDim.x;
    double* const bin_w = shared;
    unsigned* const bin_c = (unsigned*)(shared + SELECT_BINS);
    // chosen: the digits chosen (3 words), the digits decided, 1 when all movable vertices go
    // (their weights do not reach amount); base: the weight of the vertices before the bin
    double* const base = (double*)(chosen + 5);
    unsigned long long m[3];
    int p = 0;
    if (amount > 0.0)
        for (; p < SELECT_DIGITS; ++p) {
            const int set = p & 1;
            select_masks(p, m);
            const unsigned long long c0 = chosen[0], c1 = chosen[1], c2 = chosen[2];
            for (int b = t; b < SELECT_BINS; b += blockDim.x) {
                bin_w[b] = 0.0;
                bin_c[b] = 0;
            }
            __syncthreads();
            for (long long i = thread; i < n; i += step) {
                if (!(sigma[i] == side_sigma && w[i] > 0.0))
                    continue;
                const unsigned long long k[3] = {ordered_bits(0.0 + loss[i] * (1.0 / w[i])),
                                                 ordered_bits((double)(~keys[i])), (unsigned long long)i};
                if (((k[0] ^ c0) & m[0]) | ((k[1] ^ c1) & m[1]) | ((k[2] ^ c2) & m[2]))
                    continue;
                const unsigned d = select_digit(k, p);
                atomicAdd(&bin_w[d], w[i]);
                atomicAdd(&bin_c[d], 1u);
            }
            __syncthreads();
            for (int b = t; b < SELECT_BINS; b += blockDim.x)
                if (bin_c[b]) {
                    atomicAdd(&sel_w[set * SELECT_BINS + b], bin_w[b]);
                    atomicAdd(&sel_c[set * SELECT_BINS + b], bin_c[b]);
                }
            grid.sync();
            if (blockIdx.x == 0) {
                if (t < SELECT_BINS) {  // the bins into shared memory, the set emptied for the pass after next
                    bin_w[t] = sel_w[set * SELECT_BINS + t];
                    bin_c[t] = sel_c[set * SELECT_BINS + t];
                    sel_w[set * SELECT_BINS + t] = 0.0;
                    sel_c[set * SELECT_BINS + t] = 0;
                }
                __syncthreads();
                if (t < 32) {  // a lane's 8 bins, the lanes' prefix sums, then the lane where amount is reached
                    double mine = 0.0;
                    for (int b = 8 * t; b < 8 * t + 8; ++b)
                        mine += bin_w[b];
                    double before = mine;
                    for (int offset = 1; offset < 32; offset <<= 1) {
                        const double up = __shfl_up_sync(0xffffffffu, before, offset);
                        if (t >= offset)
                            before += up;
                    }
                    before -= mine;
                    const double at = *base;
                    const unsigned reached = __ballot_sync(0xffffffffu, at + before + mine >= amount);
                    if (t == 0 && !reached)
                        chosen[4] = 1;  // all movable vertices go
                    if (reached && t == __ffs(reached) - 1) {
                        int b = 8 * t;
                        for (; b < 8 * t + 7 && !(at + before + bin_w[b] >= amount); ++b)
                            before += bin_w[b];
                        *base = at + before;
                        const int word = p < 16 ? p >> 3 : 2;
                        const int shift = p < 16 ? 56 - 8 * (p & 7) : 24 - 8 * (p - 16);
                        chosen[word] |= (unsigned long long)b << shift;
                        chosen[3] = p + 1;
                        if (bin_c[b] == 1)
                            chosen[4] = 2;  // the one vertex found
                    }
                }
            }
            grid.sync();
            if (chosen[4])
                break;
        }
    const bool all = chosen[4] == 1;
    select_masks((int)chosen[3], m);
    const unsigned long long c0 = chosen[0], c1 = chosen[1], c2 = chosen[2];
    unsigned long long moved = 0;
    if (amount > 0.0)
        for (long long i = thread; i < n; i += step) {
            if (!(sigma[i] == side_sigma && w[i] > 0.0))
                continue;
            bool take = all;
            if (!take) {  // up to the vertex found: its key's decided digits or fewer
                const unsigned long long k0 = ordered_bits(0.0 + loss[i] * (1.0 / w[i])) & m[0];
                const unsigned long long k1 = ordered_bits((double)(~keys[i])) & m[1], k2 = (unsigned long long)i & m[2];
                take = k0 != c0 ? k0 < c0 : k1 != c1 ? k1 < c1 : k2 <= c2;
            }
            if (take) {
                sigma[i] = -sigma[i];
                ++moved;
            }
        }
    for (int offset = 16; offset > 0; offset >>= 1)
        moved += __shfl_down_sync(0xffffffffu, moved, offset);
    if ((t & 31) == 0 && moved)
        atomicAdd((unsigned long long*)counts, moved);
    grid.sync();  // every block has read chosen
    if (thread < 6)
        chosen[thread] = 0;  // for the next round
}

// The cupy backend's answer to Backend.fused("jet_rounds"): a level's rounds in one cooperative
// launch, where the recorded round (jet_candidates, jet_afterburner, the moves' compaction,
// jet_update, the judge's three kernels, resumed from the host after each rebalancing round)
// cost a recording, a while node's instantiation and host reads, 1.3-2.5 ms a level, and
// 0.4-0.6 ms a rebalancing round. Blocks of JET_SMALL_THREADS threads, all resident (grid-wide
// barriers between the passes). Each pass is its kernel's, row by row or vertex by vertex as
// they are; the judge's sums emulate jet_sums' grid of `sums` blocks of JET_THREADS threads
// (a real block takes four) and jet_judge's block, so the same additions in the same order.
// A loop: the judge, then on its mode a Jet round (its moves counted into counts[0]), a
// rebalancing round (its amount refine_jet's _rebalance_amount from the side weights; on a level
// of at most JET_SMALL vertices jet_rebalance_small's round by block 0, else rebalance_select;
// the count moved into counts[0]), or the end.
// degrees ... max_rounds: jet_judge's scalars; select: rebalance_select's bins (2 x 256
// doubles, then 2 x 256 unsigned) and its search's 6 words, zeros; cap: the one-block round's
// sort size on a level of at most JET_SMALL vertices, else 0.
template <typename I, bool ISO, bool WARPS>
__global__ void __launch_bounds__(JET_SMALL_THREADS, 1)
jet_rounds(const long long* indptr, const I* cols, const double* vals, long long n, const double* theta,
           const unsigned long long* keys, const double* w, double* loss, double* wsigma, double* sigma,
           double* locks, double* u, long long sums, double* partial, const double* degrees, const double* total,
           double bound0,
           double bound1, double keep, double patience, double max_rounds, double target0, double target1,
           double* state, bool* best, long long* counts, double* select, int cap)
{
    namespace cg = cooperative_groups;
    cg::grid_group grid = cg::this_grid();
    __shared__ double buffer[JET_SMALL];  // the sums' trees, the rebalancing round's sort
    __shared__ unsigned short at[JET_SMALL];
    double* const sa = buffer;
    double* const sb = buffer + JET_SMALL_THREADS;
    const double scalars[7] = {*degrees + 0.0, *total + 0.0, bound0, bound1, keep, patience, max_rounds};
    const double minus_inf = -__longlong_as_double(0x7ff0000000000000LL);
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long* judged = nullptr;; judged = counts) {  // the count of the round before; none before round 0
        rounds_judge(grid, loss, wsigma, sigma, n, sums, partial, sa, sb, scalars, judged, counts, state, best);
        const double mode = state[J_MODE];
        if (mode == J_STOP)
            return;
        if (mode == J_REBALANCE) {
            const double pw0 = state[J_PW0], pw1 = state[J_PW1];
            const bool s = !(pw0 - bound0 >= pw1 - bound1);  // _rebalance_amount, in its order
            const double ps = s ? pw1 : pw0, po = s ? pw0 : pw1, bs = s ? bound1 : bound0;
            const double want = ps - ((s ? target1 : target0) + bs) / 2, room = (s ? bound0 : bound1) - po;
            const double over = ps - bs;
            const double most = over > want ? over : want, fits = over > room ? over : room;
            const double amount = fits < most ? fits : most;
            grid.sync();  // jet_best has read σ
            if (cap == 0)
                rebalance_select(grid, n, sigma, loss, w, keys, s ? -1.0 : 1.0, amount, counts, select,
                                 (unsigned*)(select + 2 * SELECT_BINS), buffer,
                                 (unsigned long long*)(select + 3 * SELECT_BINS));
            else if (blockIdx.x == 0)
                rebalance_block(n, cap, sigma, loss, w, keys, s ? -1.0 : 1.0, -minus_inf, amount, counts, buffer, at);
        } else {
            for (long long i = thread; i < n; i += step)
                u[i] = jet_candidate(i, theta, loss, locks, sigma);
            grid.sync();
            unsigned long long moved = 0;
            for (long long i = thread; i < n; i += step)
                moved += jet_afterburn<I, ISO>(i, indptr, cols, vals, loss, sigma, keys, u, minus_inf, locks) >= 0.0;
            for (int offset = 16; offset > 0; offset >>= 1)
                moved += __shfl_down_sync(0xffffffffu, moved, offset);
            if ((threadIdx.x & 31) == 0 && moved)
                atomicAdd((unsigned long long*)counts, moved);
        }
        grid.sync();
        jet_update_rows<I, ISO, WARPS>(thread, step, indptr, cols, vals, n, sigma, w, loss, wsigma);
        grid.sync();
    }
}

}  // namespace gbgraph

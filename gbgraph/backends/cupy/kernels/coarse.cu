// Gilbert et al.'s vertex-centric coarse graph construction (IPDPS 2021, Algorithm 6) with
// sort-based deduplication, one thread block per coarse vertex (aggregate).
//
// The reference is gbgraph.algorithms.coarsen._by_construction with method="sort": for
// aggregate a, the fine edges (u, v) with u in a and label(v) != a, taken in row-major order
// (members ascending, columns in order), are sorted stably by label(v); each run of equal
// labels becomes one coarse edge whose weight sums the run in that order, the way numpy's
// add.reduceat does (pairwise_sum below), so float weights match the CPU bit for bit.
//
// The block gathers its entries into shared memory as keys (label(v) << POS_BITS | position
// in row-major order), so that one bitonic sort orders them by label and, within a label,
// stably. A block holds at most CAPACITY entries and CAPACITY members; the launcher sends
// larger aggregates elsewhere. Pass COUNT writes each aggregate's number of coarse edges,
// pass WRITE its sorted columns and weights at row_ptr[a].
#pragma once

namespace gbgraph {

constexpr int POS_BITS = 11;  // positions below 2048, the largest CAPACITY
constexpr unsigned long long NO_ENTRY = ~0ULL;

// numpy's summation of a segment x[0..n) in ufunc.reduceat: x[0] + pairwise_sum(x[1..n)),
// where pairwise_sum adds fewer than 8 values in order, up to 128 with 8 interleaved partial
// sums, and splits longer runs in two (numpy/_core/src/umath/loops_utils.h.src).
template <typename V, typename At>
__device__ V pairwise_sum(const At& x, long long start, long long n)
{
    if (n < 8) {
        V res = V(-0.0);
        for (long long i = 0; i < n; ++i) res += x(start + i);
        return res;
    }
    if (n <= 128) {
        V r[8];
        for (int j = 0; j < 8; ++j) r[j] = x(start + j);
        long long i = 8;
        for (; i < n - (n % 8); i += 8)
            for (int j = 0; j < 8; ++j) r[j] += x(start + i + j);
        V res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]));
        for (; i < n; ++i) res += x(start + i);
        return res;
    }
    long long n2 = n / 2;
    n2 -= n2 % 8;
    return pairwise_sum<V>(x, start, n2) + pairwise_sum<V>(x, start + n2, n - n2);
}

template <typename V, typename At>
__device__ V reduceat_sum(const At& x, long long n)
{
    return x(0) + pairwise_sum<V>(x, 1, n - 1);
}

// Exclusive prefix sum over the block (THREADS <= 1024) through shared scratch; returns the
// thread's offset and leaves the total in *total.
template <int THREADS>
__device__ int block_scan(int x, int* scratch, int* total)
{
    scratch[threadIdx.x] = x;
    __syncthreads();
    for (int d = 1; d < THREADS; d <<= 1) {
        const int y = threadIdx.x >= d ? scratch[threadIdx.x - d] : 0;
        __syncthreads();
        scratch[threadIdx.x] += y;
        __syncthreads();
    }
    const int inclusive = scratch[threadIdx.x];
    *total = scratch[THREADS - 1];
    __syncthreads();
    return inclusive - x;
}

template <int THREADS, int CAPACITY, bool WRITE, typename I, typename V>
__global__ void coarse_by_sort(const int* aggregates, long long count, const long long* starts, const int* members,
                               const long long* indptr, const I* indices, const int* labels, const V* weights,
                               long long* edge_counts, const long long* row_ptr, I* out_columns, V* out_weights)
{
    static_assert(CAPACITY <= (1 << POS_BITS), "positions must fit in POS_BITS");
    __shared__ unsigned long long keys[CAPACITY];
    __shared__ long long fine[CAPACITY];   // position of each entry in the fine CSR
    __shared__ int offsets[CAPACITY + 1];  // entries before each member
    __shared__ int scratch[THREADS];
    const int t = threadIdx.x;
    for (long long g = blockIdx.x; g < count; g += gridDim.x) {
        const int a = aggregates[g];
        const long long first = starts[a];
        const int m = (int)(starts[a + 1] - first);
        int carry = 0, total;
        for (int base = 0; base < m; base += THREADS) {  // offsets of the members' rows
            const int i = base + t;
            const int degree = i < m ? (int)(indptr[members[first + i] + 1] - indptr[members[first + i]]) : 0;
            const int before = block_scan<THREADS>(degree, scratch, &total);
            if (i < m) offsets[i] = carry + before;
            carry += total;
        }
        if (t == 0) offsets[m] = carry;
        __syncthreads();
        const int e = carry;
        int p = 1;
        while (p < e) p <<= 1;
        for (int k = t; k < p; k += THREADS) {  // gather: member by binary search in offsets
            unsigned long long key = NO_ENTRY;
            if (k < e) {
                int lo = 0, hi = m;  // the last member whose offset is <= k
                while (hi - lo > 1) {
                    const int mid = (lo + hi) >> 1;
                    if (offsets[mid] <= k) lo = mid; else hi = mid;
                }
                const long long position = indptr[members[first + lo]] + (k - offsets[lo]);
                const int b = labels[indices[position]];
                fine[k] = position;
                if (b != a) key = (unsigned long long)b << POS_BITS | (unsigned long long)k;
            }
            keys[k] = key;
        }
        __syncthreads();
        for (int size = 2; size <= p; size <<= 1) {  // bitonic sort of keys[0..p)
            for (int stride = size >> 1; stride > 0; stride >>= 1) {
                for (int i = t; i < p; i += THREADS) {
                    const int j = i ^ stride;
                    if (j > i) {
                        const unsigned long long x = keys[i], y = keys[j];
                        if ((x > y) == ((i & size) == 0)) {
                            keys[i] = y;
                            keys[j] = x;
                        }
                    }
                }
                __syncthreads();
            }
        }
        // a run starts where the label changes; each thread takes a contiguous chunk
        const int chunk = (p + THREADS - 1) / THREADS;
        const int lo = min(t * chunk, p), hi = min(lo + chunk, p);
        int heads = 0;
        for (int i = lo; i < hi; ++i)
            heads += keys[i] != NO_ENTRY && (i == 0 || keys[i] >> POS_BITS != keys[i - 1] >> POS_BITS);
        int rank = block_scan<THREADS>(heads, scratch, &total);
        if (!WRITE && t == 0) edge_counts[a] = total;
        for (int i = lo; WRITE && i < hi; ++i) {
            if (keys[i] == NO_ENTRY || (i > 0 && keys[i] >> POS_BITS == keys[i - 1] >> POS_BITS)) continue;
            const unsigned long long label = keys[i] >> POS_BITS;
            int end = i + 1;
            while (end < p && keys[end] != NO_ENTRY && keys[end] >> POS_BITS == label) ++end;
            V w;
            if (weights == nullptr) {
                w = V(end - i);
            } else {
                const auto at = [&](long long r) { return weights[fine[keys[i + r] & ((1ULL << POS_BITS) - 1)]]; };
                w = reduceat_sum<V>(at, end - i);
            }
            out_columns[row_ptr[a] + rank] = (I)label;
            out_weights[row_ptr[a] + rank] = w;
            ++rank;
        }
        __syncthreads();  // shared arrays are reused by the next aggregate
    }
}

}  // namespace gbgraph

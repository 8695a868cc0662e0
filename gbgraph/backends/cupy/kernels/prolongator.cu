// Smoothed aggregation's prolongators on the GPU (gbgraph.amg.setup): the tentative
// prolongator T of pyamg's fit_candidates, and P = T - (omega/rho D^-1 A) T, each a thread per
// aggregate or row in place of the sparse products and sums of the CPU path.
//
// Every sum runs in the order of the CPU path's (scipy's SpMV and SpGEMM add a row's terms one
// after the other, in the row's order) and rounds each product and sum on its own
// (__dmul_rn, __dadd_rn: no fused multiply-add), so that T and P are the CPU's bit for bit.
#pragma once
#include "aggregates.cuh"

namespace gbgraph {

// fit_candidates for aggregate g (one thread each), whose rows are members[offsets[g] ..
// offsets[g + 1]), sorted here first: modified Gram-Schmidt of its block of Q (n x K,
// row-major, B on entry) over its rows in ascending order, a column whose norm falls to tol
// times its norm before becoming zero; the coefficients into R[g] (K x K, zero on entry).
template <typename I>
__global__ void tentative(long long k, int K, const I* offsets, I* members, double tol, double* Q, double* R)
{
    for (long long g = blockIdx.x * (long long)blockDim.x + threadIdx.x; g < k; g += (long long)gridDim.x * blockDim.x) {
        const long long begin = offsets[g], end = offsets[g + 1];
        for (long long p = begin + 1; p < end; ++p) {  // insertion sort: aggregates are small
            const I row = members[p];
            long long q = p;
            for (; q > begin && members[q - 1] > row; --q)
                members[q] = members[q - 1];
            members[q] = row;
        }
        double* const r = R + g * K * K;
        auto column_dot = [&](int a, int b) {
            double sum = 0.0;
            for (long long p = begin; p < end; ++p) {
                const double* q = Q + (long long)members[p] * K;
                sum = __dadd_rn(sum, __dmul_rn(q[a], q[b]));
            }
            return sum;
        };
        for (int j = 0; j < K; ++j) {
            const double threshold = __dmul_rn(tol, sqrt(column_dot(j, j)));
            for (int i = 0; i < j; ++i) {
                const double dot = column_dot(j, i);
                for (long long p = begin; p < end; ++p) {
                    double* q = Q + (long long)members[p] * K;
                    q[j] = __dsub_rn(q[j], __dmul_rn(dot, q[i]));
                }
                r[i * K + j] = dot;
            }
            const double norm = sqrt(column_dot(j, j));
            const bool kept = norm > threshold;
            r[j * K + j] = kept ? norm : 0.0;
            const double scale = kept ? 1.0 / norm : 0.0;
            for (long long p = begin; p < end; ++p) {
                double* q = Q + (long long)members[p] * K;
                q[j] = __dmul_rn(q[j], scale);
            }
        }
    }
}

// The aggregates that row i of P = T - S A T reaches: its own and its neighbours', distinct
// and ascending, into groups[indptr[i] + i ..) (room for the row's entries and one more),
// and their number into counts[i].
template <typename I>
__global__ void prolongator_groups(long long n, const I* indptr, const I* indices, const I* labels, I* groups,
                                   I* counts)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        I* const out = groups + indptr[i] + i;
        int d = 0;
        auto insert = [&](I g) {  // into the ascending out[0 .. d), once
            int at = d;
            while (at > 0 && out[at - 1] > g)
                --at;
            if (at > 0 && out[at - 1] == g)
                return;
            for (int q = d; q > at; --q)
                out[q] = out[q - 1];
            out[at] = g;
            ++d;
        };
        insert(labels[i]);
        for (long long p = indptr[i]; p < indptr[i + 1]; ++p)
            insert(labels[indices[p]]);
        counts[i] = d;
    }
}

// Row i of P: columns g K + c for the row's aggregates g (prolongator_groups) and c < K,
// starting at P_indptr[i]; values T(i, g K + c) - sum over the row's entries (i, j) with
// labels[j] = g of (A(i, j) s[i]) Q[j K + c], in the row's order (scipy's SpGEMM), T(i, .)
// being Q[i K ..] in the row's own aggregate and nothing elsewhere (0 - sum: scipy's
// difference of an entry that only the product has).
template <typename I>
__global__ void prolongator_values(long long n, int K, const I* indptr, const I* indices, const double* values,
                                   const double* s, const I* labels, const double* Q, const I* groups,
                                   const I* counts, const I* P_indptr, I* P_indices, double* P_values)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        const I* const row_groups = groups + indptr[i] + i;
        const int d = counts[i];
        const long long start = P_indptr[i];
        for (int q = 0; q < d; ++q)
            for (int c = 0; c < K; ++c) {
                P_indices[start + q * K + c] = row_groups[q] * K + c;
                P_values[start + q * K + c] = 0.0;
            }
        const double scale = s[i];
        for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
            const I j = indices[p];
            const I g = labels[j];
            int low = 0, high = d - 1;  // g's place among the ascending groups
            while (low < high) {
                const int mid = (low + high) / 2;
                if (row_groups[mid] < g)
                    low = mid + 1;
                else
                    high = mid;
            }
            const double a = __dmul_rn(values[p], scale);
            for (int c = 0; c < K; ++c)
                P_values[start + low * K + c] = __dadd_rn(P_values[start + low * K + c], __dmul_rn(a, Q[(long long)j * K + c]));
        }
        const I own = labels[i];
        for (int q = 0; q < d; ++q)
            for (int c = 0; c < K; ++c) {
                const double sum = P_values[start + q * K + c];
                P_values[start + q * K + c] = row_groups[q] == own ? __dsub_rn(Q[i * K + c], sum) : -sum;
            }
    }
}

}  // namespace gbgraph

// Canonical CSR on the GPU: which rows are sorted and hold their diagonal, the one-way
// entries of a pattern, and the diagonal dropped; one thread per row in each (the CPU's
// are backends/numba/kernels/canonical.py, line for line). The symmetry check looks every
// entry (i, j) up in row j by binary search instead of transposing: it only reads.
#pragma once

namespace gbgraph {

// has_diagonal[i]: row i stores (i, i); *unsorted += the entries not above their predecessor.
template <typename I>
__global__ void inspect_rows(const long long* indptr, const I* indices, long long n, bool* has_diagonal,
                             unsigned long long* unsorted)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        bool diagonal = false;
        unsigned long long bad = 0;
        for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
            if ((long long)indices[p] == i) diagonal = true;
            if (p > indptr[i] && indices[p] <= indices[p - 1]) ++bad;
        }
        has_diagonal[i] = diagonal;
        if (bad) atomicAdd(unsorted, bad);  // a sum of integers: the same total in any order
    }
}

// *one_way += the entries (i, j), i != j, of a row-sorted CSR without an entry (j, i); with
// values, those whose value differs from (j, i)'s, a missing entry counting as 0 (the entries
// of A - Aᵀ that are not zero, without forming it).
template <typename I>
__global__ void count_one_way(const long long* indptr, const I* indices, const double* values, long long n,
                              unsigned long long* one_way)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        unsigned long long missing = 0;
        for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
            const long long j = indices[p];
            if (j == i) continue;
            long long lo = indptr[j], hi = indptr[j + 1];
            while (lo < hi) {
                const long long mid = (lo + hi) >> 1;
                if ((long long)indices[mid] < i) lo = mid + 1; else hi = mid;
            }
            const bool found = lo < indptr[j + 1] && (long long)indices[lo] == i;
            if (values == nullptr ? !found : values[p] != (found ? values[lo] : 0.0)) ++missing;
        }
        if (missing) atomicAdd(one_way, missing);
    }
}

// Copy every row without its entry (i, i) to the rows starting at new_indptr.
template <typename I, typename V>
__global__ void drop_diagonal(const long long* indptr, const I* indices, const V* values, long long n,
                              const long long* new_indptr, I* new_indices, V* new_values)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        long long q = new_indptr[i];
        for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
            if ((long long)indices[p] != i) {
                new_indices[q] = indices[p];
                if (values != nullptr) new_values[q] = values[p];
                ++q;
            }
        }
    }
}

// Row i of a sorted CSR without diagonal entries copied to closed_indptr[i] = indptr[i] + i,
// with i before its first column above i: A + I, rows still sorted.
template <typename P, typename I, typename Q, typename J>
__global__ void insert_diagonal(const P* indptr, const I* indices, long long n, Q* closed_indptr, J* closed)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x) {
        long long q = (long long)indptr[i] + i;
        closed_indptr[i] = (Q)q;
        bool placed = false;
        for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
            const long long j = indices[p];
            if (!placed && j > i) {
                closed[q++] = (J)i;
                placed = true;
            }
            closed[q++] = (J)j;
        }
        if (!placed) closed[q] = (J)i;
        if (i == n - 1) closed_indptr[n] = (Q)((long long)indptr[n] + n);
    }
}

}  // namespace gbgraph

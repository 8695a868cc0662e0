// The fused verbs of the coarse mappings (gbgraph/algorithms/heavy.py): the heaviest
// neighbour of each row, a push onto the targets of a function, and pointer jumping. The
// CPU's kernels are backends/numba/kernels/mapping.py; the GraphBLAS forms, backends/forms.py.
#pragma once

namespace gbgraph {

// out[k] for row i = rows[k] (i = k when rows is null): the column j of the row that
// maximises (weights[p], keys[j]) over the j with present[j] (every j when present is null);
// a null weights array weighs every entry 1. -1 where the row has no such column.
template <typename I, typename W>
__global__ void heavy_rows(const long long* rows, long long count, const long long* indptr, const I* indices,
                           const W* weights, const unsigned long long* keys, const unsigned char* present,
                           long long* out)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x) {
        const long long i = rows ? rows[k] : k;
        long long column = -1;
        unsigned long long best = 0;
        W heaviest = W(0);
        for (long long p = indptr[i]; p < indptr[i + 1]; ++p) {
            const long long j = indices[p];
            if (present && !present[j]) continue;
            const unsigned long long key = keys[j];
            const W w = weights ? weights[p] : W(1);
            if (column < 0 || w > heaviest || (w == heaviest && key > best)) {
                heaviest = w;
                best = key;
                column = j;
            }
        }
        out[k] = column;
    }
}

// out[t] = max / min / sum of values[k] over the k with targets[k] = t (MONOID 0, 1, 2;
// integers only, so the atomics' order changes nothing), found[t] = 1 where one exists.
template <int MONOID, typename T>
__global__ void reduce_to(const long long* targets, const T* values, long long count, T* out, unsigned char* found)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x) {
        const long long t = targets[k];
        found[t] = 1;
        if (MONOID == 0) atomicMax(out + t, values[k]);
        else if (MONOID == 1) atomicMin(out + t, values[k]);
        else atomicAdd((unsigned long long*)(out + t), (unsigned long long)values[k]);
    }
}

// out[u] = the root of u: parent followed until it points at itself.
__global__ void roots(const long long* parent, long long n, long long* out)
{
    for (long long u = blockIdx.x * (long long)blockDim.x + threadIdx.x; u < n; u += (long long)gridDim.x * blockDim.x) {
        long long r = parent[u];
        while (parent[r] != r) r = parent[r];
        out[u] = r;
    }
}

}  // namespace gbgraph

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

// Algorithm 3's visit by decreasing key (Backend.unclaimed), with no rounds: a pending u is
// decided once its waiting in-neighbours (pending w with H(w) = u and key(w) > key(u),
// counted by count_waiting) are, and a decided w hands on to H(w): it claims H(w) if it is
// itself unclaimed, then lowers H(w)'s count. The thread that brings a count to zero goes on
// with that vertex, so each chain of H is walked once, by one thread, in key order; the
// result is a function of H, the keys and pending only. depth[u] + 1 is the round in which
// the GraphBLAS form decides u (1 + the largest round of u's waiting in-neighbours); rounds
// gets the largest over the vertices with a neighbour.
__global__ void mark(const long long* visited, long long count, unsigned char* pending)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x)
        pending[visited[k]] = 1;
}

__global__ void count_waiting(const long long* H, const unsigned long long* key, const unsigned char* pending,
                              const long long* visited, long long count, int* waiting)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x) {
        const long long w = visited[k];
        const long long u = H[w];
        if (u != w && pending[u] && key[w] > key[u]) atomicAdd(waiting + u, 1);
    }
}

__global__ void visit_chains(const long long* H, const unsigned long long* key, const unsigned char* pending,
                             const long long* visited, long long count, int* waiting, volatile unsigned char* claimed,
                             volatile int* depth, unsigned char* free, int* rounds)
{
    int deepest = 0;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count; k += (long long)gridDim.x * blockDim.x) {
        long long u = visited[k];
        if (atomicCAS(waiting + u, 0, -1) != 0) continue;  // u still waits, or another thread took it
        while (true) {
            __threadfence();  // see the claims and depths written before the count reached zero
            const bool unclaimed = !claimed[u];
            free[u] = unclaimed;
            const long long v = H[u];
            if (v != u) deepest = max(deepest, depth[u] + 1);
            if (v == u || !pending[v] || key[u] <= key[v]) break;
            if (unclaimed) claimed[v] = 1;  // l.11-12: v is mapped along with u
            atomicMax((int*)depth + v, depth[u] + 1);
            __threadfence();
            if (atomicSub(waiting + v, 1) != 1 || atomicCAS(waiting + v, 0, -1) != 0) break;
            u = v;
        }
    }
    deepest = __reduce_max_sync(0xffffffffu, deepest);  // one atomic per warp
    if ((threadIdx.x & 31) == 0 && deepest) atomicMax(rounds, deepest);
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

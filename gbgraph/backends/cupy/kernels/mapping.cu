// The cupy backend's answers to Backend.fused("visit") and Backend.fused("roots")
// (gbgraph/algorithms/heavy.py): Algorithm 3's visit and pointer jumping, each in one pass,
// and the roots numbered in ascending order (by a compaction, vector.cu).
// Every backend runs heavy.py's GraphBLAS rounds instead (VISIT, p = p(p)); on a GPU those
// cost a launch and a host read a round, where these walk each chain once.
#pragma once

namespace gbgraph {

// Algorithm 3's visit by decreasing key, with no rounds: a pending u is
// decided once its waiting in-neighbours (pending w with H(w) = u and key(w) > key(u),
// counted by count_waiting) are, and a decided w hands on to H(w): it claims H(w) if it is
// itself unclaimed, then lowers H(w)'s count. The thread that brings a count to zero goes on
// with that vertex, so each chain of H is walked once, by one thread, in key order; the
// result is a function of H, the keys and pending only. depth[u] + 1 is the round in which
// heavy.py's rounds decide u (1 + the largest round of u's waiting in-neighbours); rounds
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

// out[u] = the root of u: parent followed until it points at itself; is_root[u] = whether u
// is one, which a compaction lists in ascending order for number_roots.
__global__ void roots(const long long* parent, long long n, long long* out, unsigned char* is_root)
{
    for (long long u = blockIdx.x * (long long)blockDim.x + threadIdx.x; u < n; u += (long long)gridDim.x * blockDim.x) {
        long long r = parent[u];
        while (parent[r] != r) r = parent[r];
        out[u] = r;
        is_root[u] = r == u;
    }
}

// label[listed[k]] = k for the *count roots listed in ascending order: each root's rank.
__global__ void number_roots(const long long* listed, const long long* count, long long* label)
{
    const long long roots = *count;
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < roots; k += (long long)gridDim.x * blockDim.x)
        label[listed[k]] = k;
}

// root[u] = label[root[u]], in place: each vertex's root by its rank.
__global__ void relabel(long long* root, long long n, const long long* label)
{
    for (long long u = blockIdx.x * (long long)blockDim.x + threadIdx.x; u < n; u += (long long)gridDim.x * blockDim.x)
        root[u] = label[root[u]];
}

}  // namespace gbgraph

// Kernels of user-defined operators (gbgraph/backends/operators.py), templated by the
// operator's functor: ``Op::call(...)``, translated from restricted Python by
// gbgraph/backends/cuda_translate.py and placed after this file in the translation unit.
//
// Entry lists follow vector.cu: the first *count_ptr (or ``count``) entries of buffers
// sized for a capacity. Each kernel's Python reference is the numba backend's kernel of the
// same name in gbgraph/backends/numba/operators.py: the same function on the same entries in
// the same order, so values are bit for bit the numba backend's.
#include "vector.cu"
#include "pyops.cuh"

namespace gbgraph {

__device__ __forceinline__ long long first_thread() { return blockIdx.x * (long long)blockDim.x + threadIdx.x; }
__device__ __forceinline__ long long thread_stride() { return (long long)gridDim.x * blockDim.x; }

// out[k] = Op(x[k]) (numba's _gb_map of a UnaryOp)
template <typename Op, typename TX, typename TO>
__global__ void map_unary(const TX* x, const long long* count_ptr, long long count, TO* out)
{
    const long long n = entries(count_ptr, count);
    for (long long k = first_thread(); k < n; k += thread_stride()) out[k] = TO(Op::call(x[k]));
}

// out[k] = Op(x[k], y[k]) (_gb_map of a BinaryOp: aligned operands of ewise)
template <typename Op, typename TX, typename TY, typename TO>
__global__ void map_binary(const TX* x, const TY* y, long long count, TO* out)
{
    for (long long k = first_thread(); k < count; k += thread_stride()) out[k] = TO(Op::call(x[k], y[k]));
}

// out[k] = Op(s, x[k]) (_gb_left) or Op(x[k], s) (_gb_right): apply with a bound scalar
template <typename Op, bool Left, typename TS, typename TX, typename TO>
__global__ void map_bound(const TX* x, TS s, const long long* count_ptr, long long count, TO* out)
{
    const long long n = entries(count_ptr, count);
    for (long long k = first_thread(); k < n; k += thread_stride()) {
        if (Left) out[k] = TO(Op::call(s, x[k]));
        else out[k] = TO(Op::call(x[k], s));
    }
}

// out[k] = Op(x[k], i, j, thunks...) with i = rows[k] (rows == nullptr: k) and j = cols[k]
// (cols == nullptr: 0, a vector); a thunk is a scalar or a dense array read at i and j
// (_gb_index). A pattern's x is nullptr: true.
template <typename Op, typename TX, typename TO, typename I, typename... Thunks>
__global__ void index_unary(const TX* x, const long long* rows, const I* cols, const long long* count_ptr,
                            long long count, TO* out, Thunks... thunks)
{
    const long long n = entries(count_ptr, count);
    for (long long k = first_thread(); k < n; k += thread_stride()) {
        const long long i = rows == nullptr ? k : rows[k];
        const long long j = cols == nullptr ? 0LL : (long long)cols[k];
        out[k] = TO(Op::call(x == nullptr ? TX(1) : x[k], i, j, thunks...));
    }
}

// partial[t] = identity ⊕ x[t chunk] ⊕ ... ⊕ x[(t + 1) chunk - 1] in order, for the first
// ``count`` values (_gb_reduce over chunks; a second launch with one chunk folds the
// partials). One chunk of all the values is numba's order exactly, which floating-point
// monoids need; an integer monoid, associative, gives the same value chunk by chunk.
template <typename Op, typename T>
__global__ void reduce_chunks(const T* x, const long long* count_ptr, long long count, long long chunk, T identity,
                              T* partial, long long chunks)
{
    const long long n = entries(count_ptr, count);
    for (long long t = first_thread(); t < chunks; t += thread_stride()) {
        T acc = identity;
        const long long end = (t + 1) * chunk < n ? (t + 1) * chunk : n;
        for (long long k = t * chunk; k < end; ++k) acc = T(Op::call(acc, x[k]));
        partial[t] = acc;
    }
}

// out[k] = x[indptr[r]] ⊕ ... ⊕ x[indptr[r + 1] - 1] in order, r = rows[k] (rows == nullptr:
// k), for nonempty rows (_gb_reduce_rows).
template <typename Op, typename T>
__global__ void reduce_rows(const long long* indptr, const T* x, const long long* rows, long long count, T* out)
{
    for (long long k = first_thread(); k < count; k += thread_stride()) {
        const long long r = rows == nullptr ? k : rows[k];
        T acc = x[indptr[r]];
        for (long long p = indptr[r] + 1; p < indptr[r + 1]; ++p) acc = T(Op::call(acc, x[p]));
        out[k] = acc;
    }
}

// w(r) = identity ⊕ Mul(A(r, j), u(j)) ⊕ ... over the row's entries whose u(j) is present
// (present == nullptr: all), in column order, each product cast to the monoid's type T;
// ``Swap``: Mul(u(j), A(r, j)) (vxm on Aᵀ). One thread per listed row (_gb_pull). Add and Mul
// are functors with ``call``; a pattern's a is nullptr: true.
template <typename Add, typename Mul, bool Swap, typename T, typename TA, typename TU, typename I>
__global__ void semiring_rows(const long long* rows, const long long* count_ptr, long long count,
                              const long long* indptr, const I* cols, const TA* a, const TU* u,
                              const unsigned char* present, T identity, T* out, unsigned char* found)
{
    const long long n = entries(count_ptr, count);
    for (long long k = first_thread(); k < n; k += thread_stride()) {
        const long long r = rows == nullptr ? k : rows[k];
        T acc = identity;
        bool hit = false;
        for (long long p = indptr[r]; p < indptr[r + 1]; ++p) {
            const long long j = cols[p];
            if (present != nullptr && !present[j]) continue;
            const TA x = a == nullptr ? TA(1) : a[p];
            acc = T(Add::call(acc, Swap ? T(Mul::call(u[j], x)) : T(Mul::call(x, u[j]))));
            hit = true;
        }
        out[k] = acc;
        found[k] = hit;
    }
}

// One thread per listed row r = rows[k] (rows == nullptr: k): found[k] = Op(r, indptr[r],
// indptr[r + 1], cols, vals, vectors..., &out[k]) (_gb_rows). vals == nullptr for a pattern
// (the translation reads true there).
template <typename Op, typename TW, typename I, typename V, typename... Vectors>
__global__ void row_operator(const long long* rows, const long long* count_ptr, long long count,
                             const long long* indptr, const I* cols, const V* vals, TW* out, unsigned char* found,
                             Vectors... vectors)
{
    const long long n = entries(count_ptr, count);
    for (long long k = first_thread(); k < n; k += thread_stride()) {
        const long long r = rows == nullptr ? k : rows[k];
        TW value = TW(0);
        found[k] = Op::call(r, indptr[r], indptr[r + 1], cols, vals, vectors..., &value);
        out[k] = value;
    }
}

// Where an ordered sweep writes row r's present value: into the first vector at r (AtRow,
// _gb_rows_ordered), or combined into it at every column of the row with the functor Push,
// first[j] = Push(first[j], value) (Pushed, _gb_rows_pushed).
struct AtRow {
    template <typename I, typename T0>
    static __device__ void write(T0* first, long long r, const long long*, const I*, T0 value) { first[r] = value; }
};

template <typename Push>
struct Pushed {
    template <typename I, typename T0>
    static __device__ void write(T0* first, long long r, const long long* indptr, const I* cols, T0 value)
    {
        for (long long p = indptr[r]; p < indptr[r + 1]; ++p) {
            const long long j = cols[p];
            first[j] = Push::call(first[j], value);
        }
    }
};

// One thread, the rows one after another: k = sequence[s] for s = 0, 1, ..., r = rows[k],
// each present value, cast to the first vector's type, written by Write before the next row
// (``sequence`` lists positions of ``rows`` by decreasing order).
template <typename Op, typename Write, typename TW, typename I, typename V, typename T0, typename... Vectors>
__global__ void row_operator_ordered(const long long* rows, const long long* sequence, long long count,
                                     const long long* indptr, const I* cols, const V* vals, TW* out,
                                     unsigned char* found, T0* first, Vectors... vectors)
{
    if (first_thread() != 0) return;
    for (long long s = 0; s < count; ++s) {
        const long long k = sequence[s];
        const long long r = rows[k];
        TW value = TW(0);
        const bool present = Op::call(r, indptr[r], indptr[r + 1], cols, vals, (const T0*)first, vectors..., &value);
        if (present) Write::write(first, r, indptr, cols, T0(value));
        out[k] = value;
        found[k] = present;
    }
}

}  // namespace gbgraph

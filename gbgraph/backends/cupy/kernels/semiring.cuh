// Monoids and multiplicative operators of gbgraph's semirings, as device functors.
//
// A semiring <Monoid, Multiply> reduces Multiply(a_ij, u_j, j) over a row with Monoid.
// Multiply receives the matrix value (or nothing, for a pattern), the vector value and the
// column index, so positional operators (secondi) fit the same template.
#pragma once

namespace gbgraph {

// Extreme values of the types gbgraph's vectors hold (no <limits> under NVRTC).
template <typename T> struct Limits;
template <> struct Limits<bool> {
    static __device__ __forceinline__ bool max() { return true; }
    static __device__ __forceinline__ bool lowest() { return false; }
};
template <> struct Limits<int> {
    static __device__ __forceinline__ int max() { return 2147483647; }
    static __device__ __forceinline__ int lowest() { return -2147483647 - 1; }
};
template <> struct Limits<long long> {
    static __device__ __forceinline__ long long max() { return 9223372036854775807LL; }
    static __device__ __forceinline__ long long lowest() { return -9223372036854775807LL - 1; }
};
template <> struct Limits<unsigned long long> {
    static __device__ __forceinline__ unsigned long long max() { return 18446744073709551615ULL; }
    static __device__ __forceinline__ unsigned long long lowest() { return 0ULL; }
};
template <> struct Limits<double> {
    static __device__ __forceinline__ double max() { return __longlong_as_double(0x7ff0000000000000LL); }
    static __device__ __forceinline__ double lowest() { return -__longlong_as_double(0x7ff0000000000000LL); }
};

template <typename T> struct Min {
    static __device__ __forceinline__ T identity() { return Limits<T>::max(); }
    static __device__ __forceinline__ T op(T a, T b) { return b < a ? b : a; }
};
template <typename T> struct Max {
    static __device__ __forceinline__ T identity() { return Limits<T>::lowest(); }
    static __device__ __forceinline__ T op(T a, T b) { return a < b ? b : a; }
};
template <typename T> struct Plus {
    static __device__ __forceinline__ T identity() { return T(0); }
    static __device__ __forceinline__ T op(T a, T b) { return a + b; }
};
template <typename T> struct Times {
    static __device__ __forceinline__ T identity() { return T(1); }
    static __device__ __forceinline__ T op(T a, T b) { return a * b; }
};
// ``any`` may return any of the values; gbgraph uses it only where they are all equal, and
// keeps the first one met for determinism of the reduction order.
template <typename T> struct Any {
    static __device__ __forceinline__ T identity() { return T(0); }
    static __device__ __forceinline__ T op(T a, T b) { return a; }
};
template <typename T> struct Lor {
    static __device__ __forceinline__ T identity() { return T(0); }
    static __device__ __forceinline__ T op(T a, T b) { return T(a || b); }
};
template <typename T> struct Land {
    static __device__ __forceinline__ T identity() { return T(1); }
    static __device__ __forceinline__ T op(T a, T b) { return T(a && b); }
};

template <typename T> struct Bor {
    static __device__ __forceinline__ T identity() { return T(0); }
    static __device__ __forceinline__ T op(T a, T b) { return a | b; }
};
template <typename T> struct Band {
    static __device__ __forceinline__ T identity() { return T(~T(0)); }
    static __device__ __forceinline__ T op(T a, T b) { return a & b; }
};

// Multiplicative operators: z = f(a, u, j) with a the matrix entry, u the vector entry and
// j the column (the index shared by the matrix entry and the vector entry).
template <typename T> struct First {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A a, U, I) { return T(a); }
};
template <typename T> struct Second {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A, U u, I) { return T(u); }
};
template <typename T> struct Pair {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A, U, I) { return T(1); }
};
template <typename T> struct TimesOp {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A a, U u, I) { return T(a) * T(u); }
};
template <typename T> struct SecondI {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A, U, I j) { return T(j); }
};
template <typename T> struct LandOp {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A a, U u, I) { return T(a && u); }
};
// Arithmetic multiplies (Bellman-Ford's min_plus ...), both operands cast to T first; min and
// max are IEEE's fmin / fmax on doubles, as numpy's and SuiteSparse's.
template <typename T> __device__ __forceinline__ T min_of(T a, T b) { return b < a ? b : a; }
template <> __device__ __forceinline__ double min_of<double>(double a, double b) { return fmin(a, b); }
template <typename T> __device__ __forceinline__ T max_of(T a, T b) { return a < b ? b : a; }
template <> __device__ __forceinline__ double max_of<double>(double a, double b) { return fmax(a, b); }
template <typename T> struct PlusMul {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A a, U u, I) { return T(a) + T(u); }
};
template <typename T> struct MinusMul {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A a, U u, I) { return T(a) - T(u); }
};
template <typename T> struct RminusMul {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A a, U u, I) { return T(u) - T(a); }
};
template <typename T> struct MinMul {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A a, U u, I) { return min_of<T>(T(a), T(u)); }
};
template <typename T> struct MaxMul {
    template <typename A, typename U, typename I>
    static __device__ __forceinline__ T op(A a, U u, I) { return max_of<T>(T(a), T(u)); }
};

}  // namespace gbgraph

// Python's (and numba's) semantics of the operators that C++ spells differently, for the
// device functions that gbgraph/backends/cuda_translate.py emits from user-defined operators
// written in restricted Python. Free of CUDA intrinsics, so the translator's tests compile
// them on the host too (with __device__ and __forceinline__ defined away).
#pragma once

namespace gbgraph {
namespace py {

__device__ __forceinline__ double fmod_(double a, double b) { return fmod(a, b); }
__device__ __forceinline__ float fmod_(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double floor_(double a) { return floor(a); }
__device__ __forceinline__ float floor_(float a) { return floorf(a); }
__device__ __forceinline__ double copysign_(double a, double b) { return copysign(a, b); }
__device__ __forceinline__ float copysign_(float a, float b) { return copysignf(a, b); }
__device__ __forceinline__ double abs_(double a) { return fabs(a); }
__device__ __forceinline__ float abs_(float a) { return fabsf(a); }
template <typename T> __device__ __forceinline__ T abs_(T a) { return a < T(0) ? T(-a) : a; }

// min and max as numba's builtins: the first operand unless the second compares below (above)
// it, so min(nan, 1.0) is nan and min(1.0, nan) is 1.0, as in Python.
template <typename T> __device__ __forceinline__ T min_(T a, T b) { return b < a ? b : a; }
template <typename T> __device__ __forceinline__ T max_(T a, T b) { return b > a ? b : a; }

// Floor division and modulo of signed integers: the quotient rounds toward -inf and the
// remainder takes the divisor's sign. Python raises on a zero divisor; here the result is 0.
template <typename T> __device__ __forceinline__ T floordiv_int(T a, T b)
{
    if (b == 0) return T(0);
    const T q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? T(q - 1) : q;
}
template <typename T> __device__ __forceinline__ T mod_int(T a, T b)
{
    if (b == 0) return T(0);
    const T r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? T(r + b) : r;
}
template <typename T> __device__ __forceinline__ T floordiv_uint(T a, T b) { return b == 0 ? T(0) : T(a / b); }
template <typename T> __device__ __forceinline__ T mod_uint(T a, T b) { return b == 0 ? T(0) : T(a % b); }

// Floor division and modulo of floats: CPython's float_floor_div and float_rem (numba's
// real_divmod), signed zeros included; a zero divisor gives nan where Python raises.
template <typename T> __device__ __forceinline__ T mod_real(T a, T b)
{
    T mod = fmod_(a, b);
    if (mod != T(0)) {
        if ((b < T(0)) != (mod < T(0))) mod += b;
    } else {
        mod = copysign_(T(0), b);
    }
    return mod;
}
template <typename T> __device__ __forceinline__ T floordiv_real(T a, T b)
{
    const T mod = fmod_(a, b);
    T div = (a - mod) / b;
    if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
    if (div != T(0)) {
        T floordiv = floor_(div);
        if (div - floordiv > T(0.5)) floordiv += T(1);
        return floordiv;
    }
    return copysign_(T(0), a / b);
}

// Integer powers as numba's int_power: a negative exponent gives 0 unless the base is 1 or -1
// (and the smallest integer for a zero base, numba's result where it does not raise).
template <typename T> __device__ __forceinline__ T pow_int(T a, T b)
{
    if (b < T(0)) {
        if (a == T(0)) return (T)(1ULL << (8 * sizeof(T) - 1));
        if (a == T(1)) return T(1);
        if (a == T(-1)) return (b & T(1)) ? T(-1) : T(1);
        return T(0);
    }
    T r = T(1);
    for (T e = b; e != T(0); e >>= 1) {
        if (e & T(1)) r *= a;
        a *= a;
    }
    return r;
}

}  // namespace py
}  // namespace gbgraph

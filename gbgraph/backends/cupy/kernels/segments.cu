// Segmented reduction out[k] = values[starts[k]] (+) ... (+) values[starts[k+1] - 1].
//
// One thread per segment, adding in order: the same sequence of operations as a sequential
// loop (and numpy's ufunc.reduceat), so sums of floating-point values match the CPU's bit
// for bit. Segments here are short (a row, or the duplicates of one coarse edge).
#include "numpy_sum.cuh"
#include "semiring.cuh"

namespace gbgraph {

template <typename Monoid, typename T>
__global__ void segment_reduce(const T* values, const long long* starts, long long count, long long total, T* out)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count;
         k += (long long)gridDim.x * blockDim.x) {
        const long long end = k + 1 < count ? starts[k + 1] : total;
        T acc = values[starts[k]];
        for (long long p = starts[k] + 1; p < end; ++p) acc = Monoid::op(acc, values[p]);
        out[k] = acc;
    }
}

// out[k] = numpy.add.reduceat(values, starts)[k], numpy's additions in numpy's order
template <typename T>
__global__ void reduceat_sum(const T* values, const long long* starts, long long count, long long total, T* out)
{
    for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < count;
         k += (long long)gridDim.x * blockDim.x) {
        const long long start = starts[k], end = k + 1 < count ? starts[k + 1] : total;
        const auto at = [&](long long i) { return values[start + i]; };
        out[k] = reduceat_sum<T>(at, end - start);
    }
}

}  // namespace gbgraph

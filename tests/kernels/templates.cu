// anycuda-name-expression: scale<float>
// anycuda-name-expression: scale<double>
// anycuda-name-expression: scale<int>
// anycuda-name-expression: axpy_unrolled<float, 4>
// anycuda-options: --std=c++17
// Templated kernels reached through name expressions (nvrtcAddNameExpression / GetLoweredName).
#include <cuda_runtime.h>

template <typename T>
__global__ void scale(T* data, T factor, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) data[i] *= factor;
}

template <typename T, int UNROLL>
__global__ void axpy_unrolled(T a, const T* x, T* y, int n)
{
    static_assert(UNROLL > 0 && (UNROLL & (UNROLL - 1)) == 0, "UNROLL must be a power of two");
    int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
    for (int k = 0; k < UNROLL; ++k) {
        int i = base + k;
        if (i < n) {
            if constexpr (sizeof(T) == 4) {
                y[i] = fmaf(a, x[i], y[i]);
            } else {
                y[i] = a * x[i] + y[i];
            }
        }
    }
}

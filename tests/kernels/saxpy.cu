// anycuda-kernel: saxpy
// anycuda-kernel: saxpy_grid_stride
// Classic y = a*x + y, once with one thread per element and once with a grid-stride loop.
#include <cuda_runtime.h>

extern "C" __global__ void saxpy(int n, float a, const float* __restrict__ x, float* __restrict__ y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = a * x[i] + y[i];
    }
}

extern "C" __global__ void saxpy_grid_stride(int n, float a, const float* x, float* y)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        y[i] = fmaf(a, x[i], y[i]);
    }
}

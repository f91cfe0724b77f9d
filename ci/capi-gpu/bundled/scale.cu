// Built with `anycuda nvcc --ptx` (the real nvcc, then the source bundle appended to the PTX).
#include "scale_op.cuh"
extern "C" __global__ void scale(float *y, const float *x, float a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = scale_op(x[i], a);
}

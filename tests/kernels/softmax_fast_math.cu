// anycuda-kernel: softmax_rows
// anycuda-options: -use_fast_math
// anycuda-options: -DSOFTMAX_BLOCK=128
// Row-wise softmax (one block per row) compiled with fast math; exercises expf/__expf,
// fmaxf, __fdividef and options carried in the corpus header.
#include <cuda_runtime.h>

#ifndef SOFTMAX_BLOCK
#error "SOFTMAX_BLOCK must be defined with -DSOFTMAX_BLOCK=..."
#endif

extern "C" __global__ void __launch_bounds__(SOFTMAX_BLOCK)
softmax_rows(const float* __restrict__ in, float* __restrict__ out, int cols)
{
    __shared__ float red[SOFTMAX_BLOCK];
    const float* row = in + (size_t)blockIdx.x * cols;
    float* orow = out + (size_t)blockIdx.x * cols;

    float m = -INFINITY;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, row[c]);
    red[threadIdx.x] = m;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] = fmaxf(red[threadIdx.x], red[threadIdx.x + s]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();

    float sum = 0.0f;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) sum += __expf(row[c] - m);
    red[threadIdx.x] = sum;
    __syncthreads();
    for (int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) red[threadIdx.x] += red[threadIdx.x + s];
        __syncthreads();
    }
    sum = red[0];

    for (int c = threadIdx.x; c < cols; c += blockDim.x) orow[c] = __fdividef(expf(row[c] - m), sum);
}

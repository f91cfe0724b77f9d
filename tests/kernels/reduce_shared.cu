// anycuda-kernel: reduce_sum_shared
// anycuda-kernel: reduce_sum_dynamic
// Block-level tree reduction in shared memory; one partial sum per block.
#include <cuda_runtime.h>

#define BLOCK_SIZE 256

extern "C" __global__ void __launch_bounds__(BLOCK_SIZE)
reduce_sum_shared(const float* in, float* block_sums, unsigned int n)
{
    __shared__ float sdata[BLOCK_SIZE];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * (blockDim.x * 2) + threadIdx.x;

    float v = 0.0f;
    if (i < n) v += in[i];
    if (i + blockDim.x < n) v += in[i + blockDim.x];
    sdata[tid] = v;
    __syncthreads();

    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) {
            sdata[tid] += sdata[tid + s];
        }
        __syncthreads();
    }
    if (tid == 0) block_sums[blockIdx.x] = sdata[0];
}

// Same reduction with dynamically sized shared memory (launch with blockDim.x * sizeof(double)).
extern "C" __global__ void reduce_sum_dynamic(const double* in, double* block_sums, unsigned int n)
{
    extern __shared__ double sbuf[];
    unsigned int tid = threadIdx.x;
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    sbuf[tid] = (i < n) ? in[i] : 0.0;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s) sbuf[tid] += sbuf[tid + s];
        __syncthreads();
    }
    if (tid == 0) block_sums[blockIdx.x] = sbuf[0];
}

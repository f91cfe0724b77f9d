// anycuda-kernel: histogram256
// 256-bin byte histogram: per-block privatised bins in shared memory, merged with global atomics.
#include <cuda_runtime.h>
#include <stdint.h>

#define NUM_BINS 256

extern "C" __global__ void histogram256(const uint8_t* __restrict__ data, size_t n, unsigned int* __restrict__ bins)
{
    __shared__ unsigned int local[NUM_BINS];
    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();

    size_t stride = (size_t)blockDim.x * gridDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        atomicAdd(&local[data[i]], 1u);
    }
    __syncthreads();

    for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) {
        unsigned int c = local[b];
        if (c != 0) atomicAdd(&bins[b], c);
    }
}

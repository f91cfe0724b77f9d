// anycuda-kernel: stencil_1d
// 1-D stencil: weights in __constant__ memory (set with cuModuleGetGlobal / cudaMemcpyToSymbol
// on "c_weights"), input staged in shared memory with a halo.
#include <cuda_runtime.h>

#define RADIUS 4
#define BLOCK 256

__constant__ float c_weights[2 * RADIUS + 1];

extern "C" __global__ void stencil_1d(const float* __restrict__ in, float* __restrict__ out, int n)
{
    __shared__ float s[BLOCK + 2 * RADIUS];
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    int l = threadIdx.x + RADIUS;

    s[l] = (g < n) ? in[g] : 0.0f;
    if (threadIdx.x < RADIUS) {
        int left = g - RADIUS;
        int right = g + BLOCK;
        s[l - RADIUS] = (left >= 0) ? in[left] : 0.0f;
        s[l + BLOCK] = (right < n) ? in[right] : 0.0f;
    }
    __syncthreads();

    if (g < n) {
        float acc = 0.0f;
#pragma unroll
        for (int k = -RADIUS; k <= RADIUS; ++k) {
            acc += c_weights[k + RADIUS] * s[l + k];
        }
        out[g] = acc;
    }
}

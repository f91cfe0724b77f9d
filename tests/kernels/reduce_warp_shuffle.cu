// anycuda-kernel: reduce_sum_warp
// Warp-shuffle reduction. Uses warpSize (32 on NVIDIA, 32 or 64 on AMD), never a literal 32,
// so the same source is correct for both wavefront widths.
#include <cuda_runtime.h>

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_reduce_sum(float v)
{
    for (int offset = warpSize / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(FULL_MASK, v, offset);
    }
    return v;
}

extern "C" __global__ void reduce_sum_warp(const float* __restrict__ in, float* out, int n)
{
    // Enough slots for 1024 threads with the narrowest warp (32 lanes).
    __shared__ float warp_sums[32];
    float v = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        v += in[i];
    }
    const int lane = threadIdx.x % warpSize;
    const int warp = threadIdx.x / warpSize;
    v = warp_reduce_sum(v);
    if (lane == 0) warp_sums[warp] = v;
    __syncthreads();

    const int num_warps = (blockDim.x + warpSize - 1) / warpSize;
    if (warp == 0) {
        v = (lane < num_warps) ? warp_sums[lane] : 0.0f;
        v = warp_reduce_sum(v);
        if (lane == 0) atomicAdd(out, v);
    }
}

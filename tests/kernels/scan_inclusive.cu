// anycuda-kernel: scan_inclusive_block
// anycuda-kernel: scan_add_block_offsets
// Block-wide inclusive scan (Hillis-Steele, double-buffered shared memory) plus the
// fix-up pass that adds each block's scanned total to the next blocks.
#include <cuda_runtime.h>

#define SCAN_BLOCK 512

extern "C" __global__ void scan_inclusive_block(const int* in, int* out, int* block_totals, int n)
{
    __shared__ int buf[2][SCAN_BLOCK];
    int tid = threadIdx.x;
    int g = blockIdx.x * blockDim.x + tid;
    int pout = 0, pin = 1;

    buf[pout][tid] = (g < n) ? in[g] : 0;
    __syncthreads();
    for (int offset = 1; offset < blockDim.x; offset <<= 1) {
        pout = 1 - pout;
        pin = 1 - pout;
        int v = buf[pin][tid];
        if (tid >= offset) v += buf[pin][tid - offset];
        buf[pout][tid] = v;
        __syncthreads();
    }
    if (g < n) out[g] = buf[pout][tid];
    if (block_totals != nullptr && tid == blockDim.x - 1) block_totals[blockIdx.x] = buf[pout][tid];
}

// scanned_totals: inclusive scan of block_totals.
extern "C" __global__ void scan_add_block_offsets(int* out, const int* scanned_totals, int n)
{
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (blockIdx.x > 0 && g < n) out[g] += scanned_totals[blockIdx.x - 1];
}

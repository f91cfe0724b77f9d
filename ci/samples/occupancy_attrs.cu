// Kernel attributes and occupancy: cudaFuncGetAttributes (static shared size, registers,
// binary and PTX versions), cudaOccupancyMaxPotentialBlockSize, ...VariableSMem,
// cudaOccupancyMaxActiveBlocksPerMultiprocessor, cudaOccupancyAvailableDynamicSMemPerBlock,
// cudaFuncSetCacheConfig and the shared-memory carveout, and the opt-in for more than 48 KB of
// dynamic shared memory (cudaFuncSetAttribute with cudaFuncAttributeMaxDynamicSharedMemorySize):
// refused before, used and checked after. Also cudaLaunchKernelEx with a plain configuration.
#define SAMPLE "occupancy_attrs"
#include "common.cuh"
#include <vector>

const int STATIC_INTS = 1024;

__global__ void with_static(int *out) {
    __shared__ int buf[STATIC_INTS];
    for (int i = threadIdx.x; i < STATIC_INTS; i += blockDim.x) buf[i] = i * 2;
    __syncthreads();
    out[blockIdx.x * blockDim.x + threadIdx.x] = buf[(threadIdx.x * 7) % STATIC_INTS];
}

// Fills `words` ints of dynamic shared memory, then each thread sums a strided slice of it.
__global__ void big_shared(int words, long long *out) {
    extern __shared__ int dyn[];
    for (int i = threadIdx.x; i < words; i += blockDim.x) dyn[i] = (i * 13) % 1001 + blockIdx.x;
    __syncthreads();
    long long s = 0;
    for (int i = words - 1 - threadIdx.x; i >= 0; i -= blockDim.x) s += dyn[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}

static size_t smem_for_block(int threads) { return (size_t)threads * 16; }

int main() {
    int dev = 0;
    CK(cudaGetDevice(&dev));
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, dev));

    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, with_static));
    EXPECT(fa.sharedSizeBytes >= STATIC_INTS * sizeof(int), "static shared size %zu",
           fa.sharedSizeBytes);
    EXPECT(fa.numRegs > 0 && fa.maxThreadsPerBlock > 0, "registers %d, max threads %d",
           fa.numRegs, fa.maxThreadsPerBlock);
    EXPECT(fa.binaryVersion >= 50 && fa.ptxVersion >= 50, "binary version %d, PTX version %d",
           fa.binaryVersion, fa.ptxVersion);

    int min_grid = 0, block = 0;
    CK(cudaOccupancyMaxPotentialBlockSize(&min_grid, &block, with_static, 0, 0));
    EXPECT(block > 0 && block <= fa.maxThreadsPerBlock && block % 32 == 0 && min_grid > 0,
           "max potential block size %d (min grid %d)", block, min_grid);
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, with_static, block, 0));
    EXPECT(per_sm >= 1, "%d active blocks per SM at %d threads", per_sm, block);
    int vblock = 0;
    CK(cudaOccupancyMaxPotentialBlockSizeVariableSMem(&min_grid, &vblock, big_shared,
                                                      smem_for_block, 0));
    EXPECT(vblock > 0, "variable-shared-memory block size %d", vblock);
    size_t avail = 0;
    CK(cudaOccupancyAvailableDynamicSMemPerBlock(&avail, with_static, 1, 128));
    EXPECT(avail > 0 && avail <= p.sharedMemPerMultiprocessor,
           "available dynamic shared memory %zu", avail);
    CK(cudaFuncSetCacheConfig(with_static, cudaFuncCachePreferShared));
    CK(cudaFuncSetAttribute(with_static, cudaFuncAttributePreferredSharedMemoryCarveout, 50));

    int *dout;
    CK(cudaMalloc(&dout, 4 * 256 * sizeof(int)));
    with_static<<<4, 256>>>(dout);
    CK_LAUNCH();
    std::vector<int> h(4 * 256);
    CK(cudaMemcpy(h.data(), dout, h.size() * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < 4 * 256; i++)
        EXPECT(h[i] == ((i % 256) * 7 % STATIC_INTS) * 2, "with_static [%d] = %d", i, h[i]);

    // Dynamic shared memory beyond 48 KB: refused without the opt-in, usable with it.
    const size_t want = p.sharedMemPerBlockOptin; // 227 KB on Hopper
    EXPECT(want > 48 * 1024, "this device offers no opt-in beyond 48 KB (%zu)", want);
    const int words = (int)(want / sizeof(int)), B = 256, G = 8;
    long long *dsum;
    CK(cudaMalloc(&dsum, G * B * sizeof(long long)));
    big_shared<<<G, B, want>>>(words, dsum);
    cudaError_t e = cudaGetLastError();
    EXPECT(e != cudaSuccess, "%zu bytes of dynamic shared memory launched without the opt-in",
           want);
    CK(cudaFuncSetAttribute(big_shared, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)want));
    CK(cudaFuncGetAttributes(&fa, big_shared));
    EXPECT((size_t)fa.maxDynamicSharedSizeBytes == want, "maxDynamicSharedSizeBytes %d, set %zu",
           fa.maxDynamicSharedSizeBytes, want);
    big_shared<<<G, B, want>>>(words, dsum);
    CK_LAUNCH();
    std::vector<long long> hs(G * B);
    CK(cudaMemcpy(hs.data(), dsum, hs.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int b = 0; b < G; b++)
        for (int t = 0; t < B; t++) {
            long long s = 0;
            for (int i = words - 1 - t; i >= 0; i -= B) s += (i * 13) % 1001 + b;
            EXPECT(hs[b * B + t] == s, "big_shared block %d thread %d: %lld, host %lld", b, t,
                   hs[b * B + t], s);
        }

    // cudaLaunchKernelEx: the same kernel, configuration as a struct.
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(G);
    cfg.blockDim = dim3(B);
    cfg.dynamicSmemBytes = want;
    CK(cudaMemset(dsum, 0, G * B * sizeof(long long)));
    CK(cudaLaunchKernelEx(&cfg, big_shared, words, dsum));
    CK(cudaMemcpy(hs.data(), dsum, hs.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    long long s0 = 0;
    for (int i = words - 1; i >= 0; i -= B) s0 += (i * 13) % 1001;
    EXPECT(hs[0] == s0, "cudaLaunchKernelEx: %lld, host %lld", hs[0], s0);

    CK(cudaFree(dout));
    CK(cudaFree(dsum));
    return pass();
}

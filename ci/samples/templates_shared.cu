// <<<>>> launches of templated kernels: a block reduction over static shared memory, templated
// on the element type and the block size (int, unsigned long long, float, double; 64 to 512
// threads), and a tile reversal over dynamic shared memory (extern __shared__, size given in the
// launch), each checked against the host.
#define SAMPLE "templates_shared"
#include "common.cuh"
#include <vector>

template <typename T, int BLOCK> __global__ void block_sum(const T *in, T *out, int n) {
    __shared__ T buf[BLOCK];
    int i = blockIdx.x * BLOCK + threadIdx.x;
    buf[threadIdx.x] = i < n ? in[i] : T(0);
    __syncthreads();
    for (int stride = BLOCK / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) buf[threadIdx.x] += buf[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) out[blockIdx.x] = buf[0];
}

// Reverses each tile of `tile` elements (tile = blockDim.x * per_thread) through shared memory.
template <typename T> __global__ void reverse_tiles(const T *in, T *out, int per_thread) {
    extern __shared__ unsigned char raw[];
    T *tile = reinterpret_cast<T *>(raw);
    int len = blockDim.x * per_thread;
    const T *src = in + (size_t)blockIdx.x * len;
    for (int k = threadIdx.x; k < len; k += blockDim.x) tile[k] = src[k];
    __syncthreads();
    for (int k = threadIdx.x; k < len; k += blockDim.x)
        out[(size_t)blockIdx.x * len + k] = tile[len - 1 - k];
}

// The host's reduction in the device's order (pairwise within a block), so floats match exactly.
template <typename T, int BLOCK> void check_sum(const char *what, int n) {
    std::vector<T> h(n);
    for (int i = 0; i < n; i++) h[i] = T((i * 37) % 101) / T(4);
    int blocks = (n + BLOCK - 1) / BLOCK;
    T *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(T)));
    CK(cudaMalloc(&dout, blocks * sizeof(T)));
    CK(cudaMemcpy(din, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    block_sum<T, BLOCK><<<blocks, BLOCK>>>(din, dout, n);
    CK_LAUNCH();
    std::vector<T> got(blocks);
    CK(cudaMemcpy(got.data(), dout, blocks * sizeof(T), cudaMemcpyDeviceToHost));
    for (int b = 0; b < blocks; b++) {
        T buf[BLOCK];
        for (int t = 0; t < BLOCK; t++) buf[t] = b * BLOCK + t < n ? h[b * BLOCK + t] : T(0);
        for (int stride = BLOCK / 2; stride > 0; stride /= 2)
            for (int t = 0; t < stride; t++) buf[t] += buf[t + stride];
        EXPECT(got[b] == buf[0], "block_sum<%s,%d> block %d: %g, host %g", what, BLOCK, b,
               (double)got[b], (double)buf[0]);
    }
    CK(cudaFree(din));
    CK(cudaFree(dout));
}

template <typename T> void check_reverse(const char *what, int threads, int per_thread, int tiles) {
    int len = threads * per_thread, n = len * tiles;
    std::vector<T> h(n), got(n);
    for (int i = 0; i < n; i++) h[i] = T(i % 1000 + 1);
    T *din, *dout;
    CK(cudaMalloc(&din, n * sizeof(T)));
    CK(cudaMalloc(&dout, n * sizeof(T)));
    CK(cudaMemcpy(din, h.data(), n * sizeof(T), cudaMemcpyHostToDevice));
    reverse_tiles<T><<<tiles, threads, len * sizeof(T)>>>(din, dout, per_thread);
    CK_LAUNCH();
    CK(cudaMemcpy(got.data(), dout, n * sizeof(T), cudaMemcpyDeviceToHost));
    for (int t = 0; t < tiles; t++)
        for (int k = 0; k < len; k++)
            EXPECT(got[t * len + k] == h[t * len + len - 1 - k], "reverse_tiles<%s> tile %d [%d]",
                   what, t, k);
    CK(cudaFree(din));
    CK(cudaFree(dout));
}

int main() {
    check_sum<int, 64>("int", 100000);
    check_sum<int, 256>("int", 100001);
    check_sum<unsigned long long, 128>("u64", 50000);
    check_sum<float, 512>("float", 1 << 18);
    check_sum<double, 256>("double", 77777);
    check_reverse<float>("float", 256, 4, 64);   // 4 KB of dynamic shared memory
    check_reverse<double>("double", 128, 40, 16); // 40 KB, under the 48 KB default limit
    check_reverse<short>("short", 96, 3, 100);    // a block size that is not a power of two
    CK(cudaDeviceSynchronize());
    return pass();
}

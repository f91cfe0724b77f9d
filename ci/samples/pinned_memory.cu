// Pinned host memory: cudaMallocHost with asynchronous copies, cudaHostAlloc(cudaHostAllocMapped)
// read and written by a kernel in place (zero copy, through cudaHostGetDevicePointer),
// cudaHostRegister of ordinary memory, cudaHostGetFlags.
#define SAMPLE "pinned_memory"
#include "common.cuh"
#include <vector>

__global__ void square_plus(const int *in, int *out, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] * in[i] + k;
}

int main() {
    const int n = 1 << 18;
    const size_t bytes = n * sizeof(int);
    int dev = 0;
    CK(cudaGetDevice(&dev));
    int can_map = 0;
    CK(cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, dev));
    EXPECT(can_map == 1, "cudaDevAttrCanMapHostMemory is %d", can_map);

    // 1. cudaMallocHost + cudaMemcpyAsync on a stream.
    int *h_in, *h_out, *d_in, *d_out;
    CK(cudaMallocHost(&h_in, bytes));
    CK(cudaMallocHost(&h_out, bytes));
    CK(cudaMalloc(&d_in, bytes));
    CK(cudaMalloc(&d_out, bytes));
    for (int i = 0; i < n; i++) h_in[i] = (i % 2000) - 1000;
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMemcpyAsync(d_in, h_in, bytes, cudaMemcpyHostToDevice, s));
    square_plus<<<(n + 255) / 256, 256, 0, s>>>(d_in, d_out, n, 3);
    CK_LAUNCH();
    CK(cudaMemcpyAsync(h_out, d_out, bytes, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    for (int i = 0; i < n; i++)
        EXPECT(h_out[i] == h_in[i] * h_in[i] + 3, "pinned: out[%d] = %d", i, h_out[i]);

    // 2. Mapped (zero-copy) memory: the kernel reads and writes host memory directly.
    int *m_in, *m_out, *dm_in, *dm_out;
    CK(cudaHostAlloc(&m_in, bytes, cudaHostAllocMapped));
    CK(cudaHostAlloc(&m_out, bytes, cudaHostAllocMapped | cudaHostAllocPortable));
    unsigned int flags = 0;
    CK(cudaHostGetFlags(&flags, m_in));
    EXPECT(flags & cudaHostAllocMapped, "cudaHostGetFlags: 0x%x lacks cudaHostAllocMapped", flags);
    CK(cudaHostGetDevicePointer((void **)&dm_in, m_in, 0));
    CK(cudaHostGetDevicePointer((void **)&dm_out, m_out, 0));
    for (int i = 0; i < n; i++) {
        m_in[i] = i % 4096;
        m_out[i] = -1;
    }
    square_plus<<<(n + 255) / 256, 256>>>(dm_in, dm_out, n, -7);
    CK_LAUNCH();
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < n; i++)
        EXPECT(m_out[i] == m_in[i] * m_in[i] - 7, "mapped: out[%d] = %d", i, m_out[i]);

    // 3. Ordinary memory registered (and mapped) after the fact.
    std::vector<int> reg(n + 64);
    int *r = reg.data() + 16; // not page aligned on purpose
    for (int i = 0; i < n; i++) r[i] = 5 - i % 100;
    CK(cudaHostRegister(r, bytes, cudaHostRegisterMapped));
    int *dr = nullptr;
    CK(cudaHostGetDevicePointer((void **)&dr, r, 0));
    square_plus<<<(n + 255) / 256, 256>>>(dr, d_out, n, 11);
    CK_LAUNCH();
    CK(cudaMemcpy(h_out, d_out, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        EXPECT(h_out[i] == r[i] * r[i] + 11, "registered: out[%d] = %d", i, h_out[i]);
    // Registered memory also serves as a pinned copy source.
    CK(cudaMemcpyAsync(d_in, r, bytes, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyAsync(h_in, d_in, bytes, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    EXPECT(memcmp(h_in, r, bytes) == 0, "registered memory did not round-trip");
    CK(cudaHostUnregister(r));

    CK(cudaStreamDestroy(s));
    CK(cudaFreeHost(h_in));
    CK(cudaFreeHost(h_out));
    CK(cudaFreeHost(m_in));
    CK(cudaFreeHost(m_out));
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    return pass();
}

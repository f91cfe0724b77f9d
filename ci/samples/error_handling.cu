// Errors a program recovers from: <<<>>> with too many threads per block, a grid dimension out
// of range, an empty block, too much dynamic shared memory: each must be
// cudaErrorInvalidConfiguration (or, for shared memory, an error) from cudaGetLastError,
// which then reads cudaSuccess, with cudaPeekAtLastError not clearing it; the next good launch
// must run and be right. Also allocation failure (not sticky), invalid device numbers, error
// names, and peer copies (cudaMemcpyPeer on one device; peer access between two when present).
#define SAMPLE "error_handling"
#include "common.cuh"
#include <vector>

__global__ void inc(int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += 1;
}

static void expect_launch_error(cudaError_t want, const char *what) {
    cudaError_t e = cudaPeekAtLastError();
    EXPECT(want == cudaSuccess ? e != cudaSuccess : e == want, "%s: peek gave %s, want %s", what,
           cudaGetErrorName(e), want == cudaSuccess ? "an error" : cudaGetErrorName(want));
    cudaError_t again = cudaPeekAtLastError();
    EXPECT(again == e, "%s: a second peek gave %s", what, cudaGetErrorName(again));
    cudaError_t got = cudaGetLastError();
    EXPECT(got == e, "%s: cudaGetLastError gave %s after peek gave %s", what,
           cudaGetErrorName(got), cudaGetErrorName(e));
    got = cudaGetLastError();
    EXPECT(got == cudaSuccess, "%s: the error was not cleared: %s", what, cudaGetErrorName(got));
}

int main() {
    const int n = 1 << 16;
    int *d;
    CK(cudaMalloc(&d, n * sizeof(int)));
    CK(cudaMemset(d, 0, n * sizeof(int)));
    int max_threads = 0, max_grid_y = 0;
    CK(cudaDeviceGetAttribute(&max_threads, cudaDevAttrMaxThreadsPerBlock, 0));
    CK(cudaDeviceGetAttribute(&max_grid_y, cudaDevAttrMaxGridDimY, 0));

    inc<<<1, max_threads * 2>>>(d, n);
    expect_launch_error(cudaErrorInvalidConfiguration, "block of twice the maximum threads");
    inc<<<dim3(1, max_grid_y + 1), 32>>>(d, n);
    expect_launch_error(cudaErrorInvalidConfiguration, "grid y beyond the maximum");
    inc<<<1, dim3(0, 1, 1)>>>(d, n);
    expect_launch_error(cudaErrorInvalidConfiguration, "empty block");
    inc<<<1, 32, 64 << 20>>>(d, n); // 64 MB of dynamic shared memory
    expect_launch_error(cudaSuccess, "64 MB of dynamic shared memory");
    void *args[] = {&d, (void *)nullptr};
    int nn = n;
    args[1] = &nn;
    cudaError_t e = cudaLaunchKernel((void *)inc, dim3(1), dim3(max_threads * 2), args, 0, 0);
    EXPECT(e == cudaErrorInvalidConfiguration, "cudaLaunchKernel with too many threads: %s",
           cudaGetErrorName(e));
    cudaError_t last = cudaGetLastError(); // recorded as the last error, then cleared
    EXPECT(last == e, "last error after cudaLaunchKernel: %s", cudaGetErrorName(last));
    CK(cudaGetLastError());

    // Nothing above ran: the good launches now find zeros and count exactly.
    for (int k = 0; k < 3; k++) {
        inc<<<n / 256, 256>>>(d, n);
        CK_LAUNCH();
    }
    std::vector<int> h(n);
    CK(cudaMemcpy(h.data(), d, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(h[i] == 3, "after the failed launches v[%d] = %d", i, h[i]);

    // Allocation failure is reported, recorded as the last error, and not sticky.
    void *huge = nullptr;
    e = cudaMalloc(&huge, (size_t)1 << 50);
    EXPECT(e == cudaErrorMemoryAllocation, "cudaMalloc(1 PB): %s", cudaGetErrorName(e));
    e = cudaGetLastError();
    EXPECT(e == cudaErrorMemoryAllocation, "last error after the failed cudaMalloc: %s",
           cudaGetErrorName(e));
    void *small = nullptr;
    CK(cudaMalloc(&small, 4096));
    CK(cudaFree(small));

    int count = 0;
    CK(cudaGetDeviceCount(&count));
    e = cudaSetDevice(count);
    EXPECT(e == cudaErrorInvalidDevice, "cudaSetDevice(%d): %s", count, cudaGetErrorName(e));
    cudaDeviceProp p;
    e = cudaGetDeviceProperties(&p, -1);
    EXPECT(e == cudaErrorInvalidDevice, "cudaGetDeviceProperties(-1): %s", cudaGetErrorName(e));
    (void)cudaGetLastError();
    EXPECT(strcmp(cudaGetErrorName(cudaErrorInvalidConfiguration),
                  "cudaErrorInvalidConfiguration") == 0, "cudaGetErrorName");
    EXPECT(strlen(cudaGetErrorString(cudaErrorMemoryAllocation)) > 0, "cudaGetErrorString");

    // Peer copies: cudaMemcpyPeer within device 0 always; between devices when there are two.
    int *d2;
    CK(cudaMalloc(&d2, n * sizeof(int)));
    CK(cudaMemcpyPeer(d2, 0, d, 0, n * sizeof(int)));
    CK(cudaMemcpyPeerAsync(d, 0, d2, 0, n / 2 * sizeof(int), 0));
    CK(cudaMemcpy(h.data(), d2, n * sizeof(int), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) EXPECT(h[i] == 3, "cudaMemcpyPeer: [%d] = %d", i, h[i]);
    if (count >= 2) {
        int can = 0;
        CK(cudaDeviceCanAccessPeer(&can, 0, 1));
        CK(cudaSetDevice(1));
        int *remote;
        CK(cudaMalloc(&remote, n * sizeof(int)));
        CK(cudaMemcpyPeer(remote, 1, d, 0, n * sizeof(int)));
        CK(cudaSetDevice(0));
        if (can) {
            CK(cudaDeviceEnablePeerAccess(1, 0));
            e = cudaDeviceEnablePeerAccess(1, 0);
            EXPECT(e == cudaErrorPeerAccessAlreadyEnabled, "enabling peer access twice: %s",
                   cudaGetErrorName(e));
            (void)cudaGetLastError();
            inc<<<n / 256, 256>>>(remote, n); // device 0 writes device 1's memory directly
            CK_LAUNCH();
            CK(cudaDeviceSynchronize());
            CK(cudaDeviceDisablePeerAccess(1));
        }
        CK(cudaMemcpy(h.data(), remote, n * sizeof(int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; i++)
            EXPECT(h[i] == 3 + can, "peer device memory [%d] = %d", i, h[i]);
        CK(cudaFree(remote));
    } else {
        note("one device: peer access between devices not exercised");
    }
    CK(cudaFree(d));
    CK(cudaFree(d2));
    return pass();
}

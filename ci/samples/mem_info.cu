// Device memory information: cudaMemGetInfo against the device's total and against an
// allocation of our own, and cudaPointerGetAttributes for every kind of memory (device, pinned
// host, managed, plain host). No kernel.
#define SAMPLE "mem_info"
#include "common.cuh"

static void expect_type(const void *p, cudaMemoryType want, const char *what) {
    cudaPointerAttributes a;
    memset(&a, 0, sizeof a);
    CK(cudaPointerGetAttributes(&a, p));
    EXPECT(a.type == want, "%s: cudaPointerGetAttributes type %d, want %d", what, (int)a.type,
           (int)want);
}

int main() {
    cudaDeviceProp p;
    CK(cudaGetDeviceProperties(&p, 0));
    CK(cudaSetDevice(0));

    size_t free0 = 0, total = 0;
    CK(cudaMemGetInfo(&free0, &total));
    EXPECT(total > 0 && free0 > 0 && free0 <= total, "cudaMemGetInfo: free %zu, total %zu", free0,
           total);
    // The same memory as the properties report (drivers round differently: within 1 %).
    double rel = std::fabs((double)total - (double)p.totalGlobalMem) / (double)p.totalGlobalMem;
    EXPECT(rel < 0.01, "cudaMemGetInfo total %zu, totalGlobalMem %zu", total, p.totalGlobalMem);

    // Our own 128 MB must show in the free figure. The GPU may be shared, so another process can
    // free memory between the two reads: three tries, one must see at least 96 MB go.
    const size_t chunk = (size_t)128 << 20;
    bool seen = false;
    for (int attempt = 0; attempt < 3 && !seen; attempt++) {
        size_t before = 0, after = 0, t = 0;
        CK(cudaMemGetInfo(&before, &t));
        void *d = nullptr;
        CK(cudaMalloc(&d, chunk));
        CK(cudaMemset(d, 0, chunk)); // touch it, so lazily backed memory is backed
        CK(cudaDeviceSynchronize());
        CK(cudaMemGetInfo(&after, &t));
        EXPECT(after <= t, "free %zu > total %zu", after, t);
        seen = before > after && before - after >= (size_t)96 << 20;
        CK(cudaFree(d));
    }
    EXPECT(seen, "a 128 MB allocation never showed in cudaMemGetInfo's free figure");

    // Pointer attributes of each kind of memory.
    void *dev = nullptr, *pinned = nullptr, *managed = nullptr;
    CK(cudaMalloc(&dev, 4096));
    CK(cudaMallocHost(&pinned, 4096));
    CK(cudaMallocManaged(&managed, 4096));
    static char plain[4096];
    expect_type(dev, cudaMemoryTypeDevice, "cudaMalloc");
    expect_type((char *)dev + 100, cudaMemoryTypeDevice, "inside cudaMalloc");
    expect_type(pinned, cudaMemoryTypeHost, "cudaMallocHost");
    expect_type(managed, cudaMemoryTypeManaged, "cudaMallocManaged");
    expect_type(plain, cudaMemoryTypeUnregistered, "a static array");
    cudaPointerAttributes a;
    CK(cudaPointerGetAttributes(&a, dev));
    EXPECT(a.device == 0 && a.devicePointer == dev, "cudaMalloc: device %d, devicePointer %p",
           a.device, a.devicePointer);
    CK(cudaPointerGetAttributes(&a, pinned));
    EXPECT(a.hostPointer == pinned && a.devicePointer != nullptr,
           "cudaMallocHost: hostPointer %p, devicePointer %p", a.hostPointer, a.devicePointer);

    CK(cudaFree(dev));
    CK(cudaFreeHost(pinned));
    CK(cudaFree(managed));
    return pass();
}

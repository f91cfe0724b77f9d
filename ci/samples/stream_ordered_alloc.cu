// Stream-ordered allocation: cudaMallocAsync/cudaFreeAsync on the device's default pool, its
// release threshold (cudaMemPoolSetAttribute/GetAttribute), an explicit pool
// (cudaMemPoolCreate + cudaMallocFromPoolAsync), reuse across streams ordered by an event, and
// cudaMemPoolTrimTo.
#define SAMPLE "stream_ordered_alloc"
#include "common.cuh"
#include <vector>

__global__ void fill(int *v, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = base + i;
}
__global__ void add(const int *a, const int *b, int *c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main() {
    int dev = 0;
    CK(cudaGetDevice(&dev));
    int pools = 0;
    CK(cudaDeviceGetAttribute(&pools, cudaDevAttrMemoryPoolsSupported, dev));
    EXPECT(pools == 1, "cudaDevAttrMemoryPoolsSupported is %d", pools);

    const int n = 1 << 20;
    const size_t bytes = n * sizeof(int);
    cudaStream_t s1, s2;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));

    // Default pool: keep up to 64 MB cached after frees.
    cudaMemPool_t def;
    CK(cudaDeviceGetDefaultMemPool(&def, dev));
    unsigned long long thr = 64ull << 20, got = 0; // the attribute is 64-bit
    CK(cudaMemPoolSetAttribute(def, cudaMemPoolAttrReleaseThreshold, &thr));
    CK(cudaMemPoolGetAttribute(def, cudaMemPoolAttrReleaseThreshold, &got));
    EXPECT(got == thr, "release threshold read back %llu", got);

    std::vector<int> host(n);
    for (int round = 0; round < 3; round++) {
        int *a, *b, *c;
        CK(cudaMallocAsync(&a, bytes, s1));
        CK(cudaMallocAsync(&b, bytes, s1));
        CK(cudaMallocAsync(&c, bytes, s1));
        fill<<<n / 256, 256, 0, s1>>>(a, n, round);
        CK_LAUNCH();
        fill<<<n / 256, 256, 0, s1>>>(b, n, 1000 * round);
        CK_LAUNCH();
        add<<<n / 256, 256, 0, s1>>>(a, b, c, n);
        CK_LAUNCH();
        CK(cudaFreeAsync(a, s1));
        CK(cudaFreeAsync(b, s1));
        CK(cudaMemcpyAsync(host.data(), c, bytes, cudaMemcpyDeviceToHost, s1));
        CK(cudaFreeAsync(c, s1));
        CK(cudaStreamSynchronize(s1));
        for (int i = 0; i < n; i++)
            EXPECT(host[i] == round + 1000 * round + 2 * i, "round %d: c[%d] = %d", round, i,
                   host[i]);
    }
    unsigned long long used = 0, reserved = 0;
    CK(cudaMemPoolGetAttribute(def, cudaMemPoolAttrUsedMemCurrent, &used));
    CK(cudaMemPoolGetAttribute(def, cudaMemPoolAttrReservedMemCurrent, &reserved));
    EXPECT(used == 0, "default pool: %llu bytes still used after every free", used);
    EXPECT(reserved >= used, "default pool: reserved %llu < used %llu", reserved, used);
    CK(cudaMemPoolTrimTo(def, 0));

    // An explicit pool; a block allocated on s1 and freed on s2 after an event says s1 is done.
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = dev;
    cudaMemPool_t pool;
    CK(cudaMemPoolCreate(&pool, &props));
    int *p = nullptr, *q = nullptr;
    CK(cudaMallocFromPoolAsync((void **)&p, bytes, pool, s1));
    fill<<<n / 256, 256, 0, s1>>>(p, n, 7);
    CK_LAUNCH();
    cudaEvent_t done;
    CK(cudaEventCreateWithFlags(&done, cudaEventDisableTiming));
    CK(cudaEventRecord(done, s1));
    CK(cudaStreamWaitEvent(s2, done, 0));
    CK(cudaMallocFromPoolAsync((void **)&q, bytes, pool, s2));
    CK(cudaMemcpyAsync(q, p, bytes, cudaMemcpyDeviceToDevice, s2));
    CK(cudaFreeAsync(p, s2));
    CK(cudaMemcpyAsync(host.data(), q, bytes, cudaMemcpyDeviceToHost, s2));
    CK(cudaFreeAsync(q, s2));
    CK(cudaStreamSynchronize(s2));
    for (int i = 0; i < n; i++) EXPECT(host[i] == 7 + i, "explicit pool: q[%d] = %d", i, host[i]);

    CK(cudaMemPoolTrimTo(pool, 0));
    CK(cudaMemPoolDestroy(pool));
    CK(cudaEventDestroy(done));
    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s2));
    return pass();
}

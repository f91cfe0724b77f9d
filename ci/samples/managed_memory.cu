// Managed (unified) memory, small on purpose (4 MB): cudaMallocManaged written by the host,
// transformed by a kernel, read by the host; a __managed__ variable; cudaMemAdvise and
// cudaMemPrefetchAsync (CUDA 13's cudaMemLocation forms) where the device supports concurrent
// managed access; cudaMallocManaged with cudaMemAttachHost.
#define SAMPLE "managed_memory"
#include "common.cuh"

__managed__ int counter = 0;

__global__ void scale_count(float *v, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        v[i] = v[i] * k + 1.0f;
        if (v[i] > 1000.0f) atomicAdd(&counter, 1);
    }
}

int main() {
    const int n = 1 << 20; // 4 MB of floats
    int dev = 0;
    CK(cudaGetDevice(&dev));
    int managed = 0, concurrent = 0;
    CK(cudaDeviceGetAttribute(&managed, cudaDevAttrManagedMemory, dev));
    CK(cudaDeviceGetAttribute(&concurrent, cudaDevAttrConcurrentManagedAccess, dev));
    EXPECT(managed == 1, "cudaDevAttrManagedMemory is %d", managed);

    float *v = nullptr;
    CK(cudaMallocManaged(&v, n * sizeof(float)));
    int host_count = 0;
    for (int i = 0; i < n; i++) {
        v[i] = (float)(i % 512);
        if (v[i] * 3.0f + 1.0f > 1000.0f) host_count++;
    }
    counter = 0;

    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    if (concurrent) {
        cudaMemLocation gpu = {};
        gpu.type = cudaMemLocationTypeDevice;
        gpu.id = dev;
        cudaMemLocation cpu = {};
        cpu.type = cudaMemLocationTypeHost;
        CK(cudaMemAdvise(v, n * sizeof(float), cudaMemAdviseSetPreferredLocation, gpu));
        CK(cudaMemAdvise(v, n * sizeof(float), cudaMemAdviseSetAccessedBy, gpu));
        CK(cudaMemPrefetchAsync(v, n * sizeof(float), gpu, 0, s));
        scale_count<<<(n + 255) / 256, 256, 0, s>>>(v, n, 3.0f);
        CK_LAUNCH();
        CK(cudaMemPrefetchAsync(v, n * sizeof(float), cpu, 0, s));
    } else {
        note("no concurrent managed access: advice and prefetch skipped");
        scale_count<<<(n + 255) / 256, 256, 0, s>>>(v, n, 3.0f);
        CK_LAUNCH();
    }
    CK(cudaStreamSynchronize(s));
    CK(cudaDeviceSynchronize()); // the __managed__ variable is host-readable after a device sync
    for (int i = 0; i < n; i++) {
        float want = (float)(i % 512) * 3.0f + 1.0f;
        EXPECT(v[i] == want, "v[%d] = %g, host says %g", i, v[i], want);
    }
    EXPECT(counter == host_count, "__managed__ counter %d, host counted %d", counter, host_count);

    // Host-attached managed memory, attached to a stream before the kernel uses it.
    int *h = nullptr;
    const int m = 4096;
    CK(cudaMallocManaged(&h, m * sizeof(int), cudaMemAttachHost));
    for (int i = 0; i < m; i++) h[i] = i;
    CK(cudaStreamAttachMemAsync(s, h, 0, cudaMemAttachSingle));
    CK(cudaStreamSynchronize(s));
    float *hv = nullptr;
    CK(cudaMallocManaged(&hv, m * sizeof(float)));
    for (int i = 0; i < m; i++) hv[i] = (float)h[i];
    scale_count<<<m / 256, 256, 0, s>>>(hv, m, -1.0f);
    CK_LAUNCH();
    CK(cudaStreamSynchronize(s));
    CK(cudaDeviceSynchronize());
    for (int i = 0; i < m; i++)
        EXPECT(hv[i] == 1.0f - (float)h[i], "attached: hv[%d] = %g", i, hv[i]);

    CK(cudaStreamDestroy(s));
    CK(cudaFree(v));
    CK(cudaFree(h));
    CK(cudaFree(hv));
    return pass();
}

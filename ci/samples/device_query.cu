// Device query: cudaGetDeviceCount, cudaGetDeviceProperties against cudaDeviceGetAttribute for
// every device, the driver and runtime versions, cudaSetDevice/cudaGetDevice, the PCI bus id
// round trip, device limits. No kernel.
#define SAMPLE "device_query"
#include "common.cuh"

static int attr(cudaDeviceAttr a, int dev) {
    int v = -1;
    CK(cudaDeviceGetAttribute(&v, a, dev));
    return v;
}

#define SAME(a, field)                                                                             \
    EXPECT((long long)attr(a, d) == (long long)(field), "device %d: %s = %d but %s = %lld", d, #a, \
           attr(a, d), #field, (long long)(field))

int main() {
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    EXPECT(n >= 1, "cudaGetDeviceCount gave %d devices", n);

    int drv = 0, rt = 0;
    CK(cudaDriverGetVersion(&drv));
    CK(cudaRuntimeGetVersion(&rt));
    EXPECT(drv >= 12000, "driver version %d", drv);
    EXPECT(rt / 1000 == CUDART_VERSION / 1000, "runtime version %d, built against %d", rt,
           CUDART_VERSION);

    for (int d = 0; d < n; d++) {
        cudaDeviceProp p;
        memset(&p, 0, sizeof p);
        CK(cudaGetDeviceProperties(&p, d));
        EXPECT(p.name[0] != '\0', "device %d has no name", d);
        EXPECT(p.major >= 1 && p.minor >= 0, "device %d: compute capability %d.%d", d, p.major,
               p.minor);
        EXPECT(p.totalGlobalMem > (size_t)256 << 20, "device %d: totalGlobalMem %zu", d,
               p.totalGlobalMem);
        EXPECT(p.warpSize == 32, "device %d: warpSize %d", d, p.warpSize);
        EXPECT(p.maxThreadsPerBlock >= 256, "device %d: maxThreadsPerBlock %d", d,
               p.maxThreadsPerBlock);
        EXPECT(p.sharedMemPerBlockOptin >= p.sharedMemPerBlock, "device %d: opt-in %zu < %zu", d,
               p.sharedMemPerBlockOptin, p.sharedMemPerBlock);
        SAME(cudaDevAttrComputeCapabilityMajor, p.major);
        SAME(cudaDevAttrComputeCapabilityMinor, p.minor);
        SAME(cudaDevAttrMultiProcessorCount, p.multiProcessorCount);
        SAME(cudaDevAttrMaxThreadsPerBlock, p.maxThreadsPerBlock);
        SAME(cudaDevAttrWarpSize, p.warpSize);
        SAME(cudaDevAttrMaxBlockDimX, p.maxThreadsDim[0]);
        SAME(cudaDevAttrMaxBlockDimY, p.maxThreadsDim[1]);
        SAME(cudaDevAttrMaxBlockDimZ, p.maxThreadsDim[2]);
        SAME(cudaDevAttrMaxGridDimX, p.maxGridSize[0]);
        SAME(cudaDevAttrMaxGridDimY, p.maxGridSize[1]);
        SAME(cudaDevAttrMaxSharedMemoryPerBlock, p.sharedMemPerBlock);
        SAME(cudaDevAttrMaxSharedMemoryPerBlockOptin, p.sharedMemPerBlockOptin);
        SAME(cudaDevAttrMaxRegistersPerBlock, p.regsPerBlock);
        SAME(cudaDevAttrTotalConstantMemory, p.totalConstMem);
        SAME(cudaDevAttrL2CacheSize, p.l2CacheSize);
        SAME(cudaDevAttrGlobalMemoryBusWidth, p.memoryBusWidth);
        SAME(cudaDevAttrPciBusId, p.pciBusID);
        SAME(cudaDevAttrPciDeviceId, p.pciDeviceID);
        SAME(cudaDevAttrMaxThreadsPerMultiProcessor, p.maxThreadsPerMultiProcessor);
        SAME(cudaDevAttrConcurrentKernels, p.concurrentKernels);
        SAME(cudaDevAttrManagedMemory, p.managedMemory);
        SAME(cudaDevAttrCooperativeLaunch, p.cooperativeLaunch);
        SAME(cudaDevAttrUnifiedAddressing, p.unifiedAddressing);
        EXPECT(attr(cudaDevAttrClockRate, d) > 0, "device %d: cudaDevAttrClockRate is 0", d);

        // PCI bus id string and back.
        char bus[64] = {0};
        CK(cudaDeviceGetPCIBusId(bus, (int)sizeof bus, d));
        int back = -1;
        CK(cudaDeviceGetByPCIBusId(&back, bus));
        EXPECT(back == d, "device %d: bus id %s maps back to device %d", d, bus, back);

        // The current device follows cudaSetDevice.
        CK(cudaSetDevice(d));
        int cur = -1;
        CK(cudaGetDevice(&cur));
        EXPECT(cur == d, "cudaSetDevice(%d) then cudaGetDevice gave %d", d, cur);
    }
    CK(cudaSetDevice(0));

    // Limits: readable, and the stack size settable and read back.
    size_t stack = 0, heap = 0;
    CK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    CK(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize));
    EXPECT(stack > 0 && heap > 0, "limits: stack %zu, heap %zu", stack, heap);
    CK(cudaDeviceSetLimit(cudaLimitStackSize, 4096));
    CK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    EXPECT(stack >= 4096, "stack limit %zu after setting 4096", stack);

    // cudaChooseDevice finds a device of our compute capability.
    cudaDeviceProp want;
    memset(&want, 0, sizeof want);
    CK(cudaGetDeviceProperties(&want, 0));
    int chosen = -1;
    CK(cudaChooseDevice(&chosen, &want));
    EXPECT(chosen >= 0 && chosen < n, "cudaChooseDevice gave %d", chosen);
    return pass();
}

/* What a scheduler asks NVML (ci/capi-gpu.sh): driver and CUDA versions, the device count, and
 * per device its name, UUID, PCI bus id, total memory, compute capability, minor number, and
 * the handle lookups by UUID and bus id answering the same device. Built against NVIDIA's
 * nvml.h and linked -lnvidia-ml: run on NVIDIA's libnvidia-ml.so.1 and on anycuda's, the
 * outputs must be identical (only values that do not change between runs are printed).
 * Exit 0: every query answered; 2: nvmlInit_v2 failed (its code printed); 1: a query failed. */
#include <nvml.h>
#include <stdio.h>
#include <string.h>

#define CHECK(call)                                                                          \
    do {                                                                                     \
        nvmlReturn_t r_ = (call);                                                            \
        if (r_ != NVML_SUCCESS) {                                                            \
            printf("FAIL %s: %d (%s)\n", #call, (int)r_, nvmlErrorString(r_));              \
            failed = 1;                                                                      \
        }                                                                                    \
    } while (0)

int main(void) {
    int failed = 0;
    nvmlReturn_t r = nvmlInit_v2();
    if (r != NVML_SUCCESS) {
        printf("nvmlInit_v2 failed: %d (%s)\n", (int)r, nvmlErrorString(r));
        return 2;
    }
    char text[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    CHECK(nvmlSystemGetDriverVersion(text, sizeof text));
    printf("driver %s\n", text);
    int cuda = 0;
    CHECK(nvmlSystemGetCudaDriverVersion_v2(&cuda));
    printf("cuda driver %d\n", cuda);
    unsigned count = 0;
    CHECK(nvmlDeviceGetCount_v2(&count));
    printf("count %u\n", count);
    for (unsigned i = 0; i < count; i++) {
        nvmlDevice_t d, by_uuid, by_bus;
        CHECK(nvmlDeviceGetHandleByIndex_v2(i, &d));
        char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE] = "", uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE] = "";
        CHECK(nvmlDeviceGetName(d, name, sizeof name));
        CHECK(nvmlDeviceGetUUID(d, uuid, sizeof uuid));
        nvmlPciInfo_t pci;
        memset(&pci, 0, sizeof pci);
        CHECK(nvmlDeviceGetPciInfo_v3(d, &pci));
        nvmlMemory_t mem;
        CHECK(nvmlDeviceGetMemoryInfo(d, &mem));
        int major = 0, minor = 0;
        CHECK(nvmlDeviceGetCudaComputeCapability(d, &major, &minor));
        unsigned index = 99, minor_number = 0;
        CHECK(nvmlDeviceGetIndex(d, &index));
        CHECK(nvmlDeviceGetMinorNumber(d, &minor_number));
        CHECK(nvmlDeviceGetHandleByUUID(uuid, &by_uuid));
        CHECK(nvmlDeviceGetHandleByPciBusId_v2(pci.busId, &by_bus));
        printf("gpu %u: index %u, %s, %s, bus %s (%08X:%02X:%02X), device id %08x, "
               "memory %llu, cc %d.%d, minor %u, by uuid %s, by bus id %s\n",
               i, index, name, uuid, pci.busId, pci.domain, pci.bus, pci.device, pci.pciDeviceId,
               (unsigned long long)mem.total, major, minor, minor_number,
               by_uuid == d ? "same" : "other", by_bus == d ? "same" : "other");
    }
    /* Bad input, answered by class. */
    unsigned n;
    nvmlDevice_t d;
    printf("null count: %d\n", (int)nvmlDeviceGetCount_v2(NULL));
    printf("index out of range: %d\n", (int)nvmlDeviceGetHandleByIndex_v2(count, &d));
    printf("unknown uuid: %d\n", (int)nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &d));
    (void)n;
    CHECK(nvmlShutdown());
    printf("after shutdown: %d\n", (int)nvmlDeviceGetCount_v2(&n));
    printf("%s\n", failed ? "FAIL" : "PASS");
    return failed;
}

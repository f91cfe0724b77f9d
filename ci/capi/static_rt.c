/* A host program linked with NVIDIA's static runtime (libcudart_static.a of CUDA 13 or 12.9),
 * as nvcc's default build (-cudart static) links every program: the runtime is inside the
 * binary and reaches the driver only through libcuda.so.1, its public functions and its private
 * export tables (cuGetExportTable). No nvcc here: the kernel is PTX loaded through the runtime's
 * library API, so the same source builds against either runtime.
 *
 * Checks: the runtime's version and device count; then, with a device: a stream, events, a
 * 4 MiB copy in, a kernel through cudaLibraryLoadData/cudaLibraryGetKernel/cudaLaunchKernel, the
 * copy back against the host's computation, the events' elapsed time, cudaDeviceReset (the
 * driver drops the runtime's per-context state through its destructors) and a second round after
 * the reset. Prints one verdict line: `PASS static_rt (runtime N)`, `NODEVICE static_rt ...`
 * (no GPU: the runtime's own answer, exit 0), or `FAIL static_rt: <call> = <code> <text> (line)`.
 */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>

static const char ptx[] =
    ".version 8.0\n.target sm_52\n.address_size 64\n"
    ".visible .entry inc(.param .u64 p, .param .u32 n){\n"
    ".reg .pred %p<2>; .reg .b32 %r<6>; .reg .b64 %rd<5>;\n"
    "ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];\n"
    "mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "setp.ge.u32 %p1, %r5, %r1; @%p1 bra DONE;\n"
    "cvta.to.global.u64 %rd2, %rd1; mul.wide.u32 %rd3, %r5, 4; add.s64 %rd4, %rd2, %rd3;\n"
    "ld.global.u32 %r2, [%rd4]; add.s32 %r2, %r2, %r5; st.global.u32 [%rd4], %r2;\n"
    "DONE: ret; }\n";

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            printf("FAIL static_rt: %s = %d %s (line %d)\n", #x, (int)e_, cudaGetErrorString(e_), \
                   __LINE__);                                                                  \
            return 1;                                                                          \
        }                                                                                      \
    } while (0)

enum { N = 1 << 20 };
static unsigned h[N];

static int round_trip(int round) {
    unsigned n = N, *d = NULL;
    for (unsigned i = 0; i < n; i++) h[i] = 7u * (unsigned)round;
    cudaStream_t s;
    cudaEvent_t a, b;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaEventCreate(&a));
    CK(cudaEventCreate(&b));
    CK(cudaMalloc((void **)&d, n * sizeof *d));
    CK(cudaMemcpyAsync(d, h, n * sizeof *d, cudaMemcpyHostToDevice, s));
    cudaLibrary_t lib;
    cudaKernel_t k;
    CK(cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    CK(cudaLibraryGetKernel(&k, lib, "inc"));
    void *args[] = {&d, &n};
    dim3 grid = {(n + 255) / 256, 1, 1}, block = {256, 1, 1};
    CK(cudaEventRecord(a, s));
    CK(cudaLaunchKernel((const void *)k, grid, block, args, 0, s));
    CK(cudaEventRecord(b, s));
    CK(cudaMemcpyAsync(h, d, n * sizeof *d, cudaMemcpyDeviceToHost, s));
    CK(cudaStreamSynchronize(s));
    float ms = -1;
    CK(cudaEventElapsedTime(&ms, a, b));
    if (!(ms >= 0)) {
        printf("FAIL static_rt: elapsed time %f ms\n", ms);
        return 1;
    }
    for (unsigned i = 0; i < n; i++)
        if (h[i] != 7u * (unsigned)round + i) {
            printf("FAIL static_rt: round %d: h[%u] = %u, expected %u\n", round, i, h[i],
                   7u * (unsigned)round + i);
            return 1;
        }
    CK(cudaLibraryUnload(lib));
    CK(cudaFree(d));
    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    CK(cudaStreamDestroy(s));
    return 0;
}

int main(void) {
    int v = 0, count = 0;
    CK(cudaRuntimeGetVersion(&v));
    cudaError_t e = cudaGetDeviceCount(&count);
    if (e == cudaErrorNoDevice) {
        printf("NODEVICE static_rt (runtime %d): cudaGetDeviceCount = %d %s\n", v, (int)e,
               cudaGetErrorString(e));
        return 0;
    }
    CK(e);
    CK(cudaSetDevice(0));
    if (round_trip(1)) return 1;
    /* The reset drops the runtime's state for the device (its context-local storage goes through
     * the driver's destructors); the runtime builds it again on the next call. */
    CK(cudaDeviceReset());
    if (round_trip(2)) return 1;
    printf("PASS static_rt (runtime %d, %d device%s)\n", v, count, count == 1 ? "" : "s");
    return 0;
}

// A Runtime-API program (C++ for dim3): device query, memory, streams, events, and a kernel compiled at run
// time with NVRTC and launched through the Runtime API (cudaLibraryLoadData,
// cudaLibraryGetKernel, cudaLaunchKernel). Built with nvcc against NVIDIA's shared libcudart and
// run unchanged with anycuda's libraries first (ci/capi-gpu.sh).
// ANYCUDA_CUDA12: the CUDA 12 build (ci/capi-gpu.sh's runtime_demo12), a host compiler over
// CUDA 12's runtime headers from PyPI, which carry cuda_runtime_api.h but not nvcc's crt/.
#ifdef ANYCUDA_CUDA12
#include <cuda_runtime_api.h>
#else
#include <cuda_runtime.h>
#endif
#include <nvrtc.h>
#include <stdio.h>
#include <stdlib.h>

#define RT(x) do { cudaError_t r_ = (x); if (r_ != cudaSuccess) { \
    fprintf(stderr, "runtime_demo: %s failed: %s (%d)\n", #x, cudaGetErrorName(r_), (int)r_); \
    exit(1); } } while (0)
#define RTC(x) do { nvrtcResult r_ = (x); if (r_ != NVRTC_SUCCESS) { \
    fprintf(stderr, "runtime_demo: %s failed: %s\n", #x, nvrtcGetErrorString(r_)); exit(1); } } while (0)

static const char *SRC =
    "extern \"C\" __global__ void scale_add(const int *x, int *y, int k, unsigned n) {\n"
    "    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) y[i] = k * x[i] + y[i];\n"
    "}\n";

int main(void) {
    int count = 0;
    RT(cudaGetDeviceCount(&count));
    if (count < 1) { fprintf(stderr, "runtime_demo: no device\n"); return 1; }
    RT(cudaSetDevice(0));
    struct cudaDeviceProp prop;
    RT(cudaGetDeviceProperties(&prop, 0));
    int rtv = 0, drv = 0;
    RT(cudaRuntimeGetVersion(&rtv));
    RT(cudaDriverGetVersion(&drv));

    nvrtcProgram prog;
    RTC(nvrtcCreateProgram(&prog, SRC, "scale_add.cu", 0, NULL, NULL));
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", prop.major, prop.minor);
    const char *opts[] = {arch};
    RTC(nvrtcCompileProgram(prog, 1, opts));
    size_t sz = 0;
    RTC(nvrtcGetPTXSize(prog, &sz));
    char *ptx = (char *)malloc(sz);
    RTC(nvrtcGetPTX(prog, ptx));
    RTC(nvrtcDestroyProgram(&prog));
    cudaLibrary_t lib;
    RT(cudaLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
    cudaKernel_t kern;
    RT(cudaLibraryGetKernel(&kern, lib, "scale_add"));

    const unsigned n = 1u << 20;
    const size_t bytes = n * sizeof(int);
    int *hx, *hy;
    RT(cudaMallocHost((void **)&hx, bytes));
    RT(cudaMallocHost((void **)&hy, bytes));
    for (unsigned i = 0; i < n; i++) { hx[i] = (int)(i % 1000); hy[i] = (int)(i % 7); }
    int *dx, *dy;
    RT(cudaMalloc((void **)&dx, bytes));
    RT(cudaMalloc((void **)&dy, bytes));
    cudaStream_t s;
    RT(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cudaEvent_t start, stop;
    RT(cudaEventCreate(&start));
    RT(cudaEventCreate(&stop));
    RT(cudaMemcpyAsync(dx, hx, bytes, cudaMemcpyHostToDevice, s));
    RT(cudaMemcpyAsync(dy, hy, bytes, cudaMemcpyHostToDevice, s));
    RT(cudaEventRecord(start, s));
    int k = 3;
    unsigned nn = n;
    void *args[] = {&dx, &dy, &k, &nn};
    RT(cudaLaunchKernel((const void *)kern, dim3(n / 256), dim3(256), args, 0, s));
    RT(cudaEventRecord(stop, s));
    RT(cudaMemcpyAsync(hy, dy, bytes, cudaMemcpyDeviceToHost, s));
    RT(cudaStreamSynchronize(s));
    float ms = -1.0f;
    RT(cudaEventElapsedTime(&ms, start, stop));
    RT(cudaGetLastError());
    size_t bad = 0;
    for (unsigned i = 0; i < n; i++)
        if (hy[i] != 3 * (int)(i % 1000) + (int)(i % 7)) bad++;
    RT(cudaEventDestroy(start));
    RT(cudaEventDestroy(stop));
    RT(cudaStreamDestroy(s));
    RT(cudaFree(dx));
    RT(cudaFree(dy));
    RT(cudaFreeHost(hx));
    RT(cudaFreeHost(hy));
    RT(cudaLibraryUnload(lib));
    if (bad || ms < 0.0f) {
        fprintf(stderr, "runtime_demo: FAIL: %zu wrong, kernel time %.3f ms\n", bad, ms);
        return 1;
    }
    printf("runtime_demo: PASS on %s (runtime %d, driver %d): %u elements, kernel %.3f ms\n", prop.name, rtv,
           drv, n, ms);
    return 0;
}

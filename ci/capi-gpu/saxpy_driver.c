// cuda-python's SAXPY walk-through (Driver API + NVRTC), written in C against NVIDIA's headers:
// the program a C user has today. Built with nvcc against NVIDIA's libcuda/libnvrtc and run
// unchanged with anycuda's libraries first on the library path (ci/capi-gpu.sh).
// Prints "saxpy_driver: PASS ..." and exits 0 when every output element is right.
#include <cuda.h>
#include <nvrtc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CU(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *s_ = "?"; \
    cuGetErrorName(r_, &s_); fprintf(stderr, "saxpy_driver: %s failed: %s (%d)\n", #x, s_, (int)r_); \
    exit(1); } } while (0)
#define RTC(x) do { nvrtcResult r_ = (x); if (r_ != NVRTC_SUCCESS) { \
    fprintf(stderr, "saxpy_driver: %s failed: %s\n", #x, nvrtcGetErrorString(r_)); exit(1); } } while (0)

static const char *SRC =
    "extern \"C\" __global__ void saxpy(float a, float *x, float *y, float *out, size_t n) {\n"
    "    size_t tid = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (tid < n) out[tid] = a * x[tid] + y[tid];\n"
    "}\n";

int main(void) {
    CU(cuInit(0));
    CUdevice dev;
    CU(cuDeviceGet(&dev, 0));
    int major = 0, minor = 0;
    CU(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CU(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    char name[256];
    CU(cuDeviceGetName(name, sizeof name, dev));

    // As the walk-through: compile for the device's virtual arch, to PTX.
    nvrtcProgram prog;
    RTC(nvrtcCreateProgram(&prog, SRC, "saxpy.cu", 0, NULL, NULL));
    char arch[64];
    snprintf(arch, sizeof arch, "--gpu-architecture=compute_%d%d", major, minor);
    const char *opts[] = {arch, "-fmad=false"};
    nvrtcResult cr = nvrtcCompileProgram(prog, 2, opts);
    if (cr != NVRTC_SUCCESS) {
        size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        char *log = malloc(n + 1);
        nvrtcGetProgramLog(prog, log);
        fprintf(stderr, "saxpy_driver: compile failed: %s\n%s\n", nvrtcGetErrorString(cr), log);
        return 1;
    }
    size_t ptx_size = 0;
    RTC(nvrtcGetPTXSize(prog, &ptx_size));
    char *ptx = malloc(ptx_size);
    RTC(nvrtcGetPTX(prog, ptx));
    RTC(nvrtcDestroyProgram(&prog));

    CUcontext ctx;
    CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CU(cuCtxSetCurrent(ctx));
    CUmodule mod;
    CU(cuModuleLoadData(&mod, ptx));
    CUfunction k;
    CU(cuModuleGetFunction(&k, mod, "saxpy"));

    const size_t n = 512 * 128;
    const size_t bytes = n * sizeof(float);
    float a = 2.0f;
    float *hx = malloc(bytes), *hy = malloc(bytes), *hout = malloc(bytes);
    for (size_t i = 0; i < n; i++) {
        hx[i] = (float)(i % 1000) * 0.5f;
        hy[i] = (float)(i % 777) * 0.25f;
    }
    CUstream stream;
    CU(cuStreamCreate(&stream, 0));
    CUdeviceptr dx, dy, dout;
    CU(cuMemAlloc(&dx, bytes));
    CU(cuMemAlloc(&dy, bytes));
    CU(cuMemAlloc(&dout, bytes));
    CU(cuMemcpyHtoDAsync(dx, hx, bytes, stream));
    CU(cuMemcpyHtoDAsync(dy, hy, bytes, stream));
    size_t nn = n;
    void *args[] = {&a, &dx, &dy, &dout, &nn};
    CU(cuLaunchKernel(k, (unsigned)(n / 128), 1, 1, 128, 1, 1, 0, stream, args, NULL));
    CU(cuMemcpyDtoHAsync(hout, dout, bytes, stream));
    CU(cuStreamSynchronize(stream));
    size_t bad = 0;
    for (size_t i = 0; i < n; i++)
        if (fabsf(hout[i] - (a * hx[i] + hy[i])) > 1e-5f) bad++;
    CU(cuMemFree(dx));
    CU(cuMemFree(dy));
    CU(cuMemFree(dout));
    CU(cuStreamDestroy(stream));
    CU(cuModuleUnload(mod));
    CU(cuDevicePrimaryCtxRelease(dev));
    if (bad) {
        fprintf(stderr, "saxpy_driver: FAIL: %zu of %zu elements wrong\n", bad, n);
        return 1;
    }
    printf("saxpy_driver: PASS on %s (sm_%d%d): %zu elements, PTX %zu bytes\n", name, major, minor, n,
           ptx_size);
    return 0;
}

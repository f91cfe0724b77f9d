/* Loads PTX that `anycuda nvcc --ptx` wrote (nvcc's PTX with the kernel's source bundle appended
 * as comments) with cuModuleLoadData, launches its kernel and checks the result. On NVIDIA's
 * driver and anycuda's CUDA backend the PTX loads as PTX; on anycuda's HIP backend with
 * ANYCUDA_HIP_BUNDLES=always (HIP's NVIDIA platform), the bundle is compiled by hipRTC and its
 * output loaded: the AMD route, on an NVIDIA GPU (ci/capi-gpu.sh checks the log says so).
 *   bundled_ptx FILE.ptx      prints PASS or FAIL, exits 0 only on PASS */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                    \
    do {                                                                               \
        CUresult r_ = (call);                                                          \
        if (r_ != CUDA_SUCCESS) {                                                      \
            const char *s_ = 0;                                                        \
            cuGetErrorName(r_, &s_);                                                   \
            printf("FAIL: %s = %d (%s)\n", #call, (int)r_, s_ ? s_ : "?");            \
            return 1;                                                                  \
        }                                                                              \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bundled_ptx FILE.ptx\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        printf("FAIL: cannot open %s\n", argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *ptx = calloc((size_t)len + 1, 1);
    if (!ptx || fread(ptx, 1, (size_t)len, f) != (size_t)len) {
        printf("FAIL: cannot read %s\n", argv[1]);
        return 1;
    }
    fclose(f);
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuModuleLoadData(&mod, ptx));
    CHECK(cuModuleGetFunction(&fn, mod, "scale"));
    enum { N = 1 << 20 };
    float *hx = malloc(N * sizeof(float)), *hy = malloc(N * sizeof(float));
    for (int i = 0; i < N; i++) hx[i] = (float)(i % 1000) * 0.5f;
    CUdeviceptr dx, dy;
    CHECK(cuMemAlloc(&dx, N * sizeof(float)));
    CHECK(cuMemAlloc(&dy, N * sizeof(float)));
    CHECK(cuMemcpyHtoD(dx, hx, N * sizeof(float)));
    float a = 3.0f;
    int n = N;
    void *args[] = {&dy, &dx, &a, &n};
    CHECK(cuLaunchKernel(fn, (N + 255) / 256, 1, 1, 256, 1, 1, 0, 0, args, 0));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(hy, dy, N * sizeof(float)));
    for (int i = 0; i < N; i++) {
        float want = a * hx[i] + 1.0f;
        if (fabsf(hy[i] - want) > 1e-5f * fabsf(want)) {
            printf("FAIL: y[%d] = %g, expected %g\n", i, hy[i], want);
            return 1;
        }
    }
    CHECK(cuMemFree(dx));
    CHECK(cuMemFree(dy));
    CHECK(cuModuleUnload(mod));
    printf("PASS: scale over %d elements from bundled PTX\n", N);
    return 0;
}

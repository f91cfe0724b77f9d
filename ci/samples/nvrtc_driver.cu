// NVRTC at run time, launched through the Driver API: a source with an in-memory header, a
// template kernel instantiated through name expressions (nvrtcAddNameExpression /
// nvrtcGetLoweredName), compiled for the device's virtual architecture to PTX, loaded with
// cuModuleLoadData, launched with cuLaunchKernel through kernelParams and through the `extra`
// argument buffer. Memory from both APIs (cudaMalloc and cuMemAlloc) in one context. A source
// with an error must fail to compile with a log. Link: -lnvrtc -lcuda.
#define SAMPLE "nvrtc_driver"
#include <cuda.h>
#include <nvrtc.h>
#include "common.cuh"
#include <string>
#include <vector>

static const char *HEADER = "#pragma once\n"
                            "template <typename T> __device__ T twice(T v) { return v + v; }\n";
static const char *SOURCE = R"(
#include "ops.h"
template <typename T> __global__ void axpy2(T a, const T *x, T *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + twice(y[i]);
}
extern "C" __global__ void iota(int *p, int n, int base) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] = base + i;
}
)";

int main() {
    int major = 0, minor = 0, dev = 0;
    CK(cudaSetDevice(0));
    CK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev));
    CK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev));
    int rmaj = 0, rmin = 0;
    RTC(nvrtcVersion(&rmaj, &rmin));
    EXPECT(rmaj >= 12, "nvrtcVersion %d.%d", rmaj, rmin);

    nvrtcProgram prog;
    const char *hdrs[] = {HEADER}, *names[] = {"ops.h"};
    RTC(nvrtcCreateProgram(&prog, SOURCE, "axpy2.cu", 1, hdrs, names));
    RTC(nvrtcAddNameExpression(prog, "axpy2<float>"));
    RTC(nvrtcAddNameExpression(prog, "axpy2<double>"));
    std::string arch = "--gpu-architecture=compute_" + std::to_string(major * 10 + minor);
    const char *opts[] = {arch.c_str(), "--std=c++17", "-default-device"};
    nvrtcResult cr = nvrtcCompileProgram(prog, 3, opts);
    size_t log_size = 0;
    RTC(nvrtcGetProgramLogSize(prog, &log_size));
    std::string log(log_size, '\0');
    RTC(nvrtcGetProgramLog(prog, &log[0]));
    EXPECT(cr == NVRTC_SUCCESS, "compile: %s: %s", nvrtcGetErrorString(cr), log.c_str());
    const char *lf = nullptr, *ld = nullptr;
    RTC(nvrtcGetLoweredName(prog, "axpy2<float>", &lf));
    RTC(nvrtcGetLoweredName(prog, "axpy2<double>", &ld));
    std::string fname = lf, dname = ld; // owned by the program: copy before destroying it
    size_t ptx_size = 0;
    RTC(nvrtcGetPTXSize(prog, &ptx_size));
    std::string ptx(ptx_size, '\0');
    RTC(nvrtcGetPTX(prog, &ptx[0]));
    RTC(nvrtcDestroyProgram(&prog));

    CUcontext ctx = nullptr;
    CU(cuCtxGetCurrent(&ctx)); // the runtime's primary context
    EXPECT(ctx != nullptr, "no current context after cudaSetDevice");
    CUmodule mod;
    CU(cuModuleLoadData(&mod, ptx.c_str()));
    CUfunction ff, fd, fi;
    CU(cuModuleGetFunction(&ff, mod, fname.c_str()));
    CU(cuModuleGetFunction(&fd, mod, dname.c_str()));
    CU(cuModuleGetFunction(&fi, mod, "iota"));

    const int n = 5000;
    std::vector<float> xf(n), yf(n), rf(n);
    std::vector<double> xd(n), yd(n), rd(n);
    for (int i = 0; i < n; i++) {
        xf[i] = (float)(i % 100);
        yf[i] = (float)(i % 7);
        xd[i] = i * 0.5;
        yd[i] = -(double)(i % 11);
    }
    float *dxf, *dyf;
    CK(cudaMalloc(&dxf, n * sizeof(float)));
    CK(cudaMalloc(&dyf, n * sizeof(float)));
    CUdeviceptr dxd, dyd, dp;
    CU(cuMemAlloc(&dxd, n * sizeof(double)));
    CU(cuMemAlloc(&dyd, n * sizeof(double)));
    CU(cuMemAlloc(&dp, n * sizeof(int)));
    CK(cudaMemcpy(dxf, xf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dyf, yf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CU(cuMemcpyHtoD(dxd, xd.data(), n * sizeof(double)));
    CU(cuMemcpyHtoD(dyd, yd.data(), n * sizeof(double)));

    float af = 3.0f;
    double ad = -1.5;
    int nn = n;
    void *pf[] = {&af, &dxf, &dyf, &nn};
    void *pd[] = {&ad, &dxd, &dyd, &nn};
    unsigned blocks = (n + 127) / 128;
    CU(cuLaunchKernel(ff, blocks, 1, 1, 128, 1, 1, 0, nullptr, pf, nullptr));
    CU(cuLaunchKernel(fd, blocks, 1, 1, 128, 1, 1, 0, nullptr, pd, nullptr));
    // iota(int *p, int n, int base) through `extra`: p at 0, n at 8, base at 12.
    struct {
        CUdeviceptr p;
        int n, base;
    } buf = {dp, n, 1000};
    size_t buf_size = sizeof buf;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &buf, CU_LAUNCH_PARAM_BUFFER_SIZE, &buf_size,
                     CU_LAUNCH_PARAM_END};
    CU(cuLaunchKernel(fi, blocks, 1, 1, 128, 1, 1, 0, nullptr, nullptr, extra));
    CU(cuCtxSynchronize());

    std::vector<int> ri(n);
    CU(cuMemcpyDtoH(rf.data(), (CUdeviceptr)dyf, n * sizeof(float)));
    CK(cudaMemcpy(rd.data(), (void *)dyd, n * sizeof(double), cudaMemcpyDeviceToHost));
    CU(cuMemcpyDtoH(ri.data(), dp, n * sizeof(int)));
    for (int i = 0; i < n; i++) {
        EXPECT(rf[i] == af * xf[i] + 2 * yf[i], "axpy2<float>[%d] = %g", i, rf[i]);
        EXPECT(rd[i] == ad * xd[i] + 2 * yd[i], "axpy2<double>[%d] = %g", i, rd[i]);
        EXPECT(ri[i] == 1000 + i, "iota (extra)[%d] = %d", i, ri[i]);
    }

    // A broken source: a compile error with a log, not a crash.
    nvrtcProgram bad;
    RTC(nvrtcCreateProgram(&bad, "__global__ void k() { undeclared(); }", "bad.cu", 0, nullptr,
                           nullptr));
    cr = nvrtcCompileProgram(bad, 1, opts);
    EXPECT(cr == NVRTC_ERROR_COMPILATION, "a broken source compiled: %s", nvrtcGetErrorString(cr));
    RTC(nvrtcGetProgramLogSize(bad, &log_size));
    EXPECT(log_size > 1, "a failed compile left no log");
    RTC(nvrtcDestroyProgram(&bad));

    CU(cuModuleUnload(mod));
    CK(cudaFree(dxf));
    CK(cudaFree(dyf));
    CU(cuMemFree(dxd));
    CU(cuMemFree(dyd));
    CU(cuMemFree(dp));
    return pass();
}

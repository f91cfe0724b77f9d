// C++ baseline for examples/bench_dispatch.rs: the same four measurements through the CUDA
// driver API directly, same kernels (ci/bench/kernels.cu compiled with NVRTC, same options),
// same methodology (warm-up, median of BENCH_REPEATS repeats). Host code only; built by
// ci/bench.sh:
//   nvcc -O2 -o baseline ci/bench/baseline.cu -lcuda -lnvrtc
//   ./baseline ci/bench/kernels.cu
// Prints `RESULT key value` lines, like the Rust side.
#include <cuda.h>
#include <nvrtc.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#define CK(call)                                                                              \
    do {                                                                                      \
        CUresult r_ = (call);                                                                 \
        if (r_ != CUDA_SUCCESS) {                                                             \
            const char *n_ = nullptr;                                                         \
            cuGetErrorName(r_, &n_);                                                          \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, n_ ? n_ : "?"); \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)
#define NV(call)                                                                              \
    do {                                                                                      \
        nvrtcResult r_ = (call);                                                              \
        if (r_ != NVRTC_SUCCESS) {                                                            \
            fprintf(stderr, "%s failed: %s\n", #call, nvrtcGetErrorString(r_));               \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)

using Clock = std::chrono::steady_clock;

static size_t env_num(const char *name, size_t def) {
    const char *v = getenv(name);
    return v && *v ? strtoull(v, nullptr, 10) : def;
}

static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

static double secs(Clock::time_point a, Clock::time_point b) {
    return std::chrono::duration<double>(b - a).count();
}

int main(int argc, char **argv) {
    const char *path = argc > 1 ? argv[1] : "ci/bench/kernels.cu";
    std::ifstream in(path);
    if (!in) {
        fprintf(stderr, "cannot read %s\n", path);
        return 1;
    }
    std::stringstream ss;
    ss << in.rdbuf();
    std::string src = ss.str();
    size_t calls = env_num("BENCH_CALLS", 10000000);
    size_t launches = env_num("BENCH_LAUNCHES", 100000);
    size_t repeats = std::max<size_t>(1, env_num("BENCH_REPEATS", 5));

    CK(cuInit(0));
    CUdevice dev;
    CK(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CK(cuCtxSetCurrent(ctx));
    int major = 0, minor = 0;
    CK(cuDeviceGetAttribute(&major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev));
    CK(cuDeviceGetAttribute(&minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev));
    std::string arch = "--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor);

    nvrtcProgram prog;
    NV(nvrtcCreateProgram(&prog, src.c_str(), "kernels.cu", 0, nullptr, nullptr));
    const char *opts[] = {arch.c_str()};
    NV(nvrtcCompileProgram(prog, 1, opts));
    size_t ptx_size = 0;
    NV(nvrtcGetPTXSize(prog, &ptx_size));
    std::vector<char> ptx(ptx_size);
    NV(nvrtcGetPTX(prog, ptx.data()));
    NV(nvrtcDestroyProgram(&prog));
    CUmodule module;
    CK(cuModuleLoadData(&module, ptx.data()));
    CUfunction empty, saxpy;
    CK(cuModuleGetFunction(&empty, module, "empty"));
    CK(cuModuleGetFunction(&saxpy, module, "saxpy"));
    printf("C++ baseline: device 0 sm_%d%d; calls %zu, launches %zu, repeats %zu\n", major, minor,
           calls, launches, repeats);
    printf("RESULT backend cuda-direct\n");

    // 1. Trivial call.
    CUdevice d;
    for (int i = 0; i < 100000; i++) CK(cuCtxGetDevice(&d));
    std::vector<double> samples;
    for (size_t r = 0; r < repeats; r++) {
        auto t = Clock::now();
        for (size_t i = 0; i < calls; i++) {
            if (cuCtxGetDevice(&d) != CUDA_SUCCESS) { fprintf(stderr, "cuCtxGetDevice failed\n"); return 1; }
        }
        samples.push_back(secs(t, Clock::now()) * 1e9 / calls);
    }
    double ns = median(samples);
    printf("cuCtxGetDevice: %.2f ns/call\nRESULT call_ns %.3f\n", ns, ns);

    // 2. Empty-kernel launches, one sync at the end.
    CUstream stream;
    CK(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    for (int i = 0; i < 1000; i++) CK(cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr));
    CK(cuStreamSynchronize(stream));
    samples.clear();
    for (size_t r = 0; r < repeats; r++) {
        auto t = Clock::now();
        for (size_t i = 0; i < launches; i++) {
            if (cuLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr) != CUDA_SUCCESS) {
                fprintf(stderr, "cuLaunchKernel failed\n");
                return 1;
            }
        }
        CK(cuStreamSynchronize(stream));
        samples.push_back(secs(t, Clock::now()) * 1e6 / launches);
    }
    double us = median(samples);
    printf("empty launch: %.3f us/launch\nRESULT launch_us %.4f\n", us, us);

    // 2b. A launch with four arguments (saxpy with n = 0: nothing runs).
    {
        CUdeviceptr ax, ay;
        CK(cuMemAlloc(&ax, 1024));
        CK(cuMemAlloc(&ay, 1024));
        float aa = 0.5f;
        unsigned an = 0;
        void *aargs[] = {&aa, &ax, &ay, &an};
        for (int i = 0; i < 1000; i++) CK(cuLaunchKernel(saxpy, 1, 1, 1, 1, 1, 1, 0, stream, aargs, nullptr));
        CK(cuStreamSynchronize(stream));
        samples.clear();
        for (size_t r = 0; r < repeats; r++) {
            auto t = Clock::now();
            for (size_t i = 0; i < launches; i++) {
                if (cuLaunchKernel(saxpy, 1, 1, 1, 1, 1, 1, 0, stream, aargs, nullptr) != CUDA_SUCCESS) {
                    fprintf(stderr, "cuLaunchKernel failed\n");
                    return 1;
                }
            }
            CK(cuStreamSynchronize(stream));
            samples.push_back(secs(t, Clock::now()) * 1e6 / launches);
        }
        double us = median(samples);
        printf("launch with 4 arguments: %.3f us/launch\nRESULT launch_args_us %.4f\n", us, us);
        CK(cuMemFree(ax));
        CK(cuMemFree(ay));
    }

    // 2c. Round trip of 2^18 floats: the driver calls anycuda::core's Buffer::from_slice,
    // launch, copy_to_host and drop make (stream-ordered allocation where the device has
    // memory pools), by hand.
    {
        int pools = 0;
        CK(cuDeviceGetAttribute(&pools, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, dev));
        size_t rn = (size_t)1 << 18, rbytes = rn * 4;
        size_t roundtrips = std::max<size_t>(1, env_num("BENCH_ROUNDTRIPS", 200));
        std::vector<float> hx(rn), hy(rn), hout(rn);
        for (size_t i = 0; i < rn; i++) { hx[i] = (float)(i % 1000); hy[i] = (float)(i % 7); }
        auto round_trip = [&]() {
            CUdeviceptr x, y;
            if (pools) {
                CK(cuMemAllocAsync(&x, rbytes, stream));
                CK(cuMemAllocAsync(&y, rbytes, stream));
            } else {
                CK(cuMemAlloc(&x, rbytes));
                CK(cuMemAlloc(&y, rbytes));
            }
            CK(cuMemcpyHtoDAsync(x, hx.data(), rbytes, stream));
            CK(cuStreamSynchronize(stream));
            CK(cuMemcpyHtoDAsync(y, hy.data(), rbytes, stream));
            CK(cuStreamSynchronize(stream));
            float a = 2.0f;
            unsigned nn = (unsigned)rn;
            void *args[] = {&a, &x, &y, &nn};
            CK(cuLaunchKernel(saxpy, (unsigned)((rn + 255) / 256), 1, 1, 256, 1, 1, 0, stream, args, nullptr));
            CK(cuMemcpyDtoHAsync(hout.data(), y, rbytes, stream));
            CK(cuStreamSynchronize(stream));
            if (pools) {
                CK(cuMemFreeAsync(x, stream));
                CK(cuMemFreeAsync(y, stream));
            } else {
                CK(cuMemFree(x));
                CK(cuMemFree(y));
            }
        };
        for (int i = 0; i < 10; i++) round_trip();
        for (size_t i = 0; i < rn; i++) {
            if (hout[i] != 2.0f * hx[i] + hy[i]) { fprintf(stderr, "round trip: y[%zu] wrong\n", i); return 1; }
        }
        samples.clear();
        for (size_t r = 0; r < repeats; r++) {
            auto t = Clock::now();
            for (size_t i = 0; i < roundtrips; i++) round_trip();
            samples.push_back(secs(t, Clock::now()) * 1e6 / roundtrips);
        }
        double us = median(samples);
        printf("raw round trip, 2 x %zu KiB: %.2f us\nRESULT roundtrip_us %.3f\n", rbytes / 1024, us, us);
    }

    // 3. SAXPY with events.
    unsigned n = 1u << 26;
    size_t bytes = (size_t)n * 4;
    CUdeviceptr x, y;
    CK(cuMemAlloc(&x, bytes));
    CK(cuMemAlloc(&y, bytes));
    float one = 1.0f, two = 2.0f;
    unsigned one_bits, two_bits;
    memcpy(&one_bits, &one, 4);
    memcpy(&two_bits, &two, 4);
    CK(cuMemsetD32(x, one_bits, n));
    CK(cuMemsetD32(y, two_bits, n));
    CUevent e0, e1;
    CK(cuEventCreate(&e0, 0));
    CK(cuEventCreate(&e1, 0));
    float a = 0.5f;
    void *args[] = {&a, &x, &y, &n};
    unsigned block = 256, grid = (n + block - 1) / block;
    samples.clear();
    for (size_t i = 0; i < repeats * 2 + 2; i++) {
        CK(cuEventRecord(e0, stream));
        CK(cuLaunchKernel(saxpy, grid, 1, 1, block, 1, 1, 0, stream, args, nullptr));
        CK(cuEventRecord(e1, stream));
        CK(cuEventSynchronize(e1));
        float ms = 0;
        CK(cuEventElapsedTime(&ms, e0, e1));
        if (i >= 2) samples.push_back(ms);
    }
    double ms = median(samples);
    printf("saxpy 2^26: %.4f ms (%.0f GB/s effective)\nRESULT saxpy_ms %.5f\n", ms,
           3.0 * bytes / (ms / 1e3) / 1e9, ms);
    CK(cuMemFree(x));
    CK(cuMemFree(y));

    // 4. Bandwidth: synchronous copies, host clock around copy + context sync.
    size_t size = (size_t)256 << 20;
    CUdeviceptr dbuf;
    CK(cuMemAlloc(&dbuf, size));
    std::vector<unsigned char> pageable(size, 1);
    void *pinned;
    CK(cuMemAllocHost(&pinned, size));
    memset(pinned, 1, size);
    struct Case { const char *name; void *host; bool h2d; } cases[] = {
        {"h2d_pageable", pageable.data(), true}, {"d2h_pageable", pageable.data(), false},
        {"h2d_pinned", pinned, true}, {"d2h_pinned", pinned, false}};
    for (auto &c : cases) {
        samples.clear();
        for (size_t i = 0; i < repeats + 1; i++) {
            auto t = Clock::now();
            if (c.h2d) CK(cuMemcpyHtoD(dbuf, c.host, size));
            else CK(cuMemcpyDtoH(c.host, dbuf, size));
            CK(cuCtxSynchronize());
            double s = secs(t, Clock::now());
            if (i > 0) samples.push_back(size / s / 1e9);
        }
        double gbps = median(samples);
        printf("%s: %.2f GB/s\nRESULT %s_gbps %.3f\n", c.name, gbps, c.name, gbps);
    }
    CK(cuMemFreeHost(pinned));
    CK(cuMemFree(dbuf));
    CK(cuEventDestroy(e0));
    CK(cuEventDestroy(e1));
    CK(cuStreamDestroy(stream));
    CK(cuModuleUnload(module));
    CK(cuDevicePrimaryCtxRelease(dev));
    return 0;
}

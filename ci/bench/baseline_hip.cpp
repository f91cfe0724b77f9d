// Second C++ baseline for examples/bench_dispatch.rs: the trivial call and the empty-kernel launch
// through the SAME libamdhip64.so that anycuda's HIP backend dlopens (on the GPU machine: HIP's
// NVIDIA platform, ci/hip-nvidia), called directly. With ci/bench/baseline.cu (the CUDA driver
// directly) it splits the HIP column's cost into HIP-on-NVIDIA's own wrapper layer (this program
// vs baseline.cu) and anycuda's dispatch (anycuda (hip) vs this program).
//
// Same kernels (ci/bench/kernels.cu compiled with the library's hipRTC, which on the NVIDIA
// platform is NVRTC, with the same --gpu-architecture=sm_XY option; hipModuleLoadData takes the
// PTX), same methodology (warm-up, median of BENCH_REPEATS repeats, BENCH_CALLS / BENCH_LAUNCHES).
// What it measures is what anycuda (hip) calls on that platform: cuCtxGetDevice -> hipCtxGetDevice,
// cuLaunchKernel -> hipModuleLaunchKernel, cuStreamSynchronize -> hipStreamSynchronize.
//
// No HIP headers: the few entry points are declared here with HIP 5.2.3's C signatures (enums as
// int, handles as void*) and looked up with dlsym. Host code only; built by ci/bench.sh:
//   g++ -O2 -std=c++17 -o baseline_hip ci/bench/baseline_hip.cpp -ldl
//   ./baseline_hip ci/bench/kernels.cu [path/to/libamdhip64.so]
// The library is argv[2], else $ANYCUDA_HIP_LIBRARY, else "libamdhip64.so" (the loader's search).
// Prints `RESULT key value` lines, like the other programs.
#include <dlfcn.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// HIP 5.2.3 C types: hipError_t / hiprtcResult are enums (0 = success), hipDevice_t is int, the
// rest are opaque pointers.
typedef int hipError_t;
typedef int hiprtcResult;
typedef int hipDevice_t;
typedef void *hipCtx_t;
typedef void *hipStream_t;
typedef void *hipModule_t;
typedef void *hipFunction_t;
typedef void *hiprtcProgram;
static const unsigned hipStreamNonBlocking = 0x01;  // == cudaStreamNonBlocking on NVIDIA

// Each entry point: its name, its C type, and a pointer filled by load().
#define HIP_FUNCS(X)                                                                         \
    X(hipInit, hipError_t (*)(unsigned))                                                    \
    X(hipRuntimeGetVersion, hipError_t (*)(int *))                                          \
    X(hipGetErrorName, const char *(*)(hipError_t))                                         \
    X(hipDeviceGet, hipError_t (*)(hipDevice_t *, int))                                     \
    X(hipDeviceComputeCapability, hipError_t (*)(int *, int *, hipDevice_t))                \
    X(hipDevicePrimaryCtxRetain, hipError_t (*)(hipCtx_t *, hipDevice_t))                   \
    X(hipDevicePrimaryCtxRelease, hipError_t (*)(hipDevice_t))                              \
    X(hipCtxSetCurrent, hipError_t (*)(hipCtx_t))                                           \
    X(hipSetDevice, hipError_t (*)(int))                                                    \
    X(hipCtxGetDevice, hipError_t (*)(hipDevice_t *))                                       \
    X(hipStreamCreateWithFlags, hipError_t (*)(hipStream_t *, unsigned))                    \
    X(hipStreamSynchronize, hipError_t (*)(hipStream_t))                                    \
    X(hipStreamDestroy, hipError_t (*)(hipStream_t))                                        \
    X(hipDeviceSynchronize, hipError_t (*)(void))                                           \
    X(hipModuleLoadData, hipError_t (*)(hipModule_t *, const void *))                       \
    X(hipModuleGetFunction, hipError_t (*)(hipFunction_t *, hipModule_t, const char *))     \
    X(hipModuleUnload, hipError_t (*)(hipModule_t))                                         \
    X(hipModuleLaunchKernel,                                                                \
      hipError_t (*)(hipFunction_t, unsigned, unsigned, unsigned, unsigned, unsigned,       \
                     unsigned, unsigned, hipStream_t, void **, void **))                    \
    X(hiprtcGetErrorString, const char *(*)(hiprtcResult))                                  \
    X(hiprtcCreateProgram,                                                                  \
      hiprtcResult (*)(hiprtcProgram *, const char *, const char *, int, const char **,     \
                       const char **))                                                      \
    X(hiprtcCompileProgram, hiprtcResult (*)(hiprtcProgram, int, const char **))            \
    X(hiprtcGetProgramLogSize, hiprtcResult (*)(hiprtcProgram, size_t *))                   \
    X(hiprtcGetProgramLog, hiprtcResult (*)(hiprtcProgram, char *))                         \
    X(hiprtcGetCodeSize, hiprtcResult (*)(hiprtcProgram, size_t *))                         \
    X(hiprtcGetCode, hiprtcResult (*)(hiprtcProgram, char *))                               \
    X(hiprtcDestroyProgram, hiprtcResult (*)(hiprtcProgram *))

template <class T> using Id = T;  // lets a function-pointer type precede the declared name
#define DECLARE(name, type) static Id<type> p_##name;
HIP_FUNCS(DECLARE)
#undef DECLARE

static void load(const char *lib) {
    void *h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);  // as anycuda loads it (libloading)
    if (!h) {
        fprintf(stderr, "cannot dlopen %s: %s\n", lib, dlerror());
        exit(1);
    }
    bool missing = false;
#define LOOKUP(name, type)                                                                   \
    p_##name = reinterpret_cast<Id<type>>(dlsym(h, #name));                                     \
    if (!p_##name) {                                                                         \
        fprintf(stderr, "%s: no symbol %s\n", lib, #name);                                  \
        missing = true;                                                                      \
    }
    HIP_FUNCS(LOOKUP)
#undef LOOKUP
    if (missing) exit(1);
}

#define HK(call)                                                                              \
    do {                                                                                      \
        hipError_t r_ = (p_##call);                                                           \
        if (r_ != 0) {                                                                        \
            const char *n_ = p_hipGetErrorName(r_);                                           \
            fprintf(stderr, "%s:%d: %s failed: %d %s\n", __FILE__, __LINE__, #call, r_,       \
                    n_ ? n_ : "?");                                                           \
            exit(1);                                                                          \
        }                                                                                     \
    } while (0)
#define RTC(call)                                                                             \
    do {                                                                                      \
        hiprtcResult r_ = (p_##call);                                                         \
        if (r_ != 0) {                                                                        \
            const char *n_ = p_hiprtcGetErrorString(r_);                                      \
            fprintf(stderr, "%s failed: %d %s\n", #call, r_, n_ ? n_ : "?");                  \
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
    const char *env_lib = getenv("ANYCUDA_HIP_LIBRARY");
    const char *lib = argc > 2 ? argv[2] : (env_lib && *env_lib ? env_lib : "libamdhip64.so");
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

    load(lib);
    int version = 0;
    HK(hipRuntimeGetVersion(&version));  // the NVIDIA platform answers with the CUDA version
    HK(hipInit(0));
    hipDevice_t dev = 0;
    HK(hipDeviceGet(&dev, 0));
    hipCtx_t ctx = nullptr;
    HK(hipDevicePrimaryCtxRetain(&ctx, dev));
    HK(hipCtxSetCurrent(ctx));
    HK(hipSetDevice(dev));  // the runtime-side calls (streams) use the same primary context
    int major = 0, minor = 0;
    HK(hipDeviceComputeCapability(&major, &minor, dev));
    std::string arch = "--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor);

    hiprtcProgram prog = nullptr;
    RTC(hiprtcCreateProgram(&prog, src.c_str(), "kernels.cu", 0, nullptr, nullptr));
    const char *opts[] = {arch.c_str()};
    hiprtcResult cr = p_hiprtcCompileProgram(prog, 1, opts);
    if (cr != 0) {
        size_t log_size = 0;
        p_hiprtcGetProgramLogSize(prog, &log_size);
        std::vector<char> log(log_size + 1, 0);
        if (log_size) p_hiprtcGetProgramLog(prog, log.data());
        fprintf(stderr, "hiprtcCompileProgram failed: %d %s\n%s\n", cr, p_hiprtcGetErrorString(cr),
                log.data());
        return 1;
    }
    size_t code_size = 0;
    RTC(hiprtcGetCodeSize(prog, &code_size));
    std::vector<char> code(code_size + 1, 0);  // PTX, NUL-terminated
    RTC(hiprtcGetCode(prog, code.data()));
    RTC(hiprtcDestroyProgram(&prog));
    hipModule_t module = nullptr;
    HK(hipModuleLoadData(&module, code.data()));
    hipFunction_t empty = nullptr;
    HK(hipModuleGetFunction(&empty, module, "empty"));
    printf("C++ HIP baseline: %s (hipRuntimeGetVersion %d); device 0 sm_%d%d; calls %zu, launches "
           "%zu, repeats %zu\n",
           lib, version, major, minor, calls, launches, repeats);
    printf("RESULT backend hip-direct\n");

    // 1. Trivial call: hipCtxGetDevice (what anycuda (hip) calls for cuCtxGetDevice).
    hipDevice_t d = 0;
    for (int i = 0; i < 100000; i++) HK(hipCtxGetDevice(&d));
    std::vector<double> samples;
    for (size_t r = 0; r < repeats; r++) {
        auto t = Clock::now();
        for (size_t i = 0; i < calls; i++) {
            if (p_hipCtxGetDevice(&d) != 0) { fprintf(stderr, "hipCtxGetDevice failed\n"); return 1; }
        }
        samples.push_back(secs(t, Clock::now()) * 1e9 / calls);
    }
    double ns = median(samples);
    printf("hipCtxGetDevice: %.2f ns/call\nRESULT call_ns %.3f\n", ns, ns);

    // 2. Empty-kernel launches on one non-blocking stream, one sync at the end.
    hipStream_t stream = nullptr;
    HK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
    for (int i = 0; i < 1000; i++)
        HK(hipModuleLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr));
    HK(hipStreamSynchronize(stream));
    samples.clear();
    for (size_t r = 0; r < repeats; r++) {
        auto t = Clock::now();
        for (size_t i = 0; i < launches; i++) {
            if (p_hipModuleLaunchKernel(empty, 1, 1, 1, 1, 1, 1, 0, stream, nullptr, nullptr) != 0) {
                fprintf(stderr, "hipModuleLaunchKernel failed\n");
                return 1;
            }
        }
        HK(hipStreamSynchronize(stream));
        samples.push_back(secs(t, Clock::now()) * 1e6 / launches);
    }
    double us = median(samples);
    printf("empty launch: %.3f us/launch\nRESULT launch_us %.4f\n", us, us);

    HK(hipStreamDestroy(stream));
    HK(hipModuleUnload(module));
    HK(hipDeviceSynchronize());
    HK(hipDevicePrimaryCtxRelease(dev));
    return 0;
}

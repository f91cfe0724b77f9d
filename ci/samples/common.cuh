// Shared by every program of ci/samples: the one-line verdict and the checks. A program defines
// SAMPLE (its name) before including this file, checks every CUDA call with CK (Runtime API),
// CU (Driver API, after including cuda.h) or RTC (NVRTC, after including nvrtc.h), compares
// its results with the host's own computation through EXPECT, and ends with `return pass();`.
// The first failure prints `FAIL <name>: <reason>` and exits 1; success prints `PASS <name>`.
// Notes that are not a verdict (a part skipped on this device) go to stderr.
#pragma once
#include <cuda_runtime.h>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#ifndef SAMPLE
#error "define SAMPLE (the program's name) before including common.cuh"
#endif

[[noreturn]] static inline void fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    printf("FAIL %s: ", SAMPLE);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    fflush(stdout);
    exit(1);
}

static inline int pass() {
    printf("PASS %s\n", SAMPLE);
    fflush(stdout);
    return 0;
}

static inline void note(const char *msg) { fprintf(stderr, "%s: %s\n", SAMPLE, msg); }

#define CK(call)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (call);                                                                   \
        if (e_ != cudaSuccess)                                                                     \
            fail("line %d: %s -> %s (%s)", __LINE__, #call, cudaGetErrorName(e_),                  \
                 cudaGetErrorString(e_));                                                          \
    } while (0)

// After a <<<>>> launch: the launch's own error (configuration, missing kernel image).
#define CK_LAUNCH() CK(cudaGetLastError())

#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) fail(__VA_ARGS__);                                                            \
    } while (0)

#ifdef __cuda_cuda_h__
#define CU(call)                                                                                   \
    do {                                                                                           \
        CUresult r_ = (call);                                                                      \
        if (r_ != CUDA_SUCCESS) {                                                                  \
            const char *n_ = "?";                                                                  \
            cuGetErrorName(r_, &n_);                                                               \
            fail("line %d: %s -> %s (%d)", __LINE__, #call, n_, (int)r_);                          \
        }                                                                                          \
    } while (0)
#endif

#ifdef __NVRTC_H__
#define RTC(call)                                                                                  \
    do {                                                                                           \
        nvrtcResult r_ = (call);                                                                   \
        if (r_ != NVRTC_SUCCESS)                                                                   \
            fail("line %d: %s -> %s", __LINE__, #call, nvrtcGetErrorString(r_));                   \
    } while (0)
#endif

// |a - b| within a relative tolerance (absolute near zero).
static inline bool close_to(double a, double b, double rel) {
    return std::fabs(a - b) <= rel * std::fmax(1.0, std::fmax(std::fabs(a), std::fabs(b)));
}

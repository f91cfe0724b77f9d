/* The cost of one trivial call into the CUDA libraries (ci/capi-lib-bench.sh): the same binary on
 * NVIDIA's libcublas.so.13, libcurand.so.10 and libnccl.so.2, and on anycuda's drop-ins
 * (LD_LIBRARY_PATH="$(anycuda libdir)"), whose every call passes the re-entry guard and the
 * status rule before NVIDIA's function. Built against NVIDIA's headers:
 *
 *   nvcc -O2 -cudart shared -I<nccl>/include -o libcall_bench libcall_bench.c \
 *       -lcublas -lcurand -L<nccl>/lib -l:libnccl.so.2
 *   libcall_bench        LIBCALL_CALLS (default 10000000) calls per repeat, LIBCALL_REPEATS (5)
 *
 * Timed, each in a loop of LIBCALL_CALLS calls (clock_gettime around the loop), best of the
 * repeats, in ns per call: cublasGetVersion_v2(handle), cublasGetStream_v2(handle),
 * curandSetStream(generator), ncclGetVersion. Prints `RESULT call_<function> <ns>` lines;
 * exits 1 when a call does not answer success (checked once before the loops and after each). */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <curand.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static long env_long(const char *k, long d) {
    const char *v = getenv(k);
    return v && atol(v) > 0 ? atol(v) : d;
}

#define CHECK(what, ok)                                                 \
    do {                                                                \
        if (!(ok)) {                                                    \
            fprintf(stderr, "libcall_bench: %s failed (line %d)\n", what, __LINE__); \
            return 1;                                                   \
        }                                                               \
    } while (0)

/* One timed loop per repeat; BODY is one call, `bad` counts non-success answers. */
#define TIME(name, BODY)                                                         \
    do {                                                                         \
        double best = 1e30;                                                      \
        long bad = 0;                                                            \
        for (long i = 0; i < calls / 10; i++) bad += (BODY) != 0;                \
        for (int r = 0; r < repeats; r++) {                                      \
            double t0 = now_ns();                                                \
            for (long i = 0; i < calls; i++) bad += (BODY) != 0;                 \
            double ns = (now_ns() - t0) / (double)calls;                         \
            if (ns < best) best = ns;                                            \
        }                                                                        \
        CHECK(name " answered an error in the loop", bad == 0);                  \
        printf("RESULT call_%s %.3f\n", name, best);                             \
        fflush(stdout);                                                          \
    } while (0)

int main(void) {
    const long calls = env_long("LIBCALL_CALLS", 10000000);
    const int repeats = (int)env_long("LIBCALL_REPEATS", 5);
    CHECK("cudaSetDevice(0)", cudaSetDevice(0) == cudaSuccess);
    cudaStream_t stream;
    CHECK("cudaStreamCreate", cudaStreamCreate(&stream) == cudaSuccess);
    cublasHandle_t handle;
    CHECK("cublasCreate_v2", cublasCreate(&handle) == CUBLAS_STATUS_SUCCESS);
    CHECK("cublasSetStream_v2", cublasSetStream(handle, stream) == CUBLAS_STATUS_SUCCESS);
    curandGenerator_t gen;
    CHECK("curandCreateGenerator", curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_DEFAULT) == CURAND_STATUS_SUCCESS);
    int cublas_v = 0, nccl_v = 0;
    cudaStream_t got = NULL;
    CHECK("cublasGetVersion_v2", cublasGetVersion(handle, &cublas_v) == CUBLAS_STATUS_SUCCESS);
    CHECK("cublasGetStream_v2", cublasGetStream(handle, &got) == CUBLAS_STATUS_SUCCESS && got == stream);
    CHECK("curandSetStream", curandSetStream(gen, stream) == CURAND_STATUS_SUCCESS);
    CHECK("ncclGetVersion", ncclGetVersion(&nccl_v) == ncclSuccess);
    fprintf(stderr, "libcall_bench: cuBLAS %d, NCCL %d; %ld calls, best of %d\n", cublas_v, nccl_v,
            calls, repeats);

    TIME("cublasGetVersion_v2", cublasGetVersion(handle, &cublas_v));
    TIME("cublasGetStream_v2", cublasGetStream(handle, &got));
    TIME("curandSetStream", curandSetStream(gen, stream));
    TIME("ncclGetVersion", ncclGetVersion(&nccl_v));

    CHECK("curandDestroyGenerator", curandDestroyGenerator(gen) == CURAND_STATUS_SUCCESS);
    CHECK("cublasDestroy_v2", cublasDestroy(handle) == CUBLAS_STATUS_SUCCESS);
    CHECK("cudaStreamDestroy", cudaStreamDestroy(stream) == cudaSuccess);
    return 0;
}

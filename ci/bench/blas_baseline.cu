// The cuBLAS baseline for ci/blas-bench.sh: the GEMMs of examples/bench_blas.rs and
// facades/cudarc/bench/blas.rs, called from C++ through the CUDA runtime and cuBLAS directly.
// Same shapes, same data, same stream setup, same timing: warm-up, then BENCH_REPEATS repeats of
// N calls followed by one stream synchronisation, host wall time / N; the median is printed.
//
//   sgemm_4096   cublasSgemm, 4096^3, column-major, no transposes          (ms per call)
//   hgemm_4096   cublasGemmEx f16 A/B/C, CUBLAS_COMPUTE_32F, default algo    (ms per call)
//   sgemm_b64    cublasSgemmStridedBatched, 64^3, batch 1024                 (us per call)
//   hgemm_b64    cublasGemmStridedBatchedEx f16, COMPUTE_32F, 64^3 x 1024    (us per call)
//   *_b64_enq    the host's time per call alone for the two batched cases      (us per call)
//
// Lines `RESULT <key> <value>` are what the script reads.
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CK(x)                                                                                  \
    do {                                                                                       \
        cudaError_t e_ = (x);                                                                  \
        if (e_ != cudaSuccess) {                                                               \
            std::fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
            std::exit(1);                                                                      \
        }                                                                                      \
    } while (0)
#define CB(x)                                                                                  \
    do {                                                                                       \
        cublasStatus_t s_ = (x);                                                               \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
            std::fprintf(stderr, "%s:%d %s: cuBLAS status %d\n", __FILE__, __LINE__, #x, (int)s_); \
            std::exit(1);                                                                      \
        }                                                                                      \
    } while (0)

static int env_int(const char* k, int d) {
    const char* v = std::getenv(k);
    return v ? std::atoi(v) : d;
}

// The host's cost per call alone: 100 calls (too few to fill the launch queue), timed up to the
// last call's return, 50 times; the median, in seconds.
template <class F>
static double median_enqueue(cudaStream_t s, F f) {
    std::vector<double> t;
    for (int r = 0; r < 50; r++) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 100; i++) f();
        auto t1 = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double>(t1 - t0).count() / 100);
        CK(cudaStreamSynchronize(s));
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

template <class F>
static double median_per_call(cudaStream_t s, int calls, int repeats, F f) {
    for (int i = 0; i < 3; i++) f();
    CK(cudaStreamSynchronize(s));
    std::vector<double> t;
    for (int r = 0; r < repeats; r++) {
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; i++) f();
        CK(cudaStreamSynchronize(s));
        auto t1 = std::chrono::steady_clock::now();
        t.push_back(std::chrono::duration<double>(t1 - t0).count() / calls);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

int main() {
    const int repeats = env_int("BENCH_REPEATS", 7);
    const int big_calls = env_int("BENCH_BIG_CALLS", 20);
    const int small_calls = env_int("BENCH_SMALL_CALLS", 2000);
    const int N = 4096, S = 64, B = 1024;
    cudaStream_t s;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    cublasHandle_t h;
    CB(cublasCreate(&h));
    CB(cublasSetStream(h, s));
    const size_t big = (size_t)N * N, small = (size_t)S * S * B;
    float *a, *b, *c;
    __half *ha, *hb, *hc;
    CK(cudaMalloc(&a, big * 4));
    CK(cudaMalloc(&b, big * 4));
    CK(cudaMalloc(&c, big * 4));
    CK(cudaMalloc(&ha, big * 2));
    CK(cudaMalloc(&hb, big * 2));
    CK(cudaMalloc(&hc, big * 2));
    // 0x3c bytes: f32 ~0.0115, f16 ~1.06; the same pattern in every program.
    for (void* p : {(void*)a, (void*)b, (void*)c}) CK(cudaMemset(p, 0x3c, big * 4));
    for (void* p : {(void*)ha, (void*)hb, (void*)hc}) CK(cudaMemset(p, 0x3c, big * 2));
    CK(cudaDeviceSynchronize());
    const float one = 1.0f, zero = 0.0f;

    double t = median_per_call(s, big_calls, repeats, [&] {
        CB(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, a, N, b, N, &zero, c, N));
    });
    std::printf("RESULT sgemm_4096 %.6f\n", t * 1e3);
    t = median_per_call(s, big_calls, repeats, [&] {
        CB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, N, N, N, &one, ha, CUDA_R_16F, N, hb, CUDA_R_16F, N,
                        &zero, hc, CUDA_R_16F, N, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    });
    std::printf("RESULT hgemm_4096 %.6f\n", t * 1e3);
    const long long st = (long long)S * S;
    (void)small;
    t = median_per_call(s, small_calls, repeats, [&] {
        CB(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, S, S, S, &one, a, S, st, b, S, st, &zero,
                                     c, S, st, B));
    });
    std::printf("RESULT sgemm_b64 %.6f\n", t * 1e6);
    t = median_enqueue(s, [&] {
        CB(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, S, S, S, &one, a, S, st, b, S, st, &zero,
                                     c, S, st, B));
    });
    std::printf("RESULT sgemm_b64_enq %.6f\n", t * 1e6);
    t = median_per_call(s, small_calls, repeats, [&] {
        CB(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, S, S, S, &one, ha, CUDA_R_16F, S, st, hb,
                                      CUDA_R_16F, S, st, &zero, hc, CUDA_R_16F, S, st, B, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
    });
    std::printf("RESULT hgemm_b64 %.6f\n", t * 1e6);
    t = median_enqueue(s, [&] {
        CB(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, S, S, S, &one, ha, CUDA_R_16F, S, st, hb,
                                      CUDA_R_16F, S, st, &zero, hc, CUDA_R_16F, S, st, B, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT));
    });
    std::printf("RESULT hgemm_b64_enq %.6f\n", t * 1e6);
    CB(cublasDestroy(h));
    CK(cudaStreamDestroy(s));
    return 0;
}

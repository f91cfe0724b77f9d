/* Large GEMMs from C through cuBLAS (ci/capi-lib-bench.sh): the same binary on NVIDIA's
 * libcublas.so.13 and on anycuda's drop-in (LD_LIBRARY_PATH="$(anycuda libdir)"). Built against
 * NVIDIA's headers:
 *
 *   nvcc -O2 -cudart shared -o gemm_bench gemm_bench.c -lcublas
 *   gemm_bench           GEMM_SIZES (default "4096 8192"), GEMM_REPEATS (5)
 *
 * Per size N: SGEMM (cublasSgemm_v2, f32) and HGEMM (cublasGemmEx, f16 A, B and C,
 * CUBLAS_COMPUTE_32F, the default algorithm), N x N x N, column-major, no transposes, on one
 * stream with alpha 1 and beta 0, the inputs uniform in [-1, 1) (multiples of 1/1024, exact in
 * f16). Timing: 3 calls of warm-up, 3 more timed to size the batch (about 100 ms of calls, 5 to
 * 200), then GEMM_REPEATS times a batch between two cudaEvents; the median of the repeats, ms
 * per call. Prints `RESULT <sgemm|hgemm>_<N> <ms>` and `TFLOPS <case> <TFLOP/s>`;
 * exits 1 on a CUDA or cuBLAS error. */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "gemm_bench: %s: %s (line %d)\n", #call, cudaGetErrorName(e_), __LINE__); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)
#define CB(call)                                                                          \
    do {                                                                                  \
        cublasStatus_t s_ = (call);                                                       \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                \
            fprintf(stderr, "gemm_bench: %s: %s (line %d)\n", #call, cublasGetStatusName(s_), __LINE__); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

/* f16 bits of a float that f16 holds exactly as a normal number (or zero). */
static uint16_t half_bits(float f) {
    uint32_t x;
    memcpy(&x, &f, sizeof x);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    if ((x & 0x7fffffffu) == 0) return sign;
    int exp = (int)((x >> 23) & 0xff) - 127 + 15;
    return (uint16_t)(sign | (uint16_t)(exp << 10) | (uint16_t)((x >> 13) & 0x3ffu));
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static cublasHandle_t handle;
static cudaStream_t stream;
static void *A, *B, *C;

static void gemm(int half, int n) {
    const float one = 1.0f, zero = 0.0f;
    if (half)
        CB(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, A, CUDA_R_16F, n, B,
                        CUDA_R_16F, n, &zero, C, CUDA_R_16F, n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    else
        CB(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, (const float *)A, n,
                       (const float *)B, n, &zero, (float *)C, n));
}

static void bench(int half, int n, int repeats) {
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    float ms = 0;
    for (int i = 0; i < 3; i++) gemm(half, n);
    CK(cudaEventRecord(e0, stream));
    for (int i = 0; i < 3; i++) gemm(half, n);
    CK(cudaEventRecord(e1, stream));
    CK(cudaEventSynchronize(e1));
    CK(cudaEventElapsedTime(&ms, e0, e1));
    int calls = (int)(100.0 / (ms / 3 > 1e-3 ? ms / 3 : 1e-3));
    calls = calls < 5 ? 5 : calls > 200 ? 200 : calls;
    double *t = calloc((size_t)repeats, sizeof *t);
    for (int r = 0; r < repeats; r++) {
        CK(cudaEventRecord(e0, stream));
        for (int i = 0; i < calls; i++) gemm(half, n);
        CK(cudaEventRecord(e1, stream));
        CK(cudaEventSynchronize(e1));
        CK(cudaEventElapsedTime(&ms, e0, e1));
        t[r] = ms / calls;
    }
    qsort(t, (size_t)repeats, sizeof *t, cmp_double);
    double med = t[repeats / 2];
    const char *name = half ? "hgemm" : "sgemm";
    printf("RESULT %s_%d %.6f\n", name, n, med);
    printf("TFLOPS %s_%d %.2f (%d calls a repeat)\n", name, n, 2.0 * n * n * (double)n / (med * 1e-3) / 1e12, calls);
    fflush(stdout);
    free(t);
    CK(cudaEventDestroy(e0));
    CK(cudaEventDestroy(e1));
}

int main(void) {
    const char *sz = getenv("GEMM_SIZES");
    const char *rp = getenv("GEMM_REPEATS");
    int repeats = rp && atoi(rp) > 0 ? atoi(rp) : 5;
    int sizes[8], ns = 0, max = 0;
    char buf[256];
    snprintf(buf, sizeof buf, "%s", sz && *sz ? sz : "4096 8192");
    for (char *tok = strtok(buf, " ,"); tok && ns < 8; tok = strtok(NULL, " ,"))
        if (atoi(tok) > 0) sizes[ns++] = atoi(tok);
    for (int i = 0; i < ns; i++) max = sizes[i] > max ? sizes[i] : max;
    if (!ns) {
        fprintf(stderr, "gemm_bench: no size in GEMM_SIZES\n");
        return 2;
    }
    size_t elems = (size_t)max * max;
    CK(cudaSetDevice(0));
    CK(cudaStreamCreate(&stream));
    CB(cublasCreate(&handle));
    CB(cublasSetStream(handle, stream));
    CK(cudaMalloc(&A, elems * sizeof(float)));
    CK(cudaMalloc(&B, elems * sizeof(float)));
    CK(cudaMalloc(&C, elems * sizeof(float)));
    float *h = malloc(elems * sizeof(float));
    uint16_t *hh = malloc(elems * sizeof(uint16_t));
    if (!h || !hh) return 1;
    uint32_t s = 12345;
    for (size_t i = 0; i < elems; i++) {
        s = s * 1664525u + 1013904223u;
        h[i] = (float)((int)(s >> 21) - 1024) / 1024.0f; /* [-1, 1), multiples of 2^-10 */
    }
    for (int half = 0; half <= 1; half++) {
        if (half) {
            for (size_t i = 0; i < elems; i++) hh[i] = half_bits(h[i]);
            CK(cudaMemcpy(A, hh, elems * sizeof(uint16_t), cudaMemcpyHostToDevice));
            CK(cudaMemcpy(B, hh, elems * sizeof(uint16_t), cudaMemcpyHostToDevice));
        } else {
            CK(cudaMemcpy(A, h, elems * sizeof(float), cudaMemcpyHostToDevice));
            CK(cudaMemcpy(B, h, elems * sizeof(float), cudaMemcpyHostToDevice));
        }
        for (int i = 0; i < ns; i++) bench(half, sizes[i], repeats);
    }
    CB(cublasDestroy(handle));
    CK(cudaFree(A));
    CK(cudaFree(B));
    CK(cudaFree(C));
    CK(cudaStreamDestroy(stream));
    free(h);
    free(hh);
    return 0;
}

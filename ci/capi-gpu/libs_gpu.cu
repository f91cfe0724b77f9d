// The CUDA libraries from C++, as their users call them (ci/capi-gpu.sh, row libs_gpu): built by
// nvcc against NVIDIA's headers, linked with -lcublas -lcublasLt -lcurand -lnccl, run on NVIDIA's
// libraries and on anycuda's (LD_LIBRARY_PATH="$(anycuda libdir)") on both backends.
// - cuBLAS: SGEMM, HGEMM, GemmEx (f16 in, f32 out), SGEMM strided batched; each checked against
//   a host GEMM;
// - cuBLASLt: a matmul with the RELU_BIAS epilogue, checked against the host (where the backend
//   has cuBLASLt; HIP's NVIDIA platform has no hipBLASLt: `cublasLt unsupported` is printed);
// - cuRAND: every generator, 4096 uniform floats each, the values hashed (FNV-1a of the bits):
//   the script requires the hashes of the anycuda columns to equal NVIDIA's column;
// - NCCL: an all-reduce (sum) on one rank over this process's GPU, checked.
// Prints one line per check ("PASS"/"FAIL"); exits 1 on any failure.
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <curand.h>
#include <math.h>
#include <nccl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static int failures = 0;
static void check(const char *what, bool ok, const char *detail) {
    printf("%s %s%s%s\n", ok ? "PASS" : "FAIL", what, detail[0] ? ": " : "", detail);
    if (!ok) failures++;
}
#define CK(call)                                                                  \
    do {                                                                          \
        long long s_ = (long long)(call);                                         \
        if (s_ != 0) {                                                            \
            char d_[160];                                                         \
            snprintf(d_, sizeof d_, "%s = %lld (line %d)", #call, s_, __LINE__); \
            check("call", false, d_);                                             \
            return;                                                               \
        }                                                                         \
    } while (0)

// Column-major host GEMM: C = A (m x k) * B (k x n).
static void host_gemm(int m, int n, int k, const float *a, const float *b, float *c) {
    for (int j = 0; j < n; j++)
        for (int i = 0; i < m; i++) {
            double s = 0;
            for (int p = 0; p < k; p++) s += (double)a[i + p * m] * b[p + j * k];
            c[i + j * m] = (float)s;
        }
}
static float max_rel(const float *x, const float *y, int n) {
    float e = 0;
    for (int i = 0; i < n; i++) e = fmaxf(e, fabsf(x[i] - y[i]) / fmaxf(1.0f, fabsf(y[i])));
    return e;
}
static void fill(std::vector<float> &v, unsigned seed) {
    for (size_t i = 0; i < v.size(); i++) v[i] = (float)((seed * 2654435761u + i * 40503u) % 17) / 8.0f - 1.0f;
}

static void blas(void) {
    const int m = 64, n = 48, k = 32, batch = 3;
    std::vector<float> a(m * k * batch), b(k * n * batch), c(m * n * batch), want(m * n * batch);
    fill(a, 1);
    fill(b, 2);
    for (int i = 0; i < batch; i++) host_gemm(m, n, k, &a[i * m * k], &b[i * k * n], &want[i * m * n]);
    float *da, *db, *dc;
    CK(cudaMalloc(&da, a.size() * 4));
    CK(cudaMalloc(&db, b.size() * 4));
    CK(cudaMalloc(&dc, c.size() * 4));
    CK(cudaMemcpy(da, a.data(), a.size() * 4, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b.data(), b.size() * 4, cudaMemcpyHostToDevice));
    cublasHandle_t h;
    CK(cublasCreate(&h));
    const float one = 1, zero = 0;
    char d[96];
    // SGEMM.
    CK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, m, db, k, &zero, dc, m));
    CK(cudaMemcpy(c.data(), dc, m * n * 4, cudaMemcpyDeviceToHost));
    float e = max_rel(c.data(), want.data(), m * n);
    snprintf(d, sizeof d, "max rel error %.2e", e);
    check("cublasSgemm", e < 1e-5f, d);
    // Strided batched.
    CK(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, da, m, (long long)m * k, db, k,
                                 (long long)k * n, &zero, dc, m, (long long)m * n, batch));
    CK(cudaMemcpy(c.data(), dc, c.size() * 4, cudaMemcpyDeviceToHost));
    e = max_rel(c.data(), want.data(), m * n * batch);
    snprintf(d, sizeof d, "%d batches, max rel error %.2e", batch, e);
    check("cublasSgemmStridedBatched", e < 1e-5f, d);
    // HGEMM and GemmEx on halves (the inputs are exact in f16: multiples of 1/8 in [-1, 1]).
    std::vector<__half> ha(m * k), hb(k * n), hc(m * n);
    for (int i = 0; i < m * k; i++) ha[i] = __float2half(a[i]);
    for (int i = 0; i < k * n; i++) hb[i] = __float2half(b[i]);
    __half *dha, *dhb, *dhc;
    CK(cudaMalloc(&dha, m * k * 2));
    CK(cudaMalloc(&dhb, k * n * 2));
    CK(cudaMalloc(&dhc, m * n * 2));
    CK(cudaMemcpy(dha, ha.data(), m * k * 2, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(dhb, hb.data(), k * n * 2, cudaMemcpyHostToDevice));
    const __half hone = __float2half(1.0f), hzero = __float2half(0.0f);
    CK(cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &hone, dha, m, dhb, k, &hzero, dhc, m));
    CK(cudaMemcpy(hc.data(), dhc, m * n * 2, cudaMemcpyDeviceToHost));
    for (int i = 0; i < m * n; i++) c[i] = __half2float(hc[i]);
    e = max_rel(c.data(), want.data(), m * n);
    snprintf(d, sizeof d, "max rel error %.2e", e);
    check("cublasHgemm", e < 1e-2f, d);
    CK(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &one, dha, CUDA_R_16F, m, dhb, CUDA_R_16F, k, &zero, dc,
                    CUDA_R_32F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
    CK(cudaMemcpy(c.data(), dc, m * n * 4, cudaMemcpyDeviceToHost));
    e = max_rel(c.data(), want.data(), m * n);
    snprintf(d, sizeof d, "f16 in, f32 out, max rel error %.2e", e);
    check("cublasGemmEx", e < 1e-5f, d);
    CK(cublasDestroy(h));

    // cuBLASLt: D = relu(A * B + bias), bias per row.
    cublasLtHandle_t lt;
    cublasStatus_t ls = cublasLtCreate(&lt);
    if (ls == CUBLAS_STATUS_NOT_SUPPORTED) {
        printf("cublasLt unsupported\n");
    } else {
        CK(ls);
        std::vector<float> bias(m), lw(m * n);
        for (int i = 0; i < m; i++) bias[i] = (float)(i % 5) / 4.0f - 0.5f;
        for (int j = 0; j < n; j++)
            for (int i = 0; i < m; i++) lw[i + j * m] = fmaxf(0.0f, want[i + j * m] + bias[i]);
        float *dbias;
        CK(cudaMalloc(&dbias, m * 4));
        CK(cudaMemcpy(dbias, bias.data(), m * 4, cudaMemcpyHostToDevice));
        cublasLtMatmulDesc_t op;
        CK(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F));
        cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_RELU_BIAS;
        CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
        CK(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &dbias, sizeof dbias));
        cublasLtMatrixLayout_t la, lb, lc;
        CK(cublasLtMatrixLayoutCreate(&la, CUDA_R_32F, m, k, m));
        CK(cublasLtMatrixLayoutCreate(&lb, CUDA_R_32F, k, n, k));
        CK(cublasLtMatrixLayoutCreate(&lc, CUDA_R_32F, m, n, m));
        CK(cublasLtMatmul(lt, op, &one, da, la, db, lb, &zero, dc, lc, dc, lc, NULL, NULL, 0, 0));
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(c.data(), dc, m * n * 4, cudaMemcpyDeviceToHost));
        e = max_rel(c.data(), lw.data(), m * n);
        snprintf(d, sizeof d, "RELU_BIAS epilogue, max rel error %.2e", e);
        check("cublasLtMatmul", e < 1e-5f, d);
        cublasLtMatrixLayoutDestroy(la);
        cublasLtMatrixLayoutDestroy(lb);
        cublasLtMatrixLayoutDestroy(lc);
        cublasLtMatmulDescDestroy(op);
        cublasLtDestroy(lt);
        cudaFree(dbias);
    }
    cudaFree(da);
    cudaFree(db);
    cudaFree(dc);
    cudaFree(dha);
    cudaFree(dhb);
    cudaFree(dhc);
}

static void rand_all(void) {
    const struct {
        curandRngType_t t;
        const char *name;
    } gens[] = {
        {CURAND_RNG_PSEUDO_XORWOW, "XORWOW"},
        {CURAND_RNG_PSEUDO_MRG32K3A, "MRG32K3A"},
        {CURAND_RNG_PSEUDO_MTGP32, "MTGP32"},
        {CURAND_RNG_PSEUDO_MT19937, "MT19937"},
        {CURAND_RNG_PSEUDO_PHILOX4_32_10, "PHILOX4_32_10"},
        {CURAND_RNG_QUASI_SOBOL32, "SOBOL32"},
        {CURAND_RNG_QUASI_SCRAMBLED_SOBOL32, "SCRAMBLED_SOBOL32"},
    };
    const size_t n = 4096;
    float *dv;
    CK(cudaMalloc(&dv, n * 4));
    std::vector<float> v(n);
    for (auto &g : gens) {
        curandGenerator_t gen;
        curandStatus_t s = curandCreateGenerator(&gen, g.t);
        char d[128];
        if (s != CURAND_STATUS_SUCCESS) {
            snprintf(d, sizeof d, "%s: curandCreateGenerator = %d", g.name, (int)s);
            check("curand", false, d);
            continue;
        }
        if (g.t < CURAND_RNG_QUASI_DEFAULT) CK(curandSetPseudoRandomGeneratorSeed(gen, 1234));
        CK(curandGenerateUniform(gen, dv, n));
        CK(cudaMemcpy(v.data(), dv, n * 4, cudaMemcpyDeviceToHost));
        uint64_t hsh = 1469598103934665603ull;
        bool in_range = true;
        for (size_t i = 0; i < n; i++) {
            uint32_t bits;
            memcpy(&bits, &v[i], 4);
            hsh = (hsh ^ bits) * 1099511628211ull;
            in_range = in_range && v[i] > 0.0f && v[i] <= 1.0f;
        }
        // The hash is the value check: ci/capi-gpu.sh compares it with NVIDIA's column.
        snprintf(d, sizeof d, "%s: %zu uniforms in (0, 1], hash %016llx", g.name, n, (unsigned long long)hsh);
        check("curandGenerateUniform", in_range, d);
        CK(curandDestroyGenerator(gen));
    }
    cudaFree(dv);
}

static void nccl_one_rank(void) {
    int v = 0;
    CK(ncclGetVersion(&v));
    ncclComm_t comm;
    int dev = 0;
    CK(ncclCommInitAll(&comm, 1, &dev));
    const int n = 1 << 16;
    std::vector<float> h(n);
    for (int i = 0; i < n; i++) h[i] = (float)(i % 97);
    float *d;
    CK(cudaMalloc(&d, n * 4));
    CK(cudaMemcpy(d, h.data(), n * 4, cudaMemcpyHostToDevice));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(ncclAllReduce(d, d, n, ncclFloat, ncclSum, comm, s));
    CK(cudaStreamSynchronize(s));
    std::vector<float> got(n);
    CK(cudaMemcpy(got.data(), d, n * 4, cudaMemcpyDeviceToHost));
    bool ok = memcmp(got.data(), h.data(), n * 4) == 0;
    char dd[64];
    snprintf(dd, sizeof dd, "1 rank, %d floats, version %s", n, v > 0 ? "known" : "unknown");
    check("ncclAllReduce", ok, dd);
    CK(ncclCommDestroy(comm));
    cudaStreamDestroy(s);
    cudaFree(d);
}

int main(void) {
    blas();
    rand_all();
    nccl_one_rank();
    printf("%s: %d failure(s)\n", failures ? "FAIL" : "PASS", failures);
    return failures ? 1 : 0;
}

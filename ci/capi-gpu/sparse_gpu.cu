// cuSPARSE's generic API from C++, as its users write it (ci/capi-gpu.sh builds it with nvcc
// against NVIDIA's headers, -lcusparse): a CSR sparse matrix times a dense vector (SpMV) and
// times a dense matrix (SpMM, column-major and row-major B/C), each checked against the same
// product computed here on the host. The matrix is 0-based CSR with an empty row, so a wrong
// offset or a dropped row shows.
//
// Prints one line per check; the anycuda columns must print NVIDIA's lines. Exits 0 when every
// check passes, 1 on a wrong value or failed call, 3 when cusparseCreate answers
// CUSPARSE_STATUS_NOT_SUPPORTED (no sparse library behind the backend: the HIP column on HIP's
// NVIDIA platform, which has no hipSPARSE build).
#include <cuda_runtime.h>
#include <cusparse.h>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#define CUDA(call)                                                                   \
    do {                                                                             \
        cudaError_t e_ = (call);                                                     \
        if (e_ != cudaSuccess) {                                                     \
            printf("FAIL %s: %s\n", #call, cudaGetErrorName(e_));                    \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)
#define SPARSE(call)                                                                 \
    do {                                                                             \
        cusparseStatus_t s_ = (call);                                                \
        if (s_ != CUSPARSE_STATUS_SUCCESS) {                                         \
            printf("FAIL %s: %s (%d)\n", #call, cusparseGetErrorName(s_), (int)s_);  \
            exit(1);                                                                 \
        }                                                                            \
    } while (0)

// A 5x4 matrix with an empty row (row 2):
//   [ 1 0 2 0 ]
//   [ 0 3 0 0 ]
//   [ 0 0 0 0 ]
//   [ 4 0 5 6 ]
//   [ 0 7 0 8 ]
static const int M = 5, K = 4, NNZ = 8;
static const int h_rows[M + 1] = {0, 2, 3, 3, 6, 8};
static const int h_cols[NNZ] = {0, 2, 1, 0, 2, 3, 1, 3};
static const float h_vals[NNZ] = {1, 2, 3, 4, 5, 6, 7, 8};

template <typename T> static T *to_device(const T *h, size_t n) {
    T *d = nullptr;
    CUDA(cudaMalloc((void **)&d, n * sizeof(T)));
    CUDA(cudaMemcpy(d, h, n * sizeof(T), cudaMemcpyHostToDevice));
    return d;
}

static bool same(const std::vector<float> &got, const std::vector<float> &want, const char *what) {
    for (size_t i = 0; i < want.size(); i++) {
        if (std::fabs(got[i] - want[i]) > 1e-4f * (1 + std::fabs(want[i]))) {
            printf("FAIL %s: element %zu is %g, the host says %g\n", what, i, got[i], want[i]);
            return false;
        }
    }
    printf("PASS %s:", what);
    for (float v : got) printf(" %g", v);
    printf("\n");
    return true;
}

// C = alpha * A * B + beta * C on the host; B is K x N, C is M x N, both in `order`.
static std::vector<float> host_spmm(int N, bool col, float alpha, const std::vector<float> &B,
                                    float beta, const std::vector<float> &C) {
    std::vector<float> out(C);
    for (int i = 0; i < M; i++)
        for (int j = 0; j < N; j++) {
            float acc = 0;
            for (int p = h_rows[i]; p < h_rows[i + 1]; p++) {
                int k = h_cols[p];
                acc += h_vals[p] * B[col ? k + j * K : k * N + j];
            }
            size_t c = col ? i + (size_t)j * M : (size_t)i * N + j;
            out[c] = alpha * acc + beta * C[c];
        }
    return out;
}

int main() {
    cusparseHandle_t h = nullptr;
    cusparseStatus_t cs = cusparseCreate(&h);
    if (cs == CUSPARSE_STATUS_NOT_SUPPORTED) {
        printf("cusparseCreate: not supported\n");
        return 3;
    }
    if (cs != CUSPARSE_STATUS_SUCCESS) {
        printf("FAIL cusparseCreate: %s (%d)\n", cusparseGetErrorName(cs), (int)cs);
        return 1;
    }
    int version = 0;
    SPARSE(cusparseGetProperty(MAJOR_VERSION, &version));
    printf("cuSPARSE major version %d\n", version);

    int *d_rows = to_device(h_rows, M + 1);
    int *d_cols = to_device(h_cols, NNZ);
    float *d_vals = to_device(h_vals, NNZ);
    cusparseSpMatDescr_t A;
    SPARSE(cusparseCreateCsr(&A, M, K, NNZ, d_rows, d_cols, d_vals, CUSPARSE_INDEX_32I,
                             CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    bool ok = true;

    // SpMV: y = 2 * A * x + 0.5 * y.
    {
        std::vector<float> x = {1, -2, 3, 0.5f}, y = {1, 2, 3, 4, 5};
        float alpha = 2.0f, beta = 0.5f;
        float *d_x = to_device(x.data(), K), *d_y = to_device(y.data(), M);
        cusparseDnVecDescr_t vx, vy;
        SPARSE(cusparseCreateDnVec(&vx, K, d_x, CUDA_R_32F));
        SPARSE(cusparseCreateDnVec(&vy, M, d_y, CUDA_R_32F));
        size_t size = 0;
        SPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta,
                                       vy, CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &size));
        void *buf = nullptr;
        if (size) CUDA(cudaMalloc(&buf, size));
        SPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, vx, &beta, vy,
                            CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, buf));
        std::vector<float> got(M);
        CUDA(cudaMemcpy(got.data(), d_y, M * sizeof(float), cudaMemcpyDeviceToHost));
        std::vector<float> want = host_spmm(1, true, alpha, x, beta, y);
        ok &= same(got, want, "cusparseSpMV csr");
        // The transpose: x' = A^T * y' (K results from M inputs).
        std::vector<float> yt = {1, 1, 1, 1, 1}, xt(K, 0.0f);
        float one = 1.0f, zero = 0.0f;
        float *d_yt = to_device(yt.data(), M), *d_xt = to_device(xt.data(), K);
        cusparseDnVecDescr_t vyt, vxt;
        SPARSE(cusparseCreateDnVec(&vyt, M, d_yt, CUDA_R_32F));
        SPARSE(cusparseCreateDnVec(&vxt, K, d_xt, CUDA_R_32F));
        size_t size_t_ = 0;
        SPARSE(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_TRANSPOSE, &one, A, vyt, &zero, vxt,
                                       CUDA_R_32F, CUSPARSE_SPMV_ALG_DEFAULT, &size_t_));
        void *buf_t = nullptr;
        if (size_t_) CUDA(cudaMalloc(&buf_t, size_t_));
        SPARSE(cusparseSpMV(h, CUSPARSE_OPERATION_TRANSPOSE, &one, A, vyt, &zero, vxt, CUDA_R_32F,
                            CUSPARSE_SPMV_ALG_DEFAULT, buf_t));
        CUDA(cudaMemcpy(xt.data(), d_xt, K * sizeof(float), cudaMemcpyDeviceToHost));
        ok &= same(xt, {5, 10, 7, 14}, "cusparseSpMV csr transposed (column sums)");
        SPARSE(cusparseDestroyDnVec(vx));
        SPARSE(cusparseDestroyDnVec(vy));
        SPARSE(cusparseDestroyDnVec(vyt));
        SPARSE(cusparseDestroyDnVec(vxt));
        CUDA(cudaFree(d_x));
        CUDA(cudaFree(d_y));
        CUDA(cudaFree(d_yt));
        CUDA(cudaFree(d_xt));
        if (buf) CUDA(cudaFree(buf));
        if (buf_t) CUDA(cudaFree(buf_t));
    }

    // SpMM: C = 1.5 * A * B - C, B 4x3, in column-major and row-major order.
    for (int pass = 0; pass < 2; pass++) {
        bool col = pass == 0;
        cusparseOrder_t order = col ? CUSPARSE_ORDER_COL : CUSPARSE_ORDER_ROW;
        const int N = 3;
        std::vector<float> B(K * N), C(M * N);
        for (int i = 0; i < K * N; i++) B[i] = (float)(i % 5) - 1.5f;
        for (int i = 0; i < M * N; i++) C[i] = (float)i * 0.25f;
        float alpha = 1.5f, beta = -1.0f;
        float *d_B = to_device(B.data(), B.size()), *d_C = to_device(C.data(), C.size());
        cusparseDnMatDescr_t mb, mc;
        SPARSE(cusparseCreateDnMat(&mb, K, N, col ? K : N, d_B, CUDA_R_32F, order));
        SPARSE(cusparseCreateDnMat(&mc, M, N, col ? M : N, d_C, CUDA_R_32F, order));
        size_t size = 0;
        SPARSE(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                       CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, A, mb, &beta, mc,
                                       CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, &size));
        void *buf = nullptr;
        if (size) CUDA(cudaMalloc(&buf, size));
        SPARSE(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE,
                            &alpha, A, mb, &beta, mc, CUDA_R_32F, CUSPARSE_SPMM_ALG_DEFAULT, buf));
        std::vector<float> got(M * N);
        CUDA(cudaMemcpy(got.data(), d_C, got.size() * sizeof(float), cudaMemcpyDeviceToHost));
        ok &= same(got, host_spmm(N, col, alpha, B, beta, C),
                   col ? "cusparseSpMM csr, column-major" : "cusparseSpMM csr, row-major");
        SPARSE(cusparseDestroyDnMat(mb));
        SPARSE(cusparseDestroyDnMat(mc));
        CUDA(cudaFree(d_B));
        CUDA(cudaFree(d_C));
        if (buf) CUDA(cudaFree(buf));
    }

    // Bad input answers cuSPARSE's codes, never a crash.
    cusparseStatus_t s = cusparseCreateDnVec(nullptr, 4, d_vals, CUDA_R_32F);
    printf("%s cusparseCreateDnVec(NULL descriptor): %s\n",
           s == CUSPARSE_STATUS_INVALID_VALUE ? "PASS" : "FAIL", cusparseGetErrorName(s));
    ok &= s == CUSPARSE_STATUS_INVALID_VALUE;
    s = cusparseSetStream(nullptr, 0);
    printf("%s cusparseSetStream(NULL handle): %s\n",
           s == CUSPARSE_STATUS_INVALID_VALUE ? "PASS" : "FAIL", cusparseGetErrorName(s));
    ok &= s == CUSPARSE_STATUS_INVALID_VALUE;

    SPARSE(cusparseDestroySpMat(A));
    SPARSE(cusparseDestroy(h));
    CUDA(cudaFree(d_rows));
    CUDA(cudaFree(d_cols));
    CUDA(cudaFree(d_vals));
    printf("%s\n", ok ? "PASS sparse_gpu" : "FAIL sparse_gpu");
    return ok ? 0 : 1;
}

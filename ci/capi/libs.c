/* The CUDA libraries' C drop-ins without a GPU (ci/capi-test.sh): one program, built against
 * NVIDIA's headers and linked against `anycuda libdir`'s libcublas.so.13, libcublasLt.so.13,
 * libcurand.so.10, libnccl.so.2 and libnvJitLink.so.13, so it records NVIDIA's sonames and
 * symbol versions. It prints what each library answers, one line per call; the script runs it
 * on NVIDIA's own libraries and on anycuda's CUDA backend and requires the same lines (anycuda
 * invisible), then on the HIP backend, where it requires every status to be a member of its
 * enum. Host-only calls (versions, names, an nvJitLink link of PTX) must succeed everywhere
 * NVIDIA's do. Exit 0 unless a call crashes: the script compares the output. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <curand.h>
#include <nccl.h>
#include <nvJitLink.h>
#include <stdio.h>
#include <string.h>

static const char ptx[] =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry k(.param .u64 p) {\n .reg .u64 %rd<2>;\n"
    " ld.param.u64 %rd1, [p];\n cvta.to.global.u64 %rd1, %rd1;\n"
    " st.global.u32 [%rd1], 7;\n ret;\n}\n";

int main(void) {
    /* cuBLAS: host-only queries, then a handle (needs a device). */
    int v = -1;
    cublasStatus_t bs = cublasGetProperty(MAJOR_VERSION, &v);
    printf("cublasGetProperty(MAJOR) %d major=%d\n", (int)bs, v);
    printf("cublasGetStatusName(INVALID_VALUE) %s\n", cublasGetStatusName(CUBLAS_STATUS_INVALID_VALUE));
    printf("cublasGetStatusString(NOT_INITIALIZED) %s\n", cublasGetStatusString(CUBLAS_STATUS_NOT_INITIALIZED));
    cublasHandle_t h = NULL;
    bs = cublasCreate(&h);
    printf("cublasCreate %d\n", (int)bs);
    if (bs == CUBLAS_STATUS_SUCCESS) cublasDestroy(h);
    printf("cublasSgemm(null handle) %d\n",
           (int)cublasSgemm(NULL, CUBLAS_OP_N, CUBLAS_OP_N, 1, 1, 1, NULL, NULL, 1, NULL, 1, NULL, NULL, 1));

    /* cuBLASLt. */
    printf("cublasLtGetVersion nonzero=%d\n", cublasLtGetVersion() != 0);
    printf("cublasLtGetStatusName(NOT_SUPPORTED) %s\n", cublasLtGetStatusName(CUBLAS_STATUS_NOT_SUPPORTED));
    cublasLtHandle_t lt = NULL;
    bs = cublasLtCreate(&lt);
    printf("cublasLtCreate %d\n", (int)bs);
    if (bs == CUBLAS_STATUS_SUCCESS) cublasLtDestroy(lt);
    cublasLtMatrixLayout_t layout = NULL;
    bs = cublasLtMatrixLayoutCreate(&layout, CUDA_R_32F, 4, 4, 4);
    printf("cublasLtMatrixLayoutCreate %d\n", (int)bs);
    if (bs == CUBLAS_STATUS_SUCCESS) {
        uint64_t rows = 0;
        size_t written = 0;
        bs = cublasLtMatrixLayoutGetAttribute(layout, CUBLASLT_MATRIX_LAYOUT_ROWS, &rows, sizeof rows, &written);
        printf("cublasLtMatrixLayoutGetAttribute(ROWS) %d rows=%llu written=%zu\n", (int)bs,
               (unsigned long long)rows, written);
        cublasLtMatrixLayoutDestroy(layout);
    }

    /* cuRAND: the version, then a device generator (needs a device). */
    int rv = -1;
    curandStatus_t rs = curandGetVersion(&rv);
    printf("curandGetVersion %d nonzero=%d\n", (int)rs, rv > 0);
    curandGenerator_t g = NULL;
    rs = curandCreateGenerator(&g, CURAND_RNG_PSEUDO_DEFAULT);
    printf("curandCreateGenerator %d\n", (int)rs);
    if (rs == CURAND_STATUS_SUCCESS) curandDestroyGenerator(g);

    /* NCCL: host-only queries. */
    int nv = -1;
    ncclResult_t ns = ncclGetVersion(&nv);
    printf("ncclGetVersion %d nonzero=%d\n", (int)ns, nv > 0);
    printf("ncclGetErrorString(ncclInvalidArgument) %s\n", ncclGetErrorString(ncclInvalidArgument));
    printf("ncclGetVersion(null) %d\n", (int)ncclGetVersion(NULL));

    /* nvJitLink: a whole link of PTX, host only. */
    unsigned maj = 0, min = 0;
    nvJitLinkResult js = nvJitLinkVersion(&maj, &min);
    printf("nvJitLinkVersion %d major=%u\n", (int)js, maj);
    nvJitLinkHandle jl = NULL;
    const char *opts[] = {"-arch=sm_90"};
    js = nvJitLinkCreate(&jl, 1, opts);
    printf("nvJitLinkCreate %d\n", (int)js);
    if (js == NVJITLINK_SUCCESS) {
        js = nvJitLinkAddData(jl, NVJITLINK_INPUT_PTX, ptx, sizeof ptx - 1, "k.ptx");
        printf("nvJitLinkAddData %d\n", (int)js);
        js = nvJitLinkComplete(jl);
        printf("nvJitLinkComplete %d\n", (int)js);
        size_t n = 0;
        js = nvJitLinkGetLinkedCubinSize(jl, &n);
        printf("nvJitLinkGetLinkedCubinSize %d nonzero=%d\n", (int)js, n > 0);
        nvJitLinkDestroy(&jl);
    }
    printf("nvJitLinkCreate(null) %d\n", (int)nvJitLinkCreate(NULL, 1, opts));
    return 0;
}

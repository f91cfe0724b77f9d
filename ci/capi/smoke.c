/* anycuda's C ABI, CI smoke test (no GPU): a C program built against NVIDIA's headers from
 * PyPI, linked as a real application is (libcudart.so.13 and libnvrtc.so.13 the real PyPI
 * files, libcuda.so.1 from anycuda's folder), run with LD_LIBRARY_PATH="$(anycuda libdir)".
 * Usage: smoke cuda|hip OUTPUT_FILE. Prints one line per check; exits 1 on the first failure. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0;
#define CHECK(cond, ...)                                                                  \
    do {                                                                                  \
        if (cond) {                                                                       \
            printf("ok   ");                                                              \
        } else {                                                                          \
            printf("FAIL ");                                                              \
            failures++;                                                                   \
        }                                                                                 \
        printf(__VA_ARGS__);                                                              \
        printf("\n");                                                                     \
    } while (0)

typedef int (*call_as_vendor_fn)(void (*)(void *), void *);

/* Runs inside anycuda_capi_call_as_vendor: the call a vendor library makes back into the C ABI. */
static void vendor_call(void *arg) {
    int v = 0;
    *(CUresult *)arg = cuDriverGetVersion(&v);
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: smoke cuda|hip OUTPUT\n");
        return 2;
    }
    int hip = strcmp(argv[1], "hip") == 0;

    /* One library behind every soname: libcuda, libcudart and libnvrtc resolve to one file. */
    Dl_info a, b, c;
    CHECK(dladdr((void *)cuInit, &a) && dladdr((void *)cudaMalloc, &b) &&
              dladdr((void *)nvrtcVersion, &c) && a.dli_fbase == b.dli_fbase &&
              b.dli_fbase == c.dli_fbase && dlsym(RTLD_DEFAULT, "anycuda_capi_abi_version"),
          "cuInit, cudaMalloc and nvrtcVersion come from anycuda's one C-ABI library (%s)",
          a.dli_fname);

    /* Driver API: no device. On hip, HIP answers "no device"; on cuda, CI has no NVIDIA
     * driver at all, and anycuda's CUDA backend answers what it answers without libcuda. */
    CUresult r = cuInit(0);
    CUresult want_init = hip ? CUDA_ERROR_NO_DEVICE : CUDA_ERROR_NOT_INITIALIZED;
    CHECK(r == want_init, "cuInit(0) = %d (want %d)", (int)r, (int)want_init);
    int n = -1;
    r = cuDeviceGetCount(&n);
    printf("info cuDeviceGetCount = %d, count %d\n", (int)r, n);
    const char *s = NULL;
    r = cuGetErrorName(CUDA_ERROR_NO_DEVICE, &s);
    CHECK(r == CUDA_SUCCESS && s && strcmp(s, "CUDA_ERROR_NO_DEVICE") == 0,
          "cuGetErrorName(100) = %s", s ? s : "(null)");
    r = cuGetErrorName((CUresult)123456, &s);
    CHECK(r == CUDA_ERROR_INVALID_VALUE, "cuGetErrorName(123456) = %d (INVALID_VALUE)", (int)r);

    /* cuGetProcAddress: anycuda's own export, for the header's base name and version. */
    void *pfn = NULL;
    CUdriverProcAddressQueryResult st = (CUdriverProcAddressQueryResult)-1;
    r = cuGetProcAddress("cuMemAlloc", &pfn, 13000, CU_GET_PROC_ADDRESS_DEFAULT, &st);
    CHECK(r == CUDA_SUCCESS && st == CU_GET_PROC_ADDRESS_SUCCESS &&
              pfn == dlsym(RTLD_DEFAULT, "cuMemAlloc_v2"),
          "cuGetProcAddress(cuMemAlloc, 13000) = cuMemAlloc_v2 (%p)", pfn);
    r = cuGetProcAddress("cuMemcpyHtoD", &pfn, 13000, CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM, &st);
    CHECK(r == CUDA_SUCCESS && pfn == dlsym(RTLD_DEFAULT, "cuMemcpyHtoD_v2_ptds"),
          "cuGetProcAddress(cuMemcpyHtoD, per-thread) = cuMemcpyHtoD_v2_ptds");
    r = cuGetProcAddress("cuLaunchKernelEx", &pfn, 11000, 0, &st);
    CHECK(r == CUDA_SUCCESS && pfn == NULL && st == CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT,
          "cuGetProcAddress(cuLaunchKernelEx, 11000): VERSION_NOT_SUFFICIENT");
    /* CUDA 2.0's cuMemAlloc (32-bit sizes) is the plain cuMemAlloc, a pass-through export:
       NVIDIA's own on the CUDA backend, not supported on HIP (capi/src/passthrough.rs). */
    r = cuGetProcAddress("cuMemAlloc", &pfn, 2000, 0, &st);
    void *plain = dlsym(RTLD_DEFAULT, "cuMemAlloc");
    CHECK(r == CUDA_SUCCESS && pfn != NULL && pfn == plain && st == CU_GET_PROC_ADDRESS_SUCCESS,
          "cuGetProcAddress(cuMemAlloc, 2000) = the plain cuMemAlloc export (the 32-bit ABI, passed on)");
    r = cuGetProcAddress("cuNoSuchFunction", &pfn, 13000, 0, &st);
    CHECK(r == CUDA_SUCCESS && pfn == NULL && st == CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND,
          "cuGetProcAddress(cuNoSuchFunction): SYMBOL_NOT_FOUND");
    r = cuGetProcAddress(NULL, &pfn, 13000, 0, &st);
    CHECK(r == CUDA_ERROR_INVALID_VALUE, "cuGetProcAddress(NULL) = INVALID_VALUE");
    CUresult (*get_version)(int *) = NULL;
    r = cuGetProcAddress("cuDriverGetVersion", (void **)&get_version, 12000, 0, NULL);
    int dv = 0;
    CUresult r2 = get_version ? get_version(&dv) : CUDA_ERROR_UNKNOWN;
    CUresult r3 = cuDriverGetVersion(&dv);
    CHECK(r == CUDA_SUCCESS && get_version && r2 == r3,
          "cuDriverGetVersion through cuGetProcAddress answers as the direct call (%d)", (int)r2);

    /* cuGetExportTable: NVIDIA's private tables exist only in NVIDIA's driver. */
    const void *table = NULL;
    CUuuid id = {{0}};
    r = cuGetExportTable(&table, &id);
    CUresult want_table = hip ? CUDA_ERROR_NOT_SUPPORTED : CUDA_ERROR_NOT_INITIALIZED;
    CHECK(r == want_table && table == NULL, "cuGetExportTable = %d (want %d)", (int)r, (int)want_table);

    /* Runtime API, through NVIDIA's own libcudart.so.13 symbol versions. */
    int count = -1;
    cudaError_t e = cudaGetDeviceCount(&count);
    /* hip: HIP's "no device"; cuda: NVIDIA's own libcudart (loaded by path, never anycuda)
     * answers "insufficient driver" with no libcuda on the machine. */
    cudaError_t want_count = hip ? cudaErrorNoDevice : cudaErrorInsufficientDriver;
    CHECK(e == want_count, "cudaGetDeviceCount = %d (%s), want %d", (int)e, cudaGetErrorName(e),
          (int)want_count);
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0,
          "cudaGetErrorName(cudaErrorInvalidValue) = \"%s\"",
          cudaGetErrorName(cudaErrorInvalidValue));
    void *ep = NULL;
    enum cudaDriverEntryPointQueryResult qr = (enum cudaDriverEntryPointQueryResult)-1;
    e = cudaGetDriverEntryPointByVersion("cuMemFree", &ep, 12000, cudaEnableDefault, &qr);
    CHECK(e == cudaSuccess && qr == cudaDriverEntryPointSuccess &&
              ep == dlsym(RTLD_DEFAULT, "cuMemFree_v2"),
          "cudaGetDriverEntryPointByVersion(cuMemFree) = cuMemFree_v2");

    /* The re-entry guard: a call from inside an anycuda C-ABI call goes to NVIDIA's library
     * (absent here), never to the active backend. */
    call_as_vendor_fn as_vendor = (call_as_vendor_fn)dlsym(RTLD_DEFAULT, "anycuda_capi_call_as_vendor");
    CUresult inner = CUDA_SUCCESS;
    CHECK(as_vendor && as_vendor(vendor_call, &inner) == 0 && inner == CUDA_ERROR_NOT_INITIALIZED,
          "re-entrant cuDriverGetVersion goes to NVIDIA's (absent) driver: %d, not the %s backend",
          (int)inner, argv[1]);
    /* On hip the same call made directly is HIP's answer (success): the guard made the
     * difference. (On cuda both go to the CUDA backend.) */
    if (hip)
        CHECK(r3 == CUDA_SUCCESS && r3 != inner, "direct cuDriverGetVersion on hip = %d", (int)r3);

    /* NVRTC. */
    int major = 0, minor = 0;
    nvrtcResult nr = nvrtcVersion(&major, &minor);
    CHECK(nr == NVRTC_SUCCESS && major > 0, "nvrtcVersion = %d.%d", major, minor);
    const char *src =
        "extern \"C\" __global__ void saxpy(float a, float *x, float *y, unsigned n) {\n"
        "  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;\n"
        "  if (i < n) y[i] = a * x[i] + y[i];\n"
        "}\n";
    nvrtcProgram prog;
    nr = nvrtcCreateProgram(&prog, src, "saxpy.cu", 0, NULL, NULL);
    CHECK(nr == NVRTC_SUCCESS, "nvrtcCreateProgram = %d", (int)nr);
    const char *opts[] = {hip ? "--gpu-architecture=gfx90a" : "--gpu-architecture=compute_80"};
    nr = nvrtcCompileProgram(prog, 1, opts);
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    CHECK(nr == NVRTC_SUCCESS, "nvrtcCompileProgram(%s) = %d (log %zu bytes)", opts[0], (int)nr,
          log_size);
    size_t size = 0;
    nr = nvrtcGetPTXSize(prog, &size);
    char *code = malloc(size ? size : 1);
    nvrtcResult nr2 = nvrtcGetPTX(prog, code);
    CHECK(nr == NVRTC_SUCCESS && nr2 == NVRTC_SUCCESS && size > 64, "nvrtcGetPTX: %zu bytes", size);
    if (hip) {
        /* An AMD GPU code object: ELF, e_machine EM_AMDGPU (224). */
        unsigned short machine = size > 20 ? (unsigned short)((unsigned char)code[18] |
                                                               ((unsigned char)code[19] << 8))
                                           : 0;
        CHECK(size > 20 && memcmp(code, "\177ELF", 4) == 0 && machine == 224,
              "the code is an AMD GPU code object (ELF, e_machine %u = EM_AMDGPU)", machine);
    } else {
        CHECK(strstr(code, ".visible .entry saxpy") != NULL && strstr(code, ".target sm_80"),
              "the code is PTX for sm_80 with the entry saxpy");
    }
    FILE *f = fopen(argv[2], "wb");
    if (f) {
        fwrite(code, 1, size, f);
        fclose(f);
    }
    free(code);
    nr = nvrtcDestroyProgram(&prog);
    CHECK(nr == NVRTC_SUCCESS && prog == NULL, "nvrtcDestroyProgram");
    nr = nvrtcCompileProgram(NULL, 0, NULL);
    CHECK(nr == NVRTC_ERROR_INVALID_PROGRAM, "nvrtcCompileProgram(NULL) = %d (INVALID_PROGRAM)", (int)nr);

    printf("%s: %d failure(s)\n", argv[1], failures);
    return failures ? 1 : 0;
}

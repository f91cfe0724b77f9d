/* A C program linked against `anycuda libdir` alone (tests/libdir_link.rs builds and runs it):
 * `cc libdir_link.c -L"$(anycuda libdir)" -lcuda -lcudart -lnvrtc`, NVIDIA's headers.
 *
 * Usage: libdir_link anycuda HALLUCINATED_CODE HALLUCINATED_NAME   (every name from anycuda,
 *                                                                   ANYCUDA_BACKEND=hip, no GPU)
 *        libdir_link nvidia                                         (libcudart.so.13 and
 *                                                                   libnvrtc.so.13 NVIDIA's own)
 * Prints one line per check; exits 1 if any failed. Every check needs an answer that only the
 * library behind the name can give, so a call that reached anything else fails it. */
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
        int ok_ = (cond);                                                                 \
        printf(ok_ ? "ok   " : "FAIL ");                                                  \
        printf(__VA_ARGS__);                                                              \
        printf("\n");                                                                     \
        failures += !ok_;                                                                 \
    } while (0)

/* The file that defines the code at `f`. */
static const char *file_of(void *f) {
    Dl_info info;
    return dladdr(f, &info) && info.dli_fname ? info.dli_fname : "(unknown)";
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

/* Compiles a one-line kernel; returns the size of the code (PTX on NVIDIA's NVRTC, an AMD code
 * object on anycuda's HIP backend), 0 on failure. */
static size_t compile(const char *arch, char **code) {
    const char *src = "extern \"C\" __global__ void twice(float *x) { x[threadIdx.x] *= 2.0f; }\n";
    nvrtcProgram prog = NULL;
    nvrtcResult r = nvrtcCreateProgram(&prog, src, "twice.cu", 0, NULL, NULL);
    CHECK(r == NVRTC_SUCCESS, "nvrtcCreateProgram = %d", (int)r);
    if (r != NVRTC_SUCCESS)
        return 0;
    const char *opts[] = {arch};
    r = nvrtcCompileProgram(prog, 1, opts);
    size_t log_size = 0;
    nvrtcGetProgramLogSize(prog, &log_size);
    CHECK(r == NVRTC_SUCCESS, "nvrtcCompileProgram(%s) = %d (%s), log %zu bytes", arch, (int)r,
          nvrtcGetErrorString(r), log_size);
    size_t size = 0;
    r = nvrtcGetPTXSize(prog, &size);
    *code = calloc(size + 1, 1);
    nvrtcResult r2 = nvrtcGetPTX(prog, *code);
    CHECK(r == NVRTC_SUCCESS && r2 == NVRTC_SUCCESS && size > 0, "nvrtcGetPTX: %zu bytes", size);
    nvrtcDestroyProgram(&prog);
    return r == NVRTC_SUCCESS && r2 == NVRTC_SUCCESS ? size : 0;
}

static int on_anycuda(long hallucinated, const char *hallucinated_name) {
    /* Each API's names, called through the program's own references, come from anycuda's one
     * C-ABI library, never from the name library the program was linked against. */
    const char *drv = file_of((void *)cuInit), *rt = file_of((void *)cudaGetDeviceCount),
               *rtc = file_of((void *)nvrtcVersion);
    CHECK(ends_with(drv, "/libanycuda_capi.so") && strcmp(drv, rt) == 0 && strcmp(rt, rtc) == 0,
          "cuInit, cudaGetDeviceCount and nvrtcVersion are the C-ABI library's (%s, %s, %s)", drv,
          rt, rtc);
    /* So are the names looked up at run time, as cuda-python does: through a handle opened by
     * soname, and through the default scope. */
    void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    CHECK(h && dlsym(h, "cuInit") == (void *)cuInit, "dlsym(libcuda.so.1, cuInit) is the same");
    void *rtc_h = dlopen("libnvrtc.so.13", RTLD_NOW | RTLD_NOLOAD);
    CHECK(rtc_h && dlsym(rtc_h, "nvrtcVersion") == (void *)nvrtcVersion,
          "dlsym(libnvrtc.so.13, nvrtcVersion) is the same");
    CHECK(dlsym(RTLD_DEFAULT, "cudaMalloc") == (void *)cudaMalloc,
          "dlsym(RTLD_DEFAULT, cudaMalloc) is the same");

    /* Driver API, no GPU: HIP answers "no device". */
    CUresult r = cuInit(0);
    CHECK(r == CUDA_ERROR_NO_DEVICE, "cuInit(0) = %d (CUDA_ERROR_NO_DEVICE)", (int)r);
    const char *s = NULL;
    r = cuGetErrorName(CUDA_ERROR_NO_DEVICE, &s);
    CHECK(r == CUDA_SUCCESS && s && strcmp(s, "CUDA_ERROR_NO_DEVICE") == 0,
          "cuGetErrorName(100) = %s", s ? s : "(null)");
    /* A code only anycuda has a name for (a HIP error with no CUDA counterpart). */
    s = NULL;
    r = cuGetErrorName((CUresult)hallucinated, &s);
    CHECK(r == CUDA_SUCCESS && s && strcmp(s, hallucinated_name) == 0,
          "cuGetErrorName(%ld) = %s (anycuda's own name %s)", hallucinated, s ? s : "(null)",
          hallucinated_name);
    /* A versioned name of cuda.h (cuMemAlloc is cuMemAlloc_v2): no context, so an error. */
    CUdeviceptr p = 0;
    r = cuMemAlloc(&p, 256);
    CHECK(r != CUDA_SUCCESS, "cuMemAlloc (cuMemAlloc_v2) without a context = %d", (int)r);

    /* Runtime API, no GPU. */
    int n = -1;
    cudaError_t e = cudaGetDeviceCount(&n);
    const char *en = cudaGetErrorName(e);
    CHECK(e != cudaSuccess && en && strncmp(en, "cudaError", 9) == 0,
          "cudaGetDeviceCount = %d (%s)", (int)e, en ? en : "(null)");
    int rv = 0;
    e = cudaRuntimeGetVersion(&rv);
    CHECK(e == cudaSuccess && rv > 0, "cudaRuntimeGetVersion = %d", rv);

    /* NVRTC: hipRTC behind anycuda's NVRTC, compiling for an AMD GPU without one. */
    int major = 0, minor = 0;
    nvrtcResult nr = nvrtcVersion(&major, &minor);
    CHECK(nr == NVRTC_SUCCESS && major > 0, "nvrtcVersion = %d.%d", major, minor);
    char *code = NULL;
    size_t size = compile("--gpu-architecture=gfx90a", &code);
    unsigned machine =
        size > 20 ? (unsigned)((unsigned char)code[18] | ((unsigned char)code[19] << 8)) : 0;
    CHECK(size > 20 && memcmp(code, "\177ELF", 4) == 0 && machine == 224,
          "the code is an AMD GPU code object (ELF, e_machine %u = EM_AMDGPU)", machine);
    free(code);
    return failures ? 1 : 0;
}

static int on_nvidia(void) {
    /* The same binary, its libcudart.so.13 and libnvrtc.so.13 NVIDIA's: its versioned references
     * (cudaGetDeviceCount@libcudart.so.13, nvrtcVersion@libnvrtc.so.13) are NVIDIA's. */
    const char *rt = file_of((void *)cudaRuntimeGetVersion), *rtc = file_of((void *)nvrtcVersion);
    CHECK(strstr(rt, "anycuda") == NULL && ends_with(rt, "/libcudart.so.13"),
          "cudaRuntimeGetVersion is NVIDIA's (%s)", rt);
    CHECK(strstr(rtc, "anycuda") == NULL && ends_with(rtc, "/libnvrtc.so.13"),
          "nvrtcVersion is NVIDIA's (%s)", rtc);
    int rv = 0;
    cudaError_t e = cudaRuntimeGetVersion(&rv);
    CHECK(e == cudaSuccess && rv / 1000 == 13, "cudaRuntimeGetVersion = %d", rv);
    int major = 0, minor = 0;
    nvrtcResult nr = nvrtcVersion(&major, &minor);
    CHECK(nr == NVRTC_SUCCESS && major == 13, "nvrtcVersion = %d.%d", major, minor);
    char *code = NULL;
    size_t size = compile("--gpu-architecture=compute_80", &code);
    CHECK(size > 0 && strstr(code, ".visible .entry twice") != NULL,
          "the code is PTX with the entry twice");
    free(code);
    return failures ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && strcmp(argv[1], "anycuda") == 0)
        return on_anycuda(strtol(argv[2], NULL, 10), argv[3]);
    if (argc == 2 && strcmp(argv[1], "nvidia") == 0)
        return on_nvidia();
    fprintf(stderr, "usage: libdir_link anycuda CODE NAME | libdir_link nvidia\n");
    return 2;
}

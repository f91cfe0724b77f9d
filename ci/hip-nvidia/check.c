/* Loads the built libamdhip64.so the way anycuda's HIP backend does (dlopen + dlsym, HIP's C
 * signatures declared by hand, no HIP or CUDA header) and exercises it.
 *
 *   check LIB [gpu]
 *
 * Always: hipRuntimeGetVersion (must succeed: on HIP's NVIDIA platform it is the CUDA runtime
 * version, e.g. 13000), hipGetDeviceCount (reported; an error is fine without a GPU), and a
 * hipRTC (= NVRTC) compile of a small kernel to PTX, which needs no GPU.
 * With "gpu": at least one device, then hipGetDeviceProperties, and the PTX loaded, launched
 * and checked through hipModule*, hipMalloc and hipMemcpy.
 * Exit status 0 on success; every failure names the call. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int hipError_t;   /* enum hipError_t: hipSuccess == 0 */
typedef int hiprtcResult; /* enum hiprtcResult: HIPRTC_SUCCESS == 0 */

static void *lib;

static void *sym(const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        fprintf(stderr, "check: %s is not exported: %s\n", name, dlerror());
        exit(1);
    }
    return f;
}

#define CHECK(call)                                                          \
    do {                                                                     \
        int r_ = (call);                                                     \
        if (r_ != 0) {                                                       \
            fprintf(stderr, "check: %s failed with %d\n", #call, r_);        \
            exit(1);                                                         \
        }                                                                    \
    } while (0)

static const char *kernel_src =
    "extern \"C\" __global__ void twice(int *p) { p[threadIdx.x] = 2 * (int)threadIdx.x; }\n";

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: check LIB [gpu]\n");
        return 2;
    }
    int gpu = argc > 2 && strcmp(argv[2], "gpu") == 0;
    /* RTLD_NOW where the driver is present: every CUDA symbol must resolve, as at run time. */
    lib = dlopen(argv[1], gpu ? RTLD_NOW : RTLD_LAZY);
    if (!lib) {
        fprintf(stderr, "check: dlopen(%s): %s\n", argv[1], dlerror());
        return 1;
    }

    hipError_t (*runtime_version)(int *) = (hipError_t(*)(int *))sym("hipRuntimeGetVersion");
    hipError_t (*device_count)(int *) = (hipError_t(*)(int *))sym("hipGetDeviceCount");
    hiprtcResult (*rtc_version)(int *, int *) = (hiprtcResult(*)(int *, int *))sym("hiprtcVersion");

    int version = 0;
    CHECK(runtime_version(&version));
    printf("hipRuntimeGetVersion: %d (CUDA %d.%d)\n", version, version / 1000,
           (version % 1000) / 10);
    if (version <= 0 || version >= 10000000) {
        fprintf(stderr, "check: expected a CUDA runtime version, got %d\n", version);
        return 1;
    }
    int count = -1;
    hipError_t r = device_count(&count);
    printf("hipGetDeviceCount: error %d, count %d\n", r, count);
    int major = 0, minor = 0;
    CHECK(rtc_version(&major, &minor));
    printf("hiprtcVersion: %d.%d\n", major, minor);

    /* hipRTC: a real compile (NVRTC underneath), no GPU needed. */
    hiprtcResult (*create)(void **, const char *, const char *, int, const char **,
                           const char **) = (hiprtcResult(*)(void **, const char *, const char *,
                                                             int, const char **, const char **))
        sym("hiprtcCreateProgram");
    hiprtcResult (*compile)(void *, int, const char **) =
        (hiprtcResult(*)(void *, int, const char **))sym("hiprtcCompileProgram");
    hiprtcResult (*log_size)(void *, size_t *) =
        (hiprtcResult(*)(void *, size_t *))sym("hiprtcGetProgramLogSize");
    hiprtcResult (*get_log)(void *, char *) = (hiprtcResult(*)(void *, char *))sym("hiprtcGetProgramLog");
    hiprtcResult (*code_size)(void *, size_t *) =
        (hiprtcResult(*)(void *, size_t *))sym("hiprtcGetCodeSize");
    hiprtcResult (*get_code)(void *, char *) = (hiprtcResult(*)(void *, char *))sym("hiprtcGetCode");
    hiprtcResult (*destroy)(void **) = (hiprtcResult(*)(void **))sym("hiprtcDestroyProgram");

    void *prog = NULL;
    CHECK(create(&prog, kernel_src, "twice.cu", 0, NULL, NULL));
    hiprtcResult cr = compile(prog, 0, NULL);
    if (cr != 0) {
        size_t n = 0;
        log_size(prog, &n);
        char *log = calloc(n + 1, 1);
        get_log(prog, log);
        fprintf(stderr, "check: hiprtcCompileProgram failed with %d:\n%s\n", cr, log);
        return 1;
    }
    size_t n = 0;
    CHECK(code_size(prog, &n));
    char *code = calloc(n + 1, 1);
    CHECK(get_code(prog, code));
    CHECK(destroy(&prog));
    printf("hiprtc: compiled %zu bytes of %s\n", n,
           strstr(code, ".entry twice") ? "PTX with .entry twice" : "code");
    if (!strstr(code, ".entry twice")) {
        fprintf(stderr, "check: hiprtcGetCode did not return PTX containing the kernel\n");
        return 1;
    }

    if (!gpu) {
        printf("check: OK (no GPU run)\n");
        return 0;
    }
    if (r != 0 || count < 1) {
        fprintf(stderr, "check: a GPU was expected but hipGetDeviceCount gave error %d, count %d\n",
                r, count);
        return 1;
    }

    hipError_t (*init)(unsigned) = (hipError_t(*)(unsigned))sym("hipInit");
    hipError_t (*set_device)(int) = (hipError_t(*)(int))sym("hipSetDevice");
    hipError_t (*props)(void *, int) = (hipError_t(*)(void *, int))sym("hipGetDeviceProperties");
    hipError_t (*load)(void **, const void *) = (hipError_t(*)(void **, const void *))sym("hipModuleLoadData");
    hipError_t (*get_fn)(void **, void *, const char *) =
        (hipError_t(*)(void **, void *, const char *))sym("hipModuleGetFunction");
    hipError_t (*hmalloc)(void **, size_t) = (hipError_t(*)(void **, size_t))sym("hipMalloc");
    hipError_t (*hfree)(void *) = (hipError_t(*)(void *))sym("hipFree");
    hipError_t (*launch)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **) =
        (hipError_t(*)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                       unsigned, void *, void **, void **))sym("hipModuleLaunchKernel");
    hipError_t (*sync)(void) = (hipError_t(*)(void))sym("hipDeviceSynchronize");
    hipError_t (*memcpy_)(void *, const void *, size_t, int) =
        (hipError_t(*)(void *, const void *, size_t, int))sym("hipMemcpy");

    CHECK(init(0));
    CHECK(set_device(0));
    /* hipDeviceProp_t (HIP 5.2.3 layout) starts with char name[256]; the rest is not read here.
     * 8 KiB is far more than the struct's size. */
    static char prop[8192];
    CHECK(props(prop, 0));
    printf("hipGetDeviceProperties: name \"%.256s\"\n", prop);

    void *module = NULL, *fn = NULL, *dev = NULL;
    CHECK(load(&module, code));
    CHECK(get_fn(&fn, module, "twice"));
    enum { N = 64 };
    CHECK(hmalloc(&dev, N * sizeof(int)));
    void *args[] = {&dev};
    CHECK(launch(fn, 1, 1, 1, N, 1, 1, 0, NULL, args, NULL));
    CHECK(sync());
    int host[N];
    CHECK(memcpy_(host, dev, sizeof host, 2 /* hipMemcpyDeviceToHost */));
    CHECK(hfree(dev));
    for (int i = 0; i < N; i++) {
        if (host[i] != 2 * i) {
            fprintf(stderr, "check: kernel result [%d] = %d, expected %d\n", i, host[i], 2 * i);
            return 1;
        }
    }
    printf("hipModuleLaunchKernel: PTX from hiprtc ran, %d results correct\n", N);
    printf("check: OK (GPU run)\n");
    return 0;
}

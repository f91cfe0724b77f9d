/* anycuda's libcudart.so.12, CI smoke test (no GPU): a C program built against CUDA 12's
 * runtime headers from PyPI (nvidia-cuda-runtime-cu12), linked as a real CUDA 12 application is
 * (NVIDIA's real libcudart.so.12, and a stub libcuda.so.1 linked FIRST, so that anycuda's C-ABI
 * library, which serves libcuda.so.1, comes before libcudart.so.12 in the loader's search order),
 * run with LD_LIBRARY_PATH="$(anycuda libdir)". Every CUDA 12 reference must still bind to
 * anycuda's libcudart.so.12 (its symbols carry NVIDIA's version libcudart.so.12), never to the
 * C-ABI library's CUDA 13 functions of the same name.
 *
 * The adapted functions are checked against the C ABI's CUDA 13 functions, called directly:
 * each CUDA 12 call must answer what its CUDA 13 translation answers on the same backend.
 * Usage: smoke12 cuda|hip. Prints one line per check; exits 1 on any failure. */
#define _GNU_SOURCE
/* Deprecated CUDA 12 functions are part of what is checked. */
#define CUDA_ENABLE_DEPRECATED 1
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <dlfcn.h>
#include <stdint.h>
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

/* The C ABI's CUDA 13 functions (libanycuda_capi.so), by handle: the CUDA 12 names of this
 * program resolve to libcudart.so.12. */
static void *capi;
static void *c13(const char *name) {
    void *f = dlsym(capi, name);
    if (!f) {
        printf("FAIL the C-ABI library has no %s\n", name);
        exit(1);
    }
    return f;
}

/* CUDA 13's cudaMemLocation has CUDA 12's layout (a type, and an int id in a union). */
typedef cudaError_t (*advise13_fn)(const void *, size_t, enum cudaMemoryAdvise, struct cudaMemLocation);
typedef cudaError_t (*prefetch13_fn)(const void *, size_t, struct cudaMemLocation, unsigned, cudaStream_t);
typedef cudaError_t (*add_deps13_fn)(cudaGraph_t, const cudaGraphNode_t *, const cudaGraphNode_t *,
                                     const cudaGraphEdgeData *, size_t);
typedef cudaError_t (*capture13_fn)(cudaStream_t, enum cudaStreamCaptureStatus *, unsigned long long *,
                                    cudaGraph_t *, const cudaGraphNode_t **, const cudaGraphEdgeData **,
                                    size_t *);
typedef cudaError_t (*props13_fn)(void *, int);
typedef cudaError_t (*noarg_fn)(void);

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: smoke12 cuda|hip\n");
        return 2;
    }
    int hip = strcmp(argv[1], "hip") == 0;
    /* libcudart.so.12 opens the C-ABI library on its first call (it is loaded already here,
     * as libcuda.so.1). */
    int count = -1;
    cudaError_t e = cudaGetDeviceCount(&count);
    capi = dlopen("libanycuda_capi.so", RTLD_NOW | RTLD_NOLOAD);
    CHECK(capi != NULL, "anycuda's C-ABI library is loaded");
    if (!capi)
        return 1;

    /* Which library serves the CUDA 12 names. */
    Dl_info a, b, m;
    void *marker = dlsym(capi, "anycuda_capi_abi_version");
    CHECK(dladdr((void *)cudaMalloc, &a) && dladdr((void *)cudaGetDeviceProperties, &b) &&
              dladdr(marker, &m) && a.dli_fbase == b.dli_fbase && a.dli_fbase != m.dli_fbase &&
              strstr(a.dli_fname, "libcudart.so.12") != NULL,
          "cudaMalloc and cudaGetDeviceProperties(_v2) come from anycuda's libcudart.so.12 (%s), "
          "not the C-ABI library (%s)",
          a.dli_fname, m.dli_fname);
    CHECK(dlsym(RTLD_DEFAULT, "cuInit") == dlsym(capi, "cuInit"),
          "libcuda.so.1 is the C-ABI library, loaded before libcudart.so.12");

    /* Forwarded functions: the C ABI's CUDA 13 answers. */
    cudaError_t want_count = hip ? cudaErrorNoDevice : cudaErrorInsufficientDriver;
    CHECK(e == want_count, "cudaGetDeviceCount = %d (%s), want %d", (int)e, cudaGetErrorName(e),
          (int)want_count);
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0,
          "cudaGetErrorName(cudaErrorInvalidValue) = \"%s\"", cudaGetErrorName(cudaErrorInvalidValue));
    void *p = (void *)1;
    e = cudaMalloc(&p, 256);
    CHECK(e != cudaSuccess, "cudaMalloc without a device = %d (%s)", (int)e, cudaGetErrorName(e));

    /* cudaGetDeviceProperties is cudaGetDeviceProperties_v2 in CUDA 12's header: CUDA 12's
     * struct layout. Without a device: CUDA 13's error, and the caller's struct untouched. */
    struct cudaDeviceProp prop;
    memset(&prop, 0x5a, sizeof prop);
    e = cudaGetDeviceProperties(&prop, 0);
    unsigned char prop13[4096];
    cudaError_t e13 = ((props13_fn)c13("cudaGetDeviceProperties"))(prop13, 0);
    CHECK(e != cudaSuccess && e == e13, "cudaGetDeviceProperties(0) = %d (%s), CUDA 13's %d", (int)e,
          cudaGetErrorName(e), (int)e13);
    const unsigned char *pb = (const unsigned char *)&prop;
    size_t untouched = 0;
    for (size_t i = 0; i < sizeof prop; i++)
        untouched += pb[i] == 0x5a;
    CHECK(untouched == sizeof prop, "the error leaves CUDA 12's cudaDeviceProp (%zu bytes) untouched",
          sizeof prop);
    e = cudaGetDeviceProperties(NULL, 0);
    CHECK(e == cudaErrorInvalidValue, "cudaGetDeviceProperties(NULL) = %d (cudaErrorInvalidValue)",
          (int)e);
    int dev = -1;
    e = cudaChooseDevice(&dev, NULL);
    CHECK(e == cudaErrorInvalidValue, "cudaChooseDevice(&dev, NULL) = %d (cudaErrorInvalidValue)", (int)e);
    memset(&prop, 0, sizeof prop);
    prop.major = 7;
    e = cudaChooseDevice(&dev, &prop);
    printf("info cudaChooseDevice(major 7) = %d (%s)\n", (int)e, cudaGetErrorName(e));

    /* int device → cudaMemLocation. */
    static float host[64];
    struct cudaMemLocation dev0 = {0};
    dev0.type = cudaMemLocationTypeDevice;
    dev0.id = 0;
    struct cudaMemLocation cpu = {0};
    cpu.type = cudaMemLocationTypeHost;
    e = cudaMemAdvise(host, sizeof host, cudaMemAdviseSetReadMostly, 0);
    e13 = ((advise13_fn)c13("cudaMemAdvise"))(host, sizeof host, cudaMemAdviseSetReadMostly, dev0);
    CHECK(e == e13, "cudaMemAdvise(device 0) = %d, CUDA 13's with {Device, 0} = %d", (int)e, (int)e13);
    e = cudaMemAdvise(host, sizeof host, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId);
    e13 = ((advise13_fn)c13("cudaMemAdvise"))(host, sizeof host, cudaMemAdviseSetPreferredLocation, cpu);
    CHECK(e == e13, "cudaMemAdvise(cudaCpuDeviceId) = %d, CUDA 13's with {Host} = %d", (int)e, (int)e13);
    e = cudaMemPrefetchAsync(host, sizeof host, 0, 0);
    e13 = ((prefetch13_fn)c13("cudaMemPrefetchAsync"))(host, sizeof host, dev0, 0, 0);
    CHECK(e == e13, "cudaMemPrefetchAsync(device 0) = %d, CUDA 13's = %d", (int)e, (int)e13);
    e = cudaMemPrefetchAsync_v2(host, sizeof host, dev0, 0, 0);
    CHECK(e == e13, "cudaMemPrefetchAsync_v2 (CUDA 13's signature) = %d, CUDA 13's = %d", (int)e, (int)e13);

    /* Graph edges without edge data. */
    e = cudaGraphAddDependencies(NULL, NULL, NULL, 0);
    e13 = ((add_deps13_fn)c13("cudaGraphAddDependencies"))(NULL, NULL, NULL, NULL, 0);
    CHECK(e == e13, "cudaGraphAddDependencies(NULL graph) = %d, CUDA 13's = %d", (int)e, (int)e13);
    enum cudaStreamCaptureStatus cs;
    size_t ndeps = 0;
    e = cudaStreamGetCaptureInfo(0, &cs, NULL, NULL, NULL, &ndeps);
    enum cudaStreamCaptureStatus cs13;
    e13 = ((capture13_fn)c13("cudaStreamGetCaptureInfo"))(0, &cs13, NULL, NULL, NULL, NULL, &ndeps);
    CHECK(e == e13, "cudaStreamGetCaptureInfo (_v2, no edge data) = %d, CUDA 13's = %d", (int)e, (int)e13);

    /* Removed in CUDA 13, kept by CUDA 12. */
    e = cudaThreadSynchronize();
    e13 = ((noarg_fn)c13("cudaDeviceSynchronize"))();
    CHECK(e == e13, "cudaThreadSynchronize = %d, cudaDeviceSynchronize = %d", (int)e, (int)e13);
    size_t lim = 0;
    e = cudaThreadGetLimit(&lim, cudaLimitStackSize);
    cudaError_t e2 = cudaDeviceGetLimit(&lim, cudaLimitStackSize);
    CHECK(e == e2, "cudaThreadGetLimit = %d, cudaDeviceGetLimit = %d", (int)e, (int)e2);
    double d = 1.0;
    CHECK(cudaSetDoubleForDevice(&d) == cudaSuccess && d == 1.0 &&
              cudaSetDoubleForHost(NULL) == cudaErrorInvalidValue,
          "cudaSetDoubleForDevice/Host: nothing to convert, NULL refused");
    e = cudaLaunchCooperativeKernelMultiDevice(NULL, 0, 0);
    CHECK(e == cudaErrorNotSupported, "cudaLaunchCooperativeKernelMultiDevice = %d (cudaErrorNotSupported)",
          (int)e);

    /* A struct that grew in CUDA 13 (cudaPointerAttributes, 24 bytes in 12): the adapter writes
     * no byte past CUDA 12's struct. */
    unsigned char buf[256];
    memset(buf, 0x77, sizeof buf);
    e = cudaPointerGetAttributes((struct cudaPointerAttributes *)buf, host);
    size_t past = 0, inside = 0;
    for (size_t i = 0; i < sizeof buf; i++) {
        if (i < sizeof(struct cudaPointerAttributes))
            inside += buf[i] != 0x77;
        else
            past += buf[i] != 0x77;
    }
    CHECK(sizeof(struct cudaPointerAttributes) == 24 && past == 0 && (e == cudaSuccess || inside == 0),
          "cudaPointerGetAttributes = %d: nothing written past CUDA 12's %zu bytes (nor into them "
          "on an error)",
          (int)e, sizeof(struct cudaPointerAttributes));

    /* The entry-point query at CUDA 12's version. */
    void *ep = NULL;
    enum cudaDriverEntryPointQueryResult qr;
    e = cudaGetDriverEntryPoint("cuMemFree", &ep, cudaEnableDefault, &qr);
    CHECK(e == cudaSuccess && qr == cudaDriverEntryPointSuccess && ep == dlsym(capi, "cuMemFree_v2"),
          "cudaGetDriverEntryPoint(cuMemFree) = anycuda's cuMemFree_v2");

    printf("%s: %d failure(s)\n", argv[1], failures);
    return failures ? 1 : 0;
}

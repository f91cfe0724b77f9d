/* The C ABI's per-call cost (ci/capi-bench.sh). Interleaved rounds, the median of each, ns/call:
 *   - cuDriverGetVersion through anycuda's C ABI, and through NVIDIA's libcuda.so.1 directly
 *     when the machine has one (a GPU machine; ANYCUDA_BACKEND=cuda);
 *   - cuGetErrorName through anycuda's C ABI (guard + dispatch + anycuda's tables; no vendor call);
 *   - the re-entry guard: anycuda_capi_call_as_vendor(noop) (guard enter/leave + one indirect
 *     call) against calling noop through a pointer.
 * hipDriverGetVersion is no trivial call on ROCm 5.2.3 without a GPU (about 37 us), so CI
 * measures the guard and cuGetErrorName; the driver comparison needs NVIDIA's driver. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

typedef int (*get_version_fn)(int *);
typedef int (*error_name_fn)(int, const char **);
typedef int (*as_vendor_fn)(void (*)(void *), void *);

static void noop(void *p) { __asm__ volatile("" ::"r"(p) : "memory"); }

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#ifndef ROUNDS
#define ROUNDS 21
#endif
#ifndef N
#define N 1000000
#endif

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: bench LIBANYCUDA_CAPI\n");
        return 2;
    }
    void *any = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!any) {
        fprintf(stderr, "bench: %s\n", dlerror());
        return 1;
    }
    /* NVIDIA's driver, by soname (anycuda's folder is not on the library path here). */
    void *nv = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    get_version_fn cu = (get_version_fn)dlsym(any, "cuDriverGetVersion");
    get_version_fn nv_cu = nv ? (get_version_fn)dlsym(nv, "cuDriverGetVersion") : NULL;
    error_name_fn en = (error_name_fn)dlsym(any, "cuGetErrorName");
    as_vendor_fn as_vendor = (as_vendor_fn)dlsym(any, "anycuda_capi_call_as_vendor");
    void (*volatile direct)(void *) = noop;
    int v = 0;
    const char *s = 0;
    if (nv_cu && (nv_cu(&v) != 0 || dlsym(nv, "anycuda_capi_abi_version")))
        nv_cu = NULL;
    /* Timed only against NVIDIA's driver: HIP's hipDriverGetVersion is no trivial call. */
    int use_cu = nv_cu && cu(&v) == 0;
    double t_cu[ROUNDS], t_nv[ROUNDS], t_en[ROUNDS], t_guard[ROUNDS], t_ind[ROUNDS];
    for (int r = 0; r < ROUNDS; r++) {
        double t0 = now();
        if (use_cu)
            for (int i = 0; i < N; i++) cu(&v);
        double t1 = now();
        if (nv_cu)
            for (int i = 0; i < N; i++) nv_cu(&v);
        double t2 = now();
        for (int i = 0; i < N; i++) en(100, &s);
        double t3 = now();
        for (int i = 0; i < N; i++) as_vendor(noop, &v);
        double t4 = now();
        for (int i = 0; i < N; i++) direct(&v);
        double t5 = now();
        t_cu[r] = (t1 - t0) / N;
        t_nv[r] = (t2 - t1) / N;
        t_en[r] = (t3 - t2) / N;
        t_guard[r] = (t4 - t3) / N;
        t_ind[r] = (t5 - t4) / N;
    }
    double *all[] = {t_cu, t_nv, t_en, t_guard, t_ind};
    for (int k = 0; k < 5; k++) qsort(all[k], ROUNDS, sizeof(double), cmp);
    int m = ROUNDS / 2;
    if (use_cu && nv_cu) {
        printf("cuDriverGetVersion, anycuda's C ABI:        %.2f ns/call\n", t_cu[m]);
        printf("cuDriverGetVersion, NVIDIA's libcuda:       %.2f ns/call\n", t_nv[m]);
        printf("  anycuda's overhead:                       %+.2f ns/call (%.3fx)\n", t_cu[m] - t_nv[m],
               t_cu[m] / t_nv[m]);
    } else {
        printf("cuDriverGetVersion: no NVIDIA driver here to compare with (not timed)\n");
    }
    printf("cuGetErrorName, anycuda's C ABI:            %.2f ns/call\n", t_en[m]);
    printf("anycuda_capi_call_as_vendor(noop):          %.2f ns/call\n", t_guard[m]);
    printf("noop through a pointer:                     %.2f ns/call\n", t_ind[m]);
    printf("  the guard (enter + leave) and the export: %+.2f ns/call\n", t_guard[m] - t_ind[m]);
    return 0;
}

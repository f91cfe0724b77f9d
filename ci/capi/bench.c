/* The C ABI's per-call cost (ci/capi-bench.sh). Interleaved rounds, the median of each, ns/call:
 *   - cuDriverGetVersion through anycuda's C ABI, and through NVIDIA's libcuda.so.1 directly
 *     when the machine has one (a GPU machine; ANYCUDA_BACKEND=cuda);
 *   - cuGetErrorName through anycuda's C ABI (guard + dispatch + anycuda's tables; no vendor call);
 *   - the re-entry guard: anycuda_capi_call_as_vendor(noop) (guard enter/leave + one indirect
 *     call) against calling noop through a pointer;
 *   - with NVIDIA's driver and a GPU: an empty kernel launched with cuLaunchKernel, batches of
 *     LAUNCHES then cuCtxSynchronize, through anycuda's C ABI and through NVIDIA's libcuda (each
 *     path loads its own module into the same primary context), interleaved; the host time per
 *     launch, sync amortised.
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

static double now(void);

typedef int (*init_fn)(unsigned);
typedef int (*device_get_fn)(int *, int);
typedef int (*retain_fn)(void **, int);
typedef int (*set_current_fn)(void *);
typedef int (*load_data_fn)(void **, const void *);
typedef int (*get_function_fn)(void **, void *, const char *);
typedef int (*launch_fn)(void *, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                         unsigned, void *, void **, void **);
typedef int (*sync_fn)(void);

/* An empty kernel: PTX ISA 7.0 for sm_52, which every driver since CUDA 11 JIT-compiles. */
static const char EMPTY_PTX[] = ".version 7.0\n.target sm_52\n.address_size 64\n"
                                ".visible .entry empty()\n{\n\tret;\n}\n";

/* One library's launch path: its entry points and its own module's function. */
struct launcher {
    launch_fn launch;
    sync_fn sync;
    void *fn;
};

/* Resolves the driver calls in `lib`, makes device 0's primary context current and loads the
 * empty kernel; 0 on success. */
static int launcher_init(void *lib, struct launcher *l) {
    init_fn init = (init_fn)dlsym(lib, "cuInit");
    device_get_fn device_get = (device_get_fn)dlsym(lib, "cuDeviceGet");
    retain_fn retain = (retain_fn)dlsym(lib, "cuDevicePrimaryCtxRetain");
    set_current_fn set_current = (set_current_fn)dlsym(lib, "cuCtxSetCurrent");
    load_data_fn load = (load_data_fn)dlsym(lib, "cuModuleLoadData");
    get_function_fn get_function = (get_function_fn)dlsym(lib, "cuModuleGetFunction");
    l->launch = (launch_fn)dlsym(lib, "cuLaunchKernel");
    l->sync = (sync_fn)dlsym(lib, "cuCtxSynchronize");
    if (!init || !device_get || !retain || !set_current || !load || !get_function || !l->launch ||
        !l->sync)
        return -1;
    int dev = 0, rc;
    void *ctx = 0, *mod = 0;
    if ((rc = init(0)) || (rc = device_get(&dev, 0)) || (rc = retain(&ctx, dev)) ||
        (rc = set_current(ctx)) || (rc = load(&mod, EMPTY_PTX)) ||
        (rc = get_function(&l->fn, mod, "empty")))
        return rc;
    return 0;
}

#ifndef LAUNCHES
#define LAUNCHES 256
#endif
#ifndef LAUNCH_BATCHES
#define LAUNCH_BATCHES 200
#endif

/* Host time per launch, ns: LAUNCH_BATCHES batches of LAUNCHES launches, each batch synced;
 * `*submit` gets the time of the launch calls alone (the sync left out: what the library adds
 * shows there, where the GPU's own pace does not hide it). */
static double launch_round(const struct launcher *l, double *submit) {
    double t0 = now(), in_calls = 0;
    for (int b = 0; b < LAUNCH_BATCHES; b++) {
        double s0 = now();
        for (int i = 0; i < LAUNCHES; i++)
            if (l->launch(l->fn, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0)) return -1;
        in_calls += now() - s0;
        if (l->sync()) return -1;
    }
    *submit = in_calls / ((double)LAUNCHES * LAUNCH_BATCHES);
    return (now() - t0) / ((double)LAUNCHES * LAUNCH_BATCHES);
}

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
    /* The empty launch, interleaved, where NVIDIA's driver and a GPU are here. */
    struct launcher la, ln;
    int launches = 0;
    double t_la[ROUNDS], t_ln[ROUNDS], s_la[ROUNDS], s_ln[ROUNDS];
    if (use_cu) {
        int ra = launcher_init(any, &la), rn = launcher_init(nv, &ln);
        launches = ra == 0 && rn == 0;
        if (!launches)
            printf("empty launch: not timed (setup: anycuda %d, NVIDIA %d)\n", ra, rn);
    }
    for (int r = 0; launches && r < ROUNDS; r++) {
        t_la[r] = launch_round(&la, &s_la[r]);
        t_ln[r] = launch_round(&ln, &s_ln[r]);
        if (t_la[r] < 0 || t_ln[r] < 0) {
            printf("empty launch: a launch or sync failed in round %d\n", r);
            launches = 0;
        }
    }
    if (launches) {
        qsort(t_la, ROUNDS, sizeof(double), cmp);
        qsort(t_ln, ROUNDS, sizeof(double), cmp);
        qsort(s_la, ROUNDS, sizeof(double), cmp);
        qsort(s_ln, ROUNDS, sizeof(double), cmp);
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
    if (launches) {
        printf("empty launch (%d per sync), anycuda's C ABI: %.1f ns/launch\n", LAUNCHES, t_la[m]);
        printf("empty launch (%d per sync), NVIDIA's libcuda: %.1f ns/launch\n", LAUNCHES, t_ln[m]);
        printf("  anycuda's overhead:                       %+.1f ns/launch (%.3fx)\n",
               t_la[m] - t_ln[m], t_la[m] / t_ln[m]);
        printf("cuLaunchKernel calls alone, anycuda's C ABI: %.1f ns/launch\n", s_la[m]);
        printf("cuLaunchKernel calls alone, NVIDIA's libcuda: %.1f ns/launch\n", s_ln[m]);
        printf("  anycuda's overhead:                       %+.1f ns/launch (%.3fx)\n",
               s_la[m] - s_ln[m], s_la[m] / s_ln[m]);
    }
    printf("cuGetErrorName, anycuda's C ABI:            %.2f ns/call\n", t_en[m]);
    printf("anycuda_capi_call_as_vendor(noop):          %.2f ns/call\n", t_guard[m]);
    printf("noop through a pointer:                     %.2f ns/call\n", t_ind[m]);
    printf("  the guard (enter + leave) and the export: %+.2f ns/call\n", t_guard[m] - t_ind[m]);
    return 0;
}

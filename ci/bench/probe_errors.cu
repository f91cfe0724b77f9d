// Probe: what does the real CUDA driver return for each misuse tests/gpu_suite.rs asserts?
// Each case runs in its own process (a dangling handle may crash the driver):
//   nvcc -o /tmp/probe ci/bench/probe_errors.cu -lcuda && nvcc -ptx -o /tmp/probe_k.ptx ci/bench/probe_errors.cu -DKERNEL_ONLY
//   for c in $(/tmp/probe list); do /tmp/probe $c /tmp/probe_k.ptx; done
#include <cuda.h>
#ifdef KERNEL_ONLY
extern "C" __global__ void k(int *p) { if (p) p[threadIdx.x] = threadIdx.x; }
#else
#include <cuda_runtime_api.h>
#include <cstdio>
#include <dlfcn.h>
#include <initializer_list>
#include <cstring>
#include <cstdlib>

static const char *name(CUresult r) { const char *s = nullptr; cuGetErrorName(r, &s); return s ? s : "?"; }
#define SHOW(what, call) do { CUresult r_ = (call); printf("%-22s %-44s -> %d %s\n", argv[1], what, (int)r_, name(r_)); fflush(stdout); } while (0)
#define OK(call) do { CUresult r_ = (call); if (r_) { printf("setup %s failed: %s\n", #call, name(r_)); return 2; } } while (0)

int main(int argc, char **argv) {
    const char *cases[] = {"bogus_dtoh", "null_dtoh", "freed_dtoh", "device999", "block2048", "block1025",
                           "destroyed_stream", "other_ctx_stream", "dead_ctx_stream", "double_free", "nope", "free_null",
                           "rt_bogus", "rt_double_free", "destroyed_event", "null_func", "graph_launch_destroyed", "proc_address"};
    if (argc < 2 || !strcmp(argv[1], "list")) { for (auto c : cases) printf("%s\n", c); return 0; }
    const char *c = argv[1];
    OK(cuInit(0));
    CUdevice dev; OK(cuDeviceGet(&dev, 0));
    CUcontext ctx; OK(cuDevicePrimaryCtxRetain(&ctx, dev)); OK(cuCtxSetCurrent(ctx));
    CUmodule mod; OK(cuModuleLoad(&mod, argv[2]));
    CUfunction f; OK(cuModuleGetFunction(&f, mod, "k"));
    int host[256];
    CUdeviceptr d; OK(cuMemAlloc(&d, 4096));
    void *args[] = {&d};
    if (!strcmp(c, "bogus_dtoh")) SHOW("cuMemcpyDtoH(0xdead00000000)", cuMemcpyDtoH(host, 0xdead00000000ULL, 64));
    if (!strcmp(c, "bogus_dtoh")) SHOW("cuMemcpyDtoH(0x1000)", cuMemcpyDtoH(host, 0x1000ULL, 64));
    if (!strcmp(c, "bogus_dtoh")) SHOW("cuMemcpyDtoH(d+1MiB)", cuMemcpyDtoH(host, d + (1 << 20), 64));
    if (!strcmp(c, "bogus_dtoh")) SHOW("cuMemcpyDtoH(d, 8192 > size)", cuMemcpyDtoH(host, d, 8192));
    if (!strcmp(c, "null_dtoh")) SHOW("cuMemcpyDtoH(0)", cuMemcpyDtoH(host, 0, 64));
    if (!strcmp(c, "freed_dtoh")) { CUdeviceptr e; OK(cuMemAlloc(&e, 4096)); OK(cuMemFree(e)); SHOW("cuMemcpyDtoH(freed)", cuMemcpyDtoH(host, e, 64)); }
    if (!strcmp(c, "device999")) { CUdevice x; SHOW("cuDeviceGet(999)", cuDeviceGet(&x, 999)); SHOW("cuDeviceGet(-1)", cuDeviceGet(&x, -1)); }
    if (!strcmp(c, "block2048")) { SHOW("launch 2048 threads", cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, 0, args, nullptr)); SHOW("sync after", cuCtxSynchronize()); }
    if (!strcmp(c, "block1025")) SHOW("launch 1025 threads", cuLaunchKernel(f, 1, 1, 1, 1025, 1, 1, 0, 0, args, nullptr));
    if (!strcmp(c, "destroyed_stream")) {
        CUstream s; OK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING)); OK(cuStreamDestroy(s));
        SHOW("cuStreamQuery(destroyed)", cuStreamQuery(s));
        SHOW("launch on destroyed stream", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s, args, nullptr));
        SHOW("cuStreamSynchronize(destroyed)", cuStreamSynchronize(s));
        SHOW("cuStreamDestroy(destroyed)", cuStreamDestroy(s));
        SHOW("cuCtxSynchronize", cuCtxSynchronize());
    }
    if (!strcmp(c, "other_ctx_stream")) {
        CUcontext c2; OK(cuCtxCreate(&c2, nullptr, 0, dev)); // becomes current
        CUstream s2; OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
        OK(cuCtxSetCurrent(ctx));
        SHOW("launch f(ctx1) on stream(ctx2)", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s2, args, nullptr));
        SHOW("cuCtxSynchronize", cuCtxSynchronize());
        OK(cuCtxSetCurrent(c2)); OK(cuStreamDestroy(s2)); OK(cuCtxDestroy(c2));
    }
    if (!strcmp(c, "dead_ctx_stream")) {
        CUcontext c2; OK(cuCtxCreate(&c2, nullptr, 0, dev));
        CUstream s2; OK(cuStreamCreate(&s2, CU_STREAM_NON_BLOCKING));
        OK(cuCtxDestroy(c2)); OK(cuCtxSetCurrent(ctx));
        SHOW("launch on stream of destroyed ctx", cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, s2, args, nullptr));
        SHOW("cuStreamSynchronize", cuStreamSynchronize(s2));
    }
    if (!strcmp(c, "double_free")) { CUdeviceptr e; OK(cuMemAlloc(&e, 4096)); SHOW("cuMemFree 1", cuMemFree(e)); SHOW("cuMemFree 2", cuMemFree(e)); SHOW("cuMemFree(0)", cuMemFree(0)); }
    if (!strcmp(c, "nope")) { CUfunction g; SHOW("cuModuleGetFunction(nope)", cuModuleGetFunction(&g, mod, "nope")); CUdeviceptr gp; size_t gs; SHOW("cuModuleGetGlobal(nope)", cuModuleGetGlobal(&gp, &gs, mod, "nope")); }
    if (!strcmp(c, "free_null")) SHOW("cuMemFreeHost(null)", cuMemFreeHost(nullptr));
    if (!strcmp(c, "destroyed_event")) { CUevent e; OK(cuEventCreate(&e, 0)); OK(cuEventDestroy(e)); SHOW("cuEventRecord(destroyed)", cuEventRecord(e, 0)); SHOW("cuEventQuery(destroyed)", cuEventQuery(e)); }
    if (!strcmp(c, "null_func")) SHOW("cuLaunchKernel(null func)", cuLaunchKernel(nullptr, 1, 1, 1, 32, 1, 1, 0, 0, args, nullptr));
    if (!strcmp(c, "graph_launch_destroyed")) {
        CUevent e0, e1; OK(cuEventCreate(&e0, 0)); OK(cuEventCreate(&e1, 0));
        float ms = 0; SHOW("cuEventElapsedTime(unrecorded)", cuEventElapsedTime(&ms, e0, e1));
    }
    if (!strcmp(c, "rt_bogus")) { cudaError_t e = cudaMemcpy(host, (void *)0xdead00000000ULL, 64, cudaMemcpyDeviceToHost); printf("%-22s cudaMemcpy D2H bogus -> %d %s\n", c, (int)e, cudaGetErrorName(e)); }
    if (!strcmp(c, "rt_double_free")) { void *p; cudaMalloc(&p, 4096); cudaError_t e1 = cudaFree(p), e2 = cudaFree(p); printf("%-22s cudaFree x2 -> %s %s\n", c, cudaGetErrorName(e1), cudaGetErrorName(e2)); }
    if (!strcmp(c, "proc_address")) {
        // Which ABI does cuGetProcAddress hand out for "cuGraphInstantiate" at each version?
        for (int v : {10000, 11040, 12000, 13000}) {
            void *p = nullptr; CUdriverProcAddressQueryResult st;
            CUresult r = cuGetProcAddress("cuGraphInstantiate", &p, v, 0, &st);
            printf("%-22s cuGetProcAddress(cuGraphInstantiate, %d) -> %s %p; WithFlags is %p, legacy is %p\n", c, v, name(r), p,
                   dlsym(RTLD_DEFAULT, "cuGraphInstantiateWithFlags"), dlsym(RTLD_DEFAULT, "cuGraphInstantiate"));
        }
    }
    if (!strcmp(c, "proc_address")) {
        void *wf = nullptr; CUdriverProcAddressQueryResult st;
        cuGetProcAddress("cuGraphInstantiateWithFlags", &wf, 11040, 0, &st);
        printf("%-22s cuGetProcAddress(cuGraphInstantiateWithFlags, 11040) = %p\n", c, wf);
        // Call what "cuGraphInstantiate"@11040 returns with the legacy 5-argument shape and a
        // valid log buffer: the legacy ABI writes the log (at least its NUL), the 3-argument
        // ABI ignores the extra arguments.
        void *p = nullptr;
        cuGetProcAddress("cuGraphInstantiate", &p, 11040, 0, &st);
        typedef CUresult (*Legacy)(CUgraphExec *, CUgraph, CUgraphNode *, char *, size_t);
        CUgraph g; OK(cuGraphCreate(&g, 0));
        char log[64]; memset(log, 'X', sizeof log);
        CUgraphExec ex = nullptr;
        CUresult r = ((Legacy)p)(&ex, g, nullptr, log, sizeof log);
        printf("%-22s legacy-shaped call -> %s; log[0..4] = %02x %02x %02x %02x (58 = untouched)\n", c, name(r),
               (unsigned char)log[0], (unsigned char)log[1], (unsigned char)log[2], (unsigned char)log[3]);
        memset(log, 'X', sizeof log);
        r = ((Legacy)dlsym(RTLD_DEFAULT, "cuGraphInstantiate"))(&ex, g, nullptr, log, sizeof log);
        printf("%-22s exported legacy cuGraphInstantiate -> %s; log[0..4] = %02x %02x %02x %02x\n", c, name(r),
               (unsigned char)log[0], (unsigned char)log[1], (unsigned char)log[2], (unsigned char)log[3]);
    }
    printf("%-22s done\n", c);
    return 0;
}
#endif

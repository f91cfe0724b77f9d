/* A differential fuzzer for bad input through CUDA's C ABI (docs/bad-input.md, "The C ABI under a
 * differential fuzzer").
 *
 * It opens libcuda.so.1, libcudart.so.13 and libnvrtc.so.13 by soname, so LD_LIBRARY_PATH decides
 * whose they are (NVIDIA's, or anycuda's `anycuda libdir`), and runs numbered cases. A case is a
 * short random sequence of calls, drawn from a table of functions with an argument generator
 * each; an argument is drawn from a class: a valid handle (one the case created, or one the
 * batch created before the case), NULL, dangling (destroyed earlier), made-up bits, a handle of
 * another kind, out-of-range enum values, sizes 0 / huge / misaligned, flags with unknown bits.
 * Everything the sequence draws depends on the seed and the case number only, never on what a
 * call returned, so two runs with one seed (NVIDIA's libraries, anycuda's CUDA backend, anycuda's
 * HIP backend) make the same calls with the same argument classes, and their logs compare call by
 * call (compare.py).
 *
 * Cases run in batches, each batch in a forked child (CUDA cannot be used across fork, so the
 * parent never loads the libraries). A crash (a signal, or exit from inside a call) ends the
 * child: the parent writes the call it was in as CRASH(SIGNAL) and starts a new child at the next
 * case. A call that makes no progress for --timeout seconds is killed and written as TIMEOUT.
 *
 * Excluded by design, because they are undefined behaviour on NVIDIA's own libraries and can
 * corrupt the process rather than fail: made-up or dangling HOST pointers where a library reads
 * or writes host memory (host buffers are NULL or real and large enough for every size drawn;
 * "dangling" applies to handles and device pointers only), host function pointers that are not
 * functions, counts larger than the array passed with them, a second destroy of a handle whose
 * destroy frees host memory (streams, events, modules, programs...), managed memory of more than
 * a few MB, cuMulticastCreate, NCCL.
 *
 * Log: one line per call, "CASE STEP FUNCTION CLASSES RESULT", RESULT an integer code, "ptr" or
 * "null" (functions returning a string), ABSENT (symbol missing), CRASH(SIG...), TIMEOUT or
 * EXIT(n). Lines starting with '#' are comments.
 *
 *   fuzz [-s SEED] [-n CASES] [-f FIRST] [-b BATCH] [-t TIMEOUT_S] [-T TIME_LIMIT_S]
 *        [-m MINSTEPS] [-M MAXSTEPS] [-w NAME=WEIGHT]... [-l] -o LOG
 *   -l lists the functions and weights and exits. */
#define _GNU_SOURCE
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <nvrtc.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STR_(x) #x
#define STR(x) STR_(x)

/* ---- symbols: resolved by name in the library of their API ------------------------------- */
enum { LIB_CUDA, LIB_CUDART, LIB_NVRTC, NLIB };
static const char *const SONAME[NLIB] = {"libcuda.so.1", "libcudart.so.13", "libnvrtc.so.13"};

/* X(lib, name): every function the fuzzer calls. `name` is the header's name; the symbol is what
 * the header maps it to (cuMemAlloc -> cuMemAlloc_v2), and its type is the header's. */
#define SYMBOLS(X)                                                                               \
    X(LIB_CUDA, cuInit) X(LIB_CUDA, cuDriverGetVersion) X(LIB_CUDA, cuDeviceGet)                 \
    X(LIB_CUDA, cuDeviceGetCount) X(LIB_CUDA, cuDeviceGetName) X(LIB_CUDA, cuDeviceGetAttribute) \
    X(LIB_CUDA, cuDeviceTotalMem) X(LIB_CUDA, cuDeviceGetUuid) X(LIB_CUDA, cuDeviceGetLuid)      \
    X(LIB_CUDA, cuDeviceCanAccessPeer) X(LIB_CUDA, cuDeviceGetP2PAttribute)                      \
    X(LIB_CUDA, cuDevicePrimaryCtxRetain) X(LIB_CUDA, cuDevicePrimaryCtxRelease)                 \
    X(LIB_CUDA, cuDevicePrimaryCtxGetState) X(LIB_CUDA, cuDevicePrimaryCtxSetFlags)              \
    X(LIB_CUDA, cuCtxCreate) X(LIB_CUDA, cuCtxDestroy) X(LIB_CUDA, cuCtxSetCurrent)              \
    X(LIB_CUDA, cuCtxGetCurrent) X(LIB_CUDA, cuCtxPushCurrent) X(LIB_CUDA, cuCtxPopCurrent)      \
    X(LIB_CUDA, cuCtxSynchronize) X(LIB_CUDA, cuCtxGetDevice) X(LIB_CUDA, cuCtxGetApiVersion)    \
    X(LIB_CUDA, cuCtxGetFlags) X(LIB_CUDA, cuCtxSetFlags) X(LIB_CUDA, cuCtxGetId)                \
    X(LIB_CUDA, cuCtxSetLimit) X(LIB_CUDA, cuCtxGetLimit) X(LIB_CUDA, cuCtxGetStreamPriorityRange) \
    X(LIB_CUDA, cuCtxEnablePeerAccess) X(LIB_CUDA, cuCtxRecordEvent)                             \
    X(LIB_CUDA, cuMemAlloc) X(LIB_CUDA, cuMemFree) X(LIB_CUDA, cuMemGetInfo)                     \
    X(LIB_CUDA, cuMemGetAddressRange) X(LIB_CUDA, cuMemAllocPitch) X(LIB_CUDA, cuMemAllocManaged) \
    X(LIB_CUDA, cuMemHostAlloc) X(LIB_CUDA, cuMemFreeHost) X(LIB_CUDA, cuMemHostGetDevicePointer) \
    X(LIB_CUDA, cuMemHostGetFlags) X(LIB_CUDA, cuMemcpyHtoD) X(LIB_CUDA, cuMemcpyDtoH)           \
    X(LIB_CUDA, cuMemcpyDtoD) X(LIB_CUDA, cuMemcpyHtoDAsync) X(LIB_CUDA, cuMemcpyDtoHAsync)      \
    X(LIB_CUDA, cuMemcpyDtoDAsync) X(LIB_CUDA, cuMemsetD8) X(LIB_CUDA, cuMemsetD32)              \
    X(LIB_CUDA, cuMemsetD8Async) X(LIB_CUDA, cuMemsetD2D8) X(LIB_CUDA, cuMemAllocAsync)          \
    X(LIB_CUDA, cuMemFreeAsync) X(LIB_CUDA, cuPointerGetAttribute) X(LIB_CUDA, cuPointerGetAttributes) \
    X(LIB_CUDA, cuMemGetAllocationGranularity) X(LIB_CUDA, cuMemCreate) X(LIB_CUDA, cuMemRelease) \
    X(LIB_CUDA, cuDeviceGetDefaultMemPool) X(LIB_CUDA, cuMemPoolGetAttribute)                    \
    X(LIB_CUDA, cuMemPoolSetAttribute) X(LIB_CUDA, cuMemPoolTrimTo)                              \
    X(LIB_CUDA, cuStreamCreate) X(LIB_CUDA, cuStreamCreateWithPriority) X(LIB_CUDA, cuStreamDestroy) \
    X(LIB_CUDA, cuStreamSynchronize) X(LIB_CUDA, cuStreamQuery) X(LIB_CUDA, cuStreamWaitEvent)   \
    X(LIB_CUDA, cuStreamGetPriority) X(LIB_CUDA, cuStreamGetFlags) X(LIB_CUDA, cuStreamGetCtx)   \
    X(LIB_CUDA, cuStreamGetId) X(LIB_CUDA, cuStreamBeginCapture) X(LIB_CUDA, cuStreamEndCapture) \
    X(LIB_CUDA, cuStreamIsCapturing) X(LIB_CUDA, cuLaunchHostFunc)                               \
    X(LIB_CUDA, cuEventCreate) X(LIB_CUDA, cuEventDestroy) X(LIB_CUDA, cuEventRecord)            \
    X(LIB_CUDA, cuEventRecordWithFlags) X(LIB_CUDA, cuEventQuery) X(LIB_CUDA, cuEventSynchronize) \
    X(LIB_CUDA, cuEventElapsedTime) X(LIB_CUDA, cuModuleLoadData) X(LIB_CUDA, cuModuleLoadDataEx) \
    X(LIB_CUDA, cuModuleUnload) X(LIB_CUDA, cuModuleGetFunction) X(LIB_CUDA, cuModuleGetGlobal)  \
    X(LIB_CUDA, cuModuleGetLoadingMode) X(LIB_CUDA, cuLaunchKernel) X(LIB_CUDA, cuFuncGetAttribute) \
    X(LIB_CUDA, cuFuncSetAttribute) X(LIB_CUDA, cuFuncSetCacheConfig) X(LIB_CUDA, cuFuncGetName) \
    X(LIB_CUDA, cuOccupancyMaxActiveBlocksPerMultiprocessor) X(LIB_CUDA, cuLibraryLoadData)      \
    X(LIB_CUDA, cuLibraryUnload) X(LIB_CUDA, cuLibraryGetKernel) X(LIB_CUDA, cuLibraryGetModule) \
    X(LIB_CUDA, cuKernelGetFunction) X(LIB_CUDA, cuKernelGetAttribute) X(LIB_CUDA, cuKernelGetName) \
    X(LIB_CUDA, cuGraphCreate) X(LIB_CUDA, cuGraphDestroy) X(LIB_CUDA, cuGraphAddEmptyNode)      \
    X(LIB_CUDA, cuGraphGetNodes) X(LIB_CUDA, cuGraphInstantiate) X(LIB_CUDA, cuGraphLaunch)      \
    X(LIB_CUDA, cuGraphExecDestroy) X(LIB_CUDA, cuGetErrorName) X(LIB_CUDA, cuGetErrorString)    \
    X(LIB_CUDA, cuGetProcAddress)                                                                \
    X(LIB_CUDART, cudaGetDeviceCount) X(LIB_CUDART, cudaGetDevice) X(LIB_CUDART, cudaSetDevice)  \
    X(LIB_CUDART, cudaGetDeviceProperties) X(LIB_CUDART, cudaDeviceGetAttribute)                 \
    X(LIB_CUDART, cudaDeviceSynchronize) X(LIB_CUDART, cudaDeviceGetLimit) X(LIB_CUDART, cudaDeviceSetLimit) \
    X(LIB_CUDART, cudaDeviceGetStreamPriorityRange) X(LIB_CUDART, cudaSetDeviceFlags)            \
    X(LIB_CUDART, cudaGetDeviceFlags) X(LIB_CUDART, cudaDeviceCanAccessPeer)                     \
    X(LIB_CUDART, cudaDeviceEnablePeerAccess) X(LIB_CUDART, cudaGetLastError)                    \
    X(LIB_CUDART, cudaPeekAtLastError) X(LIB_CUDART, cudaGetErrorName) X(LIB_CUDART, cudaGetErrorString) \
    X(LIB_CUDART, cudaDriverGetVersion) X(LIB_CUDART, cudaRuntimeGetVersion)                     \
    X(LIB_CUDART, cudaMalloc) X(LIB_CUDART, cudaFree) X(LIB_CUDART, cudaMallocHost)              \
    X(LIB_CUDART, cudaFreeHost) X(LIB_CUDART, cudaHostAlloc) X(LIB_CUDART, cudaMallocManaged)    \
    X(LIB_CUDART, cudaMemGetInfo) X(LIB_CUDART, cudaMemcpy) X(LIB_CUDART, cudaMemcpyAsync)       \
    X(LIB_CUDART, cudaMemset) X(LIB_CUDART, cudaMemsetAsync) X(LIB_CUDART, cudaPointerGetAttributes) \
    X(LIB_CUDART, cudaStreamCreate) X(LIB_CUDART, cudaStreamCreateWithFlags)                     \
    X(LIB_CUDART, cudaStreamCreateWithPriority) X(LIB_CUDART, cudaStreamDestroy)                 \
    X(LIB_CUDART, cudaStreamSynchronize) X(LIB_CUDART, cudaStreamQuery) X(LIB_CUDART, cudaStreamWaitEvent) \
    X(LIB_CUDART, cudaStreamGetPriority) X(LIB_CUDART, cudaStreamGetFlags)                       \
    X(LIB_CUDART, cudaStreamBeginCapture) X(LIB_CUDART, cudaStreamEndCapture)                    \
    X(LIB_CUDART, cudaStreamIsCapturing) X(LIB_CUDART, cudaEventCreate)                          \
    X(LIB_CUDART, cudaEventCreateWithFlags) X(LIB_CUDART, cudaEventDestroy) X(LIB_CUDART, cudaEventRecord) \
    X(LIB_CUDART, cudaEventQuery) X(LIB_CUDART, cudaEventSynchronize) X(LIB_CUDART, cudaEventElapsedTime) \
    X(LIB_CUDART, cudaFuncGetAttributes) X(LIB_CUDART, cudaLaunchKernel)                         \
    X(LIB_CUDART, cudaOccupancyMaxActiveBlocksPerMultiprocessor) X(LIB_CUDART, cudaGraphCreate)  \
    X(LIB_CUDART, cudaGraphDestroy) X(LIB_CUDART, cudaGraphInstantiate) X(LIB_CUDART, cudaGraphLaunch) \
    X(LIB_CUDART, cudaGraphExecDestroy)                                                          \
    X(LIB_NVRTC, nvrtcVersion) X(LIB_NVRTC, nvrtcGetNumSupportedArchs) X(LIB_NVRTC, nvrtcGetSupportedArchs) \
    X(LIB_NVRTC, nvrtcCreateProgram) X(LIB_NVRTC, nvrtcDestroyProgram) X(LIB_NVRTC, nvrtcCompileProgram) \
    X(LIB_NVRTC, nvrtcGetPTXSize) X(LIB_NVRTC, nvrtcGetPTX) X(LIB_NVRTC, nvrtcGetCUBINSize)      \
    X(LIB_NVRTC, nvrtcGetCUBIN) X(LIB_NVRTC, nvrtcGetLTOIRSize) X(LIB_NVRTC, nvrtcGetProgramLogSize) \
    X(LIB_NVRTC, nvrtcGetProgramLog) X(LIB_NVRTC, nvrtcAddNameExpression) X(LIB_NVRTC, nvrtcGetLoweredName) \
    X(LIB_NVRTC, nvrtcGetErrorString) X(LIB_NVRTC, nvrtcGetPCHHeapSize)

#define DECLARE(lib, name) static __typeof__(name) *p_##name;
SYMBOLS(DECLARE)
#undef DECLARE
struct sym {
    int lib;
    const char *name;
    void **slot;
};
#define ROW(lib, name) {lib, STR(name), (void **)&p_##name},
static const struct sym SYMS[] = {SYMBOLS(ROW)};
#undef ROW
#define NSYMS (sizeof SYMS / sizeof SYMS[0])

/* ---- shared with the parent: where the child is, and the kernel image ----------------------- */
#define IMAGE_MAX (1 << 20)
struct shared {
    volatile unsigned long progress; /* bumped before and after every call */
    volatile int ccase, step, in_call, batch_done;
    char fn[80];
    char cls[480];
    size_t image_len;
    int image_binary; /* 1: an ELF or other binary image (hipRTC's code object), not PTX text */
    char image_from[64];
    char libs[NLIB][256]; /* the file each soname's first symbol came from */
    unsigned char image[IMAGE_MAX];
};
static struct shared *SH;
static int LOGFD = -1;

/* ---- deterministic random numbers: one stream per case --------------------------------------- */
static uint64_t RS;
static uint64_t rnd(void) {
    uint64_t z = (RS += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}
static unsigned pick(unsigned n) { return n ? (unsigned)(rnd() % n) : 0; }

/* ---- argument classes ------------------------------------------------------------------------ */
static char CLS[480];
static size_t CLSN;
static void cls(const char *arg, const char *c) {
    int n = snprintf(CLS + CLSN, sizeof CLS - CLSN, "%s%s=%s", CLSN ? "," : "", arg, c);
    if (n > 0 && (size_t)n < sizeof CLS - CLSN) CLSN += (size_t)n;
}

/* Handle kinds. Each case keeps the objects it created (in order, for the cleanup) and the
 * values it destroyed; the batch keeps one live object of each kind (created before the first
 * case, never destroyed by a case) and one dangling value of each kind. */
enum kind { K_CTX, K_STREAM, K_EVENT, K_MOD, K_FUNC, K_DPTR, K_HOST, K_PROG, K_GRAPH, K_GEXEC,
            K_NODE, K_LIB, K_KERNEL, K_POOL, K_MEMH, K_CAPTURE, NKIND };
static const char *const KNAME[NKIND] = {"ctx", "stream", "event", "module", "function", "dptr",
    "host", "program", "graph", "graphexec", "node", "library", "kernel", "pool", "memhandle",
    "capture"};
/* A second destroy is only drawn where the library looks the value up before freeing anything:
 * device and pinned-host pointers (and generic allocation handles, which are ids). */
static const int DOUBLE_DESTROY_OK[NKIND] = {[K_DPTR] = 1, [K_HOST] = 1, [K_MEMH] = 1};
/* Another kind's handle passed as this kind: the kind it is taken from. */
static const int WRONG_OF[NKIND] = {[K_CTX] = K_STREAM, [K_STREAM] = K_EVENT, [K_EVENT] = K_STREAM,
    [K_MOD] = K_FUNC, [K_FUNC] = K_MOD, [K_DPTR] = -1, [K_HOST] = -1, [K_PROG] = K_STREAM,
    [K_GRAPH] = K_GEXEC, [K_GEXEC] = K_GRAPH, [K_NODE] = K_GRAPH, [K_LIB] = K_KERNEL,
    [K_KERNEL] = K_LIB, [K_POOL] = K_STREAM, [K_MEMH] = -1, [K_CAPTURE] = -1};

enum dtor { D_NONE, D_CTX, D_STREAM, D_RTSTREAM, D_EVENT, D_RTEVENT, D_MOD, D_DPTR, D_RTDPTR,
            D_HOST, D_RTHOST, D_PROG, D_GRAPH, D_RTGRAPH, D_GEXEC, D_RTGEXEC, D_LIB, D_MEMH,
            D_CAPTURE, D_RTCAPTURE };
#define MAXOBJ 96
struct obj {
    int kind, dtor, alive, parent;
    uint64_t v;
};
static struct obj OBJ[MAXOBJ];
static int NOBJ;
static uint64_t DEAD[NKIND][16];
static int NDEAD[NKIND];
static uint64_t BASE[NKIND], BASE_DEAD[NKIND];

static int new_obj(int kind, int dtor, uint64_t v, int parent) {
    if (NOBJ >= MAXOBJ) return -1;
    OBJ[NOBJ] = (struct obj){kind, dtor, 1, parent, v};
    return NOBJ++;
}
static void mark_dead(int i) {
    if (i < 0 || !OBJ[i].alive) return;
    OBJ[i].alive = 0;
    int k = OBJ[i].kind;
    if (NDEAD[k] < 16) DEAD[k][NDEAD[k]++] = OBJ[i].v;
    for (int j = i + 1; j < NOBJ; j++)
        if (OBJ[j].parent == i) mark_dead(j);
}
static int count_alive(int kind) {
    int n = 0;
    for (int i = 0; i < NOBJ; i++) n += OBJ[i].alive && OBJ[i].kind == kind;
    return n;
}
static int nth_alive(int kind, unsigned n) {
    for (int i = 0; i < NOBJ; i++)
        if (OBJ[i].alive && OBJ[i].kind == kind && n-- == 0) return i;
    return -1;
}

/* Class weights (percent of draws), overridable with -p V,N,D,M,W. */
static unsigned PV = 55, PN = 12, PD = 10, PM = 14, PW = 9;

/* Made-up bits. Class names: M... for a handle (undefined behaviour on NVIDIA's libraries, which
 * may dereference it), B... for a device pointer (which NVIDIA's driver looks up). */
static uint64_t made_up(int avoid_small, int dptr, const char **c) {
    static const char *const H[] = {"M1", "M16", "Mneg", "Mr", "Mk", "Mdead"};
    static const char *const P[] = {"B1", "B16", "Bneg", "Br", "Bk", "Bdead"};
    const char *const *n = dptr ? P : H;
    switch (pick(5)) {
    case 0:
        if (!avoid_small) { *c = n[0]; return 1; }
        *c = n[1]; return 16;
    case 1: *c = n[2]; return ~0ULL;
    case 2: *c = n[3]; return (rnd() & 0x00007ffffffff000ULL) | 0x100000000ULL; /* user space */
    case 3: *c = n[4]; return rnd() | 0x8000000000000000ULL; /* non-canonical */
    default: *c = n[5]; return 0xdeadbeef0000ULL;
    }
}

/* A handle of `kind` for an argument that uses it. `destroying`: the argument of a destroy call
 * (valid = one of the case's own objects, which the call then destroys; no second destroy of a
 * kind whose destroy frees host memory; no handle of another kind). *which gets the object index
 * (valid own object) or -1. */
static int LAST_WHICH, LAST_VALID; /* of the last handle drawn: own object index, valid class */
static uint64_t FAKE_OBJ[8192];
static uint64_t handle(const char *arg, int kind, int destroying, int *which) {
    int own = count_alive(kind);
    unsigned wv = destroying && own == 0 ? 0 : PV, wn = PN, wm = PM;
    unsigned wd = destroying && !DOUBLE_DESTROY_OK[kind] ? 0 : PD;
    unsigned ww = destroying || WRONG_OF[kind] < 0 ? 0 : PW;
    if (which) *which = -1;
    LAST_WHICH = -1;
    if (wv + wn + wd + wm + ww == 0) wn = 1; /* -p left nothing for this argument */
    unsigned r = pick(wv + wn + wd + wm + ww);
    LAST_VALID = r < wv;
    if (r < wv) {
        unsigned i = pick(destroying ? (unsigned)own : (unsigned)own + 1);
        if ((int)i < own) {
            int o = nth_alive(kind, i);
            if (which) *which = o;
            LAST_WHICH = o;
            cls(arg, "V");
            return OBJ[o].v;
        }
        cls(arg, "Vb");
        return BASE[kind];
    }
    r -= wv;
    if (r < wn) {
        cls(arg, "N");
        return 0;
    }
    r -= wn;
    if (r < wd) {
        unsigned i = pick((unsigned)NDEAD[kind] + 1);
        cls(arg, "D");
        return (int)i < NDEAD[kind] ? DEAD[kind][i] : BASE_DEAD[kind];
    }
    r -= wd;
    if (r < wm) {
        const char *c;
        uint64_t v = made_up(kind == K_STREAM, 0, &c);
        cls(arg, c);
        return v;
    }
    cls(arg, "W");
    /* NVRTC's programs are heap objects it writes to: another kind for it is a zeroed block of
     * our own, never a driver object NVIDIA's NVRTC would scribble over. */
    if (kind == K_PROG) return (uintptr_t)FAKE_OBJ;
    return BASE[WRONG_OF[kind]];
}
/* Streams: the handle classes, plus CUDA's special handles 0 (N), 0x1 (legacy) and 0x2 (per-thread). */
static CUstream stream_arg(const char *arg) {
    switch (pick(10)) {
    case 0: cls(arg, "L"); LAST_WHICH = -1; LAST_VALID = 0; return (CUstream)0x1;
    case 1: cls(arg, "P"); LAST_WHICH = -1; LAST_VALID = 0; return (CUstream)0x2;
    default: return (CUstream)(uintptr_t)handle(arg, K_STREAM, 0, NULL);
    }
}

/* Device pointers: valid (own or the batch's 1 MiB), interior (+256), unaligned (+1), NULL,
 * freed (F), made-up (B...). Never a host pointer: a device-pointer argument that is host memory
 * is a host access on NVIDIA (UVA). */
static CUdeviceptr dptr_arg(const char *arg) {
    unsigned r = pick(100);
    if (r < 55) {
        int own = count_alive(K_DPTR);
        unsigned i = pick((unsigned)own + 1);
        uint64_t v = (int)i < own ? OBJ[nth_alive(K_DPTR, i)].v : BASE[K_DPTR];
        switch (pick(6)) {
        case 0: cls(arg, "I"); return v ? v + 256 : 0;
        case 1: cls(arg, "U"); return v ? v + 1 : 0;
        default: cls(arg, (int)i < own ? "V" : "Vb"); return v;
        }
    }
    if (r < 67) { cls(arg, "N"); return 0; }
    if (r < 82) {
        unsigned i = pick((unsigned)NDEAD[K_DPTR] + 1);
        cls(arg, "F");
        return (int)i < NDEAD[K_DPTR] ? DEAD[K_DPTR][i] : BASE_DEAD[K_DPTR];
    }
    const char *c;
    uint64_t v = made_up(0, 1, &c);
    cls(arg, c);
    return v;
}

/* Host memory: two static 4 MiB buffers. Every size drawn for a copy that can reach host memory
 * is at most 2 MiB unless the device side is checked first (device allocations are at most
 * 2 MiB, so a larger size is refused before any host byte moves). */
#define HOSTBUF (4u << 20)
static unsigned char *HIN, *HOUT;
static void *host_in(const char *arg) {
    if (pick(6) == 0) { cls(arg, "N"); return NULL; }
    cls(arg, "V");
    return HIN;
}
static void *host_out(const char *arg) {
    if (pick(6) == 0) { cls(arg, "N"); return NULL; }
    cls(arg, "V");
    return HOUT;
}
/* An out-parameter: a real variable or NULL. */
#define OUT(arg, var) (pick(7) == 0 ? (cls(arg, "N"), NULL) : (cls(arg, "V"), &(var)))

/* Sizes of a copy or set: 0, small, odd, 1 MiB, 1 MiB + 1, 2 MiB, then huge (only where the
 * device side is checked first: `huge_ok`). */
static size_t copy_size(const char *arg, int huge_ok) {
    static const size_t S[] = {0, 1, 7, 4096, 1u << 20, (1u << 20) + 1, 2u << 20};
    static const char *const C[] = {"0", "1", "odd", "4K", "1M", "1M+1", "2M"};
    unsigned n = huge_ok ? 10 : 7, i = pick(n);
    if (i < 7) { cls(arg, C[i]); return S[i]; }
    if (i == 7) { cls(arg, "huge"); return 1ULL << 44; }
    if (i == 8) { cls(arg, "max"); return SIZE_MAX; }
    cls(arg, "max/2"); return SIZE_MAX / 2;
}
/* Sizes of an allocation: none of them succeeds above 2 MiB (1 << 44 fails everywhere). */
static size_t alloc_size(const char *arg) {
    static const size_t S[] = {0, 1, 4096, 1000003, 1u << 20, 2u << 20, 1ULL << 44, SIZE_MAX,
                               SIZE_MAX - 4095};
    static const char *const C[] = {"0", "1", "4K", "odd", "1M", "2M", "huge", "max", "max-4K"};
    unsigned i = pick(9);
    cls(arg, C[i]);
    return S[i];
}
/* Managed and pinned-host sizes: small, or the ones that can never succeed. */
static size_t small_size(const char *arg) {
    static const size_t S[] = {0, 1, 4096, 65536, 1u << 20, SIZE_MAX, SIZE_MAX - 4095};
    static const char *const C[] = {"0", "1", "4K", "64K", "1M", "max", "max-4K"};
    unsigned i = pick(7);
    cls(arg, C[i]);
    return S[i];
}
/* An enum argument: a value in [lo, hi] (some may be gaps), or out of range. */
static int enum_arg(const char *arg, int lo, int hi) {
    switch (pick(8)) {
    case 0: cls(arg, "-1"); return -1;
    case 1: cls(arg, "MAX"); return INT_MAX;
    case 2: cls(arg, "MIN"); return INT_MIN;
    case 3: cls(arg, "hi+1"); return hi + 1;
    default: cls(arg, "v"); return lo + (int)pick((unsigned)(hi - lo + 1));
    }
}
/* Flags: 0, a subset of the valid bits, an unknown bit, all bits. */
static unsigned flags_arg(const char *arg, unsigned valid) {
    switch (pick(6)) {
    case 0: case 1: cls(arg, "0"); return 0;
    case 2: case 3: cls(arg, "v"); return valid ? (unsigned)rnd() & valid : 0;
    case 4: {
        unsigned unknown = ~valid, b;
        do b = 1u << pick(32); while (!(b & unknown));
        cls(arg, "u");
        return b;
    }
    default: cls(arg, "all"); return ~0u;
    }
}
/* A device ordinal: 0, 1 (valid only with two GPUs), -1, INT_MAX, 4096. */
static int dev_arg(const char *arg) {
    switch (pick(8)) {
    case 0: cls(arg, "-1"); return -1;
    case 1: cls(arg, "MAX"); return INT_MAX;
    case 2: cls(arg, "1"); return 1;
    case 3: cls(arg, "4096"); return 4096;
    default: cls(arg, "0"); return 0;
    }
}
static int int_arg(const char *arg, int valid) {
    switch (pick(6)) {
    case 0: cls(arg, "0"); return 0;
    case 1: cls(arg, "-1"); return -1;
    case 2: cls(arg, "MAX"); return INT_MAX;
    case 3: cls(arg, "MIN"); return INT_MIN;
    default: cls(arg, "v"); return valid;
    }
}
static const char *name_arg(const char *arg, const char *good) {
    switch (pick(6)) {
    case 0: cls(arg, "N"); return NULL;
    case 1: cls(arg, "empty"); return "";
    case 2: cls(arg, "unknown"); return "no_such_symbol";
    default: cls(arg, "V"); return good;
    }
}

/* Module images: the kernel the batch compiled (or the fallback PTX), NULL, empty, garbage
 * bytes, truncated PTX (text: NUL-terminated, so the library reads no further). A truncated
 * binary image is never drawn: cuModuleLoadData takes no size, and a cut ELF makes the library
 * read past the buffer. */
static const char FALLBACK_PTX[] =
    ".version 7.8\n.target sm_75\n.address_size 64\n"
    ".visible .global .align 4 .u32 g;\n"
    ".visible .entry k(.param .u32 k_param_0)\n{\n\tret;\n}\n";
static char TRUNC_PTX[sizeof FALLBACK_PTX];
static unsigned char GARBAGE[4097];
static const void *image_arg(const char *arg) {
    switch (pick(10)) {
    case 0: cls(arg, "N"); return NULL;
    case 1: cls(arg, "empty"); return "";
    case 2: cls(arg, "garbage"); return GARBAGE;
    case 3: cls(arg, "trunc"); return TRUNC_PTX;
    default: cls(arg, "V"); return SH->image_len ? (const void *)SH->image : FALLBACK_PTX;
    }
}

/* ---- one call --------------------------------------------------------------------------- */
static int CASE, STEP;
static unsigned long NCALLS;
static void logline(const char *fn, const char *result) {
    char buf[700];
    int n = snprintf(buf, sizeof buf, "%d %d %s %s %s\n", CASE, STEP, fn, CLSN ? CLS : "-", result);
    if (n > (int)sizeof buf - 1) n = (int)sizeof buf - 1;
    ssize_t w = write(LOGFD, buf, (size_t)n);
    (void)w;
}
static void begin(const char *fn) {
    snprintf(SH->fn, sizeof SH->fn, "%s", fn);
    snprintf(SH->cls, sizeof SH->cls, "%s", CLSN ? CLS : "-");
    SH->ccase = CASE;
    SH->step = STEP;
    SH->in_call = 1;
    SH->progress++;
}
static void end_code(const char *fn, long long code) {
    SH->in_call = 0;
    SH->progress++;
    char r[32];
    snprintf(r, sizeof r, "%lld", code);
    logline(fn, r);
    STEP++;
    NCALLS++;
    CLSN = 0;
    CLS[0] = 0;
}
static void end_ptr(const char *fn, const void *p) {
    SH->in_call = 0;
    SH->progress++;
    logline(fn, p ? "ptr" : "null");
    STEP++;
    NCALLS++;
    CLSN = 0;
    CLS[0] = 0;
}
static void absent(const char *fn) {
    logline(fn, "ABSENT");
    STEP++;
    CLSN = 0;
    CLS[0] = 0;
}
/* R(name, args...): call and log; the result is in RC. RP: a function returning a string. */
static long long RC;
#define R(name, ...)                                                                             \
    do {                                                                                         \
        if (!p_##name) { absent(STR(name)); RC = -1; break; }                                    \
        begin(STR(name));                                                                        \
        RC = (long long)p_##name(__VA_ARGS__);                                                   \
        end_code(STR(name), RC);                                                                 \
    } while (0)
#define RP(name, ...)                                                                            \
    do {                                                                                         \
        if (!p_##name) { absent(STR(name)); break; }                                             \
        begin(STR(name));                                                                        \
        const void *p_ = (const void *)p_##name(__VA_ARGS__);                                    \
        end_ptr(STR(name), p_);                                                                  \
    } while (0)
/* Silent calls (the batch's own objects): not logged, but a crash in one is reported. */
#define Q(name, ...) (p_##name ? (begin("setup:" STR(name)), RC = (long long)p_##name(__VA_ARGS__), SH->in_call = 0, SH->progress++, RC) : -1)

/* Records an object created by an out-parameter that was drawn valid. */
static void created(int kind, int dtor, void *outp, uint64_t v, int parent) {
    if (outp) new_obj(kind, dtor, v, parent);
}
/* After a destroy call on a valid own object: gone, whatever the call answered (so the sequence
 * never depends on results). */
static void destroyed(int which) { mark_dead(which); }

/* ---- the operations ------------------------------------------------------------------------ */
static void noop_host_fn(void *u) { (void)u; }
static int INTVAL = 7;
static unsigned char SCRATCH[1 << 16] __attribute__((aligned(64)));
static char STRBUF[256];

/* Driver: init, versions, devices */
static void op_cuInit(void) { unsigned f = flags_arg("flags", 0); R(cuInit, f); }
static void op_cuDriverGetVersion(void) { int v; int *o = OUT("v", v); R(cuDriverGetVersion, o); }
static void op_cuDeviceGet(void) {
    CUdevice d; CUdevice *o = OUT("dev", d); int ord = dev_arg("ordinal"); R(cuDeviceGet, o, ord);
}
static void op_cuDeviceGetCount(void) { int n; int *o = OUT("n", n); R(cuDeviceGetCount, o); }
static void op_cuDeviceGetName(void) {
    char *buf = pick(6) ? (cls("name", "V"), STRBUF) : (cls("name", "N"), NULL);
    int len;
    if (buf) {
        static const int L[] = {0, 1, 256};
        unsigned i = pick(3);
        len = L[i];
        cls("len", i == 0 ? "0" : i == 1 ? "1" : "buf");
    } else {
        len = int_arg("len", 256);
    }
    int dev = dev_arg("dev");
    R(cuDeviceGetName, buf, len, dev);
}
static void op_cuDeviceGetAttribute(void) {
    int v; int *o = OUT("v", v); int a = enum_arg("attr", 1, 150); int d = dev_arg("dev");
    R(cuDeviceGetAttribute, o, (CUdevice_attribute)a, d);
}
static void op_cuDeviceTotalMem(void) { size_t v; size_t *o = OUT("bytes", v); int d = dev_arg("dev"); R(cuDeviceTotalMem, o, d); }
static void op_cuDeviceGetUuid(void) { CUuuid u; CUuuid *o = OUT("uuid", u); int d = dev_arg("dev"); R(cuDeviceGetUuid, o, d); }
static void op_cuDeviceGetLuid(void) {
    char l[8]; unsigned m; char *o = pick(7) ? (cls("luid", "V"), l) : (cls("luid", "N"), NULL);
    unsigned *om = OUT("mask", m); int d = dev_arg("dev"); R(cuDeviceGetLuid, o, om, d);
}
static void op_cuDeviceCanAccessPeer(void) {
    int v; int *o = OUT("v", v); int a = dev_arg("dev"); int b = dev_arg("peer"); R(cuDeviceCanAccessPeer, o, a, b);
}
static void op_cuDeviceGetP2PAttribute(void) {
    int v; int *o = OUT("v", v); int at = enum_arg("attr", 1, 5); int a = dev_arg("src"); int b = dev_arg("dst");
    R(cuDeviceGetP2PAttribute, o, (CUdevice_P2PAttribute)at, a, b);
}
static void op_cuDevicePrimaryCtxRetain(void) {
    CUcontext c = 0; CUcontext *o = OUT("ctx", c); int d = dev_arg("dev"); R(cuDevicePrimaryCtxRetain, o, d);
    /* balanced by the op below when drawn; an unbalanced retain keeps the context alive */
}
static void op_cuDevicePrimaryCtxRelease(void) {
    /* Only the batch's extra reference can be dropped safely; with any other device this is an
     * error. Drawn rarely: dropping the last reference destroys the primary context. */
    int d = dev_arg("dev"); R(cuDevicePrimaryCtxRelease, d);
    if (RC == 0 && p_cuDevicePrimaryCtxRetain) { CUcontext c; Q(cuDevicePrimaryCtxRetain, &c, d); }
}
static void op_cuDevicePrimaryCtxGetState(void) {
    unsigned f; int a; int d = dev_arg("dev"); unsigned *of = OUT("flags", f); int *oa = OUT("active", a);
    R(cuDevicePrimaryCtxGetState, d, of, oa);
}
static void op_cuDevicePrimaryCtxSetFlags(void) {
    int d = dev_arg("dev"); unsigned f = flags_arg("flags", 0x1f); R(cuDevicePrimaryCtxSetFlags, d, f);
}

/* Driver: contexts */
static void op_cuCtxCreate(void) {
    CUcontext c = 0; CUcontext *o = OUT("ctx", c); unsigned f = flags_arg("flags", 0x1f); int d = dev_arg("dev");
    R(cuCtxCreate, o, NULL, f, d);
    created(K_CTX, D_CTX, o, (uintptr_t)c, -1);
}
static void op_cuCtxDestroy(void) {
    int w; CUcontext c = (CUcontext)(uintptr_t)handle("ctx", K_CTX, 1, &w); R(cuCtxDestroy, c); destroyed(w);
    /* The current context may have been this one: back to the batch's. */
    if (p_cuCtxSetCurrent) Q(cuCtxSetCurrent, (CUcontext)(uintptr_t)BASE[K_CTX]);
}
static void op_cuCtxSetCurrent(void) { CUcontext c = (CUcontext)(uintptr_t)handle("ctx", K_CTX, 0, NULL); R(cuCtxSetCurrent, c); }
static void op_cuCtxGetCurrent(void) { CUcontext c; CUcontext *o = OUT("ctx", c); R(cuCtxGetCurrent, o); }
static void op_cuCtxPushCurrent(void) { CUcontext c = (CUcontext)(uintptr_t)handle("ctx", K_CTX, 0, NULL); R(cuCtxPushCurrent, c); }
static void op_cuCtxPopCurrent(void) { CUcontext c; CUcontext *o = OUT("ctx", c); R(cuCtxPopCurrent, o); }
static void op_cuCtxSynchronize(void) { R(cuCtxSynchronize); }
static void op_cuCtxGetDevice(void) { CUdevice d; CUdevice *o = OUT("dev", d); R(cuCtxGetDevice, o); }
static void op_cuCtxGetApiVersion(void) {
    unsigned v; CUcontext c = (CUcontext)(uintptr_t)handle("ctx", K_CTX, 0, NULL); unsigned *o = OUT("v", v);
    R(cuCtxGetApiVersion, c, o);
}
static void op_cuCtxGetFlags(void) { unsigned v; unsigned *o = OUT("flags", v); R(cuCtxGetFlags, o); }
static void op_cuCtxSetFlags(void) { unsigned f = flags_arg("flags", 0x1f); R(cuCtxSetFlags, f); }
static void op_cuCtxGetId(void) {
    unsigned long long v; CUcontext c = (CUcontext)(uintptr_t)handle("ctx", K_CTX, 0, NULL);
    unsigned long long *o = OUT("id", v); R(cuCtxGetId, c, o);
}
static void op_cuCtxSetLimit(void) {
    int l = enum_arg("limit", 0, 6);
    static const size_t V[] = {0, 1024, 1u << 20, SIZE_MAX};
    unsigned i = pick(4);
    cls("value", i == 0 ? "0" : i == 1 ? "1K" : i == 2 ? "1M" : "max");
    R(cuCtxSetLimit, (CUlimit)l, V[i]);
}
static void op_cuCtxGetLimit(void) { size_t v; size_t *o = OUT("v", v); int l = enum_arg("limit", 0, 6); R(cuCtxGetLimit, o, (CUlimit)l); }
static void op_cuCtxGetStreamPriorityRange(void) {
    int a, b; int *oa = OUT("least", a); int *ob = OUT("greatest", b); R(cuCtxGetStreamPriorityRange, oa, ob);
}
static void op_cuCtxEnablePeerAccess(void) {
    CUcontext c = (CUcontext)(uintptr_t)handle("peer", K_CTX, 0, NULL); unsigned f = flags_arg("flags", 0);
    R(cuCtxEnablePeerAccess, c, f);
}
static void op_cuCtxRecordEvent(void) {
    CUcontext c = (CUcontext)(uintptr_t)handle("ctx", K_CTX, 0, NULL); CUevent e = (CUevent)(uintptr_t)handle("event", K_EVENT, 0, NULL);
    R(cuCtxRecordEvent, c, e);
}

/* Driver: memory */
static void op_cuMemAlloc(void) {
    CUdeviceptr p = 0; CUdeviceptr *o = OUT("dptr", p); size_t n = alloc_size("bytes"); R(cuMemAlloc, o, n);
    created(K_DPTR, D_DPTR, o, p, -1);
}
static void op_cuMemFree(void) {
    int w; CUdeviceptr p = handle("dptr", K_DPTR, 1, &w); R(cuMemFree, p); destroyed(w);
}
static void op_cuMemGetInfo(void) { size_t a, b; size_t *oa = OUT("free", a); size_t *ob = OUT("total", b); R(cuMemGetInfo, oa, ob); }
static void op_cuMemGetAddressRange(void) {
    CUdeviceptr b; size_t s; CUdeviceptr *ob = OUT("base", b); size_t *os = OUT("size", s); CUdeviceptr p = dptr_arg("dptr");
    R(cuMemGetAddressRange, ob, os, p);
}
static void op_cuMemAllocPitch(void) {
    CUdeviceptr p = 0; size_t pitch; CUdeviceptr *o = OUT("dptr", p); size_t *op = OUT("pitch", pitch);
    static const size_t W[] = {0, 1, 1024, SIZE_MAX};
    unsigned wi = pick(4), hi = pick(4);
    cls("width", wi == 0 ? "0" : wi == 1 ? "1" : wi == 2 ? "1K" : "max");
    cls("height", hi == 0 ? "0" : hi == 1 ? "1" : hi == 2 ? "1K" : "max");
    unsigned e = (unsigned)int_arg("elem", 4);
    R(cuMemAllocPitch, o, op, W[wi], W[hi], e);
    created(K_DPTR, D_DPTR, o, p, -1);
}
static void op_cuMemAllocManaged(void) {
    CUdeviceptr p = 0; CUdeviceptr *o = OUT("dptr", p); size_t n = small_size("bytes"); unsigned f = flags_arg("flags", 3);
    R(cuMemAllocManaged, o, n, f);
    created(K_DPTR, D_DPTR, o, p, -1);
}
static void op_cuMemHostAlloc(void) {
    void *p = NULL; void **o = OUT("ptr", p); size_t n = small_size("bytes"); unsigned f = flags_arg("flags", 0xf);
    R(cuMemHostAlloc, o, n, f);
    created(K_HOST, D_HOST, o, (uintptr_t)p, -1);
}
static void op_cuMemFreeHost(void) { int w; void *p = (void *)(uintptr_t)handle("ptr", K_HOST, 1, &w); R(cuMemFreeHost, p); destroyed(w); }
static void op_cuMemHostGetDevicePointer(void) {
    CUdeviceptr d; CUdeviceptr *o = OUT("dptr", d); void *p = (void *)(uintptr_t)handle("ptr", K_HOST, 0, NULL);
    unsigned f = flags_arg("flags", 0); R(cuMemHostGetDevicePointer, o, p, f);
}
static void op_cuMemHostGetFlags(void) {
    unsigned f; unsigned *o = OUT("flags", f); void *p = (void *)(uintptr_t)handle("ptr", K_HOST, 0, NULL); R(cuMemHostGetFlags, o, p);
}
static void op_cuMemcpyHtoD(void) {
    CUdeviceptr d = dptr_arg("dst"); void *s = host_in("src"); size_t n = copy_size("n", 1); R(cuMemcpyHtoD, d, s, n);
}
static void op_cuMemcpyDtoH(void) {
    void *d = host_out("dst"); CUdeviceptr s = dptr_arg("src"); size_t n = copy_size("n", 1); R(cuMemcpyDtoH, d, s, n);
}
static void op_cuMemcpyDtoD(void) {
    CUdeviceptr d = dptr_arg("dst"); CUdeviceptr s = dptr_arg("src"); size_t n = copy_size("n", 1); R(cuMemcpyDtoD, d, s, n);
}
static void op_cuMemcpyHtoDAsync(void) {
    CUdeviceptr d = dptr_arg("dst"); void *s = host_in("src"); size_t n = copy_size("n", 1); CUstream st = stream_arg("stream");
    R(cuMemcpyHtoDAsync, d, s, n, st);
    if (p_cuCtxSynchronize) Q(cuCtxSynchronize); /* the host buffer is reused by the next call */
}
static void op_cuMemcpyDtoHAsync(void) {
    void *d = host_out("dst"); CUdeviceptr s = dptr_arg("src"); size_t n = copy_size("n", 1); CUstream st = stream_arg("stream");
    R(cuMemcpyDtoHAsync, d, s, n, st);
    if (p_cuCtxSynchronize) Q(cuCtxSynchronize);
}
static void op_cuMemcpyDtoDAsync(void) {
    CUdeviceptr d = dptr_arg("dst"); CUdeviceptr s = dptr_arg("src"); size_t n = copy_size("n", 1); CUstream st = stream_arg("stream");
    R(cuMemcpyDtoDAsync, d, s, n, st);
}
static void op_cuMemsetD8(void) {
    CUdeviceptr d = dptr_arg("dst"); unsigned char v = (unsigned char)rnd(); size_t n = copy_size("n", 1); R(cuMemsetD8, d, v, n);
}
static void op_cuMemsetD32(void) {
    CUdeviceptr d = dptr_arg("dst"); unsigned v = (unsigned)rnd(); size_t n = copy_size("n", 1); R(cuMemsetD32, d, v, n);
}
static void op_cuMemsetD8Async(void) {
    CUdeviceptr d = dptr_arg("dst"); unsigned char v = (unsigned char)rnd(); size_t n = copy_size("n", 1); CUstream st = stream_arg("stream");
    R(cuMemsetD8Async, d, v, n, st);
}
static void op_cuMemsetD2D8(void) {
    CUdeviceptr d = dptr_arg("dst"); size_t pitch = copy_size("pitch", 1); size_t w = copy_size("width", 1); size_t h = copy_size("height", 1);
    R(cuMemsetD2D8, d, pitch, 0x5a, w, h);
}
static void op_cuMemAllocAsync(void) {
    CUdeviceptr p = 0; CUdeviceptr *o = OUT("dptr", p); size_t n = alloc_size("bytes"); CUstream st = stream_arg("stream");
    R(cuMemAllocAsync, o, n, st);
    created(K_DPTR, D_DPTR, o, p, -1);
}
static void op_cuMemFreeAsync(void) {
    int w; CUdeviceptr p = handle("dptr", K_DPTR, 1, &w); CUstream st = stream_arg("stream"); R(cuMemFreeAsync, p, st); destroyed(w);
}
static void op_cuPointerGetAttribute(void) {
    void *data = pick(7) ? (cls("data", "V"), (void *)SCRATCH) : (cls("data", "N"), NULL);
    int a = enum_arg("attr", 1, 22); CUdeviceptr p = dptr_arg("ptr");
    R(cuPointerGetAttribute, data, (CUpointer_attribute)a, p);
}
static void op_cuPointerGetAttributes(void) {
    CUpointer_attribute attrs[4]; void *data[4];
    unsigned n;
    int arrays = pick(5) != 0;
    for (int i = 0; i < 4; i++) { attrs[i] = (CUpointer_attribute)(1 + pick(22)); data[i] = SCRATCH + 256 * i; }
    if (pick(8) == 0) attrs[pick(4)] = (CUpointer_attribute)INT_MAX;
    if (arrays) { n = pick(5); cls("n", n ? "v" : "0"); cls("arrays", "V"); }
    else { n = pick(2) ? 3 : UINT_MAX; cls("n", n == 3 ? "3" : "max"); cls("arrays", "N"); }
    CUdeviceptr p = dptr_arg("ptr");
    R(cuPointerGetAttributes, n, arrays ? attrs : NULL, arrays ? data : NULL, p);
}
static void fill_prop(CUmemAllocationProp *prop, const char *arg) {
    memset(prop, 0, sizeof *prop);
    switch (pick(4)) {
    case 0: cls(arg, "zero"); break;
    case 1: /* garbage bits, but no pointer a library could read through */
        memset(prop, 0xff, sizeof *prop);
        prop->win32HandleMetaData = NULL;
        cls(arg, "garbage");
        break;
    default:
        prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop->location.type = CU_MEM_LOCATION_TYPE_DEVICE;
        prop->location.id = pick(4) ? 0 : 4096;
        cls(arg, prop->location.id ? "baddev" : "V");
    }
}
static void op_cuMemGetAllocationGranularity(void) {
    size_t g; size_t *o = OUT("gran", g); CUmemAllocationProp prop; int has = pick(6) != 0;
    if (has) fill_prop(&prop, "prop"); else cls("prop", "N");
    int opt = enum_arg("option", 0, 1);
    R(cuMemGetAllocationGranularity, o, has ? &prop : NULL, (CUmemAllocationGranularity_flags)opt);
}
static void op_cuMemCreate(void) {
    CUmemGenericAllocationHandle h = 0; CUmemGenericAllocationHandle *o = OUT("handle", h);
    static const size_t S[] = {0, 1, 2u << 20, 1ULL << 44};
    unsigned i = pick(4);
    cls("size", i == 0 ? "0" : i == 1 ? "1" : i == 2 ? "2M" : "huge");
    CUmemAllocationProp prop; int has = pick(6) != 0;
    if (has) fill_prop(&prop, "prop"); else cls("prop", "N");
    unsigned long long f = flags_arg("flags", 0);
    R(cuMemCreate, o, S[i], has ? &prop : NULL, f);
    created(K_MEMH, D_MEMH, o, h, -1);
}
static void op_cuMemRelease(void) { int w; CUmemGenericAllocationHandle h = handle("handle", K_MEMH, 1, &w); R(cuMemRelease, h); destroyed(w); }
static void op_cuDeviceGetDefaultMemPool(void) { CUmemoryPool p; CUmemoryPool *o = OUT("pool", p); int d = dev_arg("dev"); R(cuDeviceGetDefaultMemPool, o, d); }
static void op_cuMemPoolGetAttribute(void) {
    CUmemoryPool p = (CUmemoryPool)(uintptr_t)handle("pool", K_POOL, 0, NULL); int a = enum_arg("attr", 1, 8);
    void *v = pick(7) ? (cls("value", "V"), (void *)SCRATCH) : (cls("value", "N"), NULL);
    R(cuMemPoolGetAttribute, p, (CUmemPool_attribute)a, v);
}
static void op_cuMemPoolSetAttribute(void) {
    CUmemoryPool p = (CUmemoryPool)(uintptr_t)handle("pool", K_POOL, 0, NULL); int a = enum_arg("attr", 1, 8);
    static uint64_t val;
    val = pick(2) ? 0 : 1;
    void *v = pick(7) ? (cls("value", "V"), (void *)&val) : (cls("value", "N"), NULL);
    R(cuMemPoolSetAttribute, p, (CUmemPool_attribute)a, v);
}
static void op_cuMemPoolTrimTo(void) {
    CUmemoryPool p = (CUmemoryPool)(uintptr_t)handle("pool", K_POOL, 0, NULL); size_t n = alloc_size("keep"); R(cuMemPoolTrimTo, p, n);
}

/* Driver: streams and events */
static void op_cuStreamCreate(void) {
    CUstream s = 0; CUstream *o = OUT("stream", s); unsigned f = flags_arg("flags", 1); R(cuStreamCreate, o, f);
    created(K_STREAM, D_STREAM, o, (uintptr_t)s, -1);
}
static void op_cuStreamCreateWithPriority(void) {
    CUstream s = 0; CUstream *o = OUT("stream", s); unsigned f = flags_arg("flags", 1); int pr = int_arg("prio", -1);
    R(cuStreamCreateWithPriority, o, f, pr);
    created(K_STREAM, D_STREAM, o, (uintptr_t)s, -1);
}
static void op_cuStreamDestroy(void) {
    int w; CUstream s = (CUstream)(uintptr_t)handle("stream", K_STREAM, 1, &w); R(cuStreamDestroy, s); destroyed(w);
}
static void op_cuStreamSynchronize(void) { CUstream s = stream_arg("stream"); R(cuStreamSynchronize, s); }
static void op_cuStreamQuery(void) { CUstream s = stream_arg("stream"); R(cuStreamQuery, s); }
static void op_cuStreamWaitEvent(void) {
    CUstream s = stream_arg("stream"); CUevent e = (CUevent)(uintptr_t)handle("event", K_EVENT, 0, NULL); unsigned f = flags_arg("flags", 0);
    R(cuStreamWaitEvent, s, e, f);
}
static void op_cuStreamGetPriority(void) { int v; CUstream s = stream_arg("stream"); int *o = OUT("prio", v); R(cuStreamGetPriority, s, o); }
static void op_cuStreamGetFlags(void) { unsigned v; CUstream s = stream_arg("stream"); unsigned *o = OUT("flags", v); R(cuStreamGetFlags, s, o); }
static void op_cuStreamGetCtx(void) { CUcontext v; CUstream s = stream_arg("stream"); CUcontext *o = OUT("ctx", v); R(cuStreamGetCtx, s, o); }
static void op_cuStreamGetId(void) { unsigned long long v; CUstream s = stream_arg("stream"); unsigned long long *o = OUT("id", v); R(cuStreamGetId, s, o); }
static void op_cuStreamBeginCapture(void) {
    CUstream s = stream_arg("stream"); int valid = LAST_VALID, w = LAST_WHICH; int m = enum_arg("mode", 0, 2);
    R(cuStreamBeginCapture, s, (CUstreamCaptureMode)m);
    /* Ended at the case's end at the latest (valid streams only; gone with its stream). */
    if (valid) new_obj(K_CAPTURE, D_CAPTURE, (uintptr_t)s, w);
}
static void op_cuStreamEndCapture(void) {
    CUgraph g = 0; CUstream s = stream_arg("stream"); CUgraph *o = OUT("graph", g); R(cuStreamEndCapture, s, o);
    created(K_GRAPH, D_GRAPH, o, (uintptr_t)g, -1);
}
static void op_cuStreamIsCapturing(void) {
    CUstreamCaptureStatus v; CUstream s = stream_arg("stream"); CUstreamCaptureStatus *o = OUT("status", v); R(cuStreamIsCapturing, s, o);
}
static void op_cuLaunchHostFunc(void) {
    CUstream s = stream_arg("stream");
    CUhostFn fn = pick(5) ? (cls("fn", "V"), noop_host_fn) : (cls("fn", "N"), (CUhostFn)NULL);
    R(cuLaunchHostFunc, s, fn, NULL);
}
static void op_cuEventCreate(void) {
    CUevent e = 0; CUevent *o = OUT("event", e); unsigned f = flags_arg("flags", 7); R(cuEventCreate, o, f);
    created(K_EVENT, D_EVENT, o, (uintptr_t)e, -1);
}
static void op_cuEventDestroy(void) { int w; CUevent e = (CUevent)(uintptr_t)handle("event", K_EVENT, 1, &w); R(cuEventDestroy, e); destroyed(w); }
static void op_cuEventRecord(void) {
    CUevent e = (CUevent)(uintptr_t)handle("event", K_EVENT, 0, NULL); CUstream s = stream_arg("stream"); R(cuEventRecord, e, s);
}
static void op_cuEventRecordWithFlags(void) {
    CUevent e = (CUevent)(uintptr_t)handle("event", K_EVENT, 0, NULL); CUstream s = stream_arg("stream"); unsigned f = flags_arg("flags", 1);
    R(cuEventRecordWithFlags, e, s, f);
}
static void op_cuEventQuery(void) { CUevent e = (CUevent)(uintptr_t)handle("event", K_EVENT, 0, NULL); R(cuEventQuery, e); }
static void op_cuEventSynchronize(void) { CUevent e = (CUevent)(uintptr_t)handle("event", K_EVENT, 0, NULL); R(cuEventSynchronize, e); }
static void op_cuEventElapsedTime(void) {
    float ms; float *o = OUT("ms", ms); CUevent a = (CUevent)(uintptr_t)handle("start", K_EVENT, 0, NULL);
    CUevent b = (CUevent)(uintptr_t)handle("end", K_EVENT, 0, NULL); R(cuEventElapsedTime, o, a, b);
}

/* Driver: modules, functions, launches */
static void op_cuModuleLoadData(void) {
    CUmodule m = 0; CUmodule *o = OUT("module", m); const void *img = image_arg("image"); R(cuModuleLoadData, o, img);
    created(K_MOD, D_MOD, o, (uintptr_t)m, -1);
}
static void op_cuModuleLoadDataEx(void) {
    CUmodule m = 0; CUmodule *o = OUT("module", m); const void *img = image_arg("image");
    static char logbuf[4096];
    CUjit_option opts[3]; void *vals[3];
    unsigned n;
    int arrays = pick(5) != 0;
    if (arrays) {
        n = pick(4);
        for (unsigned i = 0; i < 3; i++) {
            switch (pick(4)) {
            case 0: opts[i] = CU_JIT_OPTIMIZATION_LEVEL; vals[i] = (void *)(uintptr_t)(pick(2) ? 3 : 99); break;
            case 1: opts[i] = CU_JIT_MAX_REGISTERS; vals[i] = (void *)(uintptr_t)(pick(2) ? 32 : 0); break;
            case 2: opts[i] = (CUjit_option)9999; vals[i] = NULL; break;
            default: opts[i] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES; vals[i] = (void *)(uintptr_t)sizeof logbuf; break;
            }
        }
        /* A log buffer option always comes with its size, never larger than the buffer. */
        if (n >= 2 && pick(2)) { opts[0] = CU_JIT_INFO_LOG_BUFFER; vals[0] = logbuf; opts[1] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES; vals[1] = (void *)(uintptr_t)sizeof logbuf; }
        else for (unsigned i = 0; i < 3; i++) if (opts[i] == CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES) opts[i] = CU_JIT_OPTIMIZATION_LEVEL, vals[i] = (void *)(uintptr_t)1;
        cls("nopt", n ? "v" : "0");
        cls("opts", "V");
    } else {
        n = pick(2) ? 2 : UINT_MAX;
        cls("nopt", n == 2 ? "2" : "max");
        cls("opts", "N");
    }
    R(cuModuleLoadDataEx, o, img, n, arrays ? opts : NULL, arrays ? vals : NULL);
    created(K_MOD, D_MOD, o, (uintptr_t)m, -1);
}
static void op_cuModuleUnload(void) { int w; CUmodule m = (CUmodule)(uintptr_t)handle("module", K_MOD, 1, &w); R(cuModuleUnload, m); destroyed(w); }
static void op_cuModuleGetFunction(void) {
    CUfunction f = 0; CUfunction *o = OUT("fn", f); int w;
    CUmodule m = (CUmodule)(uintptr_t)handle("module", K_MOD, 0, &w); const char *nm = name_arg("name", "k");
    R(cuModuleGetFunction, o, m, nm);
    created(K_FUNC, D_NONE, o, (uintptr_t)f, w);
}
static void op_cuModuleGetGlobal(void) {
    CUdeviceptr d; size_t s; CUdeviceptr *od = OUT("dptr", d); size_t *os = OUT("bytes", s);
    CUmodule m = (CUmodule)(uintptr_t)handle("module", K_MOD, 0, NULL); const char *nm = name_arg("name", "g");
    R(cuModuleGetGlobal, od, os, m, nm);
}
static void op_cuModuleGetLoadingMode(void) { CUmoduleLoadingMode v; CUmoduleLoadingMode *o = OUT("mode", v); R(cuModuleGetLoadingMode, o); }
static unsigned dim_arg(const char *arg, int grid) {
    switch (pick(8)) {
    case 0: cls(arg, "0"); return 0;
    case 1: cls(arg, "big"); return grid ? 65536 : 1025; /* x: fine for a grid; y, z, blocks: over */
    case 2: cls(arg, "2^31"); return 1u << 31;
    case 3: cls(arg, "max"); return UINT_MAX;
    default: cls(arg, "1"); return 1;
    }
}
static void launch_args(void ***params, void ***extra) {
    static size_t bufsize = sizeof(int);
    static void *P[1], *E[5], *EBAD[3];
    P[0] = &INTVAL;
    E[0] = CU_LAUNCH_PARAM_BUFFER_POINTER; E[1] = &INTVAL; E[2] = CU_LAUNCH_PARAM_BUFFER_SIZE; E[3] = &bufsize; E[4] = CU_LAUNCH_PARAM_END;
    EBAD[0] = (void *)(uintptr_t)0x77; EBAD[1] = NULL; EBAD[2] = CU_LAUNCH_PARAM_END;
    switch (pick(6)) {
    case 0: *params = NULL; *extra = NULL; cls("params", "N"); break;
    case 1: *params = NULL; *extra = E; cls("params", "extra"); break;
    case 2: *params = NULL; *extra = EBAD; cls("params", "badextra"); break;
    case 3: *params = P; *extra = E; cls("params", "both"); break;
    default: *params = P; *extra = NULL; cls("params", "V");
    }
}
static void op_cuLaunchKernel(void) {
    CUfunction f = (CUfunction)(uintptr_t)handle("fn", K_FUNC, 0, NULL);
    unsigned gx = dim_arg("gx", 1), gy = dim_arg("gy", 0), gz = pick(4) ? 1 : dim_arg("gz", 0);
    unsigned bx = dim_arg("bx", 0), by = pick(4) ? 1 : dim_arg("by", 0), bz = 1;
    static const unsigned SM[] = {0, 49153, 1u << 30, UINT_MAX};
    unsigned si = pick(6) < 3 ? 0 : pick(4);
    cls("shmem", si == 0 ? "0" : si == 1 ? "48K+1" : si == 2 ? "1G" : "max");
    CUstream s = stream_arg("stream");
    void **params, **extra;
    launch_args(&params, &extra);
    R(cuLaunchKernel, f, gx, gy, gz, bx, by, bz, SM[si], s, params, extra);
}
static void op_cuFuncGetAttribute(void) {
    int v; int *o = OUT("v", v); int a = enum_arg("attr", 0, 19); CUfunction f = (CUfunction)(uintptr_t)handle("fn", K_FUNC, 0, NULL);
    R(cuFuncGetAttribute, o, (CUfunction_attribute)a, f);
}
static void op_cuFuncSetAttribute(void) {
    CUfunction f = (CUfunction)(uintptr_t)handle("fn", K_FUNC, 0, NULL); int a = enum_arg("attr", 0, 19); int v = int_arg("value", 1024);
    R(cuFuncSetAttribute, f, (CUfunction_attribute)a, v);
}
static void op_cuFuncSetCacheConfig(void) {
    CUfunction f = (CUfunction)(uintptr_t)handle("fn", K_FUNC, 0, NULL); int c = enum_arg("config", 0, 3); R(cuFuncSetCacheConfig, f, (CUfunc_cache)c);
}
static void op_cuFuncGetName(void) {
    const char *n; const char **o = OUT("name", n); CUfunction f = (CUfunction)(uintptr_t)handle("fn", K_FUNC, 0, NULL); R(cuFuncGetName, o, f);
}
static void op_cuOccupancyMaxActiveBlocksPerMultiprocessor(void) {
    int v; int *o = OUT("n", v); CUfunction f = (CUfunction)(uintptr_t)handle("fn", K_FUNC, 0, NULL); int bs = int_arg("block", 128);
    size_t sm = pick(4) ? 0 : (cls("smem", "huge"), SIZE_MAX);
    R(cuOccupancyMaxActiveBlocksPerMultiprocessor, o, f, bs, sm);
}
static void op_cuLibraryLoadData(void) {
    CUlibrary l = 0; CUlibrary *o = OUT("lib", l); const void *img = image_arg("code");
    CUjit_option jo[1] = {(CUjit_option)9999}; void *jv[1] = {NULL};
    CUlibraryOption lo[1] = {(CUlibraryOption)9999}; void *lv[1] = {NULL};
    unsigned nj = 0, nl = 0; int ja = 0, la = 0;
    switch (pick(5)) {
    case 0: nj = 1; ja = 1; cls("jit", "bad"); break;
    case 1: nj = 1; cls("jit", "N1"); break;
    case 2: nl = 1; la = 1; cls("libopt", "bad"); break;
    case 3: nl = 1; cls("libopt", "N1"); break;
    default: cls("opts", "0");
    }
    R(cuLibraryLoadData, o, img, ja ? jo : NULL, ja ? jv : NULL, nj, la ? lo : NULL, la ? lv : NULL, nl);
    created(K_LIB, D_LIB, o, (uintptr_t)l, -1);
}
static void op_cuLibraryUnload(void) { int w; CUlibrary l = (CUlibrary)(uintptr_t)handle("lib", K_LIB, 1, &w); R(cuLibraryUnload, l); destroyed(w); }
static void op_cuLibraryGetKernel(void) {
    CUkernel k = 0; CUkernel *o = OUT("kernel", k); int w; CUlibrary l = (CUlibrary)(uintptr_t)handle("lib", K_LIB, 0, &w);
    const char *nm = name_arg("name", "k"); R(cuLibraryGetKernel, o, l, nm);
    created(K_KERNEL, D_NONE, o, (uintptr_t)k, w);
}
static void op_cuLibraryGetModule(void) {
    CUmodule m; CUmodule *o = OUT("module", m); CUlibrary l = (CUlibrary)(uintptr_t)handle("lib", K_LIB, 0, NULL); R(cuLibraryGetModule, o, l);
}
static void op_cuKernelGetFunction(void) {
    CUfunction f; CUfunction *o = OUT("fn", f); CUkernel k = (CUkernel)(uintptr_t)handle("kernel", K_KERNEL, 0, NULL); R(cuKernelGetFunction, o, k);
}
static void op_cuKernelGetAttribute(void) {
    int v; int *o = OUT("v", v); int a = enum_arg("attr", 0, 19); CUkernel k = (CUkernel)(uintptr_t)handle("kernel", K_KERNEL, 0, NULL);
    int d = dev_arg("dev"); R(cuKernelGetAttribute, o, (CUfunction_attribute)a, k, d);
}
static void op_cuKernelGetName(void) {
    const char *n; const char **o = OUT("name", n); CUkernel k = (CUkernel)(uintptr_t)handle("kernel", K_KERNEL, 0, NULL); R(cuKernelGetName, o, k);
}

/* Driver: graphs */
static void op_cuGraphCreate(void) {
    CUgraph g = 0; CUgraph *o = OUT("graph", g); unsigned f = flags_arg("flags", 0); R(cuGraphCreate, o, f);
    created(K_GRAPH, D_GRAPH, o, (uintptr_t)g, -1);
}
static void op_cuGraphDestroy(void) { int w; CUgraph g = (CUgraph)(uintptr_t)handle("graph", K_GRAPH, 1, &w); R(cuGraphDestroy, g); destroyed(w); }
static void op_cuGraphAddEmptyNode(void) {
    CUgraphNode n = 0; CUgraphNode *o = OUT("node", n); int w; CUgraph g = (CUgraph)(uintptr_t)handle("graph", K_GRAPH, 0, &w);
    CUgraphNode deps[2]; size_t nd; int arr = pick(4) != 0;
    deps[0] = (CUgraphNode)(uintptr_t)handle("dep0", K_NODE, 0, NULL); deps[1] = (CUgraphNode)(uintptr_t)BASE[K_NODE];
    if (arr) { nd = pick(3); cls("ndeps", nd == 0 ? "0" : "v"); }
    else { nd = pick(2) ? 1 : SIZE_MAX; cls("ndeps", nd == 1 ? "1" : "max"); cls("deps", "N"); }
    R(cuGraphAddEmptyNode, o, g, arr ? deps : NULL, nd);
    created(K_NODE, D_NONE, o, (uintptr_t)n, w);
}
static void op_cuGraphGetNodes(void) {
    CUgraph g = (CUgraph)(uintptr_t)handle("graph", K_GRAPH, 0, NULL); CUgraphNode nodes[8]; size_t num = 8;
    CUgraphNode *on = pick(3) ? (cls("nodes", "V"), nodes) : (cls("nodes", "N"), NULL);
    size_t *onum = OUT("num", num);
    R(cuGraphGetNodes, g, on, onum);
}
static void op_cuGraphInstantiate(void) {
    CUgraphExec e = 0; CUgraphExec *o = OUT("exec", e); int w; CUgraph g = (CUgraph)(uintptr_t)handle("graph", K_GRAPH, 0, &w);
    unsigned long long f = flags_arg("flags", 0xf); R(cuGraphInstantiate, o, g, f);
    created(K_GEXEC, D_GEXEC, o, (uintptr_t)e, -1);
}
static void op_cuGraphLaunch(void) {
    CUgraphExec e = (CUgraphExec)(uintptr_t)handle("exec", K_GEXEC, 0, NULL); CUstream s = stream_arg("stream"); R(cuGraphLaunch, e, s);
}
static void op_cuGraphExecDestroy(void) { int w; CUgraphExec e = (CUgraphExec)(uintptr_t)handle("exec", K_GEXEC, 1, &w); R(cuGraphExecDestroy, e); destroyed(w); }

/* Driver: errors and entry points */
static int code_arg(const char *arg) {
    switch (pick(6)) {
    case 0: cls(arg, "-1"); return -1;
    case 1: cls(arg, "MAX"); return INT_MAX;
    case 2: cls(arg, "unknown"); return 12345;
    default: { static const int C[] = {0, 1, 2, 100, 101, 200, 209, 400, 700, 999}; cls(arg, "v"); return C[pick(10)]; }
    }
}
static void op_cuGetErrorName(void) { int c = code_arg("code"); const char *s; const char **o = OUT("str", s); R(cuGetErrorName, (CUresult)c, o); }
static void op_cuGetErrorString(void) { int c = code_arg("code"); const char *s; const char **o = OUT("str", s); R(cuGetErrorString, (CUresult)c, o); }
static void op_cuGetProcAddress(void) {
    const char *sym;
    switch (pick(6)) {
    case 0: sym = NULL; cls("symbol", "N"); break;
    case 1: sym = ""; cls("symbol", "empty"); break;
    case 2: sym = "cuNoSuchFunction"; cls("symbol", "unknown"); break;
    case 3: sym = "cuMemAlloc"; cls("symbol", "V"); break;
    default: sym = "cuInit"; cls("symbol", "V"); break;
    }
    void *pfn; void **opfn = OUT("pfn", pfn);
    static const int VER[] = {13000, 2000, 0, -1, INT_MAX};
    unsigned vi = pick(5);
    cls("version", vi == 0 ? "13000" : vi == 1 ? "2000" : vi == 2 ? "0" : vi == 3 ? "-1" : "MAX");
    unsigned long long f = flags_arg("flags", 3);
    CUdriverProcAddressQueryResult st; CUdriverProcAddressQueryResult *ost = OUT("status", st);
    R(cuGetProcAddress, sym, opfn, VER[vi], f, ost);
}

/* Runtime */
static void op_cudaGetDeviceCount(void) { int n; int *o = OUT("n", n); R(cudaGetDeviceCount, o); }
static void op_cudaGetDevice(void) { int n; int *o = OUT("dev", n); R(cudaGetDevice, o); }
static void op_cudaSetDevice(void) { int d = dev_arg("dev"); R(cudaSetDevice, d); }
static void op_cudaGetDeviceProperties(void) {
    static struct cudaDeviceProp prop; struct cudaDeviceProp *o = OUT("prop", prop); int d = dev_arg("dev"); R(cudaGetDeviceProperties, o, d);
}
static void op_cudaDeviceGetAttribute(void) {
    int v; int *o = OUT("v", v); int a = enum_arg("attr", 1, 150); int d = dev_arg("dev"); R(cudaDeviceGetAttribute, o, (enum cudaDeviceAttr)a, d);
}
static void op_cudaDeviceSynchronize(void) { R(cudaDeviceSynchronize); }
static void op_cudaDeviceGetLimit(void) { size_t v; size_t *o = OUT("v", v); int l = enum_arg("limit", 0, 6); R(cudaDeviceGetLimit, o, (enum cudaLimit)l); }
static void op_cudaDeviceSetLimit(void) {
    int l = enum_arg("limit", 0, 6);
    static const size_t V[] = {0, 1024, 1u << 20, SIZE_MAX};
    unsigned i = pick(4);
    cls("value", i == 0 ? "0" : i == 1 ? "1K" : i == 2 ? "1M" : "max");
    R(cudaDeviceSetLimit, (enum cudaLimit)l, V[i]);
}
static void op_cudaDeviceGetStreamPriorityRange(void) {
    int a, b; int *oa = OUT("least", a); int *ob = OUT("greatest", b); R(cudaDeviceGetStreamPriorityRange, oa, ob);
}
static void op_cudaSetDeviceFlags(void) { unsigned f = flags_arg("flags", 0x1f); R(cudaSetDeviceFlags, f); }
static void op_cudaGetDeviceFlags(void) { unsigned v; unsigned *o = OUT("flags", v); R(cudaGetDeviceFlags, o); }
static void op_cudaDeviceCanAccessPeer(void) {
    int v; int *o = OUT("v", v); int a = dev_arg("dev"); int b = dev_arg("peer"); R(cudaDeviceCanAccessPeer, o, a, b);
}
static void op_cudaDeviceEnablePeerAccess(void) { int p = dev_arg("peer"); unsigned f = flags_arg("flags", 0); R(cudaDeviceEnablePeerAccess, p, f); }
static void op_cudaGetLastError(void) { R(cudaGetLastError); }
static void op_cudaPeekAtLastError(void) { R(cudaPeekAtLastError); }
static void op_cudaGetErrorName(void) { int c = code_arg("code"); RP(cudaGetErrorName, (cudaError_t)c); }
static void op_cudaGetErrorString(void) { int c = code_arg("code"); RP(cudaGetErrorString, (cudaError_t)c); }
static void op_cudaDriverGetVersion(void) { int v; int *o = OUT("v", v); R(cudaDriverGetVersion, o); }
static void op_cudaRuntimeGetVersion(void) { int v; int *o = OUT("v", v); R(cudaRuntimeGetVersion, o); }
static void op_cudaMalloc(void) {
    void *p = NULL; void **o = OUT("ptr", p); size_t n = alloc_size("bytes"); R(cudaMalloc, o, n);
    created(K_DPTR, D_RTDPTR, o, (uintptr_t)p, -1);
}
static void op_cudaFree(void) { int w; void *p = (void *)(uintptr_t)handle("ptr", K_DPTR, 1, &w); R(cudaFree, p); destroyed(w); }
static void op_cudaMallocHost(void) {
    void *p = NULL; void **o = OUT("ptr", p); size_t n = small_size("bytes"); R(cudaMallocHost, o, n);
    created(K_HOST, D_RTHOST, o, (uintptr_t)p, -1);
}
static void op_cudaFreeHost(void) { int w; void *p = (void *)(uintptr_t)handle("ptr", K_HOST, 1, &w); R(cudaFreeHost, p); destroyed(w); }
static void op_cudaHostAlloc(void) {
    void *p = NULL; void **o = OUT("ptr", p); size_t n = small_size("bytes"); unsigned f = flags_arg("flags", 0xf); R(cudaHostAlloc, o, n, f);
    created(K_HOST, D_RTHOST, o, (uintptr_t)p, -1);
}
static void op_cudaMallocManaged(void) {
    void *p = NULL; void **o = OUT("ptr", p); size_t n = small_size("bytes"); unsigned f = flags_arg("flags", 3); R(cudaMallocManaged, o, n, f);
    created(K_DPTR, D_RTDPTR, o, (uintptr_t)p, -1);
}
static void op_cudaMemGetInfo(void) { size_t a, b; size_t *oa = OUT("free", a); size_t *ob = OUT("total", b); R(cudaMemGetInfo, oa, ob); }
/* cudaMemcpy's pointers follow the kind: a device side is any device-pointer class; with
 * cudaMemcpyDefault and host-to-host the library infers host memory, so only real buffers (a
 * host buffer, a valid device pointer) or NULL are drawn there, with sizes that fit them. */
static void memcpy_args(void **dst, const void **src, size_t *n, int *kind) {
    unsigned k = pick(8);
    switch (k) {
    case 1: cls("kind", "HtoD"); *kind = cudaMemcpyHostToDevice;
        *dst = (void *)(uintptr_t)dptr_arg("dst"); *src = host_in("src"); *n = copy_size("n", 1); return;
    case 2: cls("kind", "DtoH"); *kind = cudaMemcpyDeviceToHost;
        *dst = host_out("dst"); *src = (void *)(uintptr_t)dptr_arg("src"); *n = copy_size("n", 1); return;
    case 3: cls("kind", "DtoD"); *kind = cudaMemcpyDeviceToDevice;
        *dst = (void *)(uintptr_t)dptr_arg("dst"); *src = (void *)(uintptr_t)dptr_arg("src"); *n = copy_size("n", 1); return;
    default: break;
    }
    if (k == 0) { cls("kind", "HtoH"); *kind = cudaMemcpyHostToHost; }
    else if (k < 6) { cls("kind", "Default"); *kind = cudaMemcpyDefault; }
    else { int bad = pick(2) ? 5 : (pick(2) ? -1 : INT_MAX); cls("kind", bad == 5 ? "5" : bad == -1 ? "-1" : "MAX"); *kind = bad; }
    switch (pick(5)) {
    case 0: cls("dst", "N"); *dst = NULL; break;
    case 1: cls("dst", "Vd"); *dst = (void *)(uintptr_t)BASE[K_DPTR]; break;
    default: cls("dst", "V"); *dst = HOUT;
    }
    switch (pick(5)) {
    case 0: cls("src", "N"); *src = NULL; break;
    case 1: cls("src", "Vd"); *src = (void *)(uintptr_t)BASE[K_DPTR]; break;
    default: cls("src", "V"); *src = HIN;
    }
    *n = copy_size("n", 0);
}
static void op_cudaMemcpy(void) {
    void *d; const void *s; size_t n; int k; memcpy_args(&d, &s, &n, &k); R(cudaMemcpy, d, s, n, (enum cudaMemcpyKind)k);
}
static void op_cudaMemcpyAsync(void) {
    void *d; const void *s; size_t n; int k; memcpy_args(&d, &s, &n, &k); CUstream st = stream_arg("stream");
    R(cudaMemcpyAsync, d, s, n, (enum cudaMemcpyKind)k, (cudaStream_t)st);
    if (p_cudaDeviceSynchronize) Q(cudaDeviceSynchronize);
}
static void op_cudaMemset(void) {
    void *d = (void *)(uintptr_t)dptr_arg("dst"); int v = (int)rnd(); size_t n = copy_size("n", 1); R(cudaMemset, d, v, n);
}
static void op_cudaMemsetAsync(void) {
    void *d = (void *)(uintptr_t)dptr_arg("dst"); int v = (int)rnd(); size_t n = copy_size("n", 1); CUstream st = stream_arg("stream");
    R(cudaMemsetAsync, d, v, n, (cudaStream_t)st);
}
static void op_cudaPointerGetAttributes(void) {
    struct cudaPointerAttributes a; struct cudaPointerAttributes *o = OUT("attr", a); const void *p;
    if (pick(5) == 0) { cls("ptr", "host"); p = HIN; } else p = (const void *)(uintptr_t)dptr_arg("ptr");
    R(cudaPointerGetAttributes, o, p);
}
static void op_cudaStreamCreate(void) {
    cudaStream_t s = 0; cudaStream_t *o = OUT("stream", s); R(cudaStreamCreate, o);
    created(K_STREAM, D_RTSTREAM, o, (uintptr_t)s, -1);
}
static void op_cudaStreamCreateWithFlags(void) {
    cudaStream_t s = 0; cudaStream_t *o = OUT("stream", s); unsigned f = flags_arg("flags", 1); R(cudaStreamCreateWithFlags, o, f);
    created(K_STREAM, D_RTSTREAM, o, (uintptr_t)s, -1);
}
static void op_cudaStreamCreateWithPriority(void) {
    cudaStream_t s = 0; cudaStream_t *o = OUT("stream", s); unsigned f = flags_arg("flags", 1); int pr = int_arg("prio", -1);
    R(cudaStreamCreateWithPriority, o, f, pr);
    created(K_STREAM, D_RTSTREAM, o, (uintptr_t)s, -1);
}
static void op_cudaStreamDestroy(void) { int w; cudaStream_t s = (cudaStream_t)(uintptr_t)handle("stream", K_STREAM, 1, &w); R(cudaStreamDestroy, s); destroyed(w); }
static void op_cudaStreamSynchronize(void) { CUstream s = stream_arg("stream"); R(cudaStreamSynchronize, (cudaStream_t)s); }
static void op_cudaStreamQuery(void) { CUstream s = stream_arg("stream"); R(cudaStreamQuery, (cudaStream_t)s); }
static void op_cudaStreamWaitEvent(void) {
    CUstream s = stream_arg("stream"); cudaEvent_t e = (cudaEvent_t)(uintptr_t)handle("event", K_EVENT, 0, NULL); unsigned f = flags_arg("flags", 0);
    R(cudaStreamWaitEvent, (cudaStream_t)s, e, f);
}
static void op_cudaStreamGetPriority(void) { int v; CUstream s = stream_arg("stream"); int *o = OUT("prio", v); R(cudaStreamGetPriority, (cudaStream_t)s, o); }
static void op_cudaStreamGetFlags(void) { unsigned v; CUstream s = stream_arg("stream"); unsigned *o = OUT("flags", v); R(cudaStreamGetFlags, (cudaStream_t)s, o); }
static void op_cudaStreamBeginCapture(void) {
    CUstream s = stream_arg("stream"); int valid = LAST_VALID, w = LAST_WHICH; int m = enum_arg("mode", 0, 2);
    R(cudaStreamBeginCapture, (cudaStream_t)s, (enum cudaStreamCaptureMode)m);
    if (valid) new_obj(K_CAPTURE, D_RTCAPTURE, (uintptr_t)s, w);
}
static void op_cudaStreamEndCapture(void) {
    cudaGraph_t g = 0; CUstream s = stream_arg("stream"); cudaGraph_t *o = OUT("graph", g); R(cudaStreamEndCapture, (cudaStream_t)s, o);
    created(K_GRAPH, D_RTGRAPH, o, (uintptr_t)g, -1);
}
static void op_cudaStreamIsCapturing(void) {
    enum cudaStreamCaptureStatus v; CUstream s = stream_arg("stream"); enum cudaStreamCaptureStatus *o = OUT("status", v);
    R(cudaStreamIsCapturing, (cudaStream_t)s, o);
}
static void op_cudaEventCreate(void) {
    cudaEvent_t e = 0; cudaEvent_t *o = OUT("event", e); R(cudaEventCreate, o); created(K_EVENT, D_RTEVENT, o, (uintptr_t)e, -1);
}
static void op_cudaEventCreateWithFlags(void) {
    cudaEvent_t e = 0; cudaEvent_t *o = OUT("event", e); unsigned f = flags_arg("flags", 7); R(cudaEventCreateWithFlags, o, f);
    created(K_EVENT, D_RTEVENT, o, (uintptr_t)e, -1);
}
static void op_cudaEventDestroy(void) { int w; cudaEvent_t e = (cudaEvent_t)(uintptr_t)handle("event", K_EVENT, 1, &w); R(cudaEventDestroy, e); destroyed(w); }
static void op_cudaEventRecord(void) {
    cudaEvent_t e = (cudaEvent_t)(uintptr_t)handle("event", K_EVENT, 0, NULL); CUstream s = stream_arg("stream"); R(cudaEventRecord, e, (cudaStream_t)s);
}
static void op_cudaEventQuery(void) { cudaEvent_t e = (cudaEvent_t)(uintptr_t)handle("event", K_EVENT, 0, NULL); R(cudaEventQuery, e); }
static void op_cudaEventSynchronize(void) { cudaEvent_t e = (cudaEvent_t)(uintptr_t)handle("event", K_EVENT, 0, NULL); R(cudaEventSynchronize, e); }
static void op_cudaEventElapsedTime(void) {
    float ms; float *o = OUT("ms", ms); cudaEvent_t a = (cudaEvent_t)(uintptr_t)handle("start", K_EVENT, 0, NULL);
    cudaEvent_t b = (cudaEvent_t)(uintptr_t)handle("end", K_EVENT, 0, NULL); R(cudaEventElapsedTime, o, a, b);
}
/* A kernel for the Runtime: the batch's CUfunction or CUkernel (CUDA 12+ accepts both), NULL or
 * made-up (never called: the runtime looks it up). */
static const void *rt_func(const char *arg) {
    switch (pick(6)) {
    case 0: cls(arg, "N"); return NULL;
    case 1: {
        if (!PM) { cls(arg, "N"); return NULL; } /* -p without made-up handles */
        const char *c;
        const void *p = (const void *)(uintptr_t)made_up(1, 0, &c);
        cls(arg, c);
        return p;
    }
    case 2: cls(arg, "Vkernel"); return (const void *)(uintptr_t)BASE[K_KERNEL];
    default: cls(arg, "Vfn"); return (const void *)(uintptr_t)BASE[K_FUNC];
    }
}
static void op_cudaFuncGetAttributes(void) {
    struct cudaFuncAttributes a; struct cudaFuncAttributes *o = OUT("attr", a); const void *f = rt_func("func"); R(cudaFuncGetAttributes, o, f);
}
static void op_cudaLaunchKernel(void) {
    const void *f = rt_func("func");
    dim3 g = {dim_arg("gx", 1), 1, 1}, b = {dim_arg("bx", 0), 1, 1};
    void *args[1] = {&INTVAL};
    void **a = pick(5) ? (cls("args", "V"), args) : (cls("args", "N"), NULL);
    size_t sm = pick(4) ? 0 : (cls("shmem", "1G"), (size_t)1 << 30);
    CUstream s = stream_arg("stream");
    R(cudaLaunchKernel, f, g, b, a, sm, (cudaStream_t)s);
}
static void op_cudaOccupancyMaxActiveBlocksPerMultiprocessor(void) {
    int v; int *o = OUT("n", v); const void *f = rt_func("func"); int bs = int_arg("block", 128);
    R(cudaOccupancyMaxActiveBlocksPerMultiprocessor, o, f, bs, 0);
}
static void op_cudaGraphCreate(void) {
    cudaGraph_t g = 0; cudaGraph_t *o = OUT("graph", g); unsigned f = flags_arg("flags", 0); R(cudaGraphCreate, o, f);
    created(K_GRAPH, D_RTGRAPH, o, (uintptr_t)g, -1);
}
static void op_cudaGraphDestroy(void) { int w; cudaGraph_t g = (cudaGraph_t)(uintptr_t)handle("graph", K_GRAPH, 1, &w); R(cudaGraphDestroy, g); destroyed(w); }
static void op_cudaGraphInstantiate(void) {
    cudaGraphExec_t e = 0; cudaGraphExec_t *o = OUT("exec", e); cudaGraph_t g = (cudaGraph_t)(uintptr_t)handle("graph", K_GRAPH, 0, NULL);
    unsigned long long f = flags_arg("flags", 0xf); R(cudaGraphInstantiate, o, g, f);
    created(K_GEXEC, D_RTGEXEC, o, (uintptr_t)e, -1);
}
static void op_cudaGraphLaunch(void) {
    cudaGraphExec_t e = (cudaGraphExec_t)(uintptr_t)handle("exec", K_GEXEC, 0, NULL); CUstream s = stream_arg("stream"); R(cudaGraphLaunch, e, (cudaStream_t)s);
}
static void op_cudaGraphExecDestroy(void) { int w; cudaGraphExec_t e = (cudaGraphExec_t)(uintptr_t)handle("exec", K_GEXEC, 1, &w); R(cudaGraphExecDestroy, e); destroyed(w); }

/* NVRTC */
static const char KERNEL_SRC[] = "extern \"C\" __global__ void k(unsigned int x) { }\n__device__ unsigned int g;\n";
static void op_nvrtcVersion(void) { int a, b; int *oa = OUT("major", a); int *ob = OUT("minor", b); R(nvrtcVersion, oa, ob); }
static void op_nvrtcGetNumSupportedArchs(void) { int n; int *o = OUT("n", n); R(nvrtcGetNumSupportedArchs, o); }
static void op_nvrtcGetSupportedArchs(void) {
    static int archs[512]; int *o = pick(7) ? (cls("archs", "V"), archs) : (cls("archs", "N"), NULL); R(nvrtcGetSupportedArchs, o);
}
static void op_nvrtcCreateProgram(void) {
    nvrtcProgram p = 0; nvrtcProgram *o = OUT("prog", p);
    const char *src;
    switch (pick(8)) {
    case 0: src = NULL; cls("src", "N"); break;
    case 1: src = ""; cls("src", "empty"); break;
    case 2: src = "this is not C++ {"; cls("src", "syntax"); break;
    default: src = KERNEL_SRC; cls("src", "V");
    }
    const char *name = pick(4) ? (cls("name", "V"), "k.cu") : pick(2) ? (cls("name", "N"), NULL) : (cls("name", "empty"), "");
    static const char *const hdr[1] = {"#define X 1\n"}, *const inc[1] = {"x.h"};
    int n; const char *const *h = NULL, *const *in = NULL;
    switch (pick(6)) {
    case 0: n = 1; h = hdr; in = inc; cls("headers", "1"); break;
    case 1: n = 1; h = hdr; cls("headers", "1,names=N"); break;
    case 2: n = pick(2) ? -1 : INT_MAX; cls("headers", n < 0 ? "-1,N" : "MAX,N"); break;
    default: n = 0; cls("headers", "0");
    }
    R(nvrtcCreateProgram, o, src, name, n, h, in);
    created(K_PROG, D_PROG, o, (uintptr_t)p, -1);
}
static void op_nvrtcDestroyProgram(void) {
    int w; nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 1, &w);
    nvrtcProgram *pp = pick(8) ? &p : (cls("ptr", "N"), NULL);
    R(nvrtcDestroyProgram, pp);
    if (pp) destroyed(w);
}
static void op_nvrtcCompileProgram(void) {
    nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL);
    /* Options a user might pass, wrong ones included. Never NVRTC's own aborting spellings
     * (docs/bad-input.md): they kill NVIDIA's column (anycuda refuses them: tests/rtc_reliability.rs). */
    static const char *const OPTS[] = {"--gpu-architecture=compute_75", "-default-device", "--std=c++17",
        "-DX=1", "--no-such-option", "-arch=sm_9999", "--maxrregcount=-5", "", "-lineinfo", "-G"};
    const char *opts[3];
    int n;
    if (pick(6)) {
        n = (int)pick(4);
        char which[16] = "V";
        for (int i = 0; i < 3; i++) {
            unsigned o = pick(10);
            opts[i] = OPTS[o];
            if (i < n) snprintf(which + strlen(which), sizeof which - strlen(which), "%s%u", i ? "+" : ":", o);
        }
        cls("nopt", n ? "v" : "0");
        cls("opts", which); /* V:i+j: the indices in OPTS */
        R(nvrtcCompileProgram, p, n, opts);
    } else {
        n = pick(2) ? 2 : -1;
        cls("nopt", n == 2 ? "2" : "-1");
        cls("opts", "N");
        R(nvrtcCompileProgram, p, n, NULL);
    }
}
static char BIGBUF[1 << 20];
static void op_nvrtcGetPTXSize(void) { size_t v; nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL); size_t *o = OUT("size", v); R(nvrtcGetPTXSize, p, o); }
static void op_nvrtcGetPTX(void) {
    nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL);
    char *o = pick(7) ? (cls("ptx", "V"), BIGBUF) : (cls("ptx", "N"), NULL); R(nvrtcGetPTX, p, o);
}
static void op_nvrtcGetCUBINSize(void) { size_t v; nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL); size_t *o = OUT("size", v); R(nvrtcGetCUBINSize, p, o); }
static void op_nvrtcGetCUBIN(void) {
    nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL);
    char *o = pick(7) ? (cls("cubin", "V"), BIGBUF) : (cls("cubin", "N"), NULL); R(nvrtcGetCUBIN, p, o);
}
static void op_nvrtcGetLTOIRSize(void) { size_t v; nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL); size_t *o = OUT("size", v); R(nvrtcGetLTOIRSize, p, o); }
static void op_nvrtcGetProgramLogSize(void) { size_t v; nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL); size_t *o = OUT("size", v); R(nvrtcGetProgramLogSize, p, o); }
static void op_nvrtcGetProgramLog(void) {
    nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL);
    char *o = pick(7) ? (cls("log", "V"), BIGBUF) : (cls("log", "N"), NULL); R(nvrtcGetProgramLog, p, o);
}
static void op_nvrtcAddNameExpression(void) {
    nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL); const char *n = name_arg("expr", "&k"); R(nvrtcAddNameExpression, p, n);
}
static void op_nvrtcGetLoweredName(void) {
    nvrtcProgram p = (nvrtcProgram)(uintptr_t)handle("prog", K_PROG, 0, NULL); const char *n = name_arg("expr", "&k");
    const char *l; const char **o = OUT("lowered", l); R(nvrtcGetLoweredName, p, n, o);
}
static void op_nvrtcGetErrorString(void) { int c = code_arg("code"); RP(nvrtcGetErrorString, (nvrtcResult)c); }
static void op_nvrtcGetPCHHeapSize(void) { size_t v; size_t *o = OUT("size", v); R(nvrtcGetPCHHeapSize, o); }

/* The table: name, operation, weight. */
struct op {
    const char *name;
    void (*f)(void);
    double w;
};
#define O(name, w) {#name, op_##name, w},
static struct op OPS[] = {
    O(cuInit, 1) O(cuDriverGetVersion, 1) O(cuDeviceGet, 2) O(cuDeviceGetCount, 1) O(cuDeviceGetName, 2)
    O(cuDeviceGetAttribute, 3) O(cuDeviceTotalMem, 1) O(cuDeviceGetUuid, 1) O(cuDeviceGetLuid, 1)
    O(cuDeviceCanAccessPeer, 1) O(cuDeviceGetP2PAttribute, 1) O(cuDevicePrimaryCtxRetain, 1)
    O(cuDevicePrimaryCtxRelease, 0.3) O(cuDevicePrimaryCtxGetState, 1) O(cuDevicePrimaryCtxSetFlags, 1)
    O(cuCtxCreate, 0.3) O(cuCtxDestroy, 1) O(cuCtxSetCurrent, 2) O(cuCtxGetCurrent, 1) O(cuCtxPushCurrent, 1)
    O(cuCtxPopCurrent, 1) O(cuCtxSynchronize, 1) O(cuCtxGetDevice, 1) O(cuCtxGetApiVersion, 1) O(cuCtxGetFlags, 1)
    O(cuCtxSetFlags, 1) O(cuCtxGetId, 1) O(cuCtxSetLimit, 1) O(cuCtxGetLimit, 1) O(cuCtxGetStreamPriorityRange, 1)
    O(cuCtxEnablePeerAccess, 1) O(cuCtxRecordEvent, 1)
    O(cuMemAlloc, 4) O(cuMemFree, 3) O(cuMemGetInfo, 1) O(cuMemGetAddressRange, 2) O(cuMemAllocPitch, 1)
    O(cuMemAllocManaged, 1) O(cuMemHostAlloc, 2) O(cuMemFreeHost, 2) O(cuMemHostGetDevicePointer, 1)
    O(cuMemHostGetFlags, 1) O(cuMemcpyHtoD, 3) O(cuMemcpyDtoH, 3) O(cuMemcpyDtoD, 2) O(cuMemcpyHtoDAsync, 2)
    O(cuMemcpyDtoHAsync, 2) O(cuMemcpyDtoDAsync, 1) O(cuMemsetD8, 2) O(cuMemsetD32, 2) O(cuMemsetD8Async, 1)
    O(cuMemsetD2D8, 1) O(cuMemAllocAsync, 2) O(cuMemFreeAsync, 2) O(cuPointerGetAttribute, 2)
    O(cuPointerGetAttributes, 1) O(cuMemGetAllocationGranularity, 1) O(cuMemCreate, 1) O(cuMemRelease, 1)
    O(cuDeviceGetDefaultMemPool, 1) O(cuMemPoolGetAttribute, 1) O(cuMemPoolSetAttribute, 1) O(cuMemPoolTrimTo, 1)
    O(cuStreamCreate, 3) O(cuStreamCreateWithPriority, 1) O(cuStreamDestroy, 2) O(cuStreamSynchronize, 2)
    O(cuStreamQuery, 2) O(cuStreamWaitEvent, 2) O(cuStreamGetPriority, 1) O(cuStreamGetFlags, 1) O(cuStreamGetCtx, 1)
    O(cuStreamGetId, 1) O(cuStreamBeginCapture, 1) O(cuStreamEndCapture, 1) O(cuStreamIsCapturing, 1)
    O(cuLaunchHostFunc, 1) O(cuEventCreate, 3) O(cuEventDestroy, 2) O(cuEventRecord, 2) O(cuEventRecordWithFlags, 1)
    O(cuEventQuery, 2) O(cuEventSynchronize, 2) O(cuEventElapsedTime, 2)
    O(cuModuleLoadData, 1.5) O(cuModuleLoadDataEx, 1) O(cuModuleUnload, 1) O(cuModuleGetFunction, 2)
    O(cuModuleGetGlobal, 1) O(cuModuleGetLoadingMode, 0.5) O(cuLaunchKernel, 4) O(cuFuncGetAttribute, 2)
    O(cuFuncSetAttribute, 1) O(cuFuncSetCacheConfig, 1) O(cuFuncGetName, 1)
    O(cuOccupancyMaxActiveBlocksPerMultiprocessor, 1) O(cuLibraryLoadData, 1) O(cuLibraryUnload, 1)
    O(cuLibraryGetKernel, 1) O(cuLibraryGetModule, 1) O(cuKernelGetFunction, 1) O(cuKernelGetAttribute, 1)
    O(cuKernelGetName, 1) O(cuGraphCreate, 1) O(cuGraphDestroy, 1) O(cuGraphAddEmptyNode, 1) O(cuGraphGetNodes, 1)
    O(cuGraphInstantiate, 1) O(cuGraphLaunch, 1) O(cuGraphExecDestroy, 1) O(cuGetErrorName, 1)
    O(cuGetErrorString, 1) O(cuGetProcAddress, 2)
    O(cudaGetDeviceCount, 1) O(cudaGetDevice, 1) O(cudaSetDevice, 2) O(cudaGetDeviceProperties, 1)
    O(cudaDeviceGetAttribute, 2) O(cudaDeviceSynchronize, 1) O(cudaDeviceGetLimit, 1) O(cudaDeviceSetLimit, 1)
    O(cudaDeviceGetStreamPriorityRange, 1) O(cudaSetDeviceFlags, 1) O(cudaGetDeviceFlags, 1)
    O(cudaDeviceCanAccessPeer, 1) O(cudaDeviceEnablePeerAccess, 1) O(cudaGetLastError, 1) O(cudaPeekAtLastError, 1)
    O(cudaGetErrorName, 1) O(cudaGetErrorString, 1) O(cudaDriverGetVersion, 1) O(cudaRuntimeGetVersion, 1)
    O(cudaMalloc, 3) O(cudaFree, 3) O(cudaMallocHost, 1) O(cudaFreeHost, 1) O(cudaHostAlloc, 1) O(cudaMallocManaged, 1)
    O(cudaMemGetInfo, 1) O(cudaMemcpy, 4) O(cudaMemcpyAsync, 2) O(cudaMemset, 2) O(cudaMemsetAsync, 1)
    O(cudaPointerGetAttributes, 2) O(cudaStreamCreate, 2) O(cudaStreamCreateWithFlags, 1)
    O(cudaStreamCreateWithPriority, 1) O(cudaStreamDestroy, 2) O(cudaStreamSynchronize, 2) O(cudaStreamQuery, 1)
    O(cudaStreamWaitEvent, 1) O(cudaStreamGetPriority, 1) O(cudaStreamGetFlags, 1) O(cudaStreamBeginCapture, 1)
    O(cudaStreamEndCapture, 1) O(cudaStreamIsCapturing, 1) O(cudaEventCreate, 2) O(cudaEventCreateWithFlags, 1)
    O(cudaEventDestroy, 2) O(cudaEventRecord, 2) O(cudaEventQuery, 1) O(cudaEventSynchronize, 1)
    O(cudaEventElapsedTime, 1) O(cudaFuncGetAttributes, 1) O(cudaLaunchKernel, 2)
    O(cudaOccupancyMaxActiveBlocksPerMultiprocessor, 1) O(cudaGraphCreate, 1) O(cudaGraphDestroy, 1)
    O(cudaGraphInstantiate, 1) O(cudaGraphLaunch, 1) O(cudaGraphExecDestroy, 1)
    O(nvrtcVersion, 0.5) O(nvrtcGetNumSupportedArchs, 0.5) O(nvrtcGetSupportedArchs, 0.5) O(nvrtcCreateProgram, 2)
    O(nvrtcDestroyProgram, 1.5) O(nvrtcCompileProgram, 0.5) O(nvrtcGetPTXSize, 1) O(nvrtcGetPTX, 1)
    O(nvrtcGetCUBINSize, 1) O(nvrtcGetCUBIN, 1) O(nvrtcGetLTOIRSize, 0.5) O(nvrtcGetProgramLogSize, 1)
    O(nvrtcGetProgramLog, 1) O(nvrtcAddNameExpression, 1) O(nvrtcGetLoweredName, 1) O(nvrtcGetErrorString, 0.5)
    O(nvrtcGetPCHHeapSize, 0.5)
};
#undef O
#define NOPS (sizeof OPS / sizeof OPS[0])
static double WTOTAL;

static void run_dtor(struct obj *o) {
    uint64_t v = o->v;
    CLSN = 0;
    cls("cleanup", KNAME[o->kind]);
    switch (o->dtor) {
    case D_CTX: R(cuCtxDestroy, (CUcontext)(uintptr_t)v); if (p_cuCtxSetCurrent) Q(cuCtxSetCurrent, (CUcontext)(uintptr_t)BASE[K_CTX]); break;
    case D_STREAM: R(cuStreamDestroy, (CUstream)(uintptr_t)v); break;
    case D_RTSTREAM: R(cudaStreamDestroy, (cudaStream_t)(uintptr_t)v); break;
    case D_EVENT: R(cuEventDestroy, (CUevent)(uintptr_t)v); break;
    case D_RTEVENT: R(cudaEventDestroy, (cudaEvent_t)(uintptr_t)v); break;
    case D_MOD: R(cuModuleUnload, (CUmodule)(uintptr_t)v); break;
    case D_DPTR: R(cuMemFree, (CUdeviceptr)v); break;
    case D_RTDPTR: R(cudaFree, (void *)(uintptr_t)v); break;
    case D_HOST: R(cuMemFreeHost, (void *)(uintptr_t)v); break;
    case D_RTHOST: R(cudaFreeHost, (void *)(uintptr_t)v); break;
    case D_PROG: { nvrtcProgram p = (nvrtcProgram)(uintptr_t)v; R(nvrtcDestroyProgram, &p); break; }
    case D_GRAPH: R(cuGraphDestroy, (CUgraph)(uintptr_t)v); break;
    case D_RTGRAPH: R(cudaGraphDestroy, (cudaGraph_t)(uintptr_t)v); break;
    case D_GEXEC: R(cuGraphExecDestroy, (CUgraphExec)(uintptr_t)v); break;
    case D_RTGEXEC: R(cudaGraphExecDestroy, (cudaGraphExec_t)(uintptr_t)v); break;
    case D_LIB: R(cuLibraryUnload, (CUlibrary)(uintptr_t)v); break;
    case D_MEMH: R(cuMemRelease, (CUmemGenericAllocationHandle)v); break;
    case D_CAPTURE: case D_RTCAPTURE: {
        /* End a capture the case may have left open (an error if it is not capturing); the
         * graph it returns is destroyed silently. */
        CUgraph g = 0;
        R(cuStreamEndCapture, (CUstream)(uintptr_t)v, &g);
        if (g && p_cuGraphDestroy) Q(cuGraphDestroy, g);
        break;
    }
    default: CLSN = 0; CLS[0] = 0; break;
    }
}

/* What a case may change in the batch's objects is put back before the next case, and the
 * objects whose state a case changes most (program, graph, stream, event) are the case's own, so
 * that a case sees the same state whichever case its process started at: a column whose process
 * crashed and restarted must still make comparable calls. (Not everything can be put back: a
 * context a case broke stays broken until the process ends; compare.py marks the calls whose
 * process started at another case than the reference's.) */
static size_t LIMITS[7];
static int LIMIT_OK[7], FATTR[20], FATTR_OK[20], CTXFLAGS_OK, PRIMFLAGS_OK, POOLATTR_OK[5];
static unsigned CTXFLAGS, PRIMFLAGS;
static uint64_t POOLATTR[5];
static void case_base_begin(void) {
    CUcontext c;
    memset(FAKE_OBJ, 0, sizeof FAKE_OBJ);
    for (int i = 0; i < 64 && p_cuCtxPopCurrent; i++)
        if (Q(cuCtxPopCurrent, &c) != 0) break;
    if (p_cudaSetDevice) Q(cudaSetDevice, 0);
    if (p_cuCtxSetCurrent) Q(cuCtxSetCurrent, (CUcontext)(uintptr_t)BASE[K_CTX]);
    unsigned fl;
    int active;
    if (PRIMFLAGS_OK && Q(cuDevicePrimaryCtxGetState, 0, &fl, &active) == 0 && fl != PRIMFLAGS) Q(cuDevicePrimaryCtxSetFlags, 0, PRIMFLAGS);
    if (CTXFLAGS_OK && Q(cuCtxGetFlags, &fl) == 0 && fl != CTXFLAGS) Q(cuCtxSetFlags, CTXFLAGS);
    for (int a = 1; a <= 4; a++) { /* the reuse policies and the release threshold */
        uint64_t v = 0;
        if (POOLATTR_OK[a] && Q(cuMemPoolGetAttribute, (CUmemoryPool)(uintptr_t)BASE[K_POOL], (CUmemPool_attribute)a, &v) == 0 &&
            v != POOLATTR[a])
            Q(cuMemPoolSetAttribute, (CUmemoryPool)(uintptr_t)BASE[K_POOL], (CUmemPool_attribute)a, &POOLATTR[a]);
    }
    for (int l = 0; l < 7; l++) {
        size_t v;
        if (LIMIT_OK[l] && Q(cuCtxGetLimit, &v, (CUlimit)l) == 0 && v != LIMITS[l]) Q(cuCtxSetLimit, (CUlimit)l, LIMITS[l]);
    }
    CUfunction f = (CUfunction)(uintptr_t)BASE[K_FUNC];
    for (int a = 0; f && a < 20; a++) {
        int v;
        if (FATTR_OK[a] && Q(cuFuncGetAttribute, &v, (CUfunction_attribute)a, f) == 0 && v != FATTR[a])
            Q(cuFuncSetAttribute, f, (CUfunction_attribute)a, FATTR[a]);
    }
    if (f) Q(cuFuncSetCacheConfig, f, CU_FUNC_CACHE_PREFER_NONE);
    CUstream s = 0;
    Q(cuStreamCreate, &s, CU_STREAM_NON_BLOCKING);
    BASE[K_STREAM] = (uintptr_t)s;
    CUevent e = 0;
    Q(cuEventCreate, &e, 0);
    BASE[K_EVENT] = (uintptr_t)e;
    nvrtcProgram p = 0;
    Q(nvrtcCreateProgram, &p, KERNEL_SRC, "k.cu", 0, NULL, NULL);
    BASE[K_PROG] = (uintptr_t)p;
    CUgraph g = 0;
    Q(cuGraphCreate, &g, 0);
    BASE[K_GRAPH] = (uintptr_t)g;
    CUgraphNode node = 0;
    if (g) Q(cuGraphAddEmptyNode, &node, g, NULL, 0);
    BASE[K_NODE] = (uintptr_t)node;
    CUgraphExec ge = 0;
    if (g) Q(cuGraphInstantiate, &ge, g, 0);
    BASE[K_GEXEC] = (uintptr_t)ge;
}
static void case_base_end(void) {
    if (BASE[K_GEXEC]) Q(cuGraphExecDestroy, (CUgraphExec)(uintptr_t)BASE[K_GEXEC]);
    if (BASE[K_GRAPH]) Q(cuGraphDestroy, (CUgraph)(uintptr_t)BASE[K_GRAPH]);
    nvrtcProgram p = (nvrtcProgram)(uintptr_t)BASE[K_PROG];
    if (p) Q(nvrtcDestroyProgram, &p);
    if (BASE[K_EVENT]) Q(cuEventDestroy, (CUevent)(uintptr_t)BASE[K_EVENT]);
    if (BASE[K_STREAM]) {
        CUgraph g = 0; /* a capture the case left open on it */
        if (Q(cuStreamEndCapture, (CUstream)(uintptr_t)BASE[K_STREAM], &g) == 0 && g) Q(cuGraphDestroy, g);
        Q(cuStreamDestroy, (CUstream)(uintptr_t)BASE[K_STREAM]);
    }
    BASE[K_GEXEC] = BASE[K_GRAPH] = BASE[K_NODE] = BASE[K_PROG] = BASE[K_EVENT] = BASE[K_STREAM] = 0;
}

static uint64_t SEED = 1;
static int MINSTEPS = 6, MAXSTEPS = 40;
static void run_case(int c) {
    CASE = c;
    STEP = -1;
    NOBJ = 0;
    memset(NDEAD, 0, sizeof NDEAD);
    case_base_begin();
    STEP = 0;
    RS = SEED * 0x100000001B3ULL ^ ((uint64_t)c * 0xD1B54A32D192ED03ULL);
    rnd();
    CLSN = 0;
    CLS[0] = 0;
    /* Prologue: the batch's context current (a case may have changed it). */
    cls("ctx", "Vb");
    R(cuCtxSetCurrent, (CUcontext)(uintptr_t)BASE[K_CTX]);
    int n = MINSTEPS + (int)pick((unsigned)(MAXSTEPS - MINSTEPS + 1));
    for (int s = 0; s < n; s++) {
        double x = (double)(rnd() >> 11) / 9007199254740992.0 * WTOTAL;
        size_t i = 0;
        for (; i < NOPS - 1; i++) {
            if (x < OPS[i].w) break;
            x -= OPS[i].w;
        }
        while (OPS[i].w <= 0 && i > 0) i--;
        CLSN = 0;
        CLS[0] = 0;
        OPS[i].f();
    }
    /* Cleanup: every object the case created and did not destroy, newest first. */
    for (int i = NOBJ - 1; i >= 0; i--)
        if (OBJ[i].alive && OBJ[i].dtor != D_NONE) {
            run_dtor(&OBJ[i]);
            OBJ[i].alive = 0;
        }
    CLSN = 0;
    CLS[0] = 0;
    /* The Runtime's last error would carry into the next case. */
    STEP = -1;
    if (p_cudaGetLastError) Q(cudaGetLastError);
    case_base_end();
}

/* ---- the batch: libraries, kernel image, base objects ------------------------------------------ */
static void *LIBH[NLIB];
static char LIBERR[NLIB][200];
static void open_libs(void) {
    for (int l = 0; l < NLIB; l++) {
        LIBH[l] = dlopen(SONAME[l], RTLD_NOW | RTLD_LOCAL);
        const char *e = LIBH[l] ? NULL : dlerror();
        snprintf(LIBERR[l], sizeof LIBERR[l], "%s", e ? e : "?");
    }
    for (size_t i = 0; i < NSYMS; i++) *SYMS[i].slot = LIBH[SYMS[i].lib] ? dlsym(LIBH[SYMS[i].lib], SYMS[i].name) : NULL;
}

static void make_base(void) {
    CASE = SH->ccase;
    STEP = -1;
    memset(BASE, 0, sizeof BASE);
    memset(BASE_DEAD, 0, sizeof BASE_DEAD);
    Q(cuInit, 0);
    CUdevice dev = 0;
    Q(cuDeviceGet, &dev, 0);
    CUcontext ctx = 0;
    Q(cuDevicePrimaryCtxRetain, &ctx, dev);
    BASE[K_CTX] = (uintptr_t)ctx;
    Q(cuCtxSetCurrent, ctx);
    for (int l = 0; l < 7; l++) LIMIT_OK[l] = Q(cuCtxGetLimit, &LIMITS[l], (CUlimit)l) == 0;
    int active;
    PRIMFLAGS_OK = Q(cuDevicePrimaryCtxGetState, dev, &PRIMFLAGS, &active) == 0;
    CTXFLAGS_OK = Q(cuCtxGetFlags, &CTXFLAGS) == 0;
    CUstream s = 0;
    CUevent e = 0;
    CUdeviceptr d = 0;
    Q(cuMemAlloc, &d, 1u << 20);
    BASE[K_DPTR] = d;
    void *h = NULL;
    Q(cuMemHostAlloc, &h, 65536, 0);
    BASE[K_HOST] = (uintptr_t)h;
    const void *img = SH->image_len ? (const void *)SH->image : FALLBACK_PTX;
    CUmodule m = 0;
    Q(cuModuleLoadData, &m, img);
    BASE[K_MOD] = (uintptr_t)m;
    CUfunction f = 0;
    if (m) Q(cuModuleGetFunction, &f, m, "k");
    BASE[K_FUNC] = (uintptr_t)f;
    for (int a = 0; a < 20; a++) FATTR_OK[a] = f && Q(cuFuncGetAttribute, &FATTR[a], (CUfunction_attribute)a, f) == 0;
    CUlibrary lib = 0;
    Q(cuLibraryLoadData, &lib, img, NULL, NULL, 0, NULL, NULL, 0);
    BASE[K_LIB] = (uintptr_t)lib;
    CUkernel k = 0;
    if (lib) Q(cuLibraryGetKernel, &k, lib, "k");
    BASE[K_KERNEL] = (uintptr_t)k;
    nvrtcProgram p = 0;
    CUgraph g = 0;
    CUmemoryPool pool = 0;
    Q(cuDeviceGetDefaultMemPool, &pool, dev);
    BASE[K_POOL] = (uintptr_t)pool;
    for (int a = 1; a <= 4; a++) {
        POOLATTR[a] = 0;
        POOLATTR_OK[a] = pool && Q(cuMemPoolGetAttribute, pool, (CUmemPool_attribute)a, &POOLATTR[a]) == 0;
    }
    /* One dangling value of each kind: created, then destroyed. */
    s = 0;
    Q(cuStreamCreate, &s, 0);
    if (s) Q(cuStreamDestroy, s);
    BASE_DEAD[K_STREAM] = (uintptr_t)s;
    e = 0;
    Q(cuEventCreate, &e, 0);
    if (e) Q(cuEventDestroy, e);
    BASE_DEAD[K_EVENT] = (uintptr_t)e;
    d = 0;
    Q(cuMemAlloc, &d, 4096);
    if (d) Q(cuMemFree, d);
    BASE_DEAD[K_DPTR] = d;
    h = NULL;
    Q(cuMemHostAlloc, &h, 4096, 0);
    if (h) Q(cuMemFreeHost, h);
    BASE_DEAD[K_HOST] = (uintptr_t)h;
    m = 0;
    Q(cuModuleLoadData, &m, img);
    if (m) {
        CUfunction df = 0;
        Q(cuModuleGetFunction, &df, m, "k");
        BASE_DEAD[K_FUNC] = (uintptr_t)df;
        Q(cuModuleUnload, m);
    }
    BASE_DEAD[K_MOD] = (uintptr_t)m;
    p = 0;
    Q(nvrtcCreateProgram, &p, KERNEL_SRC, "d.cu", 0, NULL, NULL);
    BASE_DEAD[K_PROG] = (uintptr_t)p;
    if (p) Q(nvrtcDestroyProgram, &p);
    g = 0;
    Q(cuGraphCreate, &g, 0);
    if (g) Q(cuGraphDestroy, g);
    BASE_DEAD[K_GRAPH] = (uintptr_t)g;
    lib = 0;
    Q(cuLibraryLoadData, &lib, img, NULL, NULL, 0, NULL, NULL, 0);
    if (lib) Q(cuLibraryUnload, lib);
    BASE_DEAD[K_LIB] = (uintptr_t)lib;
    CUcontext c2 = 0;
    /* No context is created for the dangling one (slow, and a destroyed context's handle is as
     * dangling as any): the made-up classes cover contexts. */
    (void)c2;
}

/* The kernel image: compiled once per run by NVRTC (through whichever library the soname
 * gives: anycuda's HIP backend answers with an AMD code object), in a child of its own. */
static void compile_image(void) {
    open_libs();
    void *first[NLIB] = {(void *)p_cuInit, (void *)p_cudaGetDeviceCount, (void *)p_nvrtcVersion};
    for (int l = 0; l < NLIB; l++) {
        Dl_info info;
        if (!LIBH[l]) snprintf(SH->libs[l], sizeof SH->libs[l], "not loaded (%s)", LIBERR[l]);
        else if (first[l] && dladdr(first[l], &info) && info.dli_fname) snprintf(SH->libs[l], sizeof SH->libs[l], "%s", info.dli_fname);
        else snprintf(SH->libs[l], sizeof SH->libs[l], "loaded, symbol not found");
    }
    SH->image_len = 0;
    snprintf(SH->image_from, sizeof SH->image_from, "fallback PTX");
    nvrtcProgram p = 0;
    CASE = -1;
    STEP = -1;
    if (!p_nvrtcCreateProgram || Q(nvrtcCreateProgram, &p, KERNEL_SRC, "k.cu", 0, NULL, NULL) != 0) return;
    size_t n = 0;
    /* With no AMD device, anycuda's HIP backend needs a target named (docs/nvrtc-on-hip.md). */
    const char *hip_arch[1] = {"--anycuda-hip-arch=gfx90a"};
    int ok = Q(nvrtcCompileProgram, p, 0, NULL) == 0;
    if (!ok) {
        Q(nvrtcDestroyProgram, &p);
        p = 0;
        ok = Q(nvrtcCreateProgram, &p, KERNEL_SRC, "k.cu", 0, NULL, NULL) == 0 && Q(nvrtcCompileProgram, p, 1, hip_arch) == 0;
    }
    if (ok && Q(nvrtcGetPTXSize, p, &n) == 0 && n > 0 && n <= IMAGE_MAX &&
        Q(nvrtcGetPTX, p, (char *)SH->image) == 0) {
        SH->image_len = n;
        SH->image_binary = SH->image[0] == 0x7f || memchr(SH->image, 0, n - 1) != NULL;
        snprintf(SH->image_from, sizeof SH->image_from, "nvrtc (%zu bytes, %s)", n, SH->image_binary ? "binary" : "text");
    }
    Q(nvrtcDestroyProgram, &p);
}

static void child_batch(int first, int last) {
    char mark[64];
    int n = snprintf(mark, sizeof mark, "# process from case %d\n", first);
    ssize_t w = write(LOGFD, mark, (size_t)n);
    (void)w;
    open_libs();
    SH->ccase = first;
    make_base();
    for (int c = first; c < last; c++) run_case(c);
    SH->batch_done = 1;
    SH->in_call = 0;
    snprintf(SH->fn, sizeof SH->fn, "exit");
    SH->cls[0] = '-';
    SH->cls[1] = 0;
    SH->step = -2;
    exit(0); /* through the libraries' exit handlers, as a program would */
}

/* ---- the parent ---------------------------------------------------------------------------- */
static const char *signame(int sig) {
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS: return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE: return "SIGFPE";
    case SIGILL: return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGALRM: return "SIGALRM";
    case SIGTRAP: return "SIGTRAP";
    case SIGPIPE: return "SIGPIPE";
    case SIGSYS: return "SIGSYS";
    default: return "SIG?";
    }
}
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + t.tv_nsec / 1e9;
}
static void wline(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void wline(const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > (int)sizeof buf - 1) n = (int)sizeof buf - 1;
    ssize_t w = write(LOGFD, buf, (size_t)n);
    (void)w;
}

static void usage(void) {
    fprintf(stderr, "usage: fuzz [-s SEED] [-n CASES] [-f FIRST] [-b BATCH] [-t TIMEOUT_S] [-T TIME_LIMIT_S]\n"
                    "            [-m MINSTEPS] [-M MAXSTEPS] [-p V,N,D,M,W] [-w NAME=WEIGHT]... [-l] -o LOG\n");
    exit(2);
}

int main(int argc, char **argv) {
    int cases = 100, first = 0, batch = 50, list = 0;
    double timeout = 20, limit = 0;
    const char *logpath = NULL;
    int opt;
    while ((opt = getopt(argc, argv, "s:n:f:b:t:T:m:M:p:w:lo:")) != -1) {
        switch (opt) {
        case 's': SEED = strtoull(optarg, NULL, 0); break;
        case 'n': cases = atoi(optarg); break;
        case 'f': first = atoi(optarg); break;
        case 'b': batch = atoi(optarg); break;
        case 't': timeout = atof(optarg); break;
        case 'T': limit = atof(optarg); break;
        case 'm': MINSTEPS = atoi(optarg); break;
        case 'M': MAXSTEPS = atoi(optarg); break;
        case 'p':
            if (sscanf(optarg, "%u,%u,%u,%u,%u", &PV, &PN, &PD, &PM, &PW) != 5) usage();
            break;
        case 'w': {
            const char *eq = strchr(optarg, '=');
            if (!eq) usage();
            int found = 0;
            for (size_t i = 0; i < NOPS; i++)
                if (strlen(OPS[i].name) == (size_t)(eq - optarg) && !strncmp(OPS[i].name, optarg, (size_t)(eq - optarg)))
                    OPS[i].w = atof(eq + 1), found = 1;
            if (!found) { fprintf(stderr, "fuzz: no function %.*s in the table\n", (int)(eq - optarg), optarg); return 2; }
            break;
        }
        case 'l': list = 1; break;
        case 'o': logpath = optarg; break;
        default: usage();
        }
    }
    WTOTAL = 0;
    for (size_t i = 0; i < NOPS; i++) WTOTAL += OPS[i].w > 0 ? OPS[i].w : 0;
    if (list) {
        for (size_t i = 0; i < NOPS; i++) printf("%s %g\n", OPS[i].name, OPS[i].w);
        return 0;
    }
    if (!logpath || cases < 0 || batch < 1 || MINSTEPS < 0 || MAXSTEPS < MINSTEPS || PV + PN + PD + PM + PW == 0) usage();
    LOGFD = open(logpath, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0644);
    if (LOGFD < 0) { perror(logpath); return 2; }
    SH = mmap(NULL, sizeof *SH, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (SH == MAP_FAILED) { perror("mmap"); return 2; }
    HIN = malloc(HOSTBUF);
    HOUT = malloc(HOSTBUF);
    if (!HIN || !HOUT) return 2;
    for (unsigned i = 0; i < HOSTBUF; i++) HIN[i] = (unsigned char)(i * 131u);
    memset(HOUT, 0, HOSTBUF);
    RS = 42;
    for (size_t i = 0; i < sizeof GARBAGE - 1; i++) GARBAGE[i] = (unsigned char)(rnd() | 1);
    GARBAGE[0] = 'Z'; /* no ELF or fat-binary magic */
    GARBAGE[sizeof GARBAGE - 1] = 0;
    memcpy(TRUNC_PTX, FALLBACK_PTX, sizeof FALLBACK_PTX / 2);

    sigset_t chld, old;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, &old);

    wline("# anycuda C-ABI fuzzer: seed %llu, cases %d..%d, batch %d, steps %d..%d, classes V%u N%u D%u M%u W%u, %zu functions\n",
          (unsigned long long)SEED, first, first + cases - 1, batch, MINSTEPS, MAXSTEPS, PV, PN, PD, PM, PW, NOPS);
    const char *llp = getenv("LD_LIBRARY_PATH");
    wline("# LD_LIBRARY_PATH=%s ANYCUDA_BACKEND=%s\n", llp ? llp : "", getenv("ANYCUDA_BACKEND") ? getenv("ANYCUDA_BACKEND") : "");

    double t0 = now();
    unsigned long crashes = 0, timeouts = 0, children = 0;
    /* The image, then the batches. A child's status tells how it ended. */
    int next = first, end = first + cases, image_pass = 1;
    while (image_pass || next < end) {
        if (!image_pass && limit > 0 && now() - t0 > limit) {
            wline("# time limit %.0f s reached before case %d\n", limit, next);
            break;
        }
        int last = image_pass ? next : (next - first) / batch * batch + first + batch;
        if (last > end) last = end;
        SH->batch_done = 0;
        SH->in_call = 0;
        SH->ccase = next;
        SH->step = -1;
        snprintf(SH->fn, sizeof SH->fn, "setup");
        snprintf(SH->cls, sizeof SH->cls, "-");
        unsigned long seen = SH->progress;
        double last_progress = now();
        pid_t pid = fork();
        if (pid < 0) { perror("fork"); return 2; }
        if (pid == 0) {
            sigprocmask(SIG_SETMASK, &old, NULL);
            if (image_pass) {
                compile_image();
                _exit(0);
            }
            child_batch(next, last);
        }
        children++;
        int st = 0, killed = 0;
        for (;;) {
            struct timespec ts = {0, 200 * 1000 * 1000};
            sigtimedwait(&chld, NULL, &ts);
            pid_t r = waitpid(pid, &st, WNOHANG);
            if (r == pid) break;
            if (SH->progress != seen) { seen = SH->progress; last_progress = now(); }
            else if (now() - last_progress > timeout && !killed) { kill(pid, SIGKILL); killed = 1; }
        }
        if (image_pass) {
            image_pass = 0;
            if (!(WIFEXITED(st) && WEXITSTATUS(st) == 0)) SH->image_len = 0;
            wline("# kernel image: %s\n", SH->image_len ? SH->image_from : "fallback PTX (NVRTC gave no image)");
            for (int l = 0; l < NLIB; l++) wline("# %s: %s\n", SONAME[l], SH->libs[l][0] ? SH->libs[l] : "?");
            continue;
        }
        if (WIFEXITED(st) && WEXITSTATUS(st) == 0 && SH->batch_done) {
            next = last;
            continue;
        }
        char what[64];
        if (killed) { snprintf(what, sizeof what, "TIMEOUT"); timeouts++; }
        else if (WIFSIGNALED(st)) { snprintf(what, sizeof what, "CRASH(%s)", signame(WTERMSIG(st))); crashes++; }
        else { snprintf(what, sizeof what, "EXIT(%d)", WEXITSTATUS(st)); crashes++; }
        if (SH->batch_done) {
            /* The batch finished; exit itself failed (a library's exit handler). */
            wline("%d exit exit - %s\n", last - 1, what);
            next = last;
            continue;
        }
        if (SH->in_call || SH->step < 0) {
            wline("%d %d %s %s %s\n", SH->ccase, SH->step < 0 ? -1 : SH->step, SH->fn, SH->cls, what);
        } else {
            wline("%d %d harness - %s\n", SH->ccase, SH->step, what);
        }
        next = SH->ccase + 1;
        if (next <= SH->ccase) next = SH->ccase + 1;
    }
    double dt = now() - t0;
    wline("# done: cases %d..%d, %lu processes, %lu crashes, %lu timeouts, %.1f s\n", first, next - 1, children, crashes, timeouts, dt);
    fprintf(stderr, "fuzz: cases %d..%d in %.1f s, %lu processes, %lu crashes, %lu timeouts -> %s\n", first, next - 1, dt,
            children, crashes, timeouts, logpath);
    return 0;
}

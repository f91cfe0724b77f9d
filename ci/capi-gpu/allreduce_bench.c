/* NCCL all-reduce bus bandwidth across every visible GPU, nccl-tests' way (ci/capi-lib-bench.sh):
 * the same binary on NVIDIA's libnccl.so.2 and on anycuda's drop-in
 * (LD_LIBRARY_PATH="$(anycuda libdir)"). One process, ncclCommInitAll over the GPUs (at most 8),
 * one thread driving every rank in a group; float32 sum, out of place; per size a warm-up, then
 * N back-to-back all-reduces timed on the host up to every stream's synchronisation:
 * algbw = bytes / time, busbw = algbw * 2(n-1)/n. The first and last elements are checked.
 *
 *   nvcc -O2 -cudart shared -I<nccl>/include -o allreduce_bench allreduce_bench.c \
 *       -L<nccl>/lib -l:libnccl.so.2
 *   allreduce_bench [MAX_BYTES]     default 1 GiB; sizes 8 B, 1 KiB, 64 KiB, 1 MiB, 16 MiB,
 *                                   64 MiB, 256 MiB, 1 GiB (those up to MAX_BYTES)
 *
 * Prints `RESULT ar_us_<bytes> <us>` and `RESULT ar_busbw_<bytes> <GB/s>` per size; exits 77
 * (SKIP on stderr) with fewer than 2 GPUs, 1 on an error or a wrong sum. NCCL_NVLS_ENABLE=0 is
 * set before NCCL reads its environment. */
#include <cuda_runtime.h>
#include <nccl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define MAXDEV 8
#define CK(call)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (call);                                                          \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "allreduce_bench: %s: %s (line %d)\n", #call, cudaGetErrorName(e_), __LINE__); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)
#define NK(call)                                                                          \
    do {                                                                                  \
        ncclResult_t r_ = (call);                                                         \
        if (r_ != ncclSuccess) {                                                          \
            fprintf(stderr, "allreduce_bench: %s: %s (line %d)\n", #call, ncclGetErrorString(r_), __LINE__); \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

static double now_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e6 + (double)t.tv_nsec / 1e3;
}

static int nd;
static ncclComm_t comms[MAXDEV];
static cudaStream_t st[MAXDEV];
static float *sendb[MAXDEV], *recvb[MAXDEV];

static void step(size_t count) {
    NK(ncclGroupStart());
    for (int i = 0; i < nd; i++)
        NK(ncclAllReduce(sendb[i], recvb[i], count, ncclFloat32, ncclSum, comms[i], st[i]));
    NK(ncclGroupEnd());
}

static void sync_all(void) {
    for (int i = 0; i < nd; i++) {
        CK(cudaSetDevice(i));
        CK(cudaStreamSynchronize(st[i]));
    }
}

int main(int argc, char **argv) {
    setenv("NCCL_NVLS_ENABLE", "0", 1); /* shared hosts: no NVLink multicast */
    size_t max = argc > 1 ? strtoull(argv[1], NULL, 10) : (size_t)1 << 30;
    static const size_t sizes[] = {8, 1 << 10, 1 << 16, 1 << 20, 1 << 24, 1 << 26, 1 << 28, (size_t)1 << 30};
    cudaError_t e = cudaGetDeviceCount(&nd);
    if (e != cudaSuccess || nd < 2) {
        fprintf(stderr, "SKIP allreduce_bench: needs 2 GPUs (cudaGetDeviceCount: %s, %d)\n",
                cudaGetErrorName(e), e == cudaSuccess ? nd : 0);
        return 77;
    }
    if (nd > MAXDEV) nd = MAXDEV;
    int version = 0;
    NK(ncclGetVersion(&version));
    int devs[MAXDEV];
    for (int i = 0; i < nd; i++) devs[i] = i;
    NK(ncclCommInitAll(comms, nd, devs));
    size_t top = 8;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++)
        if (sizes[k] <= max) top = sizes[k];
    float *ones = malloc(top);
    if (!ones) return 1;
    for (size_t i = 0; i < top / 4; i++) ones[i] = 1.0f;
    for (int i = 0; i < nd; i++) {
        CK(cudaSetDevice(i));
        CK(cudaStreamCreate(&st[i]));
        CK(cudaMalloc((void **)&sendb[i], top));
        CK(cudaMalloc((void **)&recvb[i], top));
        CK(cudaMemcpy(sendb[i], ones, top, cudaMemcpyHostToDevice));
        CK(cudaMemset(recvb[i], 0, top));
    }
    free(ones);
    fprintf(stderr, "allreduce_bench: NCCL %d, %d GPUs, up to %zu bytes\n", version, nd, top);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0] && sizes[k] <= top; k++) {
        size_t bytes = sizes[k], count = bytes / 4;
        size_t iters = ((size_t)8 << 30) / bytes;
        iters = iters < 20 ? 20 : iters > 1000 ? 1000 : iters;
        for (size_t w = 0; w < iters / 10 + 5; w++) step(count);
        sync_all();
        double t0 = now_us();
        for (size_t it = 0; it < iters; it++) step(count);
        sync_all();
        double us = (now_us() - t0) / (double)iters;
        for (int i = 0; i < nd; i++) {
            float got[2];
            CK(cudaSetDevice(i));
            CK(cudaMemcpy(&got[0], recvb[i], 4, cudaMemcpyDeviceToHost));
            CK(cudaMemcpy(&got[1], recvb[i] + count - 1, 4, cudaMemcpyDeviceToHost));
            if (got[0] != (float)nd || got[1] != (float)nd) {
                fprintf(stderr, "allreduce_bench: wrong sum at %zu bytes on GPU %d: %g %g, want %d\n",
                        bytes, i, got[0], got[1], nd);
                return 1;
            }
        }
        double algbw = (double)bytes / us / 1e3; /* GB/s */
        printf("RESULT ar_us_%zu %.3f\n", bytes, us);
        printf("RESULT ar_busbw_%zu %.3f\n", bytes, algbw * 2.0 * (nd - 1) / nd);
        fflush(stdout);
    }
    for (int i = 0; i < nd; i++) {
        NK(ncclCommDestroy(comms[i]));
        CK(cudaSetDevice(i));
        CK(cudaFree(sendb[i]));
        CK(cudaFree(recvb[i]));
        CK(cudaStreamDestroy(st[i]));
    }
    return 0;
}

// All-reduce bus bandwidth and latency, 8 B to 1 GiB, on 2 GPUs, calling NCCL directly from C:
// the baseline for examples/bench_nccl.rs, measured the same way (one process, ncclCommInitAll,
// one thread driving both ranks in a group, float32 sum, warm-up, then N back-to-back
// all-reduces timed on the host around a final stream synchronisation).
//
//   nvcc -O2 -o nccl_baseline ci/bench/nccl_baseline.cu -Xlinker <dir>/libnccl.so.2 -Xlinker -rpath -Xlinker <dir>
//   ./nccl_baseline [max_bytes]        CSV on stdout: bytes,time_us,algbw_GBs,busbw_GBs
//
// The NCCL prototypes are declared here as nccl.h declares them (the ABI of these calls has not
// changed since 2.x), so the GPU machine needs the library only, not the header.
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <vector>

extern "C" {
typedef struct ncclComm* ncclComm_t;
typedef int ncclResult_t;  // ncclSuccess = 0
enum { ncclFloat32 = 7 };
enum { ncclSum = 0 };
ncclResult_t ncclGetVersion(int* version);
ncclResult_t ncclCommInitAll(ncclComm_t* comms, int ndev, const int* devlist);
ncclResult_t ncclCommDestroy(ncclComm_t comm);
ncclResult_t ncclAllReduce(const void* sendbuff, void* recvbuff, size_t count, int datatype,
                           int op, ncclComm_t comm, cudaStream_t stream);
ncclResult_t ncclGroupStart(void);
ncclResult_t ncclGroupEnd(void);
const char* ncclGetErrorString(ncclResult_t result);
}

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); exit(1); } } while (0)
#define NK(x) do { ncclResult_t r_ = (x); if (r_ != 0) { fprintf(stderr, "%s: %s\n", #x, ncclGetErrorString(r_)); exit(1); } } while (0)

static double now_us() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

int main(int argc, char** argv) {
    setenv("NCCL_NVLS_ENABLE", "0", 1);  // shared hosts: before NCCL reads its environment
    size_t max = argc > 1 ? strtoull(argv[1], 0, 10) : (size_t)1 << 30;
    int n = 0;
    CK(cudaGetDeviceCount(&n));
    if (n < 2) { fprintf(stderr, "needs 2 GPUs, found %d\n", n); return 1; }
    int version = 0;
    NK(ncclGetVersion(&version));
    fprintf(stderr, "# C baseline: NCCL %d\n", version);
    const int nd = 2, devs[2] = {0, 1};
    ncclComm_t comms[2];
    NK(ncclCommInitAll(comms, nd, devs));
    float *send[2], *recv[2];
    cudaStream_t st[2];
    size_t elems = max / 4;
    std::vector<float> ones(elems, 1.0f);
    for (int i = 0; i < nd; ++i) {
        CK(cudaSetDevice(i));
        CK(cudaStreamCreate(&st[i]));
        CK(cudaMalloc((void**)&send[i], max));
        CK(cudaMalloc((void**)&recv[i], max));
        CK(cudaMemcpy(send[i], ones.data(), max, cudaMemcpyHostToDevice));
        CK(cudaMemset(recv[i], 0, max));
    }
    printf("bytes,time_us,algbw_GBs,busbw_GBs\n");
    for (size_t bytes = 8; bytes <= max; bytes *= 2) {
        size_t count = bytes / 4;
        size_t iters = ((size_t)4 << 30) / bytes;
        iters = iters < 20 ? 20 : iters > 1000 ? 1000 : iters;
        size_t warm = iters / 10 + 5;
        auto step = [&]() {
            NK(ncclGroupStart());
            for (int i = 0; i < nd; ++i) NK(ncclAllReduce(send[i], recv[i], count, ncclFloat32, ncclSum, comms[i], st[i]));
            NK(ncclGroupEnd());
        };
        for (size_t k = 0; k < warm; ++k) step();
        for (int i = 0; i < nd; ++i) CK(cudaStreamSynchronize(st[i]));
        double t0 = now_us();
        for (size_t k = 0; k < iters; ++k) step();
        for (int i = 0; i < nd; ++i) CK(cudaStreamSynchronize(st[i]));
        double us = (now_us() - t0) / iters;
        float got[2];
        CK(cudaMemcpy(got, recv[0], sizeof got, cudaMemcpyDeviceToHost));
        if (got[0] != 2.0f || got[1] != 2.0f) { fprintf(stderr, "wrong result at %zu B\n", bytes); return 1; }
        double algbw = bytes / us / 1e3;
        printf("%zu,%.3f,%.3f,%.3f\n", bytes, us, algbw, algbw * 2.0 * (nd - 1) / nd);
        fflush(stdout);
    }
    for (int i = 0; i < nd; ++i) NK(ncclCommDestroy(comms[i]));
    return 0;
}

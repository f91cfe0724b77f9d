// Grid-wide synchronisation: cudaLaunchCooperativeKernel with a grid sized by the occupancy API
// (blocks per SM x SMs), a kernel in three phases separated by grid.sync(): fill, then read
// what other blocks wrote (a rotation by half the array) and form block sums, then one thread
// adds the block sums. Also grid.is_valid() and grid.num_threads(). Checked against the host.
#define SAMPLE "coop_grid_sync"
#include "common.cuh"
#include <cooperative_groups.h>
#include <vector>
namespace cg = cooperative_groups;

const int BLOCK = 256;

__global__ void phases(long long *a, long long *b, long long *partial, int n, long long *total,
                       int *info) {
    cg::grid_group grid = cg::this_grid();
    __shared__ long long sh[BLOCK];
    if (grid.thread_rank() == 0) {
        info[0] = grid.is_valid();
        info[1] = (int)grid.num_threads();
    }
    for (int i = (int)grid.thread_rank(); i < n; i += (int)grid.num_threads())
        a[i] = (long long)(i % 1000) * 3 - 1000;
    grid.sync(); // every block's writes to a are visible now
    long long mine = 0;
    for (int i = (int)grid.thread_rank(); i < n; i += (int)grid.num_threads()) {
        b[i] = a[i] - 2 * a[(i + n / 2) % n];
        mine += b[i];
    }
    sh[threadIdx.x] = mine;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s /= 2) {
        if (threadIdx.x < s) sh[threadIdx.x] += sh[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) partial[blockIdx.x] = sh[0];
    grid.sync();
    if (grid.thread_rank() == 0) {
        long long t = 0;
        for (unsigned k = 0; k < gridDim.x; k++) t += partial[k];
        *total = t;
    }
}

int main() {
    int dev = 0;
    CK(cudaGetDevice(&dev));
    int coop = 0, sms = 0;
    CK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
    CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
    EXPECT(coop == 1, "cudaDevAttrCooperativeLaunch is %d", coop);
    int per_sm = 0;
    CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, phases, BLOCK, 0));
    EXPECT(per_sm >= 1, "occupancy: %d blocks per SM", per_sm);
    int blocks = per_sm * sms;

    const int n = 3 << 20; // more elements than threads: the grid-stride loops matter
    long long *a, *b, *partial, *total;
    int *info;
    CK(cudaMalloc(&a, n * sizeof(long long)));
    CK(cudaMalloc(&b, n * sizeof(long long)));
    CK(cudaMalloc(&partial, (2 * blocks + 1) * sizeof(long long))); // room for the refused launch
    CK(cudaMalloc(&total, sizeof(long long)));
    CK(cudaMalloc(&info, 2 * sizeof(int)));
    int nn = n;
    void *args[] = {&a, &b, &partial, &nn, &total, &info};
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaLaunchCooperativeKernel((void *)phases, dim3(blocks), dim3(BLOCK), args, 0, s));
    CK(cudaStreamSynchronize(s));

    std::vector<long long> ha(n), hb(n);
    for (int i = 0; i < n; i++) ha[i] = (long long)(i % 1000) * 3 - 1000;
    long long want = 0;
    for (int i = 0; i < n; i++) {
        hb[i] = ha[i] - 2 * ha[(i + n / 2) % n];
        want += hb[i];
    }
    std::vector<long long> gb(n);
    long long got = 0;
    int ginfo[2] = {0, 0};
    CK(cudaMemcpy(gb.data(), b, n * sizeof(long long), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&got, total, sizeof got, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ginfo, info, sizeof ginfo, cudaMemcpyDeviceToHost));
    EXPECT(ginfo[0] != 0, "grid.is_valid() is false in a cooperative launch");
    EXPECT(ginfo[1] == blocks * BLOCK, "grid.num_threads() %d, launched %d", ginfo[1],
           blocks * BLOCK);
    for (int i = 0; i < n; i++)
        EXPECT(gb[i] == hb[i], "b[%d] = %lld, host %lld (a grid.sync() let a read go early?)", i,
               gb[i], hb[i]);
    EXPECT(got == want, "total %lld, host %lld", got, want);

    // Twice the co-resident grid cannot be cooperative: the launch must be refused, not hang.
    cudaError_t e =
        cudaLaunchCooperativeKernel((void *)phases, dim3(2 * blocks + 1), dim3(BLOCK), args, 0, s);
    EXPECT(e == cudaErrorCooperativeLaunchTooLarge, "oversized cooperative launch: %s",
           cudaGetErrorName(e));
    e = cudaGetLastError();
    EXPECT(e == cudaSuccess || e == cudaErrorCooperativeLaunchTooLarge, "last error %s",
           cudaGetErrorName(e));
    CK(cudaStreamSynchronize(s));

    CK(cudaStreamDestroy(s));
    for (void *p : {(void *)a, (void *)b, (void *)partial, (void *)total, (void *)info})
        CK(cudaFree(p));
    return pass();
}

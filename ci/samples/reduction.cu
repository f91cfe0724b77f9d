// Reductions on the device, without printf: a two-pass sum (grid-stride loads, warp shuffles,
// shared memory, then one block over the partial sums) for int64 and double; an arg-min/arg-max
// pass; and a one-pass sum where the last block to finish (a ticket counter behind
// __threadfence) adds the partials. All compared with the host.
#define SAMPLE "reduction"
#include "common.cuh"
#include <vector>

const int BLOCK = 256;

template <typename T> __device__ T block_reduce(T v) {
    __shared__ T warp_sums[BLOCK / 32];
    for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < BLOCK / 32 ? warp_sums[threadIdx.x] : T(0);
        for (int d = 16; d > 0; d /= 2) v += __shfl_down_sync(0xffffffffu, v, d);
    }
    __syncthreads(); // warp_sums may be reused by the caller's next reduction
    return v;        // valid in thread 0
}

template <typename T, typename In> __global__ void partial_sums(const In *in, int n, T *out) {
    T v = 0;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) v += (T)in[i];
    v = block_reduce(v);
    if (threadIdx.x == 0) out[blockIdx.x] = v;
}

// Arg-min and arg-max at once: (order-preserving key of the value, index) packed in 64 bits, so
// a tie goes to the lower index for the minimum and the higher index for the maximum.
__global__ void argminmax(const float *in, int n, unsigned long long *kmin,
                          unsigned long long *kmax) {
    __shared__ unsigned long long lo, hi;
    if (threadIdx.x == 0) lo = ~0ull, hi = 0;
    __syncthreads();
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) {
        unsigned bits = __float_as_uint(in[i]);
        unsigned key = (bits & 0x80000000u) ? ~bits : bits | 0x80000000u;
        unsigned long long k = ((unsigned long long)key << 32) | (unsigned)i;
        atomicMin(&lo, k);
        atomicMax(&hi, k);
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        atomicMin(kmin, lo);
        atomicMax(kmax, hi);
    }
}

__device__ unsigned int ticket = 0;
__global__ void one_pass(const int *in, int n, long long *partials, long long *result) {
    __shared__ bool last;
    long long v = 0;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) v += in[i];
    v = block_reduce(v);
    if (threadIdx.x == 0) {
        partials[blockIdx.x] = v;
        __threadfence(); // the partial is visible before the ticket says so
        last = atomicInc(&ticket, gridDim.x - 1) == gridDim.x - 1; // wraps to 0 for the next run
    }
    __syncthreads();
    if (last) {
        long long t = 0;
        const volatile long long *vp = partials; // written by other blocks: no cached reads
        for (unsigned b = threadIdx.x; b < gridDim.x; b += BLOCK) t += vp[b];
        t = block_reduce(t);
        if (threadIdx.x == 0) *result = t;
    }
}

int main() {
    const int n = 1 << 22, G = 240;
    std::vector<int> hi(n);
    std::vector<float> hf(n);
    for (int i = 0; i < n; i++) {
        hi[i] = (int)((i * 2246822519u) >> 8) - (1 << 23);
        hf[i] = (float)hi[i] / 4096.0f + (float)i * 1e-7f;
    }
    long long want = 0;
    double fwant = 0, fabs_sum = 0;
    int amin = 0, amax = 0;
    for (int i = 0; i < n; i++) {
        want += hi[i];
        fwant += (double)hf[i];
        fabs_sum += std::fabs((double)hf[i]);
        if (hf[i] < hf[amin]) amin = i;   // first of equal minima
        if (hf[i] >= hf[amax]) amax = i;  // last of equal maxima
    }
    int *di;
    float *df;
    long long *dpart, *dres;
    double *dfpart;
    unsigned long long *dmin, *dmax;
    CK(cudaMalloc(&di, n * sizeof(int)));
    CK(cudaMalloc(&df, n * sizeof(float)));
    CK(cudaMalloc(&dpart, G * sizeof(long long)));
    CK(cudaMalloc(&dfpart, G * sizeof(double)));
    CK(cudaMalloc(&dres, 2 * sizeof(long long)));
    CK(cudaMalloc(&dmin, sizeof(unsigned long long)));
    CK(cudaMalloc(&dmax, sizeof(unsigned long long)));
    CK(cudaMemcpy(di, hi.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(df, hf.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CK(cudaMemset(dmin, 0xff, sizeof(unsigned long long)));
    CK(cudaMemset(dmax, 0, sizeof(unsigned long long)));

    // Two passes.
    partial_sums<long long, int><<<G, BLOCK>>>(di, n, dpart);
    CK_LAUNCH();
    partial_sums<long long, long long><<<1, BLOCK>>>(dpart, G, dres);
    CK_LAUNCH();
    partial_sums<double, float><<<G, BLOCK>>>(df, n, dfpart);
    CK_LAUNCH();
    double fgot = 0;
    double *dfres = (double *)(dres + 1);
    partial_sums<double, double><<<1, BLOCK>>>(dfpart, G, dfres);
    CK_LAUNCH();
    long long got = 0;
    CK(cudaMemcpy(&got, dres, sizeof got, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&fgot, dfres, sizeof fgot, cudaMemcpyDeviceToHost));
    EXPECT(got == want, "two-pass int sum %lld, host %lld", got, want);
    // Summation order differs: allow rounding in proportion to the sum of magnitudes.
    EXPECT(std::fabs(fgot - fwant) <= 1e-10 * fabs_sum, "two-pass double sum %.15g, host %.15g",
           fgot, fwant);

    argminmax<<<G, BLOCK>>>(df, n, dmin, dmax);
    CK_LAUNCH();
    unsigned long long kmin = 0, kmax = 0;
    CK(cudaMemcpy(&kmin, dmin, sizeof kmin, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&kmax, dmax, sizeof kmax, cudaMemcpyDeviceToHost));
    EXPECT((int)(unsigned)kmin == amin, "arg-min %d, host %d", (int)(unsigned)kmin, amin);
    EXPECT((int)(unsigned)kmax == amax, "arg-max %d, host %d", (int)(unsigned)kmax, amax);

    // One pass, three times (the ticket wraps back to 0 each time).
    for (int r = 0; r < 3; r++) {
        CK(cudaMemset(dres, 0, sizeof(long long)));
        one_pass<<<G, BLOCK>>>(di, n - r, dpart, dres);
        CK_LAUNCH();
        CK(cudaMemcpy(&got, dres, sizeof got, cudaMemcpyDeviceToHost));
        long long w = want;
        for (int k = 0; k < r; k++) w -= hi[n - 1 - k];
        EXPECT(got == w, "one-pass sum (run %d) %lld, host %lld", r, got, w);
    }
    for (void *p : {(void *)di, (void *)df, (void *)dpart, (void *)dres, (void *)dfpart,
                    (void *)dmin, (void *)dmax})
        CK(cudaFree(p));
    return pass();
}

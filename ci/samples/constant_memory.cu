// Constant and global symbols: __constant__ arrays filled by cudaMemcpyToSymbol (whole, and at
// an offset) and cudaMemcpyToSymbolAsync, read back with cudaMemcpyFromSymbol; a __device__
// table reached through cudaGetSymbolAddress/cudaGetSymbolSize; a __device__ result variable
// written by a kernel and read with cudaMemcpyFromSymbol. Polynomials evaluated from constant
// memory, checked against the host.
#define SAMPLE "constant_memory"
#include "common.cuh"
#include <vector>

const int DEG = 8, TABLE = 64;
__constant__ int icoef[DEG];
__constant__ float fcoef[DEG];
__constant__ int shift;
__device__ int table[TABLE];
__device__ long long checksum;

__global__ void eval(int n, int *iout, float *fout) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    int x = i % 13 - 6, acc = 0;
    for (int k = DEG - 1; k >= 0; k--) acc = acc * x + icoef[k];
    iout[i] = acc + table[i % TABLE] + shift;
    float fx = (float)(i % 100) / 100.0f, f = 0.0f;
    for (int k = DEG - 1; k >= 0; k--) f = f * fx + fcoef[k];
    fout[i] = f;
    atomicAdd((unsigned long long *)&checksum, (unsigned long long)(long long)iout[i]);
}

int main() {
    const int n = 50000;
    int hi[DEG];
    float hf[DEG];
    for (int k = 0; k < DEG; k++) {
        hi[k] = k * 3 - 7;
        hf[k] = 1.0f / (float)(k + 1);
    }
    std::vector<int> htab(TABLE);
    for (int t = 0; t < TABLE; t++) htab[t] = t * t;
    int hshift = 42;

    // icoef in two halves: the second at a byte offset.
    CK(cudaMemcpyToSymbol(icoef, hi, 4 * sizeof(int)));
    CK(cudaMemcpyToSymbol(icoef, hi + 4, 4 * sizeof(int), 4 * sizeof(int)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    CK(cudaMemcpyToSymbolAsync(fcoef, hf, sizeof hf, 0, cudaMemcpyHostToDevice, s));
    CK(cudaMemcpyToSymbolAsync(shift, &hshift, sizeof(int), 0, cudaMemcpyHostToDevice, s));
    CK(cudaStreamSynchronize(s));
    int ri[DEG];
    float rf[DEG];
    CK(cudaMemcpyFromSymbol(ri, icoef, sizeof ri));
    CK(cudaMemcpyFromSymbol(rf, fcoef, sizeof rf));
    EXPECT(memcmp(ri, hi, sizeof hi) == 0 && memcmp(rf, hf, sizeof hf) == 0,
           "constant symbols did not read back as written");

    void *tab_addr = nullptr;
    size_t tab_size = 0;
    CK(cudaGetSymbolAddress(&tab_addr, table));
    CK(cudaGetSymbolSize(&tab_size, table));
    EXPECT(tab_size == TABLE * sizeof(int), "cudaGetSymbolSize(table) = %zu", tab_size);
    CK(cudaMemcpy(tab_addr, htab.data(), tab_size, cudaMemcpyHostToDevice));
    long long zero = 0;
    CK(cudaMemcpyToSymbol(checksum, &zero, sizeof zero));

    int *di;
    float *df;
    CK(cudaMalloc(&di, n * sizeof(int)));
    CK(cudaMalloc(&df, n * sizeof(float)));
    eval<<<(n + 255) / 256, 256, 0, s>>>(n, di, df);
    CK_LAUNCH();
    CK(cudaStreamSynchronize(s));
    std::vector<int> gi(n);
    std::vector<float> gf(n);
    CK(cudaMemcpy(gi.data(), di, n * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gf.data(), df, n * sizeof(float), cudaMemcpyDeviceToHost));
    long long gsum = 0, want_sum = 0;
    CK(cudaMemcpyFromSymbol(&gsum, checksum, sizeof gsum));

    for (int i = 0; i < n; i++) {
        int x = i % 13 - 6, acc = 0;
        for (int k = DEG - 1; k >= 0; k--) acc = acc * x + hi[k];
        int want = acc + htab[i % TABLE] + hshift;
        want_sum += want;
        EXPECT(gi[i] == want, "int polynomial [%d]: %d, host %d", i, gi[i], want);
        double fx = (double)((float)(i % 100) / 100.0f), f = 0.0;
        for (int k = DEG - 1; k >= 0; k--) f = f * fx + hf[k];
        EXPECT(close_to(gf[i], f, 1e-5), "float polynomial [%d]: %.8g, host %.8g", i, gf[i], f);
    }
    EXPECT(gsum == want_sum, "__device__ checksum %lld, host %lld", gsum, want_sum);

    CK(cudaStreamDestroy(s));
    CK(cudaFree(di));
    CK(cudaFree(df));
    return pass();
}

// Synchronous memory: cudaMalloc, cudaMemcpy in every direction (and cudaMemcpyDefault),
// cudaMemset at odd offsets and sizes, and a vector-add kernel through <<<>>> checked against
// the host.
#define SAMPLE "memcpy_sync"
#include "common.cuh"
#include <vector>

__global__ void vadd(const float *a, const float *b, float *c, int n) {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        c[i] = a[i] + 2.0f * b[i];
}

int main() {
    const int n = 1 << 20;
    const size_t bytes = n * sizeof(float);
    std::vector<float> a(n), b(n), back(n);
    for (int i = 0; i < n; i++) {
        a[i] = (float)(i % 1000) * 0.5f;
        b[i] = (float)((i * 7) % 333) - 100.0f;
    }
    float *da, *db, *dc, *dd;
    CK(cudaMalloc(&da, bytes));
    CK(cudaMalloc(&db, bytes));
    CK(cudaMalloc(&dc, bytes));
    CK(cudaMalloc(&dd, bytes));

    CK(cudaMemcpy(da, a.data(), bytes, cudaMemcpyHostToDevice));
    CK(cudaMemcpy(db, b.data(), bytes, cudaMemcpyDefault)); // direction from unified addressing
    vadd<<<256, 256>>>(da, db, dc, n);
    CK_LAUNCH();
    CK(cudaMemcpy(dd, dc, bytes, cudaMemcpyDeviceToDevice));
    CK(cudaMemcpy(back.data(), dd, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) {
        float want = a[i] + 2.0f * b[i];
        EXPECT(back[i] == want, "vadd[%d] = %g, host says %g", i, back[i], want);
    }

    // cudaMemset: whole buffer, then an odd byte range inside it.
    unsigned char *bytesd = (unsigned char *)dc;
    CK(cudaMemset(bytesd, 0x5a, bytes));
    CK(cudaMemset(bytesd + 13, 0xc3, 1001));
    std::vector<unsigned char> raw(bytes);
    CK(cudaMemcpy(raw.data(), bytesd, bytes, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < bytes; i++) {
        unsigned char want = (i >= 13 && i < 13 + 1001) ? 0xc3 : 0x5a;
        EXPECT(raw[i] == want, "memset byte %zu = 0x%02x, want 0x%02x", i, raw[i], want);
    }

    // Unaligned device-to-device copy of a sub-range, read back through cudaMemcpyDefault.
    CK(cudaMemcpy((char *)dd + 3, (char *)da + 1, 4095, cudaMemcpyDeviceToDevice));
    std::vector<unsigned char> sub(4096);
    CK(cudaMemcpy(sub.data(), dd, 4096, cudaMemcpyDefault));
    const unsigned char *ha = (const unsigned char *)a.data();
    const unsigned char *hd = (const unsigned char *)back.data();
    for (int i = 0; i < 4096; i++) {
        unsigned char want = (i >= 3) ? ha[i - 2] : hd[i];
        EXPECT(sub[i] == want, "offset copy byte %d = 0x%02x, want 0x%02x", i, sub[i], want);
    }

    CK(cudaFree(da));
    CK(cudaFree(db));
    CK(cudaFree(dc));
    CK(cudaFree(dd));
    CK(cudaDeviceSynchronize());
    return pass();
}

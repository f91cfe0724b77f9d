// Texture objects: a float cudaArray (cudaMallocArray + cudaMemcpy2DToArray) sampled with
// linear filtering and clamped addressing in unnormalised coordinates, the same array with
// point sampling, normalised coordinates and wrapped addressing, a 1-D texture over linear
// memory read with tex1Dfetch, and 8-bit pitched memory read as normalised floats. The filtered
// values are checked against a bilinear interpolation computed on the host.
#define SAMPLE "texture_object"
#include "common.cuh"
#include <vector>

const int W = 64, H = 48;

// Sample points at a quarter and three quarters between texel centres: weights 0.25/0.75 are
// exact in the texture unit's fixed-point weights.
__global__ void sample(cudaTextureObject_t lin, cudaTextureObject_t wrap, cudaTextureObject_t fetch,
                       cudaTextureObject_t bytes, float *out_lin, float *out_wrap, int *out_fetch,
                       float *out_bytes) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    int i = y * W + x;
    out_lin[i] = tex2D<float>(lin, x + 0.75f, y + 1.25f);
    out_wrap[i] = tex2D<float>(wrap, (x + 0.5f) / W + 2.0f, (y + 0.5f) / H - 1.0f);
    out_fetch[i] = tex1Dfetch<int>(fetch, i);
    out_bytes[i] = tex2D<float>(bytes, x + 0.5f, y + 0.5f);
}

int main() {
    std::vector<float> img(W * H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) img[y * W + x] = (float)((x * 7 + y * 13) % 50) - 10.0f;

    cudaChannelFormatDesc fdesc = cudaCreateChannelDesc<float>();
    cudaArray_t arr;
    CK(cudaMallocArray(&arr, &fdesc, W, H));
    CK(cudaMemcpy2DToArray(arr, 0, 0, img.data(), W * sizeof(float), W * sizeof(float), H,
                           cudaMemcpyHostToDevice));
    cudaResourceDesc res = {};
    res.resType = cudaResourceTypeArray;
    res.res.array.array = arr;
    cudaTextureDesc td = {};
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModeLinear;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t lin, wrap, fetch, bytes;
    CK(cudaCreateTextureObject(&lin, &res, &td, nullptr));
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeWrap;
    td.filterMode = cudaFilterModePoint;
    td.normalizedCoords = 1;
    CK(cudaCreateTextureObject(&wrap, &res, &td, nullptr));

    // 1-D over linear device memory.
    std::vector<int> ints(W * H);
    for (int i = 0; i < W * H; i++) ints[i] = i * 3 - 777;
    int *dints;
    CK(cudaMalloc(&dints, W * H * sizeof(int)));
    CK(cudaMemcpy(dints, ints.data(), W * H * sizeof(int), cudaMemcpyHostToDevice));
    cudaResourceDesc lres = {};
    lres.resType = cudaResourceTypeLinear;
    lres.res.linear.devPtr = dints;
    lres.res.linear.desc = cudaCreateChannelDesc<int>();
    lres.res.linear.sizeInBytes = W * H * sizeof(int);
    cudaTextureDesc ltd = {};
    ltd.readMode = cudaReadModeElementType;
    CK(cudaCreateTextureObject(&fetch, &lres, &ltd, nullptr));

    // 8-bit pitched memory, read as normalised float.
    std::vector<unsigned char> b8(W * H);
    for (int i = 0; i < W * H; i++) b8[i] = (unsigned char)(i * 37 % 256);
    unsigned char *d8;
    size_t pitch = 0;
    CK(cudaMallocPitch(&d8, &pitch, W, H));
    CK(cudaMemcpy2D(d8, pitch, b8.data(), W, W, H, cudaMemcpyHostToDevice));
    cudaResourceDesc pres = {};
    pres.resType = cudaResourceTypePitch2D;
    pres.res.pitch2D.devPtr = d8;
    pres.res.pitch2D.desc = cudaCreateChannelDesc<unsigned char>();
    pres.res.pitch2D.width = W;
    pres.res.pitch2D.height = H;
    pres.res.pitch2D.pitchInBytes = pitch;
    cudaTextureDesc ptd = {};
    ptd.readMode = cudaReadModeNormalizedFloat;
    ptd.filterMode = cudaFilterModePoint;
    CK(cudaCreateTextureObject(&bytes, &pres, &ptd, nullptr));

    float *o_lin, *o_wrap, *o_bytes;
    int *o_fetch;
    CK(cudaMalloc(&o_lin, W * H * sizeof(float)));
    CK(cudaMalloc(&o_wrap, W * H * sizeof(float)));
    CK(cudaMalloc(&o_bytes, W * H * sizeof(float)));
    CK(cudaMalloc(&o_fetch, W * H * sizeof(int)));
    sample<<<dim3((W + 15) / 16, (H + 15) / 16), dim3(16, 16)>>>(lin, wrap, fetch, bytes, o_lin,
                                                                 o_wrap, o_fetch, o_bytes);
    CK_LAUNCH();
    std::vector<float> g_lin(W * H), g_wrap(W * H), g_bytes(W * H);
    std::vector<int> g_fetch(W * H);
    CK(cudaMemcpy(g_lin.data(), o_lin, W * H * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g_wrap.data(), o_wrap, W * H * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g_bytes.data(), o_bytes, W * H * sizeof(float), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g_fetch.data(), o_fetch, W * H * sizeof(int), cudaMemcpyDeviceToHost));

    auto at = [&](int x, int y) { // clamped addressing
        x = x < 0 ? 0 : x >= W ? W - 1 : x;
        y = y < 0 ? 0 : y >= H ? H - 1 : y;
        return img[y * W + x];
    };
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            int i = y * W + x;
            // tex2D at (x + 0.75, y + 1.25): texels x..x+1 with weight 0.25, y..y+1 with 0.75.
            float a = 0.25f, b = 0.75f;
            float want = (1 - a) * (1 - b) * at(x, y) + a * (1 - b) * at(x + 1, y) +
                         (1 - a) * b * at(x, y + 1) + a * b * at(x + 1, y + 1);
            EXPECT(std::fabs(g_lin[i] - want) < 1e-3f, "linear (%d,%d): %g, host %g", x, y,
                   g_lin[i], want);
            EXPECT(g_wrap[i] == img[i], "wrap (%d,%d): %g, want %g", x, y, g_wrap[i], img[i]);
            EXPECT(g_fetch[i] == ints[i], "tex1Dfetch [%d]: %d, want %d", i, g_fetch[i], ints[i]);
            EXPECT(std::fabs(g_bytes[i] - b8[i] / 255.0f) < 1e-6f,
                   "normalised byte [%d]: %g, want %g", i, g_bytes[i], b8[i] / 255.0f);
        }

    for (cudaTextureObject_t t : {lin, wrap, fetch, bytes}) CK(cudaDestroyTextureObject(t));
    CK(cudaFreeArray(arr));
    CK(cudaFree(dints));
    CK(cudaFree(d8));
    for (float *p : {o_lin, o_wrap, o_bytes}) CK(cudaFree(p));
    CK(cudaFree(o_fetch));
    return pass();
}

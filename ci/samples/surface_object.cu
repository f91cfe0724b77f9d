// Surface objects: two 2-D float arrays made with cudaArraySurfaceLoadStore; one kernel writes
// the first through surf2Dwrite, a second reads it back with surf2Dread (neighbours included,
// boundary mode clamp) and writes a stencil into the other; the result leaves through
// cudaMemcpy2DFromArray. Then a 3-D int4 array written with surf3Dwrite and read back with
// cudaMemcpy3D. Checked against the host.
#define SAMPLE "surface_object"
#include "common.cuh"
#include <vector>

const int W = 100, H = 60; // not multiples of the block
const int X = 20, Y = 12, Z = 7;

__device__ float value(int x, int y) { return (float)(x * 3 - y * 5); }

__global__ void write_pattern(cudaSurfaceObject_t s) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < W && y < H) surf2Dwrite(value(x, y), s, x * (int)sizeof(float), y);
}
__global__ void stencil(cudaSurfaceObject_t in, cudaSurfaceObject_t out) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x >= W || y >= H) return;
    float c = surf2Dread<float>(in, x * 4, y);
    float l = surf2Dread<float>(in, (x - 1) * 4, y, cudaBoundaryModeClamp);
    float r = surf2Dread<float>(in, (x + 1) * 4, y, cudaBoundaryModeClamp);
    float u = surf2Dread<float>(in, x * 4, y - 1, cudaBoundaryModeClamp);
    surf2Dwrite(2.0f * c - l + r - u, out, x * 4, y);
}
__global__ void write3d(cudaSurfaceObject_t s) {
    int x = threadIdx.x, y = blockIdx.x, z = blockIdx.y;
    surf3Dwrite(make_int4(x, y, z, x * y - z), s, x * (int)sizeof(int4), y, z);
}

int main() {
    cudaChannelFormatDesc fd = cudaCreateChannelDesc<float>();
    cudaArray_t a, b;
    CK(cudaMallocArray(&a, &fd, W, H, cudaArraySurfaceLoadStore));
    CK(cudaMallocArray(&b, &fd, W, H, cudaArraySurfaceLoadStore));
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeArray;
    rd.res.array.array = a;
    cudaSurfaceObject_t sa, sb, s3;
    CK(cudaCreateSurfaceObject(&sa, &rd));
    rd.res.array.array = b;
    CK(cudaCreateSurfaceObject(&sb, &rd));
    cudaResourceDesc back = {};
    CK(cudaGetSurfaceObjectResourceDesc(&back, sb));
    EXPECT(back.resType == cudaResourceTypeArray && back.res.array.array == b,
           "cudaGetSurfaceObjectResourceDesc gave another resource");

    dim3 blk(16, 16), grd((W + 15) / 16, (H + 15) / 16);
    write_pattern<<<grd, blk>>>(sa);
    CK_LAUNCH();
    stencil<<<grd, blk>>>(sa, sb);
    CK_LAUNCH();
    std::vector<float> got(W * H), first(W * H);
    CK(cudaMemcpy2DFromArray(got.data(), W * sizeof(float), b, 0, 0, W * sizeof(float), H,
                             cudaMemcpyDeviceToHost));
    CK(cudaMemcpy2DFromArray(first.data(), W * sizeof(float), a, 0, 0, W * sizeof(float), H,
                             cudaMemcpyDeviceToHost));
    auto v = [](int x, int y) {
        x = x < 0 ? 0 : x >= W ? W - 1 : x;
        y = y < 0 ? 0 : y >= H ? H - 1 : y;
        return (float)(x * 3 - y * 5);
    };
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            EXPECT(first[y * W + x] == v(x, y), "surf2Dwrite (%d,%d): %g, want %g", x, y,
                   first[y * W + x], v(x, y));
            float want = 2.0f * v(x, y) - v(x - 1, y) + v(x + 1, y) - v(x, y - 1);
            EXPECT(got[y * W + x] == want, "stencil (%d,%d): %g, want %g", x, y, got[y * W + x],
                   want);
        }

    // 3-D.
    cudaChannelFormatDesc d4 = cudaCreateChannelDesc<int4>();
    cudaArray_t a3;
    CK(cudaMalloc3DArray(&a3, &d4, make_cudaExtent(X, Y, Z), cudaArraySurfaceLoadStore));
    rd.res.array.array = a3;
    CK(cudaCreateSurfaceObject(&s3, &rd));
    write3d<<<dim3(Y, Z), X>>>(s3);
    CK_LAUNCH();
    std::vector<int4> h3(X * Y * Z);
    cudaMemcpy3DParms p = {};
    p.srcArray = a3;
    p.dstPtr = make_cudaPitchedPtr(h3.data(), X * sizeof(int4), X, Y);
    p.extent = make_cudaExtent(X, Y, Z);
    p.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&p));
    for (int z = 0; z < Z; z++)
        for (int y = 0; y < Y; y++)
            for (int x = 0; x < X; x++) {
                int4 e = h3[(z * Y + y) * X + x];
                EXPECT(e.x == x && e.y == y && e.z == z && e.w == x * y - z,
                       "surf3Dwrite (%d,%d,%d): (%d,%d,%d,%d)", x, y, z, e.x, e.y, e.z, e.w);
            }

    for (cudaSurfaceObject_t s : {sa, sb, s3}) CK(cudaDestroySurfaceObject(s));
    for (cudaArray_t arr : {a, b, a3}) CK(cudaFreeArray(arr));
    return pass();
}

// 2-D and 3-D copies: cudaMallocPitch with cudaMemcpy2D from a padded host image, cudaMemset2D
// of a sub-rectangle, a kernel that walks rows by the pitch, cudaMemcpy2DAsync of a sub-block
// device to device; cudaMalloc3D with cudaMemcpy3D (host to device, a sub-box device to device
// at offsets, device to host), cudaMemset3D, and a round trip through a cudaMalloc3DArray.
#define SAMPLE "memcpy_2d_3d"
#include "common.cuh"
#include <vector>

__global__ void add_row_col(float *p, size_t pitch, int w, int h) {
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < w && y < h) ((float *)((char *)p + y * pitch))[x] += (float)(100 * y + x);
}

int main() {
    // ---- 2-D.
    const int W = 300, H = 200, HP = W + 3; // host rows padded by 3 floats
    std::vector<float> host(HP * H, -1.0f), back(W * H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) host[y * HP + x] = (float)((x + 2 * y) % 17);
    float *d, *d2;
    size_t pitch = 0, pitch2 = 0;
    CK(cudaMallocPitch((void **)&d, &pitch, W * sizeof(float), H));
    EXPECT(pitch >= W * sizeof(float), "pitch %zu < row %zu", pitch, W * sizeof(float));
    CK(cudaMemcpy2D(d, pitch, host.data(), HP * sizeof(float), W * sizeof(float), H,
                    cudaMemcpyHostToDevice));
    // Zero a 40 x 30 rectangle at (10, 20) (bytes, so zero floats).
    CK(cudaMemset2D((char *)d + 20 * pitch + 10 * sizeof(float), pitch, 0, 40 * sizeof(float), 30));
    add_row_col<<<dim3((W + 31) / 32, (H + 7) / 8), dim3(32, 8)>>>(d, pitch, W, H);
    CK_LAUNCH();
    CK(cudaMemcpy2D(back.data(), W * sizeof(float), d, pitch, W * sizeof(float), H,
                    cudaMemcpyDeviceToHost));
    std::vector<float> want(W * H);
    for (int y = 0; y < H; y++)
        for (int x = 0; x < W; x++) {
            bool zeroed = x >= 10 && x < 50 && y >= 20 && y < 50;
            want[y * W + x] = (zeroed ? 0.0f : host[y * HP + x]) + (float)(100 * y + x);
            EXPECT(back[y * W + x] == want[y * W + x], "2D (%d,%d): %g, want %g", x, y,
                   back[y * W + x], want[y * W + x]);
        }
    // A 64 x 16 block from (5, 7) to (0, 0) of a second pitched allocation, asynchronously.
    CK(cudaMallocPitch((void **)&d2, &pitch2, 64 * sizeof(float), 16));
    CK(cudaMemcpy2DAsync(d2, pitch2, (char *)d + 7 * pitch + 5 * sizeof(float), pitch,
                         64 * sizeof(float), 16, cudaMemcpyDeviceToDevice, 0));
    std::vector<float> blk(64 * 16);
    CK(cudaMemcpy2D(blk.data(), 64 * sizeof(float), d2, pitch2, 64 * sizeof(float), 16,
                    cudaMemcpyDeviceToHost));
    for (int y = 0; y < 16; y++)
        for (int x = 0; x < 64; x++)
            EXPECT(blk[y * 64 + x] == want[(y + 7) * W + x + 5], "2D block (%d,%d): %g", x, y,
                   blk[y * 64 + x]);

    // ---- 3-D.
    const int X = 40, Y = 24, Z = 10;
    std::vector<int> h3(X * Y * Z), b3(X * Y * Z);
    for (int i = 0; i < X * Y * Z; i++) h3[i] = i * 11 - 5000;
    cudaExtent ext = make_cudaExtent(X * sizeof(int), Y, Z); // bytes for linear memory
    cudaPitchedPtr p1, p2;
    CK(cudaMalloc3D(&p1, ext));
    CK(cudaMalloc3D(&p2, ext));
    CK(cudaMemset3D(p2, 0x7f, ext)); // every byte 0x7f
    cudaMemcpy3DParms up = {};
    up.srcPtr = make_cudaPitchedPtr(h3.data(), X * sizeof(int), X, Y);
    up.dstPtr = p1;
    up.extent = ext;
    up.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&up));
    // The box [2..12) x [3..9) x [1..5) of p1 to offset (4, 0, 5) of p2.
    cudaMemcpy3DParms box = {};
    box.srcPtr = p1;
    box.srcPos = make_cudaPos(2 * sizeof(int), 3, 1);
    box.dstPtr = p2;
    box.dstPos = make_cudaPos(4 * sizeof(int), 0, 5);
    box.extent = make_cudaExtent(10 * sizeof(int), 6, 4);
    box.kind = cudaMemcpyDeviceToDevice;
    CK(cudaMemcpy3D(&box));
    cudaMemcpy3DParms down = {};
    down.srcPtr = p2;
    down.dstPtr = make_cudaPitchedPtr(b3.data(), X * sizeof(int), X, Y);
    down.extent = ext;
    down.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&down));
    for (int z = 0; z < Z; z++)
        for (int y = 0; y < Y; y++)
            for (int x = 0; x < X; x++) {
                bool in = x >= 4 && x < 14 && y < 6 && z >= 5 && z < 9;
                int w = in ? h3[((z - 4) * Y + (y + 3)) * X + (x - 2)] : 0x7f7f7f7f;
                EXPECT(b3[(z * Y + y) * X + x] == w, "3D (%d,%d,%d): %d, want %d", x, y, z,
                       b3[(z * Y + y) * X + x], w);
            }

    // Host -> 3-D array -> host (extent in elements for arrays).
    cudaChannelFormatDesc cd = cudaCreateChannelDesc<int>();
    cudaArray_t arr;
    CK(cudaMalloc3DArray(&arr, &cd, make_cudaExtent(X, Y, Z)));
    cudaMemcpy3DParms toa = {};
    toa.srcPtr = make_cudaPitchedPtr(h3.data(), X * sizeof(int), X, Y);
    toa.dstArray = arr;
    toa.extent = make_cudaExtent(X, Y, Z);
    toa.kind = cudaMemcpyHostToDevice;
    CK(cudaMemcpy3D(&toa));
    cudaMemcpy3DParms froma = {};
    froma.srcArray = arr;
    froma.dstPtr = make_cudaPitchedPtr(b3.data(), X * sizeof(int), X, Y);
    froma.extent = make_cudaExtent(X, Y, Z);
    froma.kind = cudaMemcpyDeviceToHost;
    CK(cudaMemcpy3D(&froma));
    EXPECT(b3 == h3, "3-D array round trip changed the data");

    CK(cudaFreeArray(arr));
    CK(cudaFree(p1.ptr));
    CK(cudaFree(p2.ptr));
    CK(cudaFree(d));
    CK(cudaFree(d2));
    return pass();
}

// A program built the usual nvcc way: a __global__ kernel launched with <<<>>>, with the shared
// CUDA runtime (-cudart shared), so nvcc's hidden entry points (__cudaRegisterFatBinary,
// __cudaRegisterFunction, __cudaPushCallConfiguration, ...) are called in libcudart: anycuda's
// when its folder is first on the library path. It must run and be right on CUDA, and on HIP
// when its fat binary has PTX (anycuda translates it for the device). Built with machine code
// only, the launch on HIP must fail with cudaErrorNoKernelImageForDevice (argument
// "expect-no-image"), never crash.
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void add_one(int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += 1;
}

int main(int argc, char **argv) {
    int expect_no_image = argc > 1 && strcmp(argv[1], "expect-no-image") == 0;
    const int n = 4096;
    int h[4096];
    for (int i = 0; i < n; i++) h[i] = i;
    int *d = NULL;
    cudaError_t e = cudaMalloc((void **)&d, sizeof h);
    if (e != cudaSuccess) { fprintf(stderr, "launch: cudaMalloc: %s\n", cudaGetErrorName(e)); return 1; }
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    add_one<<<n / 256, 256>>>(d, n);
    e = cudaGetLastError();
    if (expect_no_image) {
        if (e == cudaErrorNoKernelImageForDevice) {
            printf("launch: PASS: <<<>>> refused with cudaErrorNoKernelImageForDevice (%s)\n", cudaGetErrorString(e));
            return 0;
        }
        fprintf(stderr, "launch: FAIL: expected cudaErrorNoKernelImageForDevice, got %s\n", cudaGetErrorName(e));
        return 1;
    }
    if (e == cudaSuccess) e = cudaDeviceSynchronize();
    if (e != cudaSuccess) { fprintf(stderr, "launch: FAIL: %s\n", cudaGetErrorName(e)); return 1; }
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; i++)
        if (h[i] != i + 1) { fprintf(stderr, "launch: FAIL at %d: %d\n", i, h[i]); return 1; }
    cudaFree(d);
    printf("launch: PASS: <<<>>> ran, %d elements right\n", n);
    return 0;
}

// A diagnostic for the GPU machine: an LD_PRELOAD library that prints every CUDA-runtime kernel
// launch and shared-memory opt-in a program makes (candle-kernels' libmoe.a launches its MoE/MMQ
// kernels with <<<>>>, which nvcc turns into cudaLaunchKernel calls), then forwards each call to
// the next library that has it (NVIDIA's libcudart, or anycuda's C ABI). It changes nothing.
//
//   cc -shared -fPIC -O2 -o launch-trace.so ci/candle/launch-trace.c -ldl
//   LD_PRELOAD=$PWD/launch-trace.so ./program        # one line per call on stderr
//
// Used for candle's quantized_tests::qmm_b_cuda (docs/candle.md, "The failing test"):
//   export LD_PRELOAD=$PWD/launch-trace.so CANDLE_TESTS=quantized_tests CANDLE_FILTER=qmm_b_cuda
//   bash ci/candle-gpu.sh cuda hip
// The bundle's executables are stripped, so a kernel shows as its host-stub address.
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

typedef struct {
    unsigned x, y, z;
} dim3_t; // CUDA's dim3: three unsigned ints, passed by value

typedef int (*launch_fn)(const void *, dim3_t, dim3_t, void **, size_t, void *);
typedef int (*attr_fn)(const void *, int, int);
typedef unsigned (*push_fn)(dim3_t, dim3_t, size_t, void *);

// Every <<<>>> launch starts here (nvcc's host code pushes the launch configuration, then the
// kernel's stub pops it and launches), whatever launch call the stub makes after it.
unsigned __cudaPushCallConfiguration(dim3_t grid, dim3_t block, size_t shmem, void *stream) {
    static push_fn next;
    if (!next) next = (push_fn)dlsym(RTLD_NEXT, "__cudaPushCallConfiguration");
    if (!next) return 3;
    unsigned rc = next(grid, block, shmem, stream);
    fprintf(stderr, "launch-trace: <<<(%u,%u,%u), (%u,%u,%u), %zu>>> -> %u\n", grid.x, grid.y, grid.z, block.x,
            block.y, block.z, shmem, rc);
    return rc;
}

int cudaLaunchKernel(const void *func, dim3_t grid, dim3_t block, void **args, size_t shmem, void *stream) {
    static launch_fn next;
    if (!next) next = (launch_fn)dlsym(RTLD_NEXT, "cudaLaunchKernel");
    if (!next) return 3; // cudaErrorInitializationError: no runtime behind us
    int rc = next(func, grid, block, args, shmem, stream);
    fprintf(stderr, "launch-trace: cudaLaunchKernel %p grid (%u,%u,%u) block (%u,%u,%u) shared %zu -> %d\n", func,
            grid.x, grid.y, grid.z, block.x, block.y, block.z, shmem, rc);
    return rc;
}

int cudaFuncSetAttribute(const void *func, int attr, int value) {
    static attr_fn next;
    if (!next) next = (attr_fn)dlsym(RTLD_NEXT, "cudaFuncSetAttribute");
    if (!next) return 3;
    int rc = next(func, attr, value);
    fprintf(stderr, "launch-trace: cudaFuncSetAttribute %p attribute %d value %d -> %d\n", func, attr, value, rc);
    return rc;
}

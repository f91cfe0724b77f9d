// The kernels every benchmark (examples/bench_dispatch.rs, ci/bench/baseline.cu,
// ci/bench/cuda_python_bench.py) compiles with NVRTC, with the same options.
extern "C" __global__ void empty() {}

extern "C" __global__ void saxpy(float a, const float *x, float *y, unsigned n)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

// anycuda-kernel: atomic_counters
// anycuda-kernel: atomic_float_max
// anycuda-kernel: atomic_double_mul
// Global atomics: atomicAdd (int, float), atomicMax/atomicMin (int), atomicExch,
// and atomicCAS loops building operations the hardware lacks.
#include <cuda_runtime.h>

extern "C" __global__ void atomic_counters(const int* values, int n, int* count, int* max_v, int* min_v, float* sum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = values[i];
        atomicAdd(count, 1);
        atomicMax(max_v, v);
        atomicMin(min_v, v);
        atomicAdd(sum, (float)v);
    }
}

// float max through a CAS loop on the bit pattern.
__device__ float atomic_max_float(float* address, float val)
{
    int* address_as_int = (int*)address;
    int old = *address_as_int;
    int assumed;
    do {
        assumed = old;
        if (__int_as_float(assumed) >= val) break;
        old = atomicCAS(address_as_int, assumed, __float_as_int(val));
    } while (assumed != old);
    return __int_as_float(old);
}

extern "C" __global__ void atomic_float_max(const float* x, int n, float* result, int* last_index)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        atomic_max_float(result, x[i]);
        atomicExch(last_index, i);
    }
}

// double multiply through a 64-bit CAS loop.
__device__ double atomic_mul_double(double* address, double val)
{
    unsigned long long int* address_as_ull = (unsigned long long int*)address;
    unsigned long long int old = *address_as_ull, assumed;
    do {
        assumed = old;
        old = atomicCAS(address_as_ull, assumed,
                        __double_as_longlong(val * __longlong_as_double((long long)assumed)));
    } while (assumed != old);
    return __longlong_as_double((long long)old);
}

extern "C" __global__ void atomic_double_mul(const double* factors, int n, double* product)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomic_mul_double(product, factors[i]);
}

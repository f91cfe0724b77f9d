// anycuda-kernel: half_axpy
// anycuda-kernel: half2_fma
// anycuda-kernel: half_relu_mixed
// fp16 arithmetic with __half and __half2, as written for cuda_fp16.h.
#include <cuda_runtime.h>
#include <cuda_fp16.h>

extern "C" __global__ void half_axpy(int n, float a, const __half* x, __half* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half ha = __float2half(a);
        y[i] = __hfma(ha, x[i], y[i]);
    }
}

// n2 = number of __half2 pairs.
extern "C" __global__ void half2_fma(int n2, const __half2* a, const __half2* b, __half2* c)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        __half2 two = __float2half2_rn(2.0f);
        __half2 t = __hmul2(a[i], two);
        c[i] = __hfma2(t, b[i], c[i]);
        c[i] = __hadd2(c[i], __floats2half2_rn(0.5f, -0.5f));
    }
}

// Half storage with float accumulation and a few comparison/arith operators.
extern "C" __global__ void half_relu_mixed(int n, const __half* x, const __half* bias, float* out_sum)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        __half v = __hadd(x[i], bias[i]);
        const __half zero = __float2half(0.0f);
        v = __hgt(v, zero) ? v : zero;
        __half sq = v * v;  // operator* from cuda_fp16.h
        float acc = __half2float(sq) + __low2float(__half2half2(v));
        atomicAdd(out_sum, acc);
    }
}

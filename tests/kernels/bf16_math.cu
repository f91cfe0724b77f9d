// anycuda-kernel: bf16_axpy
// anycuda-kernel: bf162_scale_add
// anycuda-kernel: bf16_dot_f32
// bfloat16 math with __nv_bfloat16 / __nv_bfloat162 from cuda_bf16.h.
#include <cuda_runtime.h>
#include <cuda_bf16.h>

extern "C" __global__ void bf16_axpy(int n, float a, const __nv_bfloat16* x, __nv_bfloat16* y)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        y[i] = __hfma(__float2bfloat16(a), x[i], y[i]);
    }
}

extern "C" __global__ void bf162_scale_add(int n2, const __nv_bfloat162* x, __nv_bfloat162* y, float s)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n2) {
        __nv_bfloat162 scale = __float2bfloat162_rn(s);
        __nv_bfloat162 t = __hmul2(x[i], scale);
        y[i] = __hadd2(t, y[i]);
    }
}

// Mixed precision dot product: bf16 pairs in, fp32 accumulation.
extern "C" __global__ void bf16_dot_f32(int n2, const __nv_bfloat162* a, const __nv_bfloat162* b, float* out)
{
    float acc = 0.0f;
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n2; i += blockDim.x * gridDim.x) {
        __nv_bfloat162 prod = __hmul2(a[i], b[i]);
        acc += __low2float(prod) + __high2float(prod);
    }
    __nv_bfloat16 rounded = __float2bfloat16(acc);
    if (__bfloat162float(rounded) != 0.0f) {
        atomicAdd(out, acc);
    }
}

// anycuda-kernel: broken
// anycuda-expect-error: undeclared_value
// Deliberately broken: uses an undeclared identifier. Both compilers must fail and name it in
// the log (NVRTC: 'identifier "undeclared_value" is undefined'; hipRTC/clang: 'use of
// undeclared identifier 'undeclared_value'').
#include <cuda_runtime.h>

extern "C" __global__ void broken(float* x)
{
    x[threadIdx.x] = undeclared_value * 2.0f;
}

/* anycuda-codegen shim: cublas_api.h's host declarations need only the type `__nv_bfloat16`,
   whose C ABI is two bytes (cuda_bf16.h's own definition is C++-only). */
#ifndef ANYCUDA_SHIM_CUDA_BF16_H
#define ANYCUDA_SHIM_CUDA_BF16_H
typedef struct __nv_bfloat16 { unsigned short __x; } __nv_bfloat16;
#endif

/* anycuda-codegen shim: cublas_api.h's host declarations need only the type `__half`, whose
   C ABI is two bytes (cuda_fp16.h's own C definition is C++-only). */
#ifndef ANYCUDA_SHIM_CUDA_FP16_H
#define ANYCUDA_SHIM_CUDA_FP16_H
typedef struct __half { unsigned short __x; } __half;
#endif

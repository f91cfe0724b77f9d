#pragma once
/* anycuda-codegen shim: hipFFT's host declarations need only hipStream_t from HIP (the real
   hip_runtime_api.h pulls in the platform's headers). */
typedef struct ihipStream_t* hipStream_t;

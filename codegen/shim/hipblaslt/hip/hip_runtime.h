#pragma once
/* anycuda-codegen shim: hipBLASLt's C API needs only hipStream_t and hipDataType, which
   hip_runtime_api.h and library_types.h declare (the full hip_runtime.h is device code). */
#include <hip/hip_runtime_api.h>
#include <hip/library_types.h>

#pragma once
/* anycuda-codegen shim: hipRAND's and rocRAND's host declarations need only hipStream_t, which
   hip_runtime_api.h declares (the full hip_runtime.h is C++ device code). */
#include <hip/hip_runtime_api.h>

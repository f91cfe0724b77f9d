#pragma once
/* anycuda-codegen shim: hipSPARSE's host declarations need from HIP only hipStream_t and
   hipDataType (the real hip_runtime.h pulls in the platform's device headers); hipDataType is
   the real library_types.h's (its values are what the codegen pairs). */
#include <stddef.h>
#include <stdint.h>
typedef struct ihipStream_t* hipStream_t;
#include <hip/library_types.h>

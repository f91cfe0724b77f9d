#pragma once
/* anycuda-codegen shim: library_types.h includes hip_common.h only for the platform macros,
   which the codegen defines itself (__HIP_PLATFORM_AMD__). */

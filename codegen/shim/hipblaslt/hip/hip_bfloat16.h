#pragma once
/* anycuda-codegen shim: hipBLASLt's C API names hip_bfloat16 only in hipblasLtBfloat16, which is
   not bound; a 16-bit stand-in keeps it parseable (the real header is C++ device code). */
typedef struct hip_bfloat16 { unsigned short data; } hip_bfloat16;

#pragma once
/* anycuda-codegen shim: hipFFT's host declarations need only hipComplex/hipDoubleComplex from
   HIP; their layout (two floats, two doubles) is all the ABI check needs. */
typedef struct { float x, y; } hipFloatComplex;
typedef struct { double x, y; } hipDoubleComplex;
typedef hipFloatComplex hipComplex;

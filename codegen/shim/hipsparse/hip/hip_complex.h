#pragma once
/* anycuda-codegen shim: hipSPARSE names hipComplex/hipDoubleComplex in its complex functions;
   their layout (two floats, two doubles) is all the ABI check needs. */
typedef struct { float x, y; } hipFloatComplex;
typedef struct { double x, y; } hipDoubleComplex;
typedef hipFloatComplex hipComplex;

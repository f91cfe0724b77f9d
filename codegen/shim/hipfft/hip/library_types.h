#pragma once
/* anycuda-codegen shim: hipfft.h includes HIP's library_types.h for hipfftXt.h's data types;
   hipfft.h's own declarations use none of them. */

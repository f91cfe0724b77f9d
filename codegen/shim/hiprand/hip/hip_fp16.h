#pragma once
/* anycuda-codegen shim: the host API names __half only in the *Half functions, which cuRAND
   has no counterpart of; a 16-bit stand-in keeps their signatures parseable. */
typedef struct { unsigned short x; } __half;

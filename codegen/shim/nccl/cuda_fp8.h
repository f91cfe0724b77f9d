/* anycuda-codegen shim: nccl.h's host declarations use no cuda_fp8.h type. */

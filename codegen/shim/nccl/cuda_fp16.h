/* anycuda-codegen shim: nccl.h's host declarations use no cuda_fp16.h type. */

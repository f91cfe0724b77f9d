/* anycuda-codegen shim: nccl.h's host declarations use no cuda_bf16.h type. */

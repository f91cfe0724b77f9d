/* anycuda-codegen shim: rccl.h's host declarations use no hip_fp16.h type. */

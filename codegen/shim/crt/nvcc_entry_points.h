/* anycuda-codegen input: nvcc's hidden CUDA Runtime entry points.
 *
 * Programs compiled by nvcc call these from the code nvcc generates: the static initialiser
 * registers the embedded fat binary, its kernels and its variables; every `<<<>>>` launch pushes
 * and pops a call configuration and launches through __cudaGetKernel/__cudaLaunchKernel.
 * libcudart.so.13 exports them (`nm -D`), but the runtime wheel's cuda_runtime_api.h does not
 * declare them: NVIDIA declares them in crt/host_runtime.h and crt/device_functions.h, which ship
 * with nvcc (wheel nvidia-cuda-crt), not with the runtime wheel that codegen pins. This file
 * restates, as plain C for bindgen, the declarations of those two headers for every such function
 * libcudart.so.13 exports, with the parameter names and types NVIDIA's headers give (C++ default
 * arguments dropped; `struct CUstream_st *` written as its typedef `cudaStream_t`).
 *
 * Left out on purpose (see docs/c-cpp-python.md): __cudaRegisterHostVar,
 * __cudaRegisterUnifiedTable and __cudaGetProcAddress, which libcudart.so.13 exports but no
 * NVIDIA header declares, so there is no published C signature to give them; and
 * __cudaRegisterTexture/__cudaRegisterSurface, which host_runtime.h still declares but
 * libcudart.so.13 no longer exports. */
#ifndef ANYCUDA_SHIM_NVCC_ENTRY_POINTS_H
#define ANYCUDA_SHIM_NVCC_ENTRY_POINTS_H
#include <stddef.h>
#include "cuda_runtime_api.h"

/** Registers the fat binary nvcc embedded in a translation unit (a `__fatBinC_Wrapper_t`);
 * returns the handle the later registrations name. (crt/host_runtime.h) */
extern void **CUDARTAPI __cudaRegisterFatBinary(void *fatCubin);

/** Ends the registration of one fat binary's kernels and variables. (crt/host_runtime.h) */
extern void CUDARTAPI __cudaRegisterFatBinaryEnd(void **fatCubinHandle);

/** Unregisters a fat binary at exit. (crt/host_runtime.h) */
extern void CUDARTAPI __cudaUnregisterFatBinary(void **fatCubinHandle);

/** Registers a `__device__`/`__constant__` variable: its host shadow and device name.
 * (crt/host_runtime.h) */
extern void CUDARTAPI __cudaRegisterVar(void **fatCubinHandle, char *hostVar,
                                        char *deviceAddress, const char *deviceName, int ext,
                                        size_t size, int constant, int global);

/** Registers a `__managed__` variable. (crt/host_runtime.h) */
extern void CUDARTAPI __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                               char *deviceAddress, const char *deviceName,
                                               int ext, size_t size, int constant, int global);

/** Initialises a fat binary's module (managed variables); nonzero on success.
 * (crt/host_runtime.h) */
extern char CUDARTAPI __cudaInitModule(void **fatCubinHandle);

/** Registers a kernel: its host launch stub and its device name. (crt/host_runtime.h) */
extern void CUDARTAPI __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                             char *deviceFun, const char *deviceName,
                                             int thread_limit, uint3 *tid, uint3 *bid,
                                             dim3 *bDim, dim3 *gDim, int *wSize);

/** Stores a `<<<grid, block, sharedMem, stream>>>` configuration for the next launch stub of
 * this thread; 0 on success. (crt/device_functions.h) */
extern unsigned CUDARTAPI __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim,
                                                      size_t sharedMem, cudaStream_t stream);

/** Takes back the configuration the last push of this thread stored (`stream` points to a
 * `cudaStream_t`). (crt/host_runtime.h) */
extern cudaError_t CUDARTAPI __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim,
                                                        size_t *sharedMem, void *stream);

/** The kernel handle of a registered launch stub. (crt/device_functions.h) */
extern cudaError_t CUDARTAPI __cudaGetKernel(cudaKernel_t *kernel, const void *func);

/** Launches a kernel handle from a launch stub. (crt/device_functions.h) */
extern cudaError_t CUDARTAPI __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim,
                                                void **args, size_t sharedMem,
                                                cudaStream_t stream);

/** As __cudaLaunchKernel, with the per-thread default stream. (crt/device_functions.h) */
extern cudaError_t CUDARTAPI __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim,
                                                     dim3 blockDim, void **args,
                                                     size_t sharedMem, cudaStream_t stream);
#endif

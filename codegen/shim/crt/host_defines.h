/* anycuda-codegen shim for <crt/host_defines.h>.
 *
 * The PyPI nvidia-cuda-runtime wheel ships cuda_runtime_api.h and driver_types.h but not the
 * crt/ directory they include (it comes with nvcc). For a host-only C parse by bindgen these
 * macros reduce to what the real header gives a GCC/Clang host compilation on Linux: execution
 * space qualifiers vanish and __align__ is the GCC alignment attribute (which matters: it sets
 * the layout of vector types such as float2). */
#ifndef ANYCUDA_SHIM_HOST_DEFINES_H
#define ANYCUDA_SHIM_HOST_DEFINES_H
#define __host__
#define __device__
#define __global__
#define __shared__
#define __constant__
#define __managed__
#define __launch_bounds__(...)
#define __forceinline__ __inline__ __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __device_builtin__
#define __device_builtin_texture_type__
#define __device_builtin_surface_type__
#define __cudart_builtin__
#define __align__(n) __attribute__((aligned(n)))
#define __builtin_align__(a) __align__(a)
#define CUDARTAPI
#define CUDARTAPI_CDECL
#define CUDART_CB
#endif

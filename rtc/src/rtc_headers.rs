//! Built-in headers that let typical CUDA kernel source compile unchanged under NVRTC and hipRTC.
//!
//! CUDA kernels `#include <cuda_runtime.h>`, `<cuda_fp16.h>`, `<cuda_bf16.h>`, `<stdint.h>`,
//! `<cooperative_groups.h>` and friends. Neither runtime compiler resolves those by itself:
//!
//! * **NVRTC 13.0** resolves *no* header without `-I` — not `cuda_runtime.h`, not `cuda_fp16.h`,
//!   not `cuda_bf16.h`, not `stdint.h`/`cstdint` (probed: every one of them fails with
//!   "could not open source file ... (no directories in search list)"). Its device built-ins
//!   (`threadIdx`, `atomicAdd`, `__shfl_down_sync`, `__expf`, ...) are declared implicitly, so the
//!   shims below only add what the missing headers would have declared. Even with `-I` pointing at
//!   the CUDA toolkit headers, `cooperative_groups.h` needs CCCL's `<nv/target>`, which the
//!   runtime wheel does not ship.
//! * **hipRTC 5.2.3** pre-includes one preprocessed header built from `hip/hip_runtime.h` and
//!   `hip/hip_fp16.h` (so `__half`, `__half2` and HIP's device runtime are always there), plus
//!   `uint32_t`, `uint64_t`, `int32_t`, `int64_t` — but no `int8_t`/`uint8_t`/`int16_t`/`uint16_t`,
//!   no bfloat16, no cooperative groups and no `*_sync` warp intrinsics. It resolves no include
//!   file by name.
//!
//! Every header here is our own text (NVIDIA's headers may not be shipped). The shims are kept
//! small and honest: a CUDA intrinsic they do not provide is a compile error, never a silent
//! approximation. Where semantics differ (64-lane AMD wavefronts) the header says how, or refuses
//! at compile time with a `static_assert` naming the problem.
//!
//! # Merge rule (for the `nvrtcCreateProgram` implementation)
//!
//! The headers a user passes to `nvrtcCreateProgram` override built-ins of the same include name;
//! built-ins are appended only for names the user did not supply (`rtc_input::merge_headers`).
//! Both compilers give in-memory headers priority over `-I` directories (probed on NVRTC 13.0),
//! and NVRTC's API fixes the headers at `nvrtcCreateProgram`, before the `-I` options of the
//! compile are known, so a built-in cannot step aside for a file found through `-I`. Code that
//! compiles against a real CUDA toolkit's headers sets `ANYCUDA_BUILTIN_HEADERS=0` to turn the
//! built-ins off.

use crate::rtc_headers_extra as extra;

/// Which runtime compiler the built-in headers are for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RtcTarget {
    /// NVIDIA NVRTC (CUDA 12.x/13.x).
    Nvrtc,
    /// AMD hipRTC (ROCm 5.2 through 7.x; verified on Debian's 5.2.3).
    Hiprtc,
}

/// The built-in headers for `target`, as `(include name, source)` pairs.
///
/// The include names are exactly what CUDA code writes between `<>` (for example
/// `"cooperative_groups/reduce.h"`).
pub fn builtin_headers(target: RtcTarget) -> &'static [(&'static str, &'static str)] {
    match target {
        RtcTarget::Nvrtc => NVRTC_HEADERS,
        RtcTarget::Hiprtc => HIPRTC_HEADERS,
    }
}

const NVRTC_HEADERS: &[(&str, &str)] = &[
    ("cuda_runtime.h", NVRTC_CUDA_RUNTIME_H),
    ("cuda_runtime_api.h", CUDA_RUNTIME_API_H),
    ("device_launch_parameters.h", EMPTY_DEVICE_HEADER),
    ("stdint.h", NVRTC_STDINT_H),
    ("cstdint", CSTDINT),
    ("cuda_fp16.h", NVRTC_CUDA_FP16_H),
    ("cuda_bf16.h", CUDA_BF16_H),
    ("cooperative_groups.h", COOPERATIVE_GROUPS_H),
    ("cooperative_groups/reduce.h", COOPERATIVE_GROUPS_REDUCE_H),
    ("stddef.h", extra::STDDEF_H),
    ("cstddef", extra::CSTDDEF),
    ("limits.h", extra::LIMITS_H),
    ("climits", extra::CLIMITS),
    ("float.h", extra::FLOAT_H),
    ("cfloat", extra::CFLOAT),
    ("math.h", extra::MATH_H),
    ("cmath", extra::CMATH),
    ("limits", extra::LIMITS),
    ("cuda/std/limits", extra::CUDA_STD_LIMITS),
    ("cuda_fp8.h", extra::CUDA_FP8_H),
    ("type_traits", extra::TYPE_TRAITS_NVRTC),
    ("assert.h", extra::ASSERT_H_NVRTC),
    ("cassert", extra::ASSERT_H_NVRTC),
];

const HIPRTC_HEADERS: &[(&str, &str)] = &[
    ("cuda_runtime.h", HIPRTC_CUDA_RUNTIME_H),
    ("cuda_runtime_api.h", CUDA_RUNTIME_API_H),
    ("device_launch_parameters.h", EMPTY_DEVICE_HEADER),
    ("stdint.h", HIPRTC_STDINT_H),
    ("cstdint", CSTDINT),
    ("cuda_fp16.h", HIPRTC_CUDA_FP16_H),
    ("cuda_bf16.h", CUDA_BF16_H),
    ("cooperative_groups.h", COOPERATIVE_GROUPS_H),
    ("cooperative_groups/reduce.h", COOPERATIVE_GROUPS_REDUCE_H),
    ("stddef.h", extra::STDDEF_H),
    ("cstddef", extra::CSTDDEF),
    ("limits.h", extra::LIMITS_H),
    ("climits", extra::CLIMITS),
    ("float.h", extra::FLOAT_H),
    ("cfloat", extra::CFLOAT),
    ("math.h", extra::MATH_H),
    ("cmath", extra::CMATH),
    ("limits", extra::LIMITS),
    ("cuda/std/limits", extra::CUDA_STD_LIMITS),
    ("cuda_fp8.h", extra::CUDA_FP8_H),
    ("type_traits", extra::TYPE_TRAITS_HIPRTC),
    ("assert.h", extra::ASSERT_H_HIPRTC),
    ("cassert", extra::ASSERT_H_HIPRTC),
];

/// One text per file: `#pragma once` guards a file, so a second name for the same text would
/// define everything twice.
const CUDA_RUNTIME_API_H: &str =
    "// anycuda built-in cuda_runtime_api.h.\n#pragma once\n#include <cuda_runtime.h>\n";

const EMPTY_DEVICE_HEADER: &str = r#"// anycuda built-in: threadIdx/blockIdx/blockDim/gridDim/warpSize are predeclared by the compiler.
#pragma once
"#;

/// NVRTC declares the device runtime implicitly; `cuda_runtime.h` under nvcc also brings in the
/// math.h macros that kernels use.
const NVRTC_CUDA_RUNTIME_H: &str = r#"// anycuda built-in cuda_runtime.h for NVRTC: NVRTC predeclares the device runtime
// (threadIdx, __syncthreads, atomics, math functions); this only adds the <math.h> macros that
// nvcc's cuda_runtime.h makes visible.
#pragma once
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
"#;

/// hipRTC pre-includes HIP's runtime; this adds the CUDA spellings HIP 5.2 lacks.
const HIPRTC_CUDA_RUNTIME_H: &str = concat!(
    r#"// anycuda built-in cuda_runtime.h for hipRTC. hipRTC pre-includes HIP's device runtime, which
// already spells most CUDA device functions the CUDA way; this header adds the CUDA 9+ warp
// intrinsics with masks (HIP 5.2 has only the mask-less forms) and the <math.h> macros.
//
// Masks on AMD: wavefronts execute in lock step, so a shuffle's result does not depend on the mask
// (reading a lane outside the mask is undefined in CUDA too). Masks only change the answer of
// votes; there 0xffffffff (CUDA's "full warp") means the whole wavefront, any other mask names the
// lanes it sets. __ballot_sync and __activemask return a 32-bit lane mask in CUDA, which cannot
// describe a 64-lane wavefront: they exist on wave32 targets and are a compile error on wave64.
#pragma once
// nvcc defines __CUDA_ARCH__ in device code; CUDA libraries gate whole kernel families on it
// (half arithmetic >= 530, half atomics >= 700, bfloat16 >= 800, FP8 E4M3/E5M2 >= 890). AMD's
// targets have what those gates ask for (these headers supply the CUDA spellings; FP8 in software,
// <cuda_fp8.h>), so device code sees 890. 900 would open Hopper's gates (clusters, TMA, wgmma:
// inline PTX, nothing AMD has). Code under a gate that uses inline PTX fails to compile on AMD, as
// it must.
#ifndef __CUDA_ARCH__
#define __CUDA_ARCH__ 890
#endif
#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif

__device__ static inline unsigned long long __anycuda_lanes(unsigned int mask)
{
    return mask == 0xffffffffu ? ~0ull : (unsigned long long)mask;
}

#define __ANYCUDA_SHFL_SYNC(T)                                                                    \
    __device__ static inline T __shfl_sync(unsigned int, T var, int src, int width = warpSize)    \
    {                                                                                             \
        return __shfl(var, src, width);                                                           \
    }                                                                                             \
    __device__ static inline T __shfl_up_sync(unsigned int, T var, unsigned int d,                \
                                              int width = warpSize)                               \
    {                                                                                             \
        return __shfl_up(var, d, width);                                                          \
    }                                                                                             \
    __device__ static inline T __shfl_down_sync(unsigned int, T var, unsigned int d,              \
                                                int width = warpSize)                             \
    {                                                                                             \
        return __shfl_down(var, d, width);                                                        \
    }                                                                                             \
    __device__ static inline T __shfl_xor_sync(unsigned int, T var, int m, int width = warpSize)  \
    {                                                                                             \
        return __shfl_xor(var, m, width);                                                         \
    }
__ANYCUDA_SHFL_SYNC(int)
__ANYCUDA_SHFL_SYNC(unsigned int)
__ANYCUDA_SHFL_SYNC(long)
__ANYCUDA_SHFL_SYNC(unsigned long)
__ANYCUDA_SHFL_SYNC(long long)
__ANYCUDA_SHFL_SYNC(unsigned long long)
__ANYCUDA_SHFL_SYNC(float)
__ANYCUDA_SHFL_SYNC(double)
#undef __ANYCUDA_SHFL_SYNC

__device__ static inline int __any_sync(unsigned int mask, int pred)
{
    return (__ballot(pred) & __anycuda_lanes(mask)) != 0;
}
__device__ static inline int __all_sync(unsigned int mask, int pred)
{
    unsigned long long lanes = __anycuda_lanes(mask) & __ballot(1);
    return (__ballot(pred) & lanes) == lanes;
}
__device__ static inline void __syncwarp(unsigned int = 0xffffffffu)
{
    // A wavefront is always converged at a barrier; order its memory accesses like CUDA does.
    __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
    __builtin_amdgcn_wave_barrier();
    __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
}
#if __AMDGCN_WAVEFRONT_SIZE == 32
__device__ static inline unsigned int __ballot_sync(unsigned int mask, int pred)
{
    return (unsigned int)(__ballot(pred) & mask);
}
__device__ static inline unsigned int __activemask()
{
    return (unsigned int)__ballot(1);
}
#else
template <typename __AnycudaT = int>
__device__ unsigned int __ballot_sync(unsigned int, int)
{
    static_assert(sizeof(__AnycudaT) == 0,
                  "anycuda: __ballot_sync returns a 32-bit lane mask, but this AMD target has "
                  "64-lane wavefronts; use __ballot (64-bit) under #ifdef __HIP_DEVICE_COMPILE__");
    return 0;
}
template <typename __AnycudaT = int>
__device__ unsigned int __activemask()
{
    static_assert(sizeof(__AnycudaT) == 0,
                  "anycuda: __activemask returns a 32-bit lane mask, but this AMD target has "
                  "64-lane wavefronts; use __ballot(1) (64-bit) under #ifdef __HIP_DEVICE_COMPILE__");
    return 0;
}
#endif
"#,
    hiprtc_runtime_more!()
);

/// The `<stdint.h>` limit and constant macros, shared by both stdint shims.
macro_rules! stdint_limits {
    () => {
        r#"#define INT8_MIN (-128)
#define INT16_MIN (-32767 - 1)
#define INT32_MIN (-2147483647 - 1)
#define INT64_MIN (-__ANYCUDA_INT64_C(9223372036854775807) - 1)
#define INT8_MAX 127
#define INT16_MAX 32767
#define INT32_MAX 2147483647
#define INT64_MAX __ANYCUDA_INT64_C(9223372036854775807)
#define UINT8_MAX 255
#define UINT16_MAX 65535
#define UINT32_MAX 4294967295U
#define UINT64_MAX __ANYCUDA_UINT64_C(18446744073709551615)
#define INTPTR_MIN (-9223372036854775807L - 1)
#define INTPTR_MAX 9223372036854775807L
#define UINTPTR_MAX 18446744073709551615UL
#define SIZE_MAX 18446744073709551615UL
#define INT8_C(c) c
#define INT16_C(c) c
#define INT32_C(c) c
#define INT64_C(c) __ANYCUDA_INT64_C(c)
#define UINT8_C(c) c
#define UINT16_C(c) c
#define UINT32_C(c) c##U
#define UINT64_C(c) __ANYCUDA_UINT64_C(c)
"#
    };
}

/// NVRTC knows no fixed-width types; these match glibc on x86-64/aarch64 Linux, which is what
/// nvcc users compile against (so `uint64_t` is `unsigned long`).
const NVRTC_STDINT_H: &str = concat!(
    r#"// anycuda built-in stdint.h for NVRTC (LP64 Linux types, as nvcc sees them).
#pragma once
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long intmax_t;
typedef unsigned long uintmax_t;
#define __ANYCUDA_INT64_C(c) c##L
#define __ANYCUDA_UINT64_C(c) c##UL
"#,
    stdint_limits!()
);

/// hipRTC 5.2.3 already defines `uint32_t`, `uint64_t`, `int32_t`, `int64_t` (64-bit ones as
/// `long long`); repeating a typedef with the same type is legal, a different type is not.
const HIPRTC_STDINT_H: &str = concat!(
    r#"// anycuda built-in stdint.h for hipRTC (64-bit types as HIP's runtime header defines them).
#pragma once
#include <cuda_runtime.h>
typedef signed char int8_t;
typedef short int16_t;
typedef int int32_t;
typedef long long int64_t;
typedef unsigned char uint8_t;
typedef unsigned short uint16_t;
typedef unsigned int uint32_t;
typedef unsigned long long uint64_t;
typedef long intptr_t;
typedef unsigned long uintptr_t;
typedef long long intmax_t;
typedef unsigned long long uintmax_t;
#define __ANYCUDA_INT64_C(c) c##LL
#define __ANYCUDA_UINT64_C(c) c##ULL
"#,
    stdint_limits!()
);

const CSTDINT: &str = r#"// anycuda built-in <cstdint>.
#pragma once
#include <stdint.h>
namespace std {
using ::int8_t;
using ::int16_t;
using ::int32_t;
using ::int64_t;
using ::uint8_t;
using ::uint16_t;
using ::uint32_t;
using ::uint64_t;
using ::intptr_t;
using ::uintptr_t;
using ::intmax_t;
using ::uintmax_t;
}
"#;

/// Our own fp16 for NVRTC: storage plus PTX conversions and arithmetic (NVRTC 13 targets sm_75+,
/// which have all f16/f16x2 instructions used). Division goes through f32, which is exact
/// rounding for binary16 (24 >= 2*11+2 significand bits).
const NVRTC_CUDA_FP16_H: &str = concat!(
    r#"// anycuda built-in cuda_fp16.h for NVRTC (own implementation, a subset of CUDA's API).
#pragma once
#if __has_include(<cuda_fp16.hpp>) && __has_include(<../include/cuda_fp16.h>)
// A CUDA toolkit's include folder is on the path: step aside for its own header.
#include <../include/cuda_fp16.h>
#else
struct __half_raw { unsigned short x; };
struct __half2_raw { unsigned short x; unsigned short y; };
__device__ __forceinline__ unsigned short __anycuda_f2h(float f)
{
    unsigned short h;
    asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
    return h;
}
__device__ __forceinline__ float __anycuda_h2f(unsigned short h)
{
    float f;
    asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
    return f;
}
struct __align__(2) __half {
    unsigned short __x;
    __half() = default;
    __device__ __half(const __half_raw& r) : __x(r.x) {}
    __device__ __half(float f) : __x(__anycuda_f2h(f)) {}
    __device__ __half(double d) : __x(__anycuda_f2h(static_cast<float>(d))) {}
    __device__ __half(int i) : __x(__anycuda_f2h(static_cast<float>(i))) {}
    __device__ __half(unsigned int i) : __x(__anycuda_f2h(static_cast<float>(i))) {}
    __device__ __half(short i) : __x(__anycuda_f2h(static_cast<float>(i))) {}
    __device__ __half(unsigned short i) : __x(__anycuda_f2h(static_cast<float>(i))) {}
    __device__ __half(long i) : __x(__anycuda_f2h(static_cast<float>(i))) {}
    __device__ __half(unsigned long i) : __x(__anycuda_f2h(static_cast<float>(i))) {}
    __device__ __half(long long i) : __x(__anycuda_f2h(static_cast<float>(i))) {}
    __device__ __half(unsigned long long i) : __x(__anycuda_f2h(static_cast<float>(i))) {}
    __device__ operator float() const { return __anycuda_h2f(__x); }
    __device__ operator __half_raw() const { __half_raw r; r.x = __x; return r; }
};
struct __align__(4) __half2 {
    __half x;
    __half y;
    __half2() = default;
    __device__ __half2(const __half& a, const __half& b) : x(a), y(b) {}
    __device__ __half2(const __half2_raw& r) { x.__x = r.x; y.__x = r.y; }
    __device__ operator __half2_raw() const { __half2_raw r; r.x = x.__x; r.y = y.__x; return r; }
};
typedef __half half;
typedef __half2 half2;

__device__ __forceinline__ __half __anycuda_mkh(unsigned short b) { __half h; h.__x = b; return h; }
__device__ __forceinline__ unsigned int __anycuda_h2u(__half2 v) { return (unsigned int)v.x.__x | ((unsigned int)v.y.__x << 16); }
__device__ __forceinline__ __half2 __anycuda_u2h(unsigned int u) { return __half2(__anycuda_mkh((unsigned short)u), __anycuda_mkh((unsigned short)(u >> 16))); }

__device__ __forceinline__ __half __float2half(float f) { return __anycuda_mkh(__anycuda_f2h(f)); }
__device__ __forceinline__ __half __float2half_rn(float f) { return __anycuda_mkh(__anycuda_f2h(f)); }
__device__ __forceinline__ float __half2float(__half h) { return __anycuda_h2f(h.__x); }
__device__ __forceinline__ unsigned short __half_as_ushort(__half h) { return h.__x; }
__device__ __forceinline__ __half __ushort_as_half(unsigned short u) { return __anycuda_mkh(u); }
__device__ __forceinline__ short __half_as_short(__half h) { return (short)h.__x; }
__device__ __forceinline__ __half __short_as_half(short s) { return __anycuda_mkh((unsigned short)s); }

#define __ANYCUDA_H_BIN(name, op)                                                   \
    __device__ __forceinline__ __half name(__half a, __half b)                      \
    {                                                                               \
        unsigned short r;                                                           \
        asm(op " %0, %1, %2;" : "=h"(r) : "h"(a.__x), "h"(b.__x));                  \
        return __anycuda_mkh(r);                                                    \
    }
__ANYCUDA_H_BIN(__hadd, "add.f16")
__ANYCUDA_H_BIN(__hsub, "sub.f16")
__ANYCUDA_H_BIN(__hmul, "mul.f16")
__ANYCUDA_H_BIN(__hadd_rn, "add.rn.f16")
__ANYCUDA_H_BIN(__hsub_rn, "sub.rn.f16")
__ANYCUDA_H_BIN(__hmul_rn, "mul.rn.f16")
#undef __ANYCUDA_H_BIN
__device__ __forceinline__ __half __hdiv(__half a, __half b) { return __float2half(__half2float(a) / __half2float(b)); }
__device__ __forceinline__ __half __hfma(__half a, __half b, __half c)
{
    unsigned short r;
    asm("fma.rn.f16 %0, %1, %2, %3;" : "=h"(r) : "h"(a.__x), "h"(b.__x), "h"(c.__x));
    return __anycuda_mkh(r);
}
__device__ __forceinline__ __half __hneg(__half a) { return __anycuda_mkh(a.__x ^ 0x8000u); }
__device__ __forceinline__ __half __habs(__half a) { return __anycuda_mkh(a.__x & 0x7fffu); }
__device__ __forceinline__ bool __heq(__half a, __half b) { return __half2float(a) == __half2float(b); }
__device__ __forceinline__ bool __hne(__half a, __half b) { return __half2float(a) != __half2float(b); }
__device__ __forceinline__ bool __hlt(__half a, __half b) { return __half2float(a) < __half2float(b); }
__device__ __forceinline__ bool __hle(__half a, __half b) { return __half2float(a) <= __half2float(b); }
__device__ __forceinline__ bool __hgt(__half a, __half b) { return __half2float(a) > __half2float(b); }
__device__ __forceinline__ bool __hge(__half a, __half b) { return __half2float(a) >= __half2float(b); }
__device__ __forceinline__ bool __hisnan(__half a) { return (a.__x & 0x7fffu) > 0x7c00u; }
__device__ __forceinline__ __half __hmax(__half a, __half b) { return __float2half(fmaxf(__half2float(a), __half2float(b))); }
__device__ __forceinline__ __half __hmin(__half a, __half b) { return __float2half(fminf(__half2float(a), __half2float(b))); }

__device__ __forceinline__ __half2 __float2half2_rn(float f) { __half h = __float2half(f); return __half2(h, h); }
__device__ __forceinline__ __half2 __floats2half2_rn(float a, float b) { return __half2(__float2half(a), __float2half(b)); }
__device__ __forceinline__ __half2 __float22half2_rn(float2 f) { return __floats2half2_rn(f.x, f.y); }
__device__ __forceinline__ float2 __half22float2(__half2 h) { return make_float2(__half2float(h.x), __half2float(h.y)); }
__device__ __forceinline__ __half2 __half2half2(__half h) { return __half2(h, h); }
__device__ __forceinline__ __half2 __halves2half2(__half a, __half b) { return __half2(a, b); }
__device__ __forceinline__ __half __low2half(__half2 h) { return h.x; }
__device__ __forceinline__ __half __high2half(__half2 h) { return h.y; }
__device__ __forceinline__ float __low2float(__half2 h) { return __half2float(h.x); }
__device__ __forceinline__ float __high2float(__half2 h) { return __half2float(h.y); }

#define __ANYCUDA_H2_BIN(name, op)                                                  \
    __device__ __forceinline__ __half2 name(__half2 a, __half2 b)                   \
    {                                                                               \
        unsigned int r;                                                             \
        asm(op " %0, %1, %2;" : "=r"(r) : "r"(__anycuda_h2u(a)), "r"(__anycuda_h2u(b))); \
        return __anycuda_u2h(r);                                                    \
    }
__ANYCUDA_H2_BIN(__hadd2, "add.f16x2")
__ANYCUDA_H2_BIN(__hsub2, "sub.f16x2")
__ANYCUDA_H2_BIN(__hmul2, "mul.f16x2")
#undef __ANYCUDA_H2_BIN
__device__ __forceinline__ __half2 __hfma2(__half2 a, __half2 b, __half2 c)
{
    unsigned int r;
    asm("fma.rn.f16x2 %0, %1, %2, %3;" : "=r"(r) : "r"(__anycuda_h2u(a)), "r"(__anycuda_h2u(b)), "r"(__anycuda_h2u(c)));
    return __anycuda_u2h(r);
}
__device__ __forceinline__ __half2 __h2div(__half2 a, __half2 b) { return __half2(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
__device__ __forceinline__ __half2 __hneg2(__half2 a) { return __anycuda_u2h(__anycuda_h2u(a) ^ 0x80008000u); }
__device__ __forceinline__ __half2 __habs2(__half2 a) { return __anycuda_u2h(__anycuda_h2u(a) & 0x7fff7fffu); }

__device__ __forceinline__ __half operator+(const __half& a, const __half& b) { return __hadd(a, b); }
__device__ __forceinline__ __half operator-(const __half& a, const __half& b) { return __hsub(a, b); }
__device__ __forceinline__ __half operator*(const __half& a, const __half& b) { return __hmul(a, b); }
__device__ __forceinline__ __half operator/(const __half& a, const __half& b) { return __hdiv(a, b); }
__device__ __forceinline__ __half operator-(const __half& a) { return __hneg(a); }
__device__ __forceinline__ __half operator+(const __half& a) { return a; }
__device__ __forceinline__ __half& operator+=(__half& a, const __half& b) { a = __hadd(a, b); return a; }
__device__ __forceinline__ __half& operator-=(__half& a, const __half& b) { a = __hsub(a, b); return a; }
__device__ __forceinline__ __half& operator*=(__half& a, const __half& b) { a = __hmul(a, b); return a; }
__device__ __forceinline__ __half& operator/=(__half& a, const __half& b) { a = __hdiv(a, b); return a; }
__device__ __forceinline__ bool operator==(const __half& a, const __half& b) { return __heq(a, b); }
__device__ __forceinline__ bool operator!=(const __half& a, const __half& b) { return __hne(a, b); }
__device__ __forceinline__ bool operator<(const __half& a, const __half& b) { return __hlt(a, b); }
__device__ __forceinline__ bool operator<=(const __half& a, const __half& b) { return __hle(a, b); }
__device__ __forceinline__ bool operator>(const __half& a, const __half& b) { return __hgt(a, b); }
__device__ __forceinline__ bool operator>=(const __half& a, const __half& b) { return __hge(a, b); }
__device__ __forceinline__ __half2 operator+(const __half2& a, const __half2& b) { return __hadd2(a, b); }
__device__ __forceinline__ __half2 operator-(const __half2& a, const __half2& b) { return __hsub2(a, b); }
__device__ __forceinline__ __half2 operator*(const __half2& a, const __half2& b) { return __hmul2(a, b); }
__device__ __forceinline__ __half2 operator/(const __half2& a, const __half2& b) { return __h2div(a, b); }
__device__ __forceinline__ __half2 operator-(const __half2& a) { return __hneg2(a); }
__device__ __forceinline__ __half2& operator+=(__half2& a, const __half2& b) { a = __hadd2(a, b); return a; }
__device__ __forceinline__ __half2& operator-=(__half2& a, const __half2& b) { a = __hsub2(a, b); return a; }
__device__ __forceinline__ __half2& operator*=(__half2& a, const __half2& b) { a = __hmul2(a, b); return a; }
"#,
    nvrtc_fp16_more!(),
    "#endif\n"
);

/// hipRTC pre-includes `hip/hip_fp16.h`, which already provides CUDA's fp16 API.
const HIPRTC_CUDA_FP16_H: &str = concat!(
    r#"// anycuda built-in cuda_fp16.h for hipRTC: hipRTC pre-includes HIP's hip_fp16.h, which provides
// __half, __half2 and CUDA's fp16 intrinsics under their CUDA names.
#pragma once
"#,
    hiprtc_fp16_more!()
);

/// Our own bfloat16 for both compilers. Conversions round to nearest even with NaN kept quiet
/// (0x7fff, what sm_80's cvt.rn.bf16.f32 produces). +, -, *, / and comparisons go through f32,
/// which rounds exactly like bfloat16 hardware (24 >= 2*8+2 significand bits). Fused
/// multiply-add must round once: the sum is formed exactly in f64 (a bf16 product is exact
/// there), rounded to odd down to f32 and then to nearest even into bf16, which is correct
/// rounding (round-to-odd with >= p+2 bits). sm_80+ uses the hardware instructions instead.
const CUDA_BF16_H: &str = concat!(
    r#"// anycuda built-in cuda_bf16.h (own implementation, a subset of CUDA's API).
#pragma once
#if defined(__CUDACC_RTC__) && __has_include(<cuda_bf16.hpp>) && __has_include(<../include/cuda_bf16.h>)
// NVRTC with a CUDA toolkit's include folder on the path: step aside for its own header.
#include <../include/cuda_bf16.h>
#else
struct __nv_bfloat16_raw { unsigned short x; };
struct __nv_bfloat162_raw { unsigned short x; unsigned short y; };

#if defined(__CUDACC_RTC__) && defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
#define __ANYCUDA_BF16_PTX 1
#endif

__device__ __forceinline__ unsigned short __anycuda_f2bf(float f)
{
#ifdef __ANYCUDA_BF16_PTX
    unsigned short r;
    asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
    return r;
#else
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return 0x7fffu;
    u += 0x7fffu + ((u >> 16) & 1u);
    return (unsigned short)(u >> 16);
#endif
}
__device__ __forceinline__ float __anycuda_bf2f(unsigned short b) { return __uint_as_float((unsigned int)b << 16); }

struct __align__(2) __nv_bfloat16 {
    unsigned short __x;
    __nv_bfloat16() = default;
    __device__ __nv_bfloat16(const __nv_bfloat16_raw& r) : __x(r.x) {}
    __device__ __nv_bfloat16(float f) : __x(__anycuda_f2bf(f)) {}
    __device__ __nv_bfloat16(double f) : __x(__anycuda_f2bf(static_cast<float>(f))) {}
    __device__ __nv_bfloat16(int i) : __x(__anycuda_f2bf(static_cast<float>(i))) {}
    __device__ __nv_bfloat16(unsigned int i) : __x(__anycuda_f2bf(static_cast<float>(i))) {}
    __device__ __nv_bfloat16(short i) : __x(__anycuda_f2bf(static_cast<float>(i))) {}
    __device__ __nv_bfloat16(unsigned short i) : __x(__anycuda_f2bf(static_cast<float>(i))) {}
    __device__ __nv_bfloat16(long long i) : __x(__anycuda_f2bf(static_cast<float>(i))) {}
    __device__ __nv_bfloat16(unsigned long long i) : __x(__anycuda_f2bf(static_cast<float>(i))) {}
    __device__ operator float() const { return __anycuda_bf2f(__x); }
    __device__ operator __nv_bfloat16_raw() const { __nv_bfloat16_raw r; r.x = __x; return r; }
};
struct __align__(4) __nv_bfloat162 {
    __nv_bfloat16 x;
    __nv_bfloat16 y;
    __nv_bfloat162() = default;
    __device__ __nv_bfloat162(const __nv_bfloat16& a, const __nv_bfloat16& b) : x(a), y(b) {}
    __device__ __nv_bfloat162(const __nv_bfloat162_raw& r) { x.__x = r.x; y.__x = r.y; }
    __device__ operator __nv_bfloat162_raw() const { __nv_bfloat162_raw r; r.x = x.__x; r.y = y.__x; return r; }
};
typedef __nv_bfloat16 nv_bfloat16;
typedef __nv_bfloat162 nv_bfloat162;

__device__ __forceinline__ __nv_bfloat16 __anycuda_mkbf(unsigned short b) { __nv_bfloat16 h; h.__x = b; return h; }
__device__ __forceinline__ __nv_bfloat16 __float2bfloat16(float f) { return __anycuda_mkbf(__anycuda_f2bf(f)); }
__device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rn(float f) { return __anycuda_mkbf(__anycuda_f2bf(f)); }
__device__ __forceinline__ float __bfloat162float(__nv_bfloat16 b) { return __anycuda_bf2f(b.__x); }
__device__ __forceinline__ unsigned short __bfloat16_as_ushort(__nv_bfloat16 b) { return b.__x; }
__device__ __forceinline__ __nv_bfloat16 __ushort_as_bfloat16(unsigned short u) { return __anycuda_mkbf(u); }

__device__ __forceinline__ __nv_bfloat16 __hadd(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(__bfloat162float(a) + __bfloat162float(b)); }
__device__ __forceinline__ __nv_bfloat16 __hsub(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(__bfloat162float(a) - __bfloat162float(b)); }
__device__ __forceinline__ __nv_bfloat16 __hmul(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(__bfloat162float(a) * __bfloat162float(b)); }
__device__ __forceinline__ __nv_bfloat16 __hdiv(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(__bfloat162float(a) / __bfloat162float(b)); }
__device__ __forceinline__ __nv_bfloat16 __hfma(__nv_bfloat16 a, __nv_bfloat16 b, __nv_bfloat16 c)
{
#ifdef __ANYCUDA_BF16_PTX
    unsigned short r;
    asm("fma.rn.bf16 %0, %1, %2, %3;" : "=h"(r) : "h"(a.__x), "h"(b.__x), "h"(c.__x));
    return __anycuda_mkbf(r);
#else
    double p = (double)__bfloat162float(a) * (double)__bfloat162float(b);  // exact
    double cc = (double)__bfloat162float(c);
    double s = p + cc;
    double bb = s - p;
    double err = (p - (s - bb)) + (cc - bb);  // s + err == p + c exactly (TwoSum)
    long long sb = __double_as_longlong(s);
    if (err != 0.0 && (sb & 1) == 0) sb += ((err > 0.0) == (s > 0.0)) ? 1 : -1;  // round to odd
    s = __longlong_as_double(sb);
    float f = (float)s;
    unsigned int fb = __float_as_uint(f);
    double rest = s - (double)f;
    if (rest != 0.0 && (fb & 0x7f800000u) != 0x7f800000u && (fb & 1u) == 0)
        fb += ((rest > 0.0) == (s > 0.0)) ? 1u : 0xffffffffu;  // round to odd again, in f32
    return __float2bfloat16(__uint_as_float(fb));
#endif
}
__device__ __forceinline__ __nv_bfloat16 __hneg(__nv_bfloat16 a) { return __anycuda_mkbf(a.__x ^ 0x8000u); }
__device__ __forceinline__ __nv_bfloat16 __habs(__nv_bfloat16 a) { return __anycuda_mkbf(a.__x & 0x7fffu); }
__device__ __forceinline__ bool __heq(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) == __bfloat162float(b); }
__device__ __forceinline__ bool __hne(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) != __bfloat162float(b); }
__device__ __forceinline__ bool __hlt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) < __bfloat162float(b); }
__device__ __forceinline__ bool __hle(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) <= __bfloat162float(b); }
__device__ __forceinline__ bool __hgt(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) > __bfloat162float(b); }
__device__ __forceinline__ bool __hge(__nv_bfloat16 a, __nv_bfloat16 b) { return __bfloat162float(a) >= __bfloat162float(b); }
__device__ __forceinline__ bool __hisnan(__nv_bfloat16 a) { return (a.__x & 0x7fffu) > 0x7f80u; }
__device__ __forceinline__ __nv_bfloat16 __hmax(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(fmaxf(__bfloat162float(a), __bfloat162float(b))); }
__device__ __forceinline__ __nv_bfloat16 __hmin(__nv_bfloat16 a, __nv_bfloat16 b) { return __float2bfloat16(fminf(__bfloat162float(a), __bfloat162float(b))); }

__device__ __forceinline__ __nv_bfloat162 __float2bfloat162_rn(float f) { __nv_bfloat16 h = __float2bfloat16(f); return __nv_bfloat162(h, h); }
__device__ __forceinline__ __nv_bfloat162 __floats2bfloat162_rn(float a, float b) { return __nv_bfloat162(__float2bfloat16(a), __float2bfloat16(b)); }
__device__ __forceinline__ __nv_bfloat162 __float22bfloat162_rn(float2 f) { return __floats2bfloat162_rn(f.x, f.y); }
__device__ __forceinline__ float2 __bfloat1622float2(__nv_bfloat162 h) { return make_float2(__bfloat162float(h.x), __bfloat162float(h.y)); }
__device__ __forceinline__ __nv_bfloat162 __bfloat162bfloat162(__nv_bfloat16 h) { return __nv_bfloat162(h, h); }
__device__ __forceinline__ __nv_bfloat162 __halves2bfloat162(__nv_bfloat16 a, __nv_bfloat16 b) { return __nv_bfloat162(a, b); }
__device__ __forceinline__ __nv_bfloat16 __low2bfloat16(__nv_bfloat162 h) { return h.x; }
__device__ __forceinline__ __nv_bfloat16 __high2bfloat16(__nv_bfloat162 h) { return h.y; }
__device__ __forceinline__ float __low2float(__nv_bfloat162 h) { return __bfloat162float(h.x); }
__device__ __forceinline__ float __high2float(__nv_bfloat162 h) { return __bfloat162float(h.y); }
__device__ __forceinline__ __nv_bfloat162 __hadd2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hadd(a.x, b.x), __hadd(a.y, b.y)); }
__device__ __forceinline__ __nv_bfloat162 __hsub2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hsub(a.x, b.x), __hsub(a.y, b.y)); }
__device__ __forceinline__ __nv_bfloat162 __hmul2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hmul(a.x, b.x), __hmul(a.y, b.y)); }
__device__ __forceinline__ __nv_bfloat162 __h2div(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hdiv(a.x, b.x), __hdiv(a.y, b.y)); }
__device__ __forceinline__ __nv_bfloat162 __hfma2(__nv_bfloat162 a, __nv_bfloat162 b, __nv_bfloat162 c) { return __nv_bfloat162(__hfma(a.x, b.x, c.x), __hfma(a.y, b.y, c.y)); }
__device__ __forceinline__ __nv_bfloat162 __hneg2(__nv_bfloat162 a) { return __nv_bfloat162(__hneg(a.x), __hneg(a.y)); }

__device__ __forceinline__ __nv_bfloat16 operator+(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hadd(a, b); }
__device__ __forceinline__ __nv_bfloat16 operator-(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hsub(a, b); }
__device__ __forceinline__ __nv_bfloat16 operator*(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hmul(a, b); }
__device__ __forceinline__ __nv_bfloat16 operator/(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hdiv(a, b); }
__device__ __forceinline__ __nv_bfloat16 operator-(const __nv_bfloat16& a) { return __hneg(a); }
__device__ __forceinline__ __nv_bfloat16& operator+=(__nv_bfloat16& a, const __nv_bfloat16& b) { a = __hadd(a, b); return a; }
__device__ __forceinline__ __nv_bfloat16& operator-=(__nv_bfloat16& a, const __nv_bfloat16& b) { a = __hsub(a, b); return a; }
__device__ __forceinline__ __nv_bfloat16& operator*=(__nv_bfloat16& a, const __nv_bfloat16& b) { a = __hmul(a, b); return a; }
__device__ __forceinline__ __nv_bfloat16& operator/=(__nv_bfloat16& a, const __nv_bfloat16& b) { a = __hdiv(a, b); return a; }
__device__ __forceinline__ bool operator==(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __heq(a, b); }
__device__ __forceinline__ bool operator!=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hne(a, b); }
__device__ __forceinline__ bool operator<(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hlt(a, b); }
__device__ __forceinline__ bool operator<=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hle(a, b); }
__device__ __forceinline__ bool operator>(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hgt(a, b); }
__device__ __forceinline__ bool operator>=(const __nv_bfloat16& a, const __nv_bfloat16& b) { return __hge(a, b); }
__device__ __forceinline__ __nv_bfloat162 operator+(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hadd2(a, b); }
__device__ __forceinline__ __nv_bfloat162 operator-(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hsub2(a, b); }
__device__ __forceinline__ __nv_bfloat162 operator*(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __hmul2(a, b); }
__device__ __forceinline__ __nv_bfloat162 operator/(const __nv_bfloat162& a, const __nv_bfloat162& b) { return __h2div(a, b); }
#undef __ANYCUDA_BF16_PTX
"#,
    bf16_more!(),
    "#endif\n"
);

/// Our own cooperative groups subset: thread blocks and static tiles of up to 32 threads, which
/// divide both warp widths (32 on NVIDIA, 32 or 64 on AMD), so a tile never spans two warps.
const COOPERATIVE_GROUPS_H: &str = r#"// anycuda built-in cooperative_groups.h (own implementation, a subset of CUDA's API):
// thread_block, this_thread_block(), thread_block_tile<N> for N = 1, 2, 4, 8, 16, 32 and
// tiled_partition<N>(thread_block). Grid groups, coalesced groups and dynamic partitions are not
// provided (using them is a compile error).
#pragma once
#if defined(__HIPCC_RTC__)
// hipRTC 5.7+ pre-declares HIP's own cooperative groups in namespace cooperative_groups (probed
// on Ubuntu's 5.7.1; Debian's 5.2.3 has none), and its thread_block_tile<N, thread_block> has
// ambiguous members. This implementation lives in its own namespace so the two coexist on every
// HIP version; CUDA code naming cooperative_groups gets this one.
#define cooperative_groups anycuda_cooperative_groups
#endif
namespace cooperative_groups {

class thread_block {
public:
    __device__ void sync() const { __syncthreads(); }
    __device__ unsigned int thread_rank() const
    {
        return (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    }
    __device__ unsigned int size() const { return blockDim.x * blockDim.y * blockDim.z; }
    __device__ unsigned int num_threads() const { return size(); }
    __device__ dim3 group_index() const { return dim3(blockIdx.x, blockIdx.y, blockIdx.z); }
    __device__ dim3 thread_index() const { return dim3(threadIdx.x, threadIdx.y, threadIdx.z); }
    __device__ dim3 group_dim() const { return dim3(blockDim.x, blockDim.y, blockDim.z); }
    __device__ dim3 dim_threads() const { return group_dim(); }
};

__device__ inline thread_block this_thread_block() { return thread_block(); }
__device__ inline void sync(const thread_block& g) { g.sync(); }

template <unsigned int Size>
class thread_block_tile {
    static_assert(Size >= 1 && Size <= 32 && (Size & (Size - 1)) == 0,
                  "anycuda: thread_block_tile<N> needs N a power of two in 1..32");
    __device__ unsigned int block_rank() const { return this_thread_block().thread_rank(); }
#ifdef __CUDACC_RTC__
    // Tiles are aligned within a 32-lane warp; the mask names this tile's lanes.
    __device__ unsigned int mask() const
    {
        return Size == 32 ? 0xffffffffu : (((1u << Size) - 1u) << (block_rank() & 31u & ~(Size - 1u)));
    }
#else
    __device__ unsigned long long tile_bits(unsigned long long wave_bits) const
    {
        unsigned int first = (block_rank() % warpSize) & ~(Size - 1u);
        return (wave_bits >> first) & (Size == 32 ? 0xffffffffull : ((1ull << Size) - 1ull));
    }
#endif
public:
    __device__ static constexpr unsigned int size() { return Size; }
    __device__ static constexpr unsigned int num_threads() { return Size; }
    __device__ unsigned int thread_rank() const { return block_rank() & (Size - 1u); }
    __device__ unsigned int meta_group_rank() const { return block_rank() / Size; }
    __device__ unsigned int meta_group_size() const { return (this_thread_block().size() + Size - 1u) / Size; }
#ifdef __CUDACC_RTC__
    __device__ void sync() const { __syncwarp(mask()); }
    template <typename T> __device__ T shfl(T var, int src) const { return __shfl_sync(mask(), var, src, Size); }
    template <typename T> __device__ T shfl_down(T var, unsigned int d) const { return __shfl_down_sync(mask(), var, d, Size); }
    template <typename T> __device__ T shfl_up(T var, unsigned int d) const { return __shfl_up_sync(mask(), var, d, Size); }
    template <typename T> __device__ T shfl_xor(T var, unsigned int m) const { return __shfl_xor_sync(mask(), var, m, Size); }
    __device__ int any(int pred) const { return __any_sync(mask(), pred); }
    __device__ int all(int pred) const { return __all_sync(mask(), pred); }
    __device__ unsigned int ballot(int pred) const { return __ballot_sync(mask(), pred) >> (block_rank() & 31u & ~(Size - 1u)); }
#else
    __device__ void sync() const
    {
        __builtin_amdgcn_fence(__ATOMIC_RELEASE, "wavefront");
        __builtin_amdgcn_wave_barrier();
        __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "wavefront");
    }
    template <typename T> __device__ T shfl(T var, int src) const { return __shfl(var, src, Size); }
    template <typename T> __device__ T shfl_down(T var, unsigned int d) const { return __shfl_down(var, d, Size); }
    template <typename T> __device__ T shfl_up(T var, unsigned int d) const { return __shfl_up(var, d, Size); }
    template <typename T> __device__ T shfl_xor(T var, unsigned int m) const { return __shfl_xor(var, m, Size); }
    __device__ int any(int pred) const { return tile_bits(__ballot(pred)) != 0; }
    __device__ int all(int pred) const { return tile_bits(__ballot(pred)) == tile_bits(__ballot(1)); }
    __device__ unsigned int ballot(int pred) const { return (unsigned int)tile_bits(__ballot(pred)); }
#endif
};

template <unsigned int Size>
__device__ inline thread_block_tile<Size> tiled_partition(const thread_block&)
{
    return thread_block_tile<Size>();
}
template <unsigned int Size>
__device__ inline void sync(const thread_block_tile<Size>& g) { g.sync(); }

} // namespace cooperative_groups
"#;

/// `cg::reduce` over static tiles with CUDA's function objects.
const COOPERATIVE_GROUPS_REDUCE_H: &str = r#"// anycuda built-in cooperative_groups/reduce.h (own implementation): cg::reduce over
// thread_block_tile<N> with cg::plus, cg::less (minimum), cg::greater (maximum), cg::bit_and,
// cg::bit_or, cg::bit_xor or any binary function object. Every lane gets the result.
#pragma once
#include <cooperative_groups.h>
namespace cooperative_groups {
template <typename T> struct plus { __device__ T operator()(const T& a, const T& b) const { return a + b; } };
template <typename T> struct less { __device__ T operator()(const T& a, const T& b) const { return b < a ? b : a; } };
template <typename T> struct greater { __device__ T operator()(const T& a, const T& b) const { return a < b ? b : a; } };
template <typename T> struct bit_and { __device__ T operator()(const T& a, const T& b) const { return a & b; } };
template <typename T> struct bit_or { __device__ T operator()(const T& a, const T& b) const { return a | b; } };
template <typename T> struct bit_xor { __device__ T operator()(const T& a, const T& b) const { return a ^ b; } };

// Generic over the group: any tile with size() and shfl_xor().
template <typename Group, typename T, typename Op>
__device__ T reduce(const Group& g, T val, Op op)
{
    for (unsigned int m = g.size() / 2; m > 0; m /= 2) {
        val = op(val, g.shfl_xor(val, m));
    }
    return val;
}
} // namespace cooperative_groups
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    const TARGETS: [RtcTarget; 2] = [RtcTarget::Nvrtc, RtcTarget::Hiprtc];

    #[test]
    fn names_are_unique_and_sources_nul_free() {
        for t in TARGETS {
            let mut seen = BTreeSet::new();
            for (name, src) in builtin_headers(t) {
                assert!(seen.insert(*name), "{t:?}: {name} twice");
                assert!(
                    !name.contains('\0') && !src.contains('\0'),
                    "{t:?}: {name} has a NUL"
                );
                assert!(
                    src.contains("#pragma once"),
                    "{t:?}: {name} lacks an include guard"
                );
                assert!(
                    !src.contains("NVIDIA Corporation"),
                    "{t:?}: {name} must be our own text"
                );
            }
        }
    }

    /// Every header the kernel corpus includes is provided on both compilers (the corpus itself
    /// is compiled for real by the backends' tests).
    #[test]
    fn corpus_includes_are_covered() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/kernels");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return; // crate built outside the workspace
        };
        let mut includes = BTreeSet::new();
        for e in entries.flatten() {
            let text = std::fs::read_to_string(e.path()).unwrap_or_default();
            for line in text.lines() {
                if let Some(rest) = line.trim().strip_prefix("#include <") {
                    includes.insert(rest.trim_end_matches('>').to_owned());
                }
            }
        }
        assert!(includes.contains("cuda_runtime.h"));
        for t in TARGETS {
            let names: Vec<&str> = builtin_headers(t).iter().map(|(n, _)| *n).collect();
            for inc in &includes {
                assert!(names.contains(&inc.as_str()), "{t:?} lacks {inc}");
            }
        }
    }

    #[test]
    fn hiprtc_maps_cuda_names_nvrtc_adds_only_missing_ones() {
        let hip = |n: &str| {
            builtin_headers(RtcTarget::Hiprtc)
                .iter()
                .find(|(h, _)| *h == n)
                .unwrap()
                .1
        };
        let nv = |n: &str| {
            builtin_headers(RtcTarget::Nvrtc)
                .iter()
                .find(|(h, _)| *h == n)
                .unwrap()
                .1
        };
        assert!(hip("cuda_runtime.h").contains("__shfl_down_sync"));
        assert!(
            hip("cuda_runtime.h").contains("static_assert"),
            "ballot on wave64 must not compile"
        );
        // NVRTC predeclares the warp intrinsics; redefining them would clash.
        assert!(!nv("cuda_runtime.h").contains("__shfl_down_sync"));
        assert!(hip("cuda_bf16.h").contains("__nv_bfloat162"));
        assert!(nv("cuda_fp16.h").contains("struct __align__(2) __half"));
        // hipRTC 5.2.3 defines 64-bit types as long long; NVRTC follows LP64 glibc.
        assert!(hip("stdint.h").contains("typedef unsigned long long uint64_t;"));
        assert!(nv("stdint.h").contains("typedef unsigned long uint64_t;"));
        assert!(nv("stdint.h").contains("#define UINT8_MAX 255"));
    }
}

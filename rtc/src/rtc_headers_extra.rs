//! The freestanding C/C++ headers and the CUDA 11.8+ headers that real kernel libraries include,
//! for both compilers (the tables are in `rtc_headers`). All our own text.
//!
//! What each compiler already has decides what is written here (probed on NVRTC 13.0 and on
//! Debian's hipRTC 5.2.3, 5.7.1 and 6.4.3): both predeclare the C math functions in the global
//! namespace (`sqrtf`, `sqrt(float)`, `isnan`, ...) and `size_t`, but neither has the headers
//! `<cmath>`, `<limits>`, `<cfloat>`, `<climits>` or `<stddef.h>`; hipRTC predeclares part of
//! `<type_traits>` (`is_same`, `enable_if`, `is_integral`, `is_signed`, ...), NVRTC
//! none of it (probed per name). Without these shims hipRTC falls through to the host's `/usr/include`, whose
//! `<stdlib.h>` then fails for lack of `stddef.h`.

/// `<stddef.h>`: the same types the host's LP64 headers give.
pub(crate) const STDDEF_H: &str = r#"// anycuda built-in stddef.h.
#pragma once
typedef decltype(sizeof(0)) size_t;
typedef decltype((char*)0 - (char*)0) ptrdiff_t;
#ifndef NULL
#define NULL 0
#endif
#ifndef offsetof
#define offsetof(t, m) __builtin_offsetof(t, m)
#endif
"#;

/// `<cstddef>`: typedefs, not using-declarations, because hipRTC already has `std::size_t`.
pub(crate) const CSTDDEF: &str = r#"// anycuda built-in <cstddef>.
#pragma once
#include <stddef.h>
namespace std {
typedef ::size_t size_t;
typedef ::ptrdiff_t ptrdiff_t;
typedef decltype(nullptr) nullptr_t;
}
"#;

/// `<limits.h>` for LP64 Linux with a signed `char` (x86-64, what nvcc's host compiler uses).
pub(crate) const LIMITS_H: &str = r#"// anycuda built-in limits.h (LP64, signed char).
#pragma once
#ifndef CHAR_BIT
#define CHAR_BIT 8
#define SCHAR_MIN (-128)
#define SCHAR_MAX 127
#define UCHAR_MAX 255
#define CHAR_MIN SCHAR_MIN
#define CHAR_MAX SCHAR_MAX
#define SHRT_MIN (-32767 - 1)
#define SHRT_MAX 32767
#define USHRT_MAX 65535
#define INT_MIN (-2147483647 - 1)
#define INT_MAX 2147483647
#define UINT_MAX 4294967295U
#define LONG_MIN (-9223372036854775807L - 1)
#define LONG_MAX 9223372036854775807L
#define ULONG_MAX 18446744073709551615UL
#define LLONG_MIN (-9223372036854775807LL - 1)
#define LLONG_MAX 9223372036854775807LL
#define ULLONG_MAX 18446744073709551615ULL
#endif
"#;

/// `<climits>`.
pub(crate) const CLIMITS: &str =
    "// anycuda built-in <climits>.\n#pragma once\n#include <limits.h>\n";

/// `<float.h>`: IEEE binary32 and binary64.
pub(crate) const FLOAT_H: &str = r#"// anycuda built-in float.h (IEEE binary32/binary64).
#pragma once
#ifndef FLT_MAX
#define FLT_RADIX 2
#define FLT_MANT_DIG 24
#define DBL_MANT_DIG 53
#define FLT_DIG 6
#define DBL_DIG 15
#define FLT_DECIMAL_DIG 9
#define DBL_DECIMAL_DIG 17
#define FLT_MIN_EXP (-125)
#define DBL_MIN_EXP (-1021)
#define FLT_MAX_EXP 128
#define DBL_MAX_EXP 1024
#define FLT_MIN_10_EXP (-37)
#define DBL_MIN_10_EXP (-307)
#define FLT_MAX_10_EXP 38
#define DBL_MAX_10_EXP 308
#define FLT_MAX 3.40282346638528859812e+38F
#define DBL_MAX 1.79769313486231570815e+308
#define FLT_MIN 1.17549435082228750797e-38F
#define DBL_MIN 2.22507385850720138309e-308
#define FLT_EPSILON 1.1920928955078125e-07F
#define DBL_EPSILON 2.22044604925031308085e-16
#define FLT_TRUE_MIN 1.40129846432481707092e-45F
#define DBL_TRUE_MIN 4.94065645841246544177e-324
#endif
"#;

/// `<cfloat>`.
pub(crate) const CFLOAT: &str = "// anycuda built-in <cfloat>.\n#pragma once\n#include <float.h>\n";

/// `<math.h>`: the functions are predeclared by both compilers; this adds the macros.
pub(crate) const MATH_H: &str = r#"// anycuda built-in math.h: the compiler predeclares the functions; these are the macros.
#pragma once
#ifdef __CUDACC_RTC__
// NVRTC has no __builtin_inff; CUDA's own headers spell these through the bit patterns too.
#ifndef INFINITY
#define INFINITY __int_as_float(0x7f800000)
#endif
#ifndef NAN
#define NAN __int_as_float(0x7fffffff)
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __int_as_float(0x7f800000)
#endif
#ifndef HUGE_VAL
#define HUGE_VAL __longlong_as_double(0x7ff0000000000000LL)
#endif
#else
#ifndef INFINITY
#define INFINITY __builtin_inff()
#endif
#ifndef NAN
#define NAN __builtin_nanf("")
#endif
#ifndef HUGE_VALF
#define HUGE_VALF __builtin_huge_valf()
#endif
#ifndef HUGE_VAL
#define HUGE_VAL __builtin_huge_val()
#endif
#endif
#ifndef M_PI
#define M_E 2.7182818284590452354
#define M_LOG2E 1.4426950408889634074
#define M_LOG10E 0.43429448190325182765
#define M_LN2 0.69314718055994530942
#define M_LN10 2.30258509299404568402
#define M_PI 3.14159265358979323846
#define M_PI_2 1.57079632679489661923
#define M_PI_4 0.78539816339744830962
#define M_1_PI 0.31830988618379067154
#define M_2_PI 0.63661977236758134308
#define M_2_SQRTPI 1.12837916709551257390
#define M_SQRT2 1.41421356237309504880
#define M_SQRT1_2 0.70710678118654752440
#endif
"#;

/// `<cmath>`: the global functions, also under `std::`.
pub(crate) const CMATH: &str = r#"// anycuda built-in <cmath>: the predeclared math functions, also in namespace std.
#pragma once
#include <math.h>
namespace std {
using ::abs; using ::fabs; using ::fmod; using ::remainder; using ::fma; using ::fmax;
using ::fmin; using ::fdim; using ::exp; using ::exp2; using ::expm1; using ::log; using ::log10;
using ::log2; using ::log1p; using ::pow; using ::sqrt; using ::cbrt; using ::hypot; using ::sin;
using ::cos; using ::tan; using ::asin; using ::acos; using ::atan; using ::atan2; using ::sinh;
using ::cosh; using ::tanh; using ::asinh; using ::acosh; using ::atanh; using ::erf; using ::erfc;
using ::tgamma; using ::lgamma; using ::ceil; using ::floor; using ::trunc; using ::round;
using ::lround; using ::llround; using ::rint; using ::lrint; using ::llrint; using ::nearbyint;
using ::frexp; using ::ldexp; using ::modf; using ::scalbn; using ::ilogb; using ::logb;
using ::nextafter; using ::copysign; using ::isfinite; using ::isinf; using ::isnan;
using ::signbit;
using ::sqrtf; using ::expf; using ::logf; using ::powf; using ::fabsf; using ::fmaxf;
using ::fminf; using ::floorf; using ::ceilf; using ::tanhf; using ::erff; using ::roundf;
}
"#;

/// `<limits>`: `std::numeric_limits` for the arithmetic types (LP64, signed `char`).
/// `<cuda/std/limits>` (libcu++'s, which neither runtime compiler finds without CCCL on the
/// include path; candle-kernels' reduce.cu includes it): `cuda::std::numeric_limits` is the
/// built-in `<limits>`'s `std::numeric_limits`.
pub(crate) const CUDA_STD_LIMITS: &str = r#"// anycuda built-in <cuda/std/limits>.
#pragma once
#include <limits>
namespace cuda {
namespace std {
using ::std::float_round_style;
using ::std::numeric_limits;
using ::std::round_indeterminate;
using ::std::round_to_nearest;
using ::std::round_toward_zero;
} // namespace std
} // namespace cuda
"#;

pub(crate) const LIMITS: &str = r#"// anycuda built-in <limits>: std::numeric_limits for the arithmetic types.
#pragma once
#ifdef __CUDACC_RTC__
// NVRTC has no constant-expression infinity or NaN: those members are plain device functions.
#define __ANYCUDA_FP_SPECIAL __device__
#define __ANYCUDA_FINF __int_as_float(0x7f800000)
#define __ANYCUDA_FNAN __int_as_float(0x7fffffff)
#define __ANYCUDA_DINF __longlong_as_double(0x7ff0000000000000LL)
#define __ANYCUDA_DNAN __longlong_as_double(0x7ff8000000000000LL)
#else
#define __ANYCUDA_FP_SPECIAL __host__ __device__ constexpr
#define __ANYCUDA_FINF __builtin_huge_valf()
#define __ANYCUDA_FNAN __builtin_nanf("")
#define __ANYCUDA_DINF __builtin_huge_val()
#define __ANYCUDA_DNAN __builtin_nan("")
#endif
namespace std {
enum float_round_style { round_indeterminate = -1, round_toward_zero = 0, round_to_nearest = 1 };
template <typename T> struct numeric_limits {
    static constexpr bool is_specialized = false;
    __host__ __device__ static constexpr T min() noexcept { return T(); }
    __host__ __device__ static constexpr T max() noexcept { return T(); }
    __host__ __device__ static constexpr T lowest() noexcept { return T(); }
};
template <typename T> struct numeric_limits<const T> : numeric_limits<T> {};
template <typename T> struct numeric_limits<volatile T> : numeric_limits<T> {};
template <typename T> struct numeric_limits<const volatile T> : numeric_limits<T> {};

#define __ANYCUDA_INT_LIMITS(T, SIGNED, DIGITS, MIN, MAX)                                        \
    template <> struct numeric_limits<T> {                                                      \
        static constexpr bool is_specialized = true;                                            \
        static constexpr bool is_signed = SIGNED;                                               \
        static constexpr bool is_integer = true;                                                \
        static constexpr bool is_exact = true;                                                  \
        static constexpr bool has_infinity = false;                                             \
        static constexpr bool has_quiet_NaN = false;                                            \
        static constexpr bool is_iec559 = false;                                                \
        static constexpr bool is_bounded = true;                                                \
        static constexpr bool is_modulo = !SIGNED;                                              \
        static constexpr int digits = DIGITS;                                                   \
        static constexpr int digits10 = DIGITS * 643 / 2136;                                    \
        static constexpr int radix = 2;                                                         \
        static constexpr float_round_style round_style = round_toward_zero;                     \
        __host__ __device__ static constexpr T min() noexcept { return MIN; }                   \
        __host__ __device__ static constexpr T max() noexcept { return MAX; }                   \
        __host__ __device__ static constexpr T lowest() noexcept { return MIN; }                \
        __host__ __device__ static constexpr T epsilon() noexcept { return 0; }                 \
        __host__ __device__ static constexpr T round_error() noexcept { return 0; }             \
        __host__ __device__ static constexpr T infinity() noexcept { return 0; }                \
        __host__ __device__ static constexpr T quiet_NaN() noexcept { return 0; }               \
        __host__ __device__ static constexpr T signaling_NaN() noexcept { return 0; }           \
        __host__ __device__ static constexpr T denorm_min() noexcept { return 0; }              \
    };
__ANYCUDA_INT_LIMITS(bool, false, 1, false, true)
__ANYCUDA_INT_LIMITS(char, true, 7, (char)-128, (char)127)
__ANYCUDA_INT_LIMITS(signed char, true, 7, (signed char)-128, (signed char)127)
__ANYCUDA_INT_LIMITS(unsigned char, false, 8, (unsigned char)0, (unsigned char)255)
__ANYCUDA_INT_LIMITS(short, true, 15, (short)(-32767 - 1), (short)32767)
__ANYCUDA_INT_LIMITS(unsigned short, false, 16, (unsigned short)0, (unsigned short)65535)
__ANYCUDA_INT_LIMITS(int, true, 31, -2147483647 - 1, 2147483647)
__ANYCUDA_INT_LIMITS(unsigned int, false, 32, 0u, 4294967295u)
__ANYCUDA_INT_LIMITS(long, true, 63, -9223372036854775807L - 1, 9223372036854775807L)
__ANYCUDA_INT_LIMITS(unsigned long, false, 64, 0ul, 18446744073709551615ul)
__ANYCUDA_INT_LIMITS(long long, true, 63, -9223372036854775807LL - 1, 9223372036854775807LL)
__ANYCUDA_INT_LIMITS(unsigned long long, false, 64, 0ull, 18446744073709551615ull)
#undef __ANYCUDA_INT_LIMITS

#define __ANYCUDA_FLOAT_LIMITS(T, DIGITS, D10, MIN, MAX, EPS, INF, NAN_, DENORM, MINEXP, MAXEXP) \
    template <> struct numeric_limits<T> {                                                      \
        static constexpr bool is_specialized = true;                                            \
        static constexpr bool is_signed = true;                                                 \
        static constexpr bool is_integer = false;                                               \
        static constexpr bool is_exact = false;                                                 \
        static constexpr bool has_infinity = true;                                              \
        static constexpr bool has_quiet_NaN = true;                                             \
        static constexpr bool has_signaling_NaN = true;                                         \
        static constexpr bool is_iec559 = true;                                                 \
        static constexpr bool is_bounded = true;                                                \
        static constexpr bool is_modulo = false;                                                \
        static constexpr int digits = DIGITS;                                                   \
        static constexpr int digits10 = D10;                                                    \
        static constexpr int radix = 2;                                                         \
        static constexpr int min_exponent = MINEXP;                                             \
        static constexpr int max_exponent = MAXEXP;                                             \
        static constexpr float_round_style round_style = round_to_nearest;                      \
        __host__ __device__ static constexpr T min() noexcept { return MIN; }                   \
        __host__ __device__ static constexpr T max() noexcept { return MAX; }                   \
        __host__ __device__ static constexpr T lowest() noexcept { return -MAX; }               \
        __host__ __device__ static constexpr T epsilon() noexcept { return EPS; }               \
        __host__ __device__ static constexpr T round_error() noexcept { return T(0.5); }        \
        __ANYCUDA_FP_SPECIAL static T infinity() noexcept { return INF; }                      \
        __ANYCUDA_FP_SPECIAL static T quiet_NaN() noexcept { return NAN_; }                    \
        __ANYCUDA_FP_SPECIAL static T signaling_NaN() noexcept { return NAN_; }                \
        __host__ __device__ static constexpr T denorm_min() noexcept { return DENORM; }         \
    };
__ANYCUDA_FLOAT_LIMITS(float, 24, 6, 1.17549435082228750797e-38F, 3.40282346638528859812e+38F,
                       1.1920928955078125e-07F, __ANYCUDA_FINF, __ANYCUDA_FNAN,
                       1.40129846432481707092e-45F, -125, 128)
__ANYCUDA_FLOAT_LIMITS(double, 53, 15, 2.22507385850720138309e-308, 1.79769313486231570815e+308,
                       2.22044604925031308085e-16, __ANYCUDA_DINF, __ANYCUDA_DNAN,
                       4.94065645841246544177e-324, -1021, 1024)
#undef __ANYCUDA_FLOAT_LIMITS
}
"#;

/// The `<type_traits>` templates no hipRTC predeclares (5.2.3 through 6.4.3); on NVRTC they come
/// with the rest in [`TYPE_TRAITS_NVRTC`].
macro_rules! type_traits_common {
    () => {
        r#"template <typename T> struct remove_const { typedef T type; };
template <typename T> struct remove_const<const T> { typedef T type; };
template <typename T> struct remove_volatile { typedef T type; };
template <typename T> struct remove_volatile<volatile T> { typedef T type; };
template <typename T> struct remove_cv { typedef typename remove_volatile<typename remove_const<T>::type>::type type; };
template <typename T> struct remove_reference { typedef T type; };
template <typename T> struct remove_reference<T&> { typedef T type; };
template <typename T> struct remove_reference<T&&> { typedef T type; };
template <typename T> struct remove_pointer { typedef T type; };
template <typename T> struct remove_pointer<T*> { typedef T type; };
template <typename T> struct remove_pointer<T* const> { typedef T type; };
template <typename T> struct add_pointer { typedef typename remove_reference<T>::type* type; };
template <typename T> struct add_const { typedef const T type; };
template <typename T> struct remove_extent { typedef T type; };
template <typename T> struct remove_extent<T[]> { typedef T type; };
template <typename T, decltype(sizeof(0)) N> struct remove_extent<T[N]> { typedef T type; };
template <typename T> struct is_pointer_helper_ { static constexpr bool value = false; };
template <typename T> struct is_pointer_helper_<T*> { static constexpr bool value = true; };
template <typename T> struct is_pointer : integral_constant<bool, is_pointer_helper_<typename remove_cv<T>::type>::value> {};
template <typename T> struct is_lvalue_reference : false_type {};
template <typename T> struct is_lvalue_reference<T&> : true_type {};
template <typename T> struct is_rvalue_reference : false_type {};
template <typename T> struct is_rvalue_reference<T&&> : true_type {};
template <typename T> struct is_reference : integral_constant<bool, is_lvalue_reference<T>::value || is_rvalue_reference<T>::value> {};
template <typename T> struct is_const : false_type {};
template <typename T> struct is_const<const T> : true_type {};
template <typename T> struct is_volatile : false_type {};
template <typename T> struct is_volatile<volatile T> : true_type {};
template <typename T> struct is_void : is_same<void, typename remove_cv<T>::type> {};
template <typename T> struct is_array : false_type {};
template <typename T> struct is_array<T[]> : true_type {};
template <typename T, decltype(sizeof(0)) N> struct is_array<T[N]> : true_type {};
template <typename T> struct is_unsigned : integral_constant<bool, is_arithmetic<T>::value && !is_signed<T>::value> {};
template <typename T> struct is_enum : integral_constant<bool, __is_enum(T)> {};
template <typename T> struct is_class : integral_constant<bool, __is_class(T)> {};
template <typename T> struct is_union : integral_constant<bool, __is_union(T)> {};
template <typename B, typename D> struct is_base_of : integral_constant<bool, __is_base_of(B, D)> {};
template <typename T> struct is_trivially_copyable : integral_constant<bool, __is_trivially_copyable(T)> {};
template <typename T> struct is_empty : integral_constant<bool, __is_empty(T)> {};
template <typename T> struct is_pod : integral_constant<bool, __is_pod(T)> {};
template <typename T> struct underlying_type { typedef __underlying_type(T) type; };
template <typename T> struct make_unsigned_ { typedef T type; };
template <> struct make_unsigned_<char> { typedef unsigned char type; };
template <> struct make_unsigned_<signed char> { typedef unsigned char type; };
template <> struct make_unsigned_<short> { typedef unsigned short type; };
template <> struct make_unsigned_<int> { typedef unsigned int type; };
template <> struct make_unsigned_<long> { typedef unsigned long type; };
template <> struct make_unsigned_<long long> { typedef unsigned long long type; };
template <typename T> struct make_unsigned { typedef typename make_unsigned_<T>::type type; };
template <typename T> struct make_signed_ { typedef T type; };
template <> struct make_signed_<char> { typedef signed char type; };
template <> struct make_signed_<unsigned char> { typedef signed char type; };
template <> struct make_signed_<unsigned short> { typedef short type; };
template <> struct make_signed_<unsigned int> { typedef int type; };
template <> struct make_signed_<unsigned long> { typedef long type; };
template <> struct make_signed_<unsigned long long> { typedef long long type; };
template <typename T> struct make_signed { typedef typename make_signed_<T>::type type; };
template <typename T> struct decay { typedef typename remove_cv<typename remove_reference<T>::type>::type type; };
template <typename... > struct anycuda_void_ { typedef void type; };
template <typename... Ts> using void_t = typename anycuda_void_<Ts...>::type;
template <typename T> using remove_cv_t = typename remove_cv<T>::type;
template <typename T> using remove_reference_t = typename remove_reference<T>::type;
template <typename T> using remove_pointer_t = typename remove_pointer<T>::type;
template <typename T> using decay_t = typename decay<T>::type;
template <typename T> using make_unsigned_t = typename make_unsigned<T>::type;
template <typename T> using make_signed_t = typename make_signed<T>::type;
"#
    };
}

/// `<type_traits>` for NVRTC, which predeclares none of it.
pub(crate) const TYPE_TRAITS_NVRTC: &str = concat!(
    r#"// anycuda built-in <type_traits> (a subset of the standard's).
#pragma once
namespace std {
template <typename T, T v> struct integral_constant {
    static constexpr T value = v;
    typedef T value_type;
    typedef integral_constant type;
    __host__ __device__ constexpr operator value_type() const noexcept { return value; }
    __host__ __device__ constexpr value_type operator()() const noexcept { return value; }
};
typedef integral_constant<bool, true> true_type;
typedef integral_constant<bool, false> false_type;
template <bool B> using bool_constant = integral_constant<bool, B>;
template <typename A, typename B> struct is_same : false_type {};
template <typename A> struct is_same<A, A> : true_type {};
template <bool B, typename T = void> struct enable_if {};
template <typename T> struct enable_if<true, T> { typedef T type; };
template <bool B, typename T, typename F> struct conditional { typedef T type; };
template <typename T, typename F> struct conditional<false, T, F> { typedef F type; };
template <typename T> struct is_integral_ : false_type {};
template <> struct is_integral_<bool> : true_type {};
template <> struct is_integral_<char> : true_type {};
template <> struct is_integral_<signed char> : true_type {};
template <> struct is_integral_<unsigned char> : true_type {};
template <> struct is_integral_<short> : true_type {};
template <> struct is_integral_<unsigned short> : true_type {};
template <> struct is_integral_<int> : true_type {};
template <> struct is_integral_<unsigned int> : true_type {};
template <> struct is_integral_<long> : true_type {};
template <> struct is_integral_<unsigned long> : true_type {};
template <> struct is_integral_<long long> : true_type {};
template <> struct is_integral_<unsigned long long> : true_type {};
template <typename T> struct is_floating_point_ : false_type {};
template <> struct is_floating_point_<float> : true_type {};
template <> struct is_floating_point_<double> : true_type {};
template <> struct is_floating_point_<long double> : true_type {};
template <typename T> struct remove_cv_ { typedef T type; };
template <typename T> struct remove_cv_<const T> { typedef T type; };
template <typename T> struct remove_cv_<volatile T> { typedef T type; };
template <typename T> struct remove_cv_<const volatile T> { typedef T type; };
template <typename T> struct is_integral : is_integral_<typename remove_cv_<T>::type> {};
template <typename T> struct is_floating_point : is_floating_point_<typename remove_cv_<T>::type> {};
template <typename T> struct is_arithmetic : integral_constant<bool, is_integral<T>::value || is_floating_point<T>::value> {};
template <typename T> struct is_signed : integral_constant<bool, is_arithmetic<T>::value && T(-1) < T(0)> {};
template <typename T> struct is_scalar : integral_constant<bool, is_arithmetic<T>::value || __is_enum(T)> {};
template <typename F, typename T> struct is_convertible : integral_constant<bool, __is_convertible_to(F, T)> {};
template <typename T> __host__ __device__ T&& declval() noexcept;
template <bool B, typename T = void> using enable_if_t = typename enable_if<B, T>::type;
template <bool B, typename T, typename F> using conditional_t = typename conditional<B, T, F>::type;
"#,
    type_traits_common!(),
    "}\n"
);

/// `<type_traits>` for hipRTC: only what it does not predeclare in `std` (HIP 6.x keeps its
/// `conditional` in `__hip_internal`).
pub(crate) const TYPE_TRAITS_HIPRTC: &str = concat!(
    r#"// anycuda built-in <type_traits> for hipRTC: adds what HIP's runtime header does not declare.
#pragma once
namespace std {
template <bool B, typename T, typename F> struct conditional { typedef T type; };
template <typename T, typename F> struct conditional<false, T, F> { typedef F type; };
template <bool B> using bool_constant = integral_constant<bool, B>;
template <bool B, typename T = void> using enable_if_t = typename enable_if<B, T>::type;
template <bool B, typename T, typename F> using conditional_t = typename conditional<B, T, F>::type;
"#,
    type_traits_common!(),
    "}\n"
);

/// `<cuda_fp8.h>`: E4M3 and E5M2 (OCP FP8) with CUDA's conversion API, in software on both
/// compilers (on NVRTC it steps aside for a CUDA toolkit's own header on the include path). Conversions round to nearest even; `__NV_SATFINITE` clamps to the largest finite
/// value, `__NV_NOSAT` gives NaN (E4M3, which has no infinity) or infinity (E5M2) on overflow.
pub(crate) const CUDA_FP8_H: &str = r#"// anycuda built-in cuda_fp8.h (own implementation, a subset of CUDA's API).
#pragma once
#if defined(__CUDACC_RTC__) && __has_include(<cuda_fp8.hpp>) && __has_include(<../include/cuda_fp8.h>)
// NVRTC with a CUDA toolkit's include folder on the path: step aside for its own header.
#include <../include/cuda_fp8.h>
#else
#include <cuda_fp16.h>
#include <cuda_bf16.h>
typedef unsigned char __nv_fp8_storage_t;
typedef unsigned short __nv_fp8x2_storage_t;
typedef unsigned int __nv_fp8x4_storage_t;
typedef enum __nv_saturation_t { __NV_NOSAT, __NV_SATFINITE } __nv_saturation_t;
typedef enum __nv_fp8_interpretation_t { __NV_E4M3, __NV_E5M2 } __nv_fp8_interpretation_t;

__device__ inline __nv_fp8_storage_t __nv_cvt_float_to_fp8(float x, __nv_saturation_t sat,
                                                           __nv_fp8_interpretation_t fmt)
{
    const bool e5 = fmt == __NV_E5M2;
    const int mbits = e5 ? 2 : 3, bias = e5 ? 15 : 7;
    const unsigned char maxf = e5 ? 0x7b : 0x7e;
    unsigned int u = __float_as_uint(x);
    const unsigned char sign = (unsigned char)((u >> 24) & 0x80u);
    u &= 0x7fffffffu;
    if (u > 0x7f800000u) return (unsigned char)(sign | 0x7f);
    const unsigned char over = sat == __NV_SATFINITE ? maxf : (e5 ? 0x7c : 0x7f);
    if (u == 0x7f800000u) return (unsigned char)(sign | over);
    const float a = __uint_as_float(u);
    int e = (int)(u >> 23) - 127;
    const int emin = 1 - bias;
    unsigned int code;
    if (e < emin) {
        // Subnormal (or zero): multiples of 2^(emin - mbits); rintf rounds half to even.
        const float q = rintf(ldexpf(a, mbits - emin));
        code = (unsigned int)q; // q == 2^mbits is the smallest normal, which the encoding gives
    } else {
        float m = rintf(ldexpf(a, mbits - e)); // in [2^mbits, 2^(mbits+1)]
        if (m >= (float)(2 << mbits)) { m *= 0.5f; e += 1; }
        code = ((unsigned int)(e + bias) << mbits) | ((unsigned int)m - (1u << mbits));
    }
    if (code > maxf) return (unsigned char)(sign | over);
    return (unsigned char)(sign | code);
}
__device__ inline float __anycuda_fp8_to_float(__nv_fp8_storage_t v, __nv_fp8_interpretation_t fmt)
{
    const bool e5 = fmt == __NV_E5M2;
    const int mbits = e5 ? 2 : 3, bias = e5 ? 15 : 7;
    const float s = (v & 0x80) ? -1.0f : 1.0f;
    const int e = (v & 0x7f) >> mbits, m = v & ((1 << mbits) - 1);
    if (e5 && e == 31) return m ? __int_as_float(0x7fffffff) : s * __int_as_float(0x7f800000);
    if (!e5 && (v & 0x7f) == 0x7f) return __int_as_float(0x7fffffff);
    if (e == 0) return s * ldexpf((float)m, 1 - bias - mbits);
    return s * ldexpf((float)((1 << mbits) + m), e - bias - mbits);
}
__device__ inline __nv_fp8_storage_t __nv_cvt_double_to_fp8(double x, __nv_saturation_t sat,
                                                            __nv_fp8_interpretation_t fmt)
{
    return __nv_cvt_float_to_fp8((float)x, sat, fmt);
}
__device__ inline __half_raw __nv_cvt_fp8_to_halfraw(__nv_fp8_storage_t x, __nv_fp8_interpretation_t fmt)
{
    // Every FP8 value is exact in binary16.
    __half h = __float2half(__anycuda_fp8_to_float(x, fmt));
    return *reinterpret_cast<__half_raw*>(&h);
}
__device__ inline __nv_fp8_storage_t __nv_cvt_halfraw_to_fp8(__half_raw x, __nv_saturation_t sat,
                                                             __nv_fp8_interpretation_t fmt)
{
    return __nv_cvt_float_to_fp8(__half2float(*reinterpret_cast<__half*>(&x)), sat, fmt);
}
__device__ inline __nv_fp8_storage_t __nv_cvt_bfloat16raw_to_fp8(__nv_bfloat16_raw x, __nv_saturation_t sat,
                                                                 __nv_fp8_interpretation_t fmt)
{
    return __nv_cvt_float_to_fp8(__bfloat162float(__nv_bfloat16(x)), sat, fmt);
}
__device__ inline __nv_fp8x2_storage_t __nv_cvt_float2_to_fp8x2(float2 x, __nv_saturation_t sat,
                                                                __nv_fp8_interpretation_t fmt)
{
    return (__nv_fp8x2_storage_t)(__nv_cvt_float_to_fp8(x.x, sat, fmt) |
                                  (__nv_cvt_float_to_fp8(x.y, sat, fmt) << 8));
}
__device__ inline __half2_raw __nv_cvt_fp8x2_to_halfraw2(__nv_fp8x2_storage_t x, __nv_fp8_interpretation_t fmt)
{
    __half2 h = __halves2half2(__float2half(__anycuda_fp8_to_float((__nv_fp8_storage_t)(x & 0xff), fmt)),
                               __float2half(__anycuda_fp8_to_float((__nv_fp8_storage_t)(x >> 8), fmt)));
    return *reinterpret_cast<__half2_raw*>(&h);
}

#define __ANYCUDA_FP8(NAME, FMT)                                                                 \
    struct __align__(1) NAME {                                                                    \
        __nv_fp8_storage_t __x;                                                                   \
        NAME() = default;                                                                         \
        __device__ explicit NAME(float f) : __x(__nv_cvt_float_to_fp8(f, __NV_SATFINITE, FMT)) {} \
        __device__ explicit NAME(double f) : __x(__nv_cvt_double_to_fp8(f, __NV_SATFINITE, FMT)) {} \
        __device__ explicit NAME(__half h) : __x(__nv_cvt_float_to_fp8(__half2float(h), __NV_SATFINITE, FMT)) {} \
        __device__ explicit NAME(__nv_bfloat16 h) : __x(__nv_cvt_float_to_fp8(__bfloat162float(h), __NV_SATFINITE, FMT)) {} \
        __device__ explicit NAME(int i) : __x(__nv_cvt_float_to_fp8((float)i, __NV_SATFINITE, FMT)) {} \
        __device__ explicit operator float() const { return __anycuda_fp8_to_float(__x, FMT); }  \
        __device__ explicit operator double() const { return __anycuda_fp8_to_float(__x, FMT); } \
        __device__ explicit operator __half() const { return __float2half(__anycuda_fp8_to_float(__x, FMT)); } \
        __device__ explicit operator __nv_bfloat16() const { return __float2bfloat16(__anycuda_fp8_to_float(__x, FMT)); } \
    };                                                                                            \
    struct __align__(2) NAME##x2_ {                                                               \
        __nv_fp8x2_storage_t __x;                                                                 \
        NAME##x2_() = default;                                                                    \
        __device__ explicit NAME##x2_(float2 f) : __x(__nv_cvt_float2_to_fp8x2(f, __NV_SATFINITE, FMT)) {} \
        __device__ explicit operator float2() const                                               \
        {                                                                                         \
            return make_float2(__anycuda_fp8_to_float((__nv_fp8_storage_t)(__x & 0xff), FMT),     \
                               __anycuda_fp8_to_float((__nv_fp8_storage_t)(__x >> 8), FMT));      \
        }                                                                                         \
    };
__ANYCUDA_FP8(__nv_fp8_e4m3, __NV_E4M3)
__ANYCUDA_FP8(__nv_fp8_e5m2, __NV_E5M2)
#undef __ANYCUDA_FP8
typedef __nv_fp8_e4m3x2_ __nv_fp8x2_e4m3;
typedef __nv_fp8_e5m2x2_ __nv_fp8x2_e5m2;
#endif
"#;

/// A 16-bit floating-point atomic as a compare-and-swap loop on the aligned 32-bit word that
/// holds it: correct on every target of both compilers (16-bit atomics are sm_70+/sm_90+ PTX,
/// and no hipRTC declares them for CUDA's types).
macro_rules! atomic16 {
    () => {
        r#"
#define __ANYCUDA_ATOMIC16(T, NAME, TO_BITS, FROM_BITS, COMBINE)                                   \
    __device__ inline T NAME(T* address, T val)                                                   \
    {                                                                                             \
        unsigned int* base = (unsigned int*)((unsigned long long)address & ~3ull);                \
        const unsigned int shift = ((unsigned long long)address & 2ull) ? 16u : 0u;               \
        unsigned int old = *base, assumed;                                                        \
        do {                                                                                      \
            assumed = old;                                                                        \
            T cur = FROM_BITS((unsigned short)(assumed >> shift));                                \
            unsigned int next = (unsigned int)TO_BITS(COMBINE(cur, val));                         \
            old = atomicCAS(base, assumed, (assumed & ~(0xffffu << shift)) | (next << shift));    \
        } while (assumed != old); /* integer compare: NaN cannot loop forever */                   \
        return FROM_BITS((unsigned short)(old >> shift));                                         \
    }
"#
    };
}

/// What NVRTC's `cuda_fp16.h` adds to the base (appended in `rtc_headers`): CUDA's rounding-mode
/// and integer conversions (PTX `cvt`), the NaN-propagating min/max, half math through f32
/// (exact for binary16's 11-bit significand except where CUDA's own are approximate too), and
/// half atomics.
macro_rules! nvrtc_fp16_more {
    () => {
        concat!(
            r#"
// ---- anycuda: conversions with an explicit rounding mode (PTX cvt) ----
#define __ANYCUDA_CVT_TO_H(NAME, ARG, PTX, C)                                                      \
    __device__ __forceinline__ __half NAME(ARG v)                                                 \
    {                                                                                             \
        unsigned short h;                                                                         \
        asm("cvt." PTX " %0, %1;" : "=h"(h) : C(v));                                               \
        return __anycuda_mkh(h);                                                                  \
    }
__ANYCUDA_CVT_TO_H(__float2half_rz, float, "rz.f16.f32", "f")
__ANYCUDA_CVT_TO_H(__float2half_rd, float, "rm.f16.f32", "f")
__ANYCUDA_CVT_TO_H(__float2half_ru, float, "rp.f16.f32", "f")
__ANYCUDA_CVT_TO_H(__double2half, double, "rn.f16.f64", "d")
#define __ANYCUDA_INT_TO_H(PREFIX, ARG, PTXT, C)                                                  \
    __ANYCUDA_CVT_TO_H(PREFIX##_rn, ARG, "rn.f16." PTXT, C)                                       \
    __ANYCUDA_CVT_TO_H(PREFIX##_rz, ARG, "rz.f16." PTXT, C)                                       \
    __ANYCUDA_CVT_TO_H(PREFIX##_rd, ARG, "rm.f16." PTXT, C)                                       \
    __ANYCUDA_CVT_TO_H(PREFIX##_ru, ARG, "rp.f16." PTXT, C)
__ANYCUDA_INT_TO_H(__int2half, int, "s32", "r")
__ANYCUDA_INT_TO_H(__uint2half, unsigned int, "u32", "r")
__ANYCUDA_INT_TO_H(__short2half, short, "s16", "h")
__ANYCUDA_INT_TO_H(__ushort2half, unsigned short, "u16", "h")
__ANYCUDA_INT_TO_H(__ll2half, long long, "s64", "l")
__ANYCUDA_INT_TO_H(__ull2half, unsigned long long, "u64", "l")
#undef __ANYCUDA_INT_TO_H
#undef __ANYCUDA_CVT_TO_H
#define __ANYCUDA_H_TO(NAME, RET, BITS, PTX, C)                                                    \
    __device__ __forceinline__ RET NAME(__half h)                                                 \
    {                                                                                             \
        BITS r;                                                                                   \
        asm("cvt." PTX " %0, %1;" : C(r) : "h"(h.__x));                                            \
        return (RET)r;                                                                            \
    }
#define __ANYCUDA_H_TO_INT(PREFIX, RET, BITS, PTXT, C)                                            \
    __ANYCUDA_H_TO(PREFIX##_rn, RET, BITS, "rni." PTXT ".f16", C)                                 \
    __ANYCUDA_H_TO(PREFIX##_rz, RET, BITS, "rzi." PTXT ".f16", C)                                 \
    __ANYCUDA_H_TO(PREFIX##_rd, RET, BITS, "rmi." PTXT ".f16", C)                                 \
    __ANYCUDA_H_TO(PREFIX##_ru, RET, BITS, "rpi." PTXT ".f16", C)
__ANYCUDA_H_TO_INT(__half2int, int, unsigned int, "s32", "=r")
__ANYCUDA_H_TO_INT(__half2uint, unsigned int, unsigned int, "u32", "=r")
__ANYCUDA_H_TO_INT(__half2short, short, unsigned short, "s16", "=h")
__ANYCUDA_H_TO_INT(__half2ushort, unsigned short, unsigned short, "u16", "=h")
__ANYCUDA_H_TO_INT(__half2ll, long long, unsigned long long, "s64", "=l")
__ANYCUDA_H_TO_INT(__half2ull, unsigned long long, unsigned long long, "u64", "=l")
#undef __ANYCUDA_H_TO_INT
#undef __ANYCUDA_H_TO

// ---- anycuda: NaN-propagating min/max (CUDA returns the canonical NaN 0x7fff) ----
__device__ __forceinline__ __half __hmax_nan(__half a, __half b) { return (__hisnan(a) || __hisnan(b)) ? __anycuda_mkh(0x7fffu) : __hmax(a, b); }
__device__ __forceinline__ __half __hmin_nan(__half a, __half b) { return (__hisnan(a) || __hisnan(b)) ? __anycuda_mkh(0x7fffu) : __hmin(a, b); }
__device__ __forceinline__ __half2 __hmax2(__half2 a, __half2 b) { return __half2(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
__device__ __forceinline__ __half2 __hmin2(__half2 a, __half2 b) { return __half2(__hmin(a.x, b.x), __hmin(a.y, b.y)); }
__device__ __forceinline__ int __hisinf(__half a) { return (a.__x & 0x7fffu) != 0x7c00u ? 0 : ((a.__x & 0x8000u) ? -1 : 1); }

// ---- anycuda: half math through f32 ----
#define __ANYCUDA_H_MATH(NAME, NAME2, F)                                                          \
    __device__ __forceinline__ __half NAME(__half a) { return __float2half(F(__half2float(a))); } \
    __device__ __forceinline__ __half2 NAME2(__half2 a) { return __half2(NAME(a.x), NAME(a.y)); }
__ANYCUDA_H_MATH(hexp, h2exp, expf)
__ANYCUDA_H_MATH(hexp2, h2exp2, exp2f)
__ANYCUDA_H_MATH(hexp10, h2exp10, exp10f)
__ANYCUDA_H_MATH(hlog, h2log, logf)
__ANYCUDA_H_MATH(hlog2, h2log2, log2f)
__ANYCUDA_H_MATH(hlog10, h2log10, log10f)
__ANYCUDA_H_MATH(hsqrt, h2sqrt, sqrtf)
__ANYCUDA_H_MATH(hrsqrt, h2rsqrt, rsqrtf)
__ANYCUDA_H_MATH(hsin, h2sin, sinf)
__ANYCUDA_H_MATH(hcos, h2cos, cosf)
__ANYCUDA_H_MATH(htanh, h2tanh, tanhf)
__ANYCUDA_H_MATH(hfloor, h2floor, floorf)
__ANYCUDA_H_MATH(hceil, h2ceil, ceilf)
__ANYCUDA_H_MATH(htrunc, h2trunc, truncf)
__ANYCUDA_H_MATH(hrint, h2rint, rintf)
__ANYCUDA_H_MATH(hrcp, h2rcp, 1.0f /)
#undef __ANYCUDA_H_MATH
"#,
            atomic16!(),
            r#"
#define __ANYCUDA_SHFL16(T, TO_BITS, FROM_BITS)                                                     \
    __device__ __forceinline__ T __shfl_sync(unsigned int m, T v, int l, int w = warpSize)        \
    { return FROM_BITS(__shfl_sync(m, (unsigned int)TO_BITS(v), l, w)); }                         \
    __device__ __forceinline__ T __shfl_up_sync(unsigned int m, T v, unsigned int d, int w = warpSize) \
    { return FROM_BITS(__shfl_up_sync(m, (unsigned int)TO_BITS(v), d, w)); }                      \
    __device__ __forceinline__ T __shfl_down_sync(unsigned int m, T v, unsigned int d, int w = warpSize) \
    { return FROM_BITS(__shfl_down_sync(m, (unsigned int)TO_BITS(v), d, w)); }                    \
    __device__ __forceinline__ T __shfl_xor_sync(unsigned int m, T v, int l, int w = warpSize)    \
    { return FROM_BITS(__shfl_xor_sync(m, (unsigned int)TO_BITS(v), l, w)); }
__device__ __forceinline__ __half __anycuda_u2half(unsigned int u) { return __anycuda_mkh((unsigned short)u); }
__ANYCUDA_SHFL16(__half, __half_as_ushort, __anycuda_u2half)
__ANYCUDA_SHFL16(__half2, __anycuda_h2u, __anycuda_u2h)
__ANYCUDA_ATOMIC16(__half, atomicAdd, __half_as_ushort, __ushort_as_half, __hadd)
__device__ inline __half2 atomicAdd(__half2* address, __half2 val)
{
    unsigned int* p = (unsigned int*)address;
    unsigned int old = *p, assumed;
    do {
        assumed = old;
        old = atomicCAS(p, assumed, __anycuda_h2u(__hadd2(__anycuda_u2h(assumed), val)));
    } while (assumed != old);
    return __anycuda_u2h(old);
}
"#
        )
    };
}

/// What hipRTC's `cuda_fp16.h` adds to HIP's pre-included fp16 (probed per version): the CUDA
/// runtime shims (nvcc includes `cuda_runtime.h` in every `.cu`), min/max before HIP 5.7, and
/// what no HIP declares.
macro_rules! hiprtc_fp16_more {
    () => {
        concat!(
            r#"#include <cuda_runtime.h>
#if HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR < 507
__device__ inline __half __hmax(__half a, __half b) { return __float2half(fmaxf(__half2float(a), __half2float(b))); }
__device__ inline __half __hmin(__half a, __half b) { return __float2half(fminf(__half2float(a), __half2float(b))); }
__device__ inline __half __hmax_nan(__half a, __half b) { return (__hisnan(a) || __hisnan(b)) ? __ushort_as_half(0x7fff) : __hmax(a, b); }
__device__ inline __half __hmin_nan(__half a, __half b) { return (__hisnan(a) || __hisnan(b)) ? __ushort_as_half(0x7fff) : __hmin(a, b); }
#endif
__device__ inline __half __double2half(double d) { return __float2half((float)d); }
__device__ inline __half htanh(__half a) { return __float2half(tanhf(__half2float(a))); }
"#,
            atomic16!(),
            r#"
#define __ANYCUDA_SHFL16(T, TO_BITS, FROM_BITS)                                                     \
    __device__ __forceinline__ T __shfl_sync(unsigned int m, T v, int l, int w = warpSize)        \
    { return FROM_BITS(__shfl_sync(m, (unsigned int)TO_BITS(v), l, w)); }                         \
    __device__ __forceinline__ T __shfl_up_sync(unsigned int m, T v, unsigned int d, int w = warpSize) \
    { return FROM_BITS(__shfl_up_sync(m, (unsigned int)TO_BITS(v), d, w)); }                      \
    __device__ __forceinline__ T __shfl_down_sync(unsigned int m, T v, unsigned int d, int w = warpSize) \
    { return FROM_BITS(__shfl_down_sync(m, (unsigned int)TO_BITS(v), d, w)); }                    \
    __device__ __forceinline__ T __shfl_xor_sync(unsigned int m, T v, int l, int w = warpSize)    \
    { return FROM_BITS(__shfl_xor_sync(m, (unsigned int)TO_BITS(v), l, w)); }
__device__ inline __half __anycuda_u2half(unsigned int u) { return __ushort_as_half((unsigned short)u); }
__ANYCUDA_SHFL16(__half, __half_as_ushort, __anycuda_u2half)
__ANYCUDA_ATOMIC16(__half, atomicAdd, __half_as_ushort, __ushort_as_half, __hadd)
"#
        )
    };
}

/// What both compilers' `cuda_bf16.h` adds to the base: rounding-mode and integer conversions
/// (exact integer arithmetic on the f32 bits), NaN-propagating min/max, math through f32 and the
/// atomic add.
macro_rules! bf16_more {
    () => {
        concat!(
            r#"
#ifdef __HIPCC_RTC__
#include <cuda_runtime.h>
#endif
// ---- anycuda: bfloat16 conversions with an explicit rounding mode ----
__device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rz(float f)
{
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return __anycuda_mkbf(0x7fffu);
    return __anycuda_mkbf((unsigned short)(u >> 16));
}
__device__ __forceinline__ __nv_bfloat16 __anycuda_f2bf_dir(float f, bool up)
{
    // Round toward +inf (up) or -inf: away from zero when the sign agrees with the direction.
    unsigned int u = __float_as_uint(f);
    if ((u & 0x7fffffffu) > 0x7f800000u) return __anycuda_mkbf(0x7fffu);
    bool neg = (u >> 31) != 0;
    if ((u & 0xffffu) != 0 && (neg != up) && (u & 0x7fffffffu) < 0x7f800000u) u += 0x10000u;
    return __anycuda_mkbf((unsigned short)(u >> 16));
}
__device__ __forceinline__ __nv_bfloat16 __float2bfloat16_rd(float f) { return __anycuda_f2bf_dir(f, false); }
__device__ __forceinline__ __nv_bfloat16 __float2bfloat16_ru(float f) { return __anycuda_f2bf_dir(f, true); }
__device__ __forceinline__ __nv_bfloat16 __double2bfloat16(double d)
{
    // Round to odd into f32, then to nearest even into bf16: one correct rounding.
    float f = (float)d;
    if ((double)f != d && (__float_as_uint(f) & 1u) == 0) {
        unsigned int u = __float_as_uint(f);
        f = __uint_as_float(((double)f < d) == (f > 0.0f) ? u + 1u : u - 1u);
    }
    return __float2bfloat16(f);
}
#define __ANYCUDA_BF_TO_INT(PREFIX, RET, F)                                                        \
    __device__ __forceinline__ RET PREFIX##_rn(__nv_bfloat16 h) { return (RET)rintf(__bfloat162float(h)); }  \
    __device__ __forceinline__ RET PREFIX##_rz(__nv_bfloat16 h) { return (RET)truncf(__bfloat162float(h)); } \
    __device__ __forceinline__ RET PREFIX##_rd(__nv_bfloat16 h) { return (RET)floorf(__bfloat162float(h)); } \
    __device__ __forceinline__ RET PREFIX##_ru(__nv_bfloat16 h) { return (RET)ceilf(__bfloat162float(h)); }
__ANYCUDA_BF_TO_INT(__bfloat162int, int, 0)
__ANYCUDA_BF_TO_INT(__bfloat162uint, unsigned int, 0)
__ANYCUDA_BF_TO_INT(__bfloat162short, short, 0)
__ANYCUDA_BF_TO_INT(__bfloat162ushort, unsigned short, 0)
__ANYCUDA_BF_TO_INT(__bfloat162ll, long long, 0)
__ANYCUDA_BF_TO_INT(__bfloat162ull, unsigned long long, 0)
#undef __ANYCUDA_BF_TO_INT
__device__ __forceinline__ __nv_bfloat16 __int2bfloat16_rn(int i) { return __double2bfloat16((double)i); }
__device__ __forceinline__ __nv_bfloat16 __uint2bfloat16_rn(unsigned int i) { return __double2bfloat16((double)i); }
__device__ __forceinline__ __nv_bfloat16 __short2bfloat16_rn(short i) { return __float2bfloat16((float)i); }
__device__ __forceinline__ __nv_bfloat16 __ushort2bfloat16_rn(unsigned short i) { return __float2bfloat16((float)i); }
__device__ __forceinline__ __nv_bfloat16 __ll2bfloat16_rn(long long i) { return __double2bfloat16((double)i); }
__device__ __forceinline__ __nv_bfloat16 __ull2bfloat16_rn(unsigned long long i) { return __double2bfloat16((double)i); }
__device__ __forceinline__ short __bfloat16_as_short(__nv_bfloat16 h) { return (short)h.__x; }
__device__ __forceinline__ __nv_bfloat16 __short_as_bfloat16(short s) { return __anycuda_mkbf((unsigned short)s); }

__device__ __forceinline__ __nv_bfloat16 __hmax_nan(__nv_bfloat16 a, __nv_bfloat16 b) { return (__hisnan(a) || __hisnan(b)) ? __anycuda_mkbf(0x7fffu) : __hmax(a, b); }
__device__ __forceinline__ __nv_bfloat16 __hmin_nan(__nv_bfloat16 a, __nv_bfloat16 b) { return (__hisnan(a) || __hisnan(b)) ? __anycuda_mkbf(0x7fffu) : __hmin(a, b); }
__device__ __forceinline__ int __hisinf(__nv_bfloat16 a) { return (a.__x & 0x7fffu) != 0x7f80u ? 0 : ((a.__x & 0x8000u) ? -1 : 1); }
__device__ __forceinline__ __nv_bfloat162 __hmax2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hmax(a.x, b.x), __hmax(a.y, b.y)); }
__device__ __forceinline__ __nv_bfloat162 __hmin2(__nv_bfloat162 a, __nv_bfloat162 b) { return __nv_bfloat162(__hmin(a.x, b.x), __hmin(a.y, b.y)); }

#define __ANYCUDA_BF_MATH(NAME, F)                                                                \
    __device__ __forceinline__ __nv_bfloat16 NAME(__nv_bfloat16 a) { return __float2bfloat16(F(__bfloat162float(a))); }
__ANYCUDA_BF_MATH(hexp, expf)
__ANYCUDA_BF_MATH(hexp2, exp2f)
__ANYCUDA_BF_MATH(hlog, logf)
__ANYCUDA_BF_MATH(hlog2, log2f)
__ANYCUDA_BF_MATH(hsqrt, sqrtf)
__ANYCUDA_BF_MATH(hrsqrt, rsqrtf)
__ANYCUDA_BF_MATH(hsin, sinf)
__ANYCUDA_BF_MATH(hcos, cosf)
__ANYCUDA_BF_MATH(htanh, tanhf)
__ANYCUDA_BF_MATH(hfloor, floorf)
__ANYCUDA_BF_MATH(hceil, ceilf)
__ANYCUDA_BF_MATH(htrunc, truncf)
__ANYCUDA_BF_MATH(hrint, rintf)
__ANYCUDA_BF_MATH(hrcp, 1.0f /)
#undef __ANYCUDA_BF_MATH
"#,
            atomic16!(),
            r#"
#define __ANYCUDA_SHFL16(T, TO_BITS, FROM_BITS)                                                     \
    __device__ __forceinline__ T __shfl_sync(unsigned int m, T v, int l, int w = warpSize)        \
    { return FROM_BITS(__shfl_sync(m, (unsigned int)TO_BITS(v), l, w)); }                         \
    __device__ __forceinline__ T __shfl_up_sync(unsigned int m, T v, unsigned int d, int w = warpSize) \
    { return FROM_BITS(__shfl_up_sync(m, (unsigned int)TO_BITS(v), d, w)); }                      \
    __device__ __forceinline__ T __shfl_down_sync(unsigned int m, T v, unsigned int d, int w = warpSize) \
    { return FROM_BITS(__shfl_down_sync(m, (unsigned int)TO_BITS(v), d, w)); }                    \
    __device__ __forceinline__ T __shfl_xor_sync(unsigned int m, T v, int l, int w = warpSize)    \
    { return FROM_BITS(__shfl_xor_sync(m, (unsigned int)TO_BITS(v), l, w)); }
__device__ __forceinline__ __nv_bfloat16 __anycuda_u2bf(unsigned int u) { return __anycuda_mkbf((unsigned short)u); }
__device__ __forceinline__ unsigned int __anycuda_bf22u(__nv_bfloat162 v) { return (unsigned int)v.x.__x | ((unsigned int)v.y.__x << 16); }
__device__ __forceinline__ __nv_bfloat162 __anycuda_u2bf2(unsigned int u) { return __nv_bfloat162(__anycuda_mkbf((unsigned short)u), __anycuda_mkbf((unsigned short)(u >> 16))); }
__ANYCUDA_SHFL16(__nv_bfloat16, __bfloat16_as_ushort, __anycuda_u2bf)
__ANYCUDA_SHFL16(__nv_bfloat162, __anycuda_bf22u, __anycuda_u2bf2)
__ANYCUDA_ATOMIC16(__nv_bfloat16, atomicAdd, __bfloat16_as_ushort, __ushort_as_bfloat16, __hadd)
"#
        )
    };
}

/// What hipRTC's `cuda_runtime.h` adds for real kernel libraries: 16-bit `atomicCAS`, and the
/// SIMD-in-a-word integer intrinsics (`__dp4a`, `__vsubss4`, ...) in plain C++ (no HIP declares
/// them under CUDA's names).
macro_rules! hiprtc_runtime_more {
    () => {
        r#"
#ifndef assert
#ifdef NDEBUG
#define assert(e) ((void)0)
#else
#define assert(e) ((e) ? (void)0 : __builtin_trap())
#endif
#endif
__device__ inline unsigned short atomicCAS(unsigned short* address, unsigned short compare, unsigned short val)
{
    unsigned int* base = (unsigned int*)((unsigned long long)address & ~3ull);
    const unsigned int shift = ((unsigned long long)address & 2ull) ? 16u : 0u;
    unsigned int old = *base, assumed;
    do {
        assumed = old;
        if ((unsigned short)(assumed >> shift) != compare) break;
        old = atomicCAS(base, assumed, (assumed & ~(0xffffu << shift)) | ((unsigned int)val << shift));
    } while (assumed != old);
    return (unsigned short)(old >> shift);
}
__device__ inline int __dp4a(int a, int b, int c)
{
    for (int i = 0; i < 32; i += 8) c += (int)(signed char)(a >> i) * (int)(signed char)(b >> i);
    return c;
}
__device__ inline unsigned int __dp4a(unsigned int a, unsigned int b, unsigned int c)
{
    for (int i = 0; i < 32; i += 8) c += ((a >> i) & 0xffu) * ((b >> i) & 0xffu);
    return c;
}
__device__ inline int __anycuda_sat8(int v) { return v < -128 ? -128 : (v > 127 ? 127 : v); }
#define __ANYCUDA_SIMD4(NAME, EXPR)                                                                \
    __device__ inline unsigned int NAME(unsigned int a, unsigned int b)                           \
    {                                                                                             \
        unsigned int r = 0;                                                                       \
        for (int i = 0; i < 32; i += 8) {                                                         \
            int x = (int)(signed char)(a >> i), y = (int)(signed char)(b >> i);                   \
            unsigned int ux = (a >> i) & 0xffu, uy = (b >> i) & 0xffu;                            \
            (void)x; (void)y; (void)ux; (void)uy;                                                 \
            r |= ((unsigned int)(EXPR) & 0xffu) << i;                                             \
        }                                                                                         \
        return r;                                                                                 \
    }
__ANYCUDA_SIMD4(__vadd4, ux + uy)
__ANYCUDA_SIMD4(__vsub4, ux - uy)
__ANYCUDA_SIMD4(__vaddss4, __anycuda_sat8(x + y))
__ANYCUDA_SIMD4(__vsubss4, __anycuda_sat8(x - y))
__ANYCUDA_SIMD4(__vabsdiffs4, x > y ? x - y : y - x)
__ANYCUDA_SIMD4(__vabsdiffu4, ux > uy ? ux - uy : uy - ux)
__ANYCUDA_SIMD4(__vmaxs4, x > y ? x : y)
__ANYCUDA_SIMD4(__vmins4, x < y ? x : y)
__ANYCUDA_SIMD4(__vmaxu4, ux > uy ? ux : uy)
__ANYCUDA_SIMD4(__vminu4, ux < uy ? ux : uy)
#undef __ANYCUDA_SIMD4
#if HIP_VERSION_MAJOR < 6
// CUDA's integer min/max overloads, which HIP 5.x lacks (probed: 5.2.3 and 5.7.1 have min/max
// for int, float and double only; 6.4.3 has them all).
#define __ANYCUDA_MINMAX(A, B, R)                                                                  \
    __device__ inline R min(A a, B b) { return (R)a < (R)b ? (R)a : (R)b; }                        \
    __device__ inline R max(A a, B b) { return (R)a > (R)b ? (R)a : (R)b; }
__ANYCUDA_MINMAX(unsigned int, unsigned int, unsigned int)
__ANYCUDA_MINMAX(int, unsigned int, unsigned int)
__ANYCUDA_MINMAX(unsigned int, int, unsigned int)
__ANYCUDA_MINMAX(long, long, long)
__ANYCUDA_MINMAX(unsigned long, unsigned long, unsigned long)
__ANYCUDA_MINMAX(long, unsigned long, unsigned long)
__ANYCUDA_MINMAX(unsigned long, long, unsigned long)
__ANYCUDA_MINMAX(long long, long long, long long)
__ANYCUDA_MINMAX(unsigned long long, unsigned long long, unsigned long long)
__ANYCUDA_MINMAX(long long, unsigned long long, unsigned long long)
__ANYCUDA_MINMAX(unsigned long long, long long, unsigned long long)
#undef __ANYCUDA_MINMAX
#endif
#if HIP_VERSION_MAJOR * 100 + HIP_VERSION_MINOR < 507
// 64-bit signed atomicMin/atomicMax: in HIP from 5.7 on (5.2.3 lacks them).
#define __ANYCUDA_ATOMIC_LL(NAME, KEEP_OLD)                                                        \
    __device__ inline long long NAME(long long* address, long long val)                           \
    {                                                                                             \
        unsigned long long* p = (unsigned long long*)address;                                     \
        unsigned long long old = *p, assumed;                                                     \
        do {                                                                                      \
            assumed = old;                                                                        \
            if ((long long)assumed KEEP_OLD val) break;                                           \
            old = atomicCAS(p, assumed, (unsigned long long)val);                                 \
        } while (assumed != old);                                                                 \
        return (long long)old;                                                                    \
    }
__ANYCUDA_ATOMIC_LL(atomicMin, <=)
__ANYCUDA_ATOMIC_LL(atomicMax, >=)
#undef __ANYCUDA_ATOMIC_LL
#endif
"#
    };
}

/// `<assert.h>` for NVRTC, which declares `assert` by itself.
pub(crate) const ASSERT_H_NVRTC: &str =
    "// anycuda built-in assert.h: NVRTC declares assert itself.\n#pragma once\n";
/// `<assert.h>` for hipRTC: `assert` comes with the built-in `cuda_runtime.h` (a trap).
pub(crate) const ASSERT_H_HIPRTC: &str = "// anycuda built-in assert.h: assert traps on failure.\n#pragma once\n#include <cuda_runtime.h>\n";

//! The device-side support header every translation starts with.

/// The support header: C++ that compiles with hipRTC (AMD) and NVRTC (HIP's NVIDIA platform),
/// using no header of either. Everything is `ptx_`-prefixed.
///
/// Floating-point rules it keeps, so results are CUDA's bit for bit:
/// - no contraction: on clang (hipRTC) `#pragma clang fp contract(off)`; on NVRTC the `__f*_rn`
///   and `__d*_rn` intrinsics, which NVVM never fuses;
/// - f32 NaN results are NVIDIA's canonical NaN (`0x7fffffff`); f64 NaN results are the
///   device's own, as NVIDIA's are (an input NaN passed on quieted; seen on an H200: no
///   canonical f64 NaN), so a NaN created by AMD's f64 unit may differ from NVIDIA's in sign
///   or payload;
/// - f32 directed rounding (`.rz`, `.rm`, `.rp`) is computed exactly: the operation is done in
///   f64 with its exact error (the product of two f32 is exact in f64; sums, quotients and
///   square roots carry their error term), then rounded to f32 in the asked direction;
/// - f64 `add`/`sub` directed rounding uses the exact error of the f64 sum (TwoSum); f64
///   `mul`/`div`/`sqrt`/`rcp` normalise their operands (frexp) so the error term is exact, then
///   round on the way back to scale (`fma.f64` in a directed mode is refused);
/// - float to integer conversions clamp to the destination range; NaN gives 0 from an f32
///   source into 32 bits or fewer, else `1 << (bits - 1)` (MININT when signed), as PTX says;
/// - halves (f16, bf16) are computed exactly in f64 and rounded once on the format's grid;
///   NaN results are `0x7fff`, as NVIDIA's.
///
/// Warps are CUDA's 32 lanes on every target: on AMD's wave64 each wavefront runs two warps
/// (its lanes 0-31 and 32-63) and every warp-level helper (`ptx_shfl`, `ptx_ballot`,
/// `ptx_vote_*`, `ptx_match_*`, `ptx_redux`, `ptx_activemask`, the lane masks) is confined to
/// the caller's half; the wavefront width is decided at compile time.
///
/// The warp-wide matrix instructions (`ldmatrix`, `stmatrix`, `mma.sync`) are emulated on those
/// helpers: the lanes exchange fragments (and row addresses) by shuffles laid out as the PTX
/// ISA's fragment tables say, and each lane reads, writes or computes its own part; integer
/// `mma` is exact, float `mma` sums exact products in f64 and rounds once.
pub const SUPPORT_HEADER: &str = r#"// anycuda PTX translation support header
typedef unsigned char ptx_u8;
typedef signed char ptx_s8;
typedef unsigned short ptx_u16;
typedef short ptx_s16;
typedef unsigned int ptx_u32;
typedef int ptx_s32;
typedef unsigned long long ptx_u64;
typedef long long ptx_s64;
#if defined(__clang__) && defined(__HIP__)
#define PTX_AMD 1
#pragma clang fp contract(off)
#endif
#define PTX_D static __device__ __forceinline__
template <int N, int A> struct alignas(A) ptx_bytes { unsigned char b[N]; };

PTX_D float ptx_f32_of(ptx_u32 b) { union { ptx_u32 u; float f; } x; x.u = b; return x.f; }
PTX_D ptx_u32 ptx_bits32(float f) { union { ptx_u32 u; float f; } x; x.f = f; return x.u; }
PTX_D double ptx_f64_of(ptx_u64 b) { union { ptx_u64 u; double f; } x; x.u = b; return x.f; }
PTX_D ptx_u64 ptx_bits64(double f) { union { ptx_u64 u; double f; } x; x.f = f; return x.u; }
PTX_D bool ptx_isnan_f(float a) { return a != a; }
PTX_D bool ptx_isnan_d(double a) { return a != a; }
PTX_D float ptx_cnan_f(float a) { return a != a ? ptx_f32_of(0x7fffffffu) : a; }
PTX_D double ptx_cnan_d(double a) { return a; } // f64: the device's NaN, as on NVIDIA
PTX_D double ptx_ftz_d(double a) { return (ptx_bits64(a) & 0x7ff0000000000000ull) == 0 ? ptx_f64_of(ptx_bits64(a) & 0x8000000000000000ull) : a; }
PTX_D float ptx_ftz(float a) { return (ptx_bits32(a) & 0x7f800000u) == 0 ? ptx_f32_of(ptx_bits32(a) & 0x80000000u) : a; }
// .sat: NaN and -0.0 give +0.0.
PTX_D float ptx_sat_f(float a) { return a != a ? 0.0f : (a <= 0.0f ? 0.0f : (a > 1.0f ? 1.0f : a)); }
PTX_D double ptx_sat_d(double a) { return a != a ? 0.0 : (a <= 0.0 ? 0.0 : (a > 1.0 ? 1.0 : a)); }
PTX_D float ptx_inf_f(int s) { return ptx_f32_of(s < 0 ? 0xff800000u : 0x7f800000u); }
PTX_D double ptx_inf_d(int s) { return ptx_f64_of(s < 0 ? 0xfff0000000000000ull : 0x7ff0000000000000ull); }
PTX_D bool ptx_finite_d(double a) { return (ptx_bits64(a) & 0x7ff0000000000000ull) != 0x7ff0000000000000ull; }
// .ftz's test of a result: whether the exact value x (with an error of l's sign beyond it) is
// tiny, below the smallest normal mn once rounded to p significant bits with an unbounded
// exponent in mode m (0 rn, 1 rz, 2 rm, 3 rp): IEEE 754's tininess after rounding, which an
// H200's f16 and f32 .ftz results follow ((1 - 2^-24) 2^-126 is tiny in f32, having 24 bits;
// 2^-14 - 2^-28 is not in f16, rounding to 2^-14 with 11 bits).
PTX_D bool ptx_tiny(double x, double l, int m, int p, double mn) {
    if (x != x) return false;
    bool neg = (ptx_bits64(x) >> 63) != 0;
    double a = neg ? -x : x, lm = neg ? -l : l;
    if (!(a < mn || (a == mn && lm < 0))) return false;
    double lo = mn - ldexp(mn, -p), mid = mn - ldexp(mn, -(p + 1));
    bool away = (m == 3 && !neg) || (m == 2 && neg);
    bool up = m == 0 ? (a > mid || (a == mid && lm >= 0)) : (away && (a > lo || (a == lo && lm > 0)));
    return !up;
}
// f32 .ftz of a result r whose exact value is x: a tiny x gives a zero of its sign. An exact
// zero is r itself: its sign is the rounding mode's (x + -x is -0 rounding down), which x,
// computed to nearest, does not have.
PTX_D float ptx_ftz_tiny_f(float r, double x, int m) {
    if (x == 0.0) return r;
    if (ptx_tiny(x, 0.0, m, 24, ldexp(1.0, -126))) return ptx_f32_of((ptx_bits64(x) >> 63) ? 0x80000000u : 0u);
    return (ptx_bits32(r) & 0x7f800000u) == 0 ? ptx_f32_of(ptx_bits32(r) & 0x80000000u) : r;
}
// An f64 NaN narrowed as NVIDIA narrows it: its sign, quieted, the top of its payload.
PTX_D float ptx_f64_nan_to_f(double a) {
    ptx_u64 b = ptx_bits64(a);
    return ptx_f32_of((ptx_u32)((b >> 32) & 0x80000000u) | 0x7fc00000u | (ptx_u32)((b >> 29) & 0x7fffffu));
}

// Round-to-nearest operations that are never contracted into an fma.
#ifdef PTX_AMD
PTX_D float ptx_fadd(float a, float b) { return a + b; }
PTX_D float ptx_fsub(float a, float b) { return a - b; }
PTX_D float ptx_fmul(float a, float b) { return a * b; }
PTX_D float ptx_fdiv(float a, float b) { return a / b; }
PTX_D double ptx_dadd(double a, double b) { return a + b; }
PTX_D double ptx_dsub(double a, double b) { return a - b; }
PTX_D double ptx_dmul(double a, double b) { return a * b; }
PTX_D double ptx_ddiv(double a, double b) { return a / b; }
// sqrtf/sqrt are OCML's, correctly rounded under hipRTC's default
// (-fhip-fp32-correctly-rounded-divide-sqrt); llvm.sqrt.f32 alone may not be.
PTX_D float ptx_fsqrt(float a) { return sqrtf(a); }
PTX_D double ptx_dsqrt(double a) { return sqrt(a); }
PTX_D float ptx_ffma(float a, float b, float c) { return __builtin_fmaf(a, b, c); }
PTX_D double ptx_dfma(double a, double b, double c) { return __builtin_fma(a, b, c); }
#else
PTX_D float ptx_fadd(float a, float b) { return __fadd_rn(a, b); }
PTX_D float ptx_fsub(float a, float b) { return __fsub_rn(a, b); }
PTX_D float ptx_fmul(float a, float b) { return __fmul_rn(a, b); }
PTX_D float ptx_fdiv(float a, float b) { return __fdiv_rn(a, b); }
PTX_D double ptx_dadd(double a, double b) { return __dadd_rn(a, b); }
PTX_D double ptx_dsub(double a, double b) { return __dsub_rn(a, b); }
PTX_D double ptx_dmul(double a, double b) { return __dmul_rn(a, b); }
PTX_D double ptx_ddiv(double a, double b) { return __ddiv_rn(a, b); }
PTX_D float ptx_fsqrt(float a) { return __fsqrt_rn(a); }
PTX_D double ptx_dsqrt(double a) { return __dsqrt_rn(a); }
PTX_D float ptx_ffma(float a, float b, float c) { return __fmaf_rn(a, b, c); }
PTX_D double ptx_dfma(double a, double b, double c) { return __fma_rn(a, b, c); }
#endif

// The exact error of s = RN(a + b): a + b == s + err (TwoSum; exact without overflow).
PTX_D double ptx_two_sum_err(double a, double b, double s) {
    double bb = ptx_dsub(s, a);
    return ptx_dadd(ptx_dsub(a, ptx_dsub(s, bb)), ptx_dsub(b, bb));
}
PTX_D float ptx_next_f(float a, int dir) {
    ptx_u32 u = ptx_bits32(a);
    if (a != a || (u & 0x7fffffffu) == 0x7f800000u && ((u >> 31) != 0) == (dir < 0)) return a;
    if ((u & 0x7fffffffu) == 0) return ptx_f32_of(dir > 0 ? 1u : 0x80000001u);
    return ptx_f32_of(((u >> 31) != 0) == (dir > 0) ? u - 1 : u + 1);
}
PTX_D double ptx_next_d(double a, int dir) {
    ptx_u64 u = ptx_bits64(a);
    if (a != a || (u & 0x7fffffffffffffffull) == 0x7ff0000000000000ull && ((u >> 63) != 0) == (dir < 0)) return a;
    if ((u & 0x7fffffffffffffffull) == 0) return ptx_f64_of(dir > 0 ? 1ull : 0x8000000000000001ull);
    return ptx_f64_of(((u >> 63) != 0) == (dir > 0) ? u - 1 : u + 1);
}
// Mode: 0 rn, 1 rz, 2 rm, 3 rp. Rounds the exact value h + l (h = RN53(h + l)) to f32.
PTX_D float ptx_round_f32(double h, double l, int m) {
    if (h != h) return ptx_f32_of(0x7fffffffu);
    float f = (float)h;
    if (!ptx_finite_d(h)) return f;
    if (f - f != 0.0f) { // overflowed to infinity
        if (m == 1 || (m == 2 && h > 0) || (m == 3 && h < 0)) return ptx_f32_of((h < 0 ? 0x80000000u : 0u) | 0x7f7fffffu);
        if (m != 0) return f;
    }
    double r = ptx_dsub(h, (double)f);
    int dir = r > 0 ? 1 : r < 0 ? -1 : (l > 0 ? 1 : l < 0 ? -1 : 0);
    if (dir == 0) return f;
    if (m == 0) {
        if (r == 0) return f;
        float g = ptx_next_f(f, dir);
        double mid = ptx_dmul(ptx_dadd((double)f, (double)g), 0.5);
        if (h == mid && l != 0) return ((l > 0) == (dir > 0)) ? g : f;
        return f;
    }
    if (m == 1) return ((f > 0 && dir < 0) || (f < 0 && dir > 0)) ? ptx_next_f(f, dir) : f;
    if (m == 2) return dir < 0 ? ptx_next_f(f, -1) : f;
    return dir > 0 ? ptx_next_f(f, 1) : f;
}
// Rounds the exact value h + l (h = RN(h + l), |l| <= ulp(h)/2) to f64 in mode m.
PTX_D double ptx_round_f64(double h, double l, int m) {
    if (m == 0 || l == 0 || h != h) return ptx_cnan_d(h);
    if (m == 1) return ((h > 0 && l < 0) || (h < 0 && l > 0)) ? ptx_next_d(h, l < 0 ? -1 : 1) : h;
    if (m == 2) return l < 0 ? ptx_next_d(h, -1) : h;
    return l > 0 ? ptx_next_d(h, 1) : h;
}
PTX_D double ptx_overflow_d(double h, int m) { // h is +-inf from finite operands
    if (m == 1 || (m == 2 && h > 0) || (m == 3 && h < 0)) return ptx_f64_of((h < 0 ? 0x8000000000000000ull : 0ull) | 0x7fefffffffffffffull);
    return h;
}

// An exact zero sum x + y is +0 in every mode but .rm, where it is -0 unless x and y are both +0
// (IEEE 754 6.3); computing it in round-to-nearest gives +0, so .rm asks here.
PTX_D bool ptx_zero_sum_neg_rm(double x, double y) {
    return !(x == 0 && y == 0) || (ptx_bits64(x) >> 63) || (ptx_bits64(y) >> 63);
}
// f32 arithmetic in a rounding mode.
PTX_D float ptx_add_f(float a, float b, int m) {
    if (m == 0) return ptx_cnan_f(ptx_fadd(a, b));
    double h = ptx_dadd((double)a, (double)b);
    if (!ptx_finite_d(h)) return ptx_round_f32(h, 0.0, m);
    if (h == 0) return (m == 2 && ptx_zero_sum_neg_rm(a, b)) ? -0.0f : (float)h;
    return ptx_round_f32(h, ptx_two_sum_err((double)a, (double)b, h), m);
}
PTX_D float ptx_sub_f(float a, float b, int m) { return m == 0 ? ptx_cnan_f(ptx_fsub(a, b)) : ptx_add_f(a, -b, m); }
PTX_D float ptx_mul_f(float a, float b, int m) {
    if (m == 0) return ptx_cnan_f(ptx_fmul(a, b));
    return ptx_round_f32(ptx_dmul((double)a, (double)b), 0.0, m);
}
PTX_D float ptx_fma_f(float a, float b, float c, int m) {
    if (m == 0) return ptx_cnan_f(ptx_ffma(a, b, c));
    double p = ptx_dmul((double)a, (double)b);
    double h = ptx_dadd(p, (double)c);
    if (!ptx_finite_d(h) || !ptx_finite_d(p)) return ptx_round_f32(h, 0.0, m);
    if (h == 0) return (m == 2 && ptx_zero_sum_neg_rm(p, (double)c)) ? -0.0f : (float)h;
    return ptx_round_f32(h, ptx_two_sum_err(p, (double)c, h), m);
}
PTX_D float ptx_div_f(float a, float b, int m) {
    if (m == 0) return ptx_cnan_f(ptx_fdiv(a, b));
    double h = ptx_ddiv((double)a, (double)b);
    if (!ptx_finite_d(h) || h == 0 || !ptx_finite_d((double)b)) return ptx_round_f32(h, 0.0, m);
    double rem = ptx_dfma(-h, (double)b, (double)a);
    return ptx_round_f32(h, ptx_ddiv(rem, (double)b), m);
}
PTX_D float ptx_sqrt_f(float a, int m) {
    if (m == 0) return ptx_cnan_f(ptx_fsqrt(a));
    double h = ptx_dsqrt((double)a);
    if (!ptx_finite_d(h) || h == 0) return ptx_round_f32(h, 0.0, m);
    double rem = ptx_dfma(-h, h, (double)a);
    return ptx_round_f32(h, ptx_ddiv(rem, ptx_dmul(2.0, h)), m);
}
PTX_D float ptx_rcp_f(float a, int m) { return ptx_div_f(1.0f, a, m); }
// f64 arithmetic in a rounding mode (directed: add and sub only).
PTX_D double ptx_add_d(double a, double b, int m) {
    double h = ptx_dadd(a, b);
    if (m == 0) return ptx_cnan_d(h);
    if (!ptx_finite_d(h)) return (ptx_finite_d(a) && ptx_finite_d(b)) ? ptx_overflow_d(h, m) : ptx_cnan_d(h);
    if (h == 0) return (m == 2 && ptx_zero_sum_neg_rm(a, b)) ? -0.0 : h;
    return ptx_round_f64(h, ptx_two_sum_err(a, b, h), m);
}
PTX_D double ptx_sub_d(double a, double b, int m) { return m == 0 ? ptx_cnan_d(ptx_dsub(a, b)) : ptx_add_d(a, -b, m); }
// f64 mul/div/sqrt in a directed mode. The operands are normalised by frexp (exact), so the
// scaled result q (in [0.25, 2)) and its exact error term e (fma) never underflow; q is then
// scaled back with ldexp, which rounds to nearest on the subnormal grid; T = that result
// scaled up again is exact, and the sign of (q - T), else of e, says on which side of it the
// exact value lies.
PTX_D double ptx_dir_d(double t, int dir, int m) {
    if (dir == 0) return t;
    if (m == 1) return ((t > 0 && dir < 0) || (t < 0 && dir > 0)) ? ptx_next_d(t, dir) : t;
    if (m == 2) return dir < 0 ? ptx_next_d(t, -1) : t;
    return dir > 0 ? ptx_next_d(t, 1) : t;
}
PTX_D double ptx_scaled_d(double q, double e, int k, int m) {
    double t = ldexp(q, k);
    if (!ptx_finite_d(t)) return ptx_overflow_d(t, m);
    double r = ptx_dsub(q, ldexp(t, -k));
    int dir = r > 0 ? 1 : r < 0 ? -1 : (e > 0 ? 1 : e < 0 ? -1 : 0);
    return ptx_dir_d(t, dir, m);
}
PTX_D double ptx_mul_d(double a, double b, int m) {
    double h = ptx_dmul(a, b);
    if (m == 0 || h != h || a == 0 || b == 0 || !ptx_finite_d(a) || !ptx_finite_d(b)) return ptx_cnan_d(h);
    int ea, eb;
    double fa = frexp(a, &ea), fb = frexp(b, &eb);
    double q = ptx_dmul(fa, fb);
    return ptx_scaled_d(q, ptx_dfma(fa, fb, -q), ea + eb, m);
}
PTX_D double ptx_div_d(double a, double b, int m) {
    double h = ptx_ddiv(a, b);
    if (m == 0 || h != h || a == 0 || b == 0 || !ptx_finite_d(a) || !ptx_finite_d(b)) return ptx_cnan_d(h);
    int ea, eb;
    double fa = frexp(a, &ea), fb = frexp(b, &eb);
    double q = ptx_ddiv(fa, fb);
    double rem = ptx_dfma(-q, fb, fa); // exact; the quotient's error has the sign of rem / fb
    return ptx_scaled_d(q, fb > 0 ? rem : -rem, ea - eb, m);
}
PTX_D double ptx_sqrt_d(double a, int m) {
    double h = ptx_dsqrt(a);
    if (m == 0 || h != h || a == 0 || !ptx_finite_d(a)) return ptx_cnan_d(h);
    int e;
    double f = frexp(a, &e);
    if (e & 1) { f = ptx_dmul(f, 2.0); e -= 1; }
    double q = ptx_dsqrt(f);
    return ptx_scaled_d(q, ptx_dfma(-q, q, f), e / 2, m);
}
PTX_D double ptx_rcp_d(double a, int m) { return ptx_div_d(1.0, a, m); }

// min/max: NaN loses to a number; both NaN give the canonical NaN; -0 < +0.
PTX_D float ptx_min_f(float a, float b) {
    if (a != a) return b != b ? ptx_f32_of(0x7fffffffu) : b;
    if (b != b) return a;
    if (a == b) return (ptx_bits32(a) >> 31) ? a : b;
    return a < b ? a : b;
}
PTX_D float ptx_max_f(float a, float b) {
    if (a != a) return b != b ? ptx_f32_of(0x7fffffffu) : b;
    if (b != b) return a;
    if (a == b) return (ptx_bits32(a) >> 31) ? b : a;
    return a > b ? a : b;
}
PTX_D double ptx_min_d(double a, double b) {
    if (a != a) return b != b ? ptx_f64_of(0x7fffffffffffffffull) : b;
    if (b != b) return a;
    if (a == b) return (ptx_bits64(a) >> 63) ? a : b;
    return a < b ? a : b;
}
PTX_D double ptx_max_d(double a, double b) {
    if (a != a) return b != b ? ptx_f64_of(0x7fffffffffffffffull) : b;
    if (b != b) return a;
    if (a == b) return (ptx_bits64(a) >> 63) ? b : a;
    return a > b ? a : b;
}

// Integer helpers: defined for every input (PTX has no undefined behaviour here; C++ has).
PTX_D ptx_u32 ptx_shl32(ptx_u32 a, ptx_u32 n) { return n > 31 ? 0u : a << n; }
PTX_D ptx_u64 ptx_shl64(ptx_u64 a, ptx_u32 n) { return n > 63 ? 0ull : a << n; }
PTX_D ptx_u32 ptx_shr_u32(ptx_u32 a, ptx_u32 n) { return n > 31 ? 0u : a >> n; }
PTX_D ptx_u64 ptx_shr_u64(ptx_u64 a, ptx_u32 n) { return n > 63 ? 0ull : a >> n; }
PTX_D ptx_s32 ptx_shr_s32(ptx_s32 a, ptx_u32 n) { return a >> (n > 31 ? 31u : n); }
PTX_D ptx_s64 ptx_shr_s64(ptx_s64 a, ptx_u32 n) { return a >> (n > 63 ? 63u : n); }
PTX_D ptx_u16 ptx_shl16(ptx_u16 a, ptx_u32 n) { return n > 15 ? (ptx_u16)0 : (ptx_u16)((ptx_u32)a << n); }
PTX_D ptx_u16 ptx_shr_u16(ptx_u16 a, ptx_u32 n) { return n > 15 ? (ptx_u16)0 : (ptx_u16)(a >> n); }
PTX_D ptx_s16 ptx_shr_s16(ptx_s16 a, ptx_u32 n) { return (ptx_s16)((ptx_s32)a >> (n > 15 ? 15u : n)); }
// Division by zero: NVIDIA gives all ones for the quotient and for the remainder (an H200, every
// width, 2026-11-29).
PTX_D ptx_u32 ptx_div_u32(ptx_u32 a, ptx_u32 b) { return b == 0 ? 0xffffffffu : a / b; }
PTX_D ptx_u64 ptx_div_u64(ptx_u64 a, ptx_u64 b) { return b == 0 ? ~0ull : a / b; }
PTX_D ptx_s32 ptx_div_s32(ptx_s32 a, ptx_s32 b) { return b == 0 ? -1 : (b == -1 ? (ptx_s32)(0u - (ptx_u32)a) : a / b); }
PTX_D ptx_s64 ptx_div_s64(ptx_s64 a, ptx_s64 b) { return b == 0 ? -1ll : (b == -1 ? (ptx_s64)(0ull - (ptx_u64)a) : a / b); }
PTX_D ptx_u32 ptx_rem_u32(ptx_u32 a, ptx_u32 b) { return b == 0 ? 0xffffffffu : a % b; }
PTX_D ptx_u64 ptx_rem_u64(ptx_u64 a, ptx_u64 b) { return b == 0 ? ~0ull : a % b; }
PTX_D ptx_s32 ptx_rem_s32(ptx_s32 a, ptx_s32 b) { return b == 0 ? -1 : (b == -1 ? 0 : a % b); }
PTX_D ptx_s64 ptx_rem_s64(ptx_s64 a, ptx_s64 b) { return b == 0 ? -1ll : (b == -1 ? 0ll : a % b); }
PTX_D ptx_s32 ptx_add_sat_s32(ptx_s32 a, ptx_s32 b) { ptx_s64 s = (ptx_s64)a + b; return s > 2147483647ll ? 2147483647 : (s < -2147483648ll ? (-2147483647 - 1) : (ptx_s32)s); }
PTX_D ptx_s32 ptx_sub_sat_s32(ptx_s32 a, ptx_s32 b) { ptx_s64 s = (ptx_s64)a - b; return s > 2147483647ll ? 2147483647 : (s < -2147483648ll ? (-2147483647 - 1) : (ptx_s32)s); }
PTX_D ptx_u32 ptx_mulhi_u32(ptx_u32 a, ptx_u32 b) { return (ptx_u32)(((ptx_u64)a * b) >> 32); }
PTX_D ptx_s32 ptx_mulhi_s32(ptx_s32 a, ptx_s32 b) { return (ptx_s32)(((ptx_s64)a * b) >> 32); }
PTX_D ptx_u64 ptx_mulhi_u64(ptx_u64 a, ptx_u64 b) {
    ptx_u64 al = a & 0xffffffffull, ah = a >> 32, bl = b & 0xffffffffull, bh = b >> 32;
    ptx_u64 ll = al * bl, lh = al * bh, hl = ah * bl, hh = ah * bh;
    ptx_u64 mid = (ll >> 32) + (lh & 0xffffffffull) + (hl & 0xffffffffull);
    return hh + (lh >> 32) + (hl >> 32) + (mid >> 32);
}
PTX_D ptx_s64 ptx_mulhi_s64(ptx_s64 a, ptx_s64 b) {
    ptx_u64 h = ptx_mulhi_u64((ptx_u64)a, (ptx_u64)b);
    if (a < 0) h -= (ptx_u64)b;
    if (b < 0) h -= (ptx_u64)a;
    return (ptx_s64)h;
}
PTX_D ptx_u16 ptx_mulhi_u16(ptx_u16 a, ptx_u16 b) { return (ptx_u16)(((ptx_u32)a * b) >> 16); }
PTX_D ptx_s16 ptx_mulhi_s16(ptx_s16 a, ptx_s16 b) { return (ptx_s16)(((ptx_s32)a * b) >> 16); }
PTX_D ptx_s64 ptx_s24(ptx_u32 a) { return (ptx_s64)((ptx_s32)(a << 8) >> 8); }
PTX_D ptx_u32 ptx_mul24lo_s(ptx_u32 a, ptx_u32 b) { return (ptx_u32)(ptx_s24(a) * ptx_s24(b)); }
PTX_D ptx_u32 ptx_mul24hi_s(ptx_u32 a, ptx_u32 b) { return (ptx_u32)((ptx_u64)(ptx_s24(a) * ptx_s24(b)) >> 16); }
PTX_D ptx_u32 ptx_mul24lo_u(ptx_u32 a, ptx_u32 b) { return (ptx_u32)((ptx_u64)(a & 0xffffffu) * (b & 0xffffffu)); }
PTX_D ptx_u32 ptx_mul24hi_u(ptx_u32 a, ptx_u32 b) { return (ptx_u32)(((ptx_u64)(a & 0xffffffu) * (b & 0xffffffu)) >> 16); }
PTX_D ptx_u32 ptx_popc64(ptx_u64 a) { ptx_u32 n = 0; while (a) { a &= a - 1; ++n; } return n; }
PTX_D ptx_u32 ptx_popc32(ptx_u32 a) { return ptx_popc64(a); }
PTX_D ptx_u32 ptx_clz64(ptx_u64 a) { ptx_u32 n = 0; for (ptx_u64 m = 1ull << 63; m && !(a & m); m >>= 1) ++n; return n; }
PTX_D ptx_u32 ptx_clz32(ptx_u32 a) { return ptx_clz64(a) - 32u; }
// bfind: the position of the most significant non-sign bit; all ones when there is none.
PTX_D ptx_u32 ptx_bfind(ptx_u64 a, int bits, bool sgn, bool shiftamt) {
    ptx_u64 mask = bits == 64 ? ~0ull : ((1ull << bits) - 1);
    a &= mask;
    if (sgn && ((a >> (bits - 1)) & 1ull)) a = ~a & mask;
    if (a == 0) return 0xffffffffu;
    ptx_u32 p = 63u - ptx_clz64(a);
    return shiftamt ? (ptx_u32)(bits - 1) - p : p;
}
PTX_D ptx_u64 ptx_brev64(ptx_u64 a) { ptx_u64 r = 0; for (int i = 0; i < 64; ++i) { r = (r << 1) | (a & 1ull); a >>= 1; } return r; }
PTX_D ptx_u32 ptx_brev32(ptx_u32 a) { return (ptx_u32)(ptx_brev64(a) >> 32); }
// bfe: 32 bits take pos and len mod 256 (the hardware's field); 64 bits take them whole (an
// H200: bfe.u64 with len 0x100 extracts everything, bfi.b64 at pos 0x100 inserts nothing).
// Bits past the top repeat the sign (signed) or are 0.
PTX_D ptx_u64 ptx_bfe(ptx_u64 a, ptx_u32 pos32, ptx_u32 len32, int bits, bool sgn) {
    ptx_u64 pos = bits == 32 ? (pos32 & 0xffu) : pos32, len = bits == 32 ? (len32 & 0xffu) : len32;
    ptx_u64 msb_bit = (pos + len == 0) ? 0 : ((pos + len - 1 < (ptx_u64)bits) ? pos + len - 1 : (ptx_u64)bits - 1);
    bool sbit = sgn && len != 0 && ((a >> msb_bit) & 1ull);
    ptx_u64 r = 0;
    for (ptx_u64 i = 0; i < (ptx_u64)bits; ++i) {
        bool bit = (i < len && pos + i < (ptx_u64)bits) ? ((a >> (pos + i)) & 1ull) != 0 : sbit;
        if (bit) r |= 1ull << i;
    }
    return r;
}
PTX_D ptx_u64 ptx_bfi(ptx_u64 a, ptx_u64 b, ptx_u32 pos32, ptx_u32 len32, int bits) {
    ptx_u64 pos = bits == 32 ? (pos32 & 0xffu) : pos32, len = bits == 32 ? (len32 & 0xffu) : len32;
    ptx_u64 r = b;
    for (ptx_u64 i = 0; i < len && pos + i < (ptx_u64)bits; ++i) {
        ptx_u64 m = 1ull << (pos + i);
        r = ((a >> i) & 1ull) ? (r | m) : (r & ~m);
    }
    return r;
}
PTX_D ptx_u32 ptx_prmt(ptx_u32 a, ptx_u32 b, ptx_u32 c) {
    ptx_u64 x = ((ptx_u64)b << 32) | a;
    ptx_u32 r = 0;
    for (int i = 0; i < 4; ++i) {
        ptx_u32 s = (c >> (4 * i)) & 0xfu;
        ptx_u32 byte = (ptx_u32)(x >> (8 * (s & 7u))) & 0xffu;
        if (s & 8u) byte = (byte & 0x80u) ? 0xffu : 0u;
        r |= byte << (8 * i);
    }
    return r;
}
// prmt's modes (PTX ISA, prmt): c's low 2 bits pick, for each byte i of d, a byte of {b, a}:
// 1 .f4e s + i, 2 .b4e (s - i) mod 8, 3 .rc8 s, 4 .ecl max(i, s), 5 .ecr min(i, s),
// 6 .rc16 2 * (s & 1) + (i & 1).
PTX_D ptx_u32 ptx_prmt_mode(ptx_u32 a, ptx_u32 b, ptx_u32 c, int mode) {
    ptx_u64 x = ((ptx_u64)b << 32) | a;
    ptx_u32 s = c & 3u, r = 0;
    for (ptx_u32 i = 0; i < 4; ++i) {
        ptx_u32 k;
        switch (mode) {
        case 1: k = s + i; break;
        case 2: k = (s - i) & 7u; break;
        case 3: k = s; break;
        case 4: k = i > s ? i : s; break;
        case 5: k = i < s ? i : s; break;
        default: k = 2u * (s & 1u) + (i & 1u); break;
        }
        r |= ((ptx_u32)(x >> (8 * k)) & 0xffu) << (8 * i);
    }
    return r;
}
PTX_D ptx_u64 ptx_lop3(ptx_u64 a, ptx_u64 b, ptx_u64 c, ptx_u32 lut) {
    ptx_u64 r = 0;
    if (lut & 0x01u) r |= ~a & ~b & ~c;
    if (lut & 0x02u) r |= ~a & ~b & c;
    if (lut & 0x04u) r |= ~a & b & ~c;
    if (lut & 0x08u) r |= ~a & b & c;
    if (lut & 0x10u) r |= a & ~b & ~c;
    if (lut & 0x20u) r |= a & ~b & c;
    if (lut & 0x40u) r |= a & b & ~c;
    if (lut & 0x80u) r |= a & b & c;
    return r;
}

// Float to integer: already rounded to an integral value; clamped; NaN gives `nan` (PTX ISA:
// 0 from an f32 source into a destination of 32 bits or fewer, else 1 << (bits - 1)).
PTX_D ptx_s64 ptx_f2s(double r, ptx_s64 lo, ptx_s64 hi, ptx_s64 nan) {
    if (r != r) return nan;
    if (r <= -9223372036854775808.0) return lo;
    if (r >= 9223372036854775808.0) return hi;
    ptx_s64 v = (ptx_s64)r;
    return v < lo ? lo : (v > hi ? hi : v);
}
PTX_D ptx_u64 ptx_f2u(double r, ptx_u64 hi, ptx_u64 nan) {
    if (r != r) return nan;
    if (r <= 0) return 0;
    if (r >= 18446744073709551616.0) return hi;
    ptx_u64 v = (ptx_u64)r;
    return v > hi ? hi : v;
}
PTX_D float ptx_rint_f(float a, int m) {
    return m == 0 ? rintf(a) : m == 1 ? truncf(a) : m == 2 ? floorf(a) : ceilf(a);
}
PTX_D double ptx_rint_d(double a, int m) {
    return m == 0 ? rint(a) : m == 1 ? trunc(a) : m == 2 ? floor(a) : ceil(a);
}
// Integer to float in a rounding mode (64-bit integers split exactly into two doubles).
PTX_D float ptx_s64_to_f(ptx_s64 v, int m) {
    double hi = (double)(v >> 32) * 4294967296.0, lo = (double)(ptx_u32)v;
    double h = ptx_dadd(hi, lo);
    return ptx_round_f32(h, ptx_two_sum_err(hi, lo, h), m);
}
PTX_D float ptx_u64_to_f(ptx_u64 v, int m) {
    double hi = (double)(ptx_u32)(v >> 32) * 4294967296.0, lo = (double)(ptx_u32)v;
    double h = ptx_dadd(hi, lo);
    return ptx_round_f32(h, ptx_two_sum_err(hi, lo, h), m);
}
PTX_D double ptx_s64_to_d(ptx_s64 v, int m) {
    double hi = (double)(v >> 32) * 4294967296.0, lo = (double)(ptx_u32)v;
    double h = ptx_dadd(hi, lo);
    return ptx_round_f64(h, ptx_two_sum_err(hi, lo, h), m);
}
PTX_D double ptx_u64_to_d(ptx_u64 v, int m) {
    double hi = (double)(ptx_u32)(v >> 32) * 4294967296.0, lo = (double)(ptx_u32)v;
    double h = ptx_dadd(hi, lo);
    return ptx_round_f64(h, ptx_two_sum_err(hi, lo, h), m);
}

// ---- Half precision: f16 (fmt 0: 10 fraction bits, bias 15) and bf16 (fmt 1: 7, bias 127),
// held as their bits (ptx_u16). Arithmetic is done exactly in f64 (a product of two halves is
// exact; a sum carries its exact error) and rounded once. NaN results are 0x7fff, NVIDIA's
// canonical half NaN, `neg` and `abs` of a NaN included; an f16 NaN converted to f32 is the
// canonical 0x7fffffff, a bf16 NaN keeps its bits (as an H200 answers).
PTX_D double ptx_h2d(ptx_u16 h, int fmt, bool ftz) {
    int mb = fmt ? 7 : 10, bias = fmt ? 127 : 15;
    ptx_u32 emax = fmt ? 255u : 31u;
    ptx_u32 s = (ptx_u32)h >> 15, e = ((ptx_u32)h >> mb) & emax, f = (ptx_u32)h & ((1u << mb) - 1u);
    if (e == emax) {
        if (f == 0) return ptx_inf_d(s ? -1 : 1);
        return ptx_f64_of(((ptx_u64)s << 63) | 0x7ff8000000000000ull | ((ptx_u64)f << (52 - mb)));
    }
    double v = e == 0 ? (ftz ? 0.0 : ldexp((double)f, 1 - bias - mb)) : ldexp((double)(f | (1u << mb)), (int)e - bias - mb);
    return s ? -v : v;
}
PTX_D float ptx_h2f(ptx_u16 h, int fmt) {
    if (fmt) return ptx_f32_of((ptx_u32)h << 16);
    if ((h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0) return ptx_f32_of(0x7fffffffu);
    return (float)ptx_h2d(h, 0, false); // exact
}
// An f64 NaN into bf16 likewise: the sign, the quiet bit, the payload's top 6 bits.
PTX_D ptx_u16 ptx_f64_nan_to_bf(double a) {
    ptx_u64 b = ptx_bits64(a);
    return (ptx_u16)(((b >> 48) & 0x8000u) | 0x7fc0u | ((b >> 45) & 0x7fu));
}
// An f64 NaN into f16, as NVIDIA converts it: the sign, the quiet bit, the payload's top 9 bits.
PTX_D ptx_u16 ptx_f64_nan_to_h(double a) {
    ptx_u64 b = ptx_bits64(a);
    return (ptx_u16)(((b >> 48) & 0x8000u) | 0x7e00u | ((b >> 42) & 0x3ffu));
}
// Rounds the exact value x + l (x = RN53(x + l); only l's sign matters) to a half in mode m
// (0 rn, 1 rz, 2 rm, 3 rp).
PTX_D ptx_u16 ptx_round_h(double x, double l, int m, int fmt) {
    int mb = fmt ? 7 : 10, bias = fmt ? 127 : 15, emin = 1 - bias, emax = bias;
    if (x != x) return (ptx_u16)0x7fffu;
    ptx_u32 s = (ptx_u32)(ptx_bits64(x) >> 63);
    ptx_u32 maxf = ((ptx_u32)(2 * bias) << mb) | ((1u << mb) - 1u); // largest finite
    ptx_u32 inf = (ptx_u32)(2 * bias + 1) << mb;
    double a = s ? -x : x, lm = s ? -l : l; // the magnitude, and its error's sign
    if (!ptx_finite_d(a)) return (ptx_u16)((s << 15) | inf);
    if (a == 0) {
        if (lm == 0) return (ptx_u16)(s << 15);
        a = 0; // an exact tiny value: only its sign and direction count
    }
    int e;
    if (a == 0) e = emin; else { (void)frexp(a, &e); e -= 1; if (e < emin) e = emin; }
    double q = ldexp(1.0, e - mb); // the quantum at a
    double n = a / q, fl = floor(n), fr = n - fl;
    bool away = (m == 3 && !s) || (m == 2 && s); // a directed mode rounding the magnitude up
    bool toward = m != 0 && !away;                // one rounding it down
    bool up;
    if (m == 0) up = fr > 0.5 || (fr == 0.5 && (lm > 0 || (lm == 0 && fmod(fl, 2.0) != 0)));
    else up = away && (fr > 0 || lm > 0);
    double y = (up ? fl + 1 : fl) * q;
    // Just below a value on the grid, toward zero: the next value down (half a quantum below
    // the start of a binade).
    if (toward && fr == 0 && lm < 0) y = (fl == ldexp(1.0, mb) && e > emin) ? a - q / 2 : a - q;
    if (y >= ldexp(1.0, emax + 1)) {
        bool to_inf = m == 0 || (m != 1 && away);
        return (ptx_u16)((s << 15) | (to_inf ? inf : maxf));
    }
    ptx_u32 bits;
    if (y == 0) bits = 0;
    else {
        int ey;
        (void)frexp(y, &ey);
        ey -= 1;
        if (ey < emin) bits = (ptx_u32)(y / ldexp(1.0, emin - mb));
        else bits = ((ptx_u32)(ey + bias) << mb) | ((ptx_u32)(y / ldexp(1.0, ey - mb)) - (1u << mb));
    }
    return (ptx_u16)((s << 15) | bits);
}
PTX_D ptx_u16 ptx_h_ftz(ptx_u16 h, int fmt) {
    ptx_u32 em = fmt ? 0x7f80u : 0x7c00u;
    return (h & em) == 0 ? (ptx_u16)(h & 0x8000u) : h;
}
// .sat: [0, 1]; NaN and -0 give +0.
PTX_D ptx_u16 ptx_h_sat(ptx_u16 h, int fmt) {
    double v = ptx_h2d(h, fmt, false);
    if (v != v || v <= 0) return 0;
    return v >= 1 ? (ptx_u16)(fmt ? 0x3f80u : 0x3c00u) : h;
}
// flags: 1 .ftz, 2 .sat.
PTX_D ptx_u16 ptx_h_post(ptx_u16 r, int fmt, int flags) {
    if (flags & 1) r = ptx_h_ftz(r, fmt);
    if (flags & 2) r = ptx_h_sat(r, fmt);
    return r;
}
// The exact value x + l (as ptx_round_h takes it) rounded, then .ftz/.sat; with .ftz a tiny
// value (ptx_tiny) is a zero of its sign.
PTX_D ptx_u16 ptx_h_round(double x, double l, int m, int fmt, int flags) {
    if ((flags & 1) && ptx_tiny(x, l, m, fmt ? 8 : 11, ldexp(1.0, fmt ? -126 : -14)))
        return ptx_h_post((ptx_u16)((ptx_bits64(x) >> 63) ? 0x8000u : 0u), fmt, flags);
    return ptx_h_post(ptx_round_h(x, l, m, fmt), fmt, flags);
}
PTX_D ptx_u16 ptx_h_add(ptx_u16 a, ptx_u16 b, int m, int fmt, int flags) {
    double x = ptx_h2d(a, fmt, flags & 1), y = ptx_h2d(b, fmt, flags & 1);
    double s = ptx_dadd(x, y);
    if (!ptx_finite_d(s)) return ptx_h_post(ptx_round_h(s, 0.0, m, fmt), fmt, flags);
    if (s == 0) return ptx_h_post((ptx_u16)((m == 2 && ptx_zero_sum_neg_rm(x, y)) || (ptx_bits64(s) >> 63) ? 0x8000u : 0u), fmt, flags);
    return ptx_h_round(s, ptx_two_sum_err(x, y, s), m, fmt, flags);
}
PTX_D ptx_u16 ptx_h_sub(ptx_u16 a, ptx_u16 b, int m, int fmt, int flags) { return ptx_h_add(a, (ptx_u16)(b ^ 0x8000u), m, fmt, flags); }
PTX_D ptx_u16 ptx_h_mul(ptx_u16 a, ptx_u16 b, int m, int fmt, int flags) {
    double x = ptx_h2d(a, fmt, flags & 1), y = ptx_h2d(b, fmt, flags & 1);
    return ptx_h_round(ptx_dmul(x, y), 0.0, m, fmt, flags); // exact product
}
PTX_D ptx_u16 ptx_h_fma(ptx_u16 a, ptx_u16 b, ptx_u16 c, int m, int fmt, int flags) {
    double x = ptx_h2d(a, fmt, flags & 1), y = ptx_h2d(b, fmt, flags & 1), z = ptx_h2d(c, fmt, flags & 1);
    double p = ptx_dmul(x, y), s = ptx_dadd(p, z);
    if (!ptx_finite_d(s) || !ptx_finite_d(p)) return ptx_h_post(ptx_round_h(s, 0.0, m, fmt), fmt, flags);
    if (s == 0) return ptx_h_post((ptx_u16)((m == 2 && ptx_zero_sum_neg_rm(p, z)) || (ptx_bits64(s) >> 63) ? 0x8000u : 0u), fmt, flags);
    return ptx_h_round(s, ptx_two_sum_err(p, z, s), m, fmt, flags);
}
PTX_D ptx_u16 ptx_h_minmax(ptx_u16 a, ptx_u16 b, bool mx, int fmt, int flags) {
    float x = (float)ptx_h2d(a, fmt, flags & 1), y = (float)ptx_h2d(b, fmt, flags & 1);
    if ((x != x && y != y) || ((flags & 4) && (x != x || y != y))) return (ptx_u16)0x7fffu;
    float r = mx ? ptx_max_f(x, y) : ptx_min_f(x, y);
    return ptx_h_post(ptx_round_h((double)r, 0.0, 0, fmt), fmt, flags & 1);
}
PTX_D bool ptx_h_isnan(ptx_u16 a, int fmt) { return fmt ? (a & 0x7fffu) > 0x7f80u : (a & 0x7fffu) > 0x7c00u; }
PTX_D ptx_u16 ptx_h_neg(ptx_u16 a, int fmt, int flags) {
    if (ptx_h_isnan(a, fmt)) return (ptx_u16)0x7fffu;
    return ptx_h_post((ptx_u16)(((flags & 1) ? ptx_h_ftz(a, fmt) : a) ^ 0x8000u), fmt, flags & 1);
}
PTX_D ptx_u16 ptx_h_abs(ptx_u16 a, int fmt, int flags) {
    if (ptx_h_isnan(a, fmt)) return (ptx_u16)0x7fffu;
    return ptx_h_post((ptx_u16)(((flags & 1) ? ptx_h_ftz(a, fmt) : a) & 0x7fffu), fmt, flags & 1);
}
// 8-bit floats (fmt 0: e4m3, bias 7, 3 fraction bits, no infinities, S.1111.111 the NaN;
// fmt 1: e5m2, bias 15, 2 fraction bits, IEEE's shape), exactly as a double.
PTX_D double ptx_fp8_to_d(ptx_u32 v, int fmt) {
    int mb = fmt ? 2 : 3, bias = fmt ? 15 : 7;
    ptx_u32 emax = fmt ? 31u : 15u;
    ptx_u32 s = (v >> 7) & 1u, e = (v >> mb) & emax, f = v & ((1u << mb) - 1u);
    if (fmt == 0 && (v & 0x7fu) == 0x7fu) return ptx_f64_of(0x7ff8000000000000ull);
    if (fmt == 1 && e == emax) return f ? ptx_f64_of(0x7ff8000000000000ull) : ptx_inf_d(s ? -1 : 1);
    double m = e == 0 ? ldexp((double)f, 1 - bias - mb) : ldexp((double)(f | (1u << mb)), (int)e - bias - mb);
    return s ? -m : m;
}
// An 8-bit float to f16, exact (every e4m3 and e5m2 value is an f16); a NaN gives the canonical
// 0x7fff (as cuda_fp8 documents its conversion); .relu gives +0 for a negative value.
PTX_D ptx_u16 ptx_fp8_to_h(ptx_u32 v, int fmt, bool relu) {
    double d = ptx_fp8_to_d(v, fmt);
    if (d != d) return (ptx_u16)0x7fffu;
    if (relu && d < 0.0) return (ptx_u16)0u;
    return ptx_round_h(d, 0.0, 0, 0);
}
// A double to an 8-bit float, to nearest even, .satfinite: beyond the largest finite (448 in
// e4m3, 57344 in e5m2), infinities included, the largest finite of the sign. A NaN gives the
// NaN (e4m3 0x7f, e5m2 0x7e and the top two fraction bits; the sign kept; .relu: 0x7f), a
// negative value with .relu +0.
PTX_D ptx_u32 ptx_d_to_fp8(double x, int fmt, bool relu) {
    int mb = fmt ? 2 : 3, bias = fmt ? 15 : 7;
    ptx_u32 s = (ptx_u32)(ptx_bits64(x) >> 63) << 7;
    ptx_u32 maxbits = fmt ? 0x7bu : 0x7eu;
    if (x != x) {
        if (relu) return 0x7fu;
        return fmt ? (s | 0x7eu | (ptx_u32)((ptx_bits64(x) >> 50) & 3u)) : (s | 0x7fu);
    }
    if (relu && x < 0.0) return 0u;
    double a = x < 0.0 ? -x : x, maxf = fmt ? 57344.0 : 448.0;
    if (!ptx_finite_d(a)) return s | maxbits;
    int e = 0;
    (void)frexp(a, &e);
    int lead = e - 1;  // a's leading bit, 2^lead (any value below the normals is quantized alike)
    if (a == 0.0 || lead < 1 - bias) lead = 1 - bias;
    double q = ldexp(1.0, lead - mb);
    double r = rint(a / q) * q;  // exact: a / q is a scaling by a power of two
    if (r > maxf) return s | maxbits;
    if (r == 0.0) return s;
    (void)frexp(r, &e);
    int l2 = e - 1;
    if (l2 < 1 - bias) return s | (ptx_u32)(r / ldexp(1.0, 1 - bias - mb));
    ptx_u32 f = (ptx_u32)(r / ldexp(1.0, l2 - mb)) - (1u << mb);
    return s | ((ptx_u32)(l2 + bias) << mb) | f;
}
// dp4a: the four byte products of a and b (each byte signed where its operand is .s32) added
// to c, wrapping at 32 bits.
PTX_D ptx_u32 ptx_dp4a(ptx_u32 a, ptx_u32 b, ptx_u32 c, bool sa, bool sb) {
    ptx_u32 r = c;
    for (int k = 0; k < 4; ++k) {
        int x = (int)((a >> (8 * k)) & 0xffu), y = (int)((b >> (8 * k)) & 0xffu);
        if (sa && x > 127) x -= 256;
        if (sb && y > 127) y -= 256;
        r += (ptx_u32)(x * y);
    }
    return r;
}
// dp2a: a's two 16-bit halves times b's bytes 0 and 1 (.lo) or 2 and 3 (.hi), added to c.
PTX_D ptx_u32 ptx_dp2a(ptx_u32 a, ptx_u32 b, ptx_u32 c, bool sa, bool sb, bool hi) {
    ptx_u32 r = c;
    for (int k = 0; k < 2; ++k) {
        int x = (int)((a >> (16 * k)) & 0xffffu), y = (int)((b >> (8 * (k + (hi ? 2 : 0)))) & 0xffu);
        if (sa && x > 32767) x -= 65536;
        if (sb && y > 127) y -= 256;
        r += (ptx_u32)(x * y);
    }
    return r;
}
// trap (and a failed assert()): the kernel stops with an error.
#ifdef PTX_AMD
PTX_D void ptx_trap() { __builtin_trap(); }
#else
PTX_D void ptx_trap() { __trap(); }
#endif
// Packed pairs (.f16x2, .bf16x2): the operation on each half.
PTX_D ptx_u16 ptx_lo(ptx_u32 v) { return (ptx_u16)v; }
PTX_D ptx_u16 ptx_hi(ptx_u32 v) { return (ptx_u16)(v >> 16); }
PTX_D ptx_u32 ptx_pack(ptx_u16 lo, ptx_u16 hi) { return (ptx_u32)lo | ((ptx_u32)hi << 16); }
// atom.add.noftz on a half and on a pair of halves: a compare-and-swap loop on the aligned
// 32-bit word that holds it (a half is 2-aligned); the sum rounded to nearest, subnormals
// kept; the old value returned.
PTX_D ptx_u32 ptx_atom_add_h_word(ptx_u64 p, ptx_u32 v, int fmt, bool pair) {
    unsigned int* w = (unsigned int*)(p & ~(ptx_u64)3);
    int sh = (!pair && (p & 2)) ? 16 : 0;
    ptx_u32 old = *(volatile unsigned int*)w, assumed;
    do {
        assumed = old;
        ptx_u32 nv;
        if (pair) {
            nv = ptx_pack(ptx_h_add(ptx_lo(assumed), ptx_lo(v), 0, fmt, 0), ptx_h_add(ptx_hi(assumed), ptx_hi(v), 0, fmt, 0));
        } else {
            ptx_u16 h = (ptx_u16)(assumed >> sh);
            nv = (assumed & ~(0xffffu << sh)) | ((ptx_u32)ptx_h_add(h, (ptx_u16)v, 0, fmt, 0) << sh);
        }
        old = atomicCAS(w, assumed, nv);
    } while (old != assumed);
    return pair ? assumed : (ptx_u32)(ptx_u16)(assumed >> sh);
}
// An integer (64 bits at most), exactly as two doubles, to a half.
PTX_D ptx_u16 ptx_s64_to_h(ptx_s64 v, int m, int fmt) {
    double hi = (double)(v >> 32) * 4294967296.0, lo = (double)(ptx_u32)v;
    double h = ptx_dadd(hi, lo);
    return ptx_round_h(h, ptx_two_sum_err(hi, lo, h), m, fmt);
}
PTX_D ptx_u16 ptx_u64_to_h(ptx_u64 v, int m, int fmt) {
    double hi = (double)(ptx_u32)(v >> 32) * 4294967296.0, lo = (double)(ptx_u32)v;
    double h = ptx_dadd(hi, lo);
    return ptx_round_h(h, ptx_two_sum_err(hi, lo, h), m, fmt);
}

// Shared-window addresses (PTX's 32-bit .shared addresses) and generic ones.
#ifdef PTX_AMD
typedef __attribute__((address_space(3))) unsigned char ptx_lds_byte;
PTX_D ptx_u64 ptx_to_shared(ptx_u64 g) { return (ptx_u32)(__SIZE_TYPE__)(ptx_lds_byte*)(unsigned char*)g; }
PTX_D ptx_u64 ptx_from_shared(ptx_u64 s) { return (ptx_u64)(unsigned char*)(ptx_lds_byte*)(__SIZE_TYPE__)(ptx_u32)s; }
#else
PTX_D ptx_u64 ptx_to_shared(ptx_u64 g) { return (ptx_u64)__cvta_generic_to_shared((void*)g); }
PTX_D ptx_u64 ptx_from_shared(ptx_u64 s) { return (ptx_u64)__cvta_shared_to_generic((unsigned long long)(ptx_u32)s); }
#endif
// ---- Warps: CUDA's 32-lane warps on every wavefront width ----
// A PTX warp is 32 lanes. On NVIDIA (NVRTC) and on AMD's wave32 (RDNA) a warp is the hardware's;
// on AMD's wave64 (CDNA) each wavefront holds two warps, its lanes 0-31 and 32-63 (a block's
// threads fill wavefronts in order, so warp w of a block is half w & 1 of wavefront w >> 1).
// Every warp-level operation is confined to the caller's half: lane = hardware lane & 31,
// masks are 32 bits with bit i for lane i of the caller's warp, shuffles never leave the half.
#ifdef PTX_AMD
#if defined(__AMDGCN_WAVEFRONT_SIZE)
#define PTX_WAVE __AMDGCN_WAVEFRONT_SIZE
#else
#define PTX_WAVE 0 // unknown to the preprocessor: asked of the compiler below
#endif
// The hardware lane (0..wave size - 1).
PTX_D ptx_u32 ptx_hw_lane() {
#if PTX_WAVE == 32
    return __builtin_amdgcn_mbcnt_lo(~0u, 0u);
#else
    return __builtin_amdgcn_mbcnt_hi(~0u, __builtin_amdgcn_mbcnt_lo(~0u, 0u));
#endif
}
// The first hardware lane of the caller's warp: 0, or 32 in the upper half of a wave64.
PTX_D ptx_u32 ptx_w_half() {
#if PTX_WAVE == 32
    return 0u;
#elif PTX_WAVE == 64
    return ptx_hw_lane() & 32u;
#else
    return __builtin_amdgcn_wavefrontsize() == 64 ? (ptx_hw_lane() & 32u) : 0u;
#endif
}
// The ballot of p over the active lanes of the caller's warp (bit i: lane i).
// (hipRTC 5.x's clang has no ballot builtin: there the compare-across-lanes builtin, which
// gives the same mask, stands in.)
PTX_D ptx_u32 ptx_w_ballot(bool p) {
#if PTX_WAVE == 32 && __has_builtin(__builtin_amdgcn_ballot_w32)
    return __builtin_amdgcn_ballot_w32(p);
#elif PTX_WAVE == 32
    return (ptx_u32)__builtin_amdgcn_uicmp((ptx_u32)p, 0u, 33); // 33: ICMP_NE
#elif __has_builtin(__builtin_amdgcn_ballot_w64)
    return (ptx_u32)(__builtin_amdgcn_ballot_w64(p) >> ptx_w_half());
#else
    return (ptx_u32)(__builtin_amdgcn_uicmp((ptx_u32)p, 0u, 33) >> ptx_w_half());
#endif
}
// The lanes of the caller's warp that execute this (exited, inactive and absent lanes: 0).
PTX_D ptx_u32 ptx_activemask() { return ptx_w_ballot(true); }
// v of lane `lane` (0..31) of the caller's warp; that lane must be active.
PTX_D ptx_u32 ptx_w_read(ptx_u32 v, ptx_u32 lane, ptx_u32 mask) {
    (void)mask;
    return (ptx_u32)__builtin_amdgcn_ds_bpermute((int)((ptx_w_half() | (lane & 31u)) << 2), (int)v);
}
PTX_D ptx_u32 ptx_laneid() { return ptx_hw_lane() & 31u; }
PTX_D void ptx_warp_sync(ptx_u32 mask) {
    // A wavefront's lanes run in lockstep: what is left is ordering memory among them.
    (void)mask;
    __builtin_amdgcn_fence(__ATOMIC_SEQ_CST, "workgroup");
    __builtin_amdgcn_wave_barrier();
}
#else
PTX_D ptx_u32 ptx_activemask() { return __activemask(); }
PTX_D ptx_u32 ptx_w_read(ptx_u32 v, ptx_u32 lane, ptx_u32 mask) { return __shfl_sync(mask, v, (int)lane); }
PTX_D ptx_u32 ptx_laneid() { return ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) & 31u; }
PTX_D void ptx_warp_sync(ptx_u32 mask) { __syncwarp(mask); }
#endif
PTX_D ptx_u32 ptx_warpid() { return ((threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x) >> 5; }
// %dynamic_smem_size: the launch's dynamic shared memory. On AMD, the dispatch packet's group
// segment size (the workgroup's whole LDS: static + dynamic; `hsa_kernel_dispatch_packet_t`'s
// u32 at byte 28) less the kernel's static LDS; on NVIDIA, the register itself.
#ifdef PTX_AMD
PTX_D ptx_u32 ptx_dynamic_smem_size() {
    const ptx_u32* packet = (const ptx_u32*)__builtin_amdgcn_dispatch_ptr();
    return packet[7] - (ptx_u32)__builtin_amdgcn_groupstaticsize();
}
#else
PTX_D ptx_u32 ptx_dynamic_smem_size() { ptx_u32 r; asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r)); return r; }
#endif
// bar.red: a block barrier that also reduces a predicate over the block (every thread of the
// block takes part, as PTX requires); one shared counter, cleared and read between barriers.
PTX_D ptx_u32 ptx_bar_red_popc(bool p) {
    __shared__ ptx_u32 ptx_red;
    ptx_u32 tid = (threadIdx.z * blockDim.y + threadIdx.y) * blockDim.x + threadIdx.x;
    if (tid == 0) ptx_red = 0;
    __syncthreads();
    if (p) atomicAdd(&ptx_red, 1u);
    __syncthreads();
    ptx_u32 r = ptx_red;
    __syncthreads();
    return r;
}
PTX_D bool ptx_bar_red_and(bool p) {
    return ptx_bar_red_popc(!p) == 0;
}
PTX_D bool ptx_bar_red_or(bool p) { return ptx_bar_red_popc(p) != 0; }
PTX_D ptx_u32 ptx_lanemask_eq() { return 1u << ptx_laneid(); }
PTX_D ptx_u32 ptx_lanemask_lt() { return (1u << ptx_laneid()) - 1u; }
PTX_D ptx_u32 ptx_lanemask_le() { return (2u << ptx_laneid()) - 1u; } // lane 31: 0 - 1, all ones
PTX_D ptx_u32 ptx_lanemask_gt() { return ~ptx_lanemask_le(); }
PTX_D ptx_u32 ptx_lanemask_ge() { return ~ptx_lanemask_lt(); }
PTX_D ptx_u32 ptx_ctz(ptx_u32 a) { ptx_u32 n = 0; while (n < 32u && !((a >> n) & 1u)) ++n; return n; }

// shfl (PTX ISA): mode 0 up, 1 down, 2 bfly, 3 idx; c = clamp (bits 0-4) | segment mask (8-12).
// The source lane j and the predicate are computed as the ISA writes them; an out-of-range
// source reads the caller's own value.
PTX_D ptx_u32 ptx_shfl(int mode, ptx_u32 a, ptx_u32 b, ptx_u32 c, ptx_u32 mask, bool& p) {
    int lane = (int)ptx_laneid(), bval = (int)(b & 31u), cval = (int)(c & 31u), seg = (int)((c >> 8) & 31u);
    int maxl = (lane & seg) | (cval & ~seg), minl = lane & seg, j;
    bool ok;
    if (mode == 0) { j = lane - bval; ok = j >= maxl; }
    else if (mode == 1) { j = lane + bval; ok = j <= maxl; }
    else if (mode == 2) { j = lane ^ bval; ok = j <= maxl; }
    else { j = minl | (bval & ~seg); ok = j <= maxl; }
    if (!ok) j = lane;
    p = ok;
    return ptx_w_read(a, (ptx_u32)j, mask);
}

// vote, ballot, match, redux: over the active lanes of the caller's warp that are in `mask`.
#ifdef PTX_AMD
PTX_D ptx_u32 ptx_ballot(bool a, ptx_u32 mask) { return ptx_w_ballot(a) & mask; }
PTX_D bool ptx_vote_all(bool a, ptx_u32 mask) { ptx_u32 w = ptx_activemask() & mask; return (ptx_w_ballot(a) & w) == w; }
PTX_D bool ptx_vote_any(bool a, ptx_u32 mask) { return (ptx_w_ballot(a) & mask) != 0; }
PTX_D bool ptx_vote_uni(bool a, ptx_u32 mask) { ptx_u32 w = ptx_activemask() & mask, b = ptx_w_ballot(a) & w; return b == 0 || b == w; }
#else
PTX_D ptx_u32 ptx_ballot(bool a, ptx_u32 mask) { return __ballot_sync(mask, a); }
PTX_D bool ptx_vote_all(bool a, ptx_u32 mask) { return __all_sync(mask, a) != 0; }
PTX_D bool ptx_vote_any(bool a, ptx_u32 mask) { return __any_sync(mask, a) != 0; }
PTX_D bool ptx_vote_uni(bool a, ptx_u32 mask) { return __uni_sync(mask, a) != 0; }
#endif
#if !defined(PTX_AMD) && __CUDA_ARCH__ >= 700
PTX_D ptx_u32 ptx_match_any_b32(ptx_u32 a, ptx_u32 mask) { return __match_any_sync(mask, a); }
PTX_D ptx_u32 ptx_match_any_b64(ptx_u64 a, ptx_u32 mask) { return __match_any_sync(mask, a); }
PTX_D ptx_u32 ptx_match_all_b32(ptx_u32 a, ptx_u32 mask, bool& p) { int q; ptx_u32 r = __match_all_sync(mask, a, &q); p = q != 0; return r; }
PTX_D ptx_u32 ptx_match_all_b64(ptx_u64 a, ptx_u32 mask, bool& p) { int q; ptx_u32 r = __match_all_sync(mask, a, &q); p = q != 0; return r; }
#else
PTX_D ptx_u64 ptx_w_read64(ptx_u64 v, ptx_u32 lane, ptx_u32 mask) {
    return ((ptx_u64)ptx_w_read((ptx_u32)(v >> 32), lane, mask) << 32) | ptx_w_read((ptx_u32)v, lane, mask);
}
// Lanes with equal values, one value at a time: `rem` is the same in every lane of a warp, so
// the warp runs the loop together.
PTX_D ptx_u32 ptx_match_any_b64(ptx_u64 a, ptx_u32 mask) {
    ptx_u32 rem = ptx_activemask() & mask, r = 0;
    while (rem != 0) {
        ptx_u64 v = ptx_w_read64(a, ptx_ctz(rem), rem);
        ptx_u32 eq = ptx_ballot(a == v, rem) & rem;
        if (a == v) r = eq;
        rem &= ~eq;
    }
    return r;
}
PTX_D ptx_u32 ptx_match_any_b32(ptx_u32 a, ptx_u32 mask) { return ptx_match_any_b64((ptx_u64)a, mask); }
PTX_D ptx_u32 ptx_match_all_b64(ptx_u64 a, ptx_u32 mask, bool& p) {
    ptx_u32 w = ptx_activemask() & mask;
    ptx_u64 v = ptx_w_read64(a, ptx_ctz(w), w);
    p = w != 0 && (ptx_ballot(a == v, w) & w) == w;
    return p ? w : 0u;
}
PTX_D ptx_u32 ptx_match_all_b32(ptx_u32 a, ptx_u32 mask, bool& p) { return ptx_match_all_b64((ptx_u64)a, mask, p); }
#endif
// redux: op 0 add, 1 min, 2 max, 3 and, 4 or, 5 xor; signed for min/max when sgn.
PTX_D ptx_u32 ptx_redux_op(int op, bool sgn, ptx_u32 x, ptx_u32 y) {
    switch (op) {
    case 0: return x + y;
    case 1: return sgn ? ((ptx_s32)x < (ptx_s32)y ? x : y) : (x < y ? x : y);
    case 2: return sgn ? ((ptx_s32)x > (ptx_s32)y ? x : y) : (x > y ? x : y);
    case 3: return x & y;
    case 4: return x | y;
    default: return x ^ y;
    }
}
#if !defined(PTX_AMD) && __CUDA_ARCH__ >= 800
PTX_D ptx_u32 ptx_redux(int op, bool sgn, ptx_u32 a, ptx_u32 mask) {
    switch (op) {
    case 0: return __reduce_add_sync(mask, a);
    case 1: return sgn ? (ptx_u32)__reduce_min_sync(mask, (int)a) : __reduce_min_sync(mask, a);
    case 2: return sgn ? (ptx_u32)__reduce_max_sync(mask, (int)a) : __reduce_max_sync(mask, a);
    case 3: return __reduce_and_sync(mask, a);
    case 4: return __reduce_or_sync(mask, a);
    default: return __reduce_xor_sync(mask, a);
    }
}
#else
// Every lane folds the members' values in lane order (a butterfly when the whole warp takes part).
PTX_D ptx_u32 ptx_redux(int op, bool sgn, ptx_u32 a, ptx_u32 mask) {
    ptx_u32 w = ptx_activemask() & mask;
    if (w == 0xffffffffu) {
        ptx_u32 r = a;
        for (ptx_u32 k = 16; k != 0; k >>= 1) r = ptx_redux_op(op, sgn, r, ptx_w_read(r, ptx_laneid() ^ k, w));
        return r;
    }
    ptx_u32 rem = w, r = 0;
    bool first = true;
    while (rem != 0) {
        ptx_u32 v = ptx_w_read(a, ptx_ctz(rem), w);
        r = first ? v : ptx_redux_op(op, sgn, r, v);
        first = false;
        rem &= rem - 1u;
    }
    return r;
}
#endif

// ---- ldmatrix, stmatrix, mma.sync: warp-wide matrix operations, emulated lane by lane ----
// The warp's lanes exchange what they hold by shuffles (ptx_w_read, so the code is the same on
// NVIDIA, wave32 and both warps of a wave64); every lane then reads, writes or computes its own
// part. Each instruction is .sync.aligned: the whole warp executes it together, so every lane
// takes part in every shuffle (the loops' trip counts are the same in every lane).
PTX_D ptx_u64 ptx_w_read_u64(ptx_u64 v, ptx_u32 lane) {
    return ((ptx_u64)ptx_w_read((ptx_u32)(v >> 32), lane, ~0u) << 32) | ptx_w_read((ptx_u32)v, lane, ~0u);
}
// ldmatrix.m8n8.{x1,x2,x4}{.trans}.b16 (p: the caller's row address, as a generic pointer):
// lanes 8i..8i+7 give the addresses of rows 0..7 of matrix i; lane l receives, of each matrix,
// row l >> 2, columns 2(l & 3) and 2(l & 3) + 1 (the lower column in the lower half); with
// .trans the same of the transposed matrix (column l >> 2, rows 2(l & 3) and 2(l & 3) + 1).
PTX_D void ptx_ldmatrix(int n, bool trans, ptx_u64 p, ptx_u32* d) {
    ptx_u32 lane = ptx_laneid();
    for (int i = 0; i < n; ++i) {
        if (!trans) {
            ptx_u64 row = ptx_w_read_u64(p, 8u * i + (lane >> 2));
            d[i] = *(const ptx_u32*)((const unsigned char*)row + 4u * (lane & 3u));
        } else {
            ptx_u32 v = 0;
            for (ptx_u32 j = 0; j < 2; ++j) {
                ptx_u64 row = ptx_w_read_u64(p, 8u * i + 2u * (lane & 3u) + j);
                v |= (ptx_u32)*(const ptx_u16*)((const unsigned char*)row + 2u * (lane >> 2)) << (16u * j);
            }
            d[i] = v;
        }
    }
}
// stmatrix.m8n8.{x1,x2,x4}{.trans}.b16: ldmatrix's inverse; each lane writes its own elements
// to the rows whose addresses their owners give.
PTX_D void ptx_stmatrix(int n, bool trans, ptx_u64 p, const ptx_u32* s) {
    ptx_u32 lane = ptx_laneid();
    for (int i = 0; i < n; ++i) {
        if (!trans) {
            ptx_u64 row = ptx_w_read_u64(p, 8u * i + (lane >> 2));
            *(ptx_u32*)((unsigned char*)row + 4u * (lane & 3u)) = s[i];
        } else {
            for (ptx_u32 j = 0; j < 2; ++j) {
                ptx_u64 row = ptx_w_read_u64(p, 8u * i + 2u * (lane & 3u) + j);
                *(ptx_u16*)((unsigned char*)row + 2u * (lane >> 2)) = (ptx_u16)(s[i] >> (16u * j));
            }
        }
    }
}
// mma.sync fragments, as the PTX ISA lays them out ("Matrix fragments for mma.m16n8k*"): with
// g = lane >> 2 and t = lane & 3, register r of lane 4g + q holds elements of A's row
// g + 8 (r & 1), columns KW (r >> 1) + E q ..+ E - 1 (E elements per 32-bit register, KW = 4E);
// register r of lane 4n + q holds B's column n, rows KW r + E q ..+ E - 1; the caller's results
// are D[g + 8h][2t + j], in d[2h + j]. Each lane gathers A's rows g and g + 8 (from the four
// lanes of its group) and B's columns 2t and 2t + 1 by shuffles, then computes its four results.
// Element kinds: 0 f16, 1 bf16, 2 tf32, 3 s8, 4 u8.
PTX_D double ptx_mma_elem(int kind, ptx_u32 w, int sub) {
    switch (kind) {
    case 0: return ptx_h2d((ptx_u16)(w >> (16 * sub)), 0, false);
    case 1: return ptx_h2d((ptx_u16)(w >> (16 * sub)), 1, false);
    case 2: return (double)ptx_f32_of(w & 0xffffe000u); // tf32: the low 13 bits are not its own
    case 3: return (double)(ptx_s8)(ptx_u8)(w >> (8 * sub));
    default: return (double)(ptx_u8)(w >> (8 * sub));
    }
}
// Results (dk): 0 f32; 1 f16 (c and d: two packed pairs); 2 s32, wrapping; 3 s32 .satfinite.
// Floats: the products are exact in f64 and summed in f64 in k order after c, then rounded once
// (f32: NaN results canonical; f16: ptx_round_h). The hardware's order and internal precision
// are not specified, so a result may differ from NVIDIA's by a few units of the last place of
// |c| + sum |a_k b_k|. Integers: exact in 64 bits, then wrapped or saturated, as NVIDIA's.
template <int K, int E, int NA, int NB>
PTX_D void ptx_mma_m16n8(int ak, int bk, int dk, const ptx_u32 (&a)[NA], const ptx_u32 (&b)[NB], const ptx_u32* c, ptx_u32* d) {
    const int KW = 4 * E;
    ptx_u32 lane = ptx_laneid(), g = lane >> 2, t = lane & 3u;
    ptx_u32 ga[4][NA], gb[2][4][NB];
    for (int r = 0; r < NA; ++r)
        for (ptx_u32 q = 0; q < 4; ++q) ga[q][r] = ptx_w_read(a[r], 4u * g + q, ~0u);
    for (ptx_u32 j = 0; j < 2; ++j)
        for (int r = 0; r < NB; ++r)
            for (ptx_u32 q = 0; q < 4; ++q) gb[j][q][r] = ptx_w_read(b[r], 4u * (2u * t + j) + q, ~0u);
    double f[4];
    for (int h = 0; h < 2; ++h)
        for (int j = 0; j < 2; ++j) {
            int o = 2 * h + j;
            if (dk >= 2) {
                ptx_s64 s = (ptx_s32)c[o];
                for (int k = 0; k < K; ++k)
                    s += (ptx_s64)ptx_mma_elem(ak, ga[(k % KW) / E][h + 2 * (k / KW)], k % E)
                        * (ptx_s64)ptx_mma_elem(bk, gb[j][(k % KW) / E][k / KW], k % E);
                if (dk == 3) s = s > 2147483647ll ? 2147483647ll : s < -2147483648ll ? -2147483648ll : s;
                d[o] = (ptx_u32)s;
                continue;
            }
            double s = dk == 1 ? ptx_h2d((ptx_u16)(c[h] >> (16 * j)), 0, false) : (double)ptx_f32_of(c[o]);
            for (int k = 0; k < K; ++k)
                s = ptx_dadd(s, ptx_dmul(ptx_mma_elem(ak, ga[(k % KW) / E][h + 2 * (k / KW)], k % E),
                                         ptx_mma_elem(bk, gb[j][(k % KW) / E][k / KW], k % E)));
            f[o] = s;
        }
    if (dk == 0)
        for (int o = 0; o < 4; ++o) d[o] = ptx_bits32(ptx_cnan_f((float)f[o]));
    else if (dk == 1)
        for (int h = 0; h < 2; ++h) d[h] = ptx_pack(ptx_round_h(f[2 * h], 0.0, 0, 0), ptx_round_h(f[2 * h + 1], 0.0, 0, 0));
}
// mma.m8n8k4.f64: lane 4g + t holds A[g][t] and B[t][g]; the caller's results are
// D[g][2t + j]: an fma per k, in k order (a, b, c, d: f64 as two 32-bit words, low first).
PTX_D void ptx_mma_m8n8k4_f64(const ptx_u32* a, const ptx_u32* b, const ptx_u32* c, ptx_u32* d) {
    ptx_u32 lane = ptx_laneid(), g = lane >> 2, t = lane & 3u;
    ptx_u64 av = ((ptx_u64)a[1] << 32) | a[0], bv = ((ptx_u64)b[1] << 32) | b[0];
    double ak[4], bk[2][4];
    for (ptx_u32 k = 0; k < 4; ++k) ak[k] = ptx_f64_of(ptx_w_read_u64(av, 4u * g + k));
    for (ptx_u32 j = 0; j < 2; ++j)
        for (ptx_u32 k = 0; k < 4; ++k) bk[j][k] = ptx_f64_of(ptx_w_read_u64(bv, 4u * (2u * t + j) + k));
    for (int j = 0; j < 2; ++j) {
        double s = ptx_f64_of(((ptx_u64)c[2 * j + 1] << 32) | c[2 * j]);
        for (int k = 0; k < 4; ++k) s = ptx_dfma(ak[k], bk[j][k], s);
        ptx_u64 r = ptx_bits64(ptx_cnan_d(s));
        d[2 * j] = (ptx_u32)r;
        d[2 * j + 1] = (ptx_u32)(r >> 32);
    }
}

// Atomics the vendors' headers do not share.
PTX_D ptx_s64 ptx_atom_min_s64(ptx_s64* p, ptx_s64 v) {
    ptx_u64* q = (ptx_u64*)p;
    ptx_u64 old = *(volatile ptx_u64*)q, seen;
    while ((ptx_s64)old > v && (seen = atomicCAS(q, old, (ptx_u64)v)) != old) old = seen;
    return (ptx_s64)old;
}
PTX_D ptx_s64 ptx_atom_max_s64(ptx_s64* p, ptx_s64 v) {
    ptx_u64* q = (ptx_u64*)p;
    ptx_u64 old = *(volatile ptx_u64*)q, seen;
    while ((ptx_s64)old < v && (seen = atomicCAS(q, old, (ptx_u64)v)) != old) old = seen;
    return (ptx_s64)old;
}

// Textures and surfaces through their objects (cudaTextureObject_t, cudaSurfaceObject_t: a
// 64-bit handle in a register), mapped onto the texture and surface object functions HIP and
// CUDA share by name (tex2D<T>, surf2Dread, ...), so one translation serves hipRTC and NVRTC.
// AMD's compute GPUs without image instructions (CDNA2/3: gfx90a, gfx94x, gfx950) cannot
// sample at all, and hipRTC 5.2.3 aborts the process when asked to compile an image
// instruction for them: there every texture and surface instruction is a trap instead (the
// kernel stops with an error if it reaches one; the module's other kernels run). Only for a
// device compiler (hipRTC defines __HIP__, NVRTC __CUDACC__): the host simulations of the
// header's AMD branch (rtc/tests) have no vector types and no images.
#if defined(__HIP__) || defined(__CUDACC__)
#ifdef PTX_AMD
#if defined(__gfx90a__) || defined(__gfx940__) || defined(__gfx941__) || defined(__gfx942__) || defined(__gfx950__)
#define PTX_NO_IMAGES 1
#elif defined(__HIP_NO_IMAGE_SUPPORT)
#if (__HIP_NO_IMAGE_SUPPORT + 0)
#define PTX_NO_IMAGES 1
#endif
#endif
#endif
#ifdef PTX_NO_IMAGES
#define PTX_IMG(T, f, args) (ptx_trap(), T())
#define PTX_SULD(W, N, out, f, mode, ...) do { ptx_trap(); for (int k_ = 0; k_ < N; ++k_) (out)[k_] = 0; } while (0)
#define PTX_SUST(W, N, in, f, mode, ...) ptx_trap()
#else
#define PTX_IMG(T, f, args) f args
#ifdef PTX_AMD
#define PTX_TEXOBJ(h) ((hipTextureObject_t)(h))
#define PTX_SURFOBJ(h) ((hipSurfaceObject_t)(h))
// HIP's surface functions take no boundary mode (HIP 6.x has none; 5.x's parameter is
// ignored): AMD's image hardware reads zero outside the surface and drops the write, which is
// `.zero`; `.trap` accesses inside the surface are the same, outside they do not trap.
#define PTX_SU_CALL(f, v, mode, ...) f(v, __VA_ARGS__)
// HIP's surf*read/surf*write convert each channel with static_cast to and from the float4 its
// image load returns; for float that is the identity, so the channels travel as floats and
// their dwords are the element's bits: one dword per channel of 32 bits or fewer (the image
// hardware zero-extends 8- and 16-bit channels), two per 64-bit element (a two-channel 32-bit
// surface).
template <int D> struct ptx_su_f;
template <> struct ptx_su_f<1> { typedef float type; };
template <> struct ptx_su_f<2> { typedef float2 type; };
template <> struct ptx_su_f<4> { typedef float4 type; };
template <int W, int N> struct ptx_su { typedef typename ptx_su_f<N * (W == 8 ? 2 : 1)>::type type; };
template <int W, int N, class V> PTX_D void ptx_su_get(const V& v, ptx_u64* o) {
    ptx_u32 d[4] = {0, 0, 0, 0};
    __builtin_memcpy(d, &v, sizeof(V));
    for (int k = 0; k < N; ++k)
        o[k] = W == 8 ? ((ptx_u64)d[2 * k + 1] << 32) | d[2 * k] : (ptx_u64)(d[k] & (0xffffffffu >> (8 * (4 - (W < 4 ? W : 4)))));
}
template <int W, int N, class V> PTX_D void ptx_su_put(V& v, const ptx_u64* in) {
    ptx_u32 d[4] = {0, 0, 0, 0};
    for (int k = 0; k < N; ++k) {
        if (W == 8) { d[2 * k] = (ptx_u32)in[k]; d[2 * k + 1] = (ptx_u32)(in[k] >> 32); }
        else d[k] = (ptx_u32)in[k] & (0xffffffffu >> (8 * (4 - (W < 4 ? W : 4))));
    }
    __builtin_memcpy(&v, d, sizeof(V));
}
#else
#define PTX_TEXOBJ(h) ((cudaTextureObject_t)(h))
#define PTX_SURFOBJ(h) ((cudaSurfaceObject_t)(h))
#define PTX_SU_CALL(f, v, mode, ...) f(v, __VA_ARGS__, mode)
// CUDA's own element types, so NVRTC emits the very suld/sust the PTX had (b8 as unsigned
// char, v2.b32 as uint2, ...); their channels are packed, W bytes each.
template <int W, int N> struct ptx_su;
template <> struct ptx_su<1, 1> { typedef unsigned char type; };
template <> struct ptx_su<1, 2> { typedef uchar2 type; };
template <> struct ptx_su<1, 4> { typedef uchar4 type; };
template <> struct ptx_su<2, 1> { typedef unsigned short type; };
template <> struct ptx_su<2, 2> { typedef ushort2 type; };
template <> struct ptx_su<2, 4> { typedef ushort4 type; };
template <> struct ptx_su<4, 1> { typedef unsigned int type; };
template <> struct ptx_su<4, 2> { typedef uint2 type; };
template <> struct ptx_su<4, 4> { typedef uint4 type; };
template <> struct ptx_su<8, 1> { typedef unsigned long long type; };
template <> struct ptx_su<8, 2> { typedef ulonglong2 type; };
template <int W, int N, class V> PTX_D void ptx_su_get(const V& v, ptx_u64* o) {
    for (int k = 0; k < N; ++k) {
        const unsigned char* p = (const unsigned char*)&v + k * W;
        o[k] = 0;
        for (int j = 0; j < W; ++j) o[k] |= (ptx_u64)p[j] << (8 * j);
    }
}
template <int W, int N, class V> PTX_D void ptx_su_put(V& v, const ptx_u64* in) {
    for (int k = 0; k < N; ++k)
        for (int j = 0; j < W; ++j) ((unsigned char*)&v)[k * W + j] = (unsigned char)(in[k] >> (8 * j));
}
#endif
// `mode` is cudaBoundaryModeZero or cudaBoundaryModeTrap (a name only NVRTC sees).
#define PTX_SULD(W, N, out, f, mode, ...) do { ptx_su<W, N>::type v_; PTX_SU_CALL(f, &v_, mode, __VA_ARGS__); ptx_su_get<W, N>(v_, out); } while (0)
#define PTX_SUST(W, N, in, f, mode, ...) do { ptx_su<W, N>::type v_; ptx_su_put<W, N>(v_, in); PTX_SU_CALL(f, v_, mode, __VA_ARGS__); } while (0)
#endif
#endif
"#;

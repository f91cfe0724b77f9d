// What an H200 answered (tests/ptx_conformance.rs on NVIDIA's driver, 2026-11-29) where the
// translation first differed, checked against the support header's helpers on the host
// (rtc/tests/ptx_h200_host.rs prepends the header): remainders by zero, 64-bit bit fields with
// positions and lengths past 255, .ftz results that are tiny after rounding (f32 and f16),
// and f64 NaNs narrowed to f32 and bf16. Prints each mismatch; exits 1 if there is one.
#include <cstdio>
#include <cstdint>
#include <cstring>

static int bad = 0;
#define CHECK(what, got, want) do { unsigned long long g_ = (unsigned long long)(got), w_ = (unsigned long long)(want); \
    if (g_ != w_) { printf("%s: got %#llx, the H200 %#llx\n", what, g_, w_); bad++; } } while (0)
static float ff(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static double dd(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static uint64_t db(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
// mul/div.{rnd}.ftz.f32 as the translation emits them.
static uint32_t mul_ftz(uint32_t a, uint32_t b, int m) { float x = ff(a), y = ff(b); return fb(ptx_ftz_tiny_f(ptx_mul_f(x, y, m), (double)x * (double)y, m)); }
static uint32_t fma_ftz(uint32_t a, uint32_t b, uint32_t c, int m) { float x = ptx_ftz(ff(a)), y = ptx_ftz(ff(b)), z = ptx_ftz(ff(c)); return fb(ptx_ftz_tiny_f(ptx_fma_f(x, y, z, m), fma((double)x, (double)y, (double)z), m)); }
static uint32_t div_ftz(uint32_t a, uint32_t b, int m) { float x = ff(a), y = ff(b); return fb(ptx_ftz_tiny_f(ptx_div_f(x, y, m), (double)x / (double)y, m)); }

int main() {
    // rem by zero: all ones, every width (the 16-bit forms go through the 32-bit helpers).
    CHECK("rem.u32 0x1 % 0", ptx_rem_u32(1, 0), 0xffffffffu);
    CHECK("rem.s32 0x80000000 % 0", (uint32_t)ptx_rem_s32((int32_t)0x80000000, 0), 0xffffffffu);
    CHECK("rem.u64 2 % 0", ptx_rem_u64(2, 0), ~0ull);
    CHECK("rem.s64 0x7fffffffffffffff % 0", (uint64_t)ptx_rem_s64(0x7fffffffffffffffll, 0), ~0ull);
    CHECK("rem.s16 0x8001 % 0", (uint16_t)ptx_rem_s32((int16_t)0x8001, 0), 0xffffu);
    // bfe.{u,s}64 d, a, pos, len and bfi.b64 d, a, b, pos, pos ^ 37.
    CHECK("bfe.u64 all ones, 0, 0x80000000", ptx_bfe(~0ull, 0, 0x80000000u, 64, false), ~0ull);
    CHECK("bfe.u64 0x8000000000000001, 0, 0x101", ptx_bfe(0x8000000000000001ull, 0, 0x101, 64, false), 0x8000000000000001ull);
    CHECK("bfe.u64 0x80000000, 1, 0x100", ptx_bfe(0x80000000ull, 1, 0x100, 64, false), 0x40000000ull);
    CHECK("bfe.u64 0xffe0000000000000, 1, 0x101", ptx_bfe(0xffe0000000000000ull, 1, 0x101, 64, false), 0x7ff0000000000000ull);
    CHECK("bfe.s64 0xffe0000000000000, 1, 0x101", ptx_bfe(0xffe0000000000000ull, 1, 0x101, 64, true), 0xfff0000000000000ull);
    CHECK("bfe.s64 0x8000000000000001, 0, 0x101", ptx_bfe(0x8000000000000001ull, 0, 0x101, 64, true), 0x8000000000000001ull);
    CHECK("bfi.b64 all ones into 0 at 0x80000000", ptx_bfi(~0ull, 0, 0x80000000u, 0x80000000u ^ 37u, 64), 0);
    CHECK("bfi.b64 at 0x101", ptx_bfi(0x8000000000000001ull, 0, 0x101, 0x101 ^ 37, 64), 0);
    CHECK("bfi.b64 at 0x100", ptx_bfi(0x80000000ull, 1, 0x100, 0x100 ^ 37, 64), 1);
    // .ftz: tiny after rounding to the format's precision with an unbounded exponent.
    CHECK("mul.ftz.f32 0x3f7fffff * 0x00800000", mul_ftz(0x3f7fffffu, 0x00800000u, 0), 0);
    CHECK("mul.ftz.f32 0x3f7fffff * 0x80800000", mul_ftz(0x3f7fffffu, 0x80800000u, 0), 0x80000000u);
    CHECK("mul.rp.ftz.f32 0x3f7fffff * 0x00800000", mul_ftz(0x3f7fffffu, 0x00800000u, 3), 0);
    CHECK("mul.rm.ftz.f32 0x3f7fffff * 0x80800000", mul_ftz(0x3f7fffffu, 0x80800000u, 2), 0x80000000u);
    // The H200's answers (2026-11-29, conformance suite): .sat after the flush makes -0 +0; an
    // exact zero keeps the rounding mode's sign (rounding down, 0 + -0 is -0).
    CHECK("mul.rn.ftz.sat.f32 -0 * 0", fb(ptx_sat_f(ff(mul_ftz(0x80000000u, 0, 0)))), 0);
    CHECK("mul.rn.ftz.sat.f32 -1 * 0", fb(ptx_sat_f(ff(mul_ftz(0xbf800000u, 0, 0)))), 0);
    CHECK("fma.rn.ftz.sat.f32 0, -0, -0", fb(ptx_sat_f(ff(fma_ftz(0, 0x80000000u, 0x80000000u, 0)))), 0);
    CHECK("fma.rm.ftz.f32 0x3f800001, 0, -0", fma_ftz(0x3f800001u, 0, 0x80000000u, 2), 0x80000000u);
    CHECK("fma.rm.ftz.f32 0x40490fdb, 0, -denormal", fma_ftz(0x40490fdbu, 0, 0x80000001u, 2), 0x80000000u);
    CHECK("fma.rm.ftz.f32 1, -0, +denormal", fma_ftz(0x3f800000u, 0x80000000u, 1, 2), 0x80000000u);
    CHECK("fma.rn.ftz.f32 1, -0, +0", fma_ftz(0x3f800000u, 0x80000000u, 0, 0), 0);
    CHECK("div.rm.ftz.f32 0x80800000 / 0x3f800001", div_ftz(0x80800000u, 0x3f800001u, 2), 0x80000000u);
    CHECK("div.rp.ftz.f32 0x00800000 / 0x3f800001", div_ftz(0x00800000u, 0x3f800001u, 3), 0);
    CHECK("mul.ftz.f32 0x00800000 * 1 (normal)", mul_ftz(0x00800000u, 0x3f800000u, 0), 0x00800000u);
    CHECK("mul.ftz.f16 0x3bff * 0x0400", ptx_h_mul(0x3bff, 0x0400, 0, 0, 1), 0);
    CHECK("mul.ftz.f16 0x3bff * 0x8400", ptx_h_mul(0x3bff, 0x8400, 0, 0, 1), 0x8000);
    CHECK("mul.ftz.sat.f16 0x3bff * 0x0400", ptx_h_mul(0x3bff, 0x0400, 0, 0, 3), 0);
    CHECK("fma.rn.ftz.f16 0x3bff, 0x0400, 0x0200", ptx_h_fma(0x3bff, 0x0400, 0x0200, 0, 0, 1), 0);
    CHECK("fma.rn.ftz.f16 0x8400, 0x0400, 0x0400", ptx_h_fma(0x8400, 0x0400, 0x0400, 0, 0, 1), 0x0400);
    // f64 NaNs narrowed: the sign, quieted, the top of the payload.
    CHECK("cvt.f32.f64 0x7ff8000000000000", fb(ptx_f64_nan_to_f(dd(0x7ff8000000000000ull))), 0x7fc00000u);
    CHECK("cvt.f32.f64 0xfff8000000000000", fb(ptx_f64_nan_to_f(dd(0xfff8000000000000ull))), 0xffc00000u);
    CHECK("cvt.f32.f64 0x7ff4000000000001", fb(ptx_f64_nan_to_f(dd(0x7ff4000000000001ull))), 0x7fe00000u);
    CHECK("cvt.f32.f64 0x7ff8123456789abc", fb(ptx_f64_nan_to_f(dd(0x7ff8123456789abcull))), 0x7fc091a2u);
    CHECK("cvt.f32.f64 0xfff69a5603540758", fb(ptx_f64_nan_to_f(dd(0xfff69a5603540758ull))), 0xfff4d2b0u);
    CHECK("cvt.bf16.f64 0xfff8000000000000", ptx_f64_nan_to_bf(dd(0xfff8000000000000ull)), 0xffc0);
    CHECK("cvt.bf16.f64 0x7ff4000000000001", ptx_f64_nan_to_bf(dd(0x7ff4000000000001ull)), 0x7fe0);
    CHECK("cvt.bf16.f64 0x7ff8123456789abc", ptx_f64_nan_to_bf(dd(0x7ff8123456789abcull)), 0x7fc0);
    // cvt.ftz.f64.f32 of a NaN: the canonical f32 NaN, widened.
    CHECK("cvt.ftz.f64.f32 0xff810203", db((double)ptx_cnan_f(ptx_ftz(ff(0xff810203u)))), 0x7fffffffe0000000ull);
    // rcp.approx.ftz.f64: a subnormal input is a zero (so the result infinite), a subnormal
    // result a zero.
    CHECK("rcp.approx.ftz.f64 0x000fffffffffffff", db(ptx_ftz_d(ptx_rcp_d(ptx_ftz_d(dd(0x000fffffffffffffull)), 0))), 0x7ff0000000000000ull);
    CHECK("rcp.approx.ftz.f64 0x7fefffffffffffff", db(ptx_ftz_d(ptx_rcp_d(ptx_ftz_d(dd(0x7fefffffffffffffull)), 0))), 0);
    printf("%d mismatches\n", bad);
    return bad != 0;
}

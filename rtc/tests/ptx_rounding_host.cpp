// The PTX support header's rounding helpers against the host FPU (IEEE 754 with fesetround),
// on the host: rtc/tests/ptx_rounding_host.rs compiles this with the support header prepended
// (the NVRTC branch, its intrinsics shimmed by plain round-to-nearest operations) and runs it.
// Prints each mismatch; exits 1 if there is one.
#include <cfenv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>

static const int MODES[4] = {FE_TONEAREST, FE_TOWARDZERO, FE_DOWNWARD, FE_UPWARD};
static uint64_t seed = 0x9e3779b97f4a7c15ull;
static uint64_t rnd() { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed; }
static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
static uint64_t db(double f) { uint64_t u; memcpy(&u, &f, 8); return u; }
static float ff(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static double dd(uint64_t u) { double f; memcpy(&f, &u, 8); return f; }
static int bad = 0;
static bool same_f(float a, float b) { return (a != a && b != b) || fb(a) == fb(b); }
static bool same_d(double a, double b) { return (a != a && b != b) || db(a) == db(b); }

static float edge_f(int k) {
    static const uint32_t E[] = {0, 0x80000000u, 1, 0x80000001u, 0x007fffffu, 0x00800000u, 0x7f7fffffu,
        0xff7fffffu, 0x7f800000u, 0xff800000u, 0x3f800000u, 0xbf800000u, 0x3f800001u, 0x4b000001u,
        0x33800000u, 0x34000000u, 0x7fc00000u};
    return ff(E[k % (sizeof E / sizeof E[0])]);
}
static float any_f() {
    uint64_t r = rnd();
    if (r % 5 == 0) return edge_f((int)(r >> 8));
    if (r % 5 == 1) return ff((uint32_t)(r >> 16) & 0x80ffffffu | 0x3f000000u); // near 1
    return ff((uint32_t)(r >> 20));
}
static double any_d() {
    uint64_t r = rnd();
    if (r % 4 == 0) return (double)any_f();
    if (r % 4 == 1) return dd((r >> 3) & 0x800fffffffffffffull | 0x3ff0000000000000ull);
    return dd(rnd());
}

#define CHECK_F(name, got, want, ...) if (!same_f(got, want)) { if (bad++ < 20) printf(name " mode %d: got %08x want %08x\n", m, fb(got), fb(want)); }
#define CHECK_D(name, got, want) if (!same_d(got, want)) { if (bad++ < 20) printf(name " mode %d: got %016llx want %016llx\n", m, (unsigned long long)db(got), (unsigned long long)db(want)); }

int main() {
    for (int i = 0; i < 300000; ++i) {
        volatile float a = any_f(), b = any_f(), c = any_f();
        volatile double x = any_d(), y = any_d();
        volatile int64_t s = (int64_t)rnd() >> (rnd() % 64);
        volatile uint64_t u = rnd() >> (rnd() % 64);
        for (int m = 1; m < 4; ++m) {
            fesetround(MODES[m]);
            volatile float add = a + b, sub = a - b, mul = a * b, div = a / b, sq = sqrtf(a), rcp = 1.0f / a;
            volatile float fm = fmaf(a, b, c), cvf = (float)x, cs = (float)s, cu = (float)u;
            volatile double dadd = x + y, cd = (double)s, cdu = (double)u;
            volatile double dmul = x * y, ddiv = x / y, dsq = sqrt(x), drcp = 1.0 / x;
            volatile double tx = x * 0x1p-1000, dmt = tx * y, ddt = tx / y, dst = sqrt(tx);
            fesetround(FE_TONEAREST);
            CHECK_F("add", ptx_add_f(a, b, m), add);
            CHECK_F("sub", ptx_sub_f(a, b, m), sub);
            CHECK_F("mul", ptx_mul_f(a, b, m), mul);
            CHECK_F("div", ptx_div_f(a, b, m), div);
            CHECK_F("sqrt", ptx_sqrt_f(a, m), sq);
            CHECK_F("rcp", ptx_rcp_f(a, m), rcp);
            CHECK_F("fma", ptx_fma_f(a, b, c, m), fm);
            CHECK_F("cvt.f32.f64", ptx_round_f32(x, 0.0, m), cvf);
            CHECK_F("cvt.f32.s64", ptx_s64_to_f(s, m), cs);
            CHECK_F("cvt.f32.u64", ptx_u64_to_f(u, m), cu);
            CHECK_D("add.f64", ptx_add_d(x, y, m), dadd);
            CHECK_D("cvt.f64.s64", ptx_s64_to_d(s, m), cd);
            CHECK_D("mul.f64", ptx_mul_d(x, y, m), dmul);
            CHECK_D("div.f64", ptx_div_d(x, y, m), ddiv);
            CHECK_D("sqrt.f64", ptx_sqrt_d(x, m), dsq);
            CHECK_D("rcp.f64", ptx_rcp_d(x, m), drcp);
            CHECK_D("mul.f64 tiny", ptx_mul_d(tx, y, m), dmt);
            CHECK_D("div.f64 tiny", ptx_div_d(tx, y, m), ddt);
            CHECK_D("sqrt.f64 tiny", ptx_sqrt_d(tx, m), dst);
            CHECK_D("cvt.f64.u64", ptx_u64_to_d(u, m), cdu);
        }
        int m = 0;
        volatile float cs0 = (float)s;
        CHECK_F("cvt.rn.f32.s64", ptx_s64_to_f(s, 0), cs0);
        volatile float cvf0 = (float)x;
        CHECK_F("cvt.rn.f32.f64", ptx_round_f32(x, 0.0, 0), cvf0);
    }
    printf("%d mismatches\n", bad);
    return bad != 0;
}

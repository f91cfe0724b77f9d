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

// Half precision (f16: fmt 0, bf16: fmt 1): the exact value v rounded in the host's mode m by
// nearbyintl on the format's grid (x87 long double: every value below is exact in it).
static const int MB[2] = {10, 7}, BIAS[2] = {15, 127};
static uint16_t ref_h(long double v, int fmt, int m) {
    if (v != v) return 0x7fff;
    unsigned s = std::signbit(v) ? 1u : 0u;
    long double a = fabsl(v);
    unsigned inf = (unsigned)(2 * BIAS[fmt] + 1) << MB[fmt], maxf = inf - 1;
    if (std::isinf(a)) return (uint16_t)(s << 15 | inf);
    if (a == 0) return (uint16_t)(s << 15);
    int e;
    frexpl(a, &e);
    e -= 1;
    if (e < 1 - BIAS[fmt]) e = 1 - BIAS[fmt];
    long double q = ldexpl(1.0L, e - MB[fmt]);
    fesetround(MODES[m]);
    volatile long double r = nearbyintl(v / q) * q;
    fesetround(FE_TONEAREST);
    long double ar = fabsl(r);
    if (ar >= ldexpl(1.0L, BIAS[fmt] + 1)) {
        bool to_inf = m == 0 || (m == 3 && !s) || (m == 2 && s);
        return (uint16_t)(s << 15 | (to_inf ? inf : maxf));
    }
    if (ar == 0) return (uint16_t)(s << 15);
    int ey;
    frexpl(ar, &ey);
    ey -= 1;
    unsigned bits = ey < 1 - BIAS[fmt] ? (unsigned)(ar / ldexpl(1.0L, 1 - BIAS[fmt] - MB[fmt]))
                                     : ((unsigned)(ey + BIAS[fmt]) << MB[fmt]) | ((unsigned)(ar / ldexpl(1.0L, ey - MB[fmt])) - (1u << MB[fmt]));
    return (uint16_t)(s << 15 | bits);
}
static uint16_t any_h(int fmt) {
    static const uint16_t E[2][10] = {{0, 0x8000, 1, 0x3ff, 0x400, 0x7bff, 0x7c00, 0xfc00, 0x3c00, 0x7e00},
                                      {0, 0x8000, 1, 0x7f, 0x80, 0x7f7f, 0x7f80, 0xff80, 0x3f80, 0x7fc0}};
    uint64_t r = rnd();
    if (r % 4 == 0) return E[fmt][(r >> 8) % 10];
    if (r % 4 == 1) return (uint16_t)(((r >> 16) & 0x80ffu) | (fmt ? 0x3f00u : 0x3800u)); // near 1
    return (uint16_t)(r >> 20);
}
#define CHECK_H(name, got, want) { uint16_t g_ = (got), w_ = (want); if (g_ != w_) { if (bad++ < 40) printf("%s fmt %d mode %d: got %04x want %04x\n", name, fmt, m, g_, w_); } }

static void check_half() {
    for (int fmt = 0; fmt < 2; ++fmt) {
        // Every half decodes exactly and encodes back to itself.
        int m = 0;
        for (uint32_t h = 0; h < 65536; ++h) {
            double d = ptx_h2d((uint16_t)h, fmt, false);
            if (d != d) continue;
            CHECK_H("decode/encode", ptx_round_h(d, 0.0, 0, fmt), (uint16_t)h);
            CHECK_H("to f32", (uint16_t)(ptx_bits32(ptx_h2f((uint16_t)h, fmt)) != ptx_bits32((float)d)), 0);
        }
        for (int i = 0; i < 200000; ++i) {
            float a = any_f();
            double x = any_d();
            int64_t sv = (int64_t)rnd() >> (rnd() % 64);
            uint64_t uv = rnd() >> (rnd() % 64);
            static const int64_t EDGE_S[8] = {(1ll << 60) - 1, -((1ll << 60) - 1), (1ll << 53) + 1, (1ll << 40) - 1,
                                              INT64_MIN, INT64_MAX, 65519, -65520};
            if (i < 8) { sv = EDGE_S[i]; uv = (uint64_t)EDGE_S[i]; }
            uint16_t ha = any_h(fmt), hb = any_h(fmt), hc = any_h(fmt);
            long double X = ptx_h2d(ha, fmt, false), Y = ptx_h2d(hb, fmt, false), Z = ptx_h2d(hc, fmt, false);
            for (m = 0; m < 4; ++m) {
                CHECK_H("cvt.f16.f32", ptx_round_h((double)a, 0.0, m, fmt), ref_h(a, fmt, m));
                CHECK_H("cvt.f16.f64", ptx_round_h(x, 0.0, m, fmt), ref_h(x, fmt, m));
                CHECK_H("cvt.f16.s64", ptx_s64_to_h(sv, m, fmt), ref_h((long double)sv, fmt, m));
                CHECK_H("cvt.f16.u64", ptx_u64_to_h(uv, m, fmt), ref_h((long double)uv, fmt, m));
                fesetround(MODES[m]);
                volatile long double sum = X + Y, dif = X - Y, prod = X * Y, fm = X * Y + Z;
                fesetround(FE_TONEAREST);
                CHECK_H("add", ptx_h_add(ha, hb, m, fmt, 0), ref_h(sum, fmt, m));
                CHECK_H("sub", ptx_h_sub(ha, hb, m, fmt, 0), ref_h(dif, fmt, m));
                CHECK_H("mul", ptx_h_mul(ha, hb, m, fmt, 0), ref_h(prod, fmt, m));
                if (fmt == 0) CHECK_H("fma", ptx_h_fma(ha, hb, hc, m, fmt, 0), ref_h(fm, fmt, m));
            }
        }
    }
}

// What an H200 answered for these inputs (nvcc 13.0, sm_90, inline PTX): the low 16 bits are a,
// the high b; columns: add.rn.f16 a+b, neg.f16 a, abs.f16 a, min.f16, max.f16, mul.rn.sat.f16,
// fma.rn.bf16 a*b+b, max.bf16, neg.bf16 a, sub.rn.ftz.f16, cvt.f32.f16 a, cvt.f32.bf16 b,
// cvt.rni.s32.f16 a, then the 32 bits as an f32: cvt.rn.f16, cvt.rn.bf16, cvt.rz.f16.
static const struct { uint32_t in; uint32_t want[16]; } H200[] = {
    {0x3c007c01, {0x7fff, 0x7fff, 0x7fff, 0x3c00, 0x3c00, 0x0, 0x7881, 0x7c01, 0xfc01, 0x7fff, 0x7fffffff, 0x3c000000, 0x0, 0x2004, 0x3c00, 0x2003}},
    {0x3c00fe00, {0x7fff, 0x7fff, 0x7fff, 0x3c00, 0x3c00, 0x0, 0xfa80, 0x3c00, 0x7e00, 0x7fff, 0x7fffffff, 0x3c000000, 0x0, 0x2008, 0x3c01, 0x2007}},
    {0xfc007c00, {0x7fff, 0xfc00, 0x7c00, 0xfc00, 0x7c00, 0x0, 0xff80, 0x7c00, 0xfc00, 0x7c00, 0x7f800000, 0xfc000000, 0x7fffffff, 0xfc00, 0xfc00, 0xfbff}},
    {0x00008000, {0x0, 0x0, 0x0, 0x8000, 0x0, 0x0, 0x0, 0x0, 0x0, 0x8000, 0x80000000, 0x0, 0x0, 0x0, 0x0, 0x0}},
    {0x7e017e00, {0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x0, 0x7f80, 0x7e01, 0xfe00, 0x7fff, 0x7fffffff, 0x7e010000, 0x0, 0x7c00, 0x7e01, 0x7bff}},
    {0x80010001, {0x0, 0x8001, 0x1, 0x8001, 0x1, 0x0, 0x8001, 0x1, 0x8001, 0x0, 0x33800000, 0x80010000, 0x0, 0x8000, 0x8001, 0x8000}},
    {0x7fc00001, {0x7fff, 0x8001, 0x1, 0x1, 0x1, 0x0, 0x7fff, 0x1, 0x8001, 0x7fff, 0x33800000, 0x7fc00000, 0x0, 0x7fff, 0x7fff, 0x7fff}},
    {0xffc00000, {0x7fff, 0x8000, 0x0, 0x0, 0x0, 0x0, 0x7fff, 0x0, 0x8000, 0x7fff, 0x0, 0xffc00000, 0x0, 0x7fff, 0x7fff, 0x7fff}},
    {0x7f800001, {0x7fff, 0x8001, 0x1, 0x1, 0x1, 0x0, 0x7f80, 0x7f80, 0x8001, 0x7fff, 0x33800000, 0x7f800000, 0x0, 0x7fff, 0x7fff, 0x7fff}},
    {0x3f807fc1, {0x7fff, 0x7fff, 0x7fff, 0x3f80, 0x3f80, 0x0, 0x7fff, 0x3f80, 0x7fff, 0x7fff, 0x7fffffff, 0x3f800000, 0x0, 0x3c04, 0x3f80, 0x3c03}},
    {0xff81ff80, {0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x7fff, 0x0, 0x7fff, 0xff80, 0x7f80, 0x7fff, 0x7fffffff, 0xff810000, 0x0, 0x7fff, 0x7fff, 0x7fff}},
    {0x8000fc00, {0xfc00, 0x7c00, 0x7c00, 0xfc00, 0x8000, 0x0, 0x0, 0x8000, 0x7c00, 0xfc00, 0xff800000, 0x80000000, 0x80000000, 0x8000, 0x8001, 0x8000}},
    {0x477ff000, {0xeffe, 0x7000, 0x7000, 0xf000, 0x477f, 0x0, 0xf7ff, 0x477f, 0x7000, 0xf001, 0xc6000000, 0x477f0000, 0xffffe000, 0x7c00, 0x4780, 0x7bff}},
    {0x7bff7bff, {0x7c00, 0xfbff, 0x7bff, 0x7bff, 0x7bff, 0x3c00, 0x7f80, 0x7bff, 0xfbff, 0x0, 0x477fe000, 0x7bff0000, 0xffe0, 0x7c00, 0x7bff, 0x7bff}},
    {0x00017c00, {0x7c00, 0xfc00, 0x7c00, 0x1, 0x7c00, 0x3c00, 0x3980, 0x7c00, 0xfc00, 0x7c00, 0x7f800000, 0x10000, 0x7fffffff, 0x0, 0x1, 0x0}},
    {0x33800001, {0x3380, 0x8001, 0x1, 0x1, 0x3380, 0x0, 0x3380, 0x3380, 0x8001, 0xb380, 0x33800000, 0x33800000, 0x0, 0x1, 0x3380, 0x1}}
};

static void check_h200() {
    int fmt = 0, m = 0;
    for (const auto& t : H200) {
        uint16_t a = (uint16_t)t.in, b = (uint16_t)(t.in >> 16);
        float f = ff(t.in);
        uint32_t got[16] = {ptx_h_add(a, b, 0, 0, 0), ptx_h_neg(a, 0, 0), ptx_h_abs(a, 0, 0), ptx_h_minmax(a, b, false, 0, 0),
            ptx_h_minmax(a, b, true, 0, 0), ptx_h_mul(a, b, 0, 0, 2), ptx_h_fma(a, b, b, 0, 1, 0), ptx_h_minmax(a, b, true, 1, 0),
            ptx_h_neg(a, 1, 0), ptx_h_sub(a, b, 0, 0, 1), fb(ptx_h2f(a, 0)), fb(ptx_h2f(b, 1)),
            (uint32_t)(int32_t)ptx_f2s((double)ptx_rint_f(ptx_h2f(a, 0), 0), -2147483648ll, 2147483647ll, 0ll),
            ptx_round_h((double)f, 0.0, 0, 0), ptx_round_h((double)f, 0.0, 0, 1), ptx_round_h((double)f, 0.0, 1, 0)};
        for (int k = 0; k < 16; ++k)
            if (got[k] != t.want[k] && bad++ < 40) printf("H200 %08x column %d: got %x want %x\n", t.in, k, got[k], t.want[k]);
    }
    (void)fmt; (void)m;
}

int main() {
    check_half();
    check_h200();
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

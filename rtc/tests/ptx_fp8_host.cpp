// The PTX support header's 8-bit float conversions (cvt .e4m3x2/.e5m2x2), dp4a/dp2a and the
// half-precision atomic add, on the host (rtc/tests/ptx_fp8_host.rs prepends the header and the
// device shim): each against a model written here independently of the header's code.
// Prints each mismatch; exits 1 if there is one.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <cstdint>
#include <initializer_list>

static int bad = 0;
static uint64_t seed = 0x2545f4914f6cdd1dull;
static uint64_t rnd() { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed; }
static float ff(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
static uint32_t fb(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }

// The model: every 8-bit pattern's value, by the formats' definitions (OCP 8-bit floats:
// e4m3 bias 7, no infinities, S.1111.111 NaN, largest 448; e5m2 bias 15, IEEE-like).
static double model_value(unsigned v, int fmt, bool* nan) {
    int s = (v >> 7) & 1;
    int eb = fmt ? 5 : 4, mb = fmt ? 2 : 3, bias = fmt ? 15 : 7;
    int e = (v >> mb) & ((1 << eb) - 1), f = v & ((1 << mb) - 1);
    *nan = fmt ? (e == 31 && f != 0) : ((v & 0x7f) == 0x7f);
    if (*nan) return NAN;
    if (fmt && e == 31) return s ? -INFINITY : INFINITY;
    double m = e == 0 ? std::ldexp((double)f, 1 - bias - mb) : std::ldexp(1.0 + f / (double)(1 << mb), e - bias);
    return s ? -m : m;
}

// The model's encoding of x with .satfinite: the nearest finite pattern of x's sign, ties to
// the even pattern, searched over all patterns; beyond the largest finite, the largest finite.
static unsigned model_encode(double x, int fmt) {
    double a = std::fabs(x);
    unsigned sign = std::signbit(x) ? 0x80u : 0u;
    // Beyond the largest finite the distances are absorbed in double for huge x: the clamp.
    if (a > (fmt ? 57344.0 : 448.0)) return sign | (fmt ? 0x7bu : 0x7eu);
    unsigned best = 0;
    double bestd = INFINITY;
    for (unsigned v = 0; v < 0x80; ++v) {
        bool nan;
        double m = model_value(v, fmt, &nan);
        if (nan || std::isinf(m)) continue;
        double d = std::fabs(m - a);
        if (d < bestd || (d == bestd && (v & 1) == 0)) { best = v; bestd = d; }
    }
    return sign | best;
}

int main() {
    for (int fmt = 0; fmt < 2; ++fmt) {
        const char* name = fmt ? "e5m2" : "e4m3";
        // Decoding: every pattern, as a double and as an f16.
        for (unsigned v = 0; v < 256; ++v) {
            bool nan;
            double want = model_value(v, fmt, &nan);
            double got = ptx_fp8_to_d(v, fmt);
            if (nan ? got == got : got != want || std::signbit(got) != std::signbit(want)) {
                printf("%s decode %#x: %a, want %a\n", name, v, got, want);
                bad++;
            }
            ptx_u16 h = ptx_fp8_to_h(v, fmt, false);
            double hv = ptx_h2d(h, 0, false);
            if (nan ? h != 0x7fffu : hv != want || std::signbit(hv) != std::signbit(want)) {
                printf("%s to f16 %#x: %#x\n", name, v, h);
                bad++;
            }
            ptx_u16 r = ptx_fp8_to_h(v, fmt, true);
            if (!nan && want < 0 && r != 0) {
                printf("%s to f16 .relu %#x: %#x, want 0\n", name, v, r);
                bad++;
            }
            // Every finite pattern encodes back to itself.
            if (!nan && !std::isinf(want)) {
                unsigned e = ptx_d_to_fp8(want, fmt, false);
                if (e != v) {
                    printf("%s round trip %#x: %#x\n", name, v, e);
                    bad++;
                }
            }
        }
        // Encoding: edges, midpoints between neighbours, and random floats.
        double edges[] = {0.0, -0.0, 1.0, -1.0, 448.0, 464.0, 465.0, 480.0, 57344.0, 61440.0, 61441.0,
            1e9, -1e9, INFINITY, -INFINITY, std::ldexp(1.0, -10), std::ldexp(1.0, -9), std::ldexp(3.0, -11),
            std::ldexp(1.0, -17), std::ldexp(1.0, -16), std::ldexp(3.0, -18), 1e-30, -1e-30};
        for (double x : edges) {
            unsigned got = ptx_d_to_fp8(x, fmt, false), want = model_encode(x, fmt);
            if (got != want) { printf("%s encode %a: %#x, want %#x\n", name, x, got, want); bad++; }
        }
        for (unsigned v = 0; v < 0x7f; ++v) {
            bool n1, n2;
            double a = model_value(v, fmt, &n1), b = model_value(v + 1, fmt, &n2);
            if (n1 || n2 || std::isinf(a) || std::isinf(b)) continue;
            for (double x : {(a + b) / 2, -(a + b) / 2, std::nextafter((a + b) / 2, 0.0), std::nextafter((a + b) / 2, 1e10)}) {
                unsigned got = ptx_d_to_fp8(x, fmt, false), want = model_encode(x, fmt);
                if (got != want) { printf("%s encode midpoint %a: %#x, want %#x\n", name, x, got, want); bad++; }
            }
        }
        for (int k = 0; k < 200000; ++k) {
            uint64_t r = rnd();
            float f = (r & 1) ? ff((uint32_t)(r >> 16)) : ff(((uint32_t)(r >> 16) & 0x83ffffffu) | 0x38000000u);
            if (f != f) {
                unsigned got = ptx_d_to_fp8(f, fmt, false);
                bool nan;
                model_value(got, fmt, &nan);
                if (!nan || (got & 0x80) != ((fb(f) >> 24) & 0x80)) { printf("%s encode NaN %#x: %#x\n", name, fb(f), got); bad++; }
                if (ptx_d_to_fp8(f, fmt, true) != 0x7fu) { printf("%s encode NaN .relu\n", name); bad++; }
                continue;
            }
            unsigned got = ptx_d_to_fp8(f, fmt, false), want = model_encode(f, fmt);
            if (got != want) { printf("%s encode %a: %#x, want %#x\n", name, (double)f, got, want); bad++; }
            unsigned rl = ptx_d_to_fp8(f, fmt, true);
            if (rl != (f < 0 ? 0u : want)) { printf("%s encode .relu %a: %#x\n", name, (double)f, rl); bad++; }
        }
    }
    // dp4a / dp2a against int8_t / int16_t arithmetic.
    for (int k = 0; k < 100000; ++k) {
        uint32_t a = (uint32_t)rnd(), b = (uint32_t)rnd(), c = (uint32_t)rnd();
        if (k < 4) { a = k & 1 ? 0x80808080u : 0xffffffffu; b = k & 2 ? 0x80808080u : 0x7f7f7f7fu; }
        for (int sa = 0; sa < 2; ++sa)
            for (int sb = 0; sb < 2; ++sb) {
                int64_t w = (int32_t)c;
                for (int i = 0; i < 4; ++i) {
                    int x = sa ? (int)(int8_t)(a >> (8 * i)) : (int)(uint8_t)(a >> (8 * i));
                    int y = sb ? (int)(int8_t)(b >> (8 * i)) : (int)(uint8_t)(b >> (8 * i));
                    w += (int64_t)x * y;
                }
                if (ptx_dp4a(a, b, c, sa, sb) != (uint32_t)w) { printf("dp4a %#x %#x %#x %d%d\n", a, b, c, sa, sb); bad++; }
                for (int hi = 0; hi < 2; ++hi) {
                    int64_t w2 = (int32_t)c;
                    for (int i = 0; i < 2; ++i) {
                        int x = sa ? (int)(int16_t)(a >> (16 * i)) : (int)(uint16_t)(a >> (16 * i));
                        int sh = 8 * (i + 2 * hi);
                        int y = sb ? (int)(int8_t)(b >> sh) : (int)(uint8_t)(b >> sh);
                        w2 += (int64_t)x * y;
                    }
                    if (ptx_dp2a(a, b, c, sa, sb, hi) != (uint32_t)w2) { printf("dp2a %#x %#x %#x %d%d%d\n", a, b, c, sa, sb, hi); bad++; }
                }
            }
    }
    // atom.add.noftz on halves: each 16-bit slot of a word, and the pair, against ptx_h_add; the
    // other half of the word untouched; the old value returned.
    for (int k = 0; k < 20000; ++k) {
        alignas(4) ptx_u16 w[2] = {(ptx_u16)rnd(), (ptx_u16)rnd()};
        ptx_u16 v = (ptx_u16)rnd();
        int fmt = k & 1, slot = (k >> 1) & 1;
        ptx_u16 before[2] = {w[0], w[1]};
        ptx_u32 old = ptx_atom_add_h_word((ptx_u64)&w[slot], v, fmt, false);
        ptx_u16 want = ptx_h_add(before[slot], v, 0, fmt, 0);
        if (old != before[slot] || w[slot] != want || w[1 - slot] != before[1 - slot]) {
            printf("atom.add half fmt %d slot %d: old %#x new %#x other %#x\n", fmt, slot, old, w[slot], w[1 - slot]);
            bad++;
        }
        ptx_u32 pv = (ptx_u32)rnd();
        before[0] = w[0]; before[1] = w[1];
        old = ptx_atom_add_h_word((ptx_u64)&w[0], pv, fmt, true);
        if (old != ((ptx_u32)before[0] | ((ptx_u32)before[1] << 16)) || w[0] != ptx_h_add(before[0], (ptx_u16)pv, 0, fmt, 0)
            || w[1] != ptx_h_add(before[1], (ptx_u16)(pv >> 16), 0, fmt, 0)) {
            printf("atom.add pair fmt %d\n", fmt);
            bad++;
        }
    }
    printf("%d mismatches\n", bad);
    return bad != 0;
}

// The support header's warp-wide matrix helpers (ptx_ldmatrix, ptx_stmatrix, ptx_mma_m16n8,
// ptx_mma_m8n8k4_f64) on the simulated wavefront of ptx_warp_host.cpp (rtc/tests/ptx_matrix_host.rs
// puts that simulation, the header's AMD branch and this file together), against a plain host
// matrix multiply: the lanes' registers are placed into A, B and C by the PTX ISA's fragment
// tables (written out here per shape, element by element), D = A B + C is computed on the host,
// and every lane's result registers are compared. Both warps of a wave64 run at once with
// inputs of their own, so a helper that read the other warp fails.

// ---- the checks ----
#include <cmath>
#include <cstring>
static int bad = 0;
static std::mutex bad_m;
static void fail(const char* what, int trial, int lane, int reg, uint64_t got, uint64_t want) {
    std::lock_guard<std::mutex> l(bad_m);
    if (bad++ < 40)
        printf("%s: trial %d, lane %d, register %d: got %llx want %llx\n", what, trial, lane, reg,
               (unsigned long long)got, (unsigned long long)want);
}
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next32() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return (uint32_t)(rng >> 16); }

// ---- mma: the forms, and where the ISA puts each lane's elements ----
struct Form {
    const char* name;
    int K, E, NA, NB; // k, elements per register, A's and B's registers
    int ak, bk, dk;   // the header's kinds (0 f16, 1 bf16, 2 tf32, 3 s8, 4 u8; dk 0 f32, 1 f16, 2 s32, 3 s32 .satfinite)
};
static const Form FORMS[] = {
    {"m16n8k16 .f32.f16.f16.f32", 16, 2, 4, 2, 0, 0, 0},
    {"m16n8k16 .f16.f16.f16.f16", 16, 2, 4, 2, 0, 0, 1},
    {"m16n8k8 .f32.f16.f16.f32", 8, 2, 2, 1, 0, 0, 0},
    {"m16n8k8 .f16.f16.f16.f16", 8, 2, 2, 1, 0, 0, 1},
    {"m16n8k16 .f32.bf16.bf16.f32", 16, 2, 4, 2, 1, 1, 0},
    {"m16n8k8 .f32.bf16.bf16.f32", 8, 2, 2, 1, 1, 1, 0},
    {"m16n8k8 .f32.tf32.tf32.f32", 8, 1, 4, 2, 2, 2, 0},
    {"m16n8k4 .f32.tf32.tf32.f32", 4, 1, 2, 1, 2, 2, 0},
    {"m16n8k32 .s32.s8.s8.s32", 32, 4, 4, 2, 3, 3, 2},
    {"m16n8k32 .s32.u8.s8.s32", 32, 4, 4, 2, 4, 3, 2},
    {"m16n8k32 .satfinite.s32.s8.u8.s32", 32, 4, 4, 2, 3, 4, 3},
    {"m16n8k16 .s32.u8.u8.s32", 16, 4, 2, 1, 4, 4, 2},
    {"m16n8k16 .satfinite.s32.s8.s8.s32", 16, 4, 2, 1, 3, 3, 3},
};
// A's element i of lane (g, t): (row, column), as the ISA's tables give them.
static void a_at(const Form& f, int g, int t, int i, int* r, int* c) {
    if (f.E == 2 && f.K == 16) { *r = g + ((i == 2 || i == 3 || i == 6 || i == 7) ? 8 : 0); *c = 2 * t + (i & 1) + (i >= 4 ? 8 : 0); }
    else if (f.E == 2) { *r = g + (i >= 2 ? 8 : 0); *c = 2 * t + (i & 1); }
    else if (f.E == 1 && f.K == 8) { *r = g + ((i == 1 || i == 3) ? 8 : 0); *c = t + (i >= 2 ? 4 : 0); }
    else if (f.E == 1) { *r = g + (i == 1 ? 8 : 0); *c = t; }
    else if (f.K == 16) { *r = g + (i >= 4 ? 8 : 0); *c = 4 * t + (i & 3); }
    else { *r = g + (((i >= 4 && i < 8) || i >= 12) ? 8 : 0); *c = 4 * t + (i & 3) + (i >= 8 ? 16 : 0); }
}
// B's element i of lane (g, t): (row, column).
static void b_at(const Form& f, int g, int t, int i, int* r, int* c) {
    *c = g;
    if (f.E == 2 && f.K == 16) *r = 2 * t + (i & 1) + (i >= 2 ? 8 : 0);
    else if (f.E == 2) *r = 2 * t + i;
    else if (f.E == 1 && f.K == 8) *r = t + (i >= 1 ? 4 : 0);
    else if (f.E == 1) *r = t;
    else if (f.K == 16) *r = 4 * t + i;
    else *r = 4 * t + (i & 3) + (i >= 4 ? 16 : 0);
}
// C's and D's element i: row g (+8 for i >= 2), column 2t + (i & 1).
static void d_at(int g, int t, int i, int* r, int* c) { *r = g + (i >= 2 ? 8 : 0); *c = 2 * t + (i & 1); }

static uint32_t elem_bits(const Form& f, int kind, const uint32_t* regs, int i) {
    int bits = f.E == 2 ? 16 : f.E == 4 ? 8 : 32;
    uint32_t w = regs[i / f.E];
    return bits == 32 ? w : (w >> (bits * (i % f.E))) & ((1u << bits) - 1u);
}
static double f16_value(uint32_t h) { _Float16 x; uint16_t b = (uint16_t)h; memcpy(&x, &b, 2); return (double)x; }
static double bf16_value(uint32_t h) { uint32_t b = h << 16; float x; memcpy(&x, &b, 4); return x; }
static double value_of(int kind, uint32_t b) {
    switch (kind) {
    case 0: return f16_value(b);
    case 1: return bf16_value(b);
    case 2: { uint32_t m = b & 0xffffe000u; float x; memcpy(&x, &m, 4); return x; } // tf32: 19 bits
    case 3: return (double)(int8_t)(uint8_t)b;
    default: return (double)(uint8_t)b;
    }
}
// Random elements. Floats: normal values of magnitude in [2^-6, 2^6) (so every product and sum
// of a form is exact in f64 and the result is the exact value rounded once), or with `edge`,
// zeros, infinities, NaN, subnormals and the largest values among them.
static uint32_t random_elem(int kind, bool edge) {
    uint32_t r = next32();
    if (kind >= 3) return r & 0xffu;
    if (edge && r % 5 == 0) {
        static const uint32_t H[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e01, 0x0001, 0x83ff, 0x7bff, 0x0400};
        static const uint32_t B[] = {0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc1, 0x0001, 0x807f, 0x7f7f, 0x0080};
        static const uint32_t T[] = {0, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc02000u, 0x00002000u, 0x7f7fe000u, 0x00800000u};
        int n = (r >> 8);
        return kind == 0 ? H[n % 9] : kind == 1 ? B[n % 9] : T[n % 8];
    }
    uint32_t s = (r >> 31) & 1, e = (r >> 20) % 12; // exponent -6..5
    if (kind == 0) return (s << 15) | ((e + 15 - 6) << 10) | (r & 0x3ffu);
    if (kind == 1) return (s << 15) | ((e + 127 - 6) << 7) | (r & 0x7fu);
    return (s << 31) | ((e + 127 - 6) << 23) | ((r & 0x7fffffu) | (edge ? 0 : (next32() & 0x1fffu))); // tf32: garbage low bits
}
static uint32_t canon_f32(double v) { float x = (float)v; uint32_t b; memcpy(&b, &x, 4); return x != x ? 0x7fffffffu : b; }
static uint32_t f16_bits(double v) { _Float16 x = (_Float16)v; uint16_t b; memcpy(&b, &x, 2); return v != v ? 0x7fffu : b; }

static const int TRIALS = 24;
// Per trial, per hardware lane: registers in and out.
static uint32_t A_in[TRIALS][64][4], B_in[TRIALS][64][2], C_in[TRIALS][64][4], D_out[TRIALS][64][4];
static int form_now;

template <int K, int E, int NA, int NB>
static void run_form(const Form& f, int hw) {
    for (int tr = 0; tr < TRIALS; ++tr) {
        uint32_t a[NA], b[NB];
        for (int r = 0; r < NA; ++r) a[r] = A_in[tr][hw][r];
        for (int r = 0; r < NB; ++r) b[r] = B_in[tr][hw][r];
        ptx_mma_m16n8<K, E, NA, NB>(f.ak, f.bk, f.dk, a, b, C_in[tr][hw], D_out[tr][hw]);
    }
}
static void mma_lane(int hw) {
    sim_lane = hw;
    const Form& f = FORMS[form_now];
    if (f.K == 16 && f.E == 2) run_form<16, 2, 4, 2>(f, hw);
    else if (f.K == 8 && f.E == 2) run_form<8, 2, 2, 1>(f, hw);
    else if (f.K == 8) run_form<8, 1, 4, 2>(f, hw);
    else if (f.K == 4) run_form<4, 1, 2, 1>(f, hw);
    else if (f.K == 32) run_form<32, 4, 4, 2>(f, hw);
    else run_form<16, 4, 2, 1>(f, hw);
}

// Runs `body` on every lane of `active` (hardware lanes of one wavefront).
static void run_lanes(uint64_t active, void (*body)(int)) {
    active_lanes = active & (W == 64 ? ~0ull : 0xffffffffull);
    for (int g = 0; g < 2; ++g) {
        groups[g].n = __builtin_popcountll(active_lanes & (W == 64 ? (0xffffffffull << (32 * g)) : (g ? 0 : 0xffffffffull)));
        groups[g].arrived = 0;
    }
    std::vector<std::thread> t;
    for (int i = 0; i < W; ++i)
        if ((active_lanes >> i) & 1) t.emplace_back(body, i);
    for (auto& x : t) x.join();
}

static void check_mma(int fi, uint64_t active) {
    const Form& f = FORMS[fi];
    form_now = fi;
    int before = bad;
    for (int tr = 0; tr < TRIALS; ++tr) {
        bool edge = tr % 3 == 2;
        for (int hw = 0; hw < 64; ++hw) {
            for (int r = 0; r < 4; ++r) {
                uint32_t wa = 0, wb = 0;
                int bits = f.E == 2 ? 16 : f.E == 4 ? 8 : 32;
                for (int s = 0; s < f.E; ++s) {
                    wa |= random_elem(f.ak, edge) << (bits * s);
                    wb |= random_elem(f.bk, edge) << (bits * s);
                }
                A_in[tr][hw][r] = wa;
                if (r < 2) B_in[tr][hw][r] = wb;
                uint32_t c;
                if (f.dk == 0) { double v = value_of(2, random_elem(2, edge)); c = canon_f32(v); if (v != v) c = 0x7fc00000u; }
                else if (f.dk == 1) c = random_elem(0, edge) | (random_elem(0, edge) << 16);
                else c = next32() % 3 == 0 ? (uint32_t)(next32() % 2 ? 0x7fff0000u + (next32() & 0xffffu) : 0x80000000u + (next32() & 0xffffu)) : next32();
                C_in[tr][hw][r] = c;
                D_out[tr][hw][r] = 0xdeadbeefu;
            }
        }
    }
    run_lanes(active, mma_lane);
    for (int tr = 0; tr < TRIALS; ++tr)
        for (int half = 0; half < (W == 64 ? 2 : 1); ++half) {
            int base = 32 * half;
            if (!((active >> base) & 1)) continue;
            double Am[16][32], Bm[32][8], Cm[16][8];
            for (int l = 0; l < 32; ++l) {
                int g = l >> 2, t = l & 3, r, c;
                for (int i = 0; i < f.NA * f.E; ++i) { a_at(f, g, t, i, &r, &c); Am[r][c] = value_of(f.ak, elem_bits(f, f.ak, A_in[tr][base + l], i)); }
                for (int i = 0; i < f.NB * f.E; ++i) { b_at(f, g, t, i, &r, &c); Bm[r][c] = value_of(f.bk, elem_bits(f, f.bk, B_in[tr][base + l], i)); }
                for (int i = 0; i < 4; ++i) {
                    d_at(g, t, i, &r, &c);
                    uint32_t w = C_in[tr][base + l][f.dk == 1 ? i / 2 : i];
                    if (f.dk == 0) { float x; memcpy(&x, &w, 4); Cm[r][c] = x; }
                    else if (f.dk == 1) Cm[r][c] = f16_value((w >> (16 * (i & 1))) & 0xffffu);
                    else Cm[r][c] = (double)(int32_t)w;
                }
            }
            for (int l = 0; l < 32; ++l) {
                int g = l >> 2, t = l & 3, r, c;
                uint32_t want[4];
                for (int i = 0; i < 4; ++i) {
                    d_at(g, t, i, &r, &c);
                    if (f.dk >= 2) {
                        long long s = (long long)Cm[r][c];
                        for (int k = 0; k < f.K; ++k) s += (long long)Am[r][k] * (long long)Bm[k][c];
                        if (f.dk == 3) s = s > INT32_MAX ? INT32_MAX : s < INT32_MIN ? INT32_MIN : s;
                        want[i] = (uint32_t)s;
                    } else {
                        long double s = Cm[r][c];
                        for (int k = 0; k < f.K; ++k) s += (long double)Am[r][k] * Bm[k][c];
                        want[i] = f.dk == 0 ? canon_f32((double)s) : f16_bits((double)s);
                    }
                }
                int nd = f.dk == 1 ? 2 : 4;
                for (int i = 0; i < nd; ++i) {
                    uint32_t w = f.dk == 1 ? (want[2 * i] | (want[2 * i + 1] << 16)) : want[i];
                    uint32_t got = D_out[tr][base + l][i];
                    if (got != w) fail(f.name, tr, base + l, i, got, w);
                }
            }
        }
    printf("wave%d mma %s (lanes %llx): %s\n", W, f.name, (unsigned long long)active, bad == before ? "ok" : "FAILED");
}

// ---- mma.m8n8k4.f64: lane (g, t) holds A[g][t], B[t][g], C[g][2t..2t+1] ----
static double F_a[64], F_b[64], F_c[64][2], F_d[64][2];
static void f64_lane(int hw) {
    sim_lane = hw;
    uint32_t a[2], b[2], c[4], d[4];
    uint64_t x;
    memcpy(&x, &F_a[hw], 8); a[0] = (uint32_t)x; a[1] = (uint32_t)(x >> 32);
    memcpy(&x, &F_b[hw], 8); b[0] = (uint32_t)x; b[1] = (uint32_t)(x >> 32);
    for (int j = 0; j < 2; ++j) { memcpy(&x, &F_c[hw][j], 8); c[2 * j] = (uint32_t)x; c[2 * j + 1] = (uint32_t)(x >> 32); }
    ptx_mma_m8n8k4_f64(a, b, c, d);
    for (int j = 0; j < 2; ++j) { x = ((uint64_t)d[2 * j + 1] << 32) | d[2 * j]; memcpy(&F_d[hw][j], &x, 8); }
}
static void check_f64(uint64_t active) {
    int before = bad;
    for (int tr = 0; tr < 8; ++tr) {
        for (int hw = 0; hw < 64; ++hw) {
            F_a[hw] = (double)(int32_t)next32() / 3e5; F_b[hw] = (double)(int32_t)next32() / 7e4;
            F_c[hw][0] = (double)(int32_t)next32() * 1e-3; F_c[hw][1] = tr == 3 ? NAN : (double)(int32_t)next32();
        }
        run_lanes(active, f64_lane);
        for (int half = 0; half < (W == 64 ? 2 : 1); ++half) {
            int base = 32 * half;
            if (!((active >> base) & 1)) continue;
            for (int l = 0; l < 32; ++l) {
                int g = l >> 2, t = l & 3;
                for (int j = 0; j < 2; ++j) {
                    double s = F_c[base + l][j];
                    for (int k = 0; k < 4; ++k) s = std::fma(F_a[base + 4 * g + k], F_b[base + 4 * (2 * t + j) + k], s); // A[g][k] B[k][2t + j]
                    uint64_t gb, wb;
                    memcpy(&gb, &F_d[base + l][j], 8); memcpy(&wb, &s, 8);
                    if (s != s ? F_d[base + l][j] == F_d[base + l][j] : gb != wb) fail("mma m8n8k4 .f64", tr, base + l, j, gb, wb);
                }
            }
        }
    }
    printf("wave%d mma m8n8k4 .f64 (lanes %llx): %s\n", W, (unsigned long long)active, bad == before ? "ok" : "FAILED");
}

// ---- ldmatrix and stmatrix: 8x8 matrices of 16-bit elements in a scrambled "shared" tile ----
static uint16_t smem[2][4 * 8 * 8 + 64] __attribute__((aligned(16)));
static uint16_t* row_ptr[64]; // the row address each hardware lane gives
static uint32_t L_out[64][4], S_in[64][4];
static int mat_n;
static bool mat_trans, mat_store;
static void matrix_lane(int hw) {
    sim_lane = hw;
    if (mat_store) ptx_stmatrix(mat_n, mat_trans, (uint64_t)(uintptr_t)row_ptr[hw], S_in[hw]);
    else ptx_ldmatrix(mat_n, mat_trans, (uint64_t)(uintptr_t)row_ptr[hw], L_out[hw]);
}
static void check_matrix(uint64_t active) {
    for (int store = 0; store < 2; ++store)
        for (int n : {1, 2, 4})
            for (int trans = 0; trans < 2; ++trans)
                for (int tr = 0; tr < 4; ++tr) {
                    int before = bad;
                    mat_n = n; mat_trans = trans; mat_store = store;
                    for (int h = 0; h < 2; ++h) for (auto& e : smem[h]) e = store ? 0xabcd : (uint16_t)next32();
                    // Each warp's 32 rows (matrix 8i + row) at a permutation of its tile's rows.
                    int perm[32];
                    for (int k = 0; k < 32; ++k) perm[k] = k;
                    for (int k = 31; k > 0; --k) { int j = next32() % (k + 1); int x = perm[k]; perm[k] = perm[j]; perm[j] = x; }
                    for (int hw = 0; hw < 64; ++hw) {
                        int l = hw & 31;
                        // Lanes past the matrices' rows give an address that must not be used.
                        row_ptr[hw] = l < 8 * n ? &smem[hw >> 5][8 * perm[l]] : (uint16_t*)(uintptr_t)0x10;
                        for (int i = 0; i < 4; ++i) { S_in[hw][i] = next32(); L_out[hw][i] = 0xdeadbeefu; }
                    }
                    run_lanes(active, matrix_lane);
                    for (int half = 0; half < (W == 64 ? 2 : 1); ++half) {
                        int base = 32 * half;
                        if (!((active >> base) & 1)) continue;
                        const uint16_t* tile = smem[half];
                        // M[i][r][c]: element (r, c) of matrix i, where the rows' owners point.
                        auto at = [&](int i, int r, int c) -> const uint16_t* { return &tile[8 * perm[8 * i + r] + c]; };
                        for (int l = 0; l < 32; ++l)
                            for (int i = 0; i < n; ++i) {
                                int r = l >> 2, c = 2 * (l & 3);
                                if (!store) {
                                    uint32_t want = trans ? (uint32_t)*at(i, c, r) | ((uint32_t)*at(i, c + 1, r) << 16)
                                                          : (uint32_t)*at(i, r, c) | ((uint32_t)*at(i, r, c + 1) << 16);
                                    if (L_out[base + l][i] != want) fail(trans ? "ldmatrix .trans" : "ldmatrix", tr, base + l, i, L_out[base + l][i], want);
                                } else {
                                    uint32_t s = S_in[base + l][i];
                                    uint32_t got = trans ? (uint32_t)*at(i, c, r) | ((uint32_t)*at(i, c + 1, r) << 16)
                                                         : (uint32_t)*at(i, r, c) | ((uint32_t)*at(i, r, c + 1) << 16);
                                    if (got != s) fail(trans ? "stmatrix .trans" : "stmatrix", tr, base + l, i, got, s);
                                }
                            }
                        if (store) // rows of matrices past n are untouched
                            for (int k = 8 * n; k < 32; ++k)
                                for (int c = 0; c < 8; ++c)
                                    if (tile[8 * perm[k] + c] != 0xabcd) fail("stmatrix wrote past its matrices", tr, base, k, tile[8 * perm[k] + c], 0xabcd);
                    }
                    if (bad != before || tr == 3)
                        printf("wave%d %s.x%d%s (lanes %llx): %s\n", W, store ? "stmatrix" : "ldmatrix", n, trans ? ".trans" : "", (unsigned long long)active, bad == before ? "ok" : "FAILED");
                }
}

int main() {
    // A full wavefront (both warps of a wave64, each its own inputs), and a wave64 holding
    // only its lower warp (the last wavefront of a 96-thread block).
    for (uint64_t active : {~0ull, 0xffffffffull}) {
        if (W == 32 && active != ~0ull) continue;
        check_matrix(active);
        for (int f = 0; f < (int)(sizeof FORMS / sizeof FORMS[0]); ++f) check_mma(f, active);
        check_f64(active);
    }
    printf("%d mismatches\n", bad);
    return bad != 0;
}

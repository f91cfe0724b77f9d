// The support header's AMD warp helpers on a simulated wavefront: rtc/tests/ptx_warp_host.rs
// compiles this with the header's AMD branch (PTX_AMD, __AMDGCN_WAVEFRONT_SIZE 32 or 64) and the
// AMDGCN builtins it uses simulated here, one host thread per active hardware lane.
//
// The simulation is adversarial about what CUDA's 32-lane warps must not see: each warp (a
// wave64's half, or a whole wave32) meets at every builtin on its own, and whatever would come
// from the other half of a wave64 is poison (a ballot's other 32 bits random, a lane permute
// reading the other half or an inactive lane a marked value), so a helper that used it would
// fail the checks. Lanes that do not exist (a partial warp) or that a branch left (a subset)
// are not started. Every result is checked against the PTX ISA on the lanes' inputs.
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <cstdio>
#include <cstdint>
#include <mutex>
#include <thread>
#include <vector>

static thread_local int sim_lane = 0;
static const int W = __AMDGCN_WAVEFRONT_SIZE;
// One meeting place per warp: values posted by its active lanes, double-buffered by generation.
struct Group {
    std::mutex m;
    std::condition_variable cv;
    int n = 0, arrived = 0;
    unsigned gen = 0;
    uint64_t vals[2][64];
};
static Group groups[2];
static uint64_t active_lanes = 0; // hardware lanes started
static uint64_t poison_seed = 0x243f6a8885a308d3ull;
static std::mutex poison_m;
static uint32_t poison32() {
    std::lock_guard<std::mutex> g(poison_m);
    poison_seed ^= poison_seed << 13; poison_seed ^= poison_seed >> 7; poison_seed ^= poison_seed << 17;
    return (uint32_t)poison_seed;
}
static int group_of(int lane) { return W == 64 ? lane >> 5 : 0; }
// Posts v; returns when every active lane of the caller's warp has posted; `out` gets the posts.
static thread_local long meetings = 0;
static void meet(uint64_t v, uint64_t* out) {
    if (++meetings > 200000) { // no helper needs this many: a loop that never ends
        printf("lane %d: a helper loops without end\n", sim_lane);
        fflush(stdout);
        std::_Exit(3);
    }
    Group& g = groups[group_of(sim_lane)];
    std::unique_lock<std::mutex> l(g.m);
    unsigned gen = g.gen;
    g.vals[gen & 1][sim_lane] = v;
    if (++g.arrived == g.n) {
        g.arrived = 0;
        ++g.gen;
        g.cv.notify_all();
    } else if (!g.cv.wait_for(l, std::chrono::seconds(5), [&] { return g.gen != gen; })) {
        // The warp's lanes did not all reach this builtin: they diverged (a helper let lanes of
        // one warp run different iterations), which would be wrong on the hardware too.
        printf("lane %d: the lanes of its warp diverged at a builtin (deadlock)\n", sim_lane);
        fflush(stdout);
        std::_Exit(2);
    }
    for (int i = 0; i < 64; ++i) out[i] = g.vals[gen & 1][i];
}
static bool same_warp_active(int lane) {
    return lane >= 0 && lane < W && ((active_lanes >> lane) & 1) && group_of(lane) == group_of(sim_lane);
}
static uint64_t sim_ballot(bool p) {
    uint64_t all[64], r = 0;
    meet(p ? 1 : 0, all);
    for (int i = 0; i < W; ++i)
        if (same_warp_active(i) && all[i]) r |= 1ull << i;
    if (W == 64) r |= (uint64_t)poison32() << (group_of(sim_lane) ? 0 : 32); // the other warp
    return r;
}
static unsigned sim_mbcnt_lo(unsigned mask, unsigned add) {
    int below = sim_lane < 32 ? sim_lane : 32;
    return add + (unsigned)__builtin_popcount(mask & (below == 32 ? ~0u : ((1u << below) - 1u)));
}
static unsigned sim_mbcnt_hi(unsigned mask, unsigned add) {
    int below = sim_lane <= 32 ? 0 : sim_lane - 32;
    return add + (unsigned)__builtin_popcount(mask & ((1u << below) - 1u));
}
static int sim_bpermute(int addr, int v) {
    uint64_t all[64];
    meet((uint32_t)v, all);
    int src = (addr >> 2) & (W - 1);
    return same_warp_active(src) ? (int)(uint32_t)all[src] : (int)(0xdead0000u | (unsigned)src);
}
#define __builtin_amdgcn_mbcnt_lo(a, b) sim_mbcnt_lo(a, b)
#define __builtin_amdgcn_mbcnt_hi(a, b) sim_mbcnt_hi(a, b)
#define __builtin_amdgcn_uicmp(a, b, c) sim_ballot((a) != (b))
#define __builtin_amdgcn_ds_bpermute(a, v) sim_bpermute(a, v)
#define __builtin_amdgcn_fence(a, b) ((void)0)
#define __builtin_amdgcn_wave_barrier() ((void)0)
#define __builtin_amdgcn_wavefrontsize() W
#define PTX_AMD 1

// ---- the checks ----
static int bad = 0;
static std::mutex bad_m;
#define EXPECT(what, got, want) do { uint64_t g_ = (got), w_ = (want); if (g_ != w_) { std::lock_guard<std::mutex> l_(bad_m); if (bad++ < 30) printf("%s: lane %d: got %llx want %llx\n", what, sim_lane, (unsigned long long)g_, (unsigned long long)w_); } } while (0)

static uint32_t inputs[64];
// The ISA's shfl: source lane (0..31 of the warp) and predicate.
static int isa_shfl(int lane, int mode, uint32_t b, uint32_t c, bool* ok) {
    int bv = (int)(b & 31), cv = (int)(c & 31), sg = (int)((c >> 8) & 31);
    int mx = (lane & sg) | (cv & ~sg), mn = lane & sg, j;
    if (mode == 0) { j = lane - bv; *ok = j >= mx; }
    else if (mode == 1) { j = lane + bv; *ok = j <= mx; }
    else if (mode == 2) { j = lane ^ bv; *ok = j <= mx; }
    else { j = mn | (bv & ~sg); *ok = j <= mx; }
    return *ok ? j : lane;
}

static void lane_main(int hw) {
    sim_lane = hw;
    int half = W == 64 ? (hw & 32) : 0;
    int lane = hw & 31;
    uint32_t v = inputs[hw];
    uint32_t warp_active = (uint32_t)(active_lanes >> half);
    auto val = [&](int l) { return inputs[half + l]; };
    auto exists = [&](int l) { return (warp_active >> l) & 1; };
    EXPECT("laneid", ptx_laneid(), lane);
    EXPECT("lanemask_lt", ptx_lanemask_lt(), (1u << lane) - 1u);
    EXPECT("lanemask_ge", ptx_lanemask_ge(), ~((1u << lane) - 1u));
    EXPECT("activemask", ptx_activemask(), warp_active);
    static const uint32_t C[] = {0x1f, 0x0, 0x101f, 0x1000, 0x181f, 0x1c07, 0x0817, 0x1005, 0x0c17, 0x181a};
    for (int mode = 0; mode < 4; ++mode)
        for (uint32_t c : C)
            for (uint32_t b : {1u, 3u, 16u, 31u, v & 31u, (v >> 7) & 63u}) {
                bool p, ok;
                uint32_t r = ptx_shfl(mode, v, b, c, ~0u, p);
                int j = isa_shfl(lane, mode, b, c, &ok);
                EXPECT("shfl predicate", p, ok);
                if (exists(j)) EXPECT("shfl value", r, val(j));
            }
    uint32_t ones = 0, want_all, any;
    for (int l = 0; l < 32; ++l) if (exists(l) && (val(l) & 1)) ones |= 1u << l;
    EXPECT("ballot", ptx_ballot(v & 1, ~0u), ones);
    EXPECT("ballot under a mask", ptx_ballot(v & 1, 0x0f0f0f0fu), ones & 0x0f0f0f0fu);
    want_all = ones == warp_active; any = ones != 0;
    EXPECT("vote.all", ptx_vote_all(v & 1, ~0u), want_all);
    EXPECT("vote.any", ptx_vote_any(v & 1, ~0u), any);
    EXPECT("vote.uni", ptx_vote_uni(v & 1, ~0u), ones == 0 || ones == warp_active);
    EXPECT("vote.uni of a constant", ptx_vote_uni(true, ~0u), 1);
    // match: groups of equal values.
    uint32_t key = v & 3, same = 0;
    for (int l = 0; l < 32; ++l) if (exists(l) && (val(l) & 3) == key) same |= 1u << l;
    EXPECT("match.any.b32", ptx_match_any_b32(key, ~0u), same);
    EXPECT("match.any.b64", ptx_match_any_b64((uint64_t)key << 40 | 5, ~0u), same);
    bool p;
    uint32_t m = ptx_match_all_b32(key, ~0u, p);
    bool all_same = same == warp_active;
    EXPECT("match.all.b32", m, all_same ? warp_active : 0);
    EXPECT("match.all.b32 predicate", p, all_same);
    m = ptx_match_all_b64(7ull << 35, ~0u, p);
    EXPECT("match.all.b64 uniform", m, warp_active);
    EXPECT("match.all.b64 uniform predicate", p, 1);
    // redux over the warp's active lanes.
    uint32_t sum = 0, mnu = ~0u, mxu = 0, an = ~0u, orv = 0, xo = 0;
    int32_t mns = INT32_MAX, mxs = INT32_MIN;
    for (int l = 0; l < 32; ++l) if (exists(l)) {
        uint32_t x = val(l);
        sum += x; mnu = x < mnu ? x : mnu; mxu = x > mxu ? x : mxu; an &= x; orv |= x; xo ^= x;
        mns = (int32_t)x < mns ? (int32_t)x : mns; mxs = (int32_t)x > mxs ? (int32_t)x : mxs;
    }
    EXPECT("redux.add", ptx_redux(0, false, v, ~0u), sum);
    EXPECT("redux.min.u32", ptx_redux(1, false, v, ~0u), mnu);
    EXPECT("redux.min.s32", ptx_redux(1, true, v, ~0u), (uint32_t)mns);
    EXPECT("redux.max.u32", ptx_redux(2, false, v, ~0u), mxu);
    EXPECT("redux.max.s32", ptx_redux(2, true, v, ~0u), (uint32_t)mxs);
    EXPECT("redux.and", ptx_redux(3, false, v, ~0u), an);
    EXPECT("redux.or", ptx_redux(4, false, v, ~0u), orv);
    EXPECT("redux.xor", ptx_redux(5, false, v, ~0u), xo);
}

// Runs every lane of `active` (hardware lanes) of one wavefront.
static void scenario(const char* name, uint64_t active, uint64_t seed) {
    active_lanes = active & (W == 64 ? ~0ull : 0xffffffffull);
    for (int g = 0; g < 2; ++g) {
        groups[g].n = __builtin_popcountll(active_lanes & (W == 64 ? (0xffffffffull << (32 * g)) : (g ? 0 : 0xffffffffull)));
        groups[g].arrived = 0;
    }
    for (int i = 0; i < 64; ++i) {
        seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17;
        inputs[i] = i % 7 == 3 ? 0x12345678u : (uint32_t)(seed >> 11);
    }
    int before = bad;
    std::vector<std::thread> t;
    for (int i = 0; i < W; ++i)
        if ((active_lanes >> i) & 1) t.emplace_back(lane_main, i);
    for (auto& x : t) x.join();
    printf("wave%d %s: %s\n", W, name, bad == before ? "ok" : "FAILED");
}

int main() {
    scenario("all lanes", ~0ull, 1);
    scenario("lanes 0..47 (a 48-thread block: a partial second warp on wave64)", (1ull << 48) - 1, 2);
    scenario("lanes 0..31 (a 96-thread block's last wave64: one warp)", 0xffffffffull, 3);
    scenario("even lanes (a branch)", 0x5555555555555555ull, 4);
    scenario("lanes 3..40 (a branch)", ((1ull << 41) - 1) & ~7ull, 5);
    scenario("one lane per warp", (1ull << 5) | (1ull << 40), 6);
    printf("%d mismatches\n", bad);
    return bad != 0;
}

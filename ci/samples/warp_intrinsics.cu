// Warp-level intrinsics: __shfl_down_sync (sum), __shfl_xor_sync (butterfly max), __shfl_up_sync
// (inclusive scan), __shfl_sync with a width of 16 (broadcast within half warps), __ballot_sync
// with the full mask and with a partial mask inside a branch, __all_sync/__any_sync, __popc,
// __match_any_sync and __reduce_add_sync. Each warp writes its answers; the host recomputes them.
#define SAMPLE "warp_intrinsics"
#include "common.cuh"
#include <algorithm>
#include <vector>

const unsigned FULL = 0xffffffffu;
struct WarpOut {
    int sum, max, all_pos, any_big, reduce, popc;
    unsigned ballot, partial_ballot;
    int scan[32];
    int bcast[32];
    unsigned match[32];
};

__global__ void warps(const int *v, WarpOut *out) {
    int lane = threadIdx.x % 32;
    int w = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int x = v[w * 32 + lane];
    WarpOut *o = &out[w];

    int s = x;
    for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(FULL, s, d);
    if (lane == 0) o->sum = s;

    int m = x;
    for (int d = 1; d < 32; d *= 2) m = max(m, __shfl_xor_sync(FULL, m, d));
    if (lane == 31) o->max = m;

    int sc = x;
    for (int d = 1; d < 32; d *= 2) {
        int up = __shfl_up_sync(FULL, sc, d);
        if (lane >= d) sc += up;
    }
    o->scan[lane] = sc;
    o->bcast[lane] = __shfl_sync(FULL, x, 7, 16); // lane 7 of each half warp
    unsigned b = __ballot_sync(FULL, x & 1);
    if (lane == 0) {
        o->ballot = b;
        o->popc = __popc(b);
    }
    int all = __all_sync(FULL, x > 0), any = __any_sync(FULL, x > 900);
    if (lane == 0) {
        o->all_pos = all;
        o->any_big = any;
    }
    if (lane < 10) {
        unsigned pb = __ballot_sync(0x3ffu, x % 3 == 0); // only lanes 0..9 take part
        if (lane == 9) o->partial_ballot = pb;
    }
    o->match[lane] = __match_any_sync(FULL, x % 5);
    int r = __reduce_add_sync(FULL, x % 100);
    if (lane == 3) o->reduce = r;
}

int main() {
    const int W = 256; // warps
    std::vector<int> v(W * 32);
    for (int i = 0; i < W * 32; i++) // a zero in every even warp: __all_sync both ways
        v[i] = i % 64 == 5 ? 0 : (int)((i * 7919u + 13u) % 1000u) + 1;
    int *dv;
    WarpOut *dout;
    CK(cudaMalloc(&dv, v.size() * sizeof(int)));
    CK(cudaMalloc(&dout, W * sizeof(WarpOut)));
    CK(cudaMemcpy(dv, v.data(), v.size() * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dout, 0, W * sizeof(WarpOut)));
    warps<<<W * 32 / 128, 128>>>(dv, dout);
    CK_LAUNCH();
    std::vector<WarpOut> got(W);
    CK(cudaMemcpy(got.data(), dout, W * sizeof(WarpOut), cudaMemcpyDeviceToHost));

    for (int w = 0; w < W; w++) {
        const int *x = &v[w * 32];
        const WarpOut &g = got[w];
        int sum = 0, mx = x[0], all = 1, any = 0, red = 0, sc = 0;
        unsigned ballot = 0, pb = 0;
        for (int l = 0; l < 32; l++) {
            sum += x[l];
            mx = std::max(mx, x[l]);
            all &= x[l] > 0;
            any |= x[l] > 900;
            red += x[l] % 100;
            if (x[l] & 1) ballot |= 1u << l;
            if (l < 10 && x[l] % 3 == 0) pb |= 1u << l;
            sc += x[l];
            EXPECT(g.scan[l] == sc, "warp %d: scan[%d] = %d, host %d", w, l, g.scan[l], sc);
            int src = (l / 16) * 16 + 7;
            EXPECT(g.bcast[l] == x[src], "warp %d: shfl width 16 lane %d: %d, host %d", w, l,
                   g.bcast[l], x[src]);
            unsigned mm = 0;
            for (int k = 0; k < 32; k++)
                if (x[k] % 5 == x[l] % 5) mm |= 1u << k;
            EXPECT(g.match[l] == mm, "warp %d: match_any lane %d: 0x%x, host 0x%x", w, l,
                   g.match[l], mm);
        }
        EXPECT(g.sum == sum, "warp %d: shfl_down sum %d, host %d", w, g.sum, sum);
        EXPECT(g.max == mx, "warp %d: shfl_xor max %d, host %d", w, g.max, mx);
        EXPECT(g.ballot == ballot, "warp %d: ballot 0x%x, host 0x%x", w, g.ballot, ballot);
        EXPECT(g.popc == __builtin_popcount(ballot), "warp %d: __popc %d, host %d", w, g.popc,
               __builtin_popcount(ballot));
        EXPECT(g.partial_ballot == pb, "warp %d: partial ballot 0x%x, host 0x%x", w,
               g.partial_ballot, pb);
        EXPECT((g.all_pos != 0) == (all != 0) && (g.any_big != 0) == (any != 0),
               "warp %d: all %d any %d", w, g.all_pos, g.any_big);
        EXPECT(g.reduce == red, "warp %d: reduce_add %d, host %d", w, g.reduce, red);
    }
    CK(cudaFree(dv));
    CK(cudaFree(dout));
    return pass();
}

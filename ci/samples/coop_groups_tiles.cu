// Cooperative groups inside a block: this_thread_block, tiled_partition<32> and <8> with
// cg::reduce (plus, greater), tiled_partition<16> with cg::inclusive_scan, a tile of 4 made at
// run time (tiled_partition(block, 4)) synchronising through shared memory, meta_group_rank, and
// coalesced_threads() for warp-aggregated stream compaction. All checked against the host.
#define SAMPLE "coop_groups_tiles"
#include "common.cuh"
#include <algorithm>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cooperative_groups/scan.h>
#include <vector>
namespace cg = cooperative_groups;

const int BLOCK = 256;

__global__ void tiles(const int *in, int *sum32, int *max8, int *scan16, int *sum4, int *meta,
                      int *compact, int *count) {
    __shared__ int sh[BLOCK];
    cg::thread_block block = cg::this_thread_block();
    int i = blockIdx.x * BLOCK + block.thread_rank();
    int x = in[i];

    cg::thread_block_tile<32> t32 = cg::tiled_partition<32>(block);
    int s = cg::reduce(t32, x, cg::plus<int>());
    if (t32.thread_rank() == 0) sum32[i / 32] = s;

    cg::thread_block_tile<8> t8 = cg::tiled_partition<8>(block);
    int m = cg::reduce(t8, x, cg::greater<int>());
    if (t8.thread_rank() == 0) max8[i / 8] = m;
    if (t8.thread_rank() == 0) meta[i / 8] = t8.meta_group_rank() * 1000 + t8.meta_group_size();

    cg::thread_block_tile<16> t16 = cg::tiled_partition<16>(block);
    scan16[i] = cg::inclusive_scan(t16, x);

    cg::thread_group t4 = cg::tiled_partition(block, 4);
    sh[block.thread_rank()] = x;
    t4.sync();
    if (t4.thread_rank() == 0) {
        int base = block.thread_rank();
        sum4[i / 4] = sh[base] + sh[base + 1] + sh[base + 2] + sh[base + 3];
    }
    block.sync();

    if (x % 2 == 0) {
        cg::coalesced_group active = cg::coalesced_threads();
        int slot = 0;
        if (active.thread_rank() == 0) slot = atomicAdd(count, (int)active.size());
        slot = active.shfl(slot, 0) + active.thread_rank();
        compact[slot] = x;
    }
}

int main() {
    const int blocks = 64, n = blocks * BLOCK;
    std::vector<int> h(n);
    for (int i = 0; i < n; i++) h[i] = (int)((i * 40503u + 7u) % 5003u) - 2000;
    int *din, *d32, *d8, *d16, *d4, *dmeta, *dcomp, *dcount;
    CK(cudaMalloc(&din, n * sizeof(int)));
    CK(cudaMalloc(&d32, n / 32 * sizeof(int)));
    CK(cudaMalloc(&d8, n / 8 * sizeof(int)));
    CK(cudaMalloc(&d16, n * sizeof(int)));
    CK(cudaMalloc(&d4, n / 4 * sizeof(int)));
    CK(cudaMalloc(&dmeta, n / 8 * sizeof(int)));
    CK(cudaMalloc(&dcomp, n * sizeof(int)));
    CK(cudaMalloc(&dcount, sizeof(int)));
    CK(cudaMemset(dcount, 0, sizeof(int)));
    CK(cudaMemcpy(din, h.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    tiles<<<blocks, BLOCK>>>(din, d32, d8, d16, d4, dmeta, dcomp, dcount);
    CK_LAUNCH();
    std::vector<int> g32(n / 32), g8(n / 8), g16(n), g4(n / 4), gmeta(n / 8), gcomp(n);
    int gcount = 0;
    CK(cudaMemcpy(g32.data(), d32, g32.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g8.data(), d8, g8.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g16.data(), d16, g16.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(g4.data(), d4, g4.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gmeta.data(), dmeta, gmeta.size() * sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(&gcount, dcount, sizeof(int), cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(gcomp.data(), dcomp, n * sizeof(int), cudaMemcpyDeviceToHost));

    for (int t = 0; t < n / 32; t++) {
        int s = 0;
        for (int k = 0; k < 32; k++) s += h[t * 32 + k];
        EXPECT(g32[t] == s, "tile32 %d: reduce plus %d, host %d", t, g32[t], s);
    }
    for (int t = 0; t < n / 8; t++) {
        int m = *std::max_element(&h[t * 8], &h[t * 8] + 8);
        EXPECT(g8[t] == m, "tile8 %d: reduce greater %d, host %d", t, g8[t], m);
        int want_meta = (t % (BLOCK / 8)) * 1000 + BLOCK / 8;
        EXPECT(gmeta[t] == want_meta, "tile8 %d: meta %d, want %d", t, gmeta[t], want_meta);
    }
    for (int t = 0; t < n / 16; t++) {
        int s = 0;
        for (int k = 0; k < 16; k++) {
            s += h[t * 16 + k];
            EXPECT(g16[t * 16 + k] == s, "tile16 scan [%d]: %d, host %d", t * 16 + k,
                   g16[t * 16 + k], s);
        }
    }
    for (int t = 0; t < n / 4; t++) {
        int s = h[4 * t] + h[4 * t + 1] + h[4 * t + 2] + h[4 * t + 3];
        EXPECT(g4[t] == s, "tile4 %d: %d, host %d", t, g4[t], s);
    }
    std::vector<int> evens;
    for (int x : h)
        if (x % 2 == 0) evens.push_back(x);
    EXPECT(gcount == (int)evens.size(), "compaction kept %d, host %zu", gcount, evens.size());
    gcomp.resize(gcount);
    std::sort(gcomp.begin(), gcomp.end());
    std::sort(evens.begin(), evens.end());
    EXPECT(gcomp == evens, "compaction: the kept values differ from the host's");

    for (int *p : {din, d32, d8, d16, d4, dmeta, dcomp, dcount}) CK(cudaFree(p));
    return pass();
}

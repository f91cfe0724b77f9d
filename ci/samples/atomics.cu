// Atomics in global and shared memory: a histogram (atomicAdd on int, shared then global),
// atomicAdd on unsigned long long, float and double, atomicMax/atomicMin, atomicAnd/Or/Xor,
// atomicExch, atomicInc with wrap-around, and an atomicCAS loop implementing a custom operation
// (a product modulo a prime). Every result is compared with the host's.
#define SAMPLE "atomics"
#include "common.cuh"
#include <algorithm>
#include <vector>

const int BINS = 64;
const unsigned P = 1000003u;

struct Totals {
    unsigned long long sum;
    float fsum;
    double dsum;
    int imax, imin;
    unsigned band, bor, bxor, inc, prod;
    int exch_hits;
};

__global__ void work(const int *v, int n, int *hist, Totals *t, int *slot) {
    __shared__ int local[BINS];
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        int x = v[i];
        atomicAdd(&local[x % BINS], 1);
        atomicAdd(&t->sum, (unsigned long long)x);
        atomicAdd(&t->fsum, 0.5f); // exact: n/2 is a representable count of halves here
        atomicAdd(&t->dsum, (double)x * 0.25);
        atomicMax(&t->imax, x - 5000);
        atomicMin(&t->imin, x - 5000);
        atomicAnd(&t->band, ~(1u << (x % 32)) | 0x1u);
        atomicOr(&t->bor, 1u << (x % 29));
        atomicXor(&t->bxor, (unsigned)x);
        atomicInc(&t->inc, 999u); // counts 0..999 then wraps to 0
        unsigned old = t->prod, assumed;
        do {
            assumed = old;
            unsigned long long next = (unsigned long long)assumed * (unsigned)(x % 7 + 1) % P;
            old = atomicCAS(&t->prod, assumed, (unsigned)next);
        } while (old != assumed);
        if (atomicExch(&slot[i % 8], x) >= 0) atomicAdd(&t->exch_hits, 1);
    }
    __syncthreads();
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&hist[b], local[b]);
}

int main() {
    const int n = 1 << 18;
    std::vector<int> v(n);
    for (int i = 0; i < n; i++) v[i] = (int)((i * 2654435761u) % 10007u);

    // The host's answers.
    std::vector<int> hist(BINS, 0);
    Totals want = {0, 0.0f, 0.0, -2147483647, 2147483647, 0xffffffffu, 0u, 0u, 0u, 1u, 0};
    for (int i = 0; i < n; i++) {
        int x = v[i];
        hist[x % BINS]++;
        want.sum += x;
        want.dsum += (double)x * 0.25;
        want.imax = std::max(want.imax, x - 5000);
        want.imin = std::min(want.imin, x - 5000);
        want.band &= ~(1u << (x % 32)) | 0x1u;
        want.bor |= 1u << (x % 29);
        want.bxor ^= (unsigned)x;
        want.inc = want.inc >= 999u ? 0u : want.inc + 1; // atomicInc's rule
        want.prod = (unsigned)((unsigned long long)want.prod * (unsigned)(x % 7 + 1) % P);
    }
    want.fsum = 0.5f * n;
    want.exch_hits = n - 8; // the first exchange into each of the 8 slots finds -1

    int *dv, *dhist, *dslot;
    Totals *dt;
    CK(cudaMalloc(&dv, n * sizeof(int)));
    CK(cudaMalloc(&dhist, BINS * sizeof(int)));
    CK(cudaMalloc(&dslot, 8 * sizeof(int)));
    CK(cudaMalloc(&dt, sizeof(Totals)));
    CK(cudaMemcpy(dv, v.data(), n * sizeof(int), cudaMemcpyHostToDevice));
    CK(cudaMemset(dhist, 0, BINS * sizeof(int)));
    CK(cudaMemset(dslot, 0xff, 8 * sizeof(int))); // -1
    Totals init = {0, 0.0f, 0.0, -2147483647, 2147483647, 0xffffffffu, 0u, 0u, 0u, 1u, 0};
    CK(cudaMemcpy(dt, &init, sizeof init, cudaMemcpyHostToDevice));
    work<<<120, 256>>>(dv, n, dhist, dt, dslot);
    CK_LAUNCH();
    Totals got;
    std::vector<int> ghist(BINS);
    CK(cudaMemcpy(&got, dt, sizeof got, cudaMemcpyDeviceToHost));
    CK(cudaMemcpy(ghist.data(), dhist, BINS * sizeof(int), cudaMemcpyDeviceToHost));

    for (int b = 0; b < BINS; b++)
        EXPECT(ghist[b] == hist[b], "histogram bin %d: %d, host %d", b, ghist[b], hist[b]);
    EXPECT(got.sum == want.sum, "u64 sum %llu, host %llu", got.sum, want.sum);
    EXPECT(got.fsum == want.fsum, "float sum %g, host %g", got.fsum, want.fsum);
    EXPECT(got.dsum == want.dsum, "double sum %.17g, host %.17g", got.dsum, want.dsum);
    EXPECT(got.imax == want.imax && got.imin == want.imin, "max/min %d/%d, host %d/%d", got.imax,
           got.imin, want.imax, want.imin);
    EXPECT(got.band == want.band && got.bor == want.bor && got.bxor == want.bxor,
           "and/or/xor 0x%x/0x%x/0x%x, host 0x%x/0x%x/0x%x", got.band, got.bor, got.bxor,
           want.band, want.bor, want.bxor);
    // atomicInc's final value depends only on how many increments happened: n mod 1000.
    EXPECT(got.inc == want.inc, "atomicInc %u, host %u", got.inc, want.inc);
    EXPECT(got.prod == want.prod, "CAS product %u, host %u", got.prod, want.prod);
    EXPECT(got.exch_hits == want.exch_hits, "atomicExch hits %d, want %d", got.exch_hits,
           want.exch_hits);

    CK(cudaFree(dv));
    CK(cudaFree(dhist));
    CK(cudaFree(dslot));
    CK(cudaFree(dt));
    return pass();
}

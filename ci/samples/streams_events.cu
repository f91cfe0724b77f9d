// Streams and events: four streams (with priorities) each producing a slice, a consumer stream
// that waits on all four through cudaStreamWaitEvent, cudaStreamQuery/cudaEventQuery,
// cudaStreamGetPriority/GetFlags, and the legacy default stream ordering after the others.
#define SAMPLE "streams_events"
#include "common.cuh"
#include <vector>

// Slow enough that a missing dependency would be seen: each thread iterates.
__global__ void produce(float *out, int n, int seed) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = (float)(seed + i % 97);
    for (int k = 0; k < 200; k++) x = x * 0.5f + 1.0f; // converges to 2, bit-exact
    out[i] = x + (float)seed;
}
__global__ void combine(float *const *parts, int nparts, float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float s = 0.0f;
    for (int p = 0; p < nparts; p++) s += parts[p][i];
    out[i] = s;
}

int main() {
    const int n = 1 << 18, P = 4;
    int lo = 0, hi = 0;
    CK(cudaDeviceGetStreamPriorityRange(&lo, &hi));
    cudaStream_t prod[P], cons;
    cudaEvent_t ready[P];
    float *parts[P];
    for (int p = 0; p < P; p++) {
        int prio = (p % 2) ? hi : lo;
        CK(cudaStreamCreateWithPriority(&prod[p], cudaStreamNonBlocking, prio));
        int got = 12345;
        CK(cudaStreamGetPriority(prod[p], &got));
        EXPECT(got == prio, "stream %d: priority %d, asked %d", p, got, prio);
        unsigned int fl = 0;
        CK(cudaStreamGetFlags(prod[p], &fl));
        EXPECT(fl == cudaStreamNonBlocking, "stream %d: flags %u", p, fl);
        CK(cudaEventCreateWithFlags(&ready[p], cudaEventDisableTiming));
        CK(cudaMalloc(&parts[p], n * sizeof(float)));
    }
    CK(cudaStreamCreate(&cons));
    float **dparts, *out;
    CK(cudaMalloc(&dparts, sizeof parts));
    CK(cudaMalloc(&out, n * sizeof(float)));
    CK(cudaMemcpy(dparts, parts, sizeof parts, cudaMemcpyHostToDevice));

    std::vector<float> host(n);
    for (int round = 0; round < 3; round++) {
        for (int p = 0; p < P; p++) {
            produce<<<n / 256, 256, 0, prod[p]>>>(parts[p], n, 10 * round + p);
            CK_LAUNCH();
            CK(cudaEventRecord(ready[p], prod[p]));
            CK(cudaStreamWaitEvent(cons, ready[p], 0));
        }
        combine<<<n / 256, 256, 0, cons>>>(dparts, P, out, n);
        CK_LAUNCH();
        CK(cudaMemcpyAsync(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost, cons));
        CK(cudaStreamSynchronize(cons));
        for (int p = 0; p < P; p++) {
            // cons waited on every event, so they have all completed.
            CK(cudaEventQuery(ready[p]));
            CK(cudaStreamQuery(prod[p]));
        }
        for (int i = 0; i < n; i++) {
            float want = 0.0f;
            for (int p = 0; p < P; p++) {
                float x = (float)(10 * round + p + i % 97);
                for (int k = 0; k < 200; k++) x = x * 0.5f + 1.0f;
                want += x + (float)(10 * round + p);
            }
            EXPECT(host[i] == want, "round %d: out[%d] = %.9g, host says %.9g", round, i, host[i],
                   want);
        }
    }

    // The legacy default stream waits for blocking streams: cons is one (cudaStreamCreate).
    produce<<<n / 256, 256, 0, cons>>>(out, n, 99);
    CK_LAUNCH();
    CK(cudaMemcpy(host.data(), out, n * sizeof(float), cudaMemcpyDeviceToHost));
    {
        float x = (float)(99 + 5 % 97);
        for (int k = 0; k < 200; k++) x = x * 0.5f + 1.0f;
        EXPECT(host[5] == x + 99.0f, "default stream did not order after cons: %g", host[5]);
    }
    CK(cudaStreamQuery(cons));

    for (int p = 0; p < P; p++) {
        CK(cudaStreamDestroy(prod[p]));
        CK(cudaEventDestroy(ready[p]));
        CK(cudaFree(parts[p]));
    }
    CK(cudaStreamDestroy(cons));
    CK(cudaFree(dparts));
    CK(cudaFree(out));
    return pass();
}

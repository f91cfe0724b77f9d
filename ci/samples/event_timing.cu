// Event timing: cudaEventElapsedTime around kernels that spin for a known number of clock
// cycles, additivity of intervals, cudaEventQuery before and after completion, blocking-sync
// events, and the error for timing an event created with cudaEventDisableTiming.
#define SAMPLE "event_timing"
#include "common.cuh"

__global__ void spin(long long cycles, int *out) {
    long long t0 = clock64();
    while (clock64() - t0 < cycles) {
    }
    if (threadIdx.x == 0 && blockIdx.x == 0) *out += 1;
}

int main() {
    int dev = 0, khz = 0;
    CK(cudaGetDevice(&dev));
    CK(cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, dev));
    EXPECT(khz > 0, "cudaDevAttrClockRate %d", khz);
    // The clock runs at most at its peak rate, so this many cycles take at least ~ms ms.
    const double ms = 20.0;
    const long long cycles = (long long)(ms * khz);

    int *d = nullptr;
    CK(cudaMalloc(&d, sizeof(int)));
    CK(cudaMemset(d, 0, sizeof(int)));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    cudaEvent_t a, b, c, untimed;
    CK(cudaEventCreate(&a));
    CK(cudaEventCreateWithFlags(&b, cudaEventBlockingSync));
    CK(cudaEventCreate(&c));
    CK(cudaEventCreateWithFlags(&untimed, cudaEventDisableTiming));

    CK(cudaEventRecord(a, s));
    spin<<<1, 32, 0, s>>>(cycles, d);
    CK_LAUNCH();
    CK(cudaEventRecord(b, s));
    spin<<<1, 32, 0, s>>>(cycles, d);
    CK_LAUNCH();
    CK(cudaEventRecord(c, s));
    CK(cudaEventRecord(untimed, s));
    cudaError_t q = cudaEventQuery(c); // 40 ms of work queued ahead of it: normally not ready
    EXPECT(q == cudaSuccess || q == cudaErrorNotReady, "cudaEventQuery before completion: %s",
           cudaGetErrorName(q));
    // Whatever the query left as the last error, it is at most cudaErrorNotReady: clear it.
    q = cudaGetLastError();
    EXPECT(q == cudaSuccess || q == cudaErrorNotReady, "last error after cudaEventQuery: %s",
           cudaGetErrorName(q));
    CK(cudaEventSynchronize(b)); // blocking-sync event
    CK(cudaEventSynchronize(c));
    CK(cudaEventQuery(c));

    float ab = 0, bc = 0, ac = 0;
    CK(cudaEventElapsedTime(&ab, a, b));
    CK(cudaEventElapsedTime(&bc, b, c));
    CK(cudaEventElapsedTime(&ac, a, c));
    EXPECT(ab >= 0.5 * ms && ab < 5000.0, "first kernel took %.3f ms, expected >= %.1f", ab,
           0.5 * ms);
    EXPECT(bc >= 0.5 * ms && bc < 5000.0, "second kernel took %.3f ms", bc);
    EXPECT(std::fabs(ab + bc - ac) < 0.05 * ac + 0.01,
           "intervals do not add up: %.3f + %.3f vs %.3f", ab, bc, ac);
    float back = 0;
    cudaError_t e = cudaEventElapsedTime(&back, a, untimed);
    EXPECT(e == cudaErrorInvalidResourceHandle, "timing an untimed event: %s, want "
           "cudaErrorInvalidResourceHandle", cudaGetErrorName(e));
    e = cudaGetLastError(); // returns (and clears) that error, if it was recorded
    EXPECT(e == cudaSuccess || e == cudaErrorInvalidResourceHandle, "last error: %s",
           cudaGetErrorName(e));
    CK(cudaGetLastError()); // cleared now

    int h = 0;
    CK(cudaMemcpy(&h, d, sizeof h, cudaMemcpyDeviceToHost));
    EXPECT(h == 2, "the spin kernels counted %d, want 2", h);

    CK(cudaEventDestroy(a));
    CK(cudaEventDestroy(b));
    CK(cudaEventDestroy(c));
    CK(cudaEventDestroy(untimed));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(d));
    return pass();
}

// Host callbacks in stream order: cudaLaunchHostFunc between kernels and copies. A callback
// checks the data a preceding copy brought back, then writes pinned memory that a following
// copy takes to the device, so both directions of the ordering are observed. Also the older
// cudaStreamAddCallback, and a callback on a second stream gated by an event.
#define SAMPLE "host_callback"
#include "common.cuh"
#include <atomic>

struct Stage {
    const int *seen; // pinned: what the device produced, copied back before this callback
    int *next;       // pinned: what the callback hands to the next kernel
    int n, expect, give;
    std::atomic<int> *order; // callbacks count up in order
    int my_turn;
    bool ok;
};

static void CUDART_CB check_and_feed(void *arg) {
    Stage *st = (Stage *)arg;
    st->ok = st->order->load() == st->my_turn;
    for (int i = 0; i < st->n && st->ok; i++) st->ok = st->seen[i] == st->expect + i;
    for (int i = 0; i < st->n; i++) st->next[i] = st->give;
    st->order->fetch_add(1);
}
static void CUDART_CB old_style(cudaStream_t, cudaError_t status, void *arg) {
    *(int *)arg = status == cudaSuccess ? 1 : -1;
}

// out[i] = in[i] + i; with in[i] = v for all i, out[i] = v + i.
__global__ void step(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = in[i] + i;
}

int main() {
    const int n = 4096, S = 6;
    int *h_seen, *h_next, *d_in, *d_out;
    CK(cudaMallocHost(&h_seen, S * n * sizeof(int)));
    CK(cudaMallocHost(&h_next, (S + 1) * n * sizeof(int)));
    CK(cudaMalloc(&d_in, n * sizeof(int)));
    CK(cudaMalloc(&d_out, n * sizeof(int)));
    for (int i = 0; i < n; i++) h_next[i] = 100; // stage 0's input
    std::atomic<int> order(0);
    Stage st[S];
    cudaStream_t s;
    CK(cudaStreamCreate(&s));
    int value = 100;
    for (int k = 0; k < S; k++) {
        // input of stage k (written by the host now for k = 0, by callback k-1 otherwise)
        CK(cudaMemcpyAsync(d_in, h_next + k * n, n * sizeof(int), cudaMemcpyHostToDevice, s));
        step<<<n / 256, 256, 0, s>>>(d_in, d_out, n);
        CK_LAUNCH();
        CK(cudaMemcpyAsync(h_seen + k * n, d_out, n * sizeof(int), cudaMemcpyDeviceToHost, s));
        st[k] = Stage{h_seen + k * n, h_next + (k + 1) * n, n, value, 1000 * (k + 1), &order, k,
                      false};
        CK(cudaLaunchHostFunc(s, check_and_feed, &st[k]));
        value = 1000 * (k + 1);
    }
    int old_flag = 0;
    CK(cudaStreamAddCallback(s, old_style, &old_flag, 0));

    // A second stream's callback runs only after the first stream's work (event gate).
    cudaStream_t s2;
    cudaEvent_t gate;
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    CK(cudaEventCreateWithFlags(&gate, cudaEventDisableTiming));
    CK(cudaEventRecord(gate, s));
    CK(cudaStreamWaitEvent(s2, gate, 0));
    Stage last{h_seen + (S - 1) * n, h_next + S * n, n, 1000 * (S - 1), -1, &order, S, false};
    CK(cudaLaunchHostFunc(s2, check_and_feed, &last));
    CK(cudaStreamSynchronize(s2));
    CK(cudaStreamSynchronize(s));

    for (int k = 0; k < S; k++) {
        EXPECT(st[k].ok, "callback %d saw wrong data or ran out of order", k);
        int want_in = k == 0 ? 100 : 1000 * k;
        for (int i = 0; i < n; i++)
            EXPECT(h_seen[k * n + i] == want_in + i, "stage %d: out[%d] = %d, want %d", k, i,
                   h_seen[k * n + i], want_in + i);
    }
    EXPECT(last.ok, "the event-gated callback ran before the first stream finished");
    EXPECT(order.load() == S + 1, "%d callbacks ran, want %d", order.load(), S + 1);
    EXPECT(old_flag == 1, "cudaStreamAddCallback's callback: flag %d", old_flag);

    CK(cudaStreamDestroy(s));
    CK(cudaStreamDestroy(s2));
    CK(cudaEventDestroy(gate));
    CK(cudaFreeHost(h_seen));
    CK(cudaFreeHost(h_next));
    CK(cudaFree(d_in));
    CK(cudaFree(d_out));
    return pass();
}

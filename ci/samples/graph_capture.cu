// Stream capture into a graph: cudaStreamBeginCapture (global mode) over a copy from pinned
// memory, kernels forked onto a second stream and joined back through events, a memset and a
// copy back; cudaStreamIsCapturing, cudaStreamEndCapture, cudaGraphGetNodes,
// cudaGraphInstantiate; then the graph launched five times (on another stream), the host
// changing the pinned input between launches, device state accumulating across launches.
#define SAMPLE "graph_capture"
#include "common.cuh"
#include <vector>

__global__ void accumulate(long long *acc, const int *in, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += (long long)in[i] * k;
}
__global__ void square_into(int *dst, const int *in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] = in[i] * in[i] % 1000;
}
__global__ void add_scratch(long long *acc, const int *scratch, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) acc[i] += scratch[i];
}

int main() {
    const int n = 1 << 16, launches = 5;
    int *h_in;
    long long *h_out;
    CK(cudaMallocHost(&h_in, n * sizeof(int)));
    CK(cudaMallocHost(&h_out, n * sizeof(long long)));
    int *d_in, *d_sq, *d_scratch;
    long long *d_acc;
    CK(cudaMalloc(&d_in, n * sizeof(int)));
    CK(cudaMalloc(&d_sq, n * sizeof(int)));
    CK(cudaMalloc(&d_scratch, n * sizeof(int)));
    CK(cudaMalloc(&d_acc, n * sizeof(long long)));
    CK(cudaMemset(d_acc, 0, n * sizeof(long long)));

    cudaStream_t s, side, run;
    CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&run, cudaStreamNonBlocking));
    cudaEvent_t fork, join;
    CK(cudaEventCreateWithFlags(&fork, cudaEventDisableTiming));
    CK(cudaEventCreateWithFlags(&join, cudaEventDisableTiming));

    const int B = 256, G = n / B;
    CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    cudaStreamCaptureStatus st = cudaStreamCaptureStatusNone;
    CK(cudaStreamIsCapturing(s, &st));
    EXPECT(st == cudaStreamCaptureStatusActive, "cudaStreamIsCapturing: status %d", (int)st);
    CK(cudaMemcpyAsync(d_in, h_in, n * sizeof(int), cudaMemcpyHostToDevice, s));
    CK(cudaEventRecord(fork, s));
    CK(cudaStreamWaitEvent(side, fork, 0)); // side joins the capture
    square_into<<<G, B, 0, side>>>(d_sq, d_in, n);
    CK_LAUNCH();
    CK(cudaMemsetAsync(d_scratch, 0, n * sizeof(int), side));
    accumulate<<<G, B, 0, side>>>(d_acc, d_sq, n, 1);
    CK_LAUNCH();
    CK(cudaEventRecord(join, side));
    CK(cudaStreamWaitEvent(s, join, 0));
    accumulate<<<G, B, 0, s>>>(d_acc, d_in, n, 3);
    CK_LAUNCH();
    add_scratch<<<G, B, 0, s>>>(d_acc, d_scratch, n); // adds zeros: the memset ran first
    CK_LAUNCH();
    CK(cudaMemcpyAsync(h_out, d_acc, n * sizeof(long long), cudaMemcpyDeviceToHost, s));
    cudaGraph_t graph;
    CK(cudaStreamEndCapture(s, &graph));
    CK(cudaStreamIsCapturing(s, &st));
    EXPECT(st == cudaStreamCaptureStatusNone, "still capturing after cudaStreamEndCapture");

    size_t nodes = 0;
    CK(cudaGraphGetNodes(graph, nullptr, &nodes));
    EXPECT(nodes >= 7, "the captured graph has %zu nodes, want at least 7", nodes);
    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, graph, 0));

    // Before any launch: capture must not have executed anything.
    std::vector<long long> acc(n, 0);
    CK(cudaMemcpy(h_out, d_acc, n * sizeof(long long), cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++)
        EXPECT(h_out[i] == 0, "capture executed work: acc[%d] = %lld", i, h_out[i]);

    for (int l = 0; l < launches; l++) {
        for (int i = 0; i < n; i++) h_in[i] = (i * (l + 3)) % 4099 - 2000;
        CK(cudaGraphLaunch(exec, run));
        CK(cudaStreamSynchronize(run));
        for (int i = 0; i < n; i++) {
            int x = h_in[i];
            acc[i] += x * x % 1000 + 3LL * x;
            EXPECT(h_out[i] == acc[i], "launch %d: acc[%d] = %lld, host %lld", l, i, h_out[i],
                   acc[i]);
        }
    }

    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(graph));
    CK(cudaEventDestroy(fork));
    CK(cudaEventDestroy(join));
    for (cudaStream_t x : {s, side, run}) CK(cudaStreamDestroy(x));
    CK(cudaFreeHost(h_in));
    CK(cudaFreeHost(h_out));
    for (void *p : {(void *)d_in, (void *)d_sq, (void *)d_scratch, (void *)d_acc}) CK(cudaFree(p));
    return pass();
}

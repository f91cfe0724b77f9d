// A graph built node by node: a memset node and a 1-D host-to-device memcpy node feeding a
// kernel node, then a device-to-host memcpy node and a host node. Instantiated and launched;
// then the kernel's argument changed in the executable graph (cudaGraphExecKernelNodeSetParams),
// then in the graph and carried over with cudaGraphExecUpdate; each launch checked on the host.
#define SAMPLE "graph_explicit"
#include "common.cuh"

__global__ void mix(int *y, const int *x, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] += k * x[i];
}
static void CUDART_CB count_up(void *p) { ++*(int *)p; }

int main() {
    const int n = 10000;
    int *hx, *hy; // pinned: the memcpy nodes read and write them at every launch
    CK(cudaMallocHost(&hx, n * sizeof(int)));
    CK(cudaMallocHost(&hy, n * sizeof(int)));
    for (int i = 0; i < n; i++) hx[i] = i % 321 - 160;
    int *dx, *dy;
    CK(cudaMalloc(&dx, n * sizeof(int)));
    CK(cudaMalloc(&dy, n * sizeof(int)));
    int host_runs = 0;

    cudaGraph_t g;
    CK(cudaGraphCreate(&g, 0));
    cudaGraphNode_t set, up, kern, down, host;

    cudaMemsetParams mp = {};
    mp.dst = dy;
    mp.value = 5;
    mp.elementSize = sizeof(int);
    mp.width = n;
    mp.height = 1;
    CK(cudaGraphAddMemsetNode(&set, g, nullptr, 0, &mp));
    CK(cudaGraphAddMemcpyNode1D(&up, g, nullptr, 0, dx, hx, n * sizeof(int),
                                cudaMemcpyHostToDevice));

    int nn = n, k = 2;
    void *args[] = {&dy, &dx, &nn, &k};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)mix;
    kp.gridDim = dim3((n + 255) / 256);
    kp.blockDim = dim3(256);
    kp.kernelParams = args;
    cudaGraphNode_t kdeps[] = {set, up};
    CK(cudaGraphAddKernelNode(&kern, g, kdeps, 2, &kp));
    CK(cudaGraphAddMemcpyNode1D(&down, g, &kern, 1, hy, dy, n * sizeof(int),
                                cudaMemcpyDeviceToHost));
    cudaHostNodeParams hp = {};
    hp.fn = count_up;
    hp.userData = &host_runs;
    CK(cudaGraphAddHostNode(&host, g, &down, 1, &hp));

    size_t count = 0;
    CK(cudaGraphGetNodes(g, nullptr, &count));
    EXPECT(count == 5, "the graph has %zu nodes, want 5", count);
    cudaGraphNodeType type;
    CK(cudaGraphNodeGetType(kern, &type));
    EXPECT(type == cudaGraphNodeTypeKernel, "kernel node type %d", (int)type);
    CK(cudaGraphNodeGetType(set, &type));
    EXPECT(type == cudaGraphNodeTypeMemset, "memset node type %d", (int)type);
    size_t deps = 0;
    CK(cudaGraphNodeGetDependencies(kern, nullptr, nullptr, &deps));
    EXPECT(deps == 2, "the kernel node has %zu dependencies, want 2", deps);

    cudaGraphExec_t exec;
    CK(cudaGraphInstantiate(&exec, g, 0));
    cudaStream_t s;
    CK(cudaStreamCreate(&s));

    auto check = [&](int kk, int runs, const char *when) {
        for (int i = 0; i < n; i++)
            EXPECT(hy[i] == 5 + kk * hx[i], "%s: y[%d] = %d, want %d", when, i, hy[i],
                   5 + kk * hx[i]);
        EXPECT(host_runs == runs, "%s: the host node ran %d times, want %d", when, host_runs, runs);
    };
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    check(2, 1, "first launch");
    CK(cudaGraphLaunch(exec, s)); // the memset node resets y: same answer again
    CK(cudaStreamSynchronize(s));
    check(2, 2, "second launch");

    // The executable graph's kernel argument, changed in place.
    int k2 = -7;
    void *args2[] = {&dy, &dx, &nn, &k2};
    cudaKernelNodeParams kp2 = kp;
    kp2.kernelParams = args2;
    CK(cudaGraphExecKernelNodeSetParams(exec, kern, &kp2));
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    check(-7, 3, "after cudaGraphExecKernelNodeSetParams");

    // The graph's node changed, and the executable updated from the graph.
    int k3 = 11;
    void *args3[] = {&dy, &dx, &nn, &k3};
    cudaKernelNodeParams kp3 = kp;
    kp3.kernelParams = args3;
    CK(cudaGraphKernelNodeSetParams(kern, &kp3));
    cudaKernelNodeParams back = {};
    CK(cudaGraphKernelNodeGetParams(kern, &back));
    EXPECT(back.blockDim.x == 256 && back.gridDim.x == kp.gridDim.x,
           "kernel node params read back: block %u, grid %u", back.blockDim.x, back.gridDim.x);
    cudaGraphExecUpdateResultInfo info = {};
    CK(cudaGraphExecUpdate(exec, g, &info));
    EXPECT(info.result == cudaGraphExecUpdateSuccess, "cudaGraphExecUpdate result %d",
           (int)info.result);
    for (int i = 0; i < n; i++) hx[i] = 3 * (i % 77) - 100; // memcpy node reads the host array
    CK(cudaGraphLaunch(exec, s));
    CK(cudaStreamSynchronize(s));
    check(11, 4, "after cudaGraphExecUpdate");

    CK(cudaGraphExecDestroy(exec));
    CK(cudaGraphDestroy(g));
    CK(cudaStreamDestroy(s));
    CK(cudaFree(dx));
    CK(cudaFree(dy));
    CK(cudaFreeHost(hx));
    CK(cudaFreeHost(hy));
    return pass();
}

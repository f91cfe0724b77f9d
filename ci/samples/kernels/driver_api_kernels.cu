// Device code of the driver_api sample, compiled to PTX at build time (build.sh:
// `nvcc -ptx -arch=compute_90`) and embedded in the program as a string, so the program itself
// is host code on the Driver API alone. Not a program: build.sh builds only ci/samples/*.cu.
extern "C" {
__device__ int dev_counter;   // cuModuleGetGlobal: reset by the host, counted by count_pos
__constant__ float cbias[4];  // cuModuleGetGlobal: written by the host with cuMemcpyHtoD

__global__ void scale(float *v, int n, float k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] *= k;
}

__global__ void add_bias(float *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] += cbias[i % 4];
}

__global__ void count_pos(const float *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && v[i] > 0.0f) atomicAdd(&dev_counter, 1);
}
}

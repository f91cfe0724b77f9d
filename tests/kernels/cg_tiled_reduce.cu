// anycuda-kernel: cg_tile_reduce
// anycuda-kernel: cg_reduce_builtin
// Cooperative groups: thread_block, tiled_partition<32> and cg::reduce.
// A 32-thread tile works on both 32- and 64-wide hardware warps.
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>

namespace cg = cooperative_groups;

template <unsigned int TILE>
__device__ float tile_sum(cg::thread_block_tile<TILE> tile, float v)
{
    for (unsigned int offset = tile.size() / 2; offset > 0; offset /= 2) {
        v += tile.shfl_down(v, offset);
    }
    return v;
}

extern "C" __global__ void cg_tile_reduce(const float* in, float* out, int n)
{
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);

    unsigned int i = blockIdx.x * blockDim.x + block.thread_rank();
    float v = (i < (unsigned int)n) ? in[i] : 0.0f;
    v = tile_sum(tile, v);
    block.sync();
    if (tile.thread_rank() == 0) atomicAdd(out, v);
}

extern "C" __global__ void cg_reduce_builtin(const int* in, int* out, int n)
{
    auto block = cg::this_thread_block();
    auto tile = cg::tiled_partition<16>(block);
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int v = (i < n) ? in[i] : 0;
    int sum = cg::reduce(tile, v, cg::plus<int>());
    int biggest = cg::reduce(tile, v, cg::greater<int>());
    if (tile.thread_rank() == 0) {
        atomicAdd(out, sum);
        atomicMax(out + 1, biggest);
    }
    tile.sync();
}

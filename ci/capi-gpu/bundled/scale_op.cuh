// A local header of scale.cu: `anycuda nvcc` records it in the PTX's source bundle, so the HIP
// backend can compile the kernel from source (ci/capi-gpu/bundled_ptx.c).
#pragma once
template <typename T> __device__ T scale_op(T x, T a) { return a * x + T(1); }

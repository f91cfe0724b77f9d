//! Graph node parameters: kernel and memset nodes in HIP's field orders and back.

use crate::conv::launch::{dim3_to_cuda, dim3_to_hip};
use crate::conv::{devptr_to_cuda, devptr_to_hip, Refusal};
use crate::hip_types::{hipKernelNodeParams, hipMemsetParams};
use anycuda_api::driver::{
    CUgraphExecUpdateResultInfo, CUDA_GRAPH_INSTANTIATE_PARAMS, CUDA_MEMSET_NODE_PARAMS,
};
use anycuda_api::runtime::{
    cudaError_t, cudaGraphExecUpdateResultInfo, cudaGraphInstantiateParams, cudaKernelNodeParams,
    cudaKernelNodeParamsV2, cudaMemsetParams, cudaMemsetParamsV2,
};

/// `cudaKernelNodeParams` → HIP's (other field order). CUDA's `extra` uses CUDA's launch
/// markers and HIP may keep the array past the call, so `extra` is not supported on AMD.
pub(crate) fn kernel_params_to_hip(
    p: &cudaKernelNodeParams,
) -> Result<hipKernelNodeParams, cudaError_t> {
    if !p.extra.is_null() {
        return Err(cudaError_t::cudaErrorNotSupported);
    }
    if p.func.is_null() {
        return Err(cudaError_t::cudaErrorInvalidDeviceFunction);
    }
    Ok(hipKernelNodeParams {
        blockDim: dim3_to_hip(p.blockDim),
        extra: core::ptr::null_mut(),
        func: p.func,
        gridDim: dim3_to_hip(p.gridDim),
        kernelParams: p.kernelParams,
        sharedMemBytes: p.sharedMemBytes,
    })
}

/// CUDA 12.2's generic kernel parameters (`cudaGraphNodeParams::kernel`) in the per-type struct
/// that the kernel-node calls take (same fields; the function is read through the union).
pub(crate) fn kernel_params_of_v2(k: &cudaKernelNodeParamsV2) -> cudaKernelNodeParams {
    cudaKernelNodeParams {
        func: k.func(),
        gridDim: k.gridDim,
        blockDim: k.blockDim,
        sharedMemBytes: k.sharedMemBytes,
        kernelParams: k.kernelParams,
        extra: k.extra,
    }
}

/// CUDA 12.2's generic memset parameters (`cudaGraphNodeParams::memset`) in the per-type struct
/// that the memset-node calls take.
pub(crate) fn memset_params_of_v2(m: &cudaMemsetParamsV2) -> cudaMemsetParams {
    cudaMemsetParams {
        dst: m.dst,
        pitch: m.pitch,
        value: m.value,
        elementSize: m.elementSize,
        width: m.width,
        height: m.height,
    }
}

/// The Driver's generic memset parameters (`CUDA_MEMSET_NODE_PARAMS_v2`, which also name the
/// node's context) in the per-type struct; the Runtime's twin is [`memset_params_of_v2`].
pub(crate) fn memset_params_of_driver_v2(
    m: &anycuda_api::driver::CUDA_MEMSET_NODE_PARAMS_v2,
) -> CUDA_MEMSET_NODE_PARAMS {
    CUDA_MEMSET_NODE_PARAMS {
        dst: m.dst,
        pitch: m.pitch,
        value: m.value,
        elementSize: m.elementSize,
        width: m.width,
        height: m.height,
    }
}

/// HIP's kernel node parameters in CUDA's struct.
pub(crate) fn kernel_params_to_cuda(h: &hipKernelNodeParams) -> cudaKernelNodeParams {
    cudaKernelNodeParams {
        func: h.func,
        gridDim: dim3_to_cuda(h.gridDim),
        blockDim: dim3_to_cuda(h.blockDim),
        sharedMemBytes: h.sharedMemBytes,
        kernelParams: h.kernelParams,
        extra: h.extra,
    }
}

const _: () = {
    use core::mem::size_of;
    assert!(size_of::<CUDA_MEMSET_NODE_PARAMS>() == size_of::<cudaMemsetParams>());
    assert!(size_of::<CUgraphExecUpdateResultInfo>() == size_of::<cudaGraphExecUpdateResultInfo>());
    assert!(size_of::<CUDA_GRAPH_INSTANTIATE_PARAMS>() == size_of::<cudaGraphInstantiateParams>());
};

/// CUDA's memset node parameters in HIP's struct (same fields, another order).
///
/// # Errors
/// An element size other than 1, 2 or 4 is invalid, as on CUDA.
pub(crate) fn memset_to_hip(c: &CUDA_MEMSET_NODE_PARAMS) -> Result<hipMemsetParams, Refusal> {
    if !matches!(c.elementSize, 1 | 2 | 4) {
        return Err(Refusal::InvalidValue);
    }
    Ok(hipMemsetParams {
        dst: devptr_to_hip(c.dst),
        elementSize: c.elementSize,
        height: c.height,
        pitch: c.pitch,
        value: c.value,
        width: c.width,
    })
}

/// HIP's memset node parameters in CUDA's struct.
pub(crate) fn memset_to_cuda(h: &hipMemsetParams) -> CUDA_MEMSET_NODE_PARAMS {
    CUDA_MEMSET_NODE_PARAMS {
        dst: devptr_to_cuda(h.dst),
        pitch: h.pitch,
        value: h.value,
        elementSize: h.elementSize,
        width: h.width,
        height: h.height,
    }
}

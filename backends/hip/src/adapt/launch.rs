//! Kernel launches: `cuLaunchKernel`'s `extra` array and stream handles in HIP's words.

use super::support::hip_fn;
use crate::conv::launch::{dim3_to_hip, hip_markers, read_launch_attrs, translate_extra};
use crate::conv::stream_to_hip;
use crate::HipBackend;
use anycuda_api::driver::{CUfunction, CUresult, CUstream};
use anycuda_api::runtime::{cudaError_t, cudaLaunchConfig_t, cudaStream_t, dim3};
use core::ffi::{c_uint, c_void};

/// `cuLaunchKernel` → `hipModuleLaunchKernel`: the `extra` markers are translated (CUDA's END 0
/// is HIP's 3 on AMD) into a stack copy in the order HIP requires, `CU_STREAM_LEGACY` becomes
/// HIP's NULL stream, and `kernelParams` together with `extra` is `CUDA_ERROR_INVALID_VALUE` as
/// on CUDA. No allocation.
#[allow(clippy::too_many_arguments)]
#[inline]
pub(crate) unsafe fn cuLaunchKernel(
    b: &HipBackend,
    f: CUfunction,
    gridDimX: c_uint,
    gridDimY: c_uint,
    gridDimZ: c_uint,
    blockDimX: c_uint,
    blockDimY: c_uint,
    blockDimZ: c_uint,
    sharedMemBytes: c_uint,
    hStream: CUstream,
    kernelParams: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    let launch = hip_fn!(b, hipModuleLaunchKernel);
    if f.is_null() {
        return CUresult::CUDA_ERROR_INVALID_HANDLE;
    }
    if !kernelParams.is_null() && !extra.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    let mut buf = [core::ptr::null_mut(); 5];
    let hip_extra = if extra.is_null() {
        core::ptr::null_mut()
    } else {
        let Some(m) = hip_markers(b) else {
            return CUresult::CUDA_ERROR_NOT_SUPPORTED;
        };
        // SAFETY: CUDA's contract for `extra` (END-terminated).
        match unsafe { translate_extra(extra, m, &mut buf) } {
            Ok(0) => core::ptr::null_mut(),
            Ok(_) => buf.as_mut_ptr(),
            Err(e) => return e,
        }
    };
    // SAFETY: handles and pointers are the caller's (CUDA's contract); `hip_extra` is NULL or
    // points to `buf`, alive for the call.
    b.cu(unsafe {
        launch(
            f.cast(),
            gridDimX,
            gridDimY,
            gridDimZ,
            blockDimX,
            blockDimY,
            blockDimZ,
            sharedMemBytes,
            stream_to_hip(b.platform(), hStream),
            kernelParams,
            hip_extra,
        )
    })
}

/// `cuLaunchCooperativeKernel` → `hipModuleLaunchCooperativeKernel` (HIP 6.0+; HIP 5.2 and its
/// NVIDIA platform lack it: `CUDA_ERROR_NOT_SUPPORTED`), with `CU_STREAM_LEGACY` translated.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn cuLaunchCooperativeKernel(
    b: &HipBackend,
    f: CUfunction,
    gridDimX: c_uint,
    gridDimY: c_uint,
    gridDimZ: c_uint,
    blockDimX: c_uint,
    blockDimY: c_uint,
    blockDimZ: c_uint,
    sharedMemBytes: c_uint,
    hStream: CUstream,
    kernelParams: *mut *mut c_void,
) -> CUresult {
    let launch = hip_fn!(b, hipModuleLaunchCooperativeKernel);
    if f.is_null() {
        return CUresult::CUDA_ERROR_INVALID_HANDLE;
    }
    // SAFETY: CUDA's contract for the handles and `kernelParams`.
    b.cu(unsafe {
        launch(
            f.cast(),
            gridDimX,
            gridDimY,
            gridDimZ,
            blockDimX,
            blockDimY,
            blockDimZ,
            sharedMemBytes,
            stream_to_hip(b.platform(), hStream),
            kernelParams,
        )
    })
}

// ------------------------------------------------------------ Runtime

/// `cudaLaunchCooperativeKernel` → `hipLaunchCooperativeKernel`: CUDA's `size_t` shared
/// memory must fit HIP's `unsigned int` (else `cudaErrorInvalidValue`: no device has that
/// much), `cudaStreamLegacy` translated.
pub(crate) unsafe fn cudaLaunchCooperativeKernel(
    b: &HipBackend,
    func: *const c_void,
    gridDim: dim3,
    blockDim: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
) -> cudaError_t {
    let f = hip_fn!(b, hipLaunchCooperativeKernel);
    if func.is_null() {
        return cudaError_t::cudaErrorInvalidDeviceFunction;
    }
    let Ok(shared) = c_uint::try_from(sharedMem) else {
        return cudaError_t::cudaErrorInvalidValue;
    };
    // SAFETY: CUDA's contract for the function and arguments; stream translated.
    b.rt(unsafe {
        f(
            func,
            dim3_to_hip(gridDim),
            dim3_to_hip(blockDim),
            args,
            shared,
            stream_to_hip(b.platform(), stream.cast()),
        )
    })
}

/// `cudaLaunchKernelExC` → `hipLaunchKernel` or `hipLaunchCooperativeKernel` (both exist in
/// every HIP version, unlike `hipLaunchKernelExC` whose config layout changes per version):
/// the configuration is read and the attributes honoured as [`read_launch_attrs`] says.
pub(crate) unsafe fn cudaLaunchKernelExC(
    b: &HipBackend,
    config: *const cudaLaunchConfig_t,
    func: *const c_void,
    args: *mut *mut c_void,
) -> cudaError_t {
    if config.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if func.is_null() {
        return cudaError_t::cudaErrorInvalidDeviceFunction;
    }
    // SAFETY: non-NULL config from the caller.
    let c = unsafe { &*config };
    // SAFETY: CUDA's contract for the attribute list.
    let req = match unsafe { read_launch_attrs(c.attrs, c.numAttrs) } {
        Ok(r) => r,
        Err(e) => return e,
    };
    let s = stream_to_hip(b.platform(), c.stream.cast());
    if req.cooperative {
        // SAFETY: forwarded contract.
        unsafe {
            cudaLaunchCooperativeKernel(
                b,
                func,
                c.gridDim,
                c.blockDim,
                args,
                c.dynamicSmemBytes,
                c.stream,
            )
        }
    } else {
        let f = hip_fn!(b, hipLaunchKernel);
        // SAFETY: CUDA's contract for the function and arguments.
        b.rt(unsafe {
            f(
                func,
                dim3_to_hip(c.gridDim),
                dim3_to_hip(c.blockDim),
                args,
                c.dynamicSmemBytes,
                s,
            )
        })
    }
}

//! Kernel launches: `cuLaunchKernel`'s `extra` array and stream handles in HIP's words.

use super::support::{hip_fn, tri};
use crate::conv::launch::{
    dim3_to_hip, hip_markers, read_driver_launch_attrs, read_launch_attrs, translate_extra,
};
use crate::conv::stream_to_hip;
use crate::HipBackend;
use anycuda_api::driver::{CUfunction, CUlaunchConfig, CUresult, CUstream};
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
    // A `CUkernel` cast to a `CUfunction` (CUDA allows it): the current context's function.
    let f = tri!(super::library::function_of(b, f));
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
    // A `CUkernel` cast to a `CUfunction`: the current context's function.
    let f = tri!(super::library::function_of(b, f));
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

/// `cuLaunchKernelEx`: the configuration read (attributes as [`read_driver_launch_attrs`]
/// says: `Ignore` skipped, `Cooperative` honoured, others not supported) and launched through
/// [`cuLaunchKernel`] or [`cuLaunchCooperativeKernel`] (HIP's own `hipDrvLaunchKernelEx` has
/// another attribute layout per version); a `CUkernel` handle is resolved there.
pub(crate) unsafe fn cuLaunchKernelEx(
    b: &HipBackend,
    config: *const CUlaunchConfig,
    f: CUfunction,
    kernelParams: *mut *mut c_void,
    extra: *mut *mut c_void,
) -> CUresult {
    if config.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: non-NULL config from the caller.
    let c = unsafe { &*config };
    // SAFETY: CUDA's contract for the attribute list.
    let req = tri!(unsafe { read_driver_launch_attrs(c.attrs, c.numAttrs) });
    if req.cooperative {
        if !extra.is_null() {
            // HIP's cooperative launch takes no `extra` array.
            return CUresult::CUDA_ERROR_NOT_SUPPORTED;
        }
        // SAFETY: forwarded contract.
        unsafe {
            cuLaunchCooperativeKernel(
                b,
                f,
                c.gridDimX,
                c.gridDimY,
                c.gridDimZ,
                c.blockDimX,
                c.blockDimY,
                c.blockDimZ,
                c.sharedMemBytes,
                c.hStream,
                kernelParams,
            )
        }
    } else {
        // SAFETY: forwarded contract.
        unsafe {
            cuLaunchKernel(
                b,
                f,
                c.gridDimX,
                c.gridDimY,
                c.gridDimZ,
                c.blockDimX,
                c.blockDimY,
                c.blockDimZ,
                c.sharedMemBytes,
                c.hStream,
                kernelParams,
                extra,
            )
        }
    }
}

// ------------------------------------------------------------ Runtime

/// A Runtime launch of a `cudaKernel_t` (resolved to `f`): [`cuLaunchKernel`] or
/// [`cuLaunchCooperativeKernel`] with the Runtime's arguments and codes.
///
/// # Safety
/// CUDA's contract for the arguments; `f` is a function of this backend.
pub(crate) unsafe fn launch_resolved(
    b: &HipBackend,
    f: CUfunction,
    grid: dim3,
    block: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
    cooperative: bool,
) -> cudaError_t {
    let Ok(shared) = c_uint::try_from(sharedMem) else {
        return cudaError_t::cudaErrorInvalidValue;
    };
    // SAFETY: forwarded contract.
    let r = unsafe {
        if cooperative {
            cuLaunchCooperativeKernel(
                b,
                f,
                grid.x,
                grid.y,
                grid.z,
                block.x,
                block.y,
                block.z,
                shared,
                stream.cast(),
                args,
            )
        } else {
            cuLaunchKernel(
                b,
                f,
                grid.x,
                grid.y,
                grid.z,
                block.x,
                block.y,
                block.z,
                shared,
                stream.cast(),
                args,
                core::ptr::null_mut(),
            )
        }
    };
    crate::conv::driver_to_runtime(r)
}

/// `cudaLaunchKernel`: a `cudaKernel_t` (from `cudaLibraryGetKernel`) launches its function in
/// the current context through [`cuLaunchKernel`]; a host function goes to `hipLaunchKernel`
/// (dimensions and the legacy stream translated).
pub(crate) unsafe fn cudaLaunchKernel(
    b: &HipBackend,
    func: *const c_void,
    gridDim: dim3,
    blockDim: dim3,
    args: *mut *mut c_void,
    sharedMem: usize,
    stream: cudaStream_t,
) -> cudaError_t {
    if let Some(f) = super::library::runtime_function_of(b, func) {
        let f = tri!(f);
        // SAFETY: forwarded contract.
        return unsafe { launch_resolved(b, f, gridDim, blockDim, args, sharedMem, stream, false) };
    }
    let f = hip_fn!(b, hipLaunchKernel);
    // SAFETY: CUDA's contract for the function and arguments; stream translated.
    b.rt(unsafe {
        f(
            func,
            dim3_to_hip(gridDim),
            dim3_to_hip(blockDim),
            args,
            sharedMem,
            stream_to_hip(b.platform(), stream.cast()),
        )
    })
}

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
    if let Some(f) = super::library::runtime_function_of(b, func) {
        let f = tri!(f);
        // SAFETY: forwarded contract.
        return unsafe { launch_resolved(b, f, gridDim, blockDim, args, sharedMem, stream, true) };
    }
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
    if let Some(f) = super::library::runtime_function_of(b, func) {
        let f = tri!(f);
        // SAFETY: forwarded contract.
        return unsafe {
            launch_resolved(
                b,
                f,
                c.gridDim,
                c.blockDim,
                args,
                c.dynamicSmemBytes,
                c.stream,
                req.cooperative,
            )
        };
    }
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

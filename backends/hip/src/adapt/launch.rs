//! Kernel launches: `cuLaunchKernel`'s `extra` array and stream handles in HIP's words.

use super::{drv_fn, nvidia};
use crate::hip_types::hipStream_t;
use crate::HipBackend;
use anycuda_api::driver::{CUfunction, CUresult, CUstream};
use core::ffi::{c_uint, c_void};

/// The most `extra` entries read (keys, values and the end marker). CUDA defines two keys, so a
/// well-formed array has at most 5 entries; the bound stops a runaway scan of a malformed one.
pub(crate) const EXTRA_MAX: usize = 16;

/// The three launch markers of one side, as integers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Markers {
    /// `*_LAUNCH_PARAM_END`.
    pub end: usize,
    /// `*_LAUNCH_PARAM_BUFFER_POINTER`.
    pub buffer_pointer: usize,
    /// `*_LAUNCH_PARAM_BUFFER_SIZE`.
    pub buffer_size: usize,
}

/// CUDA's markers (`cuda.h`: END 0, BUFFER_POINTER 1, BUFFER_SIZE 2).
pub(crate) const CUDA_MARKERS: Markers = Markers {
    end: anycuda_api::driver::CU_LAUNCH_PARAM_END_AS_INT as usize,
    buffer_pointer: anycuda_api::driver::CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize,
    buffer_size: anycuda_api::driver::CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize,
};

/// HIP's markers for the loaded platform: the `cu_launch_params` table on AMD (END is 3 there);
/// CUDA's own on HIP's NVIDIA platform, whose `HIP_LAUNCH_PARAM_*` are `CU_LAUNCH_PARAM_*`.
pub(crate) fn hip_markers(b: &HipBackend) -> Option<Markers> {
    if nvidia(b) {
        return Some(CUDA_MARKERS);
    }
    let m = b.conv().cu_launch_params;
    let get = |cuda: usize| m.value_to_hip(cuda as i64).map(|v| v as usize);
    Some(Markers {
        end: get(CUDA_MARKERS.end)?,
        buffer_pointer: get(CUDA_MARKERS.buffer_pointer)?,
        buffer_size: get(CUDA_MARKERS.buffer_size)?,
    })
}

/// Rewrites CUDA's `extra` array for HIP into `out`; returns how many entries were written
/// (0: no argument buffer, pass NULL).
///
/// CUDA accepts the two keys in any order, each once, ended by END; HIP (AMD) reads exactly
/// `{BUFFER_POINTER, p, BUFFER_SIZE, &size, END}`, so the output is always in that order. An
/// unknown key, a repeated key, one key without the other, or no END within [`EXTRA_MAX`] entries
/// is `CUDA_ERROR_INVALID_VALUE`, as is a NULL size pointer.
///
/// # Safety
/// `extra` is NULL or points to an array ended by CUDA's END marker (read up to [`EXTRA_MAX`]).
pub(crate) unsafe fn translate_extra(
    extra: *const *mut c_void,
    hip: Markers,
    out: &mut [*mut c_void; 5],
) -> Result<usize, CUresult> {
    if extra.is_null() {
        return Ok(0);
    }
    let mut pointer: Option<*mut c_void> = None;
    let mut size: Option<*mut c_void> = None;
    let mut i = 0;
    loop {
        if i >= EXTRA_MAX {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: within the caller's array (it ends with END, and we stop there or at the bound).
        let key = unsafe { *extra.add(i) } as usize;
        if key == CUDA_MARKERS.end {
            break;
        }
        if i + 1 >= EXTRA_MAX {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        // SAFETY: a key is followed by its value.
        let value = unsafe { *extra.add(i + 1) };
        let slot = if key == CUDA_MARKERS.buffer_pointer {
            &mut pointer
        } else if key == CUDA_MARKERS.buffer_size {
            &mut size
        } else {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        };
        if slot.replace(value).is_some() {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        i += 2;
    }
    match (pointer, size) {
        (None, None) => Ok(0),
        (Some(p), Some(s)) if !s.is_null() => {
            *out = [
                hip.buffer_pointer as *mut c_void,
                p,
                hip.buffer_size as *mut c_void,
                s,
                hip.end as *mut c_void,
            ];
            Ok(5)
        }
        _ => Err(CUresult::CUDA_ERROR_INVALID_VALUE),
    }
}

/// A CUDA stream handle in HIP's words: `CU_STREAM_LEGACY` (0x1) is HIP's NULL stream (which
/// has the legacy default-stream semantics on AMD); `CU_STREAM_PER_THREAD` (0x2) equals
/// `hipStreamPerThread`. On HIP's NVIDIA platform handles are CUDA's and pass unchanged.
pub(crate) fn stream_to_hip(b: &HipBackend, s: CUstream) -> hipStream_t {
    if !nvidia(b) && s == anycuda_api::driver::CU_STREAM_LEGACY {
        return core::ptr::null_mut();
    }
    s.cast()
}

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
    let launch = drv_fn!(b, hipModuleLaunchKernel);
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
            stream_to_hip(b, hStream),
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
    let launch = drv_fn!(b, hipModuleLaunchCooperativeKernel);
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
            stream_to_hip(b, hStream),
            kernelParams,
        )
    })
}

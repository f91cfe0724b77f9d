//! Launches: `cuLaunchKernel`'s `extra` markers, `dim3`, and CUDA launch attributes in HIP's
//! words.

use crate::conv::nvidia;
use crate::hip_types::dim3 as hip_dim3;
use crate::HipBackend;
use anycuda_api::driver::CUresult;
use anycuda_api::runtime::{cudaError_t, cudaLaunchAttributeID, dim3};
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

/// CUDA's `dim3` in HIP's (same fields).
pub(crate) fn dim3_to_hip(d: dim3) -> hip_dim3 {
    hip_dim3 {
        x: d.x,
        y: d.y,
        z: d.z,
    }
}

/// HIP's `dim3` in CUDA's.
pub(crate) fn dim3_to_cuda(d: hip_dim3) -> dim3 {
    dim3 {
        x: d.x,
        y: d.y,
        z: d.z,
    }
}

/// What a CUDA launch attribute list asks for, as far as HIP's plain launches can express it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) struct LaunchRequest {
    /// `cudaLaunchAttributeCooperative` with a non-zero value.
    pub cooperative: bool,
}

/// Reads CUDA launch attributes: `Ignore` entries are skipped (as CUDA does), `Cooperative`
/// selects a cooperative launch; every other attribute changes the launch in a way HIP's launch
/// entry points cannot express in every version, so it is `cudaErrorNotSupported` (never
/// silently dropped). A NULL list with a non-zero count is `cudaErrorInvalidValue`.
///
/// # Safety
/// `attrs` is NULL or points to `n` attributes.
pub(crate) unsafe fn read_launch_attrs(
    attrs: *const anycuda_api::runtime::cudaLaunchAttribute,
    n: c_uint,
) -> Result<LaunchRequest, cudaError_t> {
    let mut req = LaunchRequest::default();
    if n == 0 {
        return Ok(req);
    }
    if attrs.is_null() {
        return Err(cudaError_t::cudaErrorInvalidValue);
    }
    // SAFETY: caller's array of `n` attributes.
    let list = unsafe { core::slice::from_raw_parts(attrs, n as usize) };
    for a in list {
        match a.id {
            cudaLaunchAttributeID::cudaLaunchAttributeIgnore => {}
            cudaLaunchAttributeID::cudaLaunchAttributeCooperative => {
                // SAFETY: the union member this id selects.
                req.cooperative = unsafe { a.val.cooperative } != 0;
            }
            id if anycuda_api::CudaEnum::name(id).is_none() => {
                return Err(cudaError_t::cudaErrorInvalidValue)
            }
            _ => return Err(cudaError_t::cudaErrorNotSupported),
        }
    }
    Ok(req)
}

/// [`read_launch_attrs`] for the Driver API's `CUlaunchAttribute` list (`cuLaunchKernelEx`):
/// the same rule, in the Driver's codes.
///
/// # Safety
/// `attrs` is NULL or points to `n` attributes.
pub(crate) unsafe fn read_driver_launch_attrs(
    attrs: *const anycuda_api::driver::CUlaunchAttribute,
    n: c_uint,
) -> Result<LaunchRequest, CUresult> {
    use anycuda_api::driver::CUlaunchAttributeID;
    let mut req = LaunchRequest::default();
    if n == 0 {
        return Ok(req);
    }
    if attrs.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: caller's array of `n` attributes.
    let list = unsafe { core::slice::from_raw_parts(attrs, n as usize) };
    for a in list {
        match a.id {
            CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_IGNORE => {}
            CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_COOPERATIVE => {
                // SAFETY: the union member this id selects.
                req.cooperative = unsafe { a.value.cooperative } != 0;
            }
            id if anycuda_api::CudaEnum::name(id).is_none() => {
                return Err(CUresult::CUDA_ERROR_INVALID_VALUE)
            }
            _ => return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED),
        }
    }
    Ok(req)
}

/// The number of blocks in the thread-block cluster a Driver launch configuration asks for
/// (`CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION`: x·y·z; 1 without that attribute; the last one
/// wins, as attributes are applied in order). Other attributes do not change a cluster's size
/// and are left to the launch to judge.
///
/// # Errors
/// `CUDA_ERROR_INVALID_VALUE` for attributes announced but NULL, or a zero dimension.
///
/// # Safety
/// `config.attrs` is NULL or points to `config.numAttrs` attributes.
pub(crate) unsafe fn cluster_blocks(
    config: &anycuda_api::driver::CUlaunchConfig,
) -> Result<u64, CUresult> {
    use anycuda_api::driver::CUlaunchAttributeID as Id;
    if config.numAttrs == 0 {
        return Ok(1);
    }
    if config.attrs.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: the caller's array of `numAttrs` attributes.
    let list = unsafe { core::slice::from_raw_parts(config.attrs, config.numAttrs as usize) };
    let mut blocks = 1u64;
    for a in list {
        if a.id == Id::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION {
            // SAFETY: the union member this id selects.
            let d = unsafe { a.value.clusterDim };
            // Saturating: three 32-bit factors overflow 64 bits; any such size is refused
            // by the caller all the same.
            blocks = u64::from(d.x)
                .saturating_mul(u64::from(d.y))
                .saturating_mul(u64::from(d.z));
            if blocks == 0 {
                return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
            }
        }
    }
    Ok(blocks)
}

//! Modules and functions: JIT option arrays, linker input types, occupancy flags and function
//! attributes in HIP's words and back.

use crate::conv::enum_to_hip;
use crate::conv::props::copy_fields;
use crate::conv::{nvidia, INVALID_VALUE};
use crate::hip_types::{hipFuncAttributes, hipJitOption};
use crate::HipBackend;
use anycuda_api::driver::{CUjitInputType, CUjit_option, CUresult};
use anycuda_api::runtime::cudaFuncAttributes;
use core::ffi::{c_uint, c_void};

/// A CUDA JIT option array in HIP's words.
#[derive(Debug, Default)]
pub(crate) struct JitOptions {
    /// HIP option numbers passed on.
    pub keys: Vec<hipJitOption>,
    /// Their values (enum values translated).
    pub values: Vec<*mut c_void>,
    /// For each passed option, its index in the caller's arrays.
    pub src: Vec<usize>,
    /// Indices (into the caller's arrays) of output options that were dropped.
    pub dropped_outputs: Vec<usize>,
}

pub(crate) const INFO_LOG_SIZE: u32 = CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES.0;

pub(crate) const ERROR_LOG_SIZE: u32 = CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES.0;

pub(crate) const WALL_TIME: u32 = CUjit_option::CU_JIT_WALL_TIME.0;

/// Translates CUDA's JIT option arrays. On HIP's NVIDIA platform the options are CUDA's and
/// the table passes them through. On AMD: enum-valued options (fallback, cache mode) have their
/// values renumbered; the CUDA target (an `sm_XX`) and options HIP lacks are dropped, and so
/// are the output options (logs, wall time) when `drop_outputs` (AMD's `hipModuleLoadDataEx`
/// ignores every option, so it would leave them stale).
///
/// # Safety
/// `options`/`values` are NULL or hold `n` entries.
pub(crate) unsafe fn jit_options(
    b: &HipBackend,
    drop_outputs: bool,
    n: c_uint,
    options: *const CUjit_option,
    values: *const *mut c_void,
) -> Result<JitOptions, CUresult> {
    let mut out = JitOptions::default();
    if n == 0 {
        return Ok(out);
    }
    if options.is_null() || values.is_null() {
        return Err(INVALID_VALUE);
    }
    let map = b.conv().CUjit_option;
    for i in 0..n as usize {
        // SAFETY: caller's arrays of `n` entries.
        let (o, v) = unsafe { (*options.add(i), *values.add(i)) };
        if o.0 >= CUjit_option::CU_JIT_NUM_OPTIONS.0 {
            return Err(INVALID_VALUE);
        }
        let output = matches!(o.0, INFO_LOG_SIZE | ERROR_LOG_SIZE | WALL_TIME);
        let key = if nvidia(b) {
            map.to_hip(i64::from(o.0))
        } else if o == CUjit_option::CU_JIT_TARGET || (drop_outputs && output) {
            None
        } else {
            map.to_hip(i64::from(o.0))
        };
        let Some(key) = key else {
            if output {
                out.dropped_outputs.push(i);
            }
            continue;
        };
        let value = if nvidia(b) {
            v
        } else if o == CUjit_option::CU_JIT_FALLBACK_STRATEGY {
            let h = enum_to_hip(b.conv().CUjit_fallback, v as usize as u32).ok_or(INVALID_VALUE)?;
            h as usize as *mut c_void
        } else if o == CUjit_option::CU_JIT_CACHE_MODE {
            let h =
                enum_to_hip(b.conv().CUjit_cacheMode, v as usize as u32).ok_or(INVALID_VALUE)?;
            h as usize as *mut c_void
        } else {
            v
        };
        out.src.push(i);
        out.keys.push(key as hipJitOption);
        out.values.push(value);
    }
    Ok(out)
}

pub(crate) fn input_type(b: &HipBackend, t: CUjitInputType) -> Result<u32, CUresult> {
    enum_to_hip(b.conv().CUjitInputType, t.0).ok_or(INVALID_VALUE)
}

/// Occupancy flags: CUDA's `CU_OCCUPANCY_DEFAULT` (0) and `DISABLE_CACHING_OVERRIDE` (1) have
/// HIP's values.
pub(crate) fn occupancy_flags(flags: c_uint) -> Result<c_uint, CUresult> {
    if flags > 1 {
        Err(INVALID_VALUE)
    } else {
        Ok(flags)
    }
}

/// `cudaFuncAttributes` from HIP's (the cluster fields stay zero: no cluster requirement, as
/// for a kernel without `__cluster_dims__`; HIP has no clusters).
pub(crate) fn func_attrs_from_hip(h: &hipFuncAttributes) -> cudaFuncAttributes {
    // SAFETY: plain data; all-zero is valid.
    let mut a: cudaFuncAttributes = unsafe { core::mem::zeroed() };
    copy_fields!(a <- h:
        sharedSizeBytes, constSizeBytes, localSizeBytes, maxThreadsPerBlock, numRegs, ptxVersion,
        binaryVersion, cacheModeCA, maxDynamicSharedSizeBytes, preferredShmemCarveout,
    );
    a
}

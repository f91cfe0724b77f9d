//! Context flags: CUDA's `CUctx_flags` word in HIP's words and back.

use crate::conv::{flags_to_cuda, flags_to_hip};
use crate::conv::{nvidia, INVALID_VALUE, NOT_SUPPORTED};
use crate::HipBackend;
use anycuda_api::driver::{CUctx_flags, CUresult};
use core::ffi::c_uint;

/// The CUDA context flags in HIP's words (AMD), validating them as CUDA does.
pub(crate) fn ctx_flags_to_hip(b: &HipBackend, flags: c_uint) -> Result<c_uint, CUresult> {
    if flags & !CUctx_flags::CU_CTX_FLAGS_MASK.0 != 0 {
        return Err(INVALID_VALUE);
    }
    if nvidia(b) {
        return Ok(flags);
    }
    // CU_CTX_MAP_HOST is always in effect on CUDA >= 3.2 (and on HIP); the coredump and
    // sync-memops flags have no HIP counterpart.
    flags_to_hip(b.conv().cu_ctx_flags, u64::from(flags))
        .map(|h| h as c_uint)
        .map_err(|_| NOT_SUPPORTED)
}

/// HIP device flags back in CUDA's words; HIP-only bits are dropped (they describe nothing CUDA
/// can name).
pub(crate) fn ctx_flags_to_cuda(b: &HipBackend, hip: c_uint) -> c_uint {
    flags_to_cuda(b.conv().cu_ctx_flags, u64::from(hip)) as c_uint
}

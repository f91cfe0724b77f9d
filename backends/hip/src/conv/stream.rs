//! Stream operations: wait-value flags in HIP's words.

use crate::conv::{INVALID_VALUE, NOT_SUPPORTED};
use anycuda_api::driver::CUresult;
use core::ffi::c_uint;

/// CUDA's wait-value operations (`CU_STREAM_WAIT_VALUE_GEQ/EQ/AND/NOR`, 0..=3) have the same
/// values as HIP's (`hipStreamWaitValueGte/Eq/And/Nor`); `CU_STREAM_WAIT_VALUE_FLUSH`
/// (1 << 30) has no HIP counterpart.
pub(crate) fn wait_flags_to_hip(flags: c_uint) -> Result<c_uint, CUresult> {
    const FLUSH: c_uint = 1 << 30;
    if flags & FLUSH != 0 {
        return Err(NOT_SUPPORTED);
    }
    if flags > 3 {
        return Err(INVALID_VALUE);
    }
    Ok(flags)
}

//! Textures: a CUDA array format and channel count as HIP's channel descriptor.

use crate::adapt::support::{INVALID_VALUE, NOT_SUPPORTED};
use crate::hip_types::hipChannelFormatDesc;
use anycuda_api::driver::{CUarray_format, CUresult};
use core::ffi::c_uint;

/// A CUDA array format and channel count as HIP's channel descriptor (`hipChannelFormatKind`
/// signed 0, unsigned 1, float 2 in every HIP version, and `cudaChannelFormatKind`'s on NVIDIA).
/// Formats a channel descriptor cannot express (normalized, block-compressed, video) are not
/// supported; other values and channel counts other than 1, 2, 4 are invalid.
pub(crate) fn channel_desc(
    format: CUarray_format,
    n: c_uint,
) -> Result<hipChannelFormatDesc, CUresult> {
    if !matches!(n, 1 | 2 | 4) {
        return Err(INVALID_VALUE);
    }
    let (bits, kind) = match format {
        CUarray_format::CU_AD_FORMAT_UNSIGNED_INT8 => (8, 1),
        CUarray_format::CU_AD_FORMAT_UNSIGNED_INT16 => (16, 1),
        CUarray_format::CU_AD_FORMAT_UNSIGNED_INT32 => (32, 1),
        CUarray_format::CU_AD_FORMAT_SIGNED_INT8 => (8, 0),
        CUarray_format::CU_AD_FORMAT_SIGNED_INT16 => (16, 0),
        CUarray_format::CU_AD_FORMAT_SIGNED_INT32 => (32, 0),
        CUarray_format::CU_AD_FORMAT_HALF => (16, 2),
        CUarray_format::CU_AD_FORMAT_FLOAT => (32, 2),
        f if f.0 == 80 || (145..=203).contains(&f.0) => return Err(NOT_SUPPORTED),
        _ => return Err(INVALID_VALUE),
    };
    let c = |i: c_uint| if i < n { bits } else { 0 };
    Ok(hipChannelFormatDesc {
        x: c(0),
        y: c(1),
        z: c(2),
        w: c(3),
        f: kind,
    })
}

//! Textures: address and filter modes in HIP's words and back, and a CUDA array format and
//! channel count as HIP's channel descriptor.
//!
//! CUDA's `CUaddress_mode`/`CUfilter_mode` pair with HIP's `HIPaddress_mode`/`HIPfilter_mode`
//! in the tables; HIP's texture-reference calls take `hipTextureAddressMode` /
//! `hipTextureFilterMode`, whose values are those of the `HIP*` enums in every HIP version
//! (wrap 0, clamp 1, mirror 2, border 3; point 0, linear 1).

use crate::conv::{enum_to_cuda, enum_to_hip, EnumMap};
use crate::conv::{INVALID_VALUE, NOT_SUPPORTED};
use crate::hip_types::hipChannelFormatDesc;
use anycuda_api::driver::{CUaddress_mode, CUarray_format, CUfilter_mode, CUresult};
use core::ffi::c_uint;

/// A CUDA address mode as HIP's value (`map`: the `CUaddress_mode` table); a value outside the
/// table is invalid.
pub(crate) fn address_mode_to_hip(map: &EnumMap, m: CUaddress_mode) -> Result<u32, CUresult> {
    enum_to_hip(map, m.0).ok_or(INVALID_VALUE)
}

/// HIP's address mode back as CUDA's.
pub(crate) fn address_mode_to_cuda(map: &EnumMap, h: u32) -> CUaddress_mode {
    CUaddress_mode(enum_to_cuda(map, h))
}

/// A CUDA filter mode as HIP's value (`map`: the `CUfilter_mode` table); a value outside the
/// table is invalid.
pub(crate) fn filter_mode_to_hip(map: &EnumMap, m: CUfilter_mode) -> Result<u32, CUresult> {
    enum_to_hip(map, m.0).ok_or(INVALID_VALUE)
}

/// HIP's filter mode back as CUDA's.
pub(crate) fn filter_mode_to_cuda(map: &EnumMap, h: u32) -> CUfilter_mode {
    CUfilter_mode(enum_to_cuda(map, h))
}

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

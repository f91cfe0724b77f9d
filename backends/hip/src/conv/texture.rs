//! Textures: address and filter modes in HIP's words and back, a CUDA array format and
//! channel count as HIP's channel descriptor, and the descriptors of mipmapped arrays, texture
//! objects and surface objects (Driver and Runtime, each beside its inverse; HIP 5.2's and
//! 6.2+'s layouts).
//!
//! CUDA's `CUaddress_mode`/`CUfilter_mode` pair with HIP's `HIPaddress_mode`/`HIPfilter_mode`
//! in the tables; HIP's texture-reference calls take `hipTextureAddressMode` /
//! `hipTextureFilterMode`, whose values are those of the `HIP*` enums in every HIP version
//! (wrap 0, clamp 1, mirror 2, border 3; point 0, linear 1).

use crate::conv::{devptr_to_cuda, devptr_to_hip, enum_arg, enum_out, ConvTables, Refusal};
use crate::conv::{enum_to_cuda, enum_to_hip, EnumMap};
use crate::conv::{INVALID_VALUE, NOT_SUPPORTED};
use crate::hip_types::{
    hipChannelFormatDesc, hipResourceDesc, hipResourceDesc__bindgen_ty_1,
    hipResourceDesc__bindgen_ty_1__hip5_2, hipResourceDesc__hip5_2, hipResourceViewDesc,
    hipTextureDesc, HIP_RESOURCE_DESC__hip5_2,
    HIP_RESOURCE_DESC_st__bindgen_ty_1 as HipResDescUnion,
    HIP_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_3 as HipResDescLinear,
    HIP_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_4 as HipResDescPitch2D,
    HIP_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_5 as HipResDescReserved,
    HIP_RESOURCE_DESC_st__bindgen_ty_1__hip5_2, HIP_ARRAY3D_DESCRIPTOR, HIP_RESOURCE_DESC,
    HIP_RESOURCE_VIEW_DESC, HIP_TEXTURE_DESC,
};
use anycuda_api::driver::{
    CUDA_RESOURCE_DESC_st__bindgen_ty_1 as CuResDescUnion,
    CUDA_RESOURCE_DESC_st__bindgen_ty_1__bindgen_ty_5 as CuResDescReserved, CUaddress_mode,
    CUarray_format, CUfilter_mode, CUresourcetype, CUresult, CUDA_ARRAY3D_DESCRIPTOR,
    CUDA_RESOURCE_DESC, CUDA_RESOURCE_VIEW_DESC, CUDA_TEXTURE_DESC,
};
use anycuda_api::runtime::{
    cudaChannelFormatDesc, cudaChannelFormatKind, cudaResourceDesc, cudaResourceDesc__bindgen_ty_1,
    cudaResourceType, cudaResourceViewDesc, cudaTextureAddressMode, cudaTextureDesc,
    cudaTextureFilterMode,
};
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

// ------------------------------------------------------------ array, texture and surface objects
//
// The Driver's descriptors (`CUDA_ARRAY3D_DESCRIPTOR`, `CUDA_RESOURCE_DESC`, `CUDA_TEXTURE_DESC`,
// `CUDA_RESOURCE_VIEW_DESC`) have HIP twins of the same layout (`HIP_*`) in every HIP version;
// HIP 5.2's resource descriptor differs from 6.2's only in the type its mipmapped-array handle
// points to (`__hip5_2`), which is why the 5.2 calls take their own struct types. The Runtime's
// (`cudaResourceDesc`, `cudaTextureDesc`, `cudaResourceViewDesc`) are larger than HIP's
// (`hipResourceDesc` has no `flags`, `hipTextureDesc` no trilinear/cubemap fields,
// `hipResourceViewDesc` no reserved words), so they are rebuilt field by field. Enum values go
// through the tables even where today's values coincide: that is what refuses a value outside
// CUDA's set (invalid value) or one HIP cannot express (not supported).
//
// On HIP's NVIDIA platform none of this applies: there HIP's structs are CUDA's, and the
// adaptations pass CUDA's structs through.

/// `CUDA_ARRAY3D_*` / `cudaArray*` bits whose `hipArray*` counterparts have the same values in
/// every HIP version (layered 1, surface load/store 2, cubemap 4, texture gather 8).
const ARRAY_FLAGS_SHARED: c_uint = 0x0f;
/// CUDA array bits HIP has no counterpart for: depth texture 0x10, color attachment 0x20,
/// sparse 0x40, deferred mapping 0x80, video encode/decode 0x100.
const ARRAY_FLAGS_CUDA_ONLY: c_uint = 0x1f0;

/// CUDA array flags (`CUDA_ARRAY3D_*`, and the Runtime's `cudaArray*`, which share the bits) in
/// HIP's words.
///
/// # Errors
/// [`Refusal::NotSupported`] for a CUDA flag HIP lacks, [`Refusal::InvalidValue`] for a bit
/// CUDA does not define.
pub(crate) fn array_flags_to_hip(flags: c_uint) -> Result<c_uint, Refusal> {
    if flags & !(ARRAY_FLAGS_SHARED | ARRAY_FLAGS_CUDA_ONLY) != 0 {
        Err(Refusal::InvalidValue)
    } else if flags & ARRAY_FLAGS_CUDA_ONLY != 0 {
        Err(Refusal::NotSupported)
    } else {
        Ok(flags)
    }
}

/// A `CUDA_ARRAY3D_DESCRIPTOR` as HIP's (`hipMipmappedArrayCreate`, every HIP version): the
/// format through the `CUarray_format` table, the flags through [`array_flags_to_hip`].
///
/// # Errors
/// A format or flag outside CUDA's set is invalid; one HIP cannot express is not supported.
pub(crate) fn array3d_desc_to_hip(
    t: &ConvTables,
    d: &CUDA_ARRAY3D_DESCRIPTOR,
) -> Result<HIP_ARRAY3D_DESCRIPTOR, Refusal> {
    Ok(HIP_ARRAY3D_DESCRIPTOR {
        Width: d.Width,
        Height: d.Height,
        Depth: d.Depth,
        Format: enum_arg(t.CUarray_format, d.Format)? as c_uint,
        NumChannels: d.NumChannels,
        Flags: array_flags_to_hip(d.Flags)?,
    })
}

/// `CU_TRSF_*` bits HIP's `HIP_TRSF_*` share by value: read as integer 1, normalized
/// coordinates 2, sRGB 0x10.
const TEX_FLAGS_SHARED: c_uint = 0x13;
/// `CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION`: a hint HIP has no word for; dropped, since leaving
/// an optimisation off is never required for correct results.
const TEX_FLAG_DISABLE_TRILINEAR: c_uint = 0x20;
/// `CU_TRSF_SEAMLESS_CUBEMAP`: changes what is sampled, and HIP cannot ask for it.
const TEX_FLAG_SEAMLESS_CUBEMAP: c_uint = 0x40;

/// `CUDA_TEXTURE_DESC::flags` in HIP's words.
///
/// # Errors
/// [`Refusal::NotSupported`] for seamless cube maps, [`Refusal::InvalidValue`] for bits CUDA
/// does not define.
pub(crate) fn texture_flags_to_hip(flags: c_uint) -> Result<c_uint, Refusal> {
    let known = TEX_FLAGS_SHARED | TEX_FLAG_DISABLE_TRILINEAR | TEX_FLAG_SEAMLESS_CUBEMAP;
    if flags & !known != 0 {
        Err(Refusal::InvalidValue)
    } else if flags & TEX_FLAG_SEAMLESS_CUBEMAP != 0 {
        Err(Refusal::NotSupported)
    } else {
        Ok(flags & TEX_FLAGS_SHARED)
    }
}

/// A `CUDA_RESOURCE_DESC` as HIP 6.2+'s `HIP_RESOURCE_DESC` (for HIP 5.2: then
/// [`resource_desc_to_hip52`]): resource type and array formats through the tables, handles
/// and sizes copied. The union's unused bytes are zero.
///
/// # Errors
/// A resource type or format outside CUDA's set, or non-zero `flags` (CUDA: "must be zero"),
/// is invalid; a format HIP cannot express is not supported.
pub(crate) fn resource_desc_to_hip(
    t: &ConvTables,
    d: &CUDA_RESOURCE_DESC,
) -> Result<HIP_RESOURCE_DESC, Refusal> {
    if d.flags != 0 {
        return Err(Refusal::InvalidValue);
    }
    let res_type = enum_arg(t.CUresourcetype, d.resType)? as c_uint;
    let mut res = HipResDescUnion {
        reserved: HipResDescReserved { reserved: [0; 32] },
    };
    // SAFETY: the union member read is the one `resType` names (CUDA's contract for the
    // caller's struct); every member is plain data (handles, integers), valid for any bits.
    match d.resType {
        CUresourcetype::CU_RESOURCE_TYPE_ARRAY => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            res.array.hArray = unsafe { d.res.array.hArray }.cast();
        }
        CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            res.mipmap.hMipmappedArray = unsafe { d.res.mipmap.hMipmappedArray }.cast();
        }
        CUresourcetype::CU_RESOURCE_TYPE_LINEAR => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let l = unsafe { d.res.linear };
            res.linear = HipResDescLinear {
                devPtr: devptr_to_hip(l.devPtr),
                format: enum_arg(t.CUarray_format, l.format)? as c_uint,
                numChannels: l.numChannels,
                sizeInBytes: l.sizeInBytes,
            };
        }
        CUresourcetype::CU_RESOURCE_TYPE_PITCH2D => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let p = unsafe { d.res.pitch2D };
            res.pitch2D = HipResDescPitch2D {
                devPtr: devptr_to_hip(p.devPtr),
                format: enum_arg(t.CUarray_format, p.format)? as c_uint,
                numChannels: p.numChannels,
                width: p.width,
                height: p.height,
                pitchInBytes: p.pitchInBytes,
            };
        }
        // `enum_arg` accepted it, so it is a CUDA resource type this code does not know yet.
        _ => return Err(Refusal::NotSupported),
    }
    Ok(HIP_RESOURCE_DESC {
        resType: res_type,
        res,
        flags: 0,
    })
}

/// HIP's `HIP_RESOURCE_DESC` back as CUDA's (`cuTexObjectGetResourceDesc`): the inverse of
/// [`resource_desc_to_hip`]. A resource type these tables do not know keeps its union bytes.
pub(crate) fn resource_desc_to_cuda(t: &ConvTables, h: &HIP_RESOURCE_DESC) -> CUDA_RESOURCE_DESC {
    let res_type: CUresourcetype = enum_out(t.CUresourcetype, i64::from(h.resType));
    // SAFETY: `reserved` spans the whole union and every byte of it is initialised (HIP wrote a
    // struct anycuda zeroed first, or `resource_desc_to_hip` built it from zeroed bytes).
    let mut res = CuResDescUnion {
        reserved: CuResDescReserved {
            // SAFETY: `reserved` spans the union; every byte is initialised (zeroed first).
            reserved: unsafe { h.res.reserved }.reserved,
        },
    };
    // SAFETY: the member read is the one `resType` names; plain data.
    match res_type {
        CUresourcetype::CU_RESOURCE_TYPE_LINEAR => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let l = unsafe { h.res.linear };
            res.linear.devPtr = devptr_to_cuda(l.devPtr);
            res.linear.format = enum_out(t.CUarray_format, i64::from(l.format));
        }
        CUresourcetype::CU_RESOURCE_TYPE_PITCH2D => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let p = unsafe { h.res.pitch2D };
            res.pitch2D.devPtr = devptr_to_cuda(p.devPtr);
            res.pitch2D.format = enum_out(t.CUarray_format, i64::from(p.format));
        }
        // Handles (array, mipmapped array) are the same bits on both sides.
        _ => {}
    }
    CUDA_RESOURCE_DESC {
        resType: res_type,
        res,
        flags: h.flags,
    }
}

/// HIP 6.2's `HIP_RESOURCE_DESC` in HIP 5.2's layout: the same bytes (5.2 differs only in the
/// type its mipmapped-array handle points to).
pub(crate) fn resource_desc_to_hip52(h: &HIP_RESOURCE_DESC) -> HIP_RESOURCE_DESC__hip5_2 {
    HIP_RESOURCE_DESC__hip5_2 {
        resType: h.resType,
        res: HIP_RESOURCE_DESC_st__bindgen_ty_1__hip5_2 {
            // SAFETY: `reserved` spans the union; every byte is initialised (see
            // `resource_desc_to_cuda`).
            reserved: unsafe { h.res.reserved },
        },
        flags: h.flags,
    }
}

/// HIP 5.2's `HIP_RESOURCE_DESC` as 6.2's: the inverse of [`resource_desc_to_hip52`].
pub(crate) fn resource_desc_from_hip52(h: &HIP_RESOURCE_DESC__hip5_2) -> HIP_RESOURCE_DESC {
    HIP_RESOURCE_DESC {
        resType: h.resType,
        res: HipResDescUnion {
            // SAFETY: as in `resource_desc_to_hip52`.
            reserved: unsafe { h.res.reserved },
        },
        flags: h.flags,
    }
}

/// A `CUDA_TEXTURE_DESC` as HIP's `HIP_TEXTURE_DESC` (one layout in every HIP version):
/// address and filter modes through the tables, flags through [`texture_flags_to_hip`].
///
/// # Errors
/// A mode or flag outside CUDA's set is invalid; seamless cube maps are not supported.
pub(crate) fn texture_desc_to_hip(
    t: &ConvTables,
    d: &CUDA_TEXTURE_DESC,
) -> Result<HIP_TEXTURE_DESC, Refusal> {
    let am = |m: CUaddress_mode| enum_arg(t.CUaddress_mode, m).map(|v| v as c_uint);
    let fm = |m: CUfilter_mode| enum_arg(t.CUfilter_mode, m).map(|v| v as c_uint);
    Ok(HIP_TEXTURE_DESC {
        addressMode: [
            am(d.addressMode[0])?,
            am(d.addressMode[1])?,
            am(d.addressMode[2])?,
        ],
        filterMode: fm(d.filterMode)?,
        flags: texture_flags_to_hip(d.flags)?,
        maxAnisotropy: d.maxAnisotropy,
        mipmapFilterMode: fm(d.mipmapFilterMode)?,
        mipmapLevelBias: d.mipmapLevelBias,
        minMipmapLevelClamp: d.minMipmapLevelClamp,
        maxMipmapLevelClamp: d.maxMipmapLevelClamp,
        borderColor: d.borderColor,
        reserved: [0; 12],
    })
}

/// HIP's `HIP_TEXTURE_DESC` back as CUDA's (`cuTexObjectGetTextureDesc`).
pub(crate) fn texture_desc_to_cuda(t: &ConvTables, h: &HIP_TEXTURE_DESC) -> CUDA_TEXTURE_DESC {
    let am = |m: c_uint| enum_out::<CUaddress_mode>(t.CUaddress_mode, i64::from(m));
    let fm = |m: c_uint| enum_out::<CUfilter_mode>(t.CUfilter_mode, i64::from(m));
    CUDA_TEXTURE_DESC {
        addressMode: [
            am(h.addressMode[0]),
            am(h.addressMode[1]),
            am(h.addressMode[2]),
        ],
        filterMode: fm(h.filterMode),
        flags: h.flags & TEX_FLAGS_SHARED,
        maxAnisotropy: h.maxAnisotropy,
        mipmapFilterMode: fm(h.mipmapFilterMode),
        mipmapLevelBias: h.mipmapLevelBias,
        minMipmapLevelClamp: h.minMipmapLevelClamp,
        maxMipmapLevelClamp: h.maxMipmapLevelClamp,
        borderColor: h.borderColor,
        reserved: [0; 12],
    }
}

/// A `CUDA_RESOURCE_VIEW_DESC` as HIP's (one layout in every HIP version): the format through
/// the `CUresourceViewFormat` table.
///
/// # Errors
/// A format outside CUDA's set is invalid; one HIP cannot express is not supported.
pub(crate) fn view_desc_to_hip(
    t: &ConvTables,
    d: &CUDA_RESOURCE_VIEW_DESC,
) -> Result<HIP_RESOURCE_VIEW_DESC, Refusal> {
    Ok(HIP_RESOURCE_VIEW_DESC {
        format: enum_arg(t.CUresourceViewFormat, d.format)? as c_uint,
        width: d.width,
        height: d.height,
        depth: d.depth,
        firstMipmapLevel: d.firstMipmapLevel,
        lastMipmapLevel: d.lastMipmapLevel,
        firstLayer: d.firstLayer,
        lastLayer: d.lastLayer,
        reserved: [0; 16],
    })
}

/// HIP's `HIP_RESOURCE_VIEW_DESC` back as CUDA's (`cuTexObjectGetResourceViewDesc`).
pub(crate) fn view_desc_to_cuda(
    t: &ConvTables,
    h: &HIP_RESOURCE_VIEW_DESC,
) -> CUDA_RESOURCE_VIEW_DESC {
    CUDA_RESOURCE_VIEW_DESC {
        format: enum_out(t.CUresourceViewFormat, i64::from(h.format)),
        width: h.width,
        height: h.height,
        depth: h.depth,
        firstMipmapLevel: h.firstMipmapLevel,
        lastMipmapLevel: h.lastMipmapLevel,
        firstLayer: h.firstLayer,
        lastLayer: h.lastLayer,
        reserved: [0; 16],
    }
}

/// A Driver resource descriptor in the Runtime's words (`cudaResourceDesc`), for HIP's one
/// surface call, `hipCreateSurfaceObject`, which takes the Runtime's struct: the resource types
/// share their values; a linear or pitched resource's format and channel count become a
/// channel descriptor ([`channel_desc`]).
///
/// # Errors
/// An unknown resource type, format or channel count, or non-zero `flags`, is invalid; a format
/// a channel descriptor cannot express is not supported.
pub(crate) fn resource_desc_to_runtime(
    d: &CUDA_RESOURCE_DESC,
) -> Result<cudaResourceDesc, Refusal> {
    if d.flags != 0 {
        return Err(Refusal::InvalidValue);
    }
    let chan = |f: CUarray_format, n: c_uint| {
        channel_desc(f, n)
            .map(|c| cudaChannelFormatDesc {
                x: c.x,
                y: c.y,
                z: c.z,
                w: c.w,
                // `channel_desc`'s kinds are CUDA's (signed 0, unsigned 1, float 2).
                f: cudaChannelFormatKind(c.f),
            })
            .map_err(|e| {
                if e == INVALID_VALUE {
                    Refusal::InvalidValue
                } else {
                    Refusal::NotSupported
                }
            })
    };
    // SAFETY: all-zero bytes are a valid value of this plain-data union.
    let mut res: cudaResourceDesc__bindgen_ty_1 = unsafe { core::mem::zeroed() };
    // SAFETY: the union member read is the one `resType` names; plain data.
    let res_type = match d.resType {
        CUresourcetype::CU_RESOURCE_TYPE_ARRAY => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            res.array.array = unsafe { d.res.array.hArray }.cast();
            cudaResourceType::cudaResourceTypeArray
        }
        CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            res.mipmap.mipmap = unsafe { d.res.mipmap.hMipmappedArray }.cast();
            cudaResourceType::cudaResourceTypeMipmappedArray
        }
        CUresourcetype::CU_RESOURCE_TYPE_LINEAR => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let l = unsafe { d.res.linear };
            res.linear.devPtr = devptr_to_hip(l.devPtr);
            res.linear.desc = chan(l.format, l.numChannels)?;
            res.linear.sizeInBytes = l.sizeInBytes;
            cudaResourceType::cudaResourceTypeLinear
        }
        CUresourcetype::CU_RESOURCE_TYPE_PITCH2D => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let p = unsafe { d.res.pitch2D };
            res.pitch2D.devPtr = devptr_to_hip(p.devPtr);
            res.pitch2D.desc = chan(p.format, p.numChannels)?;
            res.pitch2D.width = p.width;
            res.pitch2D.height = p.height;
            res.pitch2D.pitchInBytes = p.pitchInBytes;
            cudaResourceType::cudaResourceTypePitch2D
        }
        _ => return Err(Refusal::InvalidValue),
    };
    Ok(cudaResourceDesc {
        resType: res_type,
        res,
        flags: 0,
    })
}

/// A Runtime channel descriptor as HIP's: the kind through the `cudaChannelFormatKind` table.
///
/// # Errors
/// A kind outside CUDA's set is invalid; one HIP lacks (NV12, normalized and compressed kinds
/// in older HIPs) is not supported.
pub(crate) fn rt_channel_desc_to_hip(
    t: &ConvTables,
    d: &cudaChannelFormatDesc,
) -> Result<hipChannelFormatDesc, Refusal> {
    Ok(hipChannelFormatDesc {
        x: d.x,
        y: d.y,
        z: d.z,
        w: d.w,
        f: enum_arg(t.cudaChannelFormatKind, d.f)? as c_uint,
    })
}

/// HIP's channel descriptor back as the Runtime's.
pub(crate) fn rt_channel_desc_to_cuda(
    t: &ConvTables,
    h: &hipChannelFormatDesc,
) -> cudaChannelFormatDesc {
    cudaChannelFormatDesc {
        x: h.x,
        y: h.y,
        z: h.z,
        w: h.w,
        f: enum_out(t.cudaChannelFormatKind, i64::from(h.f)),
    }
}

/// A `cudaResourceDesc` as HIP 6.2+'s `hipResourceDesc` (for HIP 5.2: then
/// [`rt_resource_desc_to_hip52`]): the resource type and channel kinds through the tables.
/// HIP's struct has no `flags`.
///
/// # Errors
/// An unknown resource type or channel kind, or non-zero `flags` (CUDA: "must be zero"), is
/// invalid; a kind HIP lacks is not supported.
pub(crate) fn rt_resource_desc_to_hip(
    t: &ConvTables,
    d: &cudaResourceDesc,
) -> Result<hipResourceDesc, Refusal> {
    if d.flags != 0 {
        return Err(Refusal::InvalidValue);
    }
    let res_type = enum_arg(t.cudaResourceType, d.resType)? as c_uint;
    // SAFETY: all-zero bytes are a valid value of this plain-data union.
    let mut res: hipResourceDesc__bindgen_ty_1 = unsafe { core::mem::zeroed() };
    // SAFETY: the union member read is the one `resType` names; plain data.
    match d.resType {
        cudaResourceType::cudaResourceTypeArray => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            res.array.array = unsafe { d.res.array.array }.cast();
        }
        cudaResourceType::cudaResourceTypeMipmappedArray => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            res.mipmap.mipmap = unsafe { d.res.mipmap.mipmap }.cast();
        }
        cudaResourceType::cudaResourceTypeLinear => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let l = unsafe { d.res.linear };
            res.linear.devPtr = l.devPtr;
            res.linear.desc = rt_channel_desc_to_hip(t, &l.desc)?;
            res.linear.sizeInBytes = l.sizeInBytes;
        }
        cudaResourceType::cudaResourceTypePitch2D => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let p = unsafe { d.res.pitch2D };
            res.pitch2D.devPtr = p.devPtr;
            res.pitch2D.desc = rt_channel_desc_to_hip(t, &p.desc)?;
            res.pitch2D.width = p.width;
            res.pitch2D.height = p.height;
            res.pitch2D.pitchInBytes = p.pitchInBytes;
        }
        _ => return Err(Refusal::NotSupported),
    }
    Ok(hipResourceDesc {
        resType: res_type,
        res,
    })
}

/// HIP's `hipResourceDesc` back as the Runtime's (`cudaGetTextureObjectResourceDesc`): the
/// inverse of [`rt_resource_desc_to_hip`]; `flags` 0.
pub(crate) fn rt_resource_desc_to_cuda(t: &ConvTables, h: &hipResourceDesc) -> cudaResourceDesc {
    let res_type: cudaResourceType = enum_out(t.cudaResourceType, i64::from(h.resType));
    // SAFETY: all-zero bytes are a valid value of this plain-data union.
    let mut res: cudaResourceDesc__bindgen_ty_1 = unsafe { core::mem::zeroed() };
    // SAFETY: the union member read is the one `resType` names; plain data.
    match res_type {
        cudaResourceType::cudaResourceTypeArray => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            res.array.array = unsafe { h.res.array.array }.cast();
        }
        cudaResourceType::cudaResourceTypeMipmappedArray => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            res.mipmap.mipmap = unsafe { h.res.mipmap.mipmap }.cast();
        }
        cudaResourceType::cudaResourceTypeLinear => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let l = unsafe { h.res.linear };
            res.linear.devPtr = l.devPtr;
            res.linear.desc = rt_channel_desc_to_cuda(t, &l.desc);
            res.linear.sizeInBytes = l.sizeInBytes;
        }
        cudaResourceType::cudaResourceTypePitch2D => {
            // SAFETY: the union member `resType` names; plain data, valid for any bits.
            let p = unsafe { h.res.pitch2D };
            res.pitch2D.devPtr = p.devPtr;
            res.pitch2D.desc = rt_channel_desc_to_cuda(t, &p.desc);
            res.pitch2D.width = p.width;
            res.pitch2D.height = p.height;
            res.pitch2D.pitchInBytes = p.pitchInBytes;
        }
        _ => {}
    }
    cudaResourceDesc {
        resType: res_type,
        res,
        flags: 0,
    }
}

/// HIP 6.2's `hipResourceDesc` in HIP 5.2's layout (5.2 differs only in the type its
/// mipmapped-array handle points to), member by member.
pub(crate) fn rt_resource_desc_to_hip52(h: &hipResourceDesc) -> hipResourceDesc__hip5_2 {
    // SAFETY: all-zero bytes are a valid value of this plain-data union.
    let mut res: hipResourceDesc__bindgen_ty_1__hip5_2 = unsafe { core::mem::zeroed() };
    // SAFETY: the member read is the one `resType` names (the type values are HIP's
    // `hipResourceType*`, which equal CUDA's in every HIP version); plain data.
    match h.resType {
        // SAFETY: the union member `resType` names; plain data, valid for any bits.
        0 => res.array = unsafe { h.res.array },
        // SAFETY: the union member `resType` names; plain data, valid for any bits.
        1 => res.mipmap.mipmap = unsafe { h.res.mipmap.mipmap }.cast(),
        // SAFETY: the union member `resType` names; plain data, valid for any bits.
        2 => res.linear = unsafe { h.res.linear },
        // SAFETY: the union member `resType` names; plain data, valid for any bits.
        3 => res.pitch2D = unsafe { h.res.pitch2D },
        _ => {}
    }
    hipResourceDesc__hip5_2 {
        resType: h.resType,
        res,
    }
}

/// HIP 5.2's `hipResourceDesc` as 6.2's: the inverse of [`rt_resource_desc_to_hip52`].
pub(crate) fn rt_resource_desc_from_hip52(h: &hipResourceDesc__hip5_2) -> hipResourceDesc {
    // SAFETY: all-zero bytes are a valid value of this plain-data union.
    let mut res: hipResourceDesc__bindgen_ty_1 = unsafe { core::mem::zeroed() };
    // SAFETY: as in `rt_resource_desc_to_hip52`.
    match h.resType {
        // SAFETY: the union member `resType` names; plain data, valid for any bits.
        0 => res.array = unsafe { h.res.array },
        // SAFETY: the union member `resType` names; plain data, valid for any bits.
        1 => res.mipmap.mipmap = unsafe { h.res.mipmap.mipmap }.cast(),
        // SAFETY: the union member `resType` names; plain data, valid for any bits.
        2 => res.linear = unsafe { h.res.linear },
        // SAFETY: the union member `resType` names; plain data, valid for any bits.
        3 => res.pitch2D = unsafe { h.res.pitch2D },
        _ => {}
    }
    hipResourceDesc {
        resType: h.resType,
        res,
    }
}

/// A `cudaTextureDesc` as HIP's `hipTextureDesc`: modes through the tables;
/// `disableTrilinearOptimization` (a hint HIP has no field for) dropped.
///
/// # Errors
/// A mode outside CUDA's set is invalid; `seamlessCubemap` (HIP has no field for it) is not
/// supported.
pub(crate) fn rt_texture_desc_to_hip(
    t: &ConvTables,
    d: &cudaTextureDesc,
) -> Result<hipTextureDesc, Refusal> {
    if d.seamlessCubemap != 0 {
        return Err(Refusal::NotSupported);
    }
    let am = |m: cudaTextureAddressMode| enum_arg(t.cudaTextureAddressMode, m).map(|v| v as c_uint);
    let fm = |m: cudaTextureFilterMode| enum_arg(t.cudaTextureFilterMode, m).map(|v| v as c_uint);
    Ok(hipTextureDesc {
        addressMode: [
            am(d.addressMode[0])?,
            am(d.addressMode[1])?,
            am(d.addressMode[2])?,
        ],
        filterMode: fm(d.filterMode)?,
        readMode: enum_arg(t.cudaTextureReadMode, d.readMode)? as c_uint,
        sRGB: d.sRGB,
        borderColor: d.borderColor,
        normalizedCoords: d.normalizedCoords,
        maxAnisotropy: d.maxAnisotropy,
        mipmapFilterMode: fm(d.mipmapFilterMode)?,
        mipmapLevelBias: d.mipmapLevelBias,
        minMipmapLevelClamp: d.minMipmapLevelClamp,
        maxMipmapLevelClamp: d.maxMipmapLevelClamp,
    })
}

/// HIP's `hipTextureDesc` back as the Runtime's; the two fields HIP lacks read 0.
pub(crate) fn rt_texture_desc_to_cuda(t: &ConvTables, h: &hipTextureDesc) -> cudaTextureDesc {
    let am = |m: c_uint| enum_out::<cudaTextureAddressMode>(t.cudaTextureAddressMode, i64::from(m));
    let fm = |m: c_uint| enum_out::<cudaTextureFilterMode>(t.cudaTextureFilterMode, i64::from(m));
    cudaTextureDesc {
        addressMode: [
            am(h.addressMode[0]),
            am(h.addressMode[1]),
            am(h.addressMode[2]),
        ],
        filterMode: fm(h.filterMode),
        readMode: enum_out(t.cudaTextureReadMode, i64::from(h.readMode)),
        sRGB: h.sRGB,
        borderColor: h.borderColor,
        normalizedCoords: h.normalizedCoords,
        maxAnisotropy: h.maxAnisotropy,
        mipmapFilterMode: fm(h.mipmapFilterMode),
        mipmapLevelBias: h.mipmapLevelBias,
        minMipmapLevelClamp: h.minMipmapLevelClamp,
        maxMipmapLevelClamp: h.maxMipmapLevelClamp,
        disableTrilinearOptimization: 0,
        seamlessCubemap: 0,
    }
}

/// A `cudaResourceViewDesc` as HIP's (no reserved words): the format through the table.
///
/// # Errors
/// A format outside CUDA's set is invalid; one HIP cannot express is not supported.
pub(crate) fn rt_view_desc_to_hip(
    t: &ConvTables,
    d: &cudaResourceViewDesc,
) -> Result<hipResourceViewDesc, Refusal> {
    Ok(hipResourceViewDesc {
        format: enum_arg(t.cudaResourceViewFormat, d.format)? as c_uint,
        width: d.width,
        height: d.height,
        depth: d.depth,
        firstMipmapLevel: d.firstMipmapLevel,
        lastMipmapLevel: d.lastMipmapLevel,
        firstLayer: d.firstLayer,
        lastLayer: d.lastLayer,
    })
}

/// HIP's `hipResourceViewDesc` back as the Runtime's; reserved words 0.
pub(crate) fn rt_view_desc_to_cuda(
    t: &ConvTables,
    h: &hipResourceViewDesc,
) -> cudaResourceViewDesc {
    cudaResourceViewDesc {
        format: enum_out(t.cudaResourceViewFormat, i64::from(h.format)),
        width: h.width,
        height: h.height,
        depth: h.depth,
        firstMipmapLevel: h.firstMipmapLevel,
        lastMipmapLevel: h.lastMipmapLevel,
        firstLayer: h.firstLayer,
        lastLayer: h.lastLayer,
        reserved: [0; 16],
    }
}

#[cfg(test)]
mod tests {
    //! The descriptor translations as pure functions, against HIP 5.2's and 6.4's tables: every
    //! field both ways, the refusals by class.

    use super::*;
    use crate::conv::tables_for;
    use anycuda_api::driver::{CUarray, CUmipmappedArray, CUresourceViewFormat};
    use anycuda_api::runtime::{cudaResourceViewFormat, cudaTextureReadMode};

    fn hip52() -> &'static ConvTables {
        tables_for(50_221_153)
    }
    fn hip64() -> &'static ConvTables {
        tables_for(60_443_484)
    }

    fn linear_desc(format: CUarray_format, n: c_uint) -> CUDA_RESOURCE_DESC {
        // SAFETY: all-zero bytes are a valid CUDA_RESOURCE_DESC (plain data).
        let mut d: CUDA_RESOURCE_DESC = unsafe { core::mem::zeroed() };
        d.resType = CUresourcetype::CU_RESOURCE_TYPE_LINEAR;
        d.res.linear.devPtr = 0xdead_0000;
        d.res.linear.format = format;
        d.res.linear.numChannels = n;
        d.res.linear.sizeInBytes = 4096;
        d
    }

    #[test]
    fn array_descriptor_and_flags() {
        let d = CUDA_ARRAY3D_DESCRIPTOR {
            Width: 32,
            Height: 16,
            Depth: 0,
            Format: CUarray_format::CU_AD_FORMAT_FLOAT,
            NumChannels: 2,
            Flags: 2,
        };
        for t in [hip52(), hip64()] {
            let h = array3d_desc_to_hip(t, &d).unwrap();
            assert_eq!((h.Width, h.Height, h.Depth), (32, 16, 0));
            assert_eq!((h.Format, h.NumChannels, h.Flags), (0x20, 2, 2));
            let bad = CUDA_ARRAY3D_DESCRIPTOR {
                Format: CUarray_format(0x77),
                ..d
            };
            assert_eq!(
                array3d_desc_to_hip(t, &bad).err(),
                Some(Refusal::InvalidValue)
            );
            // Block-compressed formats are CUDA's, not HIP's.
            let bc = CUDA_ARRAY3D_DESCRIPTOR {
                Format: CUarray_format::CU_AD_FORMAT_BC1_UNORM,
                ..d
            };
            assert_eq!(
                array3d_desc_to_hip(t, &bc).err(),
                Some(Refusal::NotSupported)
            );
        }
        assert_eq!(array_flags_to_hip(0x0f), Ok(0x0f));
        assert_eq!(array_flags_to_hip(0x40), Err(Refusal::NotSupported)); // sparse
        assert_eq!(array_flags_to_hip(0x200), Err(Refusal::InvalidValue));
    }

    #[test]
    fn resource_descriptor_both_layouts_and_back() {
        for t in [hip52(), hip64()] {
            // Array and mipmapped array: the handle bits.
            // SAFETY: all-zero bytes are a valid CUDA_RESOURCE_DESC (plain data).
            let mut d: CUDA_RESOURCE_DESC = unsafe { core::mem::zeroed() };
            d.resType = CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY;
            d.res.mipmap.hMipmappedArray = 0x1234_5678usize as CUmipmappedArray;
            let h = resource_desc_to_hip(t, &d).unwrap();
            assert_eq!(h.resType, 1);
            // SAFETY: the member `resType` names.
            let m = unsafe { h.res.mipmap.hMipmappedArray } as usize;
            assert_eq!(m, 0x1234_5678);
            let h52 = resource_desc_to_hip52(&h);
            // SAFETY: the member `resType` names.
            let m = unsafe { h52.res.mipmap.hMipmappedArray } as usize;
            assert_eq!(m, 0x1234_5678);
            let back = resource_desc_to_cuda(t, &resource_desc_from_hip52(&h52));
            assert_eq!(
                back.resType,
                CUresourcetype::CU_RESOURCE_TYPE_MIPMAPPED_ARRAY
            );
            // SAFETY: the member `resType` names.
            let m = unsafe { back.res.mipmap.hMipmappedArray } as usize;
            assert_eq!(m, 0x1234_5678);

            // Pitched: every field, format through the table.
            // SAFETY: all-zero bytes are a valid CUDA_RESOURCE_DESC (plain data).
            let mut p: CUDA_RESOURCE_DESC = unsafe { core::mem::zeroed() };
            p.resType = CUresourcetype::CU_RESOURCE_TYPE_PITCH2D;
            p.res.pitch2D.devPtr = 0xbeef_0000;
            p.res.pitch2D.format = CUarray_format::CU_AD_FORMAT_SIGNED_INT16;
            p.res.pitch2D.numChannels = 4;
            p.res.pitch2D.width = 7;
            p.res.pitch2D.height = 9;
            p.res.pitch2D.pitchInBytes = 512;
            let h = resource_desc_to_hip(t, &p).unwrap();
            // SAFETY: the member `resType` names.
            let hp = unsafe { h.res.pitch2D };
            assert_eq!(h.resType, 3);
            assert_eq!(hp.devPtr as usize, 0xbeef_0000);
            assert_eq!((hp.format, hp.numChannels), (0x09, 4));
            assert_eq!((hp.width, hp.height, hp.pitchInBytes), (7, 9, 512));
            let back =
                resource_desc_to_cuda(t, &resource_desc_from_hip52(&resource_desc_to_hip52(&h)));
            // SAFETY: the member `resType` names.
            let bp = unsafe { back.res.pitch2D };
            assert_eq!(bp.devPtr, 0xbeef_0000);
            assert_eq!(bp.format, CUarray_format::CU_AD_FORMAT_SIGNED_INT16);
            assert_eq!(
                (bp.numChannels, bp.width, bp.height, bp.pitchInBytes),
                (4, 7, 9, 512)
            );

            // Refusals by class.
            let mut f = linear_desc(CUarray_format::CU_AD_FORMAT_FLOAT, 1);
            f.flags = 1;
            assert_eq!(
                resource_desc_to_hip(t, &f).err(),
                Some(Refusal::InvalidValue)
            );
            let mut r = linear_desc(CUarray_format::CU_AD_FORMAT_FLOAT, 1);
            r.resType = CUresourcetype(9);
            assert_eq!(
                resource_desc_to_hip(t, &r).err(),
                Some(Refusal::InvalidValue)
            );
            let l = linear_desc(CUarray_format(0x77), 1);
            assert_eq!(
                resource_desc_to_hip(t, &l).err(),
                Some(Refusal::InvalidValue)
            );
        }
    }

    #[test]
    fn texture_and_view_descriptors_both_ways() {
        let d = CUDA_TEXTURE_DESC {
            addressMode: [
                CUaddress_mode::CU_TR_ADDRESS_MODE_CLAMP,
                CUaddress_mode::CU_TR_ADDRESS_MODE_MIRROR,
                CUaddress_mode::CU_TR_ADDRESS_MODE_BORDER,
            ],
            filterMode: CUfilter_mode::CU_TR_FILTER_MODE_LINEAR,
            flags: 0x02 | 0x20, // normalized coordinates, trilinear hint (dropped)
            maxAnisotropy: 4,
            mipmapFilterMode: CUfilter_mode::CU_TR_FILTER_MODE_POINT,
            mipmapLevelBias: 0.5,
            minMipmapLevelClamp: 1.0,
            maxMipmapLevelClamp: 3.0,
            borderColor: [0.1, 0.2, 0.3, 0.4],
            reserved: [7; 12],
        };
        for t in [hip52(), hip64()] {
            let h = texture_desc_to_hip(t, &d).unwrap();
            assert_eq!(h.addressMode, [1, 2, 3]);
            assert_eq!((h.filterMode, h.mipmapFilterMode, h.flags), (1, 0, 0x02));
            assert_eq!(h.maxAnisotropy, 4);
            assert_eq!(
                (
                    h.mipmapLevelBias,
                    h.minMipmapLevelClamp,
                    h.maxMipmapLevelClamp
                ),
                (0.5, 1.0, 3.0)
            );
            assert_eq!(h.borderColor, [0.1, 0.2, 0.3, 0.4]);
            assert_eq!(h.reserved, [0; 12]);
            let c = texture_desc_to_cuda(t, &h);
            assert_eq!(c.addressMode, d.addressMode);
            assert_eq!(
                (c.filterMode, c.mipmapFilterMode),
                (d.filterMode, d.mipmapFilterMode)
            );
            assert_eq!(c.flags, 0x02);
            assert_eq!(c.borderColor, d.borderColor);

            let bad = CUDA_TEXTURE_DESC {
                addressMode: [CUaddress_mode(9); 3],
                ..d
            };
            assert_eq!(
                texture_desc_to_hip(t, &bad).err(),
                Some(Refusal::InvalidValue)
            );
            let cube = CUDA_TEXTURE_DESC { flags: 0x40, ..d };
            assert_eq!(
                texture_desc_to_hip(t, &cube).err(),
                Some(Refusal::NotSupported)
            );
            let unknown = CUDA_TEXTURE_DESC { flags: 0x100, ..d };
            assert_eq!(
                texture_desc_to_hip(t, &unknown).err(),
                Some(Refusal::InvalidValue)
            );

            let v = CUDA_RESOURCE_VIEW_DESC {
                format: CUresourceViewFormat::CU_RES_VIEW_FORMAT_FLOAT_1X32,
                width: 5,
                height: 6,
                depth: 1,
                firstMipmapLevel: 1,
                lastMipmapLevel: 2,
                firstLayer: 0,
                lastLayer: 0,
                reserved: [0; 16],
            };
            let hv = view_desc_to_hip(t, &v).unwrap();
            assert_eq!(hv.format, v.format.0);
            assert_eq!((hv.width, hv.height, hv.depth), (5, 6, 1));
            assert_eq!((hv.firstMipmapLevel, hv.lastMipmapLevel), (1, 2));
            let cv = view_desc_to_cuda(t, &hv);
            assert_eq!(cv.format, v.format);
            assert_eq!((cv.width, cv.lastMipmapLevel), (5, 2));
            let bad = CUDA_RESOURCE_VIEW_DESC {
                format: CUresourceViewFormat(0x99),
                ..v
            };
            assert_eq!(view_desc_to_hip(t, &bad).err(), Some(Refusal::InvalidValue));
        }
    }

    #[test]
    fn driver_resource_in_the_runtimes_words() {
        let r =
            resource_desc_to_runtime(&linear_desc(CUarray_format::CU_AD_FORMAT_HALF, 2)).unwrap();
        assert_eq!(r.resType, cudaResourceType::cudaResourceTypeLinear);
        // SAFETY: the member `resType` names.
        let l = unsafe { r.res.linear };
        assert_eq!(l.devPtr as usize, 0xdead_0000);
        assert_eq!((l.desc.x, l.desc.y, l.desc.z, l.desc.w), (16, 16, 0, 0));
        assert_eq!(l.desc.f, cudaChannelFormatKind::cudaChannelFormatKindFloat);
        assert_eq!(l.sizeInBytes, 4096);
        // SAFETY: all-zero bytes are a valid CUDA_RESOURCE_DESC (plain data).
        let mut a: CUDA_RESOURCE_DESC = unsafe { core::mem::zeroed() };
        a.res.array.hArray = 0x4000usize as CUarray;
        let r = resource_desc_to_runtime(&a).unwrap();
        assert_eq!(r.resType, cudaResourceType::cudaResourceTypeArray);
        // SAFETY: the member `resType` names.
        assert_eq!(unsafe { r.res.array.array } as usize, 0x4000);
        assert_eq!(
            resource_desc_to_runtime(&linear_desc(CUarray_format::CU_AD_FORMAT_FLOAT, 3)).err(),
            Some(Refusal::InvalidValue)
        );
        assert_eq!(
            resource_desc_to_runtime(&linear_desc(CUarray_format::CU_AD_FORMAT_BC1_UNORM, 1)).err(),
            Some(Refusal::NotSupported)
        );
        a.resType = CUresourcetype(7);
        assert_eq!(
            resource_desc_to_runtime(&a).err(),
            Some(Refusal::InvalidValue)
        );
    }

    #[test]
    fn runtime_descriptors_both_layouts_and_back() {
        for t in [hip52(), hip64()] {
            // SAFETY: all-zero bytes are a valid cudaResourceDesc (plain data).
            let mut d: cudaResourceDesc = unsafe { core::mem::zeroed() };
            d.resType = cudaResourceType::cudaResourceTypePitch2D;
            d.res.pitch2D.devPtr = 0x9000usize as *mut core::ffi::c_void;
            d.res.pitch2D.desc = cudaChannelFormatDesc {
                x: 8,
                y: 8,
                z: 8,
                w: 8,
                f: cudaChannelFormatKind::cudaChannelFormatKindUnsigned,
            };
            d.res.pitch2D.width = 3;
            d.res.pitch2D.height = 4;
            d.res.pitch2D.pitchInBytes = 256;
            let h = rt_resource_desc_to_hip(t, &d).unwrap();
            let h = rt_resource_desc_from_hip52(&rt_resource_desc_to_hip52(&h));
            assert_eq!(h.resType, 3);
            // SAFETY: the member `resType` names.
            let hp = unsafe { h.res.pitch2D };
            assert_eq!((hp.desc.x, hp.desc.w, hp.desc.f), (8, 8, 1));
            assert_eq!((hp.width, hp.height, hp.pitchInBytes), (3, 4, 256));
            let c = rt_resource_desc_to_cuda(t, &h);
            assert_eq!(c.resType, d.resType);
            // SAFETY: the member `resType` names.
            let cp = unsafe { c.res.pitch2D };
            assert_eq!(cp.devPtr as usize, 0x9000);
            assert_eq!(
                cp.desc.f,
                cudaChannelFormatKind::cudaChannelFormatKindUnsigned
            );
            assert_eq!(cp.pitchInBytes, 256);

            d.flags = 1;
            assert_eq!(
                rt_resource_desc_to_hip(t, &d).err(),
                Some(Refusal::InvalidValue)
            );
            d.flags = 0;
            d.res.pitch2D.desc.f = cudaChannelFormatKind(0x55);
            assert_eq!(
                rt_resource_desc_to_hip(t, &d).err(),
                Some(Refusal::InvalidValue)
            );

            let tx = cudaTextureDesc {
                addressMode: [cudaTextureAddressMode::cudaAddressModeBorder; 3],
                filterMode: cudaTextureFilterMode::cudaFilterModeLinear,
                readMode: cudaTextureReadMode::cudaReadModeNormalizedFloat,
                sRGB: 1,
                borderColor: [1.0, 0.0, 0.0, 1.0],
                normalizedCoords: 1,
                maxAnisotropy: 2,
                mipmapFilterMode: cudaTextureFilterMode::cudaFilterModeLinear,
                mipmapLevelBias: 0.25,
                minMipmapLevelClamp: 0.0,
                maxMipmapLevelClamp: 4.0,
                disableTrilinearOptimization: 1,
                seamlessCubemap: 0,
            };
            let h = rt_texture_desc_to_hip(t, &tx).unwrap();
            assert_eq!((h.addressMode, h.filterMode, h.readMode), ([3; 3], 1, 1));
            assert_eq!((h.sRGB, h.normalizedCoords, h.maxAnisotropy), (1, 1, 2));
            assert_eq!((h.mipmapLevelBias, h.maxMipmapLevelClamp), (0.25, 4.0));
            let c = rt_texture_desc_to_cuda(t, &h);
            assert_eq!((c.addressMode, c.readMode), (tx.addressMode, tx.readMode));
            assert_eq!((c.disableTrilinearOptimization, c.seamlessCubemap), (0, 0));
            let cube = cudaTextureDesc {
                seamlessCubemap: 1,
                ..tx
            };
            assert_eq!(
                rt_texture_desc_to_hip(t, &cube).err(),
                Some(Refusal::NotSupported)
            );
            let bad = cudaTextureDesc {
                readMode: cudaTextureReadMode(5),
                ..tx
            };
            assert_eq!(
                rt_texture_desc_to_hip(t, &bad).err(),
                Some(Refusal::InvalidValue)
            );

            let v = cudaResourceViewDesc {
                format: cudaResourceViewFormat::cudaResViewFormatUnsignedChar4,
                width: 1,
                height: 2,
                depth: 3,
                firstMipmapLevel: 0,
                lastMipmapLevel: 1,
                firstLayer: 2,
                lastLayer: 3,
                reserved: [0; 16],
            };
            let hv = rt_view_desc_to_hip(t, &v).unwrap();
            assert_eq!((hv.format, hv.depth, hv.lastLayer), (v.format.0, 3, 3));
            let cv = rt_view_desc_to_cuda(t, &hv);
            assert_eq!((cv.format, cv.firstLayer), (v.format, 2));
        }
    }
}

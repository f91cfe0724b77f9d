//! Copy descriptors: `CUDA_MEMCPY2D`, `CUDA_MEMCPY3D`, `CUDA_MEMCPY3D_PEER` and
//! `cudaMemcpy3DParms` in HIP's layouts (HIP 5.2's and 6+'s) and back.
//!
//! AMD: the memory types are renumbered (`CUmemorytype` host 1 is `hipMemoryTypeHost` 0 in HIP
//! 5.x, 1 in 6.x; array 3 is 2 or 10) and HIP 5.2's `HIP_MEMCPY3D` has 32-bit fields and no
//! `reserved` pointers, so each descriptor is rebuilt on the stack, field by field.

use crate::conv::nvidia;
use crate::conv::{devptr_to_cuda, devptr_to_hip, enum_to_cuda, EnumMap};
use crate::hip_types::{
    hipMemcpy3DParms, hipMemoryType, hip_Memcpy2D, hip_Memcpy2D__hip5_2, HIP_MEMCPY3D__hip5_2,
    HIP_MEMCPY3D,
};
use crate::HipBackend;
use anycuda_api::driver::{
    CUmemorytype, CUresult, CUDA_MEMCPY2D, CUDA_MEMCPY3D, CUDA_MEMCPY3D_PEER,
};
use anycuda_api::runtime::{cudaError_t, cudaMemcpy3DParms};
use core::ffi::c_uint;

/// A CUDA memory type in HIP's words; a value that is not a memory type is invalid, as on CUDA.
pub(crate) fn memtype_to_hip(map: &EnumMap, t: CUmemorytype) -> Result<hipMemoryType, CUresult> {
    map.to_hip(i64::from(t.0))
        .map(|v| v as hipMemoryType)
        .ok_or(CUresult::CUDA_ERROR_INVALID_VALUE)
}

/// Builds a HIP 2D descriptor (both layouts have the same fields) from CUDA's.
macro_rules! memcpy2d_to_hip {
    ($ty:ident, $map:expr, $c:expr) => {{
        let c: &CUDA_MEMCPY2D = $c;
        Ok::<$ty, CUresult>($ty {
            srcXInBytes: c.srcXInBytes,
            srcY: c.srcY,
            srcMemoryType: memtype_to_hip($map, c.srcMemoryType)?,
            srcHost: c.srcHost,
            srcDevice: devptr_to_hip(c.srcDevice),
            srcArray: c.srcArray.cast(),
            srcPitch: c.srcPitch,
            dstXInBytes: c.dstXInBytes,
            dstY: c.dstY,
            dstMemoryType: memtype_to_hip($map, c.dstMemoryType)?,
            dstHost: c.dstHost,
            dstDevice: devptr_to_hip(c.dstDevice),
            dstArray: c.dstArray.cast(),
            dstPitch: c.dstPitch,
            WidthInBytes: c.WidthInBytes,
            Height: c.Height,
        })
    }};
}

/// `CUDA_MEMCPY2D` → HIP 6.x+ `hip_Memcpy2D`.
pub(crate) fn memcpy2d_to_hip(map: &EnumMap, c: &CUDA_MEMCPY2D) -> Result<hip_Memcpy2D, CUresult> {
    memcpy2d_to_hip!(hip_Memcpy2D, map, c)
}

/// `CUDA_MEMCPY2D` → HIP 5.2 `hip_Memcpy2D`.
pub(crate) fn memcpy2d_to_hip52(
    map: &EnumMap,
    c: &CUDA_MEMCPY2D,
) -> Result<hip_Memcpy2D__hip5_2, CUresult> {
    memcpy2d_to_hip!(hip_Memcpy2D__hip5_2, map, c)
}

/// Builds a HIP 3D descriptor from CUDA's: both layouts have the same fields, HIP 5.2's with
/// 32-bit sizes and offsets, which `$n` converts (`?` on its error). The `reserved` pointers must
/// be NULL, as CUDA requires.
macro_rules! memcpy3d_to_hip {
    ($ty:ident, $map:expr, $c:expr, $n:expr) => {{
        let c: &CUDA_MEMCPY3D = $c;
        if !c.reserved0.is_null() || !c.reserved1.is_null() {
            return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
        }
        let n = $n;
        Ok::<$ty, CUresult>($ty {
            srcXInBytes: n(c.srcXInBytes)?,
            srcY: n(c.srcY)?,
            srcZ: n(c.srcZ)?,
            srcLOD: n(c.srcLOD)?,
            srcMemoryType: memtype_to_hip($map, c.srcMemoryType)?,
            srcHost: c.srcHost,
            srcDevice: devptr_to_hip(c.srcDevice),
            srcArray: c.srcArray.cast(),
            srcPitch: n(c.srcPitch)?,
            srcHeight: n(c.srcHeight)?,
            dstXInBytes: n(c.dstXInBytes)?,
            dstY: n(c.dstY)?,
            dstZ: n(c.dstZ)?,
            dstLOD: n(c.dstLOD)?,
            dstMemoryType: memtype_to_hip($map, c.dstMemoryType)?,
            dstHost: c.dstHost,
            dstDevice: devptr_to_hip(c.dstDevice),
            dstArray: c.dstArray.cast(),
            dstPitch: n(c.dstPitch)?,
            dstHeight: n(c.dstHeight)?,
            WidthInBytes: n(c.WidthInBytes)?,
            Height: n(c.Height)?,
            Depth: n(c.Depth)?,
        })
    }};
}

/// `CUDA_MEMCPY3D` → HIP 6.x+ `HIP_MEMCPY3D` (same field widths).
pub(crate) fn memcpy3d_to_hip(map: &EnumMap, c: &CUDA_MEMCPY3D) -> Result<HIP_MEMCPY3D, CUresult> {
    memcpy3d_to_hip!(HIP_MEMCPY3D, map, c, Ok::<usize, CUresult>)
}

/// `CUDA_MEMCPY3D` → HIP 5.2 `HIP_MEMCPY3D`, whose sizes and offsets are 32-bit: a value that
/// does not fit is `CUDA_ERROR_NOT_SUPPORTED` (HIP 5.2 cannot express that copy).
pub(crate) fn memcpy3d_to_hip52(
    map: &EnumMap,
    c: &CUDA_MEMCPY3D,
) -> Result<HIP_MEMCPY3D__hip5_2, CUresult> {
    memcpy3d_to_hip!(HIP_MEMCPY3D__hip5_2, map, c, |v: usize| {
        c_uint::try_from(v).map_err(|_| CUresult::CUDA_ERROR_NOT_SUPPORTED)
    })
}

/// `cudaMemcpy3DParms` → `hipMemcpy3DParms` (same fields in every HIP version; the kind goes
/// through the `cudaMemcpyKind` table, an unknown kind is `cudaErrorInvalidMemcpyDirection`).
pub(crate) fn memcpy3d_parms_to_hip(
    kinds: &EnumMap,
    p: &cudaMemcpy3DParms,
) -> Result<hipMemcpy3DParms, cudaError_t> {
    let kind = kinds
        .to_hip(i64::from(p.kind.0))
        .ok_or(cudaError_t::cudaErrorInvalidMemcpyDirection)?;
    Ok(hipMemcpy3DParms {
        srcArray: p.srcArray.cast(),
        srcPos: crate::hip_types::hipPos {
            x: p.srcPos.x,
            y: p.srcPos.y,
            z: p.srcPos.z,
        },
        srcPtr: crate::hip_types::hipPitchedPtr {
            ptr: p.srcPtr.ptr,
            pitch: p.srcPtr.pitch,
            xsize: p.srcPtr.xsize,
            ysize: p.srcPtr.ysize,
        },
        dstArray: p.dstArray.cast(),
        dstPos: crate::hip_types::hipPos {
            x: p.dstPos.x,
            y: p.dstPos.y,
            z: p.dstPos.z,
        },
        dstPtr: crate::hip_types::hipPitchedPtr {
            ptr: p.dstPtr.ptr,
            pitch: p.dstPtr.pitch,
            xsize: p.dstPtr.xsize,
            ysize: p.dstPtr.ysize,
        },
        extent: crate::hip_types::hipExtent {
            width: p.extent.width,
            height: p.extent.height,
            depth: p.extent.depth,
        },
        kind: kind as crate::hip_types::hipMemcpyKind,
    })
}

/// A `CUDA_MEMCPY3D_PEER` as the `CUDA_MEMCPY3D` it describes (contexts dropped: with unified
/// addressing the memory types and pointers identify the memory, which is how HIP copies
/// between devices too).
pub(crate) fn peer_to_3d(p: &CUDA_MEMCPY3D_PEER) -> CUDA_MEMCPY3D {
    CUDA_MEMCPY3D {
        srcXInBytes: p.srcXInBytes,
        srcY: p.srcY,
        srcZ: p.srcZ,
        srcLOD: p.srcLOD,
        srcMemoryType: p.srcMemoryType,
        srcHost: p.srcHost,
        srcDevice: p.srcDevice,
        srcArray: p.srcArray,
        reserved0: core::ptr::null_mut(),
        srcPitch: p.srcPitch,
        srcHeight: p.srcHeight,
        dstXInBytes: p.dstXInBytes,
        dstY: p.dstY,
        dstZ: p.dstZ,
        dstLOD: p.dstLOD,
        dstMemoryType: p.dstMemoryType,
        dstHost: p.dstHost,
        dstDevice: p.dstDevice,
        dstArray: p.dstArray,
        reserved1: core::ptr::null_mut(),
        dstPitch: p.dstPitch,
        dstHeight: p.dstHeight,
        WidthInBytes: p.WidthInBytes,
        Height: p.Height,
        Depth: p.Depth,
    }
}

pub(crate) fn memtype_to_cuda(map: &EnumMap, t: crate::hip_types::hipMemoryType) -> CUmemorytype {
    CUmemorytype(enum_to_cuda(map, t))
}

/// HIP 6+ `HIP_MEMCPY3D` → `CUDA_MEMCPY3D` (memory types renumbered back).
pub(crate) fn memcpy3d_to_cuda(map: &EnumMap, h: &HIP_MEMCPY3D) -> CUDA_MEMCPY3D {
    CUDA_MEMCPY3D {
        srcXInBytes: h.srcXInBytes,
        srcY: h.srcY,
        srcZ: h.srcZ,
        srcLOD: h.srcLOD,
        srcMemoryType: memtype_to_cuda(map, h.srcMemoryType),
        srcHost: h.srcHost,
        srcDevice: devptr_to_cuda(h.srcDevice),
        srcArray: h.srcArray.cast(),
        reserved0: core::ptr::null_mut(),
        srcPitch: h.srcPitch,
        srcHeight: h.srcHeight,
        dstXInBytes: h.dstXInBytes,
        dstY: h.dstY,
        dstZ: h.dstZ,
        dstLOD: h.dstLOD,
        dstMemoryType: memtype_to_cuda(map, h.dstMemoryType),
        dstHost: h.dstHost,
        dstDevice: devptr_to_cuda(h.dstDevice),
        dstArray: h.dstArray.cast(),
        reserved1: core::ptr::null_mut(),
        dstPitch: h.dstPitch,
        dstHeight: h.dstHeight,
        WidthInBytes: h.WidthInBytes,
        Height: h.Height,
        Depth: h.Depth,
    }
}

/// `cudaMemcpy3DParms` in HIP's words (CUDA's struct on HIP's NVIDIA platform).
pub(crate) fn memcpy_to_hip(
    b: &HipBackend,
    p: &cudaMemcpy3DParms,
) -> Result<hipMemcpy3DParms, cudaError_t> {
    if nvidia(b) {
        // SAFETY: `hipMemcpy3DParms` is `cudaMemcpy3DParms` there (same size, plain data).
        return Ok(unsafe { core::mem::transmute_copy(p) });
    }
    memcpy3d_parms_to_hip(b.conv().cudaMemcpyKind, p)
}

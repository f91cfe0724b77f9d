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

/// One linear end of a `CUDA_MEMCPY3D` as a pitched pointer and a byte position, the way the
/// Runtime's `cudaMemcpy3DParms` says it.
struct LinearEnd {
    ptr: *mut core::ffi::c_void,
    pitch: usize,
    height: usize,
    x: usize,
    y: usize,
    z: usize,
}

/// Reads one end of a Driver 3D copy: host, device or unified memory (the address space is
/// unified, so all three are one pointer to HIP's `hipMemcpyDefault`). An array end is not
/// supported (the Runtime counts an array's positions and extent in elements, which needs its
/// format), a value that is no memory type is invalid, and so is a non-NULL reserved pointer
/// or a pitch (height) below the copy's width (height) where a second row (slice) is copied,
/// as on CUDA. A one-row copy may leave the pitch 0 (CUDA ignores it): the width stands in.
#[allow(clippy::too_many_arguments)]
fn linear_end(
    c: &CUDA_MEMCPY3D,
    t: CUmemorytype,
    host: *const core::ffi::c_void,
    device: anycuda_api::driver::CUdeviceptr,
    reserved: *mut core::ffi::c_void,
    pitch: usize,
    height: usize,
    pos: (usize, usize, usize),
) -> Result<LinearEnd, CUresult> {
    let ptr = match t {
        CUmemorytype::CU_MEMORYTYPE_HOST => host.cast_mut(),
        CUmemorytype::CU_MEMORYTYPE_DEVICE | CUmemorytype::CU_MEMORYTYPE_UNIFIED => {
            devptr_to_hip(device)
        }
        CUmemorytype::CU_MEMORYTYPE_ARRAY => return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED),
        _ => return Err(CUresult::CUDA_ERROR_INVALID_VALUE),
    };
    if !reserved.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    let rows = c.Height > 1 || c.Depth > 1;
    if rows && pitch < c.WidthInBytes {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    if c.Depth > 1 && height < c.Height {
        return Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    }
    Ok(LinearEnd {
        ptr,
        pitch: if pitch == 0 { c.WidthInBytes } else { pitch },
        height: if height == 0 { c.Height } else { height },
        x: pos.0,
        y: pos.1,
        z: pos.2,
    })
}

/// A Driver 3D copy between linear memory (host, device or unified) as the Runtime's
/// `cudaMemcpy3DParms` (pitched pointers, byte positions, `cudaMemcpyDefault`): how the HIP
/// releases without the Driver-style graph copy calls (`hipDrvGraphAddMemcpyNode`, HIP 6.2+)
/// take it through `hipGraphAddMemcpyNode`. The address both describe is the same:
/// base + z × height × pitch + y × pitch + x.
///
/// # Errors
/// See `linear_end`: arrays are `CUDA_ERROR_NOT_SUPPORTED`; unknown memory types, reserved
/// pointers and pitches or heights too small for the copy are `CUDA_ERROR_INVALID_VALUE`.
pub(crate) fn memcpy3d_to_parms(c: &CUDA_MEMCPY3D) -> Result<cudaMemcpy3DParms, CUresult> {
    let s = linear_end(
        c,
        c.srcMemoryType,
        c.srcHost,
        c.srcDevice,
        c.reserved0,
        c.srcPitch,
        c.srcHeight,
        (c.srcXInBytes, c.srcY, c.srcZ),
    )?;
    let d = linear_end(
        c,
        c.dstMemoryType,
        c.dstHost,
        c.dstDevice,
        c.reserved1,
        c.dstPitch,
        c.dstHeight,
        (c.dstXInBytes, c.dstY, c.dstZ),
    )?;
    let ptr = |e: &LinearEnd| anycuda_api::runtime::cudaPitchedPtr {
        ptr: e.ptr,
        pitch: e.pitch,
        xsize: c.WidthInBytes,
        ysize: e.height,
    };
    let pos = |e: &LinearEnd| anycuda_api::runtime::cudaPos {
        x: e.x,
        y: e.y,
        z: e.z,
    };
    Ok(cudaMemcpy3DParms {
        srcArray: core::ptr::null_mut(),
        srcPos: pos(&s),
        srcPtr: ptr(&s),
        dstArray: core::ptr::null_mut(),
        dstPos: pos(&d),
        dstPtr: ptr(&d),
        extent: anycuda_api::runtime::cudaExtent {
            width: c.WidthInBytes,
            height: c.Height,
            depth: c.Depth,
        },
        kind: anycuda_api::runtime::cudaMemcpyKind::cudaMemcpyDefault,
    })
}

/// The inverse of [`memcpy3d_to_parms`] for a copy node's parameters read back from HIP
/// (`hipMemcpy3DParms`, whose fields are the Runtime's on every platform): both ends as
/// unified memory (`CU_MEMORYTYPE_UNIFIED`, the address in `*Device` and, for a reader that
/// looks there, `*Host`), since a Runtime-style node keeps no memory type.
///
/// # Errors
/// `CUDA_ERROR_NOT_SUPPORTED` for a node with an array end (its positions are in elements).
pub(crate) fn parms_to_memcpy3d(p: &hipMemcpy3DParms) -> Result<CUDA_MEMCPY3D, CUresult> {
    if !p.srcArray.is_null() || !p.dstArray.is_null() {
        return Err(CUresult::CUDA_ERROR_NOT_SUPPORTED);
    }
    Ok(CUDA_MEMCPY3D {
        srcXInBytes: p.srcPos.x,
        srcY: p.srcPos.y,
        srcZ: p.srcPos.z,
        srcLOD: 0,
        srcMemoryType: CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        srcHost: p.srcPtr.ptr.cast_const(),
        srcDevice: devptr_to_cuda(p.srcPtr.ptr),
        srcArray: core::ptr::null_mut(),
        reserved0: core::ptr::null_mut(),
        srcPitch: p.srcPtr.pitch,
        srcHeight: p.srcPtr.ysize,
        dstXInBytes: p.dstPos.x,
        dstY: p.dstPos.y,
        dstZ: p.dstPos.z,
        dstLOD: 0,
        dstMemoryType: CUmemorytype::CU_MEMORYTYPE_UNIFIED,
        dstHost: p.dstPtr.ptr,
        dstDevice: devptr_to_cuda(p.dstPtr.ptr),
        dstArray: core::ptr::null_mut(),
        reserved1: core::ptr::null_mut(),
        dstPitch: p.dstPtr.pitch,
        dstHeight: p.dstPtr.ysize,
        WidthInBytes: p.extent.width,
        Height: p.extent.height,
        Depth: p.extent.depth,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use anycuda_api::driver::CUdeviceptr;

    /// A 2-D copy from device memory into a host buffer, with offsets on both ends.
    fn copy_2d() -> CUDA_MEMCPY3D {
        // SAFETY: plain data; all-zero is valid (NULL pointers, zero sizes).
        let mut c: CUDA_MEMCPY3D = unsafe { core::mem::zeroed() };
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        c.srcDevice = 0x7000_0000 as CUdeviceptr;
        c.srcPitch = 512;
        c.srcXInBytes = 16;
        c.srcY = 2;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        c.dstHost = 0x1000_0000 as *mut core::ffi::c_void;
        c.dstPitch = 256;
        c.dstY = 1;
        c.WidthInBytes = 200;
        c.Height = 3;
        c.Depth = 1;
        c
    }

    #[test]
    fn a_linear_driver_copy_says_the_same_addresses_in_runtime_words() {
        let p = memcpy3d_to_parms(&copy_2d()).unwrap();
        assert_eq!(p.srcPtr.ptr as usize, 0x7000_0000);
        assert_eq!((p.srcPtr.pitch, p.srcPtr.ysize), (512, 3));
        assert_eq!((p.srcPos.x, p.srcPos.y, p.srcPos.z), (16, 2, 0));
        assert_eq!(p.dstPtr.ptr as usize, 0x1000_0000);
        assert_eq!((p.dstPtr.pitch, p.dstPos.y), (256, 1));
        assert_eq!(
            (p.extent.width, p.extent.height, p.extent.depth),
            (200, 3, 1)
        );
        assert!(p.srcArray.is_null() && p.dstArray.is_null());
        assert_eq!(
            p.kind,
            anycuda_api::runtime::cudaMemcpyKind::cudaMemcpyDefault
        );
    }

    #[test]
    fn a_one_row_copy_may_leave_its_pitches_zero() {
        let mut c = copy_2d();
        c.Height = 1;
        c.srcY = 0;
        c.dstY = 0;
        c.srcPitch = 0;
        c.dstPitch = 0;
        let p = memcpy3d_to_parms(&c).unwrap();
        assert_eq!((p.srcPtr.pitch, p.dstPtr.pitch), (200, 200));
        assert_eq!((p.srcPtr.ysize, p.dstPtr.ysize), (1, 1));
    }

    #[test]
    fn bad_descriptors_are_refused_as_cuda_refuses_them() {
        let invalid = CUresult::CUDA_ERROR_INVALID_VALUE;
        let mut c = copy_2d();
        c.srcPitch = 100; // below the width, with three rows
        assert_eq!(memcpy3d_to_parms(&c).unwrap_err(), invalid);
        let mut c = copy_2d();
        c.dstMemoryType = CUmemorytype(0x77);
        assert_eq!(memcpy3d_to_parms(&c).unwrap_err(), invalid);
        let mut c = copy_2d();
        c.reserved0 = 8 as *mut core::ffi::c_void;
        assert_eq!(memcpy3d_to_parms(&c).unwrap_err(), invalid);
        let mut c = copy_2d();
        c.Depth = 2; // a second slice needs the source's height
        assert_eq!(memcpy3d_to_parms(&c).unwrap_err(), invalid);
        let mut c = copy_2d();
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_ARRAY;
        assert_eq!(
            memcpy3d_to_parms(&c).unwrap_err(),
            CUresult::CUDA_ERROR_NOT_SUPPORTED
        );
    }

    #[test]
    fn a_runtime_style_node_reads_back_as_unified_memory_at_the_same_addresses() {
        let p = memcpy_to_hip_fields(&memcpy3d_to_parms(&copy_2d()).unwrap());
        let c = parms_to_memcpy3d(&p).unwrap();
        assert_eq!(c.srcMemoryType, CUmemorytype::CU_MEMORYTYPE_UNIFIED);
        assert_eq!(c.dstMemoryType, CUmemorytype::CU_MEMORYTYPE_UNIFIED);
        assert_eq!(c.srcDevice, 0x7000_0000);
        assert_eq!(c.dstDevice, 0x1000_0000);
        assert_eq!(c.dstHost as usize, 0x1000_0000);
        assert_eq!(
            (c.srcXInBytes, c.srcY, c.srcPitch, c.srcHeight),
            (16, 2, 512, 3)
        );
        assert_eq!((c.dstY, c.dstPitch), (1, 256));
        assert_eq!((c.WidthInBytes, c.Height, c.Depth), (200, 3, 1));
        let mut arr = p;
        arr.srcArray = 8 as _;
        assert_eq!(
            parms_to_memcpy3d(&arr).unwrap_err(),
            CUresult::CUDA_ERROR_NOT_SUPPORTED
        );
    }

    /// The Runtime's struct in HIP's (same fields on every platform; the kind is not read back).
    fn memcpy_to_hip_fields(p: &cudaMemcpy3DParms) -> hipMemcpy3DParms {
        assert_eq!(
            core::mem::size_of::<hipMemcpy3DParms>(),
            core::mem::size_of::<cudaMemcpy3DParms>()
        );
        // SAFETY: the two structs have the same fields in the same order (the HIP headers'
        // `hipMemcpy3DParms` mirrors CUDA's); the size is checked above.
        unsafe { core::mem::transmute_copy(p) }
    }
}

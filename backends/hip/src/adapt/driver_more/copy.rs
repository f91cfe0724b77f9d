//! Plain and peer copies, prefetch and advice (CUDA 13 `CUmemLocation`), default pools.

use super::{enum_to_hip, tri, INVALID_VALUE, NOT_SUPPORTED};
use crate::adapt::launch::stream_to_hip;
use crate::adapt::{cuCtxGetDevice_v2, cuMemcpy3D, cuMemcpy3DAsync, drv_fn};
use crate::hip_types::hipMemPool_t;
use crate::HipBackend;
use anycuda_api::driver::{
    CUcontext, CUdevice, CUdeviceptr, CUmemAllocationType, CUmemLocation, CUmemLocationType,
    CUmem_advise, CUmemoryPool, CUresult, CUstream, CUDA_MEMCPY3D, CUDA_MEMCPY3D_PEER,
};
use core::ffi::{c_int, c_uint, c_void};

/// `hipMemcpyDefault` (4 in every HIP version, and `cudaMemcpyDefault` on HIP's NVIDIA
/// platform): the direction is inferred from the pointers, as CUDA's unified addressing does.
const HIP_MEMCPY_DEFAULT: u32 = 4;

/// `hipCpuDeviceId`: the host as a device ordinal (`cudaCpuDeviceId` on NVIDIA).
pub(crate) const HIP_CPU_DEVICE_ID: c_int = -1;

fn ptr(p: CUdeviceptr) -> *mut c_void {
    p as usize as *mut c_void
}

/// `cuMemcpy` → `hipMemcpy` with kind Default (CUDA's unified-addressing copy has no kind).
pub(crate) unsafe fn cuMemcpy(
    b: &HipBackend,
    dst: CUdeviceptr,
    src: CUdeviceptr,
    ByteCount: usize,
) -> CUresult {
    let f = drv_fn!(b, hipMemcpy);
    // SAFETY: caller's pointers; HIP validates them.
    b.cu(unsafe { f(ptr(dst), ptr(src), ByteCount, HIP_MEMCPY_DEFAULT as _) })
}

/// `cuMemcpyAsync` → `hipMemcpyAsync` with kind Default; legacy stream handle translated.
pub(crate) unsafe fn cuMemcpyAsync(
    b: &HipBackend,
    dst: CUdeviceptr,
    src: CUdeviceptr,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let f = drv_fn!(b, hipMemcpyAsync);
    let s = stream_to_hip(b, hStream);
    // SAFETY: caller's pointers and stream; HIP validates them.
    b.cu(unsafe { f(ptr(dst), ptr(src), ByteCount, HIP_MEMCPY_DEFAULT as _, s) })
}

/// The device of a peer-copy context (NULL is not a context here, as on CUDA).
unsafe fn ctx_device(b: &HipBackend, ctx: CUcontext) -> Result<CUdevice, CUresult> {
    if ctx.is_null() {
        return Err(CUresult::CUDA_ERROR_INVALID_CONTEXT);
    }
    let mut dev: CUdevice = 0;
    // SAFETY: valid out-pointer; the context adaptation validates the handle.
    let e = unsafe { cuCtxGetDevice_v2(b, &mut dev, ctx) };
    if e != CUresult::CUDA_SUCCESS {
        return Err(e);
    }
    Ok(dev)
}

/// `cuMemcpyPeer` → `hipMemcpyPeer`: CUDA names contexts, HIP device ordinals, so each
/// context is mapped to its device (through anycuda's context bookkeeping on AMD).
pub(crate) unsafe fn cuMemcpyPeer(
    b: &HipBackend,
    dstDevice: CUdeviceptr,
    dstContext: CUcontext,
    srcDevice: CUdeviceptr,
    srcContext: CUcontext,
    ByteCount: usize,
) -> CUresult {
    let f = drv_fn!(b, hipMemcpyPeer);
    // SAFETY: forwarded contract.
    let dd = tri!(unsafe { ctx_device(b, dstContext) });
    // SAFETY: forwarded contract.
    let sd = tri!(unsafe { ctx_device(b, srcContext) });
    // SAFETY: caller's pointers; HIP validates them.
    b.cu(unsafe { f(ptr(dstDevice), dd, ptr(srcDevice), sd, ByteCount) })
}

/// `cuMemcpyPeerAsync` → `hipMemcpyPeerAsync`: contexts mapped to devices, legacy stream
/// handle translated.
pub(crate) unsafe fn cuMemcpyPeerAsync(
    b: &HipBackend,
    dstDevice: CUdeviceptr,
    dstContext: CUcontext,
    srcDevice: CUdeviceptr,
    srcContext: CUcontext,
    ByteCount: usize,
    hStream: CUstream,
) -> CUresult {
    let f = drv_fn!(b, hipMemcpyPeerAsync);
    // SAFETY: forwarded contract.
    let dd = tri!(unsafe { ctx_device(b, dstContext) });
    // SAFETY: forwarded contract.
    let sd = tri!(unsafe { ctx_device(b, srcContext) });
    let s = stream_to_hip(b, hStream);
    // SAFETY: caller's pointers; HIP validates them.
    b.cu(unsafe { f(ptr(dstDevice), dd, ptr(srcDevice), sd, ByteCount, s) })
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

unsafe fn peer3d(
    b: &HipBackend,
    pCopy: *const CUDA_MEMCPY3D_PEER,
    s: Option<CUstream>,
) -> CUresult {
    if pCopy.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL descriptor from the caller.
    let p = unsafe { &*pCopy };
    // The contexts must be valid, as CUDA checks them (NULL allowed for host memory).
    for ctx in [p.srcContext, p.dstContext] {
        if !ctx.is_null() {
            // SAFETY: forwarded contract.
            tri!(unsafe { ctx_device(b, ctx) });
        }
    }
    let c = peer_to_3d(p);
    // SAFETY: `c` lives for the call.
    unsafe {
        match s {
            None => cuMemcpy3D(b, &c),
            Some(s) => cuMemcpy3DAsync(b, &c, s),
        }
    }
}

/// `cuMemcpy3DPeer`: rebuilt as the `CUDA_MEMCPY3D` it describes (contexts validated, then
/// unified addressing identifies the memory) and copied like `cuMemcpy3D`.
pub(crate) unsafe fn cuMemcpy3DPeer(b: &HipBackend, pCopy: *const CUDA_MEMCPY3D_PEER) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { peer3d(b, pCopy, None) }
}

/// `cuMemcpy3DPeerAsync`: as `cuMemcpy3DPeer`, on a stream.
pub(crate) unsafe fn cuMemcpy3DPeerAsync(
    b: &HipBackend,
    pCopy: *const CUDA_MEMCPY3D_PEER,
    hStream: CUstream,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { peer3d(b, pCopy, Some(hStream)) }
}

/// A CUDA 13 `CUmemLocation` as HIP's device ordinal: a device is its ordinal, the host is
/// `hipCpuDeviceId`; NUMA locations have no HIP counterpart (not supported); anything else is
/// invalid.
pub(crate) fn location_to_device(l: &CUmemLocation) -> Result<c_int, CUresult> {
    match l.type_ {
        CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE => {
            if l.id < 0 {
                Err(CUresult::CUDA_ERROR_INVALID_DEVICE)
            } else {
                Ok(l.id)
            }
        }
        CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST => Ok(HIP_CPU_DEVICE_ID),
        CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST_NUMA
        | CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT => Err(NOT_SUPPORTED),
        _ => Err(INVALID_VALUE),
    }
}

/// `cuMemPrefetchAsync` (CUDA 13, `CUmemLocation`) → `hipMemPrefetchAsync`: the location
/// becomes a device ordinal (`hipCpuDeviceId` for the host); `flags` must be 0 as on CUDA.
pub(crate) unsafe fn cuMemPrefetchAsync(
    b: &HipBackend,
    devPtr: CUdeviceptr,
    count: usize,
    location: CUmemLocation,
    flags: c_uint,
    hStream: CUstream,
) -> CUresult {
    if flags != 0 {
        return INVALID_VALUE;
    }
    let dev = tri!(location_to_device(&location));
    let f = drv_fn!(b, hipMemPrefetchAsync);
    let s = stream_to_hip(b, hStream);
    // SAFETY: caller's range and stream; HIP validates them.
    b.cu(unsafe { f(ptr(devPtr), count, dev, s) })
}

/// `cuMemAdvise` (CUDA 13, `CUmemLocation`) → `hipMemAdvise`: the advice renumbered through
/// the tables; the location (used by the preferred-location and accessed-by advice) becomes a
/// device ordinal; for the other advice CUDA ignores it and `hipCpuDeviceId` is passed.
pub(crate) unsafe fn cuMemAdvise(
    b: &HipBackend,
    devPtr: CUdeviceptr,
    count: usize,
    advice: CUmem_advise,
    location: CUmemLocation,
) -> CUresult {
    let uses_location = matches!(
        advice,
        CUmem_advise::CU_MEM_ADVISE_SET_PREFERRED_LOCATION
            | CUmem_advise::CU_MEM_ADVISE_SET_ACCESSED_BY
            | CUmem_advise::CU_MEM_ADVISE_UNSET_ACCESSED_BY
    );
    let a = tri!(enum_to_hip(b.conv().CUmem_advise, advice.0, INVALID_VALUE));
    let dev = if uses_location {
        tri!(location_to_device(&location))
    } else {
        HIP_CPU_DEVICE_ID
    };
    let f = drv_fn!(b, hipMemAdvise);
    // SAFETY: caller's range; HIP validates it.
    b.cu(unsafe { f(ptr(devPtr), count, a as _, dev) })
}

/// `cuMemGetDefaultMemPool` (CUDA 13) → `hipDeviceGetDefaultMemPool`: a device location and
/// pinned allocations are what HIP has; host locations are not supported.
pub(crate) unsafe fn cuMemGetDefaultMemPool(
    b: &HipBackend,
    pool_out: *mut CUmemoryPool,
    location: *mut CUmemLocation,
    type_: CUmemAllocationType,
) -> CUresult {
    if pool_out.is_null() || location.is_null() {
        return INVALID_VALUE;
    }
    if type_ != CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED {
        return if type_ == CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_MANAGED {
            NOT_SUPPORTED
        } else {
            INVALID_VALUE
        };
    }
    // SAFETY: non-NULL location from the caller.
    let l = unsafe { &*location };
    if l.type_ != CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE {
        return if l.type_.0 == 0 || l.type_.0 > 4 {
            INVALID_VALUE
        } else {
            NOT_SUPPORTED
        };
    }
    let f = drv_fn!(b, hipDeviceGetDefaultMemPool);
    let mut p: hipMemPool_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; HIP validates the ordinal.
    let e = unsafe { f(&mut p, l.id) };
    if e == crate::adapt::HIP_SUCCESS {
        // SAFETY: checked non-NULL.
        unsafe { *pool_out = p.cast() };
    }
    b.cu(e)
}

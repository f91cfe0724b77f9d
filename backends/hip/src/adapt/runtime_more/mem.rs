//! Managed-memory advice and prefetch (CUDA 13 `cudaMemLocation`), memory pools, array
//! memory requirements.

use super::enum_to_hip;
use crate::adapt::launch::stream_to_hip;
use crate::adapt::{nvidia, pre_r0600, rt, rt_fn};
use crate::conv::ConvTables;
use crate::hip_types::{
    hipArrayMemoryRequirements, hipMemAccessDesc, hipMemLocation, hipMemPoolProps,
    hipMemPoolProps__hip5_2,
};
use crate::HipBackend;
use anycuda_api::runtime::{
    cudaArrayMemoryRequirements, cudaError_t, cudaMemAccessDesc, cudaMemAllocationType,
    cudaMemLocation, cudaMemLocationType, cudaMemPoolProps, cudaMemPool_t, cudaMemoryAdvise,
    cudaMipmappedArray_t, cudaStream_t,
};
use core::ffi::{c_int, c_uint, c_void};

/// HIP's (and CUDA's legacy) device ordinal for host memory (`hipCpuDeviceId`).
pub(crate) const HIP_CPU_DEVICE_ID: c_int = -1;

/// A CUDA 13 memory location as the device ordinal HIP's advice/prefetch take: a device is
/// its ordinal, the host is `hipCpuDeviceId`; host NUMA nodes have no HIP counterpart
/// (`cudaErrorNotSupported`); anything else is `cudaErrorInvalidValue`, as on CUDA.
pub(crate) fn location_to_device(loc: &cudaMemLocation) -> Result<c_int, cudaError_t> {
    match loc.type_ {
        cudaMemLocationType::cudaMemLocationTypeDevice => {
            if loc.id < 0 {
                Err(cudaError_t::cudaErrorInvalidDevice)
            } else {
                Ok(loc.id)
            }
        }
        cudaMemLocationType::cudaMemLocationTypeHost => Ok(HIP_CPU_DEVICE_ID),
        cudaMemLocationType::cudaMemLocationTypeHostNuma
        | cudaMemLocationType::cudaMemLocationTypeHostNumaCurrent => {
            Err(cudaError_t::cudaErrorNotSupported)
        }
        _ => Err(cudaError_t::cudaErrorInvalidValue),
    }
}

/// A CUDA memory location in HIP's struct (the location type through the table: HIP has
/// device locations only before 6.x).
pub(crate) fn location_to_hip(
    conv: &ConvTables,
    loc: &cudaMemLocation,
) -> Result<hipMemLocation, cudaError_t> {
    if anycuda_api::CudaEnum::name(loc.type_).is_none() {
        return Err(cudaError_t::cudaErrorInvalidValue);
    }
    let t = enum_to_hip(conv.cudaMemLocationType, loc.type_.0)
        .ok_or(cudaError_t::cudaErrorNotSupported)?;
    Ok(hipMemLocation {
        type_: t,
        id: loc.id,
    })
}

/// `cudaMemPoolProps` (CUDA 13) → HIP's (6.x+ layout; HIP 5.2's is the same with `maxSize`
/// still reserved, so a non-zero `maxSize` is not supported there). `usage` (hardware
/// decompression pools) has no HIP counterpart.
pub(crate) fn pool_props_to_hip(
    conv: &ConvTables,
    p: &cudaMemPoolProps,
    hip52: bool,
) -> Result<hipMemPoolProps, cudaError_t> {
    if p.usage != 0 || (hip52 && p.maxSize != 0) {
        return Err(cudaError_t::cudaErrorNotSupported);
    }
    if anycuda_api::CudaEnum::name(p.allocType).is_none() {
        return Err(cudaError_t::cudaErrorInvalidValue);
    }
    let alloc = enum_to_hip(conv.cudaMemAllocationType, p.allocType.0)
        .ok_or(cudaError_t::cudaErrorNotSupported)?;
    // Handle types are a bit set of single-bit enumerators.
    let mut handles = 0u32;
    let mut rest = p.handleTypes.0;
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        rest &= !bit;
        handles |= enum_to_hip(conv.cudaMemAllocationHandleType, bit)
            .ok_or(cudaError_t::cudaErrorNotSupported)?;
    }
    Ok(hipMemPoolProps {
        allocType: alloc,
        handleTypes: handles,
        location: location_to_hip(conv, &p.location)?,
        win32SecurityAttributes: p.win32SecurityAttributes,
        maxSize: p.maxSize,
        reserved: [0; 56],
    })
}

/// A CUDA access descriptor in HIP's words (location type and flags through the tables).
pub(crate) fn access_desc_to_hip(
    conv: &ConvTables,
    d: &cudaMemAccessDesc,
) -> Result<hipMemAccessDesc, cudaError_t> {
    Ok(hipMemAccessDesc {
        location: location_to_hip(conv, &d.location)?,
        flags: enum_to_hip(conv.cudaMemAccessFlags, d.flags.0)
            .ok_or(cudaError_t::cudaErrorInvalidValue)?,
    })
}

/// `cudaMemAdvise` (CUDA 13: a `cudaMemLocation`) → `hipMemAdvise` with the location as a
/// device ordinal (`hipCpuDeviceId` for the host) and the advice through the table.
pub(crate) unsafe fn cudaMemAdvise(
    b: &HipBackend,
    devPtr: *const c_void,
    count: usize,
    advice: cudaMemoryAdvise,
    location: cudaMemLocation,
) -> cudaError_t {
    let f = rt_fn!(b, hipMemAdvise);
    if anycuda_api::CudaEnum::name(advice).is_none() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let Some(adv) = enum_to_hip(b.conv().cudaMemoryAdvise, advice.0) else {
        return cudaError_t::cudaErrorNotSupported;
    };
    let dev = match location_to_device(&location) {
        Ok(d) => d,
        Err(e) => return e,
    };
    // SAFETY: pointer and range are the caller's (CUDA's contract).
    rt(b, unsafe { f(devPtr, count, adv, dev) })
}

/// `cudaMemPrefetchAsync` (CUDA 13: location and flags) → `hipMemPrefetchAsync` with the
/// location as a device ordinal; `flags` is reserved (non-zero: `cudaErrorInvalidValue`).
pub(crate) unsafe fn cudaMemPrefetchAsync(
    b: &HipBackend,
    devPtr: *const c_void,
    count: usize,
    location: cudaMemLocation,
    flags: c_uint,
    stream: cudaStream_t,
) -> cudaError_t {
    let f = rt_fn!(b, hipMemPrefetchAsync);
    if flags != 0 {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let dev = match location_to_device(&location) {
        Ok(d) => d,
        Err(e) => return e,
    };
    // SAFETY: as CUDA's contract; the stream handle translated.
    rt(b, unsafe {
        f(devPtr, count, dev, stream_to_hip(b, stream.cast()))
    })
}

/// `cudaMemPoolCreate` → `hipMemPoolCreate`: `cudaMemPoolProps` rebuilt (enums through the
/// tables; HIP 5.2's layout where `maxSize` is reserved). HIP's NVIDIA platform: the struct is
/// CUDA's and passes unchanged.
pub(crate) unsafe fn cudaMemPoolCreate(
    b: &HipBackend,
    memPool: *mut cudaMemPool_t,
    poolProps: *const cudaMemPoolProps,
) -> cudaError_t {
    if memPool.is_null() || poolProps.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let out = memPool.cast();
    if nvidia(b) {
        let f = rt_fn!(b, hipMemPoolCreate__hip5_2);
        // SAFETY: `hipMemPoolProps` is `cudaMemPoolProps` on that platform.
        return rt(b, unsafe { f(out, poolProps.cast()) });
    }
    let hip52 = pre_r0600(b);
    // SAFETY: non-NULL descriptor from the caller.
    let h = match pool_props_to_hip(b.conv(), unsafe { &*poolProps }, hip52) {
        Ok(h) => h,
        Err(e) => return e,
    };
    if hip52 {
        let f = rt_fn!(b, hipMemPoolCreate__hip5_2);
        // SAFETY: both layouts are 88 bytes with the same leading fields; 5.2's reserved bytes
        // are `maxSize` (checked zero) and the zeroed reserved tail.
        let h52: hipMemPoolProps__hip5_2 = unsafe { core::mem::transmute(h) };
        // SAFETY: `h52` lives for the call.
        rt(b, unsafe { f(out, &h52) })
    } else {
        let f = rt_fn!(b, hipMemPoolCreate);
        // SAFETY: `h` lives for the call.
        rt(b, unsafe { f(out, &h) })
    }
}

/// `cudaMemGetDefaultMemPool` (CUDA 13, no HIP counterpart under that name) →
/// `hipDeviceGetDefaultMemPool` for a device location and pinned allocations; host locations
/// and managed pools have no HIP counterpart (`cudaErrorNotSupported`).
pub(crate) unsafe fn cudaMemGetDefaultMemPool(
    b: &HipBackend,
    memPool: *mut cudaMemPool_t,
    location: *mut cudaMemLocation,
    type_: cudaMemAllocationType,
) -> cudaError_t {
    let f = rt_fn!(b, hipDeviceGetDefaultMemPool);
    if memPool.is_null() || location.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    match type_ {
        cudaMemAllocationType::cudaMemAllocationTypePinned => {}
        cudaMemAllocationType::cudaMemAllocationTypeManaged => {
            return cudaError_t::cudaErrorNotSupported
        }
        _ => return cudaError_t::cudaErrorInvalidValue,
    }
    // SAFETY: non-NULL from the caller.
    let loc = unsafe { *location };
    match loc.type_ {
        cudaMemLocationType::cudaMemLocationTypeDevice => {}
        cudaMemLocationType::cudaMemLocationTypeHost
        | cudaMemLocationType::cudaMemLocationTypeHostNuma
        | cudaMemLocationType::cudaMemLocationTypeHostNumaCurrent => {
            return cudaError_t::cudaErrorNotSupported
        }
        _ => return cudaError_t::cudaErrorInvalidValue,
    }
    // SAFETY: valid out-pointer.
    rt(b, unsafe { f(memPool.cast(), loc.id) })
}

/// `cudaMipmappedArrayGetMemoryRequirements` → `hipMipmappedArrayGetMemoryRequirements`:
/// HIP's struct orders `alignment` before `size` and has no reserved words (zeroed here).
pub(crate) unsafe fn cudaMipmappedArrayGetMemoryRequirements(
    b: &HipBackend,
    memoryRequirements: *mut cudaArrayMemoryRequirements,
    mipmap: cudaMipmappedArray_t,
    device: c_int,
) -> cudaError_t {
    let f = rt_fn!(b, hipMipmappedArrayGetMemoryRequirements);
    if memoryRequirements.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let mut h = hipArrayMemoryRequirements {
        alignment: 0,
        size: 0,
    };
    // SAFETY: `h` is a valid out-struct; the handle is the caller's.
    let e = rt(b, unsafe { f(&mut h, mipmap.cast(), device) });
    if e == cudaError_t::cudaSuccess {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe {
            memoryRequirements.write(cudaArrayMemoryRequirements {
                size: h.size,
                alignment: h.alignment,
                reserved: [0; 4],
            })
        };
    }
    e
}

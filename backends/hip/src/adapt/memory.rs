//! Virtual memory and pools: `CUmemAllocationProp` / `CUmemPoolProps` rebuilt per HIP version
//! (HIP 5.2's allocation properties have another field order and no `allocFlags` struct; HIP
//! 5.2's pool properties have no `maxSize`), enum values renumbered through the tables.

use super::memcpy::ptr;
use super::support::{
    hip_fn, nvidia, pre_r0600, table, tri, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED,
};
use crate::conv::{enum_to_cuda, enum_to_hip, stream_to_hip, ConvTables};
use crate::conv::{location_to_device, HIP_CPU_DEVICE_ID};
use crate::hip_types::{
    hipArrayMemoryRequirements, hipMemAccessDesc, hipMemAllocationProp,
    hipMemAllocationProp__bindgen_ty_1, hipMemAllocationProp__bindgen_ty_1__hip6_2,
    hipMemAllocationProp__bindgen_ty_2, hipMemAllocationProp__hip5_2, hipMemAllocationProp__hip6_2,
    hipMemGenericAllocationHandle_t, hipMemLocation, hipMemPoolProps, hipMemPoolProps__hip5_2,
    hipMemPool_t,
};
use crate::HipBackend;
use anycuda_api::driver::{
    CUdeviceptr, CUmemAllocationGranularity_flags, CUmemAllocationHandleType, CUmemAllocationProp,
    CUmemAllocationType, CUmemGenericAllocationHandle, CUmemLocation, CUmemLocationType,
    CUmemPoolProps, CUmem_advise, CUmemoryPool, CUresult, CUstream,
};
use anycuda_api::runtime::{
    cudaArrayMemoryRequirements, cudaError_t, cudaMemAccessDesc, cudaMemAllocationType,
    cudaMemLocation, cudaMemLocationType, cudaMemPoolProps, cudaMemPool_t, cudaMemoryAdvise,
    cudaMipmappedArray_t, cudaStream_t,
};
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};

/// CUDA's location in HIP's words.
pub(crate) fn location_to_hip(
    b: &HipBackend,
    l: &CUmemLocation,
) -> Result<hipMemLocation, CUresult> {
    Ok(hipMemLocation {
        type_: enum_to_hip(b.conv().CUmemLocationType, l.type_.0).ok_or(NOT_SUPPORTED)?,
        id: l.id,
    })
}

/// Which ABI of the versioned allocation-property calls the loaded HIP has.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Abi {
    /// HIP 5.2 (and HIP's NVIDIA platform, built from its headers).
    V52,
    /// HIP 6.2 to 6.4.
    V62,
    /// HIP 7.0 and later.
    V70,
}

/// HIP 7.0.51831 and 6.2.41134 in `hipRuntimeGetVersion`'s encoding.
const HIP_7_0: i32 = 70_051_831;
const HIP_6_2: i32 = 60_241_134;

/// The ABI for the allocation-property calls; `None` on HIP's NVIDIA platform, whose HIP 5.2.3
/// headers do not have them (a library that exported them anyway would take CUDA's struct, not
/// AMD's 5.2 layout).
fn abi_checked(b: &HipBackend) -> Result<Abi, CUresult> {
    if nvidia(b) {
        Err(NOT_SUPPORTED)
    } else {
        Ok(abi(b))
    }
}

fn abi(b: &HipBackend) -> Abi {
    let v = b.hip_abi_version();
    if v >= HIP_7_0 {
        Abi::V70
    } else if v >= HIP_6_2 {
        Abi::V62
    } else {
        Abi::V52
    }
}

fn location_to_cuda(b: &HipBackend, l: &hipMemLocation) -> CUmemLocation {
    CUmemLocation {
        type_: CUmemLocationType(enum_to_cuda(b.conv().CUmemLocationType, l.type_)),
        id: l.id,
    }
}

/// A CUDA handle-type bit set in HIP's bits (each bit through the table; a bit HIP lacks, such
/// as FABRIC, is not supported).
pub(crate) fn handle_types_to_hip(
    b: &HipBackend,
    t: CUmemAllocationHandleType,
) -> Result<u32, CUresult> {
    let map = b.conv().CUmemAllocationHandleType;
    let mut out = 0;
    for bit in 0..32 {
        let m = 1u32 << bit;
        if t.0 & m != 0 {
            out |= enum_to_hip(map, m).ok_or(NOT_SUPPORTED)?;
        }
    }
    Ok(out)
}

fn handle_types_to_cuda(b: &HipBackend, h: u32) -> CUmemAllocationHandleType {
    let map = b.conv().CUmemAllocationHandleType;
    let mut out = 0;
    for bit in 0..32 {
        let m = 1u32 << bit;
        if h & m != 0 {
            if let Some(c) = map.lookup_cuda(i64::from(m)) {
                out |= c as u32;
            }
        }
    }
    CUmemAllocationHandleType(out)
}

/// The fields every HIP layout of `hipMemAllocationProp` has, translated.
pub(crate) struct Prop {
    type_: u32,
    handle: u32,
    location: hipMemLocation,
    win32: *mut c_void,
    compression: u8,
    rdma: u8,
    usage: u16,
}

/// Validates and translates CUDA's allocation properties. Compression has no HIP counterpart
/// (not supported); the allocation type, location and handle types are renumbered.
pub(crate) fn prop_to_hip(b: &HipBackend, p: &CUmemAllocationProp) -> Result<Prop, CUresult> {
    if p.allocFlags.compressionType != 0 {
        return Err(NOT_SUPPORTED);
    }
    Ok(Prop {
        type_: enum_to_hip(b.conv().CUmemAllocationType, p.type_.0).ok_or(INVALID_VALUE)?,
        handle: handle_types_to_hip(b, p.requestedHandleTypes)?,
        location: location_to_hip(b, &p.location)?,
        win32: p.win32HandleMetaData,
        compression: 0,
        rdma: p.allocFlags.gpuDirectRDMACapable,
        usage: p.allocFlags.usage,
    })
}

fn prop_to_cuda(b: &HipBackend, h: &Prop) -> CUmemAllocationProp {
    // SAFETY: zeroed POD (reserved bytes stay zero).
    let mut c: CUmemAllocationProp = unsafe { core::mem::zeroed() };
    c.type_ = CUmemAllocationType(enum_to_cuda(b.conv().CUmemAllocationType, h.type_));
    c.requestedHandleTypes = handle_types_to_cuda(b, h.handle);
    c.location = location_to_cuda(b, &h.location);
    c.win32HandleMetaData = h.win32;
    c.allocFlags.compressionType = h.compression;
    c.allocFlags.gpuDirectRDMACapable = h.rdma;
    c.allocFlags.usage = h.usage;
    c
}

pub(crate) fn prop52(p: &Prop) -> Result<hipMemAllocationProp__hip5_2, CUresult> {
    if p.rdma != 0 {
        // HIP 5.2 cannot request GPUDirect RDMA capability.
        return Err(NOT_SUPPORTED);
    }
    Ok(hipMemAllocationProp__hip5_2 {
        compressionType: p.compression,
        location: p.location,
        requestedHandleType: p.handle,
        type_: p.type_,
        usage: p.usage,
        win32HandleMetaData: p.win32,
    })
}

pub(crate) fn prop62(p: &Prop) -> hipMemAllocationProp__hip6_2 {
    hipMemAllocationProp__hip6_2 {
        type_: p.type_,
        requestedHandleType: p.handle,
        location: p.location,
        win32HandleMetaData: p.win32,
        allocFlags: hipMemAllocationProp__bindgen_ty_1__hip6_2 {
            compressionType: p.compression,
            gpuDirectRDMACapable: p.rdma,
            usage: p.usage,
        },
    }
}

fn prop70(p: &Prop) -> hipMemAllocationProp {
    hipMemAllocationProp {
        type_: p.type_,
        __bindgen_anon_1: hipMemAllocationProp__bindgen_ty_1 {
            requestedHandleType: p.handle,
        },
        location: p.location,
        win32HandleMetaData: p.win32,
        allocFlags: hipMemAllocationProp__bindgen_ty_2 {
            compressionType: p.compression,
            gpuDirectRDMACapable: p.rdma,
            usage: p.usage,
        },
    }
}

/// `cuMemCreate` → `hipMemCreate`: the properties rebuilt for the loaded HIP's layout (5.2,
/// 6.x, 7.x), values renumbered; compression not supported.
pub(crate) unsafe fn cuMemCreate(
    b: &HipBackend,
    handle: *mut CUmemGenericAllocationHandle,
    size: usize,
    prop: *const CUmemAllocationProp,
    flags: c_ulonglong,
) -> CUresult {
    if handle.is_null() || prop.is_null() || flags != 0 {
        return INVALID_VALUE;
    }
    let t = tri!(table::<CUresult>(b));
    // SAFETY: non-NULL.
    let p = tri!(prop_to_hip(b, unsafe { &*prop }));
    let mut h: hipMemGenericAllocationHandle_t = core::ptr::null_mut();
    // SAFETY: each struct lives for its call; valid out-pointer.
    let e = unsafe {
        match (
            tri!(abi_checked(b)),
            t.hipMemCreate,
            t.hipMemCreate__hip6_2,
            t.hipMemCreate__hip5_2,
        ) {
            (Abi::V70, Some(f), _, _) => f(&mut h, size, &prop70(&p), flags),
            (Abi::V62, _, Some(f), _) => f(&mut h, size, &prop62(&p), flags),
            (Abi::V52, _, _, Some(f)) => f(&mut h, size, &tri!(prop52(&p)), flags),
            _ => return NOT_SUPPORTED,
        }
    };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *handle = h as usize as CUmemGenericAllocationHandle };
    }
    b.cu(e)
}

/// `cuMemGetAllocationGranularity` → `hipMemGetAllocationGranularity`: properties rebuilt per
/// layout, the granularity option renumbered.
pub(crate) unsafe fn cuMemGetAllocationGranularity(
    b: &HipBackend,
    granularity: *mut usize,
    prop: *const CUmemAllocationProp,
    option: CUmemAllocationGranularity_flags,
) -> CUresult {
    if granularity.is_null() || prop.is_null() {
        return INVALID_VALUE;
    }
    let o =
        tri!(enum_to_hip(b.conv().CUmemAllocationGranularity_flags, option.0).ok_or(INVALID_VALUE));
    let t = tri!(table::<CUresult>(b));
    // SAFETY: non-NULL.
    let p = tri!(prop_to_hip(b, unsafe { &*prop }));
    // SAFETY: each struct lives for its call; valid out-pointer.
    let e = unsafe {
        match (
            tri!(abi_checked(b)),
            t.hipMemGetAllocationGranularity,
            t.hipMemGetAllocationGranularity__hip6_2,
            t.hipMemGetAllocationGranularity__hip5_2,
        ) {
            (Abi::V70, Some(f), _, _) => f(granularity, &prop70(&p), o as _),
            (Abi::V62, _, Some(f), _) => f(granularity, &prop62(&p), o as _),
            (Abi::V52, _, _, Some(f)) => f(granularity, &tri!(prop52(&p)), o as _),
            _ => return NOT_SUPPORTED,
        }
    };
    b.cu(e)
}

/// `cuMemGetAllocationPropertiesFromHandle` → `hipMemGetAllocationPropertiesFromHandle`:
/// HIP's layout for the loaded version read back into CUDA's struct, values renumbered.
pub(crate) unsafe fn cuMemGetAllocationPropertiesFromHandle(
    b: &HipBackend,
    prop: *mut CUmemAllocationProp,
    handle: CUmemGenericAllocationHandle,
) -> CUresult {
    if prop.is_null() {
        return INVALID_VALUE;
    }
    let t = tri!(table::<CUresult>(b));
    let h = handle as usize as hipMemGenericAllocationHandle_t;
    // SAFETY: zeroed POD out-structs filled by HIP.
    let (e, p) = unsafe {
        let a = tri!(abi_checked(b));
        if let (Abi::V70, Some(f)) = (a, t.hipMemGetAllocationPropertiesFromHandle) {
            let mut o: hipMemAllocationProp = core::mem::zeroed();
            let e = f(&mut o, h);
            (
                e,
                Prop {
                    type_: o.type_,
                    handle: o.__bindgen_anon_1.requestedHandleType,
                    location: o.location,
                    win32: o.win32HandleMetaData,
                    compression: o.allocFlags.compressionType,
                    rdma: o.allocFlags.gpuDirectRDMACapable,
                    usage: o.allocFlags.usage,
                },
            )
        } else if let (Abi::V62, Some(f)) = (a, t.hipMemGetAllocationPropertiesFromHandle__hip6_2) {
            let mut o: hipMemAllocationProp__hip6_2 = core::mem::zeroed();
            let e = f(&mut o, h);
            (
                e,
                Prop {
                    type_: o.type_,
                    handle: o.requestedHandleType,
                    location: o.location,
                    win32: o.win32HandleMetaData,
                    compression: o.allocFlags.compressionType,
                    rdma: o.allocFlags.gpuDirectRDMACapable,
                    usage: o.allocFlags.usage,
                },
            )
        } else if let (Abi::V52, Some(f)) = (a, t.hipMemGetAllocationPropertiesFromHandle__hip5_2) {
            let mut o: hipMemAllocationProp__hip5_2 = core::mem::zeroed();
            let e = f(&mut o, h);
            (
                e,
                Prop {
                    type_: o.type_,
                    handle: o.requestedHandleType,
                    location: o.location,
                    win32: o.win32HandleMetaData,
                    compression: o.compressionType,
                    rdma: 0,
                    usage: o.usage,
                },
            )
        } else {
            return NOT_SUPPORTED;
        }
    };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *prop = prop_to_cuda(b, &p) };
    }
    b.cu(e)
}

/// CUDA's pool properties in HIP 6.2+'s layout. The CUDA 13 `usage` (hardware decompression)
/// has no HIP counterpart (not supported).
pub(crate) fn pool_props_to_hip(
    b: &HipBackend,
    p: &CUmemPoolProps,
) -> Result<hipMemPoolProps, CUresult> {
    if p.usage != 0 {
        return Err(NOT_SUPPORTED);
    }
    Ok(hipMemPoolProps {
        allocType: enum_to_hip(b.conv().CUmemAllocationType, p.allocType.0).ok_or(INVALID_VALUE)?,
        handleTypes: handle_types_to_hip(b, p.handleTypes)?,
        location: location_to_hip(b, &p.location)?,
        win32SecurityAttributes: p.win32SecurityAttributes,
        maxSize: p.maxSize,
        reserved: [0; 56],
    })
}

pub(crate) fn pool_props_to_cuda(b: &HipBackend, h: &hipMemPoolProps) -> CUmemPoolProps {
    // SAFETY: zeroed POD.
    let mut c: CUmemPoolProps = unsafe { core::mem::zeroed() };
    c.allocType = CUmemAllocationType(enum_to_cuda(b.conv().CUmemAllocationType, h.allocType));
    c.handleTypes = handle_types_to_cuda(b, h.handleTypes);
    c.location = location_to_cuda(b, &h.location);
    c.win32SecurityAttributes = h.win32SecurityAttributes;
    c.maxSize = h.maxSize;
    c
}

/// `cuMemPoolCreate` → `hipMemPoolCreate`: properties rebuilt (HIP 5.2 has no `maxSize`: a
/// non-zero one is not supported there), values renumbered. On HIP's NVIDIA platform
/// `hipMemPoolProps` is CUDA's struct and goes through as is.
pub(crate) unsafe fn cuMemPoolCreate(
    b: &HipBackend,
    pool: *mut CUmemoryPool,
    poolProps: *const CUmemPoolProps,
) -> CUresult {
    if pool.is_null() || poolProps.is_null() {
        return INVALID_VALUE;
    }
    let t = tri!(table::<CUresult>(b));
    let mut m: hipMemPool_t = core::ptr::null_mut();
    // SAFETY: non-NULL.
    let c = unsafe { &*poolProps };
    // SAFETY: structs live for their calls; valid out-pointer.
    let e = unsafe {
        if nvidia(b) {
            let Some(f) = t.hipMemPoolCreate__hip5_2 else {
                return NOT_SUPPORTED;
            };
            f(&mut m, poolProps.cast())
        } else {
            let h = tri!(pool_props_to_hip(b, c));
            if let (Abi::V62 | Abi::V70, Some(f)) = (abi(b), t.hipMemPoolCreate) {
                f(&mut m, &h)
            } else if let (Abi::V52, Some(f)) = (abi(b), t.hipMemPoolCreate__hip5_2) {
                if h.maxSize != 0 {
                    return NOT_SUPPORTED;
                }
                let h52 = hipMemPoolProps__hip5_2 {
                    allocType: h.allocType,
                    handleTypes: h.handleTypes,
                    location: h.location,
                    win32SecurityAttributes: h.win32SecurityAttributes,
                    reserved: [0; 64],
                };
                f(&mut m, &h52)
            } else {
                return NOT_SUPPORTED;
            }
        }
    };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *pool = m.cast() };
    }
    b.cu(e)
}

// ------------------------------------------------------------ prefetch, advice, default pool (Driver)

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
    let dev = tri!(location_to_device(location.type_.0, location.id).map_err(CUresult::from));
    let f = hip_fn!(b, hipMemPrefetchAsync);
    let s = stream_to_hip(b.platform(), hStream);
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
    let a = tri!(enum_to_hip(b.conv().CUmem_advise, advice.0).ok_or(INVALID_VALUE));
    let dev = if uses_location {
        tri!(location_to_device(location.type_.0, location.id).map_err(CUresult::from))
    } else {
        HIP_CPU_DEVICE_ID
    };
    let f = hip_fn!(b, hipMemAdvise);
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
    let f = hip_fn!(b, hipDeviceGetDefaultMemPool);
    let mut p: hipMemPool_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; HIP validates the ordinal.
    let e = unsafe { f(&mut p, l.id) };
    if e == super::support::HIP_SUCCESS {
        // SAFETY: checked non-NULL.
        unsafe { *pool_out = p.cast() };
    }
    b.cu(e)
}

// ------------------------------------------------------------ Runtime

/// A CUDA memory location in HIP's struct (the location type through the table: HIP has
/// device locations only before 6.x).
pub(crate) fn rt_location_to_hip(
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
pub(crate) fn rt_pool_props_to_hip(
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
        location: rt_location_to_hip(conv, &p.location)?,
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
        location: rt_location_to_hip(conv, &d.location)?,
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
    let f = hip_fn!(b, hipMemAdvise);
    if anycuda_api::CudaEnum::name(advice).is_none() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let Some(adv) = enum_to_hip(b.conv().cudaMemoryAdvise, advice.0) else {
        return cudaError_t::cudaErrorNotSupported;
    };
    let dev = match location_to_device(location.type_.0, location.id) {
        Ok(d) => d,
        Err(e) => return e.into(),
    };
    // SAFETY: pointer and range are the caller's (CUDA's contract).
    b.rt(unsafe { f(devPtr, count, adv, dev) })
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
    let f = hip_fn!(b, hipMemPrefetchAsync);
    if flags != 0 {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let dev = match location_to_device(location.type_.0, location.id) {
        Ok(d) => d,
        Err(e) => return e.into(),
    };
    // SAFETY: as CUDA's contract; the stream handle translated.
    b.rt(unsafe {
        f(
            devPtr,
            count,
            dev,
            stream_to_hip(b.platform(), stream.cast()),
        )
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
        let f = hip_fn!(b, hipMemPoolCreate__hip5_2);
        // SAFETY: `hipMemPoolProps` is `cudaMemPoolProps` on that platform.
        return b.rt(unsafe { f(out, poolProps.cast()) });
    }
    let hip52 = pre_r0600(b);
    // SAFETY: non-NULL descriptor from the caller.
    let h = match rt_pool_props_to_hip(b.conv(), unsafe { &*poolProps }, hip52) {
        Ok(h) => h,
        Err(e) => return e,
    };
    if hip52 {
        let f = hip_fn!(b, hipMemPoolCreate__hip5_2);
        // SAFETY: both layouts are 88 bytes with the same leading fields; 5.2's reserved bytes
        // are `maxSize` (checked zero) and the zeroed reserved tail.
        let h52: hipMemPoolProps__hip5_2 = unsafe { core::mem::transmute(h) };
        // SAFETY: `h52` lives for the call.
        b.rt(unsafe { f(out, &h52) })
    } else {
        let f = hip_fn!(b, hipMemPoolCreate);
        // SAFETY: `h` lives for the call.
        b.rt(unsafe { f(out, &h) })
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
    let f = hip_fn!(b, hipDeviceGetDefaultMemPool);
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
    b.rt(unsafe { f(memPool.cast(), loc.id) })
}

/// `cudaMipmappedArrayGetMemoryRequirements` → `hipMipmappedArrayGetMemoryRequirements`:
/// HIP's struct orders `alignment` before `size` and has no reserved words (zeroed here).
pub(crate) unsafe fn cudaMipmappedArrayGetMemoryRequirements(
    b: &HipBackend,
    memoryRequirements: *mut cudaArrayMemoryRequirements,
    mipmap: cudaMipmappedArray_t,
    device: c_int,
) -> cudaError_t {
    let f = hip_fn!(b, hipMipmappedArrayGetMemoryRequirements);
    if memoryRequirements.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let mut h = hipArrayMemoryRequirements {
        alignment: 0,
        size: 0,
    };
    // SAFETY: `h` is a valid out-struct; the handle is the caller's.
    let e = b.rt(unsafe { f(&mut h, mipmap.cast(), device) });
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

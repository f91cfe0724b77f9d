//! Virtual memory and pools: `CUmemAllocationProp` / `CUmemPoolProps` rebuilt per HIP version
//! (HIP 5.2's allocation properties have another field order and no `allocFlags` struct; HIP
//! 5.2's pool properties have no `maxSize`), enum values renumbered through the tables; range
//! attributes (CUDA 13's split location attributes derived from HIP's legacy one).

use super::support::{hip_fn, nvidia, table, tri, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED};
use crate::conv::devptr_to_hip;
use crate::conv::memory::{
    pool_props_to_hip, pool_props_to_hip52, prop52, prop62, prop70, prop_from52, prop_from62,
    prop_from70, prop_to_cuda, prop_to_hip,
};
use crate::conv::{device_to_location, split_location_attr, EnumMap, LocationPart};
use crate::conv::{enum_arg, enum_to_hip, stream_to_hip, ApiResult, Refusal};
use crate::conv::{location_to_device, HIP_CPU_DEVICE_ID};
use crate::hip_types::{
    hipArrayMemoryRequirements, hipMemAllocationProp, hipMemAllocationProp__hip5_2,
    hipMemAllocationProp__hip6_2, hipMemGenericAllocationHandle_t, hipMemPool_t,
};
use crate::HipBackend;
use anycuda_api::driver::{
    CUdeviceptr, CUmemAllocationGranularity_flags, CUmemAllocationProp, CUmemAllocationType,
    CUmemGenericAllocationHandle, CUmemLocation, CUmemLocationType, CUmemPoolProps, CUmem_advise,
    CUmem_range_attribute, CUmemoryPool, CUresult, CUstream,
};
use anycuda_api::runtime::{
    cudaArrayMemoryRequirements, cudaError_t, cudaMemAllocationType, cudaMemLocation,
    cudaMemPoolProps, cudaMemPool_t, cudaMemRangeAttribute, cudaMemoryAdvise, cudaMipmappedArray_t,
    cudaStream_t,
};
use anycuda_api::CudaEnum;
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};

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

/// Whether the loaded HIP's pool properties predate `maxSize` (HIP 5.2's layout, before 6.2).
pub(crate) fn pre_hip62(b: &HipBackend) -> bool {
    abi(b) == Abi::V52
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
            (e, prop_from70(&o))
        } else if let (Abi::V62, Some(f)) = (a, t.hipMemGetAllocationPropertiesFromHandle__hip6_2) {
            let mut o: hipMemAllocationProp__hip6_2 = core::mem::zeroed();
            let e = f(&mut o, h);
            (e, prop_from62(&o))
        } else if let (Abi::V52, Some(f)) = (a, t.hipMemGetAllocationPropertiesFromHandle__hip5_2) {
            let mut o: hipMemAllocationProp__hip5_2 = core::mem::zeroed();
            let e = f(&mut o, h);
            (e, prop_from52(&o))
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

// ------------------------------------------------------------ rules for both APIs
//
// `CUmemLocation`/`cudaMemLocation`, `CUmemPoolProps`/`cudaMemPoolProps` and
// `CUmemAccessDesc`/`cudaMemAccessDesc` have one layout, and their enums translate alike in
// every HIP version (`conv::same_rules`), so one translation serves both APIs: the Runtime's
// structs are read as the Driver's.

/// `cuMemPoolCreate` / `cudaMemPoolCreate` → `hipMemPoolCreate`: properties rebuilt per HIP
/// layout (HIP 5.2 has no `maxSize`), values renumbered. On HIP's NVIDIA platform
/// `hipMemPoolProps` is CUDA's struct and goes through as is.
///
/// # Safety
/// CUDA's contract: `pool` writable, `props` readable (both checked non-NULL).
unsafe fn create_pool<R: ApiResult>(
    b: &HipBackend,
    pool: *mut hipMemPool_t,
    props: *const CUmemPoolProps,
) -> R {
    if pool.is_null() || props.is_null() {
        return Refusal::InvalidValue.into();
    }
    let t = tri!(table::<R>(b));
    // SAFETY: non-NULL, from the caller.
    let c = unsafe { &*props };
    // SAFETY: the structs live for their calls; `pool` is a valid out-pointer.
    let e = unsafe {
        if nvidia(b) {
            let Some(f) = t.hipMemPoolCreate__hip5_2 else {
                return R::NOT_SUPPORTED;
            };
            f(pool, props.cast())
        } else {
            let h = match pool_props_to_hip(b, c) {
                Ok(h) => h,
                Err(r) => return r.into(),
            };
            match (abi(b), t.hipMemPoolCreate, t.hipMemPoolCreate__hip5_2) {
                (Abi::V62 | Abi::V70, Some(f), _) => f(pool, &h),
                (Abi::V52, _, Some(f)) => match pool_props_to_hip52(&h) {
                    Ok(h52) => f(pool, &h52),
                    Err(r) => return r.into(),
                },
                _ => return R::NOT_SUPPORTED,
            }
        }
    };
    R::from_hip(b.conv(), e)
}

/// `cuMemPrefetchAsync` / `cudaMemPrefetchAsync` (CUDA 13: a location and reserved flags) →
/// `hipMemPrefetchAsync` with the location as a device ordinal; non-zero flags are invalid.
///
/// # Safety
/// CUDA's contract: the range and the stream are the caller's (HIP validates them).
unsafe fn prefetch<R: ApiResult>(
    b: &HipBackend,
    p: *const c_void,
    count: usize,
    location: &CUmemLocation,
    flags: c_uint,
    stream: CUstream,
) -> R {
    if flags != 0 {
        return Refusal::InvalidValue.into();
    }
    let dev = match location_to_device(location.type_.0, location.id()) {
        Ok(d) => d,
        Err(r) => return r.into(),
    };
    let f = hip_fn!(b, hipMemPrefetchAsync);
    // SAFETY: the caller's range; the stream handle translated.
    R::from_hip(b.conv(), unsafe {
        f(p, count, dev, stream_to_hip(b.platform(), stream))
    })
}

/// `cuMemAdvise` / `cudaMemAdvise` (CUDA 13: a location) → `hipMemAdvise`: the advice through
/// the table; the location (read by the preferred-location and accessed-by advice only, as CUDA
/// does) becomes a device ordinal; for the other advice `hipCpuDeviceId` is passed.
///
/// # Safety
/// CUDA's contract: the range is the caller's (HIP validates it).
unsafe fn advise<R: ApiResult>(
    b: &HipBackend,
    p: *const c_void,
    count: usize,
    advice: CUmem_advise,
    location: &CUmemLocation,
) -> R {
    let a = match enum_arg(b.conv().CUmem_advise, advice) {
        Ok(a) => a,
        Err(r) => return r.into(),
    };
    let dev = if matches!(
        advice,
        CUmem_advise::CU_MEM_ADVISE_SET_PREFERRED_LOCATION
            | CUmem_advise::CU_MEM_ADVISE_SET_ACCESSED_BY
            | CUmem_advise::CU_MEM_ADVISE_UNSET_ACCESSED_BY
    ) {
        match location_to_device(location.type_.0, location.id()) {
            Ok(d) => d,
            Err(r) => return r.into(),
        }
    } else {
        HIP_CPU_DEVICE_ID
    };
    let f = hip_fn!(b, hipMemAdvise);
    // SAFETY: the caller's range; HIP validates it.
    R::from_hip(b.conv(), unsafe { f(p, count, a as _, dev) })
}

/// `cuMemGetDefaultMemPool` / `cudaMemGetDefaultMemPool` (CUDA 13) →
/// `hipDeviceGetDefaultMemPool`: pinned memory of a device only (HIP has no host or managed
/// default pools: not supported); an unknown type or location type is invalid.
///
/// # Safety
/// CUDA's contract: `pool_out` writable, `location` readable (both checked non-NULL).
unsafe fn default_pool<R: ApiResult>(
    b: &HipBackend,
    pool_out: *mut hipMemPool_t,
    location: *const CUmemLocation,
    type_: CUmemAllocationType,
) -> R {
    if pool_out.is_null() || location.is_null() {
        return Refusal::InvalidValue.into();
    }
    match type_ {
        CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED => {}
        CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_MANAGED => return Refusal::NotSupported.into(),
        _ => return Refusal::InvalidValue.into(),
    }
    // SAFETY: non-NULL, from the caller.
    let l = unsafe { *location };
    match l.type_ {
        CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE => {}
        CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST
        | CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST_NUMA
        | CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT => {
            return Refusal::NotSupported.into()
        }
        _ => return Refusal::InvalidValue.into(),
    }
    let f = hip_fn!(b, hipDeviceGetDefaultMemPool);
    // SAFETY: valid out-pointer; HIP validates the ordinal.
    R::from_hip(b.conv(), unsafe { f(pool_out, l.id()) })
}

/// `cuMemPoolCreate` → `hipMemPoolCreate` (see `create_pool`).
pub(crate) unsafe fn cuMemPoolCreate(
    b: &HipBackend,
    pool: *mut CUmemoryPool,
    poolProps: *const CUmemPoolProps,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { create_pool(b, pool.cast(), poolProps) }
}

/// `cudaMemPoolCreate` → `hipMemPoolCreate` (see `create_pool`).
pub(crate) unsafe fn cudaMemPoolCreate(
    b: &HipBackend,
    memPool: *mut cudaMemPool_t,
    poolProps: *const cudaMemPoolProps,
) -> cudaError_t {
    // SAFETY: forwarded contract; one layout (asserted in `conv::memory`).
    unsafe { create_pool(b, memPool.cast(), poolProps.cast()) }
}

/// `cuMemPrefetchAsync` → `hipMemPrefetchAsync` (see `prefetch`).
pub(crate) unsafe fn cuMemPrefetchAsync(
    b: &HipBackend,
    devPtr: CUdeviceptr,
    count: usize,
    location: CUmemLocation,
    flags: c_uint,
    hStream: CUstream,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { prefetch(b, devptr_to_hip(devPtr), count, &location, flags, hStream) }
}

/// `cudaMemPrefetchAsync` → `hipMemPrefetchAsync` (see `prefetch`).
pub(crate) unsafe fn cudaMemPrefetchAsync(
    b: &HipBackend,
    devPtr: *const c_void,
    count: usize,
    location: cudaMemLocation,
    flags: c_uint,
    stream: cudaStream_t,
) -> cudaError_t {
    let l = CUmemLocation::new(CUmemLocationType(location.type_.0), location.id());
    // SAFETY: forwarded contract.
    unsafe { prefetch(b, devPtr, count, &l, flags, stream) }
}

/// `cuMemAdvise` → `hipMemAdvise` (see `advise`).
pub(crate) unsafe fn cuMemAdvise(
    b: &HipBackend,
    devPtr: CUdeviceptr,
    count: usize,
    advice: CUmem_advise,
    location: CUmemLocation,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { advise(b, devptr_to_hip(devPtr), count, advice, &location) }
}

/// `cudaMemAdvise` → `hipMemAdvise` (see `advise`).
pub(crate) unsafe fn cudaMemAdvise(
    b: &HipBackend,
    devPtr: *const c_void,
    count: usize,
    advice: cudaMemoryAdvise,
    location: cudaMemLocation,
) -> cudaError_t {
    let l = CUmemLocation::new(CUmemLocationType(location.type_.0), location.id());
    // SAFETY: forwarded contract.
    unsafe { advise(b, devPtr, count, CUmem_advise(advice.0), &l) }
}

/// `cuMemGetDefaultMemPool` → `hipDeviceGetDefaultMemPool` (see `default_pool`).
pub(crate) unsafe fn cuMemGetDefaultMemPool(
    b: &HipBackend,
    pool_out: *mut CUmemoryPool,
    location: *mut CUmemLocation,
    type_: CUmemAllocationType,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { default_pool(b, pool_out.cast(), location, type_) }
}

/// `cudaMemGetDefaultMemPool` → `hipDeviceGetDefaultMemPool` (see `default_pool`).
pub(crate) unsafe fn cudaMemGetDefaultMemPool(
    b: &HipBackend,
    memPool: *mut cudaMemPool_t,
    location: *mut cudaMemLocation,
    type_: cudaMemAllocationType,
) -> cudaError_t {
    let t = CUmemAllocationType(type_.0);
    // SAFETY: forwarded contract; one layout (asserted in `conv::memory`).
    unsafe { default_pool(b, memPool.cast(), location.cast(), t) }
}

// ---------------------------------------------------------------- range attributes

/// One range attribute for either API: CUDA 13's split location attributes (`*_TYPE`, `*_ID`),
/// which HIP lacks, read through the legacy attribute that answers the location as one device
/// ordinal (`conv::device_to_location`); every other attribute through the table.
///
/// # Safety
/// CUDA's contract: `data` is NULL or writable for `data_size` bytes.
unsafe fn range_attribute<R: ApiResult, E: CudaEnum>(
    b: &HipBackend,
    map: &EnumMap,
    data: *mut c_void,
    data_size: usize,
    attr: E,
    dev_ptr: *const c_void,
    count: usize,
) -> R {
    let f = hip_fn!(b, hipMemRangeGetAttribute);
    let split = u32::try_from(attr.to_i64())
        .ok()
        .and_then(split_location_attr);
    let Some((base, part)) = split else {
        let h = tri!(enum_arg(map, attr).map_err(R::from));
        // SAFETY: the caller's buffer and range; HIP validates both.
        return R::from_hip(b.conv(), unsafe {
            f(data, data_size, h as _, dev_ptr, count)
        });
    };
    // Both halves are 4-byte values (`CUmemLocationType`, `int`), as CUDA requires.
    const SIZE: usize = core::mem::size_of::<c_int>();
    if data.is_null() || data_size != SIZE {
        return R::from(Refusal::InvalidValue);
    }
    let h = tri!(enum_arg(map, E::from_i64(i64::from(base))).map_err(R::from));
    let mut ordinal: c_int = 0;
    // SAFETY: a local of the size given; HIP validates the range.
    let e = unsafe { f((&raw mut ordinal).cast(), SIZE, h as _, dev_ptr, count) };
    if e != HIP_SUCCESS {
        return R::from_hip(b.conv(), e);
    }
    let (type_, id) = device_to_location(ordinal);
    let v = match part {
        LocationPart::Type => type_ as c_int,
        LocationPart::Id => id,
    };
    // SAFETY: non-NULL and `SIZE` bytes (checked); the caller's buffer may be unaligned.
    unsafe { data.cast::<c_int>().write_unaligned(v) };
    R::SUCCESS
}

/// The plural query for either API: each attribute as [`range_attribute`] (HIP's plural call
/// would not know the split location attributes), the first failure returned.
///
/// # Safety
/// CUDA's contract: the three arrays are NULL or hold `n` entries; each `data[i]` is writable
/// for `sizes[i]` bytes.
unsafe fn range_attributes<R: ApiResult, E: CudaEnum>(
    b: &HipBackend,
    map: &EnumMap,
    data: *mut *mut c_void,
    sizes: *mut usize,
    attrs: *mut E,
    n: usize,
    dev_ptr: *const c_void,
    count: usize,
) -> R {
    tri!(table::<R>(b));
    if data.is_null() || sizes.is_null() || attrs.is_null() || n == 0 {
        return R::from(Refusal::InvalidValue);
    }
    for i in 0..n {
        // SAFETY: the caller's arrays of `n` entries.
        let r = unsafe {
            range_attribute::<R, E>(
                b,
                map,
                *data.add(i),
                *sizes.add(i),
                *attrs.add(i),
                dev_ptr,
                count,
            )
        };
        if r != R::SUCCESS {
            return r;
        }
    }
    R::SUCCESS
}

/// `cuMemRangeGetAttribute` → `hipMemRangeGetAttribute`; CUDA 13's `*_LOCATION_TYPE`/`_ID`
/// attributes derived from the legacy location attribute ([`range_attribute`]).
pub(crate) unsafe fn cuMemRangeGetAttribute(
    b: &HipBackend,
    data: *mut c_void,
    dataSize: usize,
    attribute: CUmem_range_attribute,
    devPtr: CUdeviceptr,
    count: usize,
) -> CUresult {
    let map = tri!(table::<CUresult>(b).map(|_| b.conv().CUmem_range_attribute));
    let p = devptr_to_hip(devPtr).cast_const();
    // SAFETY: forwarded contract.
    unsafe { range_attribute(b, map, data, dataSize, attribute, p, count) }
}

/// `cuMemRangeGetAttributes`: each attribute as `cuMemRangeGetAttribute`.
pub(crate) unsafe fn cuMemRangeGetAttributes(
    b: &HipBackend,
    data: *mut *mut c_void,
    dataSizes: *mut usize,
    attributes: *mut CUmem_range_attribute,
    numAttributes: usize,
    devPtr: CUdeviceptr,
    count: usize,
) -> CUresult {
    let map = tri!(table::<CUresult>(b).map(|_| b.conv().CUmem_range_attribute));
    let p = devptr_to_hip(devPtr).cast_const();
    // SAFETY: forwarded contract.
    unsafe { range_attributes(b, map, data, dataSizes, attributes, numAttributes, p, count) }
}

/// `cudaMemRangeGetAttribute`: as `cuMemRangeGetAttribute` (the Runtime's attributes have the
/// Driver's values).
pub(crate) unsafe fn cudaMemRangeGetAttribute(
    b: &HipBackend,
    data: *mut c_void,
    dataSize: usize,
    attribute: cudaMemRangeAttribute,
    devPtr: *const c_void,
    count: usize,
) -> cudaError_t {
    let map = tri!(table::<cudaError_t>(b).map(|_| b.conv().cudaMemRangeAttribute));
    // SAFETY: forwarded contract.
    unsafe { range_attribute(b, map, data, dataSize, attribute, devPtr, count) }
}

/// `cudaMemRangeGetAttributes`: each attribute as `cudaMemRangeGetAttribute`.
pub(crate) unsafe fn cudaMemRangeGetAttributes(
    b: &HipBackend,
    data: *mut *mut c_void,
    dataSizes: *mut usize,
    attributes: *mut cudaMemRangeAttribute,
    numAttributes: usize,
    devPtr: *const c_void,
    count: usize,
) -> cudaError_t {
    let map = tri!(table::<cudaError_t>(b).map(|_| b.conv().cudaMemRangeAttribute));
    // SAFETY: forwarded contract.
    unsafe {
        range_attributes(
            b,
            map,
            data,
            dataSizes,
            attributes,
            numAttributes,
            devPtr,
            count,
        )
    }
}

// ---------------------------------------------------------------- pool attributes (both APIs)

/// Reads (`set` false) or writes a pool attribute (`attr`: HIP's value, or the refusal of its
/// API's table): a NULL value is refused first
/// (`anycuda_api::arg_checks::non_null`, the rule the CUDA backend applies too: NVIDIA's driver
/// and HIP's NVIDIA platform crash on it), then the attribute is translated and HIP called.
///
/// # Safety
/// CUDA's contract: `value` points to the attribute's type; `pool` is the caller's.
unsafe fn pool_attribute<R: ApiResult>(
    b: &HipBackend,
    set: bool,
    pool: *mut c_void,
    attr: Result<i64, Refusal>,
    value: *mut c_void,
) -> R {
    if anycuda_api::arg_checks::non_null(value.cast_const()).is_some() {
        return Refusal::InvalidValue.into();
    }
    let h = match attr {
        Ok(h) => h as crate::hip_types::hipMemPoolAttr,
        Err(r) => return r.into(),
    };
    let e = if set {
        let f = hip_fn!(b, hipMemPoolSetAttribute);
        // SAFETY: non-NULL value of the attribute's type (caller's contract).
        unsafe { f(pool.cast(), h, value) }
    } else {
        let f = hip_fn!(b, hipMemPoolGetAttribute);
        // SAFETY: as above.
        unsafe { f(pool.cast(), h, value) }
    };
    R::from_hip(b.conv(), e)
}

/// `cuMemPoolSetAttribute` → `hipMemPoolSetAttribute` (see `pool_attribute`).
pub(crate) unsafe fn cuMemPoolSetAttribute(
    b: &HipBackend,
    pool: anycuda_api::driver::CUmemoryPool,
    attr: anycuda_api::driver::CUmemPool_attribute,
    value: *mut c_void,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe {
        pool_attribute(
            b,
            true,
            pool.cast(),
            enum_arg(b.conv().CUmemPool_attribute, attr),
            value,
        )
    }
}

/// `cuMemPoolGetAttribute` → `hipMemPoolGetAttribute` (see `pool_attribute`).
pub(crate) unsafe fn cuMemPoolGetAttribute(
    b: &HipBackend,
    pool: anycuda_api::driver::CUmemoryPool,
    attr: anycuda_api::driver::CUmemPool_attribute,
    value: *mut c_void,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe {
        pool_attribute(
            b,
            false,
            pool.cast(),
            enum_arg(b.conv().CUmemPool_attribute, attr),
            value,
        )
    }
}

/// `cudaMemPoolSetAttribute`: as `cuMemPoolSetAttribute`, the attribute through the
/// Runtime's table.
pub(crate) unsafe fn cudaMemPoolSetAttribute(
    b: &HipBackend,
    memPool: anycuda_api::runtime::cudaMemPool_t,
    attr: anycuda_api::runtime::cudaMemPoolAttr,
    value: *mut c_void,
) -> cudaError_t {
    let attr = enum_arg(b.conv().cudaMemPoolAttr, attr);
    // SAFETY: forwarded contract.
    unsafe { pool_attribute(b, true, memPool.cast(), attr, value) }
}

/// `cudaMemPoolGetAttribute`: as `cuMemPoolGetAttribute`.
pub(crate) unsafe fn cudaMemPoolGetAttribute(
    b: &HipBackend,
    memPool: anycuda_api::runtime::cudaMemPool_t,
    attr: anycuda_api::runtime::cudaMemPoolAttr,
    value: *mut c_void,
) -> cudaError_t {
    let attr = enum_arg(b.conv().cudaMemPoolAttr, attr);
    // SAFETY: forwarded contract.
    unsafe { pool_attribute(b, false, memPool.cast(), attr, value) }
}

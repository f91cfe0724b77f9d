//! Virtual memory and pools: `CUmemAllocationProp` / `CUmemPoolProps` rebuilt per HIP version
//! (HIP 5.2's allocation properties have another field order and no `allocFlags` struct; HIP
//! 5.2's pool properties have no `maxSize`), enum values renumbered through the tables.

use super::{enum_to_cuda, enum_to_hip, tri, INVALID_VALUE, NOT_SUPPORTED};
use crate::adapt::{drv_fn, drv_table, nvidia, HIP_SUCCESS};
use crate::hip_types::{
    hipMemAllocNodeParams, hipMemAllocationProp, hipMemAllocationProp__bindgen_ty_1,
    hipMemAllocationProp__bindgen_ty_1__hip6_2, hipMemAllocationProp__bindgen_ty_2,
    hipMemAllocationProp__hip5_2, hipMemAllocationProp__hip6_2, hipMemGenericAllocationHandle_t,
    hipMemLocation, hipMemPoolProps, hipMemPoolProps__hip5_2, hipMemPool_t,
};
use crate::HipBackend;
use anycuda_api::driver::{
    CUgraph, CUgraphNode, CUmemAllocationGranularity_flags, CUmemAllocationHandleType,
    CUmemAllocationProp, CUmemAllocationType, CUmemGenericAllocationHandle, CUmemLocation,
    CUmemLocationType, CUmemPoolProps, CUmemoryPool, CUresult, CUDA_MEM_ALLOC_NODE_PARAMS,
};
use core::ffi::{c_ulonglong, c_void};

/// CUDA's location in HIP's words.
pub(crate) fn location_to_hip(
    b: &HipBackend,
    l: &CUmemLocation,
) -> Result<hipMemLocation, CUresult> {
    Ok(hipMemLocation {
        type_: enum_to_hip(b.conv().CUmemLocationType, l.type_.0, NOT_SUPPORTED)?,
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
            out |= enum_to_hip(map, m, NOT_SUPPORTED)?;
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
        type_: enum_to_hip(b.conv().CUmemAllocationType, p.type_.0, INVALID_VALUE)?,
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
    let t = tri!(drv_table(b));
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
    let o = tri!(enum_to_hip(
        b.conv().CUmemAllocationGranularity_flags,
        option.0,
        INVALID_VALUE
    ));
    let t = tri!(drv_table(b));
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
    let t = tri!(drv_table(b));
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
        allocType: enum_to_hip(b.conv().CUmemAllocationType, p.allocType.0, INVALID_VALUE)?,
        handleTypes: handle_types_to_hip(b, p.handleTypes)?,
        location: location_to_hip(b, &p.location)?,
        win32SecurityAttributes: p.win32SecurityAttributes,
        maxSize: p.maxSize,
        reserved: [0; 56],
    })
}

fn pool_props_to_cuda(b: &HipBackend, h: &hipMemPoolProps) -> CUmemPoolProps {
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
    let t = tri!(drv_table(b));
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

/// `cuGraphAddMemAllocNode` → `hipGraphAddMemAllocNode` (HIP 6.2+): pool properties rebuilt,
/// access descriptors checked to use the values HIP shares with CUDA, and the address copied
/// back as a `CUdeviceptr`.
pub(crate) unsafe fn cuGraphAddMemAllocNode(
    b: &HipBackend,
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *mut CUDA_MEM_ALLOC_NODE_PARAMS,
) -> CUresult {
    if phGraphNode.is_null() || nodeParams.is_null() {
        return INVALID_VALUE;
    }
    let f = drv_fn!(b, hipGraphAddMemAllocNode);
    // SAFETY: non-NULL.
    let c = unsafe { &mut *nodeParams };
    if c.accessDescCount > 0 && c.accessDescs.is_null() {
        return INVALID_VALUE;
    }
    for i in 0..c.accessDescCount {
        // SAFETY: caller's array of `accessDescCount` entries.
        let d = unsafe { &*c.accessDescs.add(i) };
        let same_loc = b
            .conv()
            .CUmemLocationType
            .to_hip(i64::from(d.location.type_.0))
            == Some(i64::from(d.location.type_.0));
        let same_flags =
            b.conv().CUmemAccess_flags.to_hip(i64::from(d.flags.0)) == Some(i64::from(d.flags.0));
        if !same_loc || !same_flags {
            return NOT_SUPPORTED;
        }
    }
    let mut h = hipMemAllocNodeParams {
        poolProps: tri!(pool_props_to_hip(b, &c.poolProps)),
        // Same layout and (checked) values.
        accessDescs: c.accessDescs.cast(),
        accessDescCount: c.accessDescCount,
        bytesize: c.bytesize,
        dptr: core::ptr::null_mut(),
    };
    // SAFETY: `h` lives for the call; caller's handles.
    let e = unsafe {
        f(
            phGraphNode.cast(),
            hGraph.cast(),
            dependencies.cast(),
            numDependencies,
            &mut h,
        )
    };
    if e == HIP_SUCCESS {
        c.dptr = h.dptr as usize as u64;
    }
    b.cu(e)
}

/// `cuGraphMemAllocNodeGetParams` → `hipGraphMemAllocNodeGetParams` (HIP 6.2+): HIP's struct
/// read back into CUDA's (the access descriptors point at HIP's array, same layout).
pub(crate) unsafe fn cuGraphMemAllocNodeGetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    params_out: *mut CUDA_MEM_ALLOC_NODE_PARAMS,
) -> CUresult {
    if params_out.is_null() {
        return INVALID_VALUE;
    }
    let f = drv_fn!(b, hipGraphMemAllocNodeGetParams);
    // SAFETY: zeroed POD filled by HIP.
    let mut h: hipMemAllocNodeParams = unsafe { core::mem::zeroed() };
    // SAFETY: valid out-pointer.
    let e = unsafe { f(hNode.cast(), &mut h) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe {
            *params_out = CUDA_MEM_ALLOC_NODE_PARAMS {
                poolProps: pool_props_to_cuda(b, &h.poolProps),
                accessDescs: h.accessDescs.cast(),
                accessDescCount: h.accessDescCount,
                bytesize: h.bytesize,
                dptr: h.dptr as usize as u64,
            };
        }
    }
    b.cu(e)
}

//! Virtual memory and pools: `CUmemAllocationProp` / `CUmemPoolProps` / `CUmemLocation` /
//! `CUmemAccessDesc` rebuilt per HIP layout (HIP 5.2's allocation properties have another field
//! order and no `allocFlags` struct; HIP 5.2's pool properties have no `maxSize`) and back.

use crate::conv::{enum_arg, enum_bits_to_hip, enum_to_cuda, enum_to_hip, Refusal};
use crate::conv::{INVALID_VALUE, NOT_SUPPORTED};
use crate::hip_types::{
    hipMemAccessDesc, hipMemAllocationProp, hipMemAllocationProp__bindgen_ty_1,
    hipMemAllocationProp__bindgen_ty_1__hip6_2, hipMemAllocationProp__bindgen_ty_2,
    hipMemAllocationProp__hip5_2, hipMemAllocationProp__hip6_2, hipMemLocation, hipMemPoolProps,
    hipMemPoolProps__hip5_2,
};
use crate::HipBackend;
use anycuda_api::driver::{
    CUmemAccessDesc, CUmemAllocationHandleType, CUmemAllocationProp, CUmemAllocationType,
    CUmemLocation, CUmemLocationType, CUmemPoolProps, CUresult,
};
use anycuda_api::runtime::{cudaMemAccessDesc, cudaMemLocation, cudaMemPoolProps};
use core::ffi::c_void;

pub(crate) fn location_to_cuda(b: &HipBackend, l: &hipMemLocation) -> CUmemLocation {
    CUmemLocation::new(
        CUmemLocationType(enum_to_cuda(b.conv().CUmemLocationType, l.type_)),
        l.id,
    )
}

pub(crate) fn handle_types_to_cuda(b: &HipBackend, h: u32) -> CUmemAllocationHandleType {
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

/// The common fields back in CUDA's allocation properties (the inverse of [`prop_to_hip`]).
pub(crate) fn prop_to_cuda(b: &HipBackend, h: &Prop) -> CUmemAllocationProp {
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

/// The common fields in HIP 5.2's layout (which cannot request GPUDirect RDMA).
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

/// HIP 5.2's allocation properties back in the common fields (no RDMA request there).
pub(crate) fn prop_from52(o: &hipMemAllocationProp__hip5_2) -> Prop {
    Prop {
        type_: o.type_,
        handle: o.requestedHandleType,
        location: o.location,
        win32: o.win32HandleMetaData,
        compression: o.compressionType,
        rdma: 0,
        usage: o.usage,
    }
}

/// The common fields in HIP 6.2's layout.
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

/// HIP 6.2's allocation properties back in the common fields.
pub(crate) fn prop_from62(o: &hipMemAllocationProp__hip6_2) -> Prop {
    Prop {
        type_: o.type_,
        handle: o.requestedHandleType,
        location: o.location,
        win32: o.win32HandleMetaData,
        compression: o.allocFlags.compressionType,
        rdma: o.allocFlags.gpuDirectRDMACapable,
        usage: o.allocFlags.usage,
    }
}

/// The common fields in HIP 7.0's layout.
pub(crate) fn prop70(p: &Prop) -> hipMemAllocationProp {
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

/// HIP 7.0's allocation properties back in the common fields.
pub(crate) fn prop_from70(o: &hipMemAllocationProp) -> Prop {
    Prop {
        type_: o.type_,
        // SAFETY: both members of the union are the same handle-type word.
        handle: unsafe { o.__bindgen_anon_1.requestedHandleType },
        location: o.location,
        win32: o.win32HandleMetaData,
        compression: o.allocFlags.compressionType,
        rdma: o.allocFlags.gpuDirectRDMACapable,
        usage: o.allocFlags.usage,
    }
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

// One layout for the Runtime's and the Driver's memory structs.
const _: () = {
    use core::mem::size_of;
    assert!(size_of::<cudaMemLocation>() == size_of::<CUmemLocation>());
    assert!(size_of::<cudaMemPoolProps>() == size_of::<CUmemPoolProps>());
    assert!(size_of::<cudaMemAccessDesc>() == size_of::<CUmemAccessDesc>());
};

/// CUDA's location in HIP's struct.
///
/// # Errors
/// As [`enum_arg`]: a location type HIP lacks is not supported, an unknown one invalid.
pub(crate) fn location_to_hip(
    b: &HipBackend,
    l: &CUmemLocation,
) -> Result<hipMemLocation, Refusal> {
    Ok(hipMemLocation {
        type_: enum_arg(b.conv().CUmemLocationType, l.type_)? as u32,
        id: l.id(),
    })
}

/// A CUDA handle-type bit set in HIP's bits (each bit through the table).
///
/// # Errors
/// [`Refusal::NotSupported`] for a bit HIP lacks (such as FABRIC).
pub(crate) fn handle_types_to_hip(
    b: &HipBackend,
    t: CUmemAllocationHandleType,
) -> Result<u32, Refusal> {
    enum_bits_to_hip(b.conv().CUmemAllocationHandleType, u64::from(t.0))
        .and_then(|h| u32::try_from(h).ok())
        .ok_or(Refusal::NotSupported)
}

/// CUDA's pool properties in HIP 6.2+'s layout. The CUDA 13 `usage` (hardware decompression)
/// has no HIP counterpart (not supported).
///
/// # Errors
/// As its fields' translations.
pub(crate) fn pool_props_to_hip(
    b: &HipBackend,
    p: &CUmemPoolProps,
) -> Result<hipMemPoolProps, Refusal> {
    if p.usage != 0 {
        return Err(Refusal::NotSupported);
    }
    Ok(hipMemPoolProps {
        allocType: enum_arg(b.conv().CUmemAllocationType, p.allocType)? as u32,
        handleTypes: handle_types_to_hip(b, p.handleTypes)?,
        location: location_to_hip(b, &p.location)?,
        win32SecurityAttributes: p.win32SecurityAttributes,
        maxSize: p.maxSize,
        reserved: [0; 56],
    })
}

/// HIP 5.2's pool properties, which reserve `maxSize` (a non-zero one is not supported there).
pub(crate) fn pool_props_to_hip52(h: &hipMemPoolProps) -> Result<hipMemPoolProps__hip5_2, Refusal> {
    if h.maxSize != 0 {
        return Err(Refusal::NotSupported);
    }
    Ok(hipMemPoolProps__hip5_2 {
        allocType: h.allocType,
        handleTypes: h.handleTypes,
        location: h.location,
        win32SecurityAttributes: h.win32SecurityAttributes,
        reserved: [0; 64],
    })
}

/// CUDA's access descriptors in HIP's words, into `out` (at most [`MAX_ACCESS_DESCS`]).
///
/// # Errors
/// Invalid value for a NULL array of a non-zero count, not supported beyond
/// [`MAX_ACCESS_DESCS`], else as the location and flag translations.
///
/// # Safety
/// `descs` is NULL or points to `n` descriptors.
pub(crate) unsafe fn access_descs_to_hip(
    b: &HipBackend,
    descs: *const CUmemAccessDesc,
    n: usize,
    out: &mut [hipMemAccessDesc; MAX_ACCESS_DESCS],
) -> Result<(), Refusal> {
    if n > 0 && descs.is_null() {
        return Err(Refusal::InvalidValue);
    }
    if n > MAX_ACCESS_DESCS {
        return Err(Refusal::NotSupported);
    }
    for (i, slot) in out.iter_mut().enumerate().take(n) {
        // SAFETY: within the caller's `n` descriptors.
        let d = unsafe { &*descs.add(i) };
        *slot = hipMemAccessDesc {
            location: location_to_hip(b, &d.location)?,
            flags: enum_arg(b.conv().CUmemAccess_flags, d.flags)? as u32,
        };
    }
    Ok(())
}

/// The most access descriptors a memory-allocation node may carry here (they are translated
/// on the stack).
pub(crate) const MAX_ACCESS_DESCS: usize = 64;

//! Device properties: CUDA 13's `cudaDeviceProp` filled field by field from HIP's struct (HIP
//! 5.2 layout, or `hipDeviceProp_tR0600` for HIP 6+), then from device attributes for fields
//! HIP's struct lacks.
//!
//! Nothing is invented: a field neither HIP's struct nor a mapped device attribute provides
//! stays zero. On HIP 5.2 (and its NVIDIA platform) that is `luid`, `luidDeviceNodeMask`,
//! `deviceNumaConfig`, `deviceNumaId`, `mpsEnabled`, `hostNumaId`, `gpuPciDeviceID`,
//! `gpuPciSubsystemID`, `hostNumaMultinodeIpcSupported` and the texture/surface limits HIP 5.2
//! does not report; HIP 6+ adds `luid` and most of the others through its own struct.

use super::support::{hip_fn, pre_r0600, HIP_SUCCESS, INVALID_VALUE, SUCCESS};
use crate::conv::props::{props_from_hip52, props_from_r0600, props_to_hip52, props_to_r0600};
use crate::hip_types::{hipDeviceAttribute_t, hipDeviceProp_t, hipDeviceProp_tR0600, hipUUID};
use crate::HipBackend;
use anycuda_api::driver::{CUdevice, CUdevice_attribute, CUdevprop, CUresult};
use anycuda_api::runtime::{cudaDeviceAttr, cudaDeviceProp, cudaError_t};
use anycuda_api::CudaEnum;
use core::ffi::c_int;

type IntField = fn(&mut cudaDeviceProp) -> &mut c_int;
type SizeField = fn(&mut cudaDeviceProp) -> &mut usize;

/// `int` fields filled from a device attribute when HIP's struct left them zero.
const FROM_ATTRIBUTES: &[(cudaDeviceAttr, IntField)] = &[
    (cudaDeviceAttr::cudaDevAttrAsyncEngineCount, |p| {
        &mut p.asyncEngineCount
    }),
    (cudaDeviceAttr::cudaDevAttrUnifiedAddressing, |p| {
        &mut p.unifiedAddressing
    }),
    (cudaDeviceAttr::cudaDevAttrStreamPrioritiesSupported, |p| {
        &mut p.streamPrioritiesSupported
    }),
    (cudaDeviceAttr::cudaDevAttrGlobalL1CacheSupported, |p| {
        &mut p.globalL1CacheSupported
    }),
    (cudaDeviceAttr::cudaDevAttrLocalL1CacheSupported, |p| {
        &mut p.localL1CacheSupported
    }),
    (
        cudaDeviceAttr::cudaDevAttrMaxRegistersPerMultiprocessor,
        |p| &mut p.regsPerMultiprocessor,
    ),
    (cudaDeviceAttr::cudaDevAttrMultiGpuBoardGroupID, |p| {
        &mut p.multiGpuBoardGroupID
    }),
    (cudaDeviceAttr::cudaDevAttrHostNativeAtomicSupported, |p| {
        &mut p.hostNativeAtomicSupported
    }),
    (cudaDeviceAttr::cudaDevAttrComputePreemptionSupported, |p| {
        &mut p.computePreemptionSupported
    }),
    (
        cudaDeviceAttr::cudaDevAttrCanUseHostPointerForRegisteredMem,
        |p| &mut p.canUseHostPointerForRegisteredMem,
    ),
    (cudaDeviceAttr::cudaDevAttrMaxBlocksPerMultiprocessor, |p| {
        &mut p.maxBlocksPerMultiProcessor
    }),
    (cudaDeviceAttr::cudaDevAttrMaxPersistingL2CacheSize, |p| {
        &mut p.persistingL2CacheMaxSize
    }),
    (cudaDeviceAttr::cudaDevAttrMaxAccessPolicyWindowSize, |p| {
        &mut p.accessPolicyMaxWindowSize
    }),
    (cudaDeviceAttr::cudaDevAttrHostRegisterSupported, |p| {
        &mut p.hostRegisterSupported
    }),
    (cudaDeviceAttr::cudaDevAttrMemoryPoolsSupported, |p| {
        &mut p.memoryPoolsSupported
    }),
    (cudaDeviceAttr::cudaDevAttrMaxTexture1DMipmappedWidth, |p| {
        &mut p.maxTexture1DMipmap
    }),
    (cudaDeviceAttr::cudaDevAttrMaxTextureCubemapWidth, |p| {
        &mut p.maxTextureCubemap
    }),
    (cudaDeviceAttr::cudaDevAttrMaxSurface1DWidth, |p| {
        &mut p.maxSurface1D
    }),
    (cudaDeviceAttr::cudaDevAttrMaxSurfaceCubemapWidth, |p| {
        &mut p.maxSurfaceCubemap
    }),
    (cudaDeviceAttr::cudaDevAttrClusterLaunch, |p| {
        &mut p.clusterLaunch
    }),
    (cudaDeviceAttr::cudaDevAttrIpcEventSupport, |p| {
        &mut p.ipcEventSupported
    }),
    (cudaDeviceAttr::cudaDevAttrGPUDirectRDMASupported, |p| {
        &mut p.gpuDirectRDMASupported
    }),
];

/// Asks HIP for one CUDA device attribute (through the `cudaDeviceAttr` table); `None` when HIP
/// lacks the attribute or the query fails.
unsafe fn attribute(b: &HipBackend, attr: cudaDeviceAttr, device: c_int) -> Option<c_int> {
    let hip_attr = b.conv().cudaDeviceAttr.to_hip(attr.to_i64())?;
    let get = b.native_hip()?.hipDeviceGetAttribute?;
    let mut v: c_int = 0;
    // SAFETY: valid out-pointer.
    let e = unsafe { get(&mut v, hip_attr as hipDeviceAttribute_t, device) };
    (e == HIP_SUCCESS).then_some(v)
}

/// Fills zero fields from device attributes HIP reports (see [`FROM_ATTRIBUTES`]).
unsafe fn fill_from_attributes(b: &HipBackend, p: &mut cudaDeviceProp, device: c_int) {
    for (attr, field) in FROM_ATTRIBUTES {
        if *field(p) != 0 {
            continue;
        }
        // SAFETY: forwarded contract.
        if let Some(v) = unsafe { attribute(b, *attr, device) } {
            *field(p) = v;
        }
    }
    let sized: [(cudaDeviceAttr, SizeField); 3] = [
        (
            cudaDeviceAttr::cudaDevAttrMaxSharedMemoryPerBlockOptin,
            |p| &mut p.sharedMemPerBlockOptin,
        ),
        (
            cudaDeviceAttr::cudaDevAttrReservedSharedMemoryPerBlock,
            |p| &mut p.reservedSharedMemPerBlock,
        ),
        (cudaDeviceAttr::cudaDevAttrSurfaceAlignment, |p| {
            &mut p.surfaceAlignment
        }),
    ];
    for (attr, field) in sized {
        if *field(p) != 0 {
            continue;
        }
        // SAFETY: forwarded contract.
        if let Some(v) = unsafe { attribute(b, attr, device) } {
            *field(p) = usize::try_from(v).unwrap_or(0);
        }
    }
}

/// `cudaGetDeviceProperties` (CUDA 13 layout): HIP's struct for the loaded version converted
/// field by field (`hipGetDevicePropertiesR0600` on HIP 6+, else `hipGetDeviceProperties`; HIP's
/// NVIDIA platform has the 5.2 layout), zero fields completed from device attributes, and the
/// UUID from `hipDeviceGetUuid` on HIP 5.2. Fields HIP cannot report stay zero (module docs).
pub(crate) unsafe fn cudaGetDeviceProperties(
    b: &HipBackend,
    prop: *mut cudaDeviceProp,
    device: c_int,
) -> cudaError_t {
    if prop.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let mut p = if pre_r0600(b) {
        let get = hip_fn!(b, hipGetDeviceProperties);
        // SAFETY: zeroed POD, filled by HIP for its 5.2 layout.
        let mut h: hipDeviceProp_t = unsafe { core::mem::zeroed() };
        // SAFETY: valid out-pointer.
        let e = unsafe { get(&mut h, device) };
        if e != HIP_SUCCESS {
            return b.rt(e);
        }
        let mut p = props_from_hip52(&h);
        if let Some(uuid) = b.native_hip().and_then(|t| t.hipDeviceGetUuid) {
            // SAFETY: zeroed POD out-parameter.
            let mut u: hipUUID = unsafe { core::mem::zeroed() };
            // SAFETY: valid out-pointer.
            if unsafe { uuid(&mut u, device) } == HIP_SUCCESS {
                p.uuid.bytes = u.bytes;
            }
        }
        p
    } else {
        let get = hip_fn!(b, hipGetDevicePropertiesR0600);
        // SAFETY: zeroed POD, filled by HIP for the R0600 layout.
        let mut h: hipDeviceProp_tR0600 = unsafe { core::mem::zeroed() };
        // SAFETY: valid out-pointer.
        let e = unsafe { get(&mut h, device) };
        if e != HIP_SUCCESS {
            return b.rt(e);
        }
        props_from_r0600(&h)
    };
    // On HIP's NVIDIA platform hipDeviceGetAttribute maps a subset of attributes; the others
    // fail there and the field stays zero.
    // SAFETY: forwarded contract.
    unsafe { fill_from_attributes(b, &mut p, device) };
    // SAFETY: checked non-NULL.
    unsafe { *prop = p };
    cudaError_t::cudaSuccess
}

/// `cuDeviceGetAttribute`: mapped attributes go through the `CUdevice_attribute` table as in
/// plain forwarding; `CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID`, which HIP's attribute enum lacks, is
/// read from HIP's device properties (`pciDomainID`); any other CUDA-only attribute is
/// `CUDA_ERROR_NOT_SUPPORTED`, a value that is no attribute `CUDA_ERROR_INVALID_VALUE`. On HIP's
/// NVIDIA platform, whose `hipDeviceGetAttribute` maps only part of the enum, HIP's
/// invalid-value answer for a mapped attribute becomes not-supported.
pub(crate) unsafe fn cuDeviceGetAttribute(
    b: &HipBackend,
    pi: *mut c_int,
    attrib: anycuda_api::driver::CUdevice_attribute,
    dev: anycuda_api::driver::CUdevice,
) -> anycuda_api::driver::CUresult {
    use anycuda_api::driver::{CUdevice_attribute as A, CUresult};
    if pi.is_null() {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    let get = hip_fn!(b, hipDeviceGetAttribute);
    let Some(hip_attr) = b.conv().CUdevice_attribute.to_hip(attrib.to_i64()) else {
        if attrib == A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID {
            // SAFETY: valid out-pointer.
            return match unsafe { pci_domain(b, dev) } {
                Ok(v) => {
                    // SAFETY: checked non-NULL.
                    unsafe { *pi = v };
                    CUresult::CUDA_SUCCESS
                }
                Err(e) => b.cu(e),
            };
        }
        return if attrib.name().is_some() {
            CUresult::CUDA_ERROR_NOT_SUPPORTED
        } else {
            CUresult::CUDA_ERROR_INVALID_VALUE
        };
    };
    // SAFETY: valid out-pointer.
    let r = b.cu(unsafe { get(pi, hip_attr as hipDeviceAttribute_t, dev) });
    if super::support::nvidia(b) && r == CUresult::CUDA_ERROR_INVALID_VALUE {
        // HIP 5.x's NVIDIA platform maps no unified-addressing attribute, but every 64-bit
        // CUDA platform has unified addressing (CUDA 4.0 on), so the answer is derived.
        if attrib == A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING && cfg!(target_pointer_width = "64")
        {
            // SAFETY: checked non-NULL.
            unsafe { *pi = 1 };
            return CUresult::CUDA_SUCCESS;
        }
        return CUresult::CUDA_ERROR_NOT_SUPPORTED;
    }
    r
}

/// `pciDomainID` from HIP's device properties (layout by version), or HIP's error.
unsafe fn pci_domain(b: &HipBackend, dev: c_int) -> Result<c_int, crate::hip_types::hipError_t> {
    let t = b.native_hip().ok_or(HIP_NOT_INITIALIZED)?;
    if pre_r0600(b) {
        let get = t.hipGetDeviceProperties.ok_or(HIP_NOT_SUPPORTED)?;
        // SAFETY: zeroed POD filled by HIP.
        let mut h: hipDeviceProp_t = unsafe { core::mem::zeroed() };
        // SAFETY: valid out-pointer.
        match unsafe { get(&mut h, dev) } {
            HIP_SUCCESS => Ok(h.pciDomainID),
            e => Err(e),
        }
    } else {
        let get = t.hipGetDevicePropertiesR0600.ok_or(HIP_NOT_SUPPORTED)?;
        // SAFETY: zeroed POD filled by HIP.
        let mut h: hipDeviceProp_tR0600 = unsafe { core::mem::zeroed() };
        // SAFETY: valid out-pointer.
        match unsafe { get(&mut h, dev) } {
            HIP_SUCCESS => Ok(h.pciDomainID),
            e => Err(e),
        }
    }
}

/// `hipErrorNotInitialized` (3) and `hipErrorNotSupported` (801), the same in every HIP version.
const HIP_NOT_INITIALIZED: crate::hip_types::hipError_t = 3;
const HIP_NOT_SUPPORTED: crate::hip_types::hipError_t = 801;

// ------------------------------------------------------------ device choice (Runtime)

/// `cudaChooseDevice` → `hipChooseDevice` / `hipChooseDeviceR0600`: the wanted properties
/// rebuilt in the loaded HIP's `hipDeviceProp_t` layout (the fields it shares with CUDA 13's).
pub(crate) unsafe fn cudaChooseDevice(
    b: &HipBackend,
    device: *mut c_int,
    prop: *const cudaDeviceProp,
) -> cudaError_t {
    if device.is_null() || prop.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL from the caller.
    let p = unsafe { &*prop };
    if pre_r0600(b) {
        let f = hip_fn!(b, hipChooseDevice);
        let h = props_to_hip52(p);
        // SAFETY: `h` lives for the call; valid out-pointer.
        b.rt(unsafe { f(device, &h) })
    } else {
        let f = hip_fn!(b, hipChooseDeviceR0600);
        let h = props_to_r0600(p);
        // SAFETY: as above.
        b.rt(unsafe { f(device, &h) })
    }
}

// ------------------------------------------------------------ legacy properties (Driver)

/// `cuDeviceGetProperties` (deprecated `CUdevprop`): every field read as its device attribute
/// through `cuDeviceGetAttribute`'s translation.
pub(crate) unsafe fn cuDeviceGetProperties(
    b: &HipBackend,
    prop: *mut CUdevprop,
    dev: CUdevice,
) -> CUresult {
    use CUdevice_attribute as A;
    if prop.is_null() {
        return INVALID_VALUE;
    }
    let get = |a: A| -> Result<c_int, CUresult> {
        let mut v = 0;
        // SAFETY: valid out-pointer.
        let e = unsafe { cuDeviceGetAttribute(b, &mut v, a, dev) };
        if e == SUCCESS {
            Ok(v)
        } else {
            Err(e)
        }
    };
    let r = (|| {
        Ok::<CUdevprop, CUresult>(CUdevprop {
            maxThreadsPerBlock: get(A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            maxThreadsDim: [
                get(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                get(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                get(A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            maxGridSize: [
                get(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                get(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                get(A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            sharedMemPerBlock: get(A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK)?,
            totalConstantMemory: get(A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY)?,
            SIMDWidth: get(A::CU_DEVICE_ATTRIBUTE_WARP_SIZE)?,
            memPitch: get(A::CU_DEVICE_ATTRIBUTE_MAX_PITCH)?,
            regsPerBlock: get(A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK)?,
            clockRate: get(A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE)?,
            textureAlign: get(A::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT)?,
        })
    })();
    match r {
        Ok(p) => {
            // SAFETY: non-NULL.
            unsafe { *prop = p };
            SUCCESS
        }
        Err(e) => e,
    }
}

//! Device properties and attributes: CUDA 13's `cudaDeviceProp` filled field by field from
//! HIP's struct (HIP 5.2 layout, or `hipDeviceProp_tR0600` for HIP 6+), then from device
//! attributes for fields HIP's struct lacks; `cuDeviceGetAttribute`/`cudaDeviceGetAttribute`
//! answered by the rules of `conv/device_attr.rs` ([`Answers`]), which name each attribute's
//! source (HIP's attribute, HIP's device properties, another HIP query, or a value HIP's design
//! fixes, 0 for a capability HIP lacks).
//!
//! A `cudaDeviceProp` field neither HIP's struct nor an attribute rule provides stays zero:
//! `luid` and `luidDeviceNodeMask` before HIP 6 (and on HIP's NVIDIA platform), and the
//! texture/surface limits HIP 5.2's struct does not carry.

use super::support::{
    hip_fn, pre_r0600, table, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED, SUCCESS,
};
use crate::conv::device_attr::{self, Derived, Then};
use crate::conv::props::{props_to_hip52, props_to_r0600, DeviceFacts};
use crate::hip_types::{hipDeviceAttribute_t, hipDeviceProp_t, hipDeviceProp_tR0600, hipUUID};
use crate::HipBackend;
use anycuda_api::driver::{CUdevice, CUdevice_attribute, CUdevprop, CUresult};
use anycuda_api::runtime::{cudaDeviceAttr, cudaDeviceProp, cudaError_t};
use anycuda_api::CudaEnum;
use core::ffi::{c_int, c_uint};

type IntField = fn(&mut cudaDeviceProp) -> &mut c_int;
type UintField = fn(&mut cudaDeviceProp) -> &mut c_uint;
type SizeField = fn(&mut cudaDeviceProp) -> &mut usize;

use CUdevice_attribute as A;

/// `int` fields filled from their device attribute's answer when HIP's struct left them zero.
const FROM_ATTRIBUTES: &[(A, IntField)] = &[
    (A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT, |p| {
        &mut p.asyncEngineCount
    }),
    (A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING, |p| {
        &mut p.unifiedAddressing
    }),
    (A::CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED, |p| {
        &mut p.streamPrioritiesSupported
    }),
    (A::CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED, |p| {
        &mut p.globalL1CacheSupported
    }),
    (A::CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED, |p| {
        &mut p.localL1CacheSupported
    }),
    (
        A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
        |p| &mut p.regsPerMultiprocessor,
    ),
    (A::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID, |p| {
        &mut p.multiGpuBoardGroupID
    }),
    (A::CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED, |p| {
        &mut p.hostNativeAtomicSupported
    }),
    (A::CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED, |p| {
        &mut p.computePreemptionSupported
    }),
    (
        A::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM,
        |p| &mut p.canUseHostPointerForRegisteredMem,
    ),
    (A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR, |p| {
        &mut p.maxBlocksPerMultiProcessor
    }),
    (A::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE, |p| {
        &mut p.persistingL2CacheMaxSize
    }),
    (A::CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE, |p| {
        &mut p.accessPolicyMaxWindowSize
    }),
    (A::CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED, |p| {
        &mut p.hostRegisterSupported
    }),
    (A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, |p| {
        &mut p.memoryPoolsSupported
    }),
    (
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH,
        |p| &mut p.maxTexture1DMipmap,
    ),
    (A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH, |p| {
        &mut p.maxTextureCubemap
    }),
    (A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH, |p| {
        &mut p.maxSurface1D
    }),
    (A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH, |p| {
        &mut p.maxSurfaceCubemap
    }),
    (A::CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED, |p| {
        &mut p.ipcEventSupported
    }),
    (A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED, |p| {
        &mut p.gpuDirectRDMASupported
    }),
    (A::CU_DEVICE_ATTRIBUTE_NUMA_ID, |p| &mut p.deviceNumaId),
    (A::CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID, |p| &mut p.hostNumaId),
];

/// `unsigned int` fields filled the same way.
const UNSIGNED_FROM_ATTRIBUTES: &[(A, UintField)] = &[
    (A::CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES, |p| {
        &mut p.memoryPoolSupportedHandleTypes
    }),
    (A::CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID, |p| {
        &mut p.gpuPciDeviceID
    }),
];

/// `size_t` fields filled the same way.
const SIZED_FROM_ATTRIBUTES: &[(A, SizeField)] = &[
    (
        A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        |p| &mut p.sharedMemPerBlockOptin,
    ),
    (
        A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK,
        |p| &mut p.reservedSharedMemPerBlock,
    ),
    (A::CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT, |p| {
        &mut p.surfaceAlignment
    }),
];

/// Fills zero fields from their attributes' answers (see [`FROM_ATTRIBUTES`]); an attribute
/// without an answer leaves its field zero.
unsafe fn fill_from_attributes(a: &mut Answers<'_>, p: &mut cudaDeviceProp) {
    for (attr, field) in FROM_ATTRIBUTES {
        if *field(p) == 0 {
            // SAFETY: `get` passes HIP local pointers only.
            if let Ok(v) = unsafe { a.get(*attr) } {
                *field(p) = v;
            }
        }
    }
    for (attr, field) in UNSIGNED_FROM_ATTRIBUTES {
        if *field(p) == 0 {
            // SAFETY: `get` passes HIP local pointers only.
            if let Ok(v) = unsafe { a.get(*attr) } {
                *field(p) = v as c_uint;
            }
        }
    }
    for (attr, field) in SIZED_FROM_ATTRIBUTES {
        if *field(p) == 0 {
            // SAFETY: `get` passes HIP local pointers only.
            if let Ok(v) = unsafe { a.get(*attr) } {
                *field(p) = usize::try_from(v).unwrap_or(0);
            }
        }
    }
}

/// `cudaGetDeviceProperties` (CUDA 13 layout): HIP's struct for the loaded version converted
/// field by field (`hipGetDevicePropertiesR0600` on HIP 6+, else `hipGetDeviceProperties`; HIP's
/// NVIDIA platform has the 5.2 layout), zero fields completed from their device attributes'
/// answers (`conv/device_attr.rs`), and the UUID from `hipDeviceGetUuid` on HIP 5.2. Fields
/// neither provides stay zero (module docs).
pub(crate) unsafe fn cudaGetDeviceProperties(
    b: &HipBackend,
    prop: *mut cudaDeviceProp,
    device: c_int,
) -> cudaError_t {
    if prop.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if b.native_hip().is_none() {
        return super::support::unavailable(false);
    }
    // SAFETY: no pointers of the caller's.
    let facts = match unsafe { device_facts(b, device) } {
        Ok(f) => f,
        Err(e) => return b.rt(e),
    };
    let mut p = facts.p;
    if pre_r0600(b) {
        if let Some(uuid) = b.native_hip().and_then(|t| t.hipDeviceGetUuid) {
            // SAFETY: zeroed POD out-parameter.
            let mut u: hipUUID = unsafe { core::mem::zeroed() };
            // SAFETY: valid out-pointer.
            if unsafe { uuid(&mut u, device) } == HIP_SUCCESS {
                p.uuid.bytes = u.bytes;
            }
        }
    }
    // SAFETY: forwarded contract.
    unsafe { fill_from_attributes(&mut Answers::with_facts(b, device, facts), &mut p) };
    // SAFETY: checked non-NULL.
    unsafe { *prop = p };
    cudaError_t::cudaSuccess
}

/// `cuDeviceGetAttribute`: every attribute of CUDA's enum answered on a valid device, by the
/// rule `conv/device_attr.rs` gives it ([`Answers::get`]); a value that is no attribute is
/// `CUDA_ERROR_INVALID_VALUE`, a bad ordinal `CUDA_ERROR_INVALID_DEVICE`, as on NVIDIA's driver.
pub(crate) unsafe fn cuDeviceGetAttribute(
    b: &HipBackend,
    pi: *mut c_int,
    attrib: CUdevice_attribute,
    dev: CUdevice,
) -> CUresult {
    if pi.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: forwarded contract.
    match unsafe { Answers::new(b, dev).get(attrib) } {
        Ok(v) => {
            // SAFETY: checked non-NULL.
            unsafe { *pi = v };
            SUCCESS
        }
        Err(e) => e,
    }
}

/// `cudaDeviceGetAttribute`: the runtime's attributes below `cudaDevAttrMax` have the driver's
/// numbers and are answered as `cuDeviceGetAttribute` answers them; the HIP-only attributes
/// anycuda names (`cudaDevAttrHip*`) go to HIP through the `cudaDeviceAttr` table; anything else
/// (`cudaDevAttrMax` included) is `cudaErrorInvalidValue`.
pub(crate) unsafe fn cudaDeviceGetAttribute(
    b: &HipBackend,
    value: *mut c_int,
    attr: cudaDeviceAttr,
    device: c_int,
) -> cudaError_t {
    if value.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if (1..cudaDeviceAttr::cudaDevAttrMax.0).contains(&attr.0) {
        // SAFETY: forwarded contract.
        return match unsafe { Answers::new(b, device).get(CUdevice_attribute(attr.0)) } {
            Ok(v) => {
                // SAFETY: checked non-NULL.
                unsafe { *value = v };
                cudaError_t::cudaSuccess
            }
            Err(e) => crate::conv::driver_to_runtime(e),
        };
    }
    if anycuda_api::hallucinated::classify(attr.to_i64()).is_none() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let get = hip_fn!(b, hipDeviceGetAttribute);
    let Some(h) = b.conv().cudaDeviceAttr.to_hip(attr.to_i64()) else {
        return cudaError_t::cudaErrorNotSupported;
    };
    // SAFETY: checked non-NULL out-pointer.
    b.rt(unsafe { get(value, h as hipDeviceAttribute_t, device) })
}

/// One device's attribute answers, HIP's device properties read once, when a rule first needs
/// them (`cudaGetDeviceProperties` asks many attributes in a row).
pub(crate) struct Answers<'a> {
    b: &'a HipBackend,
    dev: CUdevice,
    facts: Option<DeviceFacts>,
    device_checked: bool,
}

impl<'a> Answers<'a> {
    /// Answers for device `dev` (not yet checked).
    pub(crate) fn new(b: &'a HipBackend, dev: CUdevice) -> Self {
        Self {
            b,
            dev,
            facts: None,
            device_checked: false,
        }
    }

    /// Answers for device `dev` whose properties were just read.
    fn with_facts(b: &'a HipBackend, dev: CUdevice, facts: DeviceFacts) -> Self {
        Self {
            b,
            dev,
            facts: Some(facts),
            device_checked: true,
        }
    }

    /// The answer to `attr` (`conv/device_attr.rs`): HIP's, when the rule asks HIP and HIP
    /// answers; else, once the ordinal is known to be valid, the rule's own.
    ///
    /// # Safety
    /// None beyond HIP's own: every pointer passed to HIP is local.
    pub(crate) unsafe fn get(&mut self, attr: CUdevice_attribute) -> Result<c_int, CUresult> {
        let Some(rule) = device_attr::rule(attr) else {
            return Err(INVALID_VALUE);
        };
        let t = table::<CUresult>(self.b)?;
        let mut hip_error = None;
        if rule.hip {
            if let (Some(h), Some(get)) = (
                self.b.conv().CUdevice_attribute.to_hip(attr.to_i64()),
                t.hipDeviceGetAttribute,
            ) {
                let mut v: c_int = 0;
                // SAFETY: valid out-pointer; HIP checks the ordinal.
                match unsafe { get(&mut v, h as hipDeviceAttribute_t, self.dev) } {
                    HIP_SUCCESS => return Ok(v),
                    e => hip_error = Some(e),
                }
            }
        }
        if let Then::HipAnswer = rule.then {
            return Err(hip_error.map_or(NOT_SUPPORTED, |e| self.b.cu(e)));
        }
        // SAFETY: no pointers of the caller's.
        unsafe { self.check_device() }?;
        Ok(match rule.then {
            // SAFETY: as above.
            Then::Prop(_, field) => field(unsafe { self.facts() }?),
            // SAFETY: as above.
            Then::Derived(d) => unsafe { self.derived(d) },
            Then::Known(v, _) => v,
            Then::Zero(_) | Then::HipAnswer => 0,
        })
    }

    /// `CUDA_ERROR_INVALID_DEVICE` unless `dev` is an ordinal HIP counts (NVIDIA's answer for
    /// a bad ordinal, and for any ordinal where there is no device).
    unsafe fn check_device(&mut self) -> Result<(), CUresult> {
        if self.device_checked {
            return Ok(());
        }
        let count = table::<CUresult>(self.b)?
            .hipGetDeviceCount
            .ok_or(NOT_SUPPORTED)?;
        let mut n: c_int = 0;
        // SAFETY: valid out-pointer.
        let e = unsafe { count(&mut n) };
        if e != HIP_SUCCESS || self.dev < 0 || self.dev >= n {
            return Err(CUresult::CUDA_ERROR_INVALID_DEVICE);
        }
        self.device_checked = true;
        Ok(())
    }

    /// HIP's device properties, read on first use.
    unsafe fn facts(&mut self) -> Result<&DeviceFacts, CUresult> {
        if self.facts.is_none() {
            // SAFETY: no pointers of the caller's.
            let f = unsafe { device_facts(self.b, self.dev) }.map_err(|e| self.b.cu(e))?;
            self.facts = Some(f);
        }
        Ok(self.facts.as_ref().expect("set above"))
    }

    /// A [`Derived`] answer; 0 where HIP does not answer the query it rests on.
    unsafe fn derived(&mut self, d: Derived) -> c_int {
        let b = self.b;
        let Some(t) = b.native_hip() else { return 0 };
        match d {
            Derived::StreamPriorities => {
                let Some(range) = t.hipDeviceGetStreamPriorityRange else {
                    return 0;
                };
                let (mut least, mut greatest) = (0, 0);
                // SAFETY: valid out-pointers.
                let e = unsafe { range(&mut least, &mut greatest) };
                c_int::from(e == HIP_SUCCESS && least != greatest)
            }
            Derived::StreamWaitValue => {
                // SAFETY: no pointers of the caller's.
                unsafe {
                    self.hip_only(
                        CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HIP_CAN_USE_STREAM_WAIT_VALUE,
                    )
                }
                .map_or(0, |v| c_int::from(v != 0))
            }
            Derived::PosixFdHandles => {
                if t.hipMemExportToShareableHandle.is_none()
                    || t.hipMemImportFromShareableHandle.is_none()
                {
                    return 0;
                }
                let vmm =
                    CUdevice_attribute::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED;
                // SAFETY: no pointers of the caller's.
                unsafe { self.get(vmm) }.map_or(0, |v| c_int::from(v != 0))
            }
            Derived::PoolHandleTypes => {
                // SAFETY: no pointers of the caller's.
                if let Ok(f) = unsafe { self.facts() } {
                    if f.p.memoryPoolSupportedHandleTypes != 0 || !pre_r0600(b) {
                        return f.p.memoryPoolSupportedHandleTypes as c_int;
                    }
                }
                pool_handle_types_probed(b, self.dev)
            }
            Derived::GpuPciDeviceId => {
                if super::support::nvidia(b) {
                    return 0;
                }
                // SAFETY: no pointers of the caller's.
                match unsafe {
                    self.hip_only(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_HIP_PCI_CHIP_ID)
                } {
                    Some(chip) if chip > 0 => ((chip & 0xffff) << 16) | AMD_PCI_VENDOR_ID,
                    _ => 0,
                }
            }
        }
    }

    /// A HIP-only attribute (named by anycuda's constant), if the loaded HIP answers it.
    unsafe fn hip_only(&self, attr: CUdevice_attribute) -> Option<c_int> {
        let h = self.b.conv().CUdevice_attribute.to_hip(attr.to_i64())?;
        let get = self.b.native_hip()?.hipDeviceGetAttribute?;
        let mut v: c_int = 0;
        // SAFETY: valid out-pointer.
        let e = unsafe { get(&mut v, h as hipDeviceAttribute_t, self.dev) };
        (e == HIP_SUCCESS).then_some(v)
    }
}

/// AMD's PCI vendor ID.
const AMD_PCI_VENDOR_ID: c_int = 0x1002;

/// HIP's device properties for the loaded layout, in CUDA's names ([`DeviceFacts`]).
unsafe fn device_facts(
    b: &HipBackend,
    dev: c_int,
) -> Result<DeviceFacts, crate::hip_types::hipError_t> {
    let t = b.native_hip().ok_or(HIP_NOT_INITIALIZED)?;
    if pre_r0600(b) {
        let get = t.hipGetDeviceProperties.ok_or(HIP_NOT_SUPPORTED)?;
        // SAFETY: zeroed POD filled by HIP.
        let mut h: hipDeviceProp_t = unsafe { core::mem::zeroed() };
        // SAFETY: valid out-pointer.
        match unsafe { get(&mut h, dev) } {
            HIP_SUCCESS => Ok(DeviceFacts::from_hip52(&h)),
            e => Err(e),
        }
    } else {
        let get = t.hipGetDevicePropertiesR0600.ok_or(HIP_NOT_SUPPORTED)?;
        // SAFETY: zeroed POD filled by HIP.
        let mut h: hipDeviceProp_tR0600 = unsafe { core::mem::zeroed() };
        // SAFETY: valid out-pointer.
        match unsafe { get(&mut h, dev) } {
            HIP_SUCCESS => Ok(DeviceFacts::from_r0600(&h)),
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

/// `cuDeviceGetName` → `hipDeviceGetName` through
/// `anycuda_api::arg_checks::device_get_name_with` (a NULL buffer or a length below 1 never
/// reaches HIP, whose NVIDIA platform passes them to NVIDIA's driver, which crashed on length 0;
/// the device is judged first).
pub(crate) unsafe fn cuDeviceGetName(
    b: &HipBackend,
    name: *mut core::ffi::c_char,
    len: c_int,
    dev: CUdevice,
) -> CUresult {
    let f = hip_fn!(b, hipDeviceGetName);
    anycuda_api::arg_checks::device_get_name_with(name, len, |name, len| {
        // SAFETY: `name` is writable for `len` bytes: the caller's (checked) or anycuda's own.
        b.cu(unsafe { f(name, len, dev as _) })
    })
}

/// The pool handle types of device `dev` where HIP's properties cannot say (HIP 5.x and its
/// NVIDIA platform): a pool with POSIX file-descriptor handles is created on the device through
/// this backend's `cuMemPoolCreate` (its layout rules) and destroyed; the answer is kept per
/// device for the process. `CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR` when HIP makes the pool,
/// else 0 (as without the pool API).
fn pool_handle_types_probed(b: &HipBackend, dev: CUdevice) -> c_int {
    use anycuda_api::driver::{
        CUmemAllocationHandleType, CUmemAllocationType, CUmemLocation, CUmemLocationType,
        CUmemPoolProps, CUmemoryPool,
    };
    use std::collections::HashMap;
    use std::sync::Mutex;
    static PROBED: Mutex<Option<HashMap<CUdevice, c_int>>> = Mutex::new(None);
    let mut g = PROBED.lock().unwrap_or_else(|p| p.into_inner());
    let known = g.get_or_insert_with(HashMap::new);
    if let Some(&v) = known.get(&dev) {
        return v;
    }
    let fd = CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    // SAFETY: plain data; all-zero is valid (no reserved bytes set).
    let mut props: CUmemPoolProps = unsafe { core::mem::zeroed() };
    props.allocType = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    props.handleTypes = fd;
    props.location = CUmemLocation::new(CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, dev);
    let mut pool: CUmemoryPool = core::ptr::null_mut();
    // SAFETY: valid out-pointer and properties for the call.
    let made = unsafe { super::memory::cuMemPoolCreate(b, &mut pool, &props) } == SUCCESS;
    if made {
        use anycuda_api::traits::Driver;
        // SAFETY: the pool just made, used by nothing else.
        let _ = unsafe { b.cuMemPoolDestroy(pool) };
    }
    let v = if made { fd.0 as c_int } else { 0 };
    known.insert(dev, v);
    v
}

//! How the HIP backend answers every CUDA device attribute: the one table ([`rule`]) behind
//! `cuDeviceGetAttribute`, `cudaDeviceGetAttribute` and the `cudaGetDeviceProperties` fields
//! HIP's struct leaves empty (the adaptation that runs it: `adapt/properties.rs`).
//!
//! NVIDIA's driver answers every attribute of its enum on a valid device, with 0 for a feature
//! the device lacks. So does this backend (design.md: derive the answer honestly where possible,
//! else 0 for a capability the device does not offer through HIP):
//!
//! 1. `hip`: HIP's attribute of the same meaning, through the loaded version's generated
//!    `CUdevice_attribute` table, when that table pairs one and HIP answers. HIP's NVIDIA
//!    platform answers only 45 attributes (its `hipDeviceGetAttribute` is a `switch` over
//!    them), and each HIP release pairs a different set, so the next step is needed even for
//!    paired attributes.
//! 2. `then`, once the device ordinal is known to be valid:
//!    - [`Then::Prop`]: a field of HIP's device properties (`hipGetDeviceProperties`, 5.2 or
//!      R0600 layout, read as [`DeviceFacts`]); 0 where the loaded layout lacks the field;
//!    - [`Then::Derived`]: another HIP query ([`Derived`]);
//!    - [`Then::Known`]: a value HIP's design fixes, with the reason;
//!    - [`Then::Zero`]: 0, the capability being absent on HIP, with the reason.
//!
//! The attributes anycuda invented for HIP-only attributes (`CU_DEVICE_ATTRIBUTE_HIP_*`) are
//! HIP's to answer ([`Then::HipAnswer`]): HIP's value or HIP's error. A value that is no
//! attribute (`CU_DEVICE_ATTRIBUTE_MAX` included) has no rule: `CUDA_ERROR_INVALID_VALUE`.
//!
//! The rules are listed attribute by attribute, with their sources, in docs/hip-conformance.md;
//! the unit tests check that every attribute of the pinned CUDA headers has a rule, so an
//! attribute a newer header adds fails them until it is classified here.

use super::props::DeviceFacts;
use anycuda_api::driver::CUdevice_attribute as A;
use anycuda_api::hallucinated;
use core::ffi::c_int;

/// How one attribute is answered (see the module docs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Rule {
    /// Ask HIP first, through the loaded version's `CUdevice_attribute` table.
    pub hip: bool,
    /// The answer when HIP has no such attribute or does not answer it.
    pub then: Then,
}

/// The answer after HIP's (see [`Rule`]).
#[derive(Clone, Copy)]
pub(crate) enum Then {
    /// HIP's own answer, its error included (the `CU_DEVICE_ATTRIBUTE_HIP_*` attributes).
    HipAnswer,
    /// A field of HIP's device properties, named by its source (CUDA's field name), 0 where the
    /// loaded HIP's struct lacks it.
    Prop(&'static str, fn(&DeviceFacts) -> c_int),
    /// Another HIP query.
    Derived(Derived),
    /// A value HIP's design fixes, and why.
    Known(c_int, &'static str),
    /// 0: the capability is absent on HIP, and why.
    Zero(&'static str),
}

impl core::fmt::Debug for Then {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Then::HipAnswer => f.write_str("HipAnswer"),
            Then::Prop(s, _) => write!(f, "Prop({s})"),
            Then::Derived(d) => write!(f, "Derived({d:?})"),
            Then::Known(v, _) => write!(f, "Known({v})"),
            Then::Zero(_) => f.write_str("Zero"),
        }
    }
}

/// Answers computed from another HIP query.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Derived {
    /// 1 when `hipDeviceGetStreamPriorityRange` reports more than one priority, else 0.
    StreamPriorities,
    /// HIP's own `hipDeviceAttributeCanUseStreamWaitValue` ("supports hipStreamWaitValue32
    /// and hipStreamWaitValue64"), which this backend serves `cuStreamWaitValue32/64` with,
    /// the NOR comparison included; 0 where HIP does not answer it.
    StreamWaitValue,
    /// 1 where HIP's virtual memory API can export POSIX file descriptors: the device supports
    /// it (`VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED`) and the loaded HIP has
    /// `hipMemExportToShareableHandle` and `hipMemImportFromShareableHandle` (on Linux, HIP's
    /// shareable handle is a file descriptor), else 0.
    PosixFdHandles,
    /// HIP's `memoryPoolSupportedHandleTypes` (HIP 6.0+ properties); where the properties lack
    /// the field (HIP 5.x, its NVIDIA platform) and the pool API exists, probed: a pool with
    /// POSIX file-descriptor handles created (and destroyed) on the device, once per process;
    /// `CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR` when HIP makes it, else 0.
    PoolHandleTypes,
    /// AMD: HIP's `hipDeviceAttributePciChipId` (the PCI device ID) in the high 16 bits and
    /// AMD's PCI vendor ID 0x1002 in the low 16, CUDA's layout; 0 where HIP does not answer it
    /// and on HIP's NVIDIA platform.
    GpuPciDeviceId,
}

impl Rule {
    /// The rule in words: where the answer comes from, and why for a constant.
    pub(crate) fn describe(&self) -> String {
        let then = match self.then {
            Then::HipAnswer => return "HIP's answer (a HIP-only attribute)".into(),
            Then::Prop(field, _) => format!("HIP's device properties: {field}"),
            Then::Derived(Derived::StreamPriorities) => {
                "derived: 1 when hipDeviceGetStreamPriorityRange gives more than one priority"
                    .into()
            }
            Then::Derived(Derived::StreamWaitValue) => {
                "derived: HIP's hipDeviceAttributeCanUseStreamWaitValue".into()
            }
            Then::Derived(Derived::PosixFdHandles) => {
                "derived: VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED where HIP has \
                 hipMemExportToShareableHandle and hipMemImportFromShareableHandle"
                    .into()
            }
            Then::Derived(Derived::PoolHandleTypes) => {
                "HIP's device properties: memoryPoolSupportedHandleTypes (HIP 6.0+); before, \
                 derived: a POSIX file-descriptor pool created on the device"
                    .into()
            }
            Then::Derived(Derived::GpuPciDeviceId) => {
                "derived (AMD): hipDeviceAttributePciChipId << 16 | 0x1002".into()
            }
            Then::Known(v, why) => format!("constant {v}: {why}"),
            Then::Zero(why) => format!("constant 0: {why}"),
        };
        if self.hip {
            format!("HIP's attribute; else {then}")
        } else {
            then
        }
    }
}

/// A `usize` property as an `int` attribute, saturating as NVIDIA's driver does (`MAX_PITCH`).
fn int(v: usize) -> c_int {
    c_int::try_from(v).unwrap_or(c_int::MAX)
}

/// `Rule { hip: true, then }`.
const fn hip(then: Then) -> Rule {
    Rule { hip: true, then }
}

/// `Rule { hip: false, then }`.
const fn own(then: Then) -> Rule {
    Rule { hip: false, then }
}

/// A property rule: `prop!("field", |f| expression)`.
macro_rules! prop {
    ($name:literal, $f:expr) => {
        Then::Prop($name, $f)
    };
}

/// Reasons shared by several attributes.
const CLUSTERS: &str = "HIP has no thread-block clusters";
const WIN32: &str = "no Win32 handles: the HIP backend runs on Linux";
const CIG: &str = "no CUDA-in-Graphics (D3D12/Vulkan) contexts on HIP";
const MEMOPS_V1: &str = "the v1 stream memory operations were removed in CUDA 12; HIP has none";
const NUMA_HOST: &str = "HIP has no host-NUMA memory locations (allocations, pools, IPC)";
const ENDPOINTS: &str = "HIP has no logical endpoints";
const UNREPORTED: &str = "this HIP reports no such capability (HIP releases that do are asked \
    first)";

/// The rule for `attr`: `None` for a value that is no attribute (`CUDA_ERROR_INVALID_VALUE`).
pub(crate) fn rule(attr: A) -> Option<Rule> {
    let r = match attr {
        A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK => {
            hip(prop!("maxThreadsPerBlock", |f| f.p.maxThreadsPerBlock))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X => {
            hip(prop!("maxThreadsDim[0]", |f| f.p.maxThreadsDim[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y => {
            hip(prop!("maxThreadsDim[1]", |f| f.p.maxThreadsDim[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z => {
            hip(prop!("maxThreadsDim[2]", |f| f.p.maxThreadsDim[2]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X => {
            hip(prop!("maxGridSize[0]", |f| f.p.maxGridSize[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y => {
            hip(prop!("maxGridSize[1]", |f| f.p.maxGridSize[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z => {
            hip(prop!("maxGridSize[2]", |f| f.p.maxGridSize[2]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK => {
            hip(prop!("sharedMemPerBlock", |f| int(f.p.sharedMemPerBlock)))
        }
        A::CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY => {
            hip(prop!("totalConstMem", |f| int(f.p.totalConstMem)))
        }
        A::CU_DEVICE_ATTRIBUTE_WARP_SIZE => hip(prop!("warpSize", |f| f.p.warpSize)),
        A::CU_DEVICE_ATTRIBUTE_MAX_PITCH => hip(prop!("memPitch", |f| int(f.p.memPitch))),
        A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK => {
            hip(prop!("regsPerBlock", |f| f.p.regsPerBlock))
        }
        A::CU_DEVICE_ATTRIBUTE_CLOCK_RATE => hip(prop!("clockRate", |f| f.clock_rate)),
        A::CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT => {
            hip(prop!("textureAlignment", |f| int(f.p.textureAlignment)))
        }
        A::CU_DEVICE_ATTRIBUTE_GPU_OVERLAP => {
            hip(prop!("deviceOverlap, else asyncEngineCount > 0", |f| {
                c_int::from(f.device_overlap != 0 || f.p.asyncEngineCount > 0)
            }))
        }
        A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT => {
            hip(prop!("multiProcessorCount", |f| f.p.multiProcessorCount))
        }
        A::CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT => {
            hip(prop!("kernelExecTimeoutEnabled", |f| f.kernel_exec_timeout))
        }
        A::CU_DEVICE_ATTRIBUTE_INTEGRATED => hip(prop!("integrated", |f| f.p.integrated)),
        A::CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY => {
            hip(prop!("canMapHostMemory", |f| f.p.canMapHostMemory))
        }
        A::CU_DEVICE_ATTRIBUTE_COMPUTE_MODE => hip(prop!("computeMode", |f| f.compute_mode)),
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_WIDTH => {
            hip(prop!("maxTexture1D", |f| f.p.maxTexture1D))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_WIDTH => {
            hip(prop!("maxTexture2D[0]", |f| f.p.maxTexture2D[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_HEIGHT => {
            hip(prop!("maxTexture2D[1]", |f| f.p.maxTexture2D[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH => {
            hip(prop!("maxTexture3D[0]", |f| f.p.maxTexture3D[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT => {
            hip(prop!("maxTexture3D[1]", |f| f.p.maxTexture3D[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH => {
            hip(prop!("maxTexture3D[2]", |f| f.p.maxTexture3D[2]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_WIDTH => {
            own(prop!("maxTexture2DLayered[0]", |f| f.p.maxTexture2DLayered[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_HEIGHT => {
            own(prop!("maxTexture2DLayered[1]", |f| f.p.maxTexture2DLayered[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LAYERED_LAYERS => {
            own(prop!("maxTexture2DLayered[2]", |f| f.p.maxTexture2DLayered[2]))
        }
        A::CU_DEVICE_ATTRIBUTE_SURFACE_ALIGNMENT => {
            hip(prop!("surfaceAlignment", |f| int(f.p.surfaceAlignment)))
        }
        A::CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS => {
            hip(prop!("concurrentKernels", |f| f.p.concurrentKernels))
        }
        A::CU_DEVICE_ATTRIBUTE_ECC_ENABLED => hip(prop!("ECCEnabled", |f| f.p.ECCEnabled)),
        A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID => hip(prop!("pciBusID", |f| f.p.pciBusID)),
        A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID => hip(prop!("pciDeviceID", |f| f.p.pciDeviceID)),
        A::CU_DEVICE_ATTRIBUTE_TCC_DRIVER => hip(prop!("tccDriver", |f| f.p.tccDriver)),
        A::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE => {
            hip(prop!("memoryClockRate", |f| f.memory_clock_rate))
        }
        A::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH => {
            hip(prop!("memoryBusWidth", |f| f.p.memoryBusWidth))
        }
        A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE => hip(prop!("l2CacheSize", |f| f.p.l2CacheSize)),
        A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR => {
            hip(prop!("maxThreadsPerMultiProcessor", |f| f
                .p
                .maxThreadsPerMultiProcessor))
        }
        A::CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT => {
            hip(prop!("asyncEngineCount", |f| f.p.asyncEngineCount))
        }
        A::CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING => hip(Then::Known(
            if cfg!(target_pointer_width = "64") {
                1
            } else {
                0
            },
            "HIP, like CUDA since 4.0, shares one address space between host and devices on \
             every 64-bit platform (HIP's NVIDIA platform does not answer the attribute)",
        )),
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_WIDTH => {
            own(prop!("maxTexture1DLayered[0]", |f| f.p.maxTexture1DLayered[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LAYERED_LAYERS => {
            own(prop!("maxTexture1DLayered[1]", |f| f.p.maxTexture1DLayered[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_CAN_TEX2D_GATHER => {
            own(prop!("maxTexture2DGather[0] > 0", |f| c_int::from(
                f.p.maxTexture2DGather[0] > 0
            )))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_WIDTH => {
            own(prop!("maxTexture2DGather[0]", |f| f.p.maxTexture2DGather[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_GATHER_HEIGHT => {
            own(prop!("maxTexture2DGather[1]", |f| f.p.maxTexture2DGather[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_WIDTH_ALTERNATE => {
            own(prop!("maxTexture3DAlt[0]", |f| f.p.maxTexture3DAlt[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_HEIGHT_ALTERNATE => {
            own(prop!("maxTexture3DAlt[1]", |f| f.p.maxTexture3DAlt[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE3D_DEPTH_ALTERNATE => {
            own(prop!("maxTexture3DAlt[2]", |f| f.p.maxTexture3DAlt[2]))
        }
        A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID => hip(prop!("pciDomainID", |f| f.p.pciDomainID)),
        A::CU_DEVICE_ATTRIBUTE_TEXTURE_PITCH_ALIGNMENT => {
            hip(prop!("texturePitchAlignment", |f| int(f
                .p
                .texturePitchAlignment)))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_WIDTH => {
            hip(prop!("maxTextureCubemap", |f| f.p.maxTextureCubemap))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_WIDTH => {
            own(prop!("maxTextureCubemapLayered[0]", |f| f
                .p
                .maxTextureCubemapLayered[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURECUBEMAP_LAYERED_LAYERS => {
            own(prop!("maxTextureCubemapLayered[1]", |f| f
                .p
                .maxTextureCubemapLayered[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_WIDTH => {
            hip(prop!("maxSurface1D", |f| f.p.maxSurface1D))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_WIDTH => {
            own(prop!("maxSurface2D[0]", |f| f.p.maxSurface2D[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_HEIGHT => {
            own(prop!("maxSurface2D[1]", |f| f.p.maxSurface2D[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_WIDTH => {
            own(prop!("maxSurface3D[0]", |f| f.p.maxSurface3D[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_HEIGHT => {
            own(prop!("maxSurface3D[1]", |f| f.p.maxSurface3D[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE3D_DEPTH => {
            own(prop!("maxSurface3D[2]", |f| f.p.maxSurface3D[2]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_WIDTH => {
            own(prop!("maxSurface1DLayered[0]", |f| f.p.maxSurface1DLayered[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE1D_LAYERED_LAYERS => {
            own(prop!("maxSurface1DLayered[1]", |f| f.p.maxSurface1DLayered[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_WIDTH => {
            own(prop!("maxSurface2DLayered[0]", |f| f.p.maxSurface2DLayered[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_HEIGHT => {
            own(prop!("maxSurface2DLayered[1]", |f| f.p.maxSurface2DLayered[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACE2D_LAYERED_LAYERS => {
            own(prop!("maxSurface2DLayered[2]", |f| f.p.maxSurface2DLayered[2]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_WIDTH => {
            hip(prop!("maxSurfaceCubemap", |f| f.p.maxSurfaceCubemap))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_WIDTH => {
            own(prop!("maxSurfaceCubemapLayered[0]", |f| f
                .p
                .maxSurfaceCubemapLayered[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_SURFACECUBEMAP_LAYERED_LAYERS => {
            own(prop!("maxSurfaceCubemapLayered[1]", |f| f
                .p
                .maxSurfaceCubemapLayered[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_LINEAR_WIDTH => {
            hip(prop!("maxTexture1DLinear", |f| f.max_texture_1d_linear))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_WIDTH => {
            own(prop!("maxTexture2DLinear[0]", |f| f.p.maxTexture2DLinear[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_HEIGHT => {
            own(prop!("maxTexture2DLinear[1]", |f| f.p.maxTexture2DLinear[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_LINEAR_PITCH => {
            own(prop!("maxTexture2DLinear[2]", |f| f.p.maxTexture2DLinear[2]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_WIDTH => {
            own(prop!("maxTexture2DMipmap[0]", |f| f.p.maxTexture2DMipmap[0]))
        }
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE2D_MIPMAPPED_HEIGHT => {
            own(prop!("maxTexture2DMipmap[1]", |f| f.p.maxTexture2DMipmap[1]))
        }
        A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR => hip(prop!("major", |f| f.p.major)),
        A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR => hip(prop!("minor", |f| f.p.minor)),
        A::CU_DEVICE_ATTRIBUTE_MAXIMUM_TEXTURE1D_MIPMAPPED_WIDTH => {
            hip(prop!("maxTexture1DMipmap", |f| f.p.maxTexture1DMipmap))
        }
        A::CU_DEVICE_ATTRIBUTE_STREAM_PRIORITIES_SUPPORTED => {
            hip(Then::Derived(Derived::StreamPriorities))
        }
        A::CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED => {
            hip(prop!("globalL1CacheSupported", |f| f
                .p
                .globalL1CacheSupported))
        }
        A::CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED => {
            hip(prop!("localL1CacheSupported", |f| f
                .p
                .localL1CacheSupported))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR => {
            hip(prop!("sharedMemPerMultiprocessor", |f| int(f
                .p
                .sharedMemPerMultiprocessor)))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR => {
            hip(prop!("regsPerMultiprocessor", |f| f
                .p
                .regsPerMultiprocessor))
        }
        A::CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY => hip(prop!("managedMemory", |f| f.p.managedMemory)),
        A::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD => {
            hip(prop!("isMultiGpuBoard", |f| f.p.isMultiGpuBoard))
        }
        A::CU_DEVICE_ATTRIBUTE_MULTI_GPU_BOARD_GROUP_ID => {
            hip(prop!("multiGpuBoardGroupID", |f| f.p.multiGpuBoardGroupID))
        }
        A::CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED => {
            hip(prop!("hostNativeAtomicSupported", |f| f
                .p
                .hostNativeAtomicSupported))
        }
        A::CU_DEVICE_ATTRIBUTE_SINGLE_TO_DOUBLE_PRECISION_PERF_RATIO => {
            hip(prop!("singleToDoublePrecisionPerfRatio", |f| f
                .single_to_double_perf_ratio))
        }
        A::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS => {
            hip(prop!("pageableMemoryAccess", |f| f.p.pageableMemoryAccess))
        }
        A::CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS => {
            hip(prop!("concurrentManagedAccess", |f| f
                .p
                .concurrentManagedAccess))
        }
        A::CU_DEVICE_ATTRIBUTE_COMPUTE_PREEMPTION_SUPPORTED => {
            hip(prop!("computePreemptionSupported", |f| f
                .p
                .computePreemptionSupported))
        }
        A::CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM => {
            hip(prop!("canUseHostPointerForRegisteredMem", |f| f
                .p
                .canUseHostPointerForRegisteredMem))
        }
        A::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_MEM_OPS_V1
        | A::CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS_V1
        | A::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR_V1 => own(Then::Zero(MEMOPS_V1)),
        A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH => {
            hip(prop!("cooperativeLaunch", |f| f.p.cooperativeLaunch))
        }
        A::CU_DEVICE_ATTRIBUTE_COOPERATIVE_MULTI_DEVICE_LAUNCH => {
            hip(prop!("cooperativeMultiDeviceLaunch", |f| f
                .cooperative_multi_device_launch))
        }
        // Without opting in a kernel may use the per-block maximum, so that is the least the
        // opt-in maximum can be; AMD has no opt-in (every kernel may use the whole LDS), and
        // this backend refuses the opt-in on HIP's NVIDIA platform (`cuFuncSetAttribute`).
        A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN => hip(prop!(
            "sharedMemPerBlockOptin, else sharedMemPerBlock",
            |f| if f.p.sharedMemPerBlockOptin != 0 {
                int(f.p.sharedMemPerBlockOptin)
            } else {
                int(f.p.sharedMemPerBlock)
            }
        )),
        A::CU_DEVICE_ATTRIBUTE_CAN_FLUSH_REMOTE_WRITES => own(Then::Zero(
            "HIP has no flush-remote-writes memory operation (CU_STREAM_WAIT_VALUE_FLUSH is \
             refused)",
        )),
        A::CU_DEVICE_ATTRIBUTE_HOST_REGISTER_SUPPORTED => hip(Then::Known(
            1,
            "hipHostRegister is in every HIP release, AMD's and the NVIDIA platform's (HIP 6+ \
             answers the attribute itself)",
        )),
        A::CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS_USES_HOST_PAGE_TABLES => {
            hip(prop!("pageableMemoryAccessUsesHostPageTables", |f| f
                .p
                .pageableMemoryAccessUsesHostPageTables))
        }
        A::CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST => {
            hip(prop!("directManagedMemAccessFromHost", |f| f
                .p
                .directManagedMemAccessFromHost))
        }
        A::CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED => hip(Then::Zero(UNREPORTED)),
        A::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED => {
            own(Then::Derived(Derived::PosixFdHandles))
        }
        A::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_HANDLE_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_WIN32_KMT_HANDLE_SUPPORTED => own(Then::Zero(WIN32)),
        A::CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR => {
            hip(prop!("maxBlocksPerMultiProcessor", |f| f
                .p
                .maxBlocksPerMultiProcessor))
        }
        A::CU_DEVICE_ATTRIBUTE_GENERIC_COMPRESSION_SUPPORTED => {
            own(Then::Zero("HIP has no compressible memory allocations"))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE => {
            hip(prop!("persistingL2CacheMaxSize", |f| f
                .p
                .persistingL2CacheMaxSize))
        }
        A::CU_DEVICE_ATTRIBUTE_MAX_ACCESS_POLICY_WINDOW_SIZE => {
            hip(prop!("accessPolicyMaxWindowSize", |f| f
                .p
                .accessPolicyMaxWindowSize))
        }
        A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_CUDA_VMM_SUPPORTED => {
            hip(Then::Zero(UNREPORTED))
        }
        A::CU_DEVICE_ATTRIBUTE_RESERVED_SHARED_MEMORY_PER_BLOCK => {
            hip(prop!("reservedSharedMemPerBlock", |f| int(f
                .p
                .reservedSharedMemPerBlock)))
        }
        A::CU_DEVICE_ATTRIBUTE_SPARSE_CUDA_ARRAY_SUPPORTED => {
            own(prop!("sparseCudaArraySupported", |f| f
                .p
                .sparseCudaArraySupported))
        }
        A::CU_DEVICE_ATTRIBUTE_READ_ONLY_HOST_REGISTER_SUPPORTED => {
            own(prop!("hostRegisterReadOnlySupported", |f| f
                .p
                .hostRegisterReadOnlySupported))
        }
        A::CU_DEVICE_ATTRIBUTE_TIMELINE_SEMAPHORE_INTEROP_SUPPORTED => {
            own(prop!("timelineSemaphoreInteropSupported", |f| f
                .p
                .timelineSemaphoreInteropSupported))
        }
        A::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED => {
            hip(prop!("memoryPoolsSupported", |f| f.p.memoryPoolsSupported))
        }
        A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_SUPPORTED => {
            own(prop!("gpuDirectRDMASupported", |f| f
                .p
                .gpuDirectRDMASupported))
        }
        A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_FLUSH_WRITES_OPTIONS => own(prop!(
            "gpuDirectRDMAFlushWritesOptions",
            |f| f.p.gpuDirectRDMAFlushWritesOptions as c_int
        )),
        A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WRITES_ORDERING => {
            own(prop!("gpuDirectRDMAWritesOrdering", |f| f
                .p
                .gpuDirectRDMAWritesOrdering))
        }
        A::CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES => {
            hip(Then::Derived(Derived::PoolHandleTypes))
        }
        A::CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH => own(Then::Zero(CLUSTERS)),
        A::CU_DEVICE_ATTRIBUTE_DEFERRED_MAPPING_CUDA_ARRAY_SUPPORTED => {
            own(prop!("deferredMappingCudaArraySupported", |f| f
                .p
                .deferredMappingCudaArraySupported))
        }
        A::CU_DEVICE_ATTRIBUTE_CAN_USE_64_BIT_STREAM_MEM_OPS
        | A::CU_DEVICE_ATTRIBUTE_CAN_USE_STREAM_WAIT_VALUE_NOR => {
            own(Then::Derived(Derived::StreamWaitValue))
        }
        A::CU_DEVICE_ATTRIBUTE_DMA_BUF_SUPPORTED => hip(Then::Zero(UNREPORTED)),
        A::CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED => {
            own(prop!("ipcEventSupported", |f| f.p.ipcEventSupported))
        }
        A::CU_DEVICE_ATTRIBUTE_MEM_SYNC_DOMAIN_COUNT => own(Then::Known(
            1,
            "HIP has no memory synchronization domains: the one default domain, the count CUDA \
             reports on devices before Hopper",
        )),
        A::CU_DEVICE_ATTRIBUTE_TENSOR_MAP_ACCESS_SUPPORTED => {
            own(Then::Zero("HIP has no tensor maps (cuTensorMapEncode*)"))
        }
        A::CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_FABRIC_SUPPORTED => hip(Then::Zero(UNREPORTED)),
        A::CU_DEVICE_ATTRIBUTE_UNIFIED_FUNCTION_POINTERS => {
            own(prop!("unifiedFunctionPointers", |f| f
                .p
                .unifiedFunctionPointers))
        }
        A::CU_DEVICE_ATTRIBUTE_NUMA_CONFIG => own(Then::Zero(
            "CU_DEVICE_NUMA_CONFIG_NONE: HIP reports no NUMA node for device memory",
        )),
        A::CU_DEVICE_ATTRIBUTE_NUMA_ID => own(Then::Known(
            -1,
            "no NUMA node for device memory (NUMA_CONFIG is NONE), CUDA's -1",
        )),
        A::CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED => {
            own(Then::Zero("HIP has no multicast objects (cuMulticast*)"))
        }
        A::CU_DEVICE_ATTRIBUTE_MPS_ENABLED => own(Then::Zero("no CUDA MPS on HIP")),
        A::CU_DEVICE_ATTRIBUTE_HOST_NUMA_ID => hip(Then::Known(
            -1,
            "this HIP reports no host NUMA node: CUDA's -1 for \"does not support NUMA\" (HIP \
             releases that report one are asked first)",
        )),
        A::CU_DEVICE_ATTRIBUTE_D3D12_CIG_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_VULKAN_CIG_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_D3D12_CIG_STREAMS_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_VULKAN_CIG_STREAMS_SUPPORTED => own(Then::Zero(CIG)),
        A::CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_ALGORITHM_MASK
        | A::CU_DEVICE_ATTRIBUTE_MEM_DECOMPRESS_MAXIMUM_LENGTH => {
            own(Then::Zero("HIP has no memory decompression engine API"))
        }
        A::CU_DEVICE_ATTRIBUTE_GPU_PCI_DEVICE_ID => own(Then::Derived(Derived::GpuPciDeviceId)),
        A::CU_DEVICE_ATTRIBUTE_GPU_PCI_SUBSYSTEM_ID => {
            own(Then::Zero("HIP reports no PCI subsystem ID"))
        }
        A::CU_DEVICE_ATTRIBUTE_HOST_NUMA_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_HOST_NUMA_MEMORY_POOLS_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_HOST_NUMA_MULTINODE_IPC_SUPPORTED => own(Then::Zero(NUMA_HOST)),
        A::CU_DEVICE_ATTRIBUTE_HOST_MEMORY_POOLS_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_HOST_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED => own(Then::Zero(
            "HIP's memory pools and virtual memory API take device locations only",
        )),
        A::CU_DEVICE_ATTRIBUTE_HOST_ALLOC_DMA_BUF_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_DMA_BUF_MMAP_SUPPORTED => own(Then::Zero(
            "HIP exports no dma_buf for host or mapped memory",
        )),
        A::CU_DEVICE_ATTRIBUTE_ONLY_PARTIAL_HOST_NATIVE_ATOMIC_SUPPORTED => own(Then::Zero(
            "HIP reports host atomics as all or nothing (HOST_NATIVE_ATOMIC_SUPPORTED)",
        )),
        A::CU_DEVICE_ATTRIBUTE_ATOMIC_REDUCTION_SUPPORTED => own(Then::Zero(
            "HIP has no atomic reductions in batched stream memory operations",
        )),
        A::CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_COUNT => own(Then::Known(
            1,
            "HIP has no locality domains: the whole device is one",
        )),
        A::CU_DEVICE_ATTRIBUTE_MAX_OVERSIZED_SHARED_MEMORY_PER_BLOCK => own(Then::Zero(
            "HIP has no oversized shared-memory configurations",
        )),
        A::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_MULTICAST_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_COUNTED_OPS_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_UNICAST_ACCESS_ON_OWNER_DEVICE_SUPPORTED
        | A::CU_DEVICE_ATTRIBUTE_LOGICAL_ENDPOINT_SUPPORTED_HANDLE_TYPES => {
            own(Then::Zero(ENDPOINTS))
        }
        // One locality domain (above): all the multiprocessors.
        A::CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT => {
            own(prop!("multiProcessorCount (one locality domain)", |f| f
                .p
                .multiProcessorCount))
        }
        A::CU_DEVICE_ATTRIBUTE_TENSOR_MAP_LARGE_TENSOR_MIN_SIZE => own(Then::Known(
            c_int::MAX,
            "INT_MAX, CUDA's answer where tensor-map allocation-class selection is a no-op \
             (HIP has no tensor maps)",
        )),
        A::CU_DEVICE_ATTRIBUTE_GPU_DIRECT_RDMA_WITH_LOCALIZED_MEMORY_SUPPORTED => {
            own(Then::Zero("HIP has no localized memory"))
        }
        // anycuda's names for HIP-only attributes: HIP's answer, whatever it is.
        other if hallucinated::classify(other.0.into()).is_some() => Rule {
            hip: true,
            then: Then::HipAnswer,
        },
        _ => return None,
    };
    Some(r)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conv::{HIP_VERSIONS, NVIDIA_PLATFORM, TABLES};
    use anycuda_api::enums::Origin;
    use anycuda_api::CudaEnum;

    /// Every attribute the pinned CUDA headers declare (the count sentinel aside).
    fn cuda_attributes() -> impl Iterator<Item = (&'static str, A)> {
        A::CONSTANTS
            .iter()
            .filter(|c| c.origin == Origin::Cuda && c.name != "CU_DEVICE_ATTRIBUTE_MAX")
            .map(|c| (c.name, A::from_i64(c.value)))
    }

    #[test]
    fn every_cuda_attribute_is_classified() {
        let mut n = 0;
        for (name, a) in cuda_attributes() {
            let r = rule(a).unwrap_or_else(|| {
                panic!("{name} has no rule in conv/device_attr.rs: classify it (and document it in docs/hip-conformance.md)")
            });
            assert!(
                !matches!(r.then, Then::HipAnswer),
                "{name}: a CUDA attribute needs an answer of its own when HIP gives none"
            );
            n += 1;
        }
        // 161 attributes in CUDA 13.5, and their aliases.
        assert!(n >= 161, "{n}");
    }

    /// `cudaDeviceGetAttribute` answers every value below `cudaDevAttrMax` with the driver's
    /// rule for the same number: each is a driver attribute, and the runtime's names agree.
    #[test]
    fn runtime_attributes_below_the_sentinel_are_driver_attributes() {
        use anycuda_api::runtime::cudaDeviceAttr as R;
        let max = R::cudaDevAttrMax.0;
        for v in 1..max {
            let r = rule(A(v)).unwrap_or_else(|| panic!("runtime value {v} has no rule"));
            assert!(!matches!(r.then, Then::HipAnswer), "{v}");
        }
        for c in R::CONSTANTS.iter().filter(|c| c.origin == Origin::Cuda) {
            if c.name == "cudaDevAttrMax" {
                continue;
            }
            assert!(
                (1..i64::from(max)).contains(&c.value),
                "{} = {}",
                c.name,
                c.value
            );
            assert!(A::from_i64(c.value).name().is_some(), "{}", c.name);
        }
    }

    #[test]
    fn the_sentinel_and_non_attributes_have_no_rule() {
        for v in [0, A::CU_DEVICE_ATTRIBUTE_MAX.0, 99_999, 0x3fff_ffff] {
            assert!(rule(A(v)).is_none(), "{v}");
        }
    }

    #[test]
    fn hip_only_attributes_are_hips_to_answer() {
        let mut n = 0;
        for c in A::CONSTANTS
            .iter()
            .filter(|c| matches!(c.origin, Origin::Hallucinated { .. }))
        {
            let r = rule(A::from_i64(c.value)).expect(c.name);
            assert!(r.hip && matches!(r.then, Then::HipAnswer), "{}", c.name);
            n += 1;
        }
        assert!(n > 0);
    }

    /// HIP is asked exactly for the attributes some supported HIP version pairs: none that a
    /// HIP release answers is answered by a rule instead, and no rule asks HIP in vain.
    #[test]
    fn hip_is_asked_where_some_release_pairs_the_attribute() {
        let tables: Vec<_> = TABLES.iter().chain([&NVIDIA_PLATFORM]).collect();
        assert_eq!(TABLES.len(), HIP_VERSIONS.len());
        for (name, a) in cuda_attributes() {
            let paired = tables
                .iter()
                .any(|t| t.CUdevice_attribute.to_hip(a.to_i64()).is_some());
            let r = rule(a).expect(name);
            assert_eq!(r.hip, paired, "{name}: hip flag vs the generated tables");
        }
    }

    #[test]
    fn zero_and_known_answers_carry_a_reason() {
        for (name, a) in cuda_attributes() {
            match rule(a).expect(name).then {
                Then::Zero(why) | Then::Known(_, why) => assert!(why.len() > 10, "{name}"),
                Then::Prop(src, _) => assert!(!src.is_empty(), "{name}"),
                Then::Derived(_) | Then::HipAnswer => {}
            }
        }
    }

    #[test]
    fn property_rules_read_the_facts() {
        // SAFETY: plain data; all-zero is valid.
        let mut f: DeviceFacts = unsafe { core::mem::zeroed() };
        f.p.maxThreadsPerBlock = 1024;
        f.p.sharedMemPerBlock = 65536;
        f.p.memPitch = usize::MAX;
        f.p.multiProcessorCount = 104;
        let get = |f: &DeviceFacts, a: A| match rule(a).unwrap().then {
            Then::Prop(_, p) => p(f),
            other => panic!("{a:?}: {other:?}"),
        };
        assert_eq!(get(&f, A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK), 1024);
        assert_eq!(get(&f, A::CU_DEVICE_ATTRIBUTE_MAX_PITCH), c_int::MAX);
        // No opt-in reported: the per-block maximum.
        assert_eq!(
            get(&f, A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN),
            65536
        );
        assert_eq!(get(&f, A::CU_DEVICE_ATTRIBUTE_GPU_OVERLAP), 0);
        f.p.asyncEngineCount = 2;
        assert_eq!(get(&f, A::CU_DEVICE_ATTRIBUTE_GPU_OVERLAP), 1);
        assert_eq!(
            get(
                &f,
                A::CU_DEVICE_ATTRIBUTE_LOCALITY_DOMAIN_MULTIPROCESSOR_COUNT
            ),
            104
        );
    }
}

//! Device properties: CUDA 13's `cudaDeviceProp` from HIP's struct (HIP 5.2 layout, or
//! `hipDeviceProp_tR0600` for HIP 6+) and back (for `hipChooseDevice`), and [`DeviceFacts`],
//! what the device attribute rules (`device_attr`) read from HIP's struct.

use crate::hip_types::{hipDeviceProp_t, hipDeviceProp_tR0600};
use anycuda_api::runtime::cudaDeviceProp;
use core::ffi::c_int;

/// Copies same-named fields.
macro_rules! copy_fields {
    ($d:ident <- $s:ident: $($f:ident),* $(,)?) => { $( $d.$f = $s.$f; )* };
}
pub(crate) use copy_fields;

/// The fields CUDA's `cudaDeviceProp` and HIP 5.2's `hipDeviceProp_t` share by name and
/// meaning, copied in either direction (`cudaGetDeviceProperties`, `cudaChooseDevice`).
macro_rules! hip52_shared_fields {
    ($d:ident <- $s:ident) => {
        $crate::conv::props::copy_fields!($d <- $s:
        name, totalGlobalMem, sharedMemPerBlock, regsPerBlock, warpSize, maxThreadsPerBlock,
        maxThreadsDim, maxGridSize, memoryBusWidth, totalConstMem, major, minor,
        multiProcessorCount, l2CacheSize, maxThreadsPerMultiProcessor, concurrentKernels,
        pciDomainID, pciBusID, pciDeviceID, isMultiGpuBoard, canMapHostMemory, integrated,
        cooperativeLaunch, maxTexture1D, maxTexture2D, maxTexture3D, memPitch,
        textureAlignment, texturePitchAlignment, ECCEnabled, tccDriver, managedMemory,
        directManagedMemAccessFromHost, concurrentManagedAccess, pageableMemoryAccess,
        pageableMemoryAccessUsesHostPageTables,
        )
    };
}

/// `cudaDeviceProp` from HIP 5.2's `hipDeviceProp_t` (the fields it has; the rest zero).
pub(crate) fn props_from_hip52(h: &hipDeviceProp_t) -> cudaDeviceProp {
    // SAFETY: cudaDeviceProp is plain data; all-zero is valid.
    let mut p: cudaDeviceProp = unsafe { core::mem::zeroed() };
    hip52_shared_fields!(p <- h);
    p.sharedMemPerMultiprocessor = h.maxSharedMemoryPerMultiProcessor;
    p
}

/// `cudaDeviceProp` from HIP 6+'s `hipDeviceProp_tR0600` (CUDA's own field set, nearly).
pub(crate) fn props_from_r0600(h: &hipDeviceProp_tR0600) -> cudaDeviceProp {
    // SAFETY: cudaDeviceProp is plain data; all-zero is valid.
    let mut p: cudaDeviceProp = unsafe { core::mem::zeroed() };
    copy_fields!(p <- h:
        name, luid, luidDeviceNodeMask, totalGlobalMem, sharedMemPerBlock, regsPerBlock,
        warpSize, memPitch, maxThreadsPerBlock, maxThreadsDim, maxGridSize, totalConstMem, major,
        minor, textureAlignment, texturePitchAlignment, multiProcessorCount, integrated,
        canMapHostMemory, maxTexture1D, maxTexture1DMipmap, maxTexture2D, maxTexture2DMipmap,
        maxTexture2DLinear, maxTexture2DGather, maxTexture3D, maxTexture3DAlt, maxTextureCubemap,
        maxTexture1DLayered, maxTexture2DLayered, maxTextureCubemapLayered, maxSurface1D,
        maxSurface2D, maxSurface3D, maxSurface1DLayered, maxSurface2DLayered, maxSurfaceCubemap,
        maxSurfaceCubemapLayered, surfaceAlignment, concurrentKernels, ECCEnabled, pciBusID,
        pciDeviceID, pciDomainID, tccDriver, asyncEngineCount, unifiedAddressing,
        memoryBusWidth, l2CacheSize, persistingL2CacheMaxSize, maxThreadsPerMultiProcessor,
        streamPrioritiesSupported, globalL1CacheSupported, localL1CacheSupported,
        sharedMemPerMultiprocessor, regsPerMultiprocessor, managedMemory, isMultiGpuBoard,
        multiGpuBoardGroupID, hostNativeAtomicSupported, pageableMemoryAccess,
        concurrentManagedAccess, computePreemptionSupported, canUseHostPointerForRegisteredMem,
        cooperativeLaunch, sharedMemPerBlockOptin, pageableMemoryAccessUsesHostPageTables,
        directManagedMemAccessFromHost, maxBlocksPerMultiProcessor, accessPolicyMaxWindowSize,
        reservedSharedMemPerBlock, hostRegisterSupported, hostRegisterReadOnlySupported,
        timelineSemaphoreInteropSupported, memoryPoolsSupported, gpuDirectRDMASupported,
        gpuDirectRDMAFlushWritesOptions, gpuDirectRDMAWritesOrdering,
        memoryPoolSupportedHandleTypes, ipcEventSupported, clusterLaunch,
        unifiedFunctionPointers,
    );
    p.uuid.bytes = h.uuid.bytes;
    p.sparseCudaArraySupported = h.sparseHipArraySupported;
    p.deferredMappingCudaArraySupported = h.deferredMappingHipArraySupported;
    p
}

/// HIP 5.2's `hipDeviceProp_t` from CUDA's, for `hipChooseDevice` (the fields both have).
pub(crate) fn props_to_hip52(p: &cudaDeviceProp) -> hipDeviceProp_t {
    // SAFETY: plain data; all-zero is valid.
    let mut h: hipDeviceProp_t = unsafe { core::mem::zeroed() };
    hip52_shared_fields!(h <- p);
    h.maxSharedMemoryPerMultiProcessor = p.sharedMemPerMultiprocessor;
    h
}

/// HIP 6+'s `hipDeviceProp_tR0600` from CUDA's, for `hipChooseDeviceR0600`.
pub(crate) fn props_to_r0600(p: &cudaDeviceProp) -> hipDeviceProp_tR0600 {
    // SAFETY: plain data; all-zero is valid.
    let mut h: hipDeviceProp_tR0600 = unsafe { core::mem::zeroed() };
    copy_fields!(h <- p:
        name, totalGlobalMem, sharedMemPerBlock, regsPerBlock, warpSize, memPitch,
        maxThreadsPerBlock, maxThreadsDim, maxGridSize, totalConstMem, major, minor,
        textureAlignment, texturePitchAlignment, multiProcessorCount, integrated,
        canMapHostMemory, concurrentKernels, ECCEnabled, pciBusID, pciDeviceID, pciDomainID,
        tccDriver, asyncEngineCount, unifiedAddressing, memoryBusWidth, l2CacheSize,
        maxThreadsPerMultiProcessor, sharedMemPerMultiprocessor, regsPerMultiprocessor,
        managedMemory, isMultiGpuBoard, pageableMemoryAccess, concurrentManagedAccess,
        cooperativeLaunch, sharedMemPerBlockOptin, maxBlocksPerMultiProcessor,
        memoryPoolsSupported,
    );
    h
}

/// What HIP's device properties say, in CUDA's names: `p`, the `cudaDeviceProp` fields HIP's
/// struct shares (the rest zero), and the fields CUDA 13 dropped from `cudaDeviceProp` whose
/// device attributes remain (clock rates, compute mode, ...). The device attribute rules
/// ([`super::device_attr`]) read their `Prop` answers from here.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DeviceFacts {
    /// The shared fields.
    pub p: cudaDeviceProp,
    /// `clockRate` (kHz).
    pub clock_rate: c_int,
    /// `memoryClockRate` (kHz).
    pub memory_clock_rate: c_int,
    /// `computeMode`.
    pub compute_mode: c_int,
    /// `kernelExecTimeoutEnabled`.
    pub kernel_exec_timeout: c_int,
    /// `cooperativeMultiDeviceLaunch`.
    pub cooperative_multi_device_launch: c_int,
    /// `maxTexture1DLinear`.
    pub max_texture_1d_linear: c_int,
    /// `singleToDoublePrecisionPerfRatio` (HIP 6+; 0 before).
    pub single_to_double_perf_ratio: c_int,
    /// `deviceOverlap` (HIP 6+; 0 before).
    pub device_overlap: c_int,
}

impl DeviceFacts {
    /// From HIP 5.2's struct (also HIP's NVIDIA platform).
    pub(crate) fn from_hip52(h: &hipDeviceProp_t) -> Self {
        Self {
            p: props_from_hip52(h),
            clock_rate: h.clockRate,
            memory_clock_rate: h.memoryClockRate,
            compute_mode: h.computeMode,
            kernel_exec_timeout: h.kernelExecTimeoutEnabled,
            cooperative_multi_device_launch: h.cooperativeMultiDeviceLaunch,
            max_texture_1d_linear: h.maxTexture1DLinear,
            single_to_double_perf_ratio: 0,
            device_overlap: 0,
        }
    }

    /// From HIP 6+'s struct.
    pub(crate) fn from_r0600(h: &hipDeviceProp_tR0600) -> Self {
        Self {
            p: props_from_r0600(h),
            clock_rate: h.clockRate,
            memory_clock_rate: h.memoryClockRate,
            compute_mode: h.computeMode,
            kernel_exec_timeout: h.kernelExecTimeoutEnabled,
            cooperative_multi_device_launch: h.cooperativeMultiDeviceLaunch,
            max_texture_1d_linear: h.maxTexture1DLinear,
            single_to_double_perf_ratio: h.singleToDoublePrecisionPerfRatio,
            device_overlap: h.deviceOverlap,
        }
    }
}

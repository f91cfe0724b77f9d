//! Device properties: CUDA 13's `cudaDeviceProp` from HIP's struct (HIP 5.2 layout, or
//! `hipDeviceProp_tR0600` for HIP 6+) and back (for `hipChooseDevice`).

use crate::hip_types::{hipDeviceProp_t, hipDeviceProp_tR0600};
use anycuda_api::runtime::cudaDeviceProp;

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

//! Unit tests of the struct translations (no GPU, no library): launch `extra` arrays, copy
//! descriptors, device properties, pointer memory types, graph nodes, JIT options.

use super::launch::{translate_extra, Markers, CUDA_MARKERS, EXTRA_MAX};
use super::memcpy::{
    memcpy2d_to_hip, memcpy2d_to_hip52, memcpy3d_parms_to_hip, memcpy3d_to_hip, memcpy3d_to_hip52,
};
use super::pointer::{attribute_size, cu_memtype, cuda_memtype, ptr_kind, PtrKind};
use super::props::{props_from_hip52, props_from_r0600};
use crate::conv::{tables_for, ConvTables};
use crate::hip_types::{hipDeviceProp_t, hipDeviceProp_tR0600};
use anycuda_api::driver::{
    CUmemorytype, CUpointer_attribute, CUresult, CUDA_MEMCPY2D, CUDA_MEMCPY3D,
};
use anycuda_api::runtime::{cudaError_t, cudaMemcpy3DParms, cudaMemcpyKind, cudaMemoryType};
use core::ffi::c_void;

fn hip52() -> &'static ConvTables {
    tables_for(50_221_153)
}
fn hip6() -> &'static ConvTables {
    tables_for(60_443_484)
}
fn amd_markers(t: &ConvTables) -> Markers {
    let m = t.cu_launch_params;
    let get = |c: usize| m.value_to_hip(c as i64).unwrap() as usize;
    Markers {
        end: get(CUDA_MARKERS.end),
        buffer_pointer: get(CUDA_MARKERS.buffer_pointer),
        buffer_size: get(CUDA_MARKERS.buffer_size),
    }
}
fn v(x: usize) -> *mut c_void {
    x as *mut c_void
}

#[test]
fn launch_markers_are_cudas_and_hips() {
    assert_eq!(
        CUDA_MARKERS,
        Markers {
            end: 0,
            buffer_pointer: 1,
            buffer_size: 2
        }
    );
    for t in [hip52(), hip6()] {
        assert_eq!(
            amd_markers(t),
            Markers {
                end: 3,
                buffer_pointer: 1,
                buffer_size: 2
            }
        );
    }
}

#[test]
fn extra_end_0_becomes_3_in_hips_order() {
    let m = amd_markers(hip52());
    let mut size = 24usize;
    let size_p: *mut c_void = (&mut size as *mut usize).cast();
    let buf = v(0x1000);
    let mut out = [core::ptr::null_mut(); 5];
    let cuda = [v(1), buf, v(2), size_p, v(0)];
    assert_eq!(
        // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
        unsafe { translate_extra(cuda.as_ptr(), m, &mut out) },
        Ok(5)
    );
    assert_eq!(out, [v(1), buf, v(2), size_p, v(3)]);
    // CUDA accepts SIZE before POINTER; HIP reads POINTER first.
    let cuda = [v(2), size_p, v(1), buf, v(0)];
    let mut out = [core::ptr::null_mut(); 5];
    assert_eq!(
        // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
        unsafe { translate_extra(cuda.as_ptr(), m, &mut out) },
        Ok(5)
    );
    assert_eq!(out, [v(1), buf, v(2), size_p, v(3)]);
    // Identity on HIP's NVIDIA platform (its markers are CUDA's).
    let cuda = [v(1), buf, v(2), size_p, v(0)];
    let mut out = [core::ptr::null_mut(); 5];
    assert_eq!(
        // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
        unsafe { translate_extra(cuda.as_ptr(), CUDA_MARKERS, &mut out) },
        Ok(5)
    );
    assert_eq!(out, cuda);
}

#[test]
fn extra_edge_cases() {
    let m = amd_markers(hip52());
    let mut out = [core::ptr::null_mut(); 5];
    let inv = Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    let s = v(0x2000);
    assert_eq!(
        // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
        unsafe { translate_extra(core::ptr::null(), m, &mut out) },
        Ok(0)
    );
    assert_eq!(
        // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
        unsafe { translate_extra([v(0)].as_ptr(), m, &mut out) },
        Ok(0)
    );
    // Unknown key (HIP's own END value 3 is not a CUDA key).
    assert_eq!(
        // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
        unsafe { translate_extra([v(3), v(0), v(0)].as_ptr(), m, &mut out) },
        inv
    );
    // One key without the other, a NULL size pointer, a repeated key.
    assert_eq!(
        // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
        unsafe { translate_extra([v(1), v(9), v(0)].as_ptr(), m, &mut out) },
        inv
    );
    let a = [v(1), v(9), v(2), core::ptr::null_mut(), v(0)];
    // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
    assert_eq!(unsafe { translate_extra(a.as_ptr(), m, &mut out) }, inv);
    let a = [v(1), v(9), v(1), v(9), v(2), s, v(0)];
    // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
    assert_eq!(unsafe { translate_extra(a.as_ptr(), m, &mut out) }, inv);
    // No END within the bound: the scan stops at EXTRA_MAX entries.
    let mut long = [v(1); EXTRA_MAX + 4];
    for (i, e) in long.iter_mut().enumerate() {
        *e = if i % 2 == 0 { v(1 + (i / 2) % 2) } else { s };
    }
    // SAFETY: NULL or a local array that ends in an end marker or is cut at EXTRA_MAX.
    assert_eq!(unsafe { translate_extra(long.as_ptr(), m, &mut out) }, inv);
}

fn desc2d() -> CUDA_MEMCPY2D {
    CUDA_MEMCPY2D {
        srcXInBytes: 1,
        srcY: 2,
        srcMemoryType: CUmemorytype::CU_MEMORYTYPE_HOST,
        srcHost: v(0x10),
        srcDevice: 0x20,
        srcArray: core::ptr::null_mut(),
        srcPitch: 3,
        dstXInBytes: 4,
        dstY: 5,
        dstMemoryType: CUmemorytype::CU_MEMORYTYPE_ARRAY,
        dstHost: v(0x30),
        dstDevice: 0x40,
        dstArray: v(0x50).cast(),
        dstPitch: 6,
        WidthInBytes: 7,
        Height: 8,
    }
}

#[test]
fn memcpy2d_field_by_field() {
    let c = desc2d();
    let h = memcpy2d_to_hip52(hip52().CUmemorytype, &c).unwrap();
    assert_eq!((h.srcXInBytes, h.srcY, h.srcPitch), (1, 2, 3));
    assert_eq!((h.dstXInBytes, h.dstY, h.dstPitch), (4, 5, 6));
    assert_eq!((h.WidthInBytes, h.Height), (7, 8));
    assert_eq!(
        (h.srcHost.cast_mut(), h.srcDevice, h.srcArray.is_null()),
        (v(0x10), v(0x20), true)
    );
    assert_eq!(
        (h.dstHost, h.dstDevice, h.dstArray.cast()),
        (v(0x30), v(0x40), v(0x50))
    );
    // HIP 5.2: hipMemoryTypeHost 0, hipMemoryTypeArray 2.
    assert_eq!((h.srcMemoryType, h.dstMemoryType), (0, 2));
    // HIP 6+: host 1, array 10.
    let h = memcpy2d_to_hip(hip6().CUmemorytype, &c).unwrap();
    assert_eq!((h.srcMemoryType, h.dstMemoryType), (1, 10));
    assert_eq!((h.dstHost, h.dstDevice, h.Height), (v(0x30), v(0x40), 8));
    // Device and unified.
    let mut c = desc2d();
    c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
    c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_UNIFIED;
    let h = memcpy2d_to_hip52(hip52().CUmemorytype, &c).unwrap();
    assert_eq!((h.srcMemoryType, h.dstMemoryType), (1, 3));
    let h = memcpy2d_to_hip(hip6().CUmemorytype, &c).unwrap();
    assert_eq!((h.srcMemoryType, h.dstMemoryType), (2, 11));
    // Not a memory type: invalid, as on CUDA.
    c.srcMemoryType = CUmemorytype(0);
    assert_eq!(
        memcpy2d_to_hip52(hip52().CUmemorytype, &c).err(),
        Some(CUresult::CUDA_ERROR_INVALID_VALUE)
    );
    c.srcMemoryType = CUmemorytype(77);
    assert_eq!(
        memcpy2d_to_hip(hip6().CUmemorytype, &c).err(),
        Some(CUresult::CUDA_ERROR_INVALID_VALUE)
    );
}

fn desc3d() -> CUDA_MEMCPY3D {
    // SAFETY: plain data.
    let mut c: CUDA_MEMCPY3D = unsafe { core::mem::zeroed() };
    c.srcXInBytes = 1;
    c.srcY = 2;
    c.srcZ = 3;
    c.srcLOD = 0;
    c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
    c.srcDevice = 0x100;
    c.srcPitch = 4;
    c.srcHeight = 5;
    c.dstXInBytes = 6;
    c.dstY = 7;
    c.dstZ = 8;
    c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
    c.dstHost = v(0x200);
    c.dstPitch = 9;
    c.dstHeight = 10;
    c.WidthInBytes = 11;
    c.Height = 12;
    c.Depth = 13;
    c
}

#[test]
fn memcpy3d_field_by_field_both_layouts() {
    let c = desc3d();
    let h = memcpy3d_to_hip52(hip52().CUmemorytype, &c).unwrap();
    assert_eq!((h.srcXInBytes, h.srcY, h.srcZ, h.srcLOD), (1, 2, 3, 0));
    assert_eq!((h.srcPitch, h.srcHeight, h.srcDevice), (4, 5, v(0x100)));
    assert_eq!(
        (h.dstXInBytes, h.dstY, h.dstZ, h.dstHost),
        (6, 7, 8, v(0x200))
    );
    assert_eq!((h.dstPitch, h.dstHeight), (9, 10));
    assert_eq!((h.WidthInBytes, h.Height, h.Depth), (11, 12, 13));
    assert_eq!((h.srcMemoryType, h.dstMemoryType), (1, 0));
    let h = memcpy3d_to_hip(hip6().CUmemorytype, &c).unwrap();
    assert_eq!((h.srcXInBytes, h.srcZ, h.dstZ, h.Depth), (1, 3, 8, 13));
    assert_eq!(
        (h.srcDevice, h.dstHost, h.dstHeight),
        (v(0x100), v(0x200), 10)
    );
    assert_eq!((h.srcMemoryType, h.dstMemoryType), (2, 1));
    // HIP 5.2's 32-bit fields cannot hold a 4 GiB pitch: not supported there, fine on 6+.
    let mut big = desc3d();
    big.srcPitch = 1 << 32;
    assert_eq!(
        memcpy3d_to_hip52(hip52().CUmemorytype, &big).err(),
        Some(CUresult::CUDA_ERROR_NOT_SUPPORTED)
    );
    assert_eq!(
        memcpy3d_to_hip(hip6().CUmemorytype, &big).unwrap().srcPitch,
        1 << 32
    );
    // CUDA's reserved pointers must be NULL.
    let mut r = desc3d();
    r.reserved1 = v(0x10);
    assert_eq!(
        memcpy3d_to_hip(hip6().CUmemorytype, &r).err(),
        Some(CUresult::CUDA_ERROR_INVALID_VALUE)
    );
    assert_eq!(
        memcpy3d_to_hip52(hip52().CUmemorytype, &r).err(),
        Some(CUresult::CUDA_ERROR_INVALID_VALUE)
    );
}

#[test]
fn memcpy3d_parms_field_by_field() {
    // SAFETY: plain data.
    let mut p: cudaMemcpy3DParms = unsafe { core::mem::zeroed() };
    p.srcArray = v(0x1).cast();
    p.srcPos.x = 1;
    p.srcPos.y = 2;
    p.srcPos.z = 3;
    p.srcPtr.ptr = v(0x10);
    p.srcPtr.pitch = 4;
    p.srcPtr.xsize = 5;
    p.srcPtr.ysize = 6;
    p.dstPos.z = 7;
    p.dstPtr.ptr = v(0x20);
    p.dstPtr.pitch = 8;
    p.extent.width = 9;
    p.extent.height = 10;
    p.extent.depth = 11;
    p.kind = cudaMemcpyKind::cudaMemcpyDeviceToHost;
    for t in [hip52(), hip6()] {
        let h = memcpy3d_parms_to_hip(t.cudaMemcpyKind, &p).unwrap();
        assert_eq!(h.srcArray.cast(), v(0x1));
        assert_eq!(
            (h.srcPos.x, h.srcPos.y, h.srcPos.z, h.dstPos.z),
            (1, 2, 3, 7)
        );
        assert_eq!(
            (h.srcPtr.ptr, h.srcPtr.pitch, h.srcPtr.xsize, h.srcPtr.ysize),
            (v(0x10), 4, 5, 6)
        );
        assert_eq!((h.dstPtr.ptr, h.dstPtr.pitch), (v(0x20), 8));
        assert_eq!(
            (h.extent.width, h.extent.height, h.extent.depth),
            (9, 10, 11)
        );
        assert_eq!(h.kind, 2);
    }
    p.kind = cudaMemcpyKind(9);
    assert_eq!(
        memcpy3d_parms_to_hip(hip52().cudaMemcpyKind, &p).err(),
        Some(cudaError_t::cudaErrorInvalidMemcpyDirection)
    );
}

fn cname(s: &str) -> [core::ffi::c_char; 256] {
    let mut n = [0; 256];
    for (d, b) in n.iter_mut().zip(s.bytes()) {
        *d = b as core::ffi::c_char;
    }
    n
}

#[test]
fn device_props_from_hip52() {
    // SAFETY: plain data.
    let mut h: hipDeviceProp_t = unsafe { core::mem::zeroed() };
    h.name = cname("AMD Instinct MI210");
    h.totalGlobalMem = 64 << 30;
    h.sharedMemPerBlock = 65536;
    h.regsPerBlock = 65536;
    h.warpSize = 64;
    h.maxThreadsPerBlock = 1024;
    h.maxThreadsDim = [1024, 1024, 1024];
    h.maxGridSize = [i32::MAX, 65535, 65535];
    h.clockRate = 1_700_000;
    h.memoryBusWidth = 4096;
    h.totalConstMem = 1 << 31;
    h.major = 9;
    h.minor = 0;
    h.multiProcessorCount = 104;
    h.l2CacheSize = 8 << 20;
    h.maxThreadsPerMultiProcessor = 2048;
    h.concurrentKernels = 1;
    h.pciDomainID = 1;
    h.pciBusID = 0x63;
    h.pciDeviceID = 2;
    h.maxSharedMemoryPerMultiProcessor = 65536;
    h.canMapHostMemory = 1;
    h.cooperativeLaunch = 1;
    h.ECCEnabled = 1;
    h.managedMemory = 1;
    h.concurrentManagedAccess = 1;
    h.maxTexture2D = [16384, 16384];
    h.memPitch = 1 << 31;
    let p = props_from_hip52(&h);
    assert_eq!(p.name, h.name);
    assert_eq!(
        (p.totalGlobalMem, p.sharedMemPerBlock, p.regsPerBlock),
        (64 << 30, 65536, 65536)
    );
    assert_eq!((p.warpSize, p.maxThreadsPerBlock), (64, 1024));
    assert_eq!(
        (p.maxThreadsDim, p.maxGridSize),
        ([1024; 3], [i32::MAX, 65535, 65535])
    );
    assert_eq!((p.totalConstMem, p.major, p.minor), (1 << 31, 9, 0));
    assert_eq!(
        (p.multiProcessorCount, p.l2CacheSize, p.memoryBusWidth),
        (104, 8 << 20, 4096)
    );
    assert_eq!((p.pciDomainID, p.pciBusID, p.pciDeviceID), (1, 0x63, 2));
    assert_eq!(
        (p.concurrentKernels, p.ECCEnabled, p.managedMemory),
        (1, 1, 1)
    );
    assert_eq!(
        (p.maxThreadsPerMultiProcessor, p.sharedMemPerMultiprocessor),
        (2048, 65536)
    );
    assert_eq!(
        (
            p.canMapHostMemory,
            p.cooperativeLaunch,
            p.concurrentManagedAccess
        ),
        (1, 1, 1)
    );
    assert_eq!((p.maxTexture2D, p.memPitch), ([16384, 16384], 1 << 31));
    // Fields HIP 5.2's struct lacks stay zero (never invented).
    assert_eq!(p.uuid.bytes, [0; 16]);
    assert_eq!(
        (p.asyncEngineCount, p.unifiedAddressing, p.mpsEnabled),
        (0, 0, 0)
    );
    assert_eq!((p.sharedMemPerBlockOptin, p.deviceNumaId), (0, 0));
}

#[test]
fn device_props_from_r0600() {
    // SAFETY: plain data.
    let mut h: hipDeviceProp_tR0600 = unsafe { core::mem::zeroed() };
    h.name = cname("AMD Radeon RX 7900 XTX");
    h.uuid.bytes = [7; 16];
    h.luid = [1; 8];
    h.totalGlobalMem = 24 << 30;
    h.warpSize = 32;
    h.major = 11;
    h.multiProcessorCount = 96;
    h.asyncEngineCount = 2;
    h.unifiedAddressing = 1;
    h.sharedMemPerBlockOptin = 65536;
    h.sparseHipArraySupported = 1;
    h.pciBusID = 3;
    h.clockRate = 2_500_000; // not in CUDA 13's struct
    let p = props_from_r0600(&h);
    assert_eq!(p.name, h.name);
    assert_eq!((p.uuid.bytes, p.luid), ([7; 16], [1; 8]));
    assert_eq!((p.totalGlobalMem, p.warpSize, p.major), (24 << 30, 32, 11));
    assert_eq!(
        (
            p.multiProcessorCount,
            p.asyncEngineCount,
            p.unifiedAddressing
        ),
        (96, 2, 1)
    );
    assert_eq!(
        (
            p.sharedMemPerBlockOptin,
            p.sparseCudaArraySupported,
            p.pciBusID
        ),
        (65536, 1, 3)
    );
}

#[test]
fn pointer_memory_types() {
    let t52 = hip52().CUmemorytype;
    let t6 = hip6().CUmemorytype;
    // HIP 5: host 0, device 1, array 2, unified 3.
    assert_eq!(ptr_kind(t52, 0), PtrKind::Host);
    assert_eq!(ptr_kind(t52, 1), PtrKind::Device);
    assert_eq!(ptr_kind(t52, 2), PtrKind::Array);
    assert_eq!(ptr_kind(t52, 3), PtrKind::Managed);
    // HIP 6+: unregistered 0, host 1, device 2, managed 3, array 10, unified 11.
    assert_eq!(ptr_kind(t6, 0), PtrKind::Unregistered);
    assert_eq!(ptr_kind(t6, 1), PtrKind::Host);
    assert_eq!(ptr_kind(t6, 2), PtrKind::Device);
    assert_eq!(ptr_kind(t6, 3), PtrKind::Managed);
    assert_eq!(ptr_kind(t6, 10), PtrKind::Array);
    assert_eq!(ptr_kind(t6, 11), PtrKind::Managed);
    assert!(matches!(ptr_kind(t6, 1234), PtrKind::Other(_)));

    assert_eq!(
        cu_memtype(PtrKind::Host),
        Ok(CUmemorytype::CU_MEMORYTYPE_HOST)
    );
    assert_eq!(
        cu_memtype(PtrKind::Device),
        Ok(CUmemorytype::CU_MEMORYTYPE_DEVICE)
    );
    assert_eq!(
        cu_memtype(PtrKind::Managed),
        Ok(CUmemorytype::CU_MEMORYTYPE_DEVICE)
    );
    assert_eq!(
        cu_memtype(PtrKind::Array),
        Ok(CUmemorytype::CU_MEMORYTYPE_ARRAY)
    );
    assert_eq!(
        cu_memtype(PtrKind::Unregistered),
        Err(CUresult::CUDA_ERROR_INVALID_VALUE)
    );

    assert_eq!(
        cuda_memtype(PtrKind::Host, false),
        cudaMemoryType::cudaMemoryTypeHost
    );
    assert_eq!(
        cuda_memtype(PtrKind::Device, false),
        cudaMemoryType::cudaMemoryTypeDevice
    );
    assert_eq!(
        cuda_memtype(PtrKind::Device, true),
        cudaMemoryType::cudaMemoryTypeManaged
    );
    assert_eq!(
        cuda_memtype(PtrKind::Managed, false),
        cudaMemoryType::cudaMemoryTypeManaged
    );
    assert_eq!(
        cuda_memtype(PtrKind::Unregistered, false),
        cudaMemoryType::cudaMemoryTypeUnregistered
    );
}

#[test]
fn pointer_attribute_sizes() {
    use CUpointer_attribute as A;
    assert_eq!(attribute_size(A::CU_POINTER_ATTRIBUTE_MEMORY_TYPE), Some(4));
    assert_eq!(
        attribute_size(A::CU_POINTER_ATTRIBUTE_DEVICE_POINTER),
        Some(8)
    );
    assert_eq!(attribute_size(A::CU_POINTER_ATTRIBUTE_CONTEXT), Some(8));
    assert_eq!(attribute_size(A::CU_POINTER_ATTRIBUTE_P2P_TOKENS), Some(16));
    assert_eq!(attribute_size(A::CU_POINTER_ATTRIBUTE_IS_MANAGED), Some(4));
    assert_eq!(attribute_size(A(999)), None);
}

/// Driver API helpers (graph nodes, peers, JIT options, textures, allocation properties).
mod driver {
    use super::super::graph_nodes::{memset_to_cuda, memset_to_hip};
    use super::super::memcpy::memcpy3d_to_cuda;
    use super::super::memcpy::{memcpy3d_to_hip, peer_to_3d};
    use super::super::memory::{
        prop52, prop62, prop70, prop_from52, prop_from62, prop_from70, prop_to_cuda, prop_to_hip,
    };
    use super::super::module::jit_options;
    use super::super::stream::wait_flags_to_hip;
    use super::super::texture::channel_desc;
    use crate::conv::{INVALID_VALUE, NOT_SUPPORTED};
    use crate::HipBackend;
    use anycuda_api::driver::*;
    use core::ffi::c_void;

    #[test]
    fn wait_flags_keep_cuda_values_and_refuse_flush() {
        for f in 0..=3 {
            assert_eq!(wait_flags_to_hip(f), Ok(f));
        }
        assert_eq!(wait_flags_to_hip(1 << 30), Err(NOT_SUPPORTED));
        assert_eq!(wait_flags_to_hip(4), Err(INVALID_VALUE));
    }

    #[test]
    fn peer_descriptor_keeps_every_field() {
        // SAFETY: zeroed POD.
        let mut p: CUDA_MEMCPY3D_PEER = unsafe { core::mem::zeroed() };
        p.srcXInBytes = 1;
        p.srcY = 2;
        p.srcZ = 3;
        p.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
        p.srcDevice = 0x1000;
        p.srcPitch = 64;
        p.srcHeight = 8;
        p.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        p.dstHost = 0x2000 as *mut c_void;
        p.dstPitch = 128;
        p.WidthInBytes = 32;
        p.Height = 4;
        p.Depth = 2;
        p.srcContext = 0x10 as CUcontext;
        let c = peer_to_3d(&p);
        assert_eq!(
            (c.srcXInBytes, c.srcY, c.srcZ, c.srcPitch, c.srcHeight),
            (1, 2, 3, 64, 8)
        );
        assert_eq!(c.srcMemoryType, CUmemorytype::CU_MEMORYTYPE_DEVICE);
        assert_eq!(c.srcDevice, 0x1000);
        assert_eq!(c.dstHost as usize, 0x2000);
        assert_eq!(
            (c.dstPitch, c.WidthInBytes, c.Height, c.Depth),
            (128, 32, 4, 2)
        );
        assert!(c.reserved0.is_null() && c.reserved1.is_null());
    }

    #[test]
    fn memset_params_round_trip() {
        let c = CUDA_MEMSET_NODE_PARAMS {
            dst: 0xdead_0000,
            pitch: 256,
            value: 0xabcd,
            elementSize: 2,
            width: 100,
            height: 3,
        };
        let h = memset_to_hip(&c).unwrap();
        assert_eq!(h.dst as usize, 0xdead_0000);
        assert_eq!(
            (h.pitch, h.value, h.elementSize, h.width, h.height),
            (256, 0xabcd, 2, 100, 3)
        );
        for bad in [0, 3, 8] {
            let c = CUDA_MEMSET_NODE_PARAMS {
                elementSize: bad,
                ..c
            };
            assert_eq!(
                memset_to_hip(&c).err(),
                Some(crate::conv::Refusal::InvalidValue)
            );
        }
        let back = memset_to_cuda(&h);
        assert_eq!(
            (
                back.dst,
                back.pitch,
                back.value,
                back.elementSize,
                back.width,
                back.height
            ),
            (c.dst, c.pitch, c.value, c.elementSize, c.width, c.height)
        );
    }

    #[test]
    fn memcpy3d_round_trips_through_hip6_memory_types() {
        let map = crate::conv::tables_for(60_241_134).CUmemorytype;
        // SAFETY: zeroed POD.
        let mut c: CUDA_MEMCPY3D = unsafe { core::mem::zeroed() };
        c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_ARRAY;
        c.srcArray = 0x40 as CUarray;
        c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_HOST;
        c.dstHost = 0x80 as *mut c_void;
        c.WidthInBytes = 16;
        c.Height = 2;
        c.Depth = 1;
        c.dstZ = 5;
        let h = memcpy3d_to_hip(map, &c).unwrap();
        assert_ne!(
            h.srcMemoryType, c.srcMemoryType.0,
            "array is renumbered in HIP 6"
        );
        let back = memcpy3d_to_cuda(map, &h);
        assert_eq!(back.srcMemoryType, c.srcMemoryType);
        assert_eq!(back.dstMemoryType, c.dstMemoryType);
        assert_eq!(back.srcArray, c.srcArray);
        assert_eq!(back.dstHost, c.dstHost);
        assert_eq!(
            (back.WidthInBytes, back.Height, back.Depth, back.dstZ),
            (16, 2, 1, 5)
        );
    }

    #[test]
    fn channel_descriptors_from_array_formats() {
        let d = channel_desc(CUarray_format::CU_AD_FORMAT_FLOAT, 2).unwrap();
        assert_eq!((d.x, d.y, d.z, d.w, d.f), (32, 32, 0, 0, 2));
        let d = channel_desc(CUarray_format::CU_AD_FORMAT_SIGNED_INT8, 4).unwrap();
        assert_eq!((d.x, d.y, d.z, d.w, d.f), (8, 8, 8, 8, 0));
        let d = channel_desc(CUarray_format::CU_AD_FORMAT_UNSIGNED_INT16, 1).unwrap();
        assert_eq!((d.x, d.y, d.f), (16, 0, 1));
        assert_eq!(
            channel_desc(CUarray_format::CU_AD_FORMAT_FLOAT, 3).err(),
            Some(INVALID_VALUE)
        );
        assert_eq!(
            channel_desc(CUarray_format::CU_AD_FORMAT_BC1_UNORM, 1).err(),
            Some(NOT_SUPPORTED)
        );
        assert_eq!(
            channel_desc(CUarray_format(0x77), 1).err(),
            Some(INVALID_VALUE)
        );
    }

    #[test]
    fn jit_options_translate_keys_and_drop_what_hip_lacks() {
        let b = HipBackend::load();
        if b.native_hip().is_none() {
            return;
        }
        let map = b.conv().CUjit_option;
        let opts = [
            CUjit_option::CU_JIT_MAX_REGISTERS,
            CUjit_option::CU_JIT_TARGET,
            CUjit_option::CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
        ];
        let vals = [
            32usize as *mut c_void,
            90usize as *mut c_void,
            64usize as *mut c_void,
        ];
        // SAFETY: arrays of 3 entries.
        let j = unsafe { jit_options(&b, true, 3, opts.as_ptr(), vals.as_ptr()) }.unwrap();
        let max_regs = map.to_hip(0).unwrap() as u32;
        assert_eq!(j.keys, [max_regs]);
        assert_eq!(j.values, [32usize as *mut c_void]);
        assert_eq!(j.src, [0]);
        assert_eq!(j.dropped_outputs, [2]);
        // An option number outside CUDA's set is invalid; NULL arrays with options are invalid.
        let bad = [CUjit_option(99)];
        // SAFETY: arrays of 1 entry.
        let r = unsafe { jit_options(&b, false, 1, bad.as_ptr(), vals.as_ptr()) };
        assert_eq!(r.err(), Some(INVALID_VALUE));
        // SAFETY: NULL arrays are checked.
        let r = unsafe { jit_options(&b, false, 1, core::ptr::null(), core::ptr::null()) };
        assert_eq!(r.err(), Some(INVALID_VALUE));
    }

    #[test]
    fn allocation_properties_in_hip_5_2_and_6_2_layouts() {
        let b = HipBackend::load();
        if b.native_hip().is_none() || b.platform() != crate::Platform::Amd {
            return;
        }
        // SAFETY: zeroed POD.
        let mut c: CUmemAllocationProp = unsafe { core::mem::zeroed() };
        c.type_ = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        c.requestedHandleTypes =
            CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
        c.location = CUmemLocation::new(CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, 3);
        c.allocFlags.usage = 0;
        let p = prop_to_hip(&b, &c).unwrap();
        let conv = b.conv();
        let h = prop52(&p).unwrap();
        assert_eq!(
            i64::from(h.type_),
            conv.CUmemAllocationType.to_hip(1).unwrap()
        );
        assert_eq!(
            i64::from(h.requestedHandleType),
            conv.CUmemAllocationHandleType.to_hip(1).unwrap()
        );
        assert_eq!(
            i64::from(h.location.type_),
            conv.CUmemLocationType.to_hip(1).unwrap()
        );
        assert_eq!((h.location.id, h.compressionType, h.usage), (3, 0, 0));
        let h6 = prop62(&p);
        assert_eq!(
            (h6.type_, h6.requestedHandleType, h6.location.id),
            (h.type_, h.requestedHandleType, 3)
        );
        // Every layout reads back as the caller's properties (the inverse rules).
        for back in [prop_from52(&h), prop_from62(&h6), prop_from70(&prop70(&p))] {
            let r = prop_to_cuda(&b, &back);
            assert_eq!(
                (r.type_, r.requestedHandleTypes, r.location.id()),
                (c.type_, c.requestedHandleTypes, 3)
            );
        }
        // HIP 5.2 cannot ask for GPUDirect RDMA; compression has no HIP counterpart.
        c.allocFlags.gpuDirectRDMACapable = 1;
        assert_eq!(
            prop52(&prop_to_hip(&b, &c).unwrap()).err(),
            Some(NOT_SUPPORTED)
        );
        assert_eq!(
            prop62(&prop_to_hip(&b, &c).unwrap())
                .allocFlags
                .gpuDirectRDMACapable,
            1
        );
        c.allocFlags.compressionType = 1;
        assert_eq!(prop_to_hip(&b, &c).err(), Some(NOT_SUPPORTED));
    }
}

/// Runtime API helpers (graph nodes, launch attributes, function attributes).
mod runtime {
    use super::super::graph_nodes::kernel_params_to_hip;
    use super::super::launch::read_launch_attrs;
    use super::super::module::func_attrs_from_hip;
    use anycuda_api::runtime::*;
    use core::ptr::null_mut;

    #[test]
    fn kernel_params_reordered_extra_refused() {
        let mut args = [null_mut(); 1];
        let c = cudaKernelNodeParams {
            func: 0x10 as *mut _,
            gridDim: dim3 { x: 1, y: 2, z: 3 },
            blockDim: dim3 { x: 4, y: 5, z: 6 },
            sharedMemBytes: 7,
            kernelParams: args.as_mut_ptr(),
            extra: null_mut(),
        };
        let h = kernel_params_to_hip(&c).unwrap();
        assert_eq!((h.gridDim.y, h.blockDim.z, h.sharedMemBytes), (2, 6, 7));
        assert_eq!(h.kernelParams, args.as_mut_ptr());
        let with_extra = cudaKernelNodeParams {
            extra: args.as_mut_ptr(),
            ..c
        };
        assert_eq!(
            kernel_params_to_hip(&with_extra).err(),
            Some(cudaError_t::cudaErrorNotSupported)
        );
    }

    #[test]
    fn launch_attributes_cooperative_or_not_supported() {
        // SAFETY: a plain C struct, for which all-zero bytes are a valid value.
        let mut a: cudaLaunchAttribute = unsafe { core::mem::zeroed() };
        a.id = cudaLaunchAttributeID::cudaLaunchAttributeCooperative;
        a.val.cooperative = 1;
        // SAFETY: a plain C struct, for which all-zero bytes are a valid value.
        let mut ign: cudaLaunchAttribute = unsafe { core::mem::zeroed() };
        ign.id = cudaLaunchAttributeID::cudaLaunchAttributeIgnore;
        let list = [ign, a];
        assert!(
            // SAFETY: NULL or a local list of at least the given length.
            unsafe { read_launch_attrs(list.as_ptr(), 2) }
                .unwrap()
                .cooperative
        );
        let mut prio = a;
        prio.id = cudaLaunchAttributeID::cudaLaunchAttributePriority;
        assert_eq!(
            // SAFETY: NULL or a local list of at least the given length.
            unsafe { read_launch_attrs(&prio, 1) }.err(),
            Some(cudaError_t::cudaErrorNotSupported)
        );
        assert_eq!(
            // SAFETY: NULL or a local list of at least the given length.
            unsafe { read_launch_attrs(core::ptr::null(), 1) }.err(),
            Some(cudaError_t::cudaErrorInvalidValue)
        );
    }

    #[test]
    fn func_attributes_copied_by_name() {
        // SAFETY: a plain C struct, for which all-zero bytes are a valid value.
        let mut h: crate::hip_types::hipFuncAttributes = unsafe { core::mem::zeroed() };
        h.numRegs = 32;
        h.sharedSizeBytes = 1024;
        h.maxThreadsPerBlock = 256;
        let c = func_attrs_from_hip(&h);
        assert_eq!(
            (c.numRegs, c.sharedSizeBytes, c.maxThreadsPerBlock),
            (32, 1024, 256)
        );
        assert_eq!(c.clusterDimMustBeSet, 0);
    }
}

/// The cluster a Driver launch configuration asks for: 1 block without the attribute, x·y·z
/// with it (the last one wins), invalid for a zero dimension or a NULL announced list.
#[test]
fn cluster_blocks_of_a_launch_config() {
    use super::launch::cluster_blocks;
    use anycuda_api::driver::{CUlaunchAttribute, CUlaunchAttributeID as Id, CUlaunchConfig};
    let dims = |x, y, z| {
        // SAFETY: a plain C struct, for which all-zero bytes are a valid value.
        let mut a: CUlaunchAttribute = unsafe { core::mem::zeroed() };
        a.id = Id::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
        a.value.clusterDim.x = x;
        a.value.clusterDim.y = y;
        a.value.clusterDim.z = z;
        a
    };
    // SAFETY: as above.
    let mut coop: CUlaunchAttribute = unsafe { core::mem::zeroed() };
    coop.id = Id::CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
    let blocks = |attrs: &mut [CUlaunchAttribute], null: bool| {
        // SAFETY: as above.
        let mut cfg: CUlaunchConfig = unsafe { core::mem::zeroed() };
        cfg.numAttrs = attrs.len() as u32;
        if !null {
            cfg.attrs = attrs.as_mut_ptr();
        }
        // SAFETY: `attrs` holds `numAttrs` entries, or the list is NULL.
        unsafe { cluster_blocks(&cfg) }
    };
    let invalid = Err(CUresult::CUDA_ERROR_INVALID_VALUE);
    assert_eq!(blocks(&mut [], false), Ok(1));
    assert_eq!(blocks(&mut [coop], true), invalid, "announced but NULL");
    assert_eq!(
        blocks(&mut [coop], false),
        Ok(1),
        "cooperative says nothing"
    );
    assert_eq!(blocks(&mut [coop, dims(2, 3, 1)], false), Ok(6));
    assert_eq!(
        blocks(&mut [dims(2, 3, 1), dims(1, 1, 1)], false),
        Ok(1),
        "the last one wins"
    );
    assert_eq!(blocks(&mut [dims(2, 0, 1)], false), invalid);
    assert_eq!(
        blocks(&mut [dims(u32::MAX, 3, u32::MAX)], false),
        Ok(u64::MAX),
        "saturated, no overflow"
    );
}

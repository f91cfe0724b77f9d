//! Pure translation helpers of the Driver API adaptations.

use super::copy::{location_to_device, peer_to_3d, HIP_CPU_DEVICE_ID};
use super::graph::{memcpy3d_to_cuda, memset_to_cuda, memset_to_hip};
use super::module::jit_options;
use super::stream::{default_edge, edges_default, wait_flags_to_hip};
use super::texref::channel_desc;
use super::{INVALID_VALUE, NOT_SUPPORTED};
use crate::adapt::memcpy::memcpy3d_to_hip;
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
fn locations_become_device_ordinals() {
    let loc = |t: CUmemLocationType, id| CUmemLocation { type_: t, id };
    use CUmemLocationType as T;
    assert_eq!(
        location_to_device(&loc(T::CU_MEM_LOCATION_TYPE_DEVICE, 3)),
        Ok(3)
    );
    assert_eq!(
        location_to_device(&loc(T::CU_MEM_LOCATION_TYPE_DEVICE, -1)),
        Err(CUresult::CUDA_ERROR_INVALID_DEVICE)
    );
    assert_eq!(
        location_to_device(&loc(T::CU_MEM_LOCATION_TYPE_HOST, 7)),
        Ok(HIP_CPU_DEVICE_ID)
    );
    assert_eq!(
        location_to_device(&loc(T::CU_MEM_LOCATION_TYPE_HOST_NUMA, 0)),
        Err(NOT_SUPPORTED)
    );
    assert_eq!(
        location_to_device(&loc(T::CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT, 0)),
        Err(NOT_SUPPORTED)
    );
    assert_eq!(
        location_to_device(&loc(T::CU_MEM_LOCATION_TYPE_INVALID, 0)),
        Err(INVALID_VALUE)
    );
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
    let h = memset_to_hip(&c);
    assert_eq!(h.dst as usize, 0xdead_0000);
    assert_eq!(
        (h.pitch, h.value, h.elementSize, h.width, h.height),
        (256, 0xabcd, 2, 100, 3)
    );
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
fn edge_data_default_detection() {
    let mut e = [default_edge(); 3];
    // SAFETY: arrays of the given length.
    unsafe {
        assert!(edges_default(core::ptr::null(), 5));
        assert!(edges_default(e.as_ptr(), 3));
        e[2].type_ = 1; // programmatic
        assert!(!edges_default(e.as_ptr(), 3));
        assert!(edges_default(e.as_ptr(), 2));
        e[0].from_port = 1;
        assert!(!edges_default(e.as_ptr(), 1));
    }
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
    use super::mem::{prop52, prop62, prop_to_hip};
    let b = HipBackend::load();
    if b.native_hip().is_none() || b.platform() != crate::Platform::Amd {
        return;
    }
    // SAFETY: zeroed POD.
    let mut c: CUmemAllocationProp = unsafe { core::mem::zeroed() };
    c.type_ = CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    c.requestedHandleTypes = CUmemAllocationHandleType::CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    c.location = CUmemLocation {
        type_: CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
        id: 3,
    };
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

//! Rules the Driver and the Runtime adaptations share (one definition in `conv/` or one
//! generic adaptation): both APIs must give the same answer. Live calls against the installed
//! HIP (CI: Debian's ROCm 5.2.3, no GPU); nothing here passes HIP a made-up handle. A test that
//! needs a device is a `#[gpu_test]`: ci/gpu-test.sh runs it on the HIP backend, and it never
//! passes without one.

#![allow(non_snake_case)]

use anycuda_api::driver::{self as d, CUresult};
use anycuda_api::runtime::{self as r, cudaError_t};
use anycuda_api::traits::{Driver, Runtime};
use anycuda_test::gpu_test;
use core::ptr::{null, null_mut};

mod common;
use common::{hip, hip_with_device};

fn cu_edge(from_port: u8, type_: u8, reserved: u8) -> d::CUgraphEdgeData {
    d::CUgraphEdgeData {
        from_port,
        to_port: 0,
        type_,
        reserved: [reserved, 0, 0, 0, 0],
    }
}

fn rt_edge(from_port: u8, type_: u8, reserved: u8) -> r::cudaGraphEdgeData {
    r::cudaGraphEdgeData {
        from_port,
        to_port: 0,
        type_,
        reserved: [reserved, 0, 0, 0, 0],
    }
}

/// Edge data on input: reserved bytes must be zero (invalid value), a ported or programmatic
/// edge is not supported, on both APIs alike.
#[test]
fn edge_data_in_is_checked_alike() {
    let Some(b) = hip() else { return };
    let n = [null_mut::<d::CUgraphNode_st>(); 1];
    for (from_port, type_, reserved, cu, rt) in [
        (
            0,
            0,
            1,
            CUresult::CUDA_ERROR_INVALID_VALUE,
            cudaError_t::cudaErrorInvalidValue,
        ),
        (
            1,
            0,
            0,
            CUresult::CUDA_ERROR_NOT_SUPPORTED,
            cudaError_t::cudaErrorNotSupported,
        ),
        (
            0,
            1,
            0,
            CUresult::CUDA_ERROR_NOT_SUPPORTED,
            cudaError_t::cudaErrorNotSupported,
        ),
    ] {
        let ce = cu_edge(from_port, type_, reserved);
        let re = rt_edge(from_port, type_, reserved);
        // SAFETY: one-entry arrays; anycuda refuses before HIP sees the NULL handles.
        unsafe {
            assert_eq!(
                b.cuGraphAddDependencies(null_mut(), n.as_ptr(), n.as_ptr(), &ce, 1),
                cu
            );
            assert_eq!(
                b.cuGraphRemoveDependencies(null_mut(), n.as_ptr(), n.as_ptr(), &ce, 1),
                cu
            );
            assert_eq!(
                b.cudaGraphAddDependencies(null_mut(), n.as_ptr(), n.as_ptr(), &re, 1),
                rt
            );
            assert_eq!(
                b.cudaGraphRemoveDependencies(null_mut(), n.as_ptr(), n.as_ptr(), &re, 1),
                rt
            );
        }
    }
}

/// Edge data on output needs the node arrays: `to` too for a graph's edges (CUDA: "if edgeData
/// is non-NULL then from and to must be as well").
#[test]
fn edge_data_out_needs_from_and_to_alike() {
    let Some(b) = hip() else { return };
    let mut from = [null_mut::<d::CUgraphNode_st>(); 2];
    let mut ce = [cu_edge(0, 0, 0); 2];
    let mut re = [rt_edge(0, 0, 0); 2];
    let mut n = 2usize;
    // SAFETY: two-entry arrays; refused before HIP is called.
    unsafe {
        assert_eq!(
            b.cuGraphGetEdges(
                null_mut(),
                from.as_mut_ptr(),
                null_mut(),
                ce.as_mut_ptr(),
                &mut n
            ),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cudaGraphGetEdges(
                null_mut(),
                from.as_mut_ptr(),
                null_mut(),
                re.as_mut_ptr(),
                &mut n
            ),
            cudaError_t::cudaErrorInvalidValue
        );
        assert_eq!(
            b.cuGraphNodeGetDependencies(null_mut(), null_mut(), ce.as_mut_ptr(), &mut n),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cudaGraphNodeGetDependentNodes(null_mut(), null_mut(), re.as_mut_ptr(), &mut n),
            cudaError_t::cudaErrorInvalidValue
        );
    }
}

/// Edge data on output: the caller's whole capacity is written (default edges; zeroes past the
/// edges returned), on both APIs. Needs a graph, which HIP makes only with a device.
#[gpu_test(backend = "hip")]
fn edge_data_out_fills_the_capacity_alike() {
    let b = hip_with_device();
    let mut g: d::CUgraph = null_mut();
    // SAFETY: valid out-pointer.
    let r = unsafe { b.cuGraphCreate(&mut g, 0) };
    assert_eq!(r, CUresult::CUDA_SUCCESS);
    let mut from = [null_mut::<d::CUgraphNode_st>(); 3];
    let mut to = [null_mut::<d::CUgraphNode_st>(); 3];
    let mut ce = [cu_edge(9, 9, 9); 3];
    let mut re = [rt_edge(9, 9, 9); 3];
    // SAFETY: three-entry arrays and a live graph.
    unsafe {
        let mut n = 3usize;
        assert_eq!(
            b.cuGraphGetEdges(
                g,
                from.as_mut_ptr(),
                to.as_mut_ptr(),
                ce.as_mut_ptr(),
                &mut n
            ),
            CUresult::CUDA_SUCCESS
        );
        assert_eq!(n, 0);
        let mut n = 3usize;
        assert_eq!(
            b.cudaGraphGetEdges(
                g,
                from.as_mut_ptr(),
                to.as_mut_ptr(),
                re.as_mut_ptr(),
                &mut n
            ),
            cudaError_t::cudaSuccess
        );
        assert_eq!(n, 0);
        assert_eq!(b.cuGraphDestroy(g), CUresult::CUDA_SUCCESS);
    }
    let zero = |p: (u8, u8, u8, [u8; 5])| p == (0, 0, 0, [0; 5]);
    assert!(ce
        .iter()
        .all(|e| zero((e.from_port, e.to_port, e.type_, e.reserved))));
    assert!(re
        .iter()
        .all(|e| zero((e.from_port, e.to_port, e.type_, e.reserved))));
}

/// Memory locations become device ordinals by one rule: NUMA nodes are not supported, a
/// negative device is an invalid device, an unknown type an invalid value.
#[test]
fn memory_locations_alike() {
    let Some(b) = hip() else { return };
    use d::CUmemLocationType as D;
    use r::cudaMemLocationType as R;
    for (dt, rt, id, cu, cuda) in [
        (
            D::CU_MEM_LOCATION_TYPE_HOST_NUMA,
            R::cudaMemLocationTypeHostNuma,
            0,
            CUresult::CUDA_ERROR_NOT_SUPPORTED,
            cudaError_t::cudaErrorNotSupported,
        ),
        (
            D::CU_MEM_LOCATION_TYPE_DEVICE,
            R::cudaMemLocationTypeDevice,
            -1,
            CUresult::CUDA_ERROR_INVALID_DEVICE,
            cudaError_t::cudaErrorInvalidDevice,
        ),
        (
            D(77),
            R(77),
            0,
            CUresult::CUDA_ERROR_INVALID_VALUE,
            cudaError_t::cudaErrorInvalidValue,
        ),
    ] {
        let dl = d::CUmemLocation::new(dt, id);
        let rl = r::cudaMemLocation::new(rt, id);
        // SAFETY: refused before HIP sees the NULL range.
        unsafe {
            assert_eq!(b.cuMemPrefetchAsync(0, 0, dl, 0, null_mut()), cu);
            assert_eq!(b.cudaMemPrefetchAsync(null(), 0, rl, 0, null_mut()), cuda);
        }
    }
}

/// Capture info: the status is required, and edge data needs the dependency outputs, on both
/// APIs alike (refused before HIP is called).
#[test]
fn capture_info_needs_its_outputs_alike() {
    let Some(b) = hip() else { return };
    let (mut cs, mut rs) = (
        d::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE,
        r::cudaStreamCaptureStatus::cudaStreamCaptureStatusNone,
    );
    let (mut ce, mut re) = (null::<d::CUgraphEdgeData>(), null::<r::cudaGraphEdgeData>());
    let mut n = 0usize;
    // SAFETY: valid or NULL out-pointers; refused before HIP is called.
    unsafe {
        let (cu, rt) = (
            b.cuStreamGetCaptureInfo(
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
            ),
            b.cudaStreamGetCaptureInfo(
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
                null_mut(),
            ),
        );
        assert_eq!(cu, CUresult::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(rt, cudaError_t::cudaErrorInvalidValue);
        // Edge data without the dependency array.
        let cu = b.cuStreamGetCaptureInfo(
            null_mut(),
            &mut cs,
            null_mut(),
            null_mut(),
            null_mut(),
            &mut ce,
            &mut n,
        );
        let rt = b.cudaStreamGetCaptureInfo(
            null_mut(),
            &mut rs,
            null_mut(),
            null_mut(),
            null_mut(),
            &mut re,
            &mut n,
        );
        assert_eq!(cu, CUresult::CUDA_ERROR_INVALID_VALUE);
        assert_eq!(rt, cudaError_t::cudaErrorInvalidValue);
    }
}

unsafe extern "C" fn never_cu(_: d::CUstream, _: CUresult, _: *mut core::ffi::c_void) {}
unsafe extern "C" fn never_rt(_: r::cudaStream_t, _: cudaError_t, _: *mut core::ffi::c_void) {}

/// Stream callbacks: a NULL callback or non-zero flags are invalid values on both APIs.
#[test]
fn callbacks_are_checked_alike() {
    let Some(b) = hip() else { return };
    // SAFETY: refused before HIP is called.
    unsafe {
        assert_eq!(
            b.cuStreamAddCallback(null_mut(), None, null_mut(), 0),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cudaStreamAddCallback(null_mut(), None, null_mut(), 0),
            cudaError_t::cudaErrorInvalidValue
        );
        assert_eq!(
            b.cuStreamAddCallback(null_mut(), Some(never_cu), null_mut(), 1),
            CUresult::CUDA_ERROR_INVALID_VALUE
        );
        assert_eq!(
            b.cudaStreamAddCallback(null_mut(), Some(never_rt), null_mut(), 1),
            cudaError_t::cudaErrorInvalidValue
        );
    }
}

/// Advice, pools and default pools: one rule each for both APIs.
#[test]
fn memory_advice_and_pools_alike() {
    let Some(b) = hip() else { return };
    let (cnuma, rnuma) = (
        d::CUmemLocation::new(d::CUmemLocationType::CU_MEM_LOCATION_TYPE_HOST_NUMA, 0),
        r::cudaMemLocation::new(r::cudaMemLocationType::cudaMemLocationTypeHostNuma, 0),
    );
    let (cdev, rdev) = (
        d::CUmemLocation::new(d::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, 0),
        r::cudaMemLocation::new(r::cudaMemLocationType::cudaMemLocationTypeDevice, 0),
    );
    let ns = (
        CUresult::CUDA_ERROR_NOT_SUPPORTED,
        cudaError_t::cudaErrorNotSupported,
    );
    let inv = (
        CUresult::CUDA_ERROR_INVALID_VALUE,
        cudaError_t::cudaErrorInvalidValue,
    );
    // SAFETY: local structs and out-pointers; every case is refused before HIP is called.
    unsafe {
        let pref = (
            d::CUmem_advise::CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
            r::cudaMemoryAdvise::cudaMemAdviseSetPreferredLocation,
        );
        assert_eq!(
            (
                b.cuMemAdvise(0, 64, pref.0, cnuma),
                b.cudaMemAdvise(null(), 64, pref.1, rnuma)
            ),
            ns
        );
        assert_eq!(
            (
                b.cuMemAdvise(0, 64, d::CUmem_advise(999), cdev),
                b.cudaMemAdvise(null(), 64, r::cudaMemoryAdvise(999), rdev)
            ),
            inv
        );
        let mut cp: d::CUmemPoolProps = core::mem::zeroed();
        cp.allocType = d::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
        cp.location = cdev;
        cp.usage = 1;
        let mut rp: r::cudaMemPoolProps = core::mem::zeroed();
        rp.allocType = r::cudaMemAllocationType::cudaMemAllocationTypePinned;
        rp.location = rdev;
        rp.usage = 1;
        let (mut cpool, mut rpool) = (null_mut(), null_mut());
        assert_eq!(
            (
                b.cuMemPoolCreate(&mut cpool, &cp),
                b.cudaMemPoolCreate(&mut rpool, &rp)
            ),
            ns
        );
        cp.usage = 0;
        rp.usage = 0;
        cp.allocType = d::CUmemAllocationType(77);
        rp.allocType = r::cudaMemAllocationType(77);
        assert_eq!(
            (
                b.cuMemPoolCreate(&mut cpool, &cp),
                b.cudaMemPoolCreate(&mut rpool, &rp)
            ),
            inv
        );
        let (mut cl, mut rl) = (cdev, rdev);
        assert_eq!(
            (
                b.cuMemGetDefaultMemPool(
                    &mut cpool,
                    &mut cl,
                    d::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_MANAGED
                ),
                b.cudaMemGetDefaultMemPool(
                    &mut rpool,
                    &mut rl,
                    r::cudaMemAllocationType::cudaMemAllocationTypeManaged
                )
            ),
            ns
        );
        let (mut cl, mut rl) = (cnuma, rnuma);
        assert_eq!(
            (
                b.cuMemGetDefaultMemPool(
                    &mut cpool,
                    &mut cl,
                    d::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED
                ),
                b.cudaMemGetDefaultMemPool(
                    &mut rpool,
                    &mut rl,
                    r::cudaMemAllocationType::cudaMemAllocationTypePinned
                )
            ),
            ns
        );
    }
}

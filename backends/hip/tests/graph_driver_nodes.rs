//! The Driver API's graph nodes on the HIP backend (`src/adapt/graph_nodes.rs`: kernel nodes with a
//! `CUkernel`, memset and memcpy nodes on HIP releases without the `hipDrvGraph*` calls, the
//! generic `cuGraphAddNode` / `cuGraphNodeSetParams`), live against the installed HIP (CI:
//! Debian's ROCm 5.2.3, no GPU). What anycuda checks before HIP is asserted exactly; nothing here
//! hands HIP a made-up handle. The nodes themselves run on the GPU machine (NVIDIA's cuda.core
//! and cuda.bindings suites through the C ABI, `docs/hip-conformance.md`).

#![allow(non_snake_case)]

use anycuda_api::driver::*;
use anycuda_api::traits::Driver;
use core::ptr::{null, null_mut};

mod common;
use common::hip_required as hip;

const INVALID: CUresult = CUresult::CUDA_ERROR_INVALID_VALUE;

fn zeroed<T>() -> T {
    // SAFETY: only used for the plain-data CUDA structs below (all-zero is valid for them).
    unsafe { core::mem::zeroed() }
}

#[test]
fn kernel_nodes_check_their_arguments_before_hip() {
    let b = hip();
    let mut node: CUgraphNode = null_mut();
    let mut p: CUDA_KERNEL_NODE_PARAMS = zeroed();
    // SAFETY: NULL parameters, or a local struct naming no function: refused before HIP.
    unsafe {
        assert_eq!(
            b.cuGraphAddKernelNode(&mut node, null_mut(), null(), 0, null()),
            INVALID
        );
        // Neither `func` nor `kern`: no kernel to launch.
        assert_eq!(
            b.cuGraphAddKernelNode(&mut node, null_mut(), null(), 0, &p),
            INVALID
        );
        // A `kern` that is no kernel handle of this backend.
        p.kern = 0x1234_5678usize as CUkernel;
        assert_eq!(
            b.cuGraphAddKernelNode(&mut node, null_mut(), null(), 0, &p),
            CUresult::CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(
            b.cuGraphKernelNodeGetParams(null_mut(), null_mut()),
            INVALID
        );
        assert_eq!(b.cuGraphKernelNodeSetParams(null_mut(), null()), INVALID);
        assert_eq!(
            b.cuGraphExecKernelNodeSetParams(null_mut(), null_mut(), null()),
            INVALID
        );
    }
}

#[test]
fn memset_and_memcpy_nodes_check_their_descriptors_before_hip() {
    let b = hip();
    let mut node: CUgraphNode = null_mut();
    let mut m: CUDA_MEMSET_NODE_PARAMS = zeroed();
    m.elementSize = 3; // CUDA takes 1, 2 or 4
    m.width = 1;
    m.height = 1;
    let mut c: CUDA_MEMCPY3D = zeroed();
    c.srcMemoryType = CUmemorytype(0x55);
    c.dstMemoryType = CUmemorytype::CU_MEMORYTYPE_DEVICE;
    c.WidthInBytes = 4;
    c.Height = 1;
    c.Depth = 1;
    // SAFETY: local descriptors that are refused before any handle reaches HIP.
    unsafe {
        assert_eq!(
            b.cuGraphAddMemsetNode(&mut node, null_mut(), null(), 0, &m, null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuGraphAddMemsetNode(&mut node, null_mut(), null(), 0, null(), null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuGraphExecMemsetNodeSetParams(null_mut(), null_mut(), &m, null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuGraphAddMemcpyNode(null_mut(), null_mut(), null(), 0, &c, null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuGraphAddMemcpyNode(&mut node, null_mut(), null(), 0, null(), null_mut()),
            INVALID
        );
        assert_eq!(
            b.cuGraphMemcpyNodeGetParams(null_mut(), null_mut()),
            INVALID
        );
    }
    if b.hip_version() < 60_200_000 {
        // HIP 5.2: the Runtime-style call, which takes linear memory only. A bad memory type
        // is invalid; an array end is valid CUDA that this path cannot say.
        // SAFETY: as above.
        unsafe {
            assert_eq!(
                b.cuGraphAddMemcpyNode(&mut node, null_mut(), null(), 0, &c, null_mut()),
                INVALID
            );
            c.srcMemoryType = CUmemorytype::CU_MEMORYTYPE_ARRAY;
            assert_eq!(
                b.cuGraphAddMemcpyNode(&mut node, null_mut(), null(), 0, &c, null_mut()),
                CUresult::CUDA_ERROR_NOT_SUPPORTED
            );
        }
    }
}

#[test]
fn generic_nodes_refuse_what_is_no_node_type_and_what_hip_cannot_build() {
    let b = hip();
    let mut node: CUgraphNode = null_mut();
    let mut p: CUgraphNodeParams = zeroed();
    // SAFETY: local structs; every case is decided before HIP sees a handle.
    unsafe {
        assert_eq!(
            b.cuGraphAddNode(&mut node, null_mut(), null(), null(), 0, null_mut()),
            INVALID
        );
        p.type_ = CUgraphNodeType(0x4242);
        assert_eq!(
            b.cuGraphAddNode(&mut node, null_mut(), null(), null(), 0, &mut p),
            INVALID
        );
        assert_eq!(b.cuGraphNodeSetParams(null_mut(), &mut p), INVALID);
        assert_eq!(
            b.cuGraphExecNodeSetParams(null_mut(), null_mut(), &mut p),
            INVALID
        );
        // Conditional nodes: CUDA has them, no HIP release does.
        p.type_ = CUgraphNodeType::CU_GRAPH_NODE_TYPE_CONDITIONAL;
        assert_eq!(
            b.cuGraphAddNode(&mut node, null_mut(), null(), null(), 0, &mut p),
            CUresult::CUDA_ERROR_NOT_SUPPORTED
        );
        // A memcpy node with flags HIP has no word for; a host node without a function.
        p.type_ = CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMCPY;
        p.__bindgen_anon_1.memcpy.flags = 1;
        assert_eq!(
            b.cuGraphAddNode(&mut node, null_mut(), null(), null(), 0, &mut p),
            CUresult::CUDA_ERROR_NOT_SUPPORTED
        );
        p = zeroed();
        p.type_ = CUgraphNodeType::CU_GRAPH_NODE_TYPE_HOST;
        assert_eq!(
            b.cuGraphAddNode(&mut node, null_mut(), null(), null(), 0, &mut p),
            INVALID
        );
        // A kernel node with neither function nor kernel.
        p.type_ = CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL;
        assert_eq!(
            b.cuGraphAddNode(&mut node, null_mut(), null(), null(), 0, &mut p),
            INVALID
        );
    }
}

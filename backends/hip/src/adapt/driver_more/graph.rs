//! Graphs: CUDA 12.3+ edge-data variants, exec update, memset/memcpy/free node parameters,
//! instantiate parameters.

use super::stream::{default_edge, edges_default};
use super::{enum_to_cuda, tri, INVALID_VALUE, NOT_SUPPORTED};
use crate::adapt::launch::stream_to_hip;
use crate::adapt::memcpy::memcpy3d_to_hip;
use crate::adapt::{drv_fn, nvidia, HIP_SUCCESS};
use crate::conv::EnumMap;
use crate::hip_types::{hipGraphInstantiateParams, hipGraphNode_t, hipMemsetParams, HIP_MEMCPY3D};
use crate::HipBackend;
use anycuda_api::driver::{
    CUcontext, CUdeviceptr, CUgraph, CUgraphEdgeData, CUgraphExec, CUgraphExecUpdateResult,
    CUgraphExecUpdateResultInfo, CUgraphInstantiateResult, CUgraphNode, CUmemorytype, CUresult,
    CUDA_GRAPH_INSTANTIATE_PARAMS, CUDA_MEMCPY3D, CUDA_MEMSET_NODE_PARAMS,
};
use core::ffi::c_void;

/// Zero-fills (default edges) the first `min(cap, got)` entries of a caller's edge array.
unsafe fn fill_default_edges(edges: *mut CUgraphEdgeData, n: usize) {
    if edges.is_null() {
        return;
    }
    for i in 0..n {
        // SAFETY: within the caller's array (n is at most its capacity).
        unsafe { edges.add(i).write(default_edge()) };
    }
}

/// `cuGraphAddDependencies` (with edge data) → `hipGraphAddDependencies`: HIP graphs have only
/// default edges, so edge data asking for anything else is not supported.
pub(crate) unsafe fn cuGraphAddDependencies(
    b: &HipBackend,
    hGraph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    edgeData: *const CUgraphEdgeData,
    numDependencies: usize,
) -> CUresult {
    // SAFETY: caller's array.
    if !unsafe { edges_default(edgeData, numDependencies) } {
        return NOT_SUPPORTED;
    }
    let f = drv_fn!(b, hipGraphAddDependencies);
    // SAFETY: caller's handles and arrays.
    b.cu(unsafe { f(hGraph.cast(), from.cast(), to.cast(), numDependencies) })
}

/// `cuGraphRemoveDependencies` (with edge data) → `hipGraphRemoveDependencies`: default edges
/// only (others not supported).
pub(crate) unsafe fn cuGraphRemoveDependencies(
    b: &HipBackend,
    hGraph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    edgeData: *const CUgraphEdgeData,
    numDependencies: usize,
) -> CUresult {
    // SAFETY: caller's array.
    if !unsafe { edges_default(edgeData, numDependencies) } {
        return NOT_SUPPORTED;
    }
    let f = drv_fn!(b, hipGraphRemoveDependencies);
    // SAFETY: caller's handles and arrays.
    b.cu(unsafe { f(hGraph.cast(), from.cast(), to.cast(), numDependencies) })
}

/// `cuGraphGetEdges` (with edge data) → `hipGraphGetEdges`; every HIP edge is a default edge,
/// so requested edge data is filled with default (zeroed) entries.
pub(crate) unsafe fn cuGraphGetEdges(
    b: &HipBackend,
    hGraph: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numEdges: *mut usize,
) -> CUresult {
    if numEdges.is_null() || (!edgeData.is_null() && from.is_null()) {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL.
    let cap = unsafe { *numEdges };
    let f = drv_fn!(b, hipGraphGetEdges);
    // SAFETY: caller's arrays with `cap` entries.
    let e = unsafe { f(hGraph.cast(), from.cast(), to.cast(), numEdges) };
    if e == HIP_SUCCESS && !from.is_null() {
        // SAFETY: caller's array of `cap` entries.
        unsafe { fill_default_edges(edgeData, cap.min(*numEdges)) };
    }
    b.cu(e)
}

/// `cuGraphNodeGetDependencies` (with edge data) → `hipGraphNodeGetDependencies`; edge data
/// filled with default entries.
pub(crate) unsafe fn cuGraphNodeGetDependencies(
    b: &HipBackend,
    hNode: CUgraphNode,
    dependencies: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numDependencies: *mut usize,
) -> CUresult {
    if numDependencies.is_null() || (!edgeData.is_null() && dependencies.is_null()) {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL.
    let cap = unsafe { *numDependencies };
    let f = drv_fn!(b, hipGraphNodeGetDependencies);
    // SAFETY: caller's array with `cap` entries.
    let e = unsafe { f(hNode.cast(), dependencies.cast(), numDependencies) };
    if e == HIP_SUCCESS && !dependencies.is_null() {
        // SAFETY: caller's array of `cap` entries.
        unsafe { fill_default_edges(edgeData, cap.min(*numDependencies)) };
    }
    b.cu(e)
}

/// `cuGraphNodeGetDependentNodes` (with edge data) → `hipGraphNodeGetDependentNodes`; edge
/// data filled with default entries.
pub(crate) unsafe fn cuGraphNodeGetDependentNodes(
    b: &HipBackend,
    hNode: CUgraphNode,
    dependentNodes: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numDependentNodes: *mut usize,
) -> CUresult {
    if numDependentNodes.is_null() || (!edgeData.is_null() && dependentNodes.is_null()) {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL.
    let cap = unsafe { *numDependentNodes };
    let f = drv_fn!(b, hipGraphNodeGetDependentNodes);
    // SAFETY: caller's array with `cap` entries.
    let e = unsafe { f(hNode.cast(), dependentNodes.cast(), numDependentNodes) };
    if e == HIP_SUCCESS && !dependentNodes.is_null() {
        // SAFETY: caller's array of `cap` entries.
        unsafe { fill_default_edges(edgeData, cap.min(*numDependentNodes)) };
    }
    b.cu(e)
}

/// `cuGraphExecUpdate` (CUDA 12 result-info struct) → `hipGraphExecUpdate`: the result
/// translated; HIP does not report the "from" node of a failing edge (NULL).
pub(crate) unsafe fn cuGraphExecUpdate(
    b: &HipBackend,
    hGraphExec: CUgraphExec,
    hGraph: CUgraph,
    resultInfo: *mut CUgraphExecUpdateResultInfo,
) -> CUresult {
    if resultInfo.is_null() {
        return INVALID_VALUE;
    }
    let f = drv_fn!(b, hipGraphExecUpdate);
    let mut node: hipGraphNode_t = core::ptr::null_mut();
    let mut res = 0;
    // SAFETY: valid out-pointers; HIP validates the handles.
    let e = unsafe { f(hGraphExec.cast(), hGraph.cast(), &mut node, &mut res) };
    // SAFETY: non-NULL.
    unsafe {
        *resultInfo = CUgraphExecUpdateResultInfo {
            result: CUgraphExecUpdateResult(enum_to_cuda(b.conv().CUgraphExecUpdateResult, res)),
            errorNode: node.cast(),
            errorFromNode: core::ptr::null_mut(),
        };
    }
    b.cu(e)
}

/// `CUDA_MEMSET_NODE_PARAMS` → HIP's `hipMemsetParams` (same fields, another order).
pub(crate) fn memset_to_hip(c: &CUDA_MEMSET_NODE_PARAMS) -> hipMemsetParams {
    hipMemsetParams {
        dst: c.dst as usize as *mut c_void,
        elementSize: c.elementSize,
        height: c.height,
        pitch: c.pitch,
        value: c.value,
        width: c.width,
    }
}

/// HIP's `hipMemsetParams` → `CUDA_MEMSET_NODE_PARAMS`.
pub(crate) fn memset_to_cuda(h: &hipMemsetParams) -> CUDA_MEMSET_NODE_PARAMS {
    CUDA_MEMSET_NODE_PARAMS {
        dst: h.dst as usize as CUdeviceptr,
        pitch: h.pitch,
        value: h.value,
        elementSize: h.elementSize,
        width: h.width,
        height: h.height,
    }
}

/// `cuGraphMemsetNodeGetParams` → `hipGraphMemsetNodeGetParams`: HIP's struct (other field
/// order on AMD; CUDA's own on HIP's NVIDIA platform) rebuilt as CUDA's.
pub(crate) unsafe fn cuGraphMemsetNodeGetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_MEMSET_NODE_PARAMS,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    let f = drv_fn!(b, hipGraphMemsetNodeGetParams);
    if nvidia(b) {
        // SAFETY: `cudaMemsetParams` has CUDA_MEMSET_NODE_PARAMS's layout on that platform.
        return b.cu(unsafe { f(hNode.cast(), nodeParams.cast()) });
    }
    // SAFETY: zeroed POD, filled by HIP.
    let mut h: hipMemsetParams = unsafe { core::mem::zeroed() };
    // SAFETY: valid out-pointer.
    let e = unsafe { f(hNode.cast(), &mut h) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *nodeParams = memset_to_cuda(&h) };
    }
    b.cu(e)
}

/// `cuGraphMemsetNodeSetParams` → `hipGraphMemsetNodeSetParams`: the struct rebuilt in HIP's
/// field order (AMD).
pub(crate) unsafe fn cuGraphMemsetNodeSetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_MEMSET_NODE_PARAMS,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    let f = drv_fn!(b, hipGraphMemsetNodeSetParams);
    if nvidia(b) {
        // SAFETY: same layout on that platform.
        return b.cu(unsafe { f(hNode.cast(), nodeParams.cast()) });
    }
    // SAFETY: non-NULL.
    let h = memset_to_hip(unsafe { &*nodeParams });
    // SAFETY: `h` lives for the call.
    b.cu(unsafe { f(hNode.cast(), &h) })
}

/// `cuGraphMemFreeNodeGetParams` → `hipGraphMemFreeNodeGetParams`: HIP writes a `void*`, CUDA
/// wants a `CUdeviceptr` (same width): NULL is refused first.
pub(crate) unsafe fn cuGraphMemFreeNodeGetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    dptr_out: *mut CUdeviceptr,
) -> CUresult {
    if dptr_out.is_null() {
        return INVALID_VALUE;
    }
    let f = drv_fn!(b, hipGraphMemFreeNodeGetParams);
    let mut p: *mut c_void = core::ptr::null_mut();
    // SAFETY: HIP stores a pointer into `p`.
    let e = unsafe { f(hNode.cast(), (&mut p as *mut *mut c_void).cast()) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *dptr_out = p as usize as CUdeviceptr };
    }
    b.cu(e)
}

fn memtype_to_cuda(map: &EnumMap, t: crate::hip_types::hipMemoryType) -> CUmemorytype {
    CUmemorytype(enum_to_cuda(map, t))
}

/// HIP 6+ `HIP_MEMCPY3D` → `CUDA_MEMCPY3D` (memory types renumbered back).
pub(crate) fn memcpy3d_to_cuda(map: &EnumMap, h: &HIP_MEMCPY3D) -> CUDA_MEMCPY3D {
    CUDA_MEMCPY3D {
        srcXInBytes: h.srcXInBytes,
        srcY: h.srcY,
        srcZ: h.srcZ,
        srcLOD: h.srcLOD,
        srcMemoryType: memtype_to_cuda(map, h.srcMemoryType),
        srcHost: h.srcHost,
        srcDevice: h.srcDevice as usize as CUdeviceptr,
        srcArray: h.srcArray.cast(),
        reserved0: core::ptr::null_mut(),
        srcPitch: h.srcPitch,
        srcHeight: h.srcHeight,
        dstXInBytes: h.dstXInBytes,
        dstY: h.dstY,
        dstZ: h.dstZ,
        dstLOD: h.dstLOD,
        dstMemoryType: memtype_to_cuda(map, h.dstMemoryType),
        dstHost: h.dstHost,
        dstDevice: h.dstDevice as usize as CUdeviceptr,
        dstArray: h.dstArray.cast(),
        reserved1: core::ptr::null_mut(),
        dstPitch: h.dstPitch,
        dstHeight: h.dstHeight,
        WidthInBytes: h.WidthInBytes,
        Height: h.Height,
        Depth: h.Depth,
    }
}

/// The descriptor in HIP 6+'s layout (the `hipDrvGraph*Memcpy*` calls exist from HIP 6.2).
unsafe fn copy_params(b: &HipBackend, p: *const CUDA_MEMCPY3D) -> Result<HIP_MEMCPY3D, CUresult> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: non-NULL descriptor.
    memcpy3d_to_hip(b.conv().CUmemorytype, unsafe { &*p })
}

/// `cuGraphAddMemcpyNode` → `hipDrvGraphAddMemcpyNode` (HIP 6.2+): descriptor rebuilt as in
/// `cuMemcpy3D` (memory types renumbered, `reserved` pointers checked).
pub(crate) unsafe fn cuGraphAddMemcpyNode(
    b: &HipBackend,
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    copyParams: *const CUDA_MEMCPY3D,
    ctx: CUcontext,
) -> CUresult {
    if phGraphNode.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: forwarded contract.
    let h = tri!(unsafe { copy_params(b, copyParams) });
    let f = drv_fn!(b, hipDrvGraphAddMemcpyNode);
    // SAFETY: `h` lives for the call; caller's handles.
    b.cu(unsafe {
        f(
            phGraphNode.cast(),
            hGraph.cast(),
            dependencies.cast(),
            numDependencies,
            &h,
            ctx.cast(),
        )
    })
}

/// `cuGraphMemcpyNodeSetParams` → `hipDrvGraphMemcpyNodeSetParams` (HIP 6.3+), descriptor
/// rebuilt.
pub(crate) unsafe fn cuGraphMemcpyNodeSetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_MEMCPY3D,
) -> CUresult {
    // SAFETY: forwarded contract.
    let h = tri!(unsafe { copy_params(b, nodeParams) });
    let f = drv_fn!(b, hipDrvGraphMemcpyNodeSetParams);
    // SAFETY: `h` lives for the call.
    b.cu(unsafe { f(hNode.cast(), &h) })
}

/// `cuGraphExecMemcpyNodeSetParams` → `hipDrvGraphExecMemcpyNodeSetParams` (HIP 6.3+),
/// descriptor rebuilt.
pub(crate) unsafe fn cuGraphExecMemcpyNodeSetParams(
    b: &HipBackend,
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    copyParams: *const CUDA_MEMCPY3D,
    ctx: CUcontext,
) -> CUresult {
    // SAFETY: forwarded contract.
    let h = tri!(unsafe { copy_params(b, copyParams) });
    let f = drv_fn!(b, hipDrvGraphExecMemcpyNodeSetParams);
    // SAFETY: `h` lives for the call.
    b.cu(unsafe { f(hGraphExec.cast(), hNode.cast(), &h, ctx.cast()) })
}

/// `cuGraphMemcpyNodeGetParams` → `hipDrvGraphMemcpyNodeGetParams` (HIP 6.3+): HIP's
/// descriptor rebuilt as CUDA's (memory types renumbered back).
pub(crate) unsafe fn cuGraphMemcpyNodeGetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_MEMCPY3D,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    let f = drv_fn!(b, hipDrvGraphMemcpyNodeGetParams);
    // SAFETY: zeroed POD, filled by HIP.
    let mut h: HIP_MEMCPY3D = unsafe { core::mem::zeroed() };
    // SAFETY: valid out-pointer.
    let e = unsafe { f(hNode.cast(), &mut h) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *nodeParams = memcpy3d_to_cuda(b.conv().CUmemorytype, &h) };
    }
    b.cu(e)
}

/// `cuGraphInstantiateWithParams` → `hipGraphInstantiateWithParams` (HIP 6.2+): the struct
/// rebuilt in HIP's field order, the flags translated bit by bit, the upload stream
/// translated, and the result and error node copied back in CUDA's words.
pub(crate) unsafe fn cuGraphInstantiateWithParams(
    b: &HipBackend,
    phGraphExec: *mut CUgraphExec,
    hGraph: CUgraph,
    instantiateParams: *mut CUDA_GRAPH_INSTANTIATE_PARAMS,
) -> CUresult {
    if phGraphExec.is_null() || instantiateParams.is_null() {
        return INVALID_VALUE;
    }
    let f = drv_fn!(b, hipGraphInstantiateWithParams);
    // SAFETY: non-NULL.
    let p = unsafe { &mut *instantiateParams };
    let map = b.conv().CUgraphInstantiate_flags;
    let mut flags = 0u64;
    for bit in 0..64 {
        let m = 1u64 << bit;
        if p.flags & m != 0 {
            match map.to_hip(m as i64) {
                Some(h) => flags |= h as u64,
                None => return INVALID_VALUE,
            }
        }
    }
    let mut h = hipGraphInstantiateParams {
        errNode_out: core::ptr::null_mut(),
        flags,
        result_out: 0,
        uploadStream: stream_to_hip(b, p.hUploadStream),
    };
    // SAFETY: `h` lives for the call; caller's handles.
    let e = unsafe { f(phGraphExec.cast(), hGraph.cast(), &mut h) };
    p.hErrNode_out = h.errNode_out.cast();
    p.result_out = CUgraphInstantiateResult(enum_to_cuda(
        b.conv().CUgraphInstantiateResult,
        h.result_out,
    ));
    b.cu(e)
}

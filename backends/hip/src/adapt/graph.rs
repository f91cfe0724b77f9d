//! Graphs: CUDA 12.3+ edge data, kernel/memset/memcpy/alloc node parameters (other field
//! orders in HIP), generic node parameters, instantiation with parameters, executable update.

use super::exec::{dim3_to_cuda, dim3_to_hip};
use super::mem::{access_desc_to_hip, pool_props_to_hip};
use super::{check_default_edges, enum_to_cuda, fill_default_edges};
use crate::adapt::launch::stream_to_hip;
use crate::adapt::memcpy::memcpy3d_parms_to_hip;
use crate::adapt::{nvidia, pre_r0600, rt, rt_fn, HIP_SUCCESS};
use crate::hip_types::{
    hipGraphInstantiateParams, hipKernelNodeParams, hipMemAccessDesc, hipMemAllocNodeParams,
    hipMemcpy3DParms, hipMemsetParams,
};
use crate::HipBackend;
use anycuda_api::runtime::{
    cudaError_t, cudaGraphEdgeData, cudaGraphExecUpdateResult, cudaGraphExecUpdateResultInfo,
    cudaGraphExec_t, cudaGraphInstantiateParams, cudaGraphInstantiateResult, cudaGraphNodeParams,
    cudaGraphNodeType, cudaGraphNode_t, cudaGraph_t, cudaKernelNodeParams, cudaMemAllocNodeParams,
    cudaMemcpy3DParms, cudaMemsetParams,
};

// ---------------------------------------------------------------- edge data

/// `cudaGraphAddDependencies` (CUDA 13, with edge data) → `hipGraphAddDependencies`: default
/// (or absent) edge data only; a programmatic edge is `cudaErrorNotSupported`.
pub(crate) unsafe fn cudaGraphAddDependencies(
    b: &HipBackend,
    graph: cudaGraph_t,
    from: *const cudaGraphNode_t,
    to: *const cudaGraphNode_t,
    edgeData: *const cudaGraphEdgeData,
    numDependencies: usize,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphAddDependencies);
    // SAFETY: CUDA's contract: `numDependencies` entries.
    if let Err(e) = unsafe { check_default_edges(edgeData, numDependencies) } {
        return e;
    }
    // SAFETY: forwarded contract.
    rt(b, unsafe {
        f(graph.cast(), from.cast(), to.cast(), numDependencies)
    })
}

/// `cudaGraphRemoveDependencies` (CUDA 13, with edge data) → `hipGraphRemoveDependencies`:
/// default (or absent) edge data only.
pub(crate) unsafe fn cudaGraphRemoveDependencies(
    b: &HipBackend,
    graph: cudaGraph_t,
    from: *const cudaGraphNode_t,
    to: *const cudaGraphNode_t,
    edgeData: *const cudaGraphEdgeData,
    numDependencies: usize,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphRemoveDependencies);
    // SAFETY: CUDA's contract: `numDependencies` entries.
    if let Err(e) = unsafe { check_default_edges(edgeData, numDependencies) } {
        return e;
    }
    // SAFETY: forwarded contract.
    rt(b, unsafe {
        f(graph.cast(), from.cast(), to.cast(), numDependencies)
    })
}

/// Capacity an in-out count holds before the call (0 for NULL).
unsafe fn capacity(n: *const usize) -> usize {
    if n.is_null() {
        0
    } else {
        // SAFETY: non-NULL pointer from the caller.
        unsafe { *n }
    }
}

/// `cudaGraphGetEdges` (CUDA 13, with edge data) → `hipGraphGetEdges`; the requested edge data
/// is filled with default edges (the only kind a HIP graph has).
pub(crate) unsafe fn cudaGraphGetEdges(
    b: &HipBackend,
    graph: cudaGraph_t,
    from: *mut cudaGraphNode_t,
    to: *mut cudaGraphNode_t,
    edgeData: *mut cudaGraphEdgeData,
    numEdges: *mut usize,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphGetEdges);
    if numEdges.is_null() || (!edgeData.is_null() && (from.is_null() || to.is_null())) {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL.
    let cap = unsafe { capacity(numEdges) };
    // SAFETY: forwarded contract.
    let e = unsafe { f(graph.cast(), from.cast(), to.cast(), numEdges) };
    if e == HIP_SUCCESS && !from.is_null() {
        // SAFETY: the caller's arrays hold `cap` entries.
        unsafe { fill_default_edges(edgeData, cap) };
    }
    rt(b, e)
}

/// `cudaGraphNodeGetDependencies` (CUDA 13, with edge data) → `hipGraphNodeGetDependencies`;
/// requested edge data filled with default edges.
pub(crate) unsafe fn cudaGraphNodeGetDependencies(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pDependencies: *mut cudaGraphNode_t,
    edgeData: *mut cudaGraphEdgeData,
    pNumDependencies: *mut usize,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphNodeGetDependencies);
    if pNumDependencies.is_null() || (!edgeData.is_null() && pDependencies.is_null()) {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL.
    let cap = unsafe { capacity(pNumDependencies) };
    // SAFETY: forwarded contract.
    let e = unsafe { f(node.cast(), pDependencies.cast(), pNumDependencies) };
    if e == HIP_SUCCESS && !pDependencies.is_null() {
        // SAFETY: the caller's array holds `cap` entries.
        unsafe { fill_default_edges(edgeData, cap) };
    }
    rt(b, e)
}

/// `cudaGraphNodeGetDependentNodes` (CUDA 13, with edge data) →
/// `hipGraphNodeGetDependentNodes`; requested edge data filled with default edges.
pub(crate) unsafe fn cudaGraphNodeGetDependentNodes(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pDependentNodes: *mut cudaGraphNode_t,
    edgeData: *mut cudaGraphEdgeData,
    pNumDependentNodes: *mut usize,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphNodeGetDependentNodes);
    if pNumDependentNodes.is_null() || (!edgeData.is_null() && pDependentNodes.is_null()) {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL.
    let cap = unsafe { capacity(pNumDependentNodes) };
    // SAFETY: forwarded contract.
    let e = unsafe { f(node.cast(), pDependentNodes.cast(), pNumDependentNodes) };
    if e == HIP_SUCCESS && !pDependentNodes.is_null() {
        // SAFETY: the caller's array holds `cap` entries.
        unsafe { fill_default_edges(edgeData, cap) };
    }
    rt(b, e)
}

// ---------------------------------------------------------------- kernel nodes

/// `cudaKernelNodeParams` → HIP's (other field order). CUDA's `extra` uses CUDA's launch
/// markers and HIP may keep the array past the call, so `extra` is not supported on AMD.
pub(crate) fn kernel_params_to_hip(
    p: &cudaKernelNodeParams,
) -> Result<hipKernelNodeParams, cudaError_t> {
    if !p.extra.is_null() {
        return Err(cudaError_t::cudaErrorNotSupported);
    }
    if p.func.is_null() {
        return Err(cudaError_t::cudaErrorInvalidDeviceFunction);
    }
    Ok(hipKernelNodeParams {
        blockDim: dim3_to_hip(p.blockDim),
        extra: core::ptr::null_mut(),
        func: p.func,
        gridDim: dim3_to_hip(p.gridDim),
        kernelParams: p.kernelParams,
        sharedMemBytes: p.sharedMemBytes,
    })
}

/// HIP's kernel node parameters in CUDA's struct.
pub(crate) fn kernel_params_to_cuda(h: &hipKernelNodeParams) -> cudaKernelNodeParams {
    cudaKernelNodeParams {
        func: h.func,
        gridDim: dim3_to_cuda(h.gridDim),
        blockDim: dim3_to_cuda(h.blockDim),
        sharedMemBytes: h.sharedMemBytes,
        kernelParams: h.kernelParams,
        extra: h.extra,
    }
}

/// The HIP kernel parameters for a CUDA pointer: CUDA's struct itself on HIP's NVIDIA
/// platform (`hipKernelNodeParams` is `cudaKernelNodeParams` there), else rebuilt into `buf`.
unsafe fn kernel_in(
    b: &HipBackend,
    p: *const cudaKernelNodeParams,
    buf: &mut hipKernelNodeParams,
) -> Result<*const hipKernelNodeParams, cudaError_t> {
    if p.is_null() {
        return Err(cudaError_t::cudaErrorInvalidValue);
    }
    if nvidia(b) {
        return Ok(p.cast());
    }
    // SAFETY: non-NULL from the caller.
    *buf = kernel_params_to_hip(unsafe { &*p })?;
    Ok(buf)
}

fn zero_kernel() -> hipKernelNodeParams {
    // SAFETY: plain data; all-zero is valid.
    unsafe { core::mem::zeroed() }
}

/// `cudaGraphAddKernelNode` → `hipGraphAddKernelNode`: parameters rebuilt in HIP's field
/// order (`extra` not supported on AMD, see [`kernel_params_to_hip`]).
pub(crate) unsafe fn cudaGraphAddKernelNode(
    b: &HipBackend,
    pGraphNode: *mut cudaGraphNode_t,
    graph: cudaGraph_t,
    pDependencies: *const cudaGraphNode_t,
    numDependencies: usize,
    pNodeParams: *const cudaKernelNodeParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphAddKernelNode);
    let mut buf = zero_kernel();
    // SAFETY: forwarded contract.
    let p = match unsafe { kernel_in(b, pNodeParams, &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call; HIP copies the parameters.
    rt(b, unsafe {
        f(
            pGraphNode.cast(),
            graph.cast(),
            pDependencies.cast(),
            numDependencies,
            p,
        )
    })
}

/// `cudaGraphKernelNodeGetParams` → `hipGraphKernelNodeGetParams`, HIP's struct copied back in
/// CUDA's field order.
pub(crate) unsafe fn cudaGraphKernelNodeGetParams(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pNodeParams: *mut cudaKernelNodeParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphKernelNodeGetParams);
    // SAFETY: forwarded contract.
    unsafe {
        node_get_params(
            b,
            f,
            node,
            pNodeParams,
            zero_kernel(),
            kernel_params_to_cuda,
        )
    }
}

/// `cudaGraphKernelNodeSetParams` → `hipGraphKernelNodeSetParams`, parameters rebuilt.
pub(crate) unsafe fn cudaGraphKernelNodeSetParams(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pNodeParams: *const cudaKernelNodeParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphKernelNodeSetParams);
    let mut buf = zero_kernel();
    // SAFETY: forwarded contract.
    let p = match unsafe { kernel_in(b, pNodeParams, &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call.
    rt(b, unsafe { f(node.cast(), p) })
}

/// `cudaGraphExecKernelNodeSetParams` → `hipGraphExecKernelNodeSetParams`, parameters rebuilt.
pub(crate) unsafe fn cudaGraphExecKernelNodeSetParams(
    b: &HipBackend,
    hGraphExec: cudaGraphExec_t,
    node: cudaGraphNode_t,
    pNodeParams: *const cudaKernelNodeParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphExecKernelNodeSetParams);
    let mut buf = zero_kernel();
    // SAFETY: forwarded contract.
    let p = match unsafe { kernel_in(b, pNodeParams, &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call.
    rt(b, unsafe { f(hGraphExec.cast(), node.cast(), p) })
}

// ---------------------------------------------------------------- memset nodes

/// `cudaMemsetParams` → HIP's (other field order); CUDA's element sizes are 1, 2 or 4
/// (anything else `cudaErrorInvalidValue`).
pub(crate) fn memset_params_to_hip(p: &cudaMemsetParams) -> Result<hipMemsetParams, cudaError_t> {
    if !matches!(p.elementSize, 1 | 2 | 4) {
        return Err(cudaError_t::cudaErrorInvalidValue);
    }
    Ok(hipMemsetParams {
        dst: p.dst,
        elementSize: p.elementSize,
        height: p.height,
        pitch: p.pitch,
        value: p.value,
        width: p.width,
    })
}

/// HIP's memset parameters in CUDA's struct.
pub(crate) fn memset_params_to_cuda(h: &hipMemsetParams) -> cudaMemsetParams {
    cudaMemsetParams {
        dst: h.dst,
        pitch: h.pitch,
        value: h.value,
        elementSize: h.elementSize,
        width: h.width,
        height: h.height,
    }
}

unsafe fn memset_in(
    b: &HipBackend,
    p: *const cudaMemsetParams,
    buf: &mut hipMemsetParams,
) -> Result<*const hipMemsetParams, cudaError_t> {
    if p.is_null() {
        return Err(cudaError_t::cudaErrorInvalidValue);
    }
    // SAFETY: non-NULL from the caller.
    let c = unsafe { &*p };
    *buf = memset_params_to_hip(c)?;
    if nvidia(b) {
        // `hipMemsetParams` is `cudaMemsetParams` there.
        return Ok(p.cast());
    }
    Ok(buf)
}

fn zero_memset() -> hipMemsetParams {
    // SAFETY: plain data; all-zero is valid.
    unsafe { core::mem::zeroed() }
}

/// `cudaGraphAddMemsetNode` → `hipGraphAddMemsetNode`: parameters rebuilt in HIP's order.
pub(crate) unsafe fn cudaGraphAddMemsetNode(
    b: &HipBackend,
    pGraphNode: *mut cudaGraphNode_t,
    graph: cudaGraph_t,
    pDependencies: *const cudaGraphNode_t,
    numDependencies: usize,
    pMemsetParams: *const cudaMemsetParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphAddMemsetNode);
    let mut buf = zero_memset();
    // SAFETY: forwarded contract.
    let p = match unsafe { memset_in(b, pMemsetParams, &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call.
    rt(b, unsafe {
        f(
            pGraphNode.cast(),
            graph.cast(),
            pDependencies.cast(),
            numDependencies,
            p,
        )
    })
}

/// `cudaGraphMemsetNodeGetParams` → `hipGraphMemsetNodeGetParams`, copied back in CUDA's
/// order.
pub(crate) unsafe fn cudaGraphMemsetNodeGetParams(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pNodeParams: *mut cudaMemsetParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphMemsetNodeGetParams);
    // SAFETY: forwarded contract.
    unsafe {
        node_get_params(
            b,
            f,
            node,
            pNodeParams,
            zero_memset(),
            memset_params_to_cuda,
        )
    }
}

/// `cudaGraphMemsetNodeSetParams` → `hipGraphMemsetNodeSetParams`, parameters rebuilt.
pub(crate) unsafe fn cudaGraphMemsetNodeSetParams(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pNodeParams: *const cudaMemsetParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphMemsetNodeSetParams);
    let mut buf = zero_memset();
    // SAFETY: forwarded contract.
    let p = match unsafe { memset_in(b, pNodeParams, &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call.
    rt(b, unsafe { f(node.cast(), p) })
}

/// `cudaGraphExecMemsetNodeSetParams` → `hipGraphExecMemsetNodeSetParams`, parameters rebuilt.
pub(crate) unsafe fn cudaGraphExecMemsetNodeSetParams(
    b: &HipBackend,
    hGraphExec: cudaGraphExec_t,
    node: cudaGraphNode_t,
    pNodeParams: *const cudaMemsetParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphExecMemsetNodeSetParams);
    let mut buf = zero_memset();
    // SAFETY: forwarded contract.
    let p = match unsafe { memset_in(b, pNodeParams, &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call.
    rt(b, unsafe { f(hGraphExec.cast(), node.cast(), p) })
}

// ---------------------------------------------------------------- update, instantiate

/// `cudaGraphExecUpdate` (CUDA 12+: a result-info struct) → `hipGraphExecUpdate`: the result
/// translated and the error node copied; HIP does not report `errorFromNode` (left NULL, as
/// CUDA does for every result but a topology change).
pub(crate) unsafe fn cudaGraphExecUpdate(
    b: &HipBackend,
    hGraphExec: cudaGraphExec_t,
    hGraph: cudaGraph_t,
    resultInfo: *mut cudaGraphExecUpdateResultInfo,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphExecUpdate);
    if resultInfo.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let mut node = core::ptr::null_mut();
    let mut res = 0u32;
    // SAFETY: valid out-pointers.
    let e = unsafe { f(hGraphExec.cast(), hGraph.cast(), &mut node, &mut res) };
    let result = if nvidia(b) {
        res
    } else {
        enum_to_cuda(b.conv().cudaGraphExecUpdateResult, res, res)
    };
    // SAFETY: non-NULL out-pointer.
    unsafe {
        resultInfo.write(cudaGraphExecUpdateResultInfo {
            result: cudaGraphExecUpdateResult(result),
            errorNode: node.cast(),
            errorFromNode: core::ptr::null_mut(),
        })
    };
    rt(b, e)
}

/// `cudaGraphInstantiateWithParams` → `hipGraphInstantiateWithParams` (HIP 6+): the struct
/// rebuilt in HIP's field order (flags and result through the tables), outputs copied back.
pub(crate) unsafe fn cudaGraphInstantiateWithParams(
    b: &HipBackend,
    pGraphExec: *mut cudaGraphExec_t,
    graph: cudaGraph_t,
    instantiateParams: *mut cudaGraphInstantiateParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphInstantiateWithParams);
    if pGraphExec.is_null() || instantiateParams.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL in-out struct from the caller.
    let c = unsafe { &mut *instantiateParams };
    let map = b.conv().cudaGraphInstantiateFlags;
    let mut flags = 0u64;
    let mut rest = c.flags;
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        rest &= !bit;
        let Some(h) = map.to_hip(bit as i64) else {
            return cudaError_t::cudaErrorInvalidValue;
        };
        flags |= h as u64;
    }
    let mut h = hipGraphInstantiateParams {
        errNode_out: core::ptr::null_mut(),
        flags,
        result_out: 0,
        uploadStream: stream_to_hip(b, c.uploadStream.cast()),
    };
    // SAFETY: `h` lives for the call.
    let e = unsafe { f(pGraphExec.cast(), graph.cast(), &mut h) };
    c.errNode_out = h.errNode_out.cast();
    c.result_out = cudaGraphInstantiateResult(enum_to_cuda(
        b.conv().cudaGraphInstantiateResult,
        h.result_out,
        h.result_out,
    ));
    rt(b, e)
}

// ---------------------------------------------------------------- memory nodes

/// The most access descriptors translated for a memory allocation node (one per GPU).
pub(crate) const MAX_ACCESS_DESCS: usize = 64;

/// `cudaGraphAddMemAllocNode` → `hipGraphAddMemAllocNode`: pool properties and access
/// descriptors rebuilt on the stack (more than [`MAX_ACCESS_DESCS`]: not supported), the
/// allocated address written back to `nodeParams->dptr`.
pub(crate) unsafe fn cudaGraphAddMemAllocNode(
    b: &HipBackend,
    pGraphNode: *mut cudaGraphNode_t,
    graph: cudaGraph_t,
    pDependencies: *const cudaGraphNode_t,
    numDependencies: usize,
    nodeParams: *mut cudaMemAllocNodeParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphAddMemAllocNode);
    if nodeParams.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if nvidia(b) {
        // SAFETY: `hipMemAllocNodeParams` is CUDA's struct on that platform.
        return rt(b, unsafe {
            f(
                pGraphNode.cast(),
                graph.cast(),
                pDependencies.cast(),
                numDependencies,
                nodeParams.cast(),
            )
        });
    }
    // SAFETY: non-NULL in-out struct.
    let c = unsafe { &mut *nodeParams };
    let n = c.accessDescCount;
    if n > 0 && c.accessDescs.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if n > MAX_ACCESS_DESCS {
        return cudaError_t::cudaErrorNotSupported;
    }
    // SAFETY: plain data; all-zero is valid.
    let mut descs: [hipMemAccessDesc; MAX_ACCESS_DESCS] = unsafe { core::mem::zeroed() };
    for (i, slot) in descs.iter_mut().enumerate().take(n) {
        // SAFETY: within the caller's `accessDescCount` entries.
        match access_desc_to_hip(b.conv(), unsafe { &*c.accessDescs.add(i) }) {
            Ok(d) => *slot = d,
            Err(e) => return e,
        }
    }
    let props = match pool_props_to_hip(b.conv(), &c.poolProps, pre_r0600(b)) {
        Ok(p) => p,
        Err(e) => return e,
    };
    let mut h = hipMemAllocNodeParams {
        poolProps: props,
        accessDescs: if n == 0 {
            core::ptr::null()
        } else {
            descs.as_ptr()
        },
        accessDescCount: n,
        bytesize: c.bytesize,
        dptr: core::ptr::null_mut(),
    };
    // SAFETY: `h` and `descs` live for the call (HIP copies them into the node).
    let e = unsafe {
        f(
            pGraphNode.cast(),
            graph.cast(),
            pDependencies.cast(),
            numDependencies,
            &mut h,
        )
    };
    if e == HIP_SUCCESS {
        c.dptr = h.dptr;
    }
    rt(b, e)
}

/// `cudaGraphMemAllocNodeGetParams` → `hipGraphMemAllocNodeGetParams`: pool properties
/// translated back; the access descriptors are HIP's array, whose layout is CUDA's, handed out
/// only when every entry's values are CUDA's too (device locations and access flags are, in
/// every HIP version), else `cudaErrorNotSupported`.
pub(crate) unsafe fn cudaGraphMemAllocNodeGetParams(
    b: &HipBackend,
    node: cudaGraphNode_t,
    params_out: *mut cudaMemAllocNodeParams,
) -> cudaError_t {
    let f = rt_fn!(b, hipGraphMemAllocNodeGetParams);
    if params_out.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if nvidia(b) {
        // SAFETY: `hipMemAllocNodeParams` is CUDA's struct on that platform.
        return rt(b, unsafe { f(node.cast(), params_out.cast()) });
    }
    // SAFETY: plain data; all-zero is valid.
    let mut h: hipMemAllocNodeParams = unsafe { core::mem::zeroed() };
    // SAFETY: valid out-struct.
    let e = unsafe { f(node.cast(), &mut h) };
    if e != HIP_SUCCESS {
        return rt(b, e);
    }
    let conv = b.conv();
    let same =
        |map: &crate::conv::EnumMap, v: u32| map.lookup_cuda(i64::from(v)) == Some(i64::from(v));
    if h.accessDescCount > 0 && h.accessDescs.is_null() {
        return cudaError_t::cudaErrorUnknown;
    }
    for i in 0..h.accessDescCount {
        // SAFETY: HIP's array of `accessDescCount` entries, owned by the node.
        let d = unsafe { &*h.accessDescs.add(i) };
        if !same(conv.cudaMemLocationType, d.location.type_)
            || !same(conv.cudaMemAccessFlags, d.flags)
        {
            return cudaError_t::cudaErrorNotSupported;
        }
    }
    let p = &h.poolProps;
    let mut handles = 0u32;
    let mut rest = p.handleTypes;
    while rest != 0 {
        let bit = rest & rest.wrapping_neg();
        rest &= !bit;
        handles |= enum_to_cuda(conv.cudaMemAllocationHandleType, bit, bit);
    }
    // SAFETY: plain data; all-zero is valid.
    let mut props: anycuda_api::runtime::cudaMemPoolProps = unsafe { core::mem::zeroed() };
    props.allocType = anycuda_api::runtime::cudaMemAllocationType(enum_to_cuda(
        conv.cudaMemAllocationType,
        p.allocType,
        p.allocType,
    ));
    props.handleTypes = anycuda_api::runtime::cudaMemAllocationHandleType(handles);
    props.location.type_ = anycuda_api::runtime::cudaMemLocationType(enum_to_cuda(
        conv.cudaMemLocationType,
        p.location.type_,
        p.location.type_,
    ));
    props.location.id = p.location.id;
    props.win32SecurityAttributes = p.win32SecurityAttributes;
    props.maxSize = if pre_r0600(b) { 0 } else { p.maxSize };
    // SAFETY: non-NULL out-pointer; the descriptor layouts are identical (checked values).
    unsafe {
        params_out.write(cudaMemAllocNodeParams {
            poolProps: props,
            accessDescs: h.accessDescs.cast(),
            accessDescCount: h.accessDescCount,
            bytesize: h.bytesize,
            dptr: h.dptr,
        })
    };
    cudaError_t::cudaSuccess
}

// ---------------------------------------------------------------- generic node parameters

/// `cudaMemcpy3DParms` in HIP's words (CUDA's struct on HIP's NVIDIA platform).
fn memcpy_to_hip(b: &HipBackend, p: &cudaMemcpy3DParms) -> Result<hipMemcpy3DParms, cudaError_t> {
    if nvidia(b) {
        // SAFETY: `hipMemcpy3DParms` is `cudaMemcpy3DParms` there (same size, plain data).
        return Ok(unsafe { core::mem::transmute_copy(p) });
    }
    memcpy3d_parms_to_hip(b.conv().cudaMemcpyKind, p)
}

/// `cudaGraphAddNode` (CUDA 12.3+, generic parameters and edge data): kernel, memset, memcpy,
/// empty, child-graph (clone ownership), event-record and event-wait nodes are added through
/// HIP's per-type entry points with their parameters translated; default (or absent) edge data
/// only; other node types are `cudaErrorNotSupported`.
pub(crate) unsafe fn cudaGraphAddNode(
    b: &HipBackend,
    pGraphNode: *mut cudaGraphNode_t,
    graph: cudaGraph_t,
    pDependencies: *const cudaGraphNode_t,
    dependencyData: *const cudaGraphEdgeData,
    numDependencies: usize,
    nodeParams: *mut cudaGraphNodeParams,
) -> cudaError_t {
    if nodeParams.is_null() || pGraphNode.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: CUDA's contract: `numDependencies` entries.
    if let Err(e) = unsafe { check_default_edges(dependencyData, numDependencies) } {
        return e;
    }
    // SAFETY: non-NULL from the caller.
    let np = unsafe { &*nodeParams };
    let (out, g, deps, n) = (
        pGraphNode.cast(),
        graph.cast(),
        pDependencies.cast(),
        numDependencies,
    );
    // SAFETY (every arm): the union member the node type selects; handles and pointers are the
    // caller's; translated structs live on the stack for the call.
    unsafe {
        match np.type_ {
            cudaGraphNodeType::cudaGraphNodeTypeKernel => {
                let k = &np.__bindgen_anon_1.kernel;
                let c = cudaKernelNodeParams {
                    func: k.func,
                    gridDim: k.gridDim,
                    blockDim: k.blockDim,
                    sharedMemBytes: k.sharedMemBytes,
                    kernelParams: k.kernelParams,
                    extra: k.extra,
                };
                cudaGraphAddKernelNode(b, pGraphNode, graph, pDependencies, n, &c)
            }
            cudaGraphNodeType::cudaGraphNodeTypeMemset => {
                let m = &np.__bindgen_anon_1.memset;
                let c = cudaMemsetParams {
                    dst: m.dst,
                    pitch: m.pitch,
                    value: m.value,
                    elementSize: m.elementSize,
                    width: m.width,
                    height: m.height,
                };
                cudaGraphAddMemsetNode(b, pGraphNode, graph, pDependencies, n, &c)
            }
            cudaGraphNodeType::cudaGraphNodeTypeMemcpy => {
                let m = &np.__bindgen_anon_1.memcpy;
                if m.flags != 0 {
                    return cudaError_t::cudaErrorNotSupported;
                }
                let h = match memcpy_to_hip(b, &m.copyParams) {
                    Ok(h) => h,
                    Err(e) => return e,
                };
                rt(b, rt_fn!(b, hipGraphAddMemcpyNode)(out, g, deps, n, &h))
            }
            cudaGraphNodeType::cudaGraphNodeTypeEmpty => {
                rt(b, rt_fn!(b, hipGraphAddEmptyNode)(out, g, deps, n))
            }
            cudaGraphNodeType::cudaGraphNodeTypeGraph => {
                let c = &np.__bindgen_anon_1.graph;
                if c.ownership.0 != 0 {
                    return cudaError_t::cudaErrorNotSupported;
                }
                rt(
                    b,
                    rt_fn!(b, hipGraphAddChildGraphNode)(out, g, deps, n, c.graph.cast()),
                )
            }
            cudaGraphNodeType::cudaGraphNodeTypeEventRecord => {
                let ev = np.__bindgen_anon_1.eventRecord.event;
                rt(
                    b,
                    rt_fn!(b, hipGraphAddEventRecordNode)(out, g, deps, n, ev.cast()),
                )
            }
            cudaGraphNodeType::cudaGraphNodeTypeWaitEvent => {
                let ev = np.__bindgen_anon_1.eventWait.event;
                rt(
                    b,
                    rt_fn!(b, hipGraphAddEventWaitNode)(out, g, deps, n, ev.cast()),
                )
            }
            t if anycuda_api::CudaEnum::name(t).is_none() => cudaError_t::cudaErrorInvalidValue,
            _ => cudaError_t::cudaErrorNotSupported,
        }
    }
}

/// `cudaGraphNodeSetParams` (CUDA 12.2+ generic parameters): kernel, memset and memcpy nodes
/// through HIP's per-type setters with their parameters translated; other node types are
/// `cudaErrorNotSupported`.
pub(crate) unsafe fn cudaGraphNodeSetParams(
    b: &HipBackend,
    node: cudaGraphNode_t,
    nodeParams: *mut cudaGraphNodeParams,
) -> cudaError_t {
    if nodeParams.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL from the caller.
    let np = unsafe { &*nodeParams };
    // SAFETY (every arm): the union member the node type selects.
    unsafe {
        match np.type_ {
            cudaGraphNodeType::cudaGraphNodeTypeKernel => {
                let k = &np.__bindgen_anon_1.kernel;
                let c = cudaKernelNodeParams {
                    func: k.func,
                    gridDim: k.gridDim,
                    blockDim: k.blockDim,
                    sharedMemBytes: k.sharedMemBytes,
                    kernelParams: k.kernelParams,
                    extra: k.extra,
                };
                cudaGraphKernelNodeSetParams(b, node, &c)
            }
            cudaGraphNodeType::cudaGraphNodeTypeMemset => {
                let m = &np.__bindgen_anon_1.memset;
                let c = cudaMemsetParams {
                    dst: m.dst,
                    pitch: m.pitch,
                    value: m.value,
                    elementSize: m.elementSize,
                    width: m.width,
                    height: m.height,
                };
                cudaGraphMemsetNodeSetParams(b, node, &c)
            }
            cudaGraphNodeType::cudaGraphNodeTypeMemcpy => {
                let m = &np.__bindgen_anon_1.memcpy;
                if m.flags != 0 {
                    return cudaError_t::cudaErrorNotSupported;
                }
                let h = match memcpy_to_hip(b, &m.copyParams) {
                    Ok(h) => h,
                    Err(e) => return e,
                };
                rt(b, rt_fn!(b, hipGraphMemcpyNodeSetParams)(node.cast(), &h))
            }
            t if anycuda_api::CudaEnum::name(t).is_none() => cudaError_t::cudaErrorInvalidValue,
            _ => cudaError_t::cudaErrorNotSupported,
        }
    }
}

/// `cudaGraphExecNodeSetParams` (CUDA 12.2+ generic parameters): kernel, memset and memcpy
/// nodes through HIP's per-type executable setters; other node types are
/// `cudaErrorNotSupported`.
pub(crate) unsafe fn cudaGraphExecNodeSetParams(
    b: &HipBackend,
    graphExec: cudaGraphExec_t,
    node: cudaGraphNode_t,
    nodeParams: *mut cudaGraphNodeParams,
) -> cudaError_t {
    if nodeParams.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL from the caller.
    let np = unsafe { &*nodeParams };
    // SAFETY (every arm): the union member the node type selects.
    unsafe {
        match np.type_ {
            cudaGraphNodeType::cudaGraphNodeTypeKernel => {
                let k = &np.__bindgen_anon_1.kernel;
                let c = cudaKernelNodeParams {
                    func: k.func,
                    gridDim: k.gridDim,
                    blockDim: k.blockDim,
                    sharedMemBytes: k.sharedMemBytes,
                    kernelParams: k.kernelParams,
                    extra: k.extra,
                };
                cudaGraphExecKernelNodeSetParams(b, graphExec, node, &c)
            }
            cudaGraphNodeType::cudaGraphNodeTypeMemset => {
                let m = &np.__bindgen_anon_1.memset;
                let c = cudaMemsetParams {
                    dst: m.dst,
                    pitch: m.pitch,
                    value: m.value,
                    elementSize: m.elementSize,
                    width: m.width,
                    height: m.height,
                };
                cudaGraphExecMemsetNodeSetParams(b, graphExec, node, &c)
            }
            cudaGraphNodeType::cudaGraphNodeTypeMemcpy => {
                let m = &np.__bindgen_anon_1.memcpy;
                if m.flags != 0 {
                    return cudaError_t::cudaErrorNotSupported;
                }
                let mut h = match memcpy_to_hip(b, &m.copyParams) {
                    Ok(h) => h,
                    Err(e) => return e,
                };
                rt(
                    b,
                    rt_fn!(b, hipGraphExecMemcpyNodeSetParams)(
                        graphExec.cast(),
                        node.cast(),
                        &mut h,
                    ),
                )
            }
            t if anycuda_api::CudaEnum::name(t).is_none() => cudaError_t::cudaErrorInvalidValue,
            _ => cudaError_t::cudaErrorNotSupported,
        }
    }
}

/// The `*NodeGetParams` shape: HIP fills its own struct, copied out in CUDA's field order; on HIP's
/// NVIDIA platform the two are one struct and HIP writes the caller's directly.
///
/// # Safety
/// `out` is NULL or valid for one write; `f` is the HIP getter for `H`.
unsafe fn node_get_params<H, C>(
    b: &HipBackend,
    f: unsafe extern "C" fn(
        crate::hip_types::hipGraphNode_t,
        *mut H,
    ) -> crate::hip_types::hipError_t,
    node: cudaGraphNode_t,
    out: *mut C,
    mut h: H,
    to_cuda: fn(&H) -> C,
) -> cudaError_t {
    if out.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if nvidia(b) {
        // SAFETY: same struct on that platform.
        return rt(b, unsafe { f(node.cast(), out.cast()) });
    }
    // SAFETY: valid out-struct.
    let e = unsafe { f(node.cast(), &mut h) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer.
        unsafe { out.write(to_cuda(&h)) };
    }
    rt(b, e)
}

//! Graphs: CUDA 12.3+ edge data, kernel/memset/memcpy/alloc node parameters (other field
//! orders in HIP), generic node parameters, instantiation with parameters, executable update,
//! and the lifecycle hooks of anycuda's user objects (`adapt/user_object.rs`): creation,
//! cloning, instantiation, update and destruction of graphs and executable graphs.

use super::memory::pre_hip62;
use super::support::{hip_fn, nvidia, HIP_SUCCESS, INVALID_VALUE};
use super::user_object;
use crate::conv::graph_nodes::{
    kernel_params_of_v2, kernel_params_to_cuda, kernel_params_to_hip, memset_params_of_v2,
    memset_to_cuda, memset_to_hip,
};
use crate::conv::memcpy::{memcpy3d_to_hip, memcpy_to_hip};
use crate::conv::memory::{
    access_descs_to_hip, pool_props_to_cuda, pool_props_to_hip, MAX_ACCESS_DESCS,
};
use crate::conv::{
    check_default_edges, devptr_to_cuda, enum_bits_to_hip, enum_to_cuda, fill_default_edges,
    stream_to_hip, ApiResult, EdgeData, EnumMap, Refusal,
};
use crate::hip_types::{
    hipGraphInstantiateParams, hipGraphNode_t, hipKernelNodeParams, hipMemAccessDesc,
    hipMemAllocNodeParams, hipMemsetParams, HIP_MEMCPY3D,
};
use crate::HipBackend;
use anycuda_api::driver::{
    CUdeviceptr, CUgraph, CUgraphEdgeData, CUgraphExec, CUgraphExecUpdateResult,
    CUgraphExecUpdateResultInfo, CUgraphInstantiateResult, CUgraphNode, CUgraphNodeType, CUresult,
    CUstream, CUDA_GRAPH_INSTANTIATE_PARAMS, CUDA_MEMCPY3D, CUDA_MEMSET_NODE_PARAMS,
    CUDA_MEM_ALLOC_NODE_PARAMS,
};
use anycuda_api::runtime::{
    cudaError_t, cudaGraphEdgeData, cudaGraphExecUpdateResultInfo, cudaGraphExec_t,
    cudaGraphInstantiateParams, cudaGraphNodeParams, cudaGraphNodeType, cudaGraphNode_t,
    cudaGraph_t, cudaKernelNodeParams, cudaMemAllocNodeParams, cudaMemsetParams, cudaStream_t,
};
use core::ffi::c_void;
use core::ptr::null_mut;

// ---------------------------------------------------------------- edges (both APIs)
//
// HIP graphs only have default edges (full completion, no ports). One implementation serves
// the Driver and the Runtime entry points: CUDA 12.3+ edge data on input must be default, and
// edge data asked for on output is filled with default edges. `R` is the API's result type,
// `E` its edge-data type (`CUgraphNode` and `cudaGraphNode_t` are one type, as are the graphs).

/// Adds or removes dependencies (`add`): default (or absent) edge data only.
///
/// # Safety
/// CUDA's contract: `from`, `to` and `edge_data` (if not NULL) hold `n` entries.
unsafe fn change_dependencies<R: ApiResult, E: EdgeData>(
    b: &HipBackend,
    add: bool,
    graph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    edge_data: *const E,
    n: usize,
) -> R {
    // SAFETY: CUDA's contract: `n` edges or NULL.
    if let Err(e) = unsafe { check_default_edges(edge_data, n) } {
        return e.into();
    }
    let f = if add {
        hip_fn!(b, hipGraphAddDependencies)
    } else {
        hip_fn!(b, hipGraphRemoveDependencies)
    };
    // SAFETY: forwarded contract; HIP validates the handles.
    R::from_hip(b.conv(), unsafe {
        f(graph.cast(), from.cast(), to.cast(), n)
    })
}

/// What an edge query asks HIP for.
#[derive(Clone, Copy)]
enum EdgeQuery {
    /// All edges of `graph` (`from` and `to` arrays).
    Graph(CUgraph),
    /// The dependencies of a node (`nodes` is `from`).
    Dependencies(CUgraphNode),
    /// The dependents of a node (`nodes` is `to`).
    Dependents(CUgraphNode),
}

/// An edge query with optional edge data: as CUDA, `count` is required, and edge data needs
/// the node array(s); the caller's `*count` entries of edge data are filled with default edges
/// (past the edges returned they stand for none, as CUDA zeroes the unused node entries).
///
/// # Safety
/// CUDA's contract: non-NULL arrays hold `*count` entries.
unsafe fn query_edges<R: ApiResult, E: EdgeData>(
    b: &HipBackend,
    q: EdgeQuery,
    nodes: *mut CUgraphNode,
    to: *mut CUgraphNode,
    edge_data: *mut E,
    count: *mut usize,
) -> R {
    let needs_to = matches!(q, EdgeQuery::Graph(_));
    if count.is_null() || (!edge_data.is_null() && (nodes.is_null() || (needs_to && to.is_null())))
    {
        return Refusal::InvalidValue.into();
    }
    // SAFETY: non-NULL, from the caller.
    let cap = unsafe { *count };
    // SAFETY: forwarded contract; HIP validates the handles.
    let e = unsafe {
        match q {
            EdgeQuery::Graph(g) => {
                hip_fn!(b, hipGraphGetEdges)(g.cast(), nodes.cast(), to.cast(), count)
            }
            EdgeQuery::Dependencies(n) => {
                hip_fn!(b, hipGraphNodeGetDependencies)(n.cast(), nodes.cast(), count)
            }
            EdgeQuery::Dependents(n) => {
                hip_fn!(b, hipGraphNodeGetDependentNodes)(n.cast(), nodes.cast(), count)
            }
        }
    };
    if e == HIP_SUCCESS && !nodes.is_null() {
        // SAFETY: the caller's edge-data array holds `cap` entries.
        unsafe { fill_default_edges(edge_data, cap) };
    }
    R::from_hip(b.conv(), e)
}

/// `cuGraphAddDependencies` (with edge data) → `hipGraphAddDependencies`: default edges only.
pub(crate) unsafe fn cuGraphAddDependencies(
    b: &HipBackend,
    hGraph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    edgeData: *const CUgraphEdgeData,
    numDependencies: usize,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { change_dependencies(b, true, hGraph, from, to, edgeData, numDependencies) }
}

/// `cudaGraphAddDependencies` (CUDA 13, with edge data) → `hipGraphAddDependencies`: default
/// edges only.
pub(crate) unsafe fn cudaGraphAddDependencies(
    b: &HipBackend,
    graph: cudaGraph_t,
    from: *const cudaGraphNode_t,
    to: *const cudaGraphNode_t,
    edgeData: *const cudaGraphEdgeData,
    numDependencies: usize,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    unsafe { change_dependencies(b, true, graph, from, to, edgeData, numDependencies) }
}

/// `cuGraphRemoveDependencies` (with edge data) → `hipGraphRemoveDependencies`: default edges
/// only.
pub(crate) unsafe fn cuGraphRemoveDependencies(
    b: &HipBackend,
    hGraph: CUgraph,
    from: *const CUgraphNode,
    to: *const CUgraphNode,
    edgeData: *const CUgraphEdgeData,
    numDependencies: usize,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { change_dependencies(b, false, hGraph, from, to, edgeData, numDependencies) }
}

/// `cudaGraphRemoveDependencies` (CUDA 13, with edge data) → `hipGraphRemoveDependencies`:
/// default edges only.
pub(crate) unsafe fn cudaGraphRemoveDependencies(
    b: &HipBackend,
    graph: cudaGraph_t,
    from: *const cudaGraphNode_t,
    to: *const cudaGraphNode_t,
    edgeData: *const cudaGraphEdgeData,
    numDependencies: usize,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    unsafe { change_dependencies(b, false, graph, from, to, edgeData, numDependencies) }
}

/// `cuGraphGetEdges` (with edge data) → `hipGraphGetEdges`; edge data filled with defaults.
pub(crate) unsafe fn cuGraphGetEdges(
    b: &HipBackend,
    hGraph: CUgraph,
    from: *mut CUgraphNode,
    to: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numEdges: *mut usize,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { query_edges(b, EdgeQuery::Graph(hGraph), from, to, edgeData, numEdges) }
}

/// `cudaGraphGetEdges` (CUDA 13, with edge data) → `hipGraphGetEdges`; edge data filled with
/// defaults.
pub(crate) unsafe fn cudaGraphGetEdges(
    b: &HipBackend,
    graph: cudaGraph_t,
    from: *mut cudaGraphNode_t,
    to: *mut cudaGraphNode_t,
    edgeData: *mut cudaGraphEdgeData,
    numEdges: *mut usize,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    unsafe { query_edges(b, EdgeQuery::Graph(graph), from, to, edgeData, numEdges) }
}

/// `cuGraphNodeGetDependencies` (with edge data) → `hipGraphNodeGetDependencies`.
pub(crate) unsafe fn cuGraphNodeGetDependencies(
    b: &HipBackend,
    hNode: CUgraphNode,
    dependencies: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numDependencies: *mut usize,
) -> CUresult {
    let q = EdgeQuery::Dependencies(hNode);
    // SAFETY: forwarded contract.
    unsafe { query_edges(b, q, dependencies, null_mut(), edgeData, numDependencies) }
}

/// `cudaGraphNodeGetDependencies` (CUDA 13, with edge data) → `hipGraphNodeGetDependencies`.
pub(crate) unsafe fn cudaGraphNodeGetDependencies(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pDependencies: *mut cudaGraphNode_t,
    edgeData: *mut cudaGraphEdgeData,
    pNumDependencies: *mut usize,
) -> cudaError_t {
    let q = EdgeQuery::Dependencies(node);
    // SAFETY: forwarded contract.
    unsafe { query_edges(b, q, pDependencies, null_mut(), edgeData, pNumDependencies) }
}

/// `cuGraphNodeGetDependentNodes` (with edge data) → `hipGraphNodeGetDependentNodes`.
pub(crate) unsafe fn cuGraphNodeGetDependentNodes(
    b: &HipBackend,
    hNode: CUgraphNode,
    dependentNodes: *mut CUgraphNode,
    edgeData: *mut CUgraphEdgeData,
    numDependentNodes: *mut usize,
) -> CUresult {
    let q = EdgeQuery::Dependents(hNode);
    // SAFETY: forwarded contract.
    unsafe {
        query_edges(
            b,
            q,
            dependentNodes,
            null_mut(),
            edgeData,
            numDependentNodes,
        )
    }
}

/// `cudaGraphNodeGetDependentNodes` (CUDA 13, with edge data) →
/// `hipGraphNodeGetDependentNodes`.
pub(crate) unsafe fn cudaGraphNodeGetDependentNodes(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pDependentNodes: *mut cudaGraphNode_t,
    edgeData: *mut cudaGraphEdgeData,
    pNumDependentNodes: *mut usize,
) -> cudaError_t {
    let q = EdgeQuery::Dependents(node);
    // SAFETY: forwarded contract.
    unsafe {
        query_edges(
            b,
            q,
            pDependentNodes,
            null_mut(),
            edgeData,
            pNumDependentNodes,
        )
    }
}

// ---------------------------------------------------------------- kernel nodes

/// A node's parameters as HIP takes them, the one rule of kernel and memset nodes of both APIs:
/// CUDA's struct validated as CUDA validates it (`to_hip`), then on HIP's NVIDIA platform the
/// caller's own (HIP's struct is CUDA's there), elsewhere rebuilt in HIP's layout in `buf`.
/// Validating on both platforms keeps the NVIDIA platform's answers AMD's (a kernel node's
/// `extra`, which AMD cannot take, is refused there too).
///
/// # Safety
/// `p` is NULL or readable.
unsafe fn params_in<C, H, E>(
    b: &HipBackend,
    p: *const C,
    buf: &mut H,
    to_hip: impl FnOnce(&C) -> Result<H, E>,
    null: E,
) -> Result<*const H, E> {
    if p.is_null() {
        return Err(null);
    }
    // SAFETY: non-NULL, from the caller.
    let h = to_hip(unsafe { &*p })?;
    if nvidia(b) {
        return Ok(p.cast());
    }
    *buf = h;
    Ok(buf)
}

/// The HIP kernel parameters for a CUDA pointer ([`params_in`]; `extra` is not supported on
/// AMD, see [`kernel_params_to_hip`]).
///
/// # Safety
/// `p` is NULL or readable.
pub(super) unsafe fn kernel_in(
    b: &HipBackend,
    p: *const cudaKernelNodeParams,
    buf: &mut hipKernelNodeParams,
) -> Result<*const hipKernelNodeParams, cudaError_t> {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        params_in(
            b,
            p,
            buf,
            kernel_params_to_hip,
            cudaError_t::cudaErrorInvalidValue,
        )
    }
}

pub(super) fn zero_kernel() -> hipKernelNodeParams {
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
    let f = hip_fn!(b, hipGraphAddKernelNode);
    let mut buf = zero_kernel();
    // SAFETY: forwarded contract.
    let p = match unsafe { kernel_in(b, pNodeParams, &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call; HIP copies the parameters.
    b.rt(unsafe {
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
    let f = hip_fn!(b, hipGraphKernelNodeGetParams);
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
    let f = hip_fn!(b, hipGraphKernelNodeSetParams);
    let mut buf = zero_kernel();
    // SAFETY: forwarded contract.
    let p = match unsafe { kernel_in(b, pNodeParams, &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call.
    b.rt(unsafe { f(node.cast(), p) })
}

/// `cudaGraphExecKernelNodeSetParams` → `hipGraphExecKernelNodeSetParams`, parameters rebuilt.
pub(crate) unsafe fn cudaGraphExecKernelNodeSetParams(
    b: &HipBackend,
    hGraphExec: cudaGraphExec_t,
    node: cudaGraphNode_t,
    pNodeParams: *const cudaKernelNodeParams,
) -> cudaError_t {
    let f = hip_fn!(b, hipGraphExecKernelNodeSetParams);
    let mut buf = zero_kernel();
    // SAFETY: forwarded contract.
    let p = match unsafe { kernel_in(b, pNodeParams, &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call.
    b.rt(unsafe { f(hGraphExec.cast(), node.cast(), p) })
}

// ---------------------------------------------------------------- memset nodes

/// HIP's memset parameters for CUDA's (`CUDA_MEMSET_NODE_PARAMS` and `cudaMemsetParams` have one
/// layout), validated as CUDA validates them; on HIP's NVIDIA platform the caller's struct is
/// HIP's, elsewhere `buf` holds HIP's layout. Both APIs' memset nodes take their parameters here.
///
/// # Safety
/// `p` is NULL or readable.
pub(super) unsafe fn memset_in<R: From<Refusal>>(
    b: &HipBackend,
    p: *const CUDA_MEMSET_NODE_PARAMS,
    buf: &mut hipMemsetParams,
) -> Result<*const hipMemsetParams, R> {
    // SAFETY: the caller's contract, passed on.
    unsafe {
        params_in(
            b,
            p,
            buf,
            |c| memset_to_hip(c).map_err(R::from),
            Refusal::InvalidValue.into(),
        )
    }
}

pub(super) fn zero_memset() -> hipMemsetParams {
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
    let f = hip_fn!(b, hipGraphAddMemsetNode);
    let mut buf = zero_memset();
    // SAFETY: forwarded contract.
    let p = match unsafe { memset_in::<cudaError_t>(b, pMemsetParams.cast(), &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call.
    b.rt(unsafe {
        f(
            pGraphNode.cast(),
            graph.cast(),
            pDependencies.cast(),
            numDependencies,
            p,
        )
    })
}

/// `cudaGraphExecMemsetNodeSetParams` → `hipGraphExecMemsetNodeSetParams`, parameters rebuilt.
pub(crate) unsafe fn cudaGraphExecMemsetNodeSetParams(
    b: &HipBackend,
    hGraphExec: cudaGraphExec_t,
    node: cudaGraphNode_t,
    pNodeParams: *const cudaMemsetParams,
) -> cudaError_t {
    let f = hip_fn!(b, hipGraphExecMemsetNodeSetParams);
    let mut buf = zero_memset();
    // SAFETY: forwarded contract.
    let p = match unsafe { memset_in::<cudaError_t>(b, pNodeParams.cast(), &mut buf) } {
        Ok(p) => p,
        Err(e) => return e,
    };
    // SAFETY: `buf` lives for the call.
    b.rt(unsafe { f(hGraphExec.cast(), node.cast(), p) })
}

// ---------------------------------------------------------------- update, instantiate

// ---------------------------------------------------------------- memory nodes

// ---------------------------------------------------------------- generic node parameters

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
        return e.into();
    }
    // SAFETY: non-NULL from the caller.
    let np = unsafe { &*nodeParams };
    let (out, g, deps, n) = (
        pGraphNode.cast(),
        graph.cast(),
        pDependencies.cast(),
        numDependencies,
    );
    // SAFETY: in every arm, the union member the node type selects. handles and pointers are the
    // caller's; translated structs live on the stack for the call.
    unsafe {
        match np.type_ {
            cudaGraphNodeType::cudaGraphNodeTypeKernel => {
                let c = kernel_params_of_v2(&np.__bindgen_anon_1.kernel);
                cudaGraphAddKernelNode(b, pGraphNode, graph, pDependencies, n, &c)
            }
            cudaGraphNodeType::cudaGraphNodeTypeMemset => {
                let c = memset_params_of_v2(&np.__bindgen_anon_1.memset);
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
                b.rt(hip_fn!(b, hipGraphAddMemcpyNode)(out, g, deps, n, &h))
            }
            cudaGraphNodeType::cudaGraphNodeTypeEmpty => {
                b.rt(hip_fn!(b, hipGraphAddEmptyNode)(out, g, deps, n))
            }
            cudaGraphNodeType::cudaGraphNodeTypeGraph => {
                let c = &np.__bindgen_anon_1.graph;
                if c.ownership.0 != 0 {
                    return cudaError_t::cudaErrorNotSupported;
                }
                add_child_graph(b, pGraphNode, graph, pDependencies, n, c.graph)
            }
            cudaGraphNodeType::cudaGraphNodeTypeEventRecord => {
                let ev = np.__bindgen_anon_1.eventRecord.event;
                b.rt(hip_fn!(b, hipGraphAddEventRecordNode)(
                    out,
                    g,
                    deps,
                    n,
                    ev.cast(),
                ))
            }
            cudaGraphNodeType::cudaGraphNodeTypeWaitEvent => {
                let ev = np.__bindgen_anon_1.eventWait.event;
                b.rt(hip_fn!(b, hipGraphAddEventWaitNode)(
                    out,
                    g,
                    deps,
                    n,
                    ev.cast(),
                ))
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
    // SAFETY: the caller's contract, passed on.
    unsafe { node_set_params(b, None, node, nodeParams) }
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
    // SAFETY: the caller's contract, passed on.
    unsafe { node_set_params(b, Some(graphExec), node, nodeParams) }
}

/// The one rule of both generic setters: the node type picks the per-type setter, of the graph's
/// node (`exec` `None`) or of that node in an executable graph (`Some`).
///
/// # Safety
/// `nodeParams` is NULL or valid for reads, its union member the one its type names; the handles
/// are the caller's.
unsafe fn node_set_params(
    b: &HipBackend,
    exec: Option<cudaGraphExec_t>,
    node: cudaGraphNode_t,
    nodeParams: *mut cudaGraphNodeParams,
) -> cudaError_t {
    if nodeParams.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL from the caller.
    let np = unsafe { &*nodeParams };
    // SAFETY: in every arm, the union member the node type selects.
    unsafe {
        match np.type_ {
            cudaGraphNodeType::cudaGraphNodeTypeKernel => {
                let c = kernel_params_of_v2(&np.__bindgen_anon_1.kernel);
                match exec {
                    None => cudaGraphKernelNodeSetParams(b, node, &c),
                    Some(e) => cudaGraphExecKernelNodeSetParams(b, e, node, &c),
                }
            }
            cudaGraphNodeType::cudaGraphNodeTypeMemset => {
                let c = memset_params_of_v2(&np.__bindgen_anon_1.memset);
                match exec {
                    None => cudaGraphMemsetNodeSetParams(b, node, &c),
                    Some(e) => cudaGraphExecMemsetNodeSetParams(b, e, node, &c),
                }
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
                b.rt(match exec {
                    None => hip_fn!(b, hipGraphMemcpyNodeSetParams)(node.cast(), &h),
                    Some(e) => {
                        hip_fn!(b, hipGraphExecMemcpyNodeSetParams)(e.cast(), node.cast(), &mut h)
                    }
                })
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
        return b.rt(unsafe { f(node.cast(), out.cast()) });
    }
    // SAFETY: valid out-struct.
    let e = unsafe { f(node.cast(), &mut h) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer.
        unsafe { out.write(to_cuda(&h)) };
    }
    b.rt(e)
}

// ------------------------------------------------------------ Driver

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
    let f = hip_fn!(b, hipGraphMemFreeNodeGetParams);
    let mut p: *mut c_void = core::ptr::null_mut();
    // SAFETY: HIP stores a pointer into `p`.
    let e = unsafe { f(hNode.cast(), (&mut p as *mut *mut c_void).cast()) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *dptr_out = devptr_to_cuda(p) };
    }
    b.cu(e)
}

/// The descriptor in HIP 6+'s layout (the `hipDrvGraph*Memcpy*` calls exist from HIP 6.2).
pub(super) unsafe fn copy_params(
    b: &HipBackend,
    p: *const CUDA_MEMCPY3D,
) -> Result<HIP_MEMCPY3D, CUresult> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: non-NULL descriptor.
    memcpy3d_to_hip(b.conv().CUmemorytype, unsafe { &*p })
}

// ------------------------------------------------------------ memory allocation nodes (Driver)

// ---------------------------------------------------------------- memory-allocation nodes (both APIs)
//
// `CUDA_MEM_ALLOC_NODE_PARAMS` and `cudaMemAllocNodeParams` have one layout (the device pointer
// is a `CUdeviceptr` in one and a pointer in the other); the Runtime's is read as the Driver's.

const _: () = assert!(
    core::mem::size_of::<CUDA_MEM_ALLOC_NODE_PARAMS>()
        == core::mem::size_of::<cudaMemAllocNodeParams>()
);

/// Adds a memory-allocation node: pool properties and access descriptors rebuilt in HIP's
/// layout (descriptors on the stack, at most `MAX_ACCESS_DESCS`), the allocated address
/// written back. HIP 5.2's pool properties have no `maxSize` (a non-zero one is not supported
/// there). On HIP's NVIDIA platform the struct is CUDA's own and goes through as is.
///
/// # Safety
/// CUDA's contract: `params` is an in-out struct, the node handles are the caller's.
pub(super) unsafe fn add_mem_alloc_node<R: ApiResult>(
    b: &HipBackend,
    node_out: *mut CUgraphNode,
    graph: CUgraph,
    deps: *const CUgraphNode,
    n_deps: usize,
    params: *mut CUDA_MEM_ALLOC_NODE_PARAMS,
) -> R {
    if node_out.is_null() || params.is_null() {
        return Refusal::InvalidValue.into();
    }
    let f = hip_fn!(b, hipGraphAddMemAllocNode);
    let (node_out, graph, deps) = (node_out.cast(), graph.cast(), deps.cast());
    if nvidia(b) {
        // SAFETY: `hipMemAllocNodeParams` is CUDA's struct on that platform.
        return R::from_hip(b.conv(), unsafe {
            f(node_out, graph, deps, n_deps, params.cast())
        });
    }
    // SAFETY: non-NULL in-out struct.
    let c = unsafe { &mut *params };
    // SAFETY: plain data; all-zero is valid.
    let mut descs: [hipMemAccessDesc; MAX_ACCESS_DESCS] = unsafe { core::mem::zeroed() };
    let n = c.accessDescCount;
    // SAFETY: the caller's `accessDescCount` descriptors.
    if let Err(r) = unsafe { access_descs_to_hip(b, c.accessDescs, n, &mut descs) } {
        return r.into();
    }
    let props = match pool_props_to_hip(b, &c.poolProps) {
        Ok(p) if pre_hip62(b) && p.maxSize != 0 => return Refusal::NotSupported.into(),
        Ok(p) => p,
        Err(r) => return r.into(),
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
    let e = unsafe { f(node_out, graph, deps, n_deps, &mut h) };
    if e == HIP_SUCCESS {
        c.dptr = devptr_to_cuda(h.dptr);
    }
    R::from_hip(b.conv(), e)
}

/// A memory-allocation node's parameters in CUDA's words. The access descriptors are HIP's
/// own array (owned by the node) handed out as CUDA's, which needs their values to be CUDA's
/// too (else not supported); HIP 5.2's pool properties have no `maxSize` (0).
///
/// # Safety
/// CUDA's contract: `out` is writable (checked non-NULL), the node is the caller's.
unsafe fn mem_alloc_node_params<R: ApiResult>(
    b: &HipBackend,
    node: CUgraphNode,
    out: *mut CUDA_MEM_ALLOC_NODE_PARAMS,
) -> R {
    if out.is_null() {
        return Refusal::InvalidValue.into();
    }
    let f = hip_fn!(b, hipGraphMemAllocNodeGetParams);
    if nvidia(b) {
        // SAFETY: `hipMemAllocNodeParams` is CUDA's struct on that platform.
        return R::from_hip(b.conv(), unsafe { f(node.cast(), out.cast()) });
    }
    // SAFETY: plain data; all-zero is valid.
    let mut h: hipMemAllocNodeParams = unsafe { core::mem::zeroed() };
    // SAFETY: valid out-struct.
    let e = unsafe { f(node.cast(), &mut h) };
    if e != HIP_SUCCESS {
        return R::from_hip(b.conv(), e);
    }
    let conv = b.conv();
    let same = |map: &EnumMap, v: u32| map.lookup_cuda(i64::from(v)) == Some(i64::from(v));
    if h.accessDescCount > 0 && h.accessDescs.is_null() {
        return Refusal::NotSupported.into();
    }
    for i in 0..h.accessDescCount {
        // SAFETY: HIP's array of `accessDescCount` entries, owned by the node.
        let d = unsafe { &*h.accessDescs.add(i) };
        if !same(conv.CUmemLocationType, d.location.type_) || !same(conv.CUmemAccess_flags, d.flags)
        {
            return Refusal::NotSupported.into();
        }
    }
    let mut props = pool_props_to_cuda(b, &h.poolProps);
    if pre_hip62(b) {
        props.maxSize = 0;
    }
    // SAFETY: non-NULL out-pointer; the descriptor layouts are identical (checked values).
    unsafe {
        out.write(CUDA_MEM_ALLOC_NODE_PARAMS {
            poolProps: props,
            accessDescs: h.accessDescs.cast(),
            accessDescCount: h.accessDescCount,
            bytesize: h.bytesize,
            dptr: devptr_to_cuda(h.dptr),
        })
    };
    R::SUCCESS
}

/// `cuGraphAddMemAllocNode` → `hipGraphAddMemAllocNode` (see `add_mem_alloc_node`).
pub(crate) unsafe fn cuGraphAddMemAllocNode(
    b: &HipBackend,
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *mut CUDA_MEM_ALLOC_NODE_PARAMS,
) -> CUresult {
    let (node, deps, n, p) = (phGraphNode, dependencies, numDependencies, nodeParams);
    // SAFETY: forwarded contract.
    unsafe { add_mem_alloc_node(b, node, hGraph, deps, n, p) }
}

/// `cudaGraphAddMemAllocNode` → `hipGraphAddMemAllocNode` (see `add_mem_alloc_node`).
pub(crate) unsafe fn cudaGraphAddMemAllocNode(
    b: &HipBackend,
    pGraphNode: *mut cudaGraphNode_t,
    graph: cudaGraph_t,
    pDependencies: *const cudaGraphNode_t,
    numDependencies: usize,
    nodeParams: *mut cudaMemAllocNodeParams,
) -> cudaError_t {
    let (deps, n, p) = (pDependencies, numDependencies, nodeParams.cast());
    // SAFETY: forwarded contract; one layout (asserted above).
    unsafe { add_mem_alloc_node(b, pGraphNode, graph, deps, n, p) }
}

/// `cuGraphMemAllocNodeGetParams` → `hipGraphMemAllocNodeGetParams` (see
/// `mem_alloc_node_params`).
pub(crate) unsafe fn cuGraphMemAllocNodeGetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    params_out: *mut CUDA_MEM_ALLOC_NODE_PARAMS,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { mem_alloc_node_params(b, hNode, params_out) }
}

/// `cudaGraphMemAllocNodeGetParams` → `hipGraphMemAllocNodeGetParams` (see
/// `mem_alloc_node_params`).
pub(crate) unsafe fn cudaGraphMemAllocNodeGetParams(
    b: &HipBackend,
    node: cudaGraphNode_t,
    params_out: *mut cudaMemAllocNodeParams,
) -> cudaError_t {
    // SAFETY: forwarded contract; one layout (asserted above).
    unsafe { mem_alloc_node_params(b, node, params_out.cast()) }
}

// ---------------------------------------------------------------- memset nodes, update, instantiation (both APIs)
//
// `CUDA_MEMSET_NODE_PARAMS`/`cudaMemsetParams`, `CUgraphExecUpdateResultInfo`/
// `cudaGraphExecUpdateResultInfo` and `CUDA_GRAPH_INSTANTIATE_PARAMS`/`cudaGraphInstantiateParams`
// have one layout each, and their enums translate alike (`conv::same_rules`): the Runtime's are
// read as the Driver's.

/// A memset node's parameters in CUDA's words (HIP's NVIDIA platform: CUDA's own struct).
///
/// # Safety
/// CUDA's contract: `out` is NULL or writable, the node is the caller's.
unsafe fn memset_node_get<R: ApiResult>(
    b: &HipBackend,
    node: CUgraphNode,
    out: *mut CUDA_MEMSET_NODE_PARAMS,
) -> R {
    if out.is_null() {
        return Refusal::InvalidValue.into();
    }
    let f = hip_fn!(b, hipGraphMemsetNodeGetParams);
    if nvidia(b) {
        // SAFETY: `hipMemsetParams` is CUDA's struct on that platform.
        return R::from_hip(b.conv(), unsafe { f(node.cast(), out.cast()) });
    }
    let mut h = zero_memset();
    // SAFETY: valid out-pointer.
    let e = unsafe { f(node.cast(), &mut h) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { out.write(memset_to_cuda(&h)) };
    }
    R::from_hip(b.conv(), e)
}

/// Sets a memset node's parameters (validated as on CUDA; HIP's NVIDIA platform: CUDA's own
/// struct).
///
/// # Safety
/// CUDA's contract: `p` is NULL or readable, the node is the caller's.
pub(super) unsafe fn memset_node_set<R: ApiResult>(
    b: &HipBackend,
    node: CUgraphNode,
    p: *const CUDA_MEMSET_NODE_PARAMS,
) -> R {
    if p.is_null() {
        return Refusal::InvalidValue.into();
    }
    // SAFETY: non-NULL, from the caller.
    let h = match memset_to_hip(unsafe { &*p }) {
        Ok(h) => h,
        Err(r) => return r.into(),
    };
    let f = hip_fn!(b, hipGraphMemsetNodeSetParams);
    let hp: *const hipMemsetParams = if nvidia(b) { p.cast() } else { &h };
    // SAFETY: `h` lives for the call; on HIP's NVIDIA platform the caller's struct is HIP's.
    R::from_hip(b.conv(), unsafe { f(node.cast(), hp) })
}

/// An executable graph updated from a graph: the result translated; HIP does not report the
/// "from" node of a failing edge (NULL).
///
/// # Safety
/// CUDA's contract: `info` is NULL or writable; the handles are the caller's.
unsafe fn exec_update<R: ApiResult>(
    b: &HipBackend,
    exec: CUgraphExec,
    graph: CUgraph,
    info: *mut CUgraphExecUpdateResultInfo,
) -> R {
    if info.is_null() {
        return Refusal::InvalidValue.into();
    }
    let f = hip_fn!(b, hipGraphExecUpdate);
    let mut node: hipGraphNode_t = core::ptr::null_mut();
    let mut res = 0;
    // SAFETY: valid out-pointers; HIP validates the handles.
    let e = unsafe { f(exec.cast(), graph.cast(), &mut node, &mut res) };
    // SAFETY: non-NULL.
    unsafe {
        info.write(CUgraphExecUpdateResultInfo {
            result: CUgraphExecUpdateResult(enum_to_cuda(b.conv().CUgraphExecUpdateResult, res)),
            errorNode: node.cast(),
            errorFromNode: core::ptr::null_mut(),
        });
    }
    if e == HIP_SUCCESS {
        // CUDA: the new source graph's user-object references replace the executable's.
        exec_took(b, graph, exec);
    }
    R::from_hip(b.conv(), e)
}

/// Instantiation with parameters: the flags bit by bit through the table (one HIP lacks:
/// invalid value), the upload stream translated, the error node and the result written back
/// (through the API's own `result_map`: the two APIs pair HIP's results differently).
///
/// # Safety
/// CUDA's contract: `exec_out` writable, `params` an in-out struct (both checked non-NULL).
unsafe fn instantiate<R: ApiResult>(
    b: &HipBackend,
    result_map: &EnumMap,
    exec_out: *mut CUgraphExec,
    graph: CUgraph,
    params: *mut CUDA_GRAPH_INSTANTIATE_PARAMS,
) -> R {
    if exec_out.is_null() || params.is_null() {
        return Refusal::InvalidValue.into();
    }
    let Some(t) = b.native_hip() else {
        return super::support::unavailable(false);
    };
    // SAFETY: non-NULL.
    let p = unsafe { &mut *params };
    let Some(f) = t.hipGraphInstantiateWithParams else {
        // HIP before 6.2 (and HIP's NVIDIA platform, built from 5.2.3) lacks it (cuda.core
        // instantiates through it): the other flags through `hipGraphInstantiateWithFlags`,
        // then the upload CUDA's UPLOAD flag asks for. Without `hipGraphUpload` the graph is
        // uploaded at its first launch, as CUDA does for a graph not uploaded beforehand.
        let upload = u64::from(
            anycuda_api::driver::CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD.0,
        );
        let Some(flags) = enum_bits_to_hip(b.conv().CUgraphInstantiate_flags, p.flags & !upload)
        else {
            return Refusal::InvalidValue.into();
        };
        let inst = hip_fn!(b, hipGraphInstantiateWithFlags);
        // SAFETY: valid out-pointer (checked non-NULL); the caller's graph.
        let mut e = unsafe { inst(exec_out.cast(), graph.cast(), flags as _) };
        if e == HIP_SUCCESS && p.flags & upload != 0 {
            if let Some(up) = t.hipGraphUpload {
                // SAFETY: the executable graph HIP just wrote; the stream translated.
                e = unsafe {
                    up(
                        (*exec_out).cast(),
                        stream_to_hip(b.platform(), p.hUploadStream),
                    )
                };
            }
        }
        p.hErrNode_out = null_mut();
        if e == HIP_SUCCESS {
            // SAFETY: the executable graph HIP just wrote (checked non-NULL).
            exec_took(b, graph, unsafe { *exec_out });
        }
        p.result_out = if e == HIP_SUCCESS {
            CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_SUCCESS
        } else {
            CUgraphInstantiateResult::CUDA_GRAPH_INSTANTIATE_ERROR
        };
        return R::from_hip(b.conv(), e);
    };
    let Some(flags) = enum_bits_to_hip(b.conv().CUgraphInstantiate_flags, p.flags) else {
        return Refusal::InvalidValue.into();
    };
    let mut h = hipGraphInstantiateParams {
        errNode_out: core::ptr::null_mut(),
        flags,
        result_out: 0,
        uploadStream: stream_to_hip(b.platform(), p.hUploadStream),
    };
    // SAFETY: `h` lives for the call; the caller's handles.
    let e = unsafe { f(exec_out.cast(), graph.cast(), &mut h) };
    p.hErrNode_out = h.errNode_out.cast();
    p.result_out = CUgraphInstantiateResult(enum_to_cuda(result_map, h.result_out));
    if e == HIP_SUCCESS {
        // SAFETY: the executable graph HIP just wrote (checked non-NULL).
        exec_took(b, graph, unsafe { *exec_out });
    }
    R::from_hip(b.conv(), e)
}

/// `cuGraphMemsetNodeGetParams` → `hipGraphMemsetNodeGetParams` (see `memset_node_get`).
pub(crate) unsafe fn cuGraphMemsetNodeGetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_MEMSET_NODE_PARAMS,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { memset_node_get(b, hNode, nodeParams) }
}

/// `cudaGraphMemsetNodeGetParams` → `hipGraphMemsetNodeGetParams` (see `memset_node_get`).
pub(crate) unsafe fn cudaGraphMemsetNodeGetParams(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pNodeParams: *mut cudaMemsetParams,
) -> cudaError_t {
    // SAFETY: forwarded contract; one layout (asserted in `conv::graph_nodes`).
    unsafe { memset_node_get(b, node, pNodeParams.cast()) }
}

/// `cuGraphMemsetNodeSetParams` → `hipGraphMemsetNodeSetParams` (see `memset_node_set`).
pub(crate) unsafe fn cuGraphMemsetNodeSetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_MEMSET_NODE_PARAMS,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { memset_node_set(b, hNode, nodeParams) }
}

/// `cudaGraphMemsetNodeSetParams` → `hipGraphMemsetNodeSetParams` (see `memset_node_set`).
pub(crate) unsafe fn cudaGraphMemsetNodeSetParams(
    b: &HipBackend,
    node: cudaGraphNode_t,
    pNodeParams: *const cudaMemsetParams,
) -> cudaError_t {
    // SAFETY: forwarded contract; one layout (asserted in `conv::graph_nodes`).
    unsafe { memset_node_set(b, node, pNodeParams.cast()) }
}

/// `cuGraphExecUpdate` (CUDA 12 result-info struct) → `hipGraphExecUpdate` (see
/// `exec_update`).
pub(crate) unsafe fn cuGraphExecUpdate(
    b: &HipBackend,
    hGraphExec: CUgraphExec,
    hGraph: CUgraph,
    resultInfo: *mut CUgraphExecUpdateResultInfo,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { exec_update(b, hGraphExec, hGraph, resultInfo) }
}

/// `cudaGraphExecUpdate` (CUDA 12 result-info struct) → `hipGraphExecUpdate` (see
/// `exec_update`).
pub(crate) unsafe fn cudaGraphExecUpdate(
    b: &HipBackend,
    hGraphExec: cudaGraphExec_t,
    hGraph: cudaGraph_t,
    resultInfo: *mut cudaGraphExecUpdateResultInfo,
) -> cudaError_t {
    // SAFETY: forwarded contract; one layout (asserted in `conv::graph_nodes`).
    unsafe { exec_update(b, hGraphExec, hGraph, resultInfo.cast()) }
}

/// `cuGraphInstantiateWithParams` → `hipGraphInstantiateWithParams` (see `instantiate`).
pub(crate) unsafe fn cuGraphInstantiateWithParams(
    b: &HipBackend,
    phGraphExec: *mut CUgraphExec,
    hGraph: CUgraph,
    instantiateParams: *mut CUDA_GRAPH_INSTANTIATE_PARAMS,
) -> CUresult {
    let map = b.conv().CUgraphInstantiateResult;
    // SAFETY: forwarded contract.
    unsafe { instantiate(b, map, phGraphExec, hGraph, instantiateParams) }
}

/// `cudaGraphInstantiateWithParams` → `hipGraphInstantiateWithParams` (see `instantiate`).
pub(crate) unsafe fn cudaGraphInstantiateWithParams(
    b: &HipBackend,
    pGraphExec: *mut cudaGraphExec_t,
    graph: cudaGraph_t,
    instantiateParams: *mut cudaGraphInstantiateParams,
) -> cudaError_t {
    let map = b.conv().cudaGraphInstantiateResult;
    // SAFETY: forwarded contract; one layout (asserted in `conv::graph_nodes`).
    unsafe { instantiate(b, map, pGraphExec, graph, instantiateParams.cast()) }
}

// ---------------------------------------------------------------- user-object lifecycle
//
// Graphs and executable graphs hold user-object references (`adapt/user_object.rs`): these
// entry points forward to HIP as the generated code would and tell that room what happened.

/// The graphs embedded in `graph`'s child graph nodes, in HIP's node order (the order a graph
/// and its clones list their nodes in); empty where HIP cannot say.
fn embedded_in(b: &HipBackend, graph: CUgraph) -> Vec<CUgraph> {
    let Some(t) = b.native_hip() else {
        return Vec::new();
    };
    let (Some(list), Some(kind), Some(child)) = (
        t.hipGraphGetNodes,
        t.hipGraphNodeGetType,
        t.hipGraphChildGraphNodeGetGraph,
    ) else {
        return Vec::new();
    };
    let mut n = 0usize;
    // SAFETY: a count query (NULL array) on the caller's graph.
    if unsafe { list(graph.cast(), null_mut(), &mut n) } != HIP_SUCCESS || n == 0 {
        return Vec::new();
    }
    let mut nodes: Vec<hipGraphNode_t> = vec![null_mut(); n];
    // SAFETY: `nodes` holds `n` entries.
    if unsafe { list(graph.cast(), nodes.as_mut_ptr(), &mut n) } != HIP_SUCCESS {
        return Vec::new();
    }
    nodes.truncate(n);
    let graph_type = CUgraphNodeType::CU_GRAPH_NODE_TYPE_GRAPH.0;
    nodes
        .into_iter()
        .filter_map(|node| {
            let mut ty = Default::default();
            // SAFETY: a node HIP listed; valid out-pointer.
            let e = unsafe { kind(node, &mut ty) };
            if e != HIP_SUCCESS || enum_to_cuda(b.conv().CUgraphNodeType, ty) != graph_type {
                return None;
            }
            let mut g: crate::hip_types::hipGraph_t = null_mut();
            // SAFETY: a child graph node; valid out-pointer.
            let e = unsafe { child(node, &mut g) };
            (e == HIP_SUCCESS && !g.is_null()).then_some(g.cast())
        })
        .collect()
}

/// At most this many graphs are walked below one graph (a bound, not a limit any real graph
/// nears: embedding clones, so the nesting is finite).
const MAX_EMBEDDED: usize = 1 << 16;

/// `graph` and every graph embedded in it, at any depth.
fn with_embedded(b: &HipBackend, graph: CUgraph) -> Vec<CUgraph> {
    let mut all = vec![graph];
    let mut i = 0;
    while i < all.len() && all.len() < MAX_EMBEDDED {
        let more = embedded_in(b, all[i]);
        all.extend(more);
        i += 1;
    }
    all
}

/// `copy` is a copy of `original` (`cuGraphClone`, or the graph a child graph node embeds): it
/// takes its own copy of the original's user-object references, and so does each graph embedded
/// in it, paired with the original's by node order.
fn mirror_user_objects(b: &HipBackend, original: CUgraph, copy: CUgraph) {
    if !user_object::in_use() {
        return;
    }
    let mut pairs = vec![(original, copy)];
    while let Some((from, to)) = pairs.pop() {
        user_object::graph_cloned(from as usize, to as usize);
        let (a, c) = (embedded_in(b, from), embedded_in(b, to));
        if a.len() == c.len() && pairs.len() < MAX_EMBEDDED {
            pairs.extend(a.into_iter().zip(c));
        }
    }
}

/// `exec` was made (or updated) from `graph`: it takes a copy of the references of the graph
/// and of every graph embedded in it.
fn exec_took(b: &HipBackend, graph: CUgraph, exec: CUgraphExec) {
    if !user_object::in_use() {
        return;
    }
    let graphs: Vec<usize> = with_embedded(b, graph)
        .into_iter()
        .map(|g| g as usize)
        .collect();
    user_object::exec_from_graphs(&graphs, exec as usize);
}

/// Adds a child graph node (HIP embeds a clone of `child`); the embedded graph takes its copy
/// of the child's user-object references (see [`mirror_user_objects`]).
///
/// # Safety
/// CUDA's contract: `out` NULL or writable, `deps` holds `n` nodes, the handles are the caller's.
pub(super) unsafe fn add_child_graph<R: ApiResult>(
    b: &HipBackend,
    out: *mut CUgraphNode,
    graph: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    child: CUgraph,
) -> R {
    let f = hip_fn!(b, hipGraphAddChildGraphNode);
    // SAFETY: forwarded contract; HIP checks `out` for NULL and the handles.
    let e = unsafe { f(out.cast(), graph.cast(), deps.cast(), n, child.cast()) };
    if e == HIP_SUCCESS && !out.is_null() && user_object::in_use() {
        let mut embedded: crate::hip_types::hipGraph_t = null_mut();
        let get = b
            .native_hip()
            .and_then(|t| t.hipGraphChildGraphNodeGetGraph);
        if let Some(get) = get {
            // SAFETY: the node HIP just made (`out` checked non-NULL); valid out-pointer.
            if unsafe { get(*out.cast::<hipGraphNode_t>(), &mut embedded) } == HIP_SUCCESS {
                mirror_user_objects(b, child, embedded.cast());
            }
        }
    }
    R::from_hip(b.conv(), e)
}

/// Destroys a node; a child graph node's embedded graphs (at any depth) release their
/// user-object references with it.
///
/// # Safety
/// CUDA's contract: `node` is the caller's.
unsafe fn node_destroy<R: ApiResult>(b: &HipBackend, node: CUgraphNode) -> R {
    let f = hip_fn!(b, hipGraphDestroyNode);
    let mut nested = Vec::new();
    if user_object::in_use() {
        let t = b.native_hip();
        let (kind, child) = (
            t.and_then(|t| t.hipGraphNodeGetType),
            t.and_then(|t| t.hipGraphChildGraphNodeGetGraph),
        );
        if let (Some(kind), Some(child)) = (kind, child) {
            let mut ty = Default::default();
            let mut g: crate::hip_types::hipGraph_t = null_mut();
            // SAFETY: the caller's node (HIP validates it); valid out-pointers.
            let is_child = unsafe { kind(node.cast(), &mut ty) } == HIP_SUCCESS
                && enum_to_cuda(b.conv().CUgraphNodeType, ty)
                    == CUgraphNodeType::CU_GRAPH_NODE_TYPE_GRAPH.0
                && unsafe { child(node.cast(), &mut g) } == HIP_SUCCESS;
            if is_child && !g.is_null() {
                nested = with_embedded(b, g.cast());
            }
        }
    }
    // SAFETY: the caller's handle; HIP validates it.
    let e = unsafe { f(node.cast()) };
    if e == HIP_SUCCESS {
        for g in nested {
            user_object::graph_destroyed(g as usize);
        }
    }
    R::from_hip(b.conv(), e)
}

/// `cuGraphAddChildGraphNode` → `hipGraphAddChildGraphNode`; the embedded clone takes its
/// copy of the child's user-object references.
pub(crate) unsafe fn cuGraphAddChildGraphNode(
    b: &HipBackend,
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    childGraph: CUgraph,
) -> CUresult {
    let (out, deps, n) = (phGraphNode, dependencies, numDependencies);
    // SAFETY: forwarded contract.
    unsafe { add_child_graph(b, out, hGraph, deps, n, childGraph) }
}

/// `cudaGraphAddChildGraphNode`: as `cuGraphAddChildGraphNode`.
pub(crate) unsafe fn cudaGraphAddChildGraphNode(
    b: &HipBackend,
    pGraphNode: *mut cudaGraphNode_t,
    graph: cudaGraph_t,
    pDependencies: *const cudaGraphNode_t,
    numDependencies: usize,
    childGraph: cudaGraph_t,
) -> cudaError_t {
    let (out, deps, n) = (pGraphNode, pDependencies, numDependencies);
    // SAFETY: forwarded contract.
    unsafe { add_child_graph(b, out, graph, deps, n, childGraph) }
}

/// `cuGraphDestroyNode` → `hipGraphDestroyNode`; a child graph node's embedded graphs release
/// their user-object references.
pub(crate) unsafe fn cuGraphDestroyNode(b: &HipBackend, hNode: CUgraphNode) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { node_destroy(b, hNode) }
}

/// `cudaGraphDestroyNode`: as `cuGraphDestroyNode`.
pub(crate) unsafe fn cudaGraphDestroyNode(b: &HipBackend, node: cudaGraphNode_t) -> cudaError_t {
    // SAFETY: forwarded contract.
    unsafe { node_destroy(b, node) }
}

/// Destroys a graph; its user-object references are released.
///
/// # Safety
/// CUDA's contract: `graph` is the caller's.
unsafe fn graph_destroy<R: ApiResult>(b: &HipBackend, graph: CUgraph) -> R {
    let f = hip_fn!(b, hipGraphDestroy);
    // The graphs embedded in it go with it (walked before they are gone).
    let nested = if user_object::in_use() {
        with_embedded(b, graph)
    } else {
        Vec::new()
    };
    // SAFETY: the caller's handle; HIP validates it.
    let e = unsafe { f(graph.cast()) };
    if e == HIP_SUCCESS {
        user_object::graph_destroyed(graph as usize);
        for g in nested {
            user_object::graph_destroyed(g as usize);
        }
    }
    R::from_hip(b.conv(), e)
}

/// Destroys an executable graph; its user-object references are released (after the
/// device's pending work, see `user_object::exec_destroyed`).
///
/// # Safety
/// CUDA's contract: `exec` is the caller's.
unsafe fn exec_destroy<R: ApiResult>(b: &HipBackend, exec: CUgraphExec) -> R {
    let f = hip_fn!(b, hipGraphExecDestroy);
    // SAFETY: the caller's handle; HIP validates it.
    let e = unsafe { f(exec.cast()) };
    if e == HIP_SUCCESS {
        user_object::exec_destroyed(b, exec as usize);
    }
    R::from_hip(b.conv(), e)
}

/// Instantiates with `hipGraphInstantiateWithFlags` (flags passed as the generated forwarder
/// passes them); the executable takes its copy of the graph's user-object references.
///
/// # Safety
/// CUDA's contract: `exec_out` NULL or writable, `graph` the caller's.
unsafe fn instantiate_flags<R: ApiResult>(
    b: &HipBackend,
    exec_out: *mut CUgraphExec,
    graph: CUgraph,
    flags: u64,
) -> R {
    let f = hip_fn!(b, hipGraphInstantiateWithFlags);
    // SAFETY: the caller's pointers; HIP checks `exec_out` for NULL.
    let e = unsafe { f(exec_out.cast(), graph.cast(), flags as _) };
    if e == HIP_SUCCESS && !exec_out.is_null() {
        // SAFETY: the executable graph HIP just wrote.
        exec_took(b, graph, unsafe { *exec_out });
    }
    R::from_hip(b.conv(), e)
}

/// Clones a graph; the clone takes its own copy of the user-object references.
///
/// # Safety
/// CUDA's contract: `clone_out` NULL or writable, `original` the caller's.
unsafe fn graph_clone<R: ApiResult>(
    b: &HipBackend,
    clone_out: *mut CUgraph,
    original: CUgraph,
) -> R {
    let f = hip_fn!(b, hipGraphClone);
    // SAFETY: the caller's pointers; HIP checks `clone_out` for NULL.
    let e = unsafe { f(clone_out.cast(), original.cast()) };
    if e == HIP_SUCCESS && !clone_out.is_null() {
        // SAFETY: the graph HIP just wrote.
        mirror_user_objects(b, original, unsafe { *clone_out });
    }
    R::from_hip(b.conv(), e)
}

/// `cuGraphDestroy` → `hipGraphDestroy`; the graph's user-object references are released.
pub(crate) unsafe fn cuGraphDestroy(b: &HipBackend, hGraph: CUgraph) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { graph_destroy(b, hGraph) }
}

/// `cudaGraphDestroy` → `hipGraphDestroy`; the graph's user-object references are released.
pub(crate) unsafe fn cudaGraphDestroy(b: &HipBackend, graph: cudaGraph_t) -> cudaError_t {
    // SAFETY: forwarded contract; the same handle type.
    unsafe { graph_destroy(b, graph) }
}

/// `cuGraphExecDestroy` → `hipGraphExecDestroy`; the executable's user-object references are
/// released.
pub(crate) unsafe fn cuGraphExecDestroy(b: &HipBackend, hGraphExec: CUgraphExec) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { exec_destroy(b, hGraphExec) }
}

/// `cudaGraphExecDestroy` → `hipGraphExecDestroy`; the executable's user-object references
/// are released.
pub(crate) unsafe fn cudaGraphExecDestroy(
    b: &HipBackend,
    graphExec: cudaGraphExec_t,
) -> cudaError_t {
    // SAFETY: forwarded contract; the same handle type.
    unsafe { exec_destroy(b, graphExec) }
}

/// `cuGraphInstantiate` → `hipGraphInstantiateWithFlags`; user-object references copied.
pub(crate) unsafe fn cuGraphInstantiate(
    b: &HipBackend,
    phGraphExec: *mut CUgraphExec,
    hGraph: CUgraph,
    flags: u64,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { instantiate_flags(b, phGraphExec, hGraph, flags) }
}

/// `cuGraphInstantiateWithFlags` → `hipGraphInstantiateWithFlags`; user-object references
/// copied.
pub(crate) unsafe fn cuGraphInstantiateWithFlags(
    b: &HipBackend,
    phGraphExec: *mut CUgraphExec,
    hGraph: CUgraph,
    flags: u64,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { instantiate_flags(b, phGraphExec, hGraph, flags) }
}

/// `cudaGraphInstantiate` → `hipGraphInstantiateWithFlags`; user-object references copied.
pub(crate) unsafe fn cudaGraphInstantiate(
    b: &HipBackend,
    pGraphExec: *mut cudaGraphExec_t,
    graph: cudaGraph_t,
    flags: u64,
) -> cudaError_t {
    // SAFETY: forwarded contract; the same handle types.
    unsafe { instantiate_flags(b, pGraphExec, graph, flags) }
}

/// `cudaGraphInstantiateWithFlags` → `hipGraphInstantiateWithFlags`; user-object references
/// copied.
pub(crate) unsafe fn cudaGraphInstantiateWithFlags(
    b: &HipBackend,
    pGraphExec: *mut cudaGraphExec_t,
    graph: cudaGraph_t,
    flags: u64,
) -> cudaError_t {
    // SAFETY: forwarded contract; the same handle types.
    unsafe { instantiate_flags(b, pGraphExec, graph, flags) }
}

/// `cuGraphClone` → `hipGraphClone`; the clone holds its own user-object references.
pub(crate) unsafe fn cuGraphClone(
    b: &HipBackend,
    phGraphClone: *mut CUgraph,
    originalGraph: CUgraph,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { graph_clone(b, phGraphClone, originalGraph) }
}

/// `cudaGraphClone` → `hipGraphClone`; the clone holds its own user-object references.
pub(crate) unsafe fn cudaGraphClone(
    b: &HipBackend,
    pGraphClone: *mut cudaGraph_t,
    originalGraph: cudaGraph_t,
) -> cudaError_t {
    // SAFETY: forwarded contract; the same handle type.
    unsafe { graph_clone(b, pGraphClone, originalGraph) }
}

// ---------------------------------------------------------------- upload (both APIs)

/// `cuGraphUpload` / `cudaGraphUpload` → `hipGraphUpload`; where HIP has none (HIP 5.2.3's
/// NVIDIA platform, ROCm before 5.3), success once the executable graph is named: an upload is
/// a head start the first launch takes anyway, as NVIDIA's drivers that do not upload early do,
/// so nothing a program can observe changes (24 cuda.core tests stopped at "not supported").
unsafe fn upload<R: ApiResult>(b: &HipBackend, exec: CUgraphExec, stream: CUstream) -> R {
    if exec.is_null() {
        return R::from(Refusal::InvalidValue);
    }
    let Some(t) = b.native_hip() else {
        return R::NO_LIBRARY;
    };
    match t.hipGraphUpload {
        // SAFETY: the caller's executable graph and stream, converted as every graph call does.
        Some(f) => R::from_hip(b.conv(), unsafe {
            f(exec as _, stream_to_hip(b.platform, stream as _) as _)
        }),
        None => R::SUCCESS,
    }
}

/// `cuGraphUpload`: see [`upload`].
pub(crate) unsafe fn cuGraphUpload(
    b: &HipBackend,
    hGraphExec: CUgraphExec,
    hStream: CUstream,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { upload(b, hGraphExec, hStream) }
}

/// `cudaGraphUpload`: see [`upload`].
pub(crate) unsafe fn cudaGraphUpload(
    b: &HipBackend,
    graphExec: cudaGraphExec_t,
    stream: cudaStream_t,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    unsafe { upload(b, graphExec as CUgraphExec, stream as CUstream) }
}

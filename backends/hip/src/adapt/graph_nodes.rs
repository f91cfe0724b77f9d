//! The Driver API's graph nodes built on HIP's Runtime-style node calls: kernel nodes (a
//! `CUkernel` resolved in its context), memset and memcpy nodes on HIP releases without the
//! Driver-style `hipDrvGraph*` calls (and on HIP's NVIDIA platform), and the generic
//! `cuGraphAddNode` / `cuGraphNodeSetParams` / `cuGraphExecNodeSetParams`.
//!
//! HIP's node calls are the Runtime's (`hipGraphAddKernelNode` with `hipKernelNodeParams`,
//! `hipGraphAddMemsetNode`, `hipGraphAddMemcpyNode` with `hipMemcpy3DParms`) on every release;
//! the Driver-style ones come with HIP 6.2 to 7.0, some with other ABIs. So the Driver's nodes
//! are built on the Runtime-style calls everywhere: a kernel node's function is resolved here,
//! a node's context is made current around the call, and a copy between linear memory is said
//! as the Runtime says it (`conv::memcpy::memcpy3d_to_parms`).

use super::graph::{
    add_child_graph, add_mem_alloc_node, copy_params, kernel_in, memset_in, memset_node_set,
    zero_kernel, zero_memset,
};
use super::support::{code_of, code_ok, hip_fn, nvidia, tri, INVALID_VALUE, NOT_SUPPORTED};
use crate::conv::graph_nodes::{kernel_params_to_cuda, memset_params_of_driver_v2};
use crate::conv::memcpy::{memcpy3d_to_cuda, memcpy3d_to_parms, memcpy_to_hip, parms_to_memcpy3d};
use crate::conv::{check_default_edges, devptr_to_hip};
use crate::hip_types::{hipKernelNodeParams, HIP_MEMCPY3D};
use crate::HipBackend;
use anycuda_api::driver::{
    CUcontext, CUfunction, CUgraph, CUgraphEdgeData, CUgraphExec, CUgraphNode, CUgraphNodeParams,
    CUgraphNodeType, CUkernel, CUresult, CUDA_KERNEL_NODE_PARAMS, CUDA_MEMCPY3D,
    CUDA_MEMSET_NODE_PARAMS, CUDA_MEM_ALLOC_NODE_PARAMS,
};
use anycuda_api::runtime::{cudaError_t, cudaKernelNodeParams};
use core::ffi::c_void;
use core::ptr::null_mut;

/// As `hip_fn!` in a function returning `Result<_, CUresult>`: the entry point, or an early
/// `Err` (no library: `CUDA_ERROR_NOT_INITIALIZED`; this HIP lacks it: not supported).
macro_rules! hip_fn_or_err {
    ($b:expr, $f:ident) => {
        match $b.native_hip() {
            Some(t) => match t.$f {
                Some(f) => f,
                None => return Err(NOT_SUPPORTED),
            },
            None => return Err(CUresult::CUDA_ERROR_NOT_INITIALIZED),
        }
    };
}

/// Runs `f` with `ctx` pushed as the current context (popped after), or as it is for NULL (the
/// current context, as CUDA reads a NULL node context).
fn in_context<T>(
    b: &HipBackend,
    ctx: CUcontext,
    f: impl FnOnce() -> Result<T, CUresult>,
) -> Result<T, CUresult> {
    if ctx.is_null() {
        return f();
    }
    // SAFETY: the caller's context handle; the emulation validates it.
    code_ok(unsafe { super::context::cuCtxPushCurrent(b, ctx) })?;
    let r = f();
    let mut popped: CUcontext = null_mut();
    // SAFETY: pops what was pushed above.
    let _ = unsafe { super::context::cuCtxPopCurrent(b, &mut popped) };
    r
}

/// A HIP status as a `Result`.
fn hip_ok(b: &HipBackend, e: crate::hip_types::hipError_t) -> Result<(), CUresult> {
    code_ok(b.cu(e))
}

/// The fields of a Driver kernel node (`CUDA_KERNEL_NODE_PARAMS` v2 and v3 have them alike).
struct DriverKernel {
    func: CUfunction,
    grid: [core::ffi::c_uint; 3],
    block: [core::ffi::c_uint; 3],
    shared: core::ffi::c_uint,
    params: *mut *mut c_void,
    extra: *mut *mut c_void,
    kern: CUkernel,
    ctx: CUcontext,
}

macro_rules! driver_kernel {
    ($p:expr) => {{
        let p = $p;
        DriverKernel {
            func: p.func,
            grid: [p.gridDimX, p.gridDimY, p.gridDimZ],
            block: [p.blockDimX, p.blockDimY, p.blockDimZ],
            shared: p.sharedMemBytes,
            params: p.kernelParams,
            extra: p.extra,
            kern: p.kern,
            ctx: p.ctx,
        }
    }};
}

/// A Driver kernel node as the Runtime's parameters HIP takes: `func` (a `CUkernel` passed as
/// one is the current context's function), else `kern` resolved in `ctx` (NULL: the current
/// context), as CUDA reads the struct. `extra` (CUDA's launch markers) is not supported on AMD,
/// and no module function is on HIP's NVIDIA platform (its hipGraphAddKernelNode is the
/// Runtime's, which takes registered functions only): `CUDA_ERROR_NOT_SUPPORTED` there.
fn runtime_kernel(b: &HipBackend, k: &DriverKernel) -> Result<cudaKernelNodeParams, CUresult> {
    let func = if !k.func.is_null() {
        super::library::function_of(b, k.func)?
    } else if !k.kern.is_null() {
        if !super::library::is_kernel(k.kern.cast_const().cast()) {
            return Err(CUresult::CUDA_ERROR_INVALID_HANDLE);
        }
        in_context(b, k.ctx, || super::library::function_of(b, k.kern.cast()))?
    } else {
        return Err(INVALID_VALUE);
    };
    if !k.extra.is_null() && !nvidia(b) {
        return Err(NOT_SUPPORTED);
    }
    if nvidia(b) {
        // HIP's NVIDIA platform maps hipGraphAddKernelNode to cudaGraphAddKernelNode, which
        // takes only the Runtime's registered functions: a module's function (every function
        // the Driver API hands out) is refused there, where AMD's HIP takes a hipFunction_t.
        log::debug!(
            "anycuda (HIP): a Driver kernel node on HIP's NVIDIA platform: its \
             hipGraphAddKernelNode takes no module function (CUDA_ERROR_NOT_SUPPORTED)"
        );
        return Err(NOT_SUPPORTED);
    }
    let dim = |d: [core::ffi::c_uint; 3]| anycuda_api::runtime::dim3 {
        x: d[0],
        y: d[1],
        z: d[2],
    };
    Ok(cudaKernelNodeParams {
        func: func.cast(),
        gridDim: dim(k.grid),
        blockDim: dim(k.block),
        sharedMemBytes: k.shared,
        kernelParams: k.params,
        extra: k.extra,
    })
}

/// HIP's kernel parameters for `c` (`buf` holds the AMD layout; on HIP's NVIDIA platform the
/// Runtime's struct is HIP's).
fn hip_kernel(
    b: &HipBackend,
    c: &cudaKernelNodeParams,
    buf: &mut hipKernelNodeParams,
) -> Result<*const hipKernelNodeParams, CUresult> {
    // SAFETY: `c` is a valid struct for the call.
    unsafe { kernel_in(b, c, buf) }.map_err(|e| match e {
        cudaError_t::cudaErrorNotSupported => NOT_SUPPORTED,
        _ => INVALID_VALUE,
    })
}

/// Adds a kernel node from the Driver's parameters (see [`runtime_kernel`]).
///
/// # Safety
/// CUDA's contract: `out` is writable, `deps` holds `n` nodes.
unsafe fn add_driver_kernel(
    b: &HipBackend,
    out: *mut CUgraphNode,
    graph: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    k: &DriverKernel,
) -> Result<(), CUresult> {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let f = hip_fn_or_err!(b, hipGraphAddKernelNode);
    let c = runtime_kernel(b, k)?;
    let mut buf = zero_kernel();
    let p = hip_kernel(b, &c, &mut buf)?;
    // SAFETY: `buf` and `c` live for the call (HIP copies the parameters); caller's handles.
    hip_ok(b, unsafe { f(out.cast(), graph.cast(), deps.cast(), n, p) })
}

/// `cuGraphAddKernelNode` → `hipGraphAddKernelNode`: the function resolved (a `CUkernel` in
/// its context), the parameters in HIP's field order.
pub(crate) unsafe fn cuGraphAddKernelNode(
    b: &HipBackend,
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL, from the caller.
    let k = driver_kernel!(unsafe { &*nodeParams });
    // SAFETY: forwarded contract.
    let r = unsafe { add_driver_kernel(b, phGraphNode, hGraph, dependencies, numDependencies, &k) };
    code_of(r)
}

/// `cuGraphKernelNodeGetParams` → `hipGraphKernelNodeGetParams`: HIP's struct in CUDA's, with
/// `kern` the kernel handle the function was resolved from (NULL for a module's function) and
/// `ctx` NULL (HIP's node keeps only the function).
pub(crate) unsafe fn cuGraphKernelNodeGetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipGraphKernelNodeGetParams);
    let c = if nvidia(b) {
        // SAFETY: plain data; all-zero is valid.
        let mut c: cudaKernelNodeParams = unsafe { core::mem::zeroed() };
        // SAFETY: `hipKernelNodeParams` is CUDA's Runtime struct on that platform.
        tri!(hip_ok(b, unsafe {
            f(hNode.cast(), (&mut c as *mut cudaKernelNodeParams).cast())
        }));
        c
    } else {
        let mut h = zero_kernel();
        // SAFETY: valid out-struct.
        tri!(hip_ok(b, unsafe { f(hNode.cast(), &mut h) }));
        kernel_params_to_cuda(&h)
    };
    let func: CUfunction = c.func.cast();
    // SAFETY: non-NULL out-pointer.
    unsafe {
        nodeParams.write(CUDA_KERNEL_NODE_PARAMS {
            func,
            gridDimX: c.gridDim.x,
            gridDimY: c.gridDim.y,
            gridDimZ: c.gridDim.z,
            blockDimX: c.blockDim.x,
            blockDimY: c.blockDim.y,
            blockDimZ: c.blockDim.z,
            sharedMemBytes: c.sharedMemBytes,
            kernelParams: c.kernelParams,
            extra: c.extra,
            kern: super::library::kernel_of_function(func).unwrap_or(null_mut()),
            ctx: null_mut(),
        })
    };
    CUresult::CUDA_SUCCESS
}

/// Sets a kernel node's parameters (`exec`: in an executable graph) from the Driver's.
fn set_driver_kernel(
    b: &HipBackend,
    exec: Option<CUgraphExec>,
    node: CUgraphNode,
    k: &DriverKernel,
) -> Result<(), CUresult> {
    let c = runtime_kernel(b, k)?;
    let mut buf = zero_kernel();
    let p = hip_kernel(b, &c, &mut buf)?;
    // SAFETY: `buf` and `c` live for the calls; caller's handles.
    let e = unsafe {
        match exec {
            None => hip_fn_or_err!(b, hipGraphKernelNodeSetParams)(node.cast(), p),
            Some(x) => hip_fn_or_err!(b, hipGraphExecKernelNodeSetParams)(x.cast(), node.cast(), p),
        }
    };
    hip_ok(b, e)
}

/// `cuGraphKernelNodeSetParams` → `hipGraphKernelNodeSetParams` (see `cuGraphAddKernelNode`).
pub(crate) unsafe fn cuGraphKernelNodeSetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL, from the caller.
    let k = driver_kernel!(unsafe { &*nodeParams });
    code_of(set_driver_kernel(b, None, hNode, &k))
}

/// `cuGraphExecKernelNodeSetParams` → `hipGraphExecKernelNodeSetParams` (see
/// `cuGraphAddKernelNode`).
pub(crate) unsafe fn cuGraphExecKernelNodeSetParams(
    b: &HipBackend,
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_KERNEL_NODE_PARAMS,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL, from the caller.
    let k = driver_kernel!(unsafe { &*nodeParams });
    code_of(set_driver_kernel(b, Some(hGraphExec), hNode, &k))
}

/// `cuGraphAddMemsetNode` → `hipGraphAddMemsetNode` (every HIP; the Driver-style
/// `hipDrvGraphAddMemsetNode` exists only from 6.2 and changed its ABI in 7.0), with `ctx`
/// current around the call.
pub(crate) unsafe fn cuGraphAddMemsetNode(
    b: &HipBackend,
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    memsetParams: *const CUDA_MEMSET_NODE_PARAMS,
    ctx: CUcontext,
) -> CUresult {
    if phGraphNode.is_null() {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipGraphAddMemsetNode);
    let mut buf = zero_memset();
    // SAFETY: forwarded contract.
    let p = tri!(unsafe { memset_in::<CUresult>(b, memsetParams, &mut buf) });
    let (out, g, deps) = (phGraphNode.cast(), hGraph.cast(), dependencies.cast());
    let r = in_context(b, ctx, || {
        // SAFETY: `buf` lives for the call; caller's handles.
        hip_ok(b, unsafe { f(out, g, deps, numDependencies, p) })
    });
    code_of(r)
}

/// `cuGraphExecMemsetNodeSetParams` → `hipGraphExecMemsetNodeSetParams` (every HIP), with
/// `ctx` current around the call.
pub(crate) unsafe fn cuGraphExecMemsetNodeSetParams(
    b: &HipBackend,
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    memsetParams: *const CUDA_MEMSET_NODE_PARAMS,
    ctx: CUcontext,
) -> CUresult {
    let f = hip_fn!(b, hipGraphExecMemsetNodeSetParams);
    let mut buf = zero_memset();
    // SAFETY: forwarded contract.
    let p = tri!(unsafe { memset_in::<CUresult>(b, memsetParams, &mut buf) });
    let r = in_context(b, ctx, || {
        // SAFETY: `buf` lives for the call; caller's handles.
        hip_ok(b, unsafe { f(hGraphExec.cast(), hNode.cast(), p) })
    });
    code_of(r)
}

/// A Driver copy descriptor as HIP's Runtime-style one (`hipMemcpy3DParms`; linear memory only,
/// see [`memcpy3d_to_parms`]).
///
/// # Safety
/// `p` is NULL or readable.
unsafe fn runtime_copy(
    b: &HipBackend,
    p: *const CUDA_MEMCPY3D,
) -> Result<crate::hip_types::hipMemcpy3DParms, CUresult> {
    if p.is_null() {
        return Err(INVALID_VALUE);
    }
    // SAFETY: non-NULL, from the caller.
    let parms = memcpy3d_to_parms(unsafe { &*p })?;
    memcpy_to_hip(b, &parms).map_err(|_| INVALID_VALUE)
}

/// A memcpy node's parameters read back from a Runtime-style HIP node (see
/// [`parms_to_memcpy3d`]).
fn memcpy_node_params(b: &HipBackend, node: CUgraphNode) -> Result<CUDA_MEMCPY3D, CUresult> {
    let f = hip_fn_or_err!(b, hipGraphMemcpyNodeGetParams);
    // SAFETY: plain data; all-zero is valid.
    let mut h: crate::hip_types::hipMemcpy3DParms = unsafe { core::mem::zeroed() };
    // SAFETY: valid out-struct (on HIP's NVIDIA platform CUDA's struct, same fields and order).
    hip_ok(b, unsafe { f(node.cast(), &mut h) })?;
    parms_to_memcpy3d(&h)
}

/// Adds a memcpy node from a Driver descriptor: `hipDrvGraphAddMemcpyNode` where HIP has it
/// (6.2+, every memory type), else `hipGraphAddMemcpyNode` for linear memory with `ctx` current.
///
/// # Safety
/// CUDA's contract: `out` is writable, `deps` holds `n` nodes, `p` is NULL or readable.
unsafe fn add_driver_copy(
    b: &HipBackend,
    out: *mut CUgraphNode,
    graph: CUgraph,
    deps: *const CUgraphNode,
    n: usize,
    p: *const CUDA_MEMCPY3D,
    ctx: CUcontext,
) -> Result<(), CUresult> {
    if out.is_null() {
        return Err(INVALID_VALUE);
    }
    let t = super::support::table::<CUresult>(b)?;
    if let Some(f) = t.hipDrvGraphAddMemcpyNode {
        // SAFETY: forwarded contract.
        let h = unsafe { copy_params(b, p) }?;
        // SAFETY: `h` lives for the call; caller's handles.
        return hip_ok(b, unsafe {
            f(out.cast(), graph.cast(), deps.cast(), n, &h, ctx.cast())
        });
    }
    let f = t.hipGraphAddMemcpyNode.ok_or(NOT_SUPPORTED)?;
    // SAFETY: forwarded contract.
    let h = unsafe { runtime_copy(b, p) }?;
    in_context(b, ctx, || {
        // SAFETY: `h` lives for the call; caller's handles.
        hip_ok(b, unsafe {
            f(out.cast(), graph.cast(), deps.cast(), n, &h)
        })
    })
}

/// Sets a memcpy node's parameters from a Driver descriptor (`exec`: in an executable graph):
/// the `hipDrvGraph*` call where HIP has it (6.3+), else the Runtime-style one for linear
/// memory with `ctx` current.
///
/// # Safety
/// `p` is NULL or readable; the handles are the caller's.
unsafe fn set_driver_copy(
    b: &HipBackend,
    exec: Option<CUgraphExec>,
    node: CUgraphNode,
    p: *const CUDA_MEMCPY3D,
    ctx: CUcontext,
) -> Result<(), CUresult> {
    let t = super::support::table::<CUresult>(b)?;
    match exec {
        None => {
            if let Some(f) = t.hipDrvGraphMemcpyNodeSetParams {
                // SAFETY: forwarded contract.
                let h = unsafe { copy_params(b, p) }?;
                // SAFETY: `h` lives for the call.
                return hip_ok(b, unsafe { f(node.cast(), &h) });
            }
            let f = t.hipGraphMemcpyNodeSetParams.ok_or(NOT_SUPPORTED)?;
            // SAFETY: forwarded contract.
            let h = unsafe { runtime_copy(b, p) }?;
            // SAFETY: `h` lives for the call.
            hip_ok(b, unsafe { f(node.cast(), &h) })
        }
        Some(x) => {
            if let Some(f) = t.hipDrvGraphExecMemcpyNodeSetParams {
                // SAFETY: forwarded contract.
                let h = unsafe { copy_params(b, p) }?;
                // SAFETY: `h` lives for the call.
                return hip_ok(b, unsafe { f(x.cast(), node.cast(), &h, ctx.cast()) });
            }
            let f = t.hipGraphExecMemcpyNodeSetParams.ok_or(NOT_SUPPORTED)?;
            // SAFETY: forwarded contract.
            let mut h = unsafe { runtime_copy(b, p) }?;
            in_context(b, ctx, || {
                // SAFETY: `h` lives for the call.
                hip_ok(b, unsafe { f(x.cast(), node.cast(), &mut h) })
            })
        }
    }
}

/// `cuGraphAddMemcpyNode` → `hipDrvGraphAddMemcpyNode` (HIP 6.2+): descriptor rebuilt as in
/// `cuMemcpy3D` (memory types renumbered, `reserved` pointers checked); before HIP 6.2 (and on
/// its NVIDIA platform) `hipGraphAddMemcpyNode` for copies between linear memory.
pub(crate) unsafe fn cuGraphAddMemcpyNode(
    b: &HipBackend,
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    numDependencies: usize,
    copyParams: *const CUDA_MEMCPY3D,
    ctx: CUcontext,
) -> CUresult {
    let (out, g, deps, n) = (phGraphNode, hGraph, dependencies, numDependencies);
    // SAFETY: forwarded contract.
    let r = unsafe { add_driver_copy(b, out, g, deps, n, copyParams, ctx) };
    code_of(r)
}

/// `cuGraphMemcpyNodeSetParams` → `hipDrvGraphMemcpyNodeSetParams` (HIP 6.3+), else
/// `hipGraphMemcpyNodeSetParams` for linear memory.
pub(crate) unsafe fn cuGraphMemcpyNodeSetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *const CUDA_MEMCPY3D,
) -> CUresult {
    // SAFETY: forwarded contract.
    let r = unsafe { set_driver_copy(b, None, hNode, nodeParams, null_mut()) };
    code_of(r)
}

/// `cuGraphExecMemcpyNodeSetParams` → `hipDrvGraphExecMemcpyNodeSetParams` (HIP 6.3+), else
/// `hipGraphExecMemcpyNodeSetParams` for linear memory with `ctx` current.
pub(crate) unsafe fn cuGraphExecMemcpyNodeSetParams(
    b: &HipBackend,
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    copyParams: *const CUDA_MEMCPY3D,
    ctx: CUcontext,
) -> CUresult {
    // SAFETY: forwarded contract.
    let r = unsafe { set_driver_copy(b, Some(hGraphExec), hNode, copyParams, ctx) };
    code_of(r)
}

/// `cuGraphMemcpyNodeGetParams` → `hipDrvGraphMemcpyNodeGetParams` (HIP 6.3+): HIP's
/// descriptor rebuilt as CUDA's (memory types renumbered back); before, the Runtime-style
/// `hipGraphMemcpyNodeGetParams`, whose linear ends read back as unified memory.
pub(crate) unsafe fn cuGraphMemcpyNodeGetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *mut CUDA_MEMCPY3D,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    let t = tri!(super::support::table::<CUresult>(b));
    let c = match t.hipDrvGraphMemcpyNodeGetParams {
        Some(f) => {
            // SAFETY: zeroed POD, filled by HIP.
            let mut h: HIP_MEMCPY3D = unsafe { core::mem::zeroed() };
            // SAFETY: valid out-pointer.
            tri!(hip_ok(b, unsafe { f(hNode.cast(), &mut h) }));
            memcpy3d_to_cuda(b.conv().CUmemorytype, &h)
        }
        None => tri!(memcpy_node_params(b, hNode)),
    };
    // SAFETY: non-NULL.
    unsafe { nodeParams.write(c) };
    CUresult::CUDA_SUCCESS
}

/// A generic host node's parameters as HIP's: a function is required (invalid value without),
/// and only the default `syncMode` 0 (HIP's host nodes have no other: not supported).
fn host_params(
    h: &anycuda_api::driver::CUDA_HOST_NODE_PARAMS_v2,
) -> Result<crate::hip_types::hipHostNodeParams, CUresult> {
    if h.syncMode != 0 {
        return Err(NOT_SUPPORTED);
    }
    if h.fn_.is_none() {
        return Err(INVALID_VALUE);
    }
    Ok(crate::hip_types::hipHostNodeParams {
        fn_: h.fn_,
        userData: h.userData,
    })
}

/// A generic node type CUDA has but this adaptation does not build: not supported, and a value
/// that is no node type at all: invalid.
fn other_node_type(t: CUgraphNodeType) -> CUresult {
    if anycuda_api::CudaEnum::name(t).is_none() {
        INVALID_VALUE
    } else {
        NOT_SUPPORTED
    }
}

/// `cuGraphAddNode` (CUDA 12.3+, generic parameters and edge data): kernel, memset, memcpy,
/// empty, child-graph (clone ownership), event-record, event-wait, host, allocation and free
/// nodes through HIP's per-type calls with their parameters translated (as the Driver's own
/// per-type entry points here); default (or absent) edge data only; other node types are
/// `CUDA_ERROR_NOT_SUPPORTED`.
pub(crate) unsafe fn cuGraphAddNode(
    b: &HipBackend,
    phGraphNode: *mut CUgraphNode,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    dependencyData: *const CUgraphEdgeData,
    numDependencies: usize,
    nodeParams: *mut CUgraphNodeParams,
) -> CUresult {
    if nodeParams.is_null() || phGraphNode.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: CUDA's contract: `numDependencies` entries.
    if let Err(e) = unsafe { check_default_edges(dependencyData, numDependencies) } {
        return e.into();
    }
    // SAFETY: non-NULL from the caller.
    let np = unsafe { &mut *nodeParams };
    let (out, g, deps, n) = (phGraphNode, hGraph, dependencies, numDependencies);
    let (hout, hg, hdeps) = (out.cast(), g.cast(), deps.cast());
    // SAFETY: in every arm, the union member the node type selects; handles and pointers are
    // the caller's; translated structs live on the stack for the call.
    unsafe {
        match np.type_ {
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL => {
                let k = driver_kernel!(&np.__bindgen_anon_1.kernel);
                code_of(add_driver_kernel(b, out, g, deps, n, &k))
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMSET => {
                let m = &np.__bindgen_anon_1.memset;
                let c = memset_params_of_driver_v2(m);
                cuGraphAddMemsetNode(b, out, g, deps, n, &c, m.ctx)
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMCPY => {
                let m = &np.__bindgen_anon_1.memcpy;
                if m.flags != 0 || m.reserved != 0 {
                    return NOT_SUPPORTED;
                }
                cuGraphAddMemcpyNode(b, out, g, deps, n, &m.copyParams, m.copyCtx)
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_EMPTY => {
                b.cu(hip_fn!(b, hipGraphAddEmptyNode)(hout, hg, hdeps, n))
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_GRAPH => {
                let c = &np.__bindgen_anon_1.graph;
                if c.ownership.0 != 0 {
                    return NOT_SUPPORTED;
                }
                add_child_graph(b, out, g, deps, n, c.graph)
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_EVENT_RECORD => {
                let ev = np.__bindgen_anon_1.eventRecord.event;
                let f = hip_fn!(b, hipGraphAddEventRecordNode);
                b.cu(f(hout, hg, hdeps, n, ev.cast()))
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_WAIT_EVENT => {
                let ev = np.__bindgen_anon_1.eventWait.event;
                let f = hip_fn!(b, hipGraphAddEventWaitNode);
                b.cu(f(hout, hg, hdeps, n, ev.cast()))
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_HOST => {
                let p = tri!(host_params(&np.__bindgen_anon_1.host));
                let f = hip_fn!(b, hipGraphAddHostNode);
                b.cu(f(hout, hg, hdeps, n, &p))
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEM_ALLOC => {
                // `CUDA_MEM_ALLOC_NODE_PARAMS` v1 and v2 have one layout (asserted below).
                let a = core::ptr::addr_of_mut!(np.__bindgen_anon_1.alloc);
                add_mem_alloc_node(b, out, g, deps, n, a.cast())
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEM_FREE => {
                let p = devptr_to_hip(np.__bindgen_anon_1.free.dptr);
                let f = hip_fn!(b, hipGraphAddMemFreeNode);
                b.cu(f(hout, hg, hdeps, n, p))
            }
            t => other_node_type(t),
        }
    }
}

const _: () = assert!(
    core::mem::size_of::<CUDA_MEM_ALLOC_NODE_PARAMS>()
        == core::mem::size_of::<anycuda_api::driver::CUDA_MEM_ALLOC_NODE_PARAMS_v2>()
);

/// Sets a node's parameters from the generic struct (`exec`: in an executable graph): kernel,
/// memset, memcpy and host nodes; other types `CUDA_ERROR_NOT_SUPPORTED`.
///
/// # Safety
/// `np` is the caller's generic struct; the handles are the caller's.
unsafe fn set_generic(
    b: &HipBackend,
    exec: Option<CUgraphExec>,
    node: CUgraphNode,
    np: &CUgraphNodeParams,
) -> CUresult {
    // SAFETY: in every arm, the union member the node type selects.
    unsafe {
        match np.type_ {
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_KERNEL => {
                let k = driver_kernel!(&np.__bindgen_anon_1.kernel);
                code_of(set_driver_kernel(b, exec, node, &k))
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMSET => {
                let m = &np.__bindgen_anon_1.memset;
                let c = memset_params_of_driver_v2(m);
                match exec {
                    None => memset_node_set(b, node, &c),
                    Some(x) => cuGraphExecMemsetNodeSetParams(b, x, node, &c, m.ctx),
                }
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_MEMCPY => {
                let m = &np.__bindgen_anon_1.memcpy;
                if m.flags != 0 || m.reserved != 0 {
                    return NOT_SUPPORTED;
                }
                code_of(set_driver_copy(b, exec, node, &m.copyParams, m.copyCtx))
            }
            CUgraphNodeType::CU_GRAPH_NODE_TYPE_HOST => {
                let p = tri!(host_params(&np.__bindgen_anon_1.host));
                match exec {
                    None => b.cu(hip_fn!(b, hipGraphHostNodeSetParams)(node.cast(), &p)),
                    Some(x) => b.cu(hip_fn!(b, hipGraphExecHostNodeSetParams)(
                        x.cast(),
                        node.cast(),
                        &p,
                    )),
                }
            }
            t => other_node_type(t),
        }
    }
}

/// `cuGraphNodeSetParams` (CUDA 12.2+ generic parameters): kernel, memset, memcpy and host
/// nodes through HIP's per-type setters (see `set_generic`).
pub(crate) unsafe fn cuGraphNodeSetParams(
    b: &HipBackend,
    hNode: CUgraphNode,
    nodeParams: *mut CUgraphNodeParams,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL, from the caller; forwarded contract.
    unsafe { set_generic(b, None, hNode, &*nodeParams) }
}

/// `cuGraphExecNodeSetParams` (CUDA 12.2+ generic parameters): kernel, memset, memcpy and host
/// nodes through HIP's per-type executable setters (see `set_generic`).
pub(crate) unsafe fn cuGraphExecNodeSetParams(
    b: &HipBackend,
    hGraphExec: CUgraphExec,
    hNode: CUgraphNode,
    nodeParams: *mut CUgraphNodeParams,
) -> CUresult {
    if nodeParams.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: non-NULL, from the caller; forwarded contract.
    unsafe { set_generic(b, Some(hGraphExec), hNode, &*nodeParams) }
}

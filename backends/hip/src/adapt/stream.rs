//! Streams: wait values, capture modes and info, host callbacks, a stream's context.

use super::support::{hip_fn, nvidia, tri, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED, SUCCESS};
use crate::conv::stream::wait_flags_to_hip;
use crate::conv::{
    check_default_edges, devptr_to_hip, enum_arg, enum_to_cuda, stream_to_hip, ConvTables,
};
use crate::conv::{default_edges, ApiResult, EdgeData, EnumMap, Refusal};
use crate::hip_types::{hipCtx_t, hipError_t, hipGraphNode_t, hipGraph_t, hipStream_t};
use crate::HipBackend;
use anycuda_api::driver::{
    cuuint32_t, cuuint64_t, CUcontext, CUdeviceptr, CUgraph, CUgraphEdgeData, CUgraphNode,
    CUgreenCtx, CUresult, CUstream, CUstreamCallback, CUstreamCaptureMode, CUstreamCaptureStatus,
    CUstreamUpdateCaptureDependencies_flags,
};
use anycuda_api::runtime::{
    cudaError_t, cudaGraphEdgeData, cudaGraphNode_t, cudaGraph_t, cudaLaunchAttributeID,
    cudaLaunchAttributeValue, cudaStreamCallback_t, cudaStreamCaptureMode, cudaStreamCaptureStatus,
    cudaStream_t,
};
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};

/// `cuStreamWaitValue32` → `hipStreamWaitValue32` with an all-ones mask (CUDA compares the
/// whole word); the FLUSH flag is not supported.
pub(crate) unsafe fn cuStreamWaitValue32(
    b: &HipBackend,
    stream: CUstream,
    addr: CUdeviceptr,
    value: cuuint32_t,
    flags: c_uint,
) -> CUresult {
    let fl = tri!(wait_flags_to_hip(flags));
    let f = hip_fn!(b, hipStreamWaitValue32);
    // SAFETY: caller's stream and address; HIP validates them.
    b.cu(unsafe {
        f(
            stream_to_hip(b.platform(), stream),
            devptr_to_hip(addr),
            value,
            fl,
            u32::MAX,
        )
    })
}

/// `cuStreamWaitValue64` → `hipStreamWaitValue64` with an all-ones mask; FLUSH not supported.
pub(crate) unsafe fn cuStreamWaitValue64(
    b: &HipBackend,
    stream: CUstream,
    addr: CUdeviceptr,
    value: cuuint64_t,
    flags: c_uint,
) -> CUresult {
    let fl = tri!(wait_flags_to_hip(flags));
    let f = hip_fn!(b, hipStreamWaitValue64);
    // SAFETY: caller's stream and address; HIP validates them.
    b.cu(unsafe {
        f(
            stream_to_hip(b.platform(), stream),
            devptr_to_hip(addr),
            value,
            fl,
            u64::MAX,
        )
    })
}

/// `cuStreamGetCtx` (AMD) → `hipStreamGetDevice` (HIP 6.2+): on AMD a context is its device's
/// handle, so the stream's context is that device's (primary) context handle. HIP's NVIDIA
/// platform cannot name a non-primary context: not supported there.
pub(crate) unsafe fn cuStreamGetCtx(
    b: &HipBackend,
    hStream: CUstream,
    pctx: *mut CUcontext,
) -> CUresult {
    if pctx.is_null() {
        return INVALID_VALUE;
    }
    if nvidia(b) {
        return NOT_SUPPORTED;
    }
    let get = hip_fn!(b, hipStreamGetDevice);
    let retain = hip_fn!(b, hipDevicePrimaryCtxRetain);
    let mut dev = 0;
    // SAFETY: valid out-pointer; HIP validates the stream.
    let e = unsafe { get(stream_to_hip(b.platform(), hStream), &mut dev) };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    let mut c: hipCtx_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; on AMD this only reads HIP's device table.
    let e = unsafe { retain(&mut c, dev) };
    if e == HIP_SUCCESS {
        // SAFETY: checked non-NULL.
        unsafe { *pctx = c.cast() };
    }
    b.cu(e)
}

/// `cuStreamGetCtx_v2`: as `cuStreamGetCtx`; HIP has no green contexts, so `*pGreenCtx` is
/// NULL.
pub(crate) unsafe fn cuStreamGetCtx_v2(
    b: &HipBackend,
    hStream: CUstream,
    pCtx: *mut CUcontext,
    pGreenCtx: *mut CUgreenCtx,
) -> CUresult {
    if pGreenCtx.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: forwarded contract.
    let e = unsafe { cuStreamGetCtx(b, hStream, pCtx) };
    if e == SUCCESS {
        // SAFETY: checked non-NULL.
        unsafe { *pGreenCtx = core::ptr::null_mut() };
    }
    e
}

// ------------------------------------------------------------ Runtime

/// `cudaStreamGetAttribute` → `hipStreamGetPriority` for `cudaLaunchAttributePriority` (the
/// attribute every HIP version can read, with the same meaning); HIP's attribute entry points
/// change their value layout per version, so other attributes are `cudaErrorNotSupported`.
pub(crate) unsafe fn cudaStreamGetAttribute(
    b: &HipBackend,
    hStream: cudaStream_t,
    attr: cudaLaunchAttributeID,
    value_out: *mut cudaLaunchAttributeValue,
) -> cudaError_t {
    let f = hip_fn!(b, hipStreamGetPriority);
    if value_out.is_null() || anycuda_api::CudaEnum::name(attr).is_none() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if attr != cudaLaunchAttributeID::cudaLaunchAttributePriority {
        return cudaError_t::cudaErrorNotSupported;
    }
    let mut p: c_int = 0;
    // SAFETY: valid out-pointer; stream translated.
    let e = unsafe { f(stream_to_hip(b.platform(), hStream.cast()), &mut p) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer; the whole union is written (zeroed, then the member).
        unsafe {
            value_out.write(core::mem::zeroed());
            (*value_out).priority = p;
        }
    }
    b.rt(e)
}

// ------------------------------------------------------------ capture info (both APIs)

/// A capture's status, id, graph and dependencies (both APIs; `E` is the API's edge data): the
/// status translated; HIP's capture dependencies are all default edges, so edge data, when
/// asked for, points to that many default edges that live forever (NULL without dependencies;
/// more than [`crate::conv::MAX_DEFAULT_EDGES`]: not supported). As on CUDA, the status is required, and
/// edge data needs the dependency outputs.
///
/// # Safety
/// CUDA's contract: every non-NULL pointer is writable.
unsafe fn capture_info<R: ApiResult, E: EdgeData>(
    b: &HipBackend,
    stream: CUstream,
    status_map: &EnumMap,
    status_out: *mut u32,
    id_out: *mut cuuint64_t,
    graph_out: *mut CUgraph,
    dependencies_out: *mut *const CUgraphNode,
    edge_data_out: *mut *const E,
    count_out: *mut usize,
) -> R {
    if status_out.is_null()
        || (!dependencies_out.is_null() && count_out.is_null())
        || (!edge_data_out.is_null() && (dependencies_out.is_null() || count_out.is_null()))
    {
        return Refusal::InvalidValue.into();
    }
    let f = hip_fn!(b, hipStreamGetCaptureInfo_v2);
    let mut st = 0;
    let mut deps: *const hipGraphNode_t = core::ptr::null();
    let mut n = 0usize;
    // SAFETY: valid out-pointers; the optional ones are the caller's or NULL.
    let e = unsafe {
        f(
            stream_to_hip(b.platform(), stream),
            &mut st,
            id_out.cast(),
            graph_out.cast::<hipGraph_t>(),
            &mut deps,
            &mut n,
        )
    };
    if e != HIP_SUCCESS {
        return R::from_hip(b.conv(), e);
    }
    let edges = match (n, edge_data_out.is_null()) {
        (0, _) | (_, true) => core::ptr::null(),
        _ => match default_edges::<E>(n) {
            Some(p) => p,
            None => return Refusal::NotSupported.into(),
        },
    };
    // SAFETY: non-NULL out-pointers (checked above).
    unsafe {
        status_out.write(enum_to_cuda(status_map, st));
        if !dependencies_out.is_null() {
            dependencies_out.write(deps.cast());
        }
        if !count_out.is_null() {
            count_out.write(n);
        }
        if !edge_data_out.is_null() {
            edge_data_out.write(edges);
        }
    }
    R::SUCCESS
}

/// `cuStreamGetCaptureInfo` (CUDA 13, with edge data) → `hipStreamGetCaptureInfo_v2`.
pub(crate) unsafe fn cuStreamGetCaptureInfo(
    b: &HipBackend,
    hStream: CUstream,
    captureStatus_out: *mut CUstreamCaptureStatus,
    id_out: *mut cuuint64_t,
    graph_out: *mut CUgraph,
    dependencies_out: *mut *const CUgraphNode,
    edgeData_out: *mut *const CUgraphEdgeData,
    numDependencies_out: *mut usize,
) -> CUresult {
    let map = b.conv().CUstreamCaptureStatus;
    // SAFETY: forwarded contract; `CUstreamCaptureStatus` is a transparent `u32`.
    unsafe {
        capture_info(
            b,
            hStream,
            map,
            captureStatus_out.cast(),
            id_out,
            graph_out,
            dependencies_out,
            edgeData_out,
            numDependencies_out,
        )
    }
}

/// `cudaStreamGetCaptureInfo` (CUDA 13, with edge data) → `hipStreamGetCaptureInfo_v2`.
pub(crate) unsafe fn cudaStreamGetCaptureInfo(
    b: &HipBackend,
    stream: cudaStream_t,
    captureStatus_out: *mut cudaStreamCaptureStatus,
    id_out: *mut c_ulonglong,
    graph_out: *mut cudaGraph_t,
    dependencies_out: *mut *const cudaGraphNode_t,
    edgeData_out: *mut *const cudaGraphEdgeData,
    numDependencies_out: *mut usize,
) -> cudaError_t {
    let map = b.conv().cudaStreamCaptureStatus;
    // SAFETY: forwarded contract; `cudaStreamCaptureStatus` is a transparent `u32`.
    unsafe {
        capture_info(
            b,
            stream,
            map,
            captureStatus_out.cast(),
            id_out,
            graph_out,
            dependencies_out,
            edgeData_out,
            numDependencies_out,
        )
    }
}

// ------------------------------------------------------------ callbacks (both APIs)

/// What the callback trampoline needs: the user's callback and data, the stream handle as the
/// user gave it, and how to read the status HIP passes.
struct Carrier<R> {
    callback: unsafe extern "C" fn(CUstream, R, *mut c_void),
    user: *mut c_void,
    stream: CUstream,
    conv: &'static ConvTables,
    status: fn(&ConvTables, hipError_t) -> R,
}

/// Called by HIP once per registered callback: takes the carrier back (freeing it), translates
/// the status and calls the user's callback with the user's stream handle.
unsafe extern "C" fn trampoline<R>(_s: hipStream_t, status: hipError_t, data: *mut c_void) {
    if data.is_null() {
        return;
    }
    // SAFETY: `data` is the `Box<Carrier<R>>` leaked by `add_callback`; HIP calls each
    // callback exactly once, so it is reclaimed exactly once.
    let c = unsafe { Box::from_raw(data.cast::<Carrier<R>>()) };
    let st = (c.status)(c.conv, status);
    // SAFETY: the user's callback with the user's data (CUDA's contract).
    unsafe { (c.callback)(c.stream, st, c.user) };
}

/// `cu`/`cudaStreamAddCallback` → `hipStreamAddCallback` through a trampoline that translates
/// the status with `status` and hands back the user's stream handle. The carrier is one small
/// heap box per call (the callback outlives this call; callbacks are no hot path), freed by the
/// trampoline, or at once when HIP refuses. `flags` must be 0 and the callback non-NULL
/// (invalid value), as on CUDA.
///
/// # Safety
/// CUDA's contract: the callback may be called with `user` from another thread.
unsafe fn add_callback<R: ApiResult>(
    b: &HipBackend,
    stream: CUstream,
    callback: Option<unsafe extern "C" fn(CUstream, R, *mut c_void)>,
    user: *mut c_void,
    flags: c_uint,
    status: fn(&ConvTables, hipError_t) -> R,
) -> R {
    let Some(callback) = callback else {
        return Refusal::InvalidValue.into();
    };
    if flags != 0 {
        return Refusal::InvalidValue.into();
    }
    let f = hip_fn!(b, hipStreamAddCallback);
    let carrier = Box::into_raw(Box::new(Carrier {
        callback,
        user,
        stream,
        conv: b.conv(),
        status,
    }));
    // SAFETY: the trampoline matches HIP's callback type; the carrier stays alive until the
    // trampoline takes it back.
    let e = unsafe {
        f(
            stream_to_hip(b.platform(), stream),
            Some(trampoline::<R>),
            carrier.cast(),
            0,
        )
    };
    if e != HIP_SUCCESS {
        // SAFETY: HIP did not register the callback, so the trampoline will never run.
        drop(unsafe { Box::from_raw(carrier) });
    }
    R::from_hip(b.conv(), e)
}

/// `cuStreamAddCallback` → `hipStreamAddCallback`: the callback gets a `CUresult` and the
/// caller's stream handle.
pub(crate) unsafe fn cuStreamAddCallback(
    b: &HipBackend,
    hStream: CUstream,
    callback: CUstreamCallback,
    userData: *mut c_void,
    flags: c_uint,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { add_callback(b, hStream, callback, userData, flags, CUresult::from_hip) }
}

/// `cudaStreamAddCallback` → `hipStreamAddCallback`: the callback gets a `cudaError_t` (HIP's
/// NVIDIA platform passes CUDA's own status: its `hipStreamAddCallback` casts the callback to
/// `cudaStreamCallback_t`) and the caller's stream handle.
pub(crate) unsafe fn cudaStreamAddCallback(
    b: &HipBackend,
    stream: cudaStream_t,
    callback: cudaStreamCallback_t,
    userData: *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    let status: fn(&ConvTables, hipError_t) -> cudaError_t = if nvidia(b) {
        |_, s| cudaError_t(s as _)
    } else {
        cudaError_t::from_hip
    };
    // SAFETY: forwarded contract.
    unsafe { add_callback(b, stream, callback, userData, flags, status) }
}

/// A host function queued through `hipStreamAddCallback` where HIP lacks `hipLaunchHostFunc`.
struct HostFn {
    f: unsafe extern "C" fn(*mut c_void),
    user: *mut c_void,
}

/// Takes the [`HostFn`] back (freeing it) and runs the user's function, whatever the status:
/// CUDA runs a host function once the work before it is done, and reports no status to it.
unsafe extern "C" fn host_fn_trampoline(_s: hipStream_t, _st: hipError_t, data: *mut c_void) {
    if data.is_null() {
        return;
    }
    // SAFETY: `data` is the `Box<HostFn>` leaked by `launch_host_func`; HIP calls each callback
    // exactly once.
    let h = unsafe { Box::from_raw(data.cast::<HostFn>()) };
    // SAFETY: the user's function with the user's data (CUDA's contract).
    unsafe { (h.f)(h.user) };
}

/// Where `stream` is capturing: adds a host node running `f(user)` after the capture's current
/// dependencies and makes it the capture's only dependency (`hipStreamGetCaptureInfo_v2`,
/// `hipGraphAddHostNode`, `hipStreamUpdateCaptureDependencies` with "set", which is what a
/// captured `cudaLaunchHostFunc` records). `None` when the stream is not capturing (or this
/// HIP cannot say), so the caller queues the function instead.
///
/// # Safety
/// `stream` is the caller's (HIP's) stream; `f` may be called with `user` from another thread,
/// once per launch of the graph.
unsafe fn capture_host_node(
    b: &HipBackend,
    stream: hipStream_t,
    f: unsafe extern "C" fn(*mut c_void),
    user: *mut c_void,
) -> Option<Result<(), hipError_t>> {
    let t = b.native_hip()?;
    let (info, add, update) = (
        t.hipStreamGetCaptureInfo_v2?,
        t.hipGraphAddHostNode?,
        t.hipStreamUpdateCaptureDependencies?,
    );
    let mut status: crate::hip_types::hipStreamCaptureStatus = 0;
    let mut graph: crate::hip_types::hipGraph_t = core::ptr::null_mut();
    let mut deps: *const crate::hip_types::hipGraphNode_t = core::ptr::null();
    let mut n: usize = 0;
    let mut id: core::ffi::c_ulonglong = 0;
    // SAFETY: valid out-pointers; the caller's stream.
    let e = unsafe { info(stream, &mut status, &mut id, &mut graph, &mut deps, &mut n) };
    if e != HIP_SUCCESS || status != crate::hip_types::hipStreamCaptureStatusActive {
        return None;
    }
    let params = crate::hip_types::hipHostNodeParams {
        fn_: Some(f),
        userData: user,
    };
    let mut node: crate::hip_types::hipGraphNode_t = core::ptr::null_mut();
    // SAFETY: HIP's own dependency array (valid until the capture changes), our out-pointer.
    let e = unsafe { add(&mut node, graph, deps, n, &params) };
    if e != HIP_SUCCESS {
        return Some(Err(e));
    }
    // `hipStreamSetCaptureDependencies` is 1 in HIP (and CUDA's set flag on its NVIDIA platform).
    const SET: core::ffi::c_uint = 1;
    // SAFETY: one node of the capture's graph.
    let e = unsafe { update(stream, &mut node, 1, SET) };
    Some(if e == HIP_SUCCESS { Ok(()) } else { Err(e) })
}

/// `cu`/`cudaLaunchHostFunc` → `hipLaunchHostFunc`; where the loaded HIP lacks it (HIP 5.x on
/// its NVIDIA platform), `hipStreamAddCallback`, which runs the function at the same point of
/// the stream. A NULL function is an invalid value, as on CUDA.
///
/// # Safety
/// CUDA's contract: `f` may be called with `user` from another thread.
unsafe fn launch_host_func<R: ApiResult>(
    b: &HipBackend,
    stream: CUstream,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    user: *mut c_void,
) -> R {
    let Some(f) = f else {
        return Refusal::InvalidValue.into();
    };
    let Some(t) = b.native_hip() else {
        return R::NO_LIBRARY;
    };
    let hs = stream_to_hip(b.platform(), stream);
    if let Some(launch) = t.hipLaunchHostFunc {
        // SAFETY: CUhostFn and hipHostFn_t are the same C signature; forwarded contract.
        return R::from_hip(b.conv(), unsafe { launch(hs, Some(f), user) });
    }
    // A capturing stream refuses a callback (HIP and CUDA alike): there the host function
    // becomes a host node of the capture's graph, as `cudaLaunchHostFunc` records it.
    // SAFETY: the caller's stream; `f` and `user` as CUDA's contract gives them.
    match unsafe { capture_host_node(b, hs, f, user) } {
        Some(Ok(())) => return R::SUCCESS,
        Some(Err(e)) => return R::from_hip(b.conv(), e),
        None => {}
    }
    let add = hip_fn!(b, hipStreamAddCallback);
    let carrier = Box::into_raw(Box::new(HostFn { f, user }));
    // SAFETY: the trampoline matches HIP's callback type and reclaims the carrier.
    let e = unsafe { add(hs, Some(host_fn_trampoline), carrier.cast(), 0) };
    if e != HIP_SUCCESS {
        // SAFETY: HIP did not register the callback, so the trampoline never runs.
        drop(unsafe { Box::from_raw(carrier) });
    }
    R::from_hip(b.conv(), e)
}

/// `cuLaunchHostFunc`: see [`launch_host_func`].
pub(crate) unsafe fn cuLaunchHostFunc(
    b: &HipBackend,
    hStream: CUstream,
    fn_: anycuda_api::driver::CUhostFn,
    userData: *mut c_void,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { launch_host_func(b, hStream, fn_, userData) }
}

/// `cudaLaunchHostFunc`: see [`launch_host_func`].
pub(crate) unsafe fn cudaLaunchHostFunc(
    b: &HipBackend,
    stream: cudaStream_t,
    fn_: anycuda_api::runtime::cudaHostFn_t,
    userData: *mut c_void,
) -> cudaError_t {
    // SAFETY: forwarded contract.
    unsafe { launch_host_func(b, stream as CUstream, fn_, userData) }
}

// ------------------------------------------------------------ capture (both APIs)
//
// The capture enums translate alike for both APIs (`conv::same_rules`): the Driver's tables
// serve the Runtime's values too. Edge data must be default (HIP captures have no other).

/// `cu`/`cudaThreadExchangeStreamCaptureMode` → `hipThreadExchangeStreamCaptureMode`: the
/// in-out mode translated both ways (NULL or an unknown mode: invalid value).
///
/// # Safety
/// `mode` is NULL or an in-out `u32` (both APIs' mode types are transparent `u32`s).
unsafe fn exchange_capture_mode<R: ApiResult>(b: &HipBackend, mode: *mut u32) -> R {
    if mode.is_null() {
        return Refusal::InvalidValue.into();
    }
    let map = b.conv().CUstreamCaptureMode;
    // SAFETY: non-NULL in-out pointer.
    let mut m = match enum_arg(map, CUstreamCaptureMode(unsafe { *mode })) {
        Ok(m) => m as u32,
        Err(r) => return r.into(),
    };
    let f = hip_fn!(b, hipThreadExchangeStreamCaptureMode);
    // SAFETY: valid in-out pointer.
    let e = unsafe { f(&mut m) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { mode.write(enum_to_cuda(map, m)) };
    }
    R::from_hip(b.conv(), e)
}

/// `cu`/`cudaStreamUpdateCaptureDependencies` (with edge data) →
/// `hipStreamUpdateCaptureDependencies`: default edges only; the add/set flag translated.
///
/// # Safety
/// CUDA's contract: `dependencies` and `data` (if not NULL) hold `n` entries.
unsafe fn update_capture_dependencies<R: ApiResult, E: EdgeData>(
    b: &HipBackend,
    stream: CUstream,
    dependencies: *mut CUgraphNode,
    data: *const E,
    n: usize,
    flags: c_uint,
) -> R {
    // SAFETY: the caller's array of `n` edges, or NULL.
    if let Err(r) = unsafe { check_default_edges(data, n) } {
        return r.into();
    }
    let map = b.conv().CUstreamUpdateCaptureDependencies_flags;
    let fl = match enum_arg(map, CUstreamUpdateCaptureDependencies_flags(flags)) {
        Ok(v) => v as c_uint,
        Err(r) => return r.into(),
    };
    let f = hip_fn!(b, hipStreamUpdateCaptureDependencies);
    let s = stream_to_hip(b.platform(), stream);
    // SAFETY: the caller's array; HIP validates the stream.
    R::from_hip(b.conv(), unsafe { f(s, dependencies.cast(), n, fl) })
}

/// `cu`/`cudaStreamBeginCaptureToGraph` (with edge data) → `hipStreamBeginCaptureToGraph`:
/// default edges only; the mode translated.
///
/// # Safety
/// CUDA's contract: `dependencies` and `data` (if not NULL) hold `n` entries.
unsafe fn begin_capture_to_graph<R: ApiResult, E: EdgeData>(
    b: &HipBackend,
    stream: CUstream,
    graph: CUgraph,
    dependencies: *const CUgraphNode,
    data: *const E,
    n: usize,
    mode: u32,
) -> R {
    // SAFETY: the caller's array of `n` edges, or NULL.
    if let Err(r) = unsafe { check_default_edges(data, n) } {
        return r.into();
    }
    let m = match enum_arg(b.conv().CUstreamCaptureMode, CUstreamCaptureMode(mode)) {
        Ok(m) => m as u32,
        Err(r) => return r.into(),
    };
    let f = hip_fn!(b, hipStreamBeginCaptureToGraph);
    let s = stream_to_hip(b.platform(), stream);
    // SAFETY: the caller's handles and array.
    R::from_hip(b.conv(), unsafe {
        f(
            s,
            graph.cast(),
            dependencies.cast(),
            core::ptr::null(),
            n,
            m,
        )
    })
}

/// `cuThreadExchangeStreamCaptureMode` (see `exchange_capture_mode`).
pub(crate) unsafe fn cuThreadExchangeStreamCaptureMode(
    b: &HipBackend,
    mode: *mut CUstreamCaptureMode,
) -> CUresult {
    // SAFETY: forwarded contract; a transparent `u32`.
    unsafe { exchange_capture_mode(b, mode.cast()) }
}

/// `cudaThreadExchangeStreamCaptureMode` (see `exchange_capture_mode`).
pub(crate) unsafe fn cudaThreadExchangeStreamCaptureMode(
    b: &HipBackend,
    mode: *mut cudaStreamCaptureMode,
) -> cudaError_t {
    // SAFETY: forwarded contract; a transparent `u32`.
    unsafe { exchange_capture_mode(b, mode.cast()) }
}

/// `cuStreamUpdateCaptureDependencies` (see `update_capture_dependencies`).
pub(crate) unsafe fn cuStreamUpdateCaptureDependencies(
    b: &HipBackend,
    hStream: CUstream,
    dependencies: *mut CUgraphNode,
    dependencyData: *const CUgraphEdgeData,
    numDependencies: usize,
    flags: c_uint,
) -> CUresult {
    let (deps, data, n) = (dependencies, dependencyData, numDependencies);
    // SAFETY: forwarded contract.
    unsafe { update_capture_dependencies(b, hStream, deps, data, n, flags) }
}

/// `cudaStreamUpdateCaptureDependencies` (see `update_capture_dependencies`).
pub(crate) unsafe fn cudaStreamUpdateCaptureDependencies(
    b: &HipBackend,
    stream: cudaStream_t,
    dependencies: *mut cudaGraphNode_t,
    dependencyData: *const cudaGraphEdgeData,
    numDependencies: usize,
    flags: c_uint,
) -> cudaError_t {
    let (deps, data, n) = (dependencies, dependencyData, numDependencies);
    // SAFETY: forwarded contract.
    unsafe { update_capture_dependencies(b, stream, deps, data, n, flags) }
}

/// `cuStreamBeginCaptureToGraph` (see `begin_capture_to_graph`).
pub(crate) unsafe fn cuStreamBeginCaptureToGraph(
    b: &HipBackend,
    hStream: CUstream,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    dependencyData: *const CUgraphEdgeData,
    numDependencies: usize,
    mode: CUstreamCaptureMode,
) -> CUresult {
    let (deps, data, n) = (dependencies, dependencyData, numDependencies);
    // SAFETY: forwarded contract.
    unsafe { begin_capture_to_graph(b, hStream, hGraph, deps, data, n, mode.0) }
}

/// `cudaStreamBeginCaptureToGraph` (see `begin_capture_to_graph`).
pub(crate) unsafe fn cudaStreamBeginCaptureToGraph(
    b: &HipBackend,
    stream: cudaStream_t,
    graph: cudaGraph_t,
    dependencies: *const cudaGraphNode_t,
    dependencyData: *const cudaGraphEdgeData,
    numDependencies: usize,
    mode: cudaStreamCaptureMode,
) -> cudaError_t {
    let (deps, data, n) = (dependencies, dependencyData, numDependencies);
    // SAFETY: forwarded contract.
    unsafe { begin_capture_to_graph(b, stream, graph, deps, data, n, mode.0) }
}

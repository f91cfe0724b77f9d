//! Streams: wait values, capture modes and info, host callbacks, a stream's context.

use super::support::{hip_fn, nvidia, tri, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED, SUCCESS};
use crate::conv::{check_default_edges, enum_to_cuda, enum_to_hip, stream_to_hip, ConvTables};
use crate::conv::{default_edges, ApiResult, EdgeData, EnumMap, Refusal};
use crate::hip_types::{hipCtx_t, hipError_t, hipGraphNode_t, hipGraph_t, hipStream_t};
use crate::HipBackend;
use anycuda_api::driver::{
    cuuint32_t, cuuint64_t, CUcontext, CUdeviceptr, CUgraph, CUgraphEdgeData, CUgraphNode,
    CUgreenCtx, CUresult, CUstream, CUstreamCallback, CUstreamCaptureMode, CUstreamCaptureStatus,
};
use anycuda_api::runtime::{
    cudaError_t, cudaGraphEdgeData, cudaGraphNode_t, cudaGraph_t, cudaLaunchAttributeID,
    cudaLaunchAttributeValue, cudaStreamCallback_t, cudaStreamCaptureMode, cudaStreamCaptureStatus,
    cudaStream_t,
};
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};

/// CUDA's wait-value operations (`CU_STREAM_WAIT_VALUE_GEQ/EQ/AND/NOR`, 0..=3) have the same
/// values as HIP's (`hipStreamWaitValueGte/Eq/And/Nor`); `CU_STREAM_WAIT_VALUE_FLUSH`
/// (1 << 30) has no HIP counterpart.
pub(crate) fn wait_flags_to_hip(flags: c_uint) -> Result<c_uint, CUresult> {
    const FLUSH: c_uint = 1 << 30;
    if flags & FLUSH != 0 {
        return Err(NOT_SUPPORTED);
    }
    if flags > 3 {
        return Err(INVALID_VALUE);
    }
    Ok(flags)
}

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
            addr as usize as *mut c_void,
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
            addr as usize as *mut c_void,
            value,
            fl,
            u64::MAX,
        )
    })
}

/// `cuThreadExchangeStreamCaptureMode`: the in-out mode translated to HIP and the previous
/// mode translated back.
pub(crate) unsafe fn cuThreadExchangeStreamCaptureMode(
    b: &HipBackend,
    mode: *mut CUstreamCaptureMode,
) -> CUresult {
    if mode.is_null() {
        return INVALID_VALUE;
    }
    let map = b.conv().CUstreamCaptureMode;
    // SAFETY: non-NULL in-out pointer.
    let mut m = tri!(enum_to_hip(map, unsafe { (*mode).0 }).ok_or(INVALID_VALUE));
    let f = hip_fn!(b, hipThreadExchangeStreamCaptureMode);
    // SAFETY: valid in-out pointer.
    let e = unsafe { f(&mut m) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL.
        unsafe { *mode = CUstreamCaptureMode(enum_to_cuda(map, m)) };
    }
    b.cu(e)
}

/// `cuStreamUpdateCaptureDependencies` (with edge data) → `hipStreamUpdateCaptureDependencies`:
/// default edges only (others not supported); the add/set flag translated.
pub(crate) unsafe fn cuStreamUpdateCaptureDependencies(
    b: &HipBackend,
    hStream: CUstream,
    dependencies: *mut CUgraphNode,
    dependencyData: *const CUgraphEdgeData,
    numDependencies: usize,
    flags: c_uint,
) -> CUresult {
    // SAFETY: caller's array.
    if let Err(e) = unsafe { check_default_edges(dependencyData, numDependencies) } {
        return e.into();
    }
    let fl = tri!(
        enum_to_hip(b.conv().CUstreamUpdateCaptureDependencies_flags, flags).ok_or(INVALID_VALUE)
    );
    let f = hip_fn!(b, hipStreamUpdateCaptureDependencies);
    // SAFETY: caller's array; HIP validates the stream.
    b.cu(unsafe {
        f(
            stream_to_hip(b.platform(), hStream),
            dependencies.cast(),
            numDependencies,
            fl,
        )
    })
}

/// `cuStreamBeginCaptureToGraph` → `hipStreamBeginCaptureToGraph`: default edges only (HIP's
/// edge-data struct has another layout; non-default edges are not supported), NULL edge data
/// passed; the capture mode translated.
pub(crate) unsafe fn cuStreamBeginCaptureToGraph(
    b: &HipBackend,
    hStream: CUstream,
    hGraph: CUgraph,
    dependencies: *const CUgraphNode,
    dependencyData: *const CUgraphEdgeData,
    numDependencies: usize,
    mode: CUstreamCaptureMode,
) -> CUresult {
    // SAFETY: caller's array.
    if let Err(e) = unsafe { check_default_edges(dependencyData, numDependencies) } {
        return e.into();
    }
    let m = tri!(enum_to_hip(b.conv().CUstreamCaptureMode, mode.0).ok_or(INVALID_VALUE));
    let f = hip_fn!(b, hipStreamBeginCaptureToGraph);
    // SAFETY: caller's handles and array.
    b.cu(unsafe {
        f(
            stream_to_hip(b.platform(), hStream),
            hGraph.cast(),
            dependencies.cast(),
            core::ptr::null(),
            numDependencies,
            m,
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

/// `cudaThreadExchangeStreamCaptureMode` → `hipThreadExchangeStreamCaptureMode`: the in-out
/// mode translated both ways (NULL or an unknown mode: `cudaErrorInvalidValue`).
pub(crate) unsafe fn cudaThreadExchangeStreamCaptureMode(
    b: &HipBackend,
    mode: *mut cudaStreamCaptureMode,
) -> cudaError_t {
    let f = hip_fn!(b, hipThreadExchangeStreamCaptureMode);
    if mode.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    // SAFETY: non-NULL in-out pointer from the caller.
    let Some(mut m) = mode_to_hip(b, unsafe { *mode }) else {
        return cudaError_t::cudaErrorInvalidValue;
    };
    // SAFETY: valid in-out pointer.
    let e = unsafe { f(&mut m) };
    if e == HIP_SUCCESS {
        let back = if nvidia(b) {
            m
        } else {
            enum_to_cuda(b.conv().cudaStreamCaptureMode, m)
        };
        // SAFETY: as above.
        unsafe { mode.write(cudaStreamCaptureMode(back)) };
    }
    b.rt(e)
}

/// `cudaStreamUpdateCaptureDependencies` (CUDA 13, with edge data) →
/// `hipStreamUpdateCaptureDependencies`: default (or absent) edge data only; the flags through
/// the table.
pub(crate) unsafe fn cudaStreamUpdateCaptureDependencies(
    b: &HipBackend,
    stream: cudaStream_t,
    dependencies: *mut cudaGraphNode_t,
    dependencyData: *const cudaGraphEdgeData,
    numDependencies: usize,
    flags: c_uint,
) -> cudaError_t {
    let f = hip_fn!(b, hipStreamUpdateCaptureDependencies);
    // SAFETY: CUDA's contract: `numDependencies` entries.
    if let Err(e) = unsafe { check_default_edges(dependencyData, numDependencies) } {
        return e.into();
    }
    let hflags = if nvidia(b) {
        Some(flags)
    } else {
        enum_to_hip(b.conv().cudaStreamUpdateCaptureDependenciesFlags, flags)
    };
    let Some(hflags) = hflags else {
        return cudaError_t::cudaErrorInvalidValue;
    };
    // SAFETY: forwarded contract.
    b.rt(unsafe {
        f(
            stream_to_hip(b.platform(), stream.cast()),
            dependencies.cast(),
            numDependencies,
            hflags,
        )
    })
}

/// `cudaStreamBeginCaptureToGraph` → `hipStreamBeginCaptureToGraph` (HIP 6.2+): HIP's edge
/// struct has another layout, so only default (or absent) edge data is accepted and passed as
/// NULL; the mode through the table.
pub(crate) unsafe fn cudaStreamBeginCaptureToGraph(
    b: &HipBackend,
    stream: cudaStream_t,
    graph: cudaGraph_t,
    dependencies: *const cudaGraphNode_t,
    dependencyData: *const cudaGraphEdgeData,
    numDependencies: usize,
    mode: cudaStreamCaptureMode,
) -> cudaError_t {
    let f = hip_fn!(b, hipStreamBeginCaptureToGraph);
    // SAFETY: CUDA's contract: `numDependencies` entries.
    if let Err(e) = unsafe { check_default_edges(dependencyData, numDependencies) } {
        return e.into();
    }
    let Some(m) = mode_to_hip(b, mode) else {
        return cudaError_t::cudaErrorInvalidValue;
    };
    // SAFETY: forwarded contract.
    b.rt(unsafe {
        f(
            stream_to_hip(b.platform(), stream.cast()),
            graph.cast(),
            dependencies.cast(),
            core::ptr::null(),
            numDependencies,
            m,
        )
    })
}

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

/// A capture mode in HIP's words (HIP's NVIDIA platform: CUDA's enum passes unchanged).
fn mode_to_hip(b: &HipBackend, m: cudaStreamCaptureMode) -> Option<u32> {
    if nvidia(b) {
        return Some(m.0);
    }
    anycuda_api::CudaEnum::name(m)?;
    enum_to_hip(b.conv().cudaStreamCaptureMode, m.0)
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

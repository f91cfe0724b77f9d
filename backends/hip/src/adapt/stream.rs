//! Streams: wait values, capture modes and info, host callbacks, a stream's context.

use super::support::{hip_fn, nvidia, tri, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED, SUCCESS};
use crate::conv::{check_default_edges, enum_to_cuda, enum_to_hip, stream_to_hip, ConvTables};
use crate::conv::{ApiResult, EdgeData};
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
use core::cell::RefCell;
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

thread_local! {
    /// Default edge data handed out by `cuStreamGetCaptureInfo` (valid until the next call on
    /// this thread, like CUDA's arrays); grows only when a capture has more dependencies.
    static EDGES: RefCell<Vec<CUgraphEdgeData>> = const { RefCell::new(Vec::new()) };
}

/// `cuStreamGetCaptureInfo` (CUDA 13, with edge data) → `hipStreamGetCaptureInfo_v2`: the
/// status translated; HIP's capture dependencies are all plain (default) edges, so the edge
/// data, when asked for, is that many default edges.
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
    if captureStatus_out.is_null() {
        return INVALID_VALUE;
    }
    if (!dependencies_out.is_null() || !edgeData_out.is_null()) && numDependencies_out.is_null() {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipStreamGetCaptureInfo_v2);
    let mut st = 0;
    let mut deps: *const hipGraphNode_t = core::ptr::null();
    let mut n = 0usize;
    // SAFETY: valid out-pointers; the optional ones are the caller's or NULL.
    let e = unsafe {
        f(
            stream_to_hip(b.platform(), hStream),
            &mut st,
            id_out.cast(),
            graph_out.cast::<hipGraph_t>(),
            &mut deps,
            &mut n,
        )
    };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    // SAFETY: non-NULL out-pointers checked above.
    unsafe {
        *captureStatus_out =
            CUstreamCaptureStatus(enum_to_cuda(b.conv().CUstreamCaptureStatus, st));
        if !dependencies_out.is_null() {
            *dependencies_out = deps.cast();
        }
        if !numDependencies_out.is_null() {
            *numDependencies_out = n;
        }
        if !edgeData_out.is_null() {
            *edgeData_out = if n == 0 {
                core::ptr::null()
            } else {
                EDGES.with(|v| {
                    let mut v = v.borrow_mut();
                    if v.len() < n {
                        v.resize(n, CUgraphEdgeData::DEFAULT);
                    }
                    v.as_ptr()
                })
            };
        }
    }
    SUCCESS
}

/// What a translated stream callback needs: the CUDA callback, its data, the caller's stream
/// handle (given back unchanged) and the tables for the status.
struct Callback {
    f: unsafe extern "C" fn(CUstream, CUresult, *mut c_void),
    data: *mut c_void,
    stream: CUstream,
    conv: &'static crate::ConvTables,
}

unsafe extern "C" fn callback_trampoline(_s: hipStream_t, status: hipError_t, data: *mut c_void) {
    // SAFETY: `data` is the Box leaked by cuStreamAddCallback; HIP calls this exactly once.
    let cb = unsafe { Box::from_raw(data.cast::<Callback>()) };
    let st = CUresult::from_hip(cb.conv, status);
    // SAFETY: the caller's callback with its own data.
    unsafe { (cb.f)(cb.stream, st, cb.data) };
}

/// `cuStreamAddCallback` → `hipStreamAddCallback` through a trampoline: the status given to
/// the callback is translated to a `CUresult` and the callback sees the caller's stream
/// handle. `flags` must be 0, as on CUDA.
pub(crate) unsafe fn cuStreamAddCallback(
    b: &HipBackend,
    hStream: CUstream,
    callback: CUstreamCallback,
    userData: *mut c_void,
    flags: c_uint,
) -> CUresult {
    let Some(cf) = callback else {
        return INVALID_VALUE;
    };
    if flags != 0 {
        return INVALID_VALUE;
    }
    let f = hip_fn!(b, hipStreamAddCallback);
    let cb = Box::into_raw(Box::new(Callback {
        f: cf,
        data: userData,
        stream: hStream,
        conv: b.conv(),
    }));
    // SAFETY: the trampoline owns `cb` once HIP accepts the callback.
    let e = unsafe {
        f(
            stream_to_hip(b.platform(), hStream),
            Some(callback_trampoline),
            cb.cast(),
            0,
        )
    };
    if e != HIP_SUCCESS {
        // SAFETY: HIP refused it, so the trampoline never runs: reclaim the box.
        drop(unsafe { Box::from_raw(cb) });
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

/// What the callback trampoline needs: the user's callback and data, the stream handle as the
/// user gave it, and how to read the status HIP passes.
struct CallbackCarrier {
    callback: unsafe extern "C" fn(cudaStream_t, cudaError_t, *mut c_void),
    user: *mut c_void,
    stream: cudaStream_t,
    conv: &'static ConvTables,
    /// HIP's NVIDIA platform hands the callback CUDA's own status (its `hipStreamAddCallback`
    /// casts the callback to `cudaStreamCallback_t`).
    cuda_status: bool,
}

/// A HIP callback status in CUDA's words.
pub(crate) fn callback_status(
    conv: &ConvTables,
    cuda_status: bool,
    status: hipError_t,
) -> cudaError_t {
    if cuda_status {
        cudaError_t(status as _)
    } else {
        cudaError_t::from_hip(conv, status)
    }
}

/// Called by HIP once per registered callback: takes the carrier back (freeing it), translates
/// the status and calls the user's callback with the user's stream handle.
unsafe extern "C" fn rt_callback_trampoline(
    _s: hipStream_t,
    status: hipError_t,
    data: *mut c_void,
) {
    if data.is_null() {
        return;
    }
    // SAFETY: `data` is the `Box<CallbackCarrier>` leaked by `cudaStreamAddCallback`; HIP
    // calls each callback exactly once, so it is reclaimed exactly once.
    let c = unsafe { Box::from_raw(data.cast::<CallbackCarrier>()) };
    let st = callback_status(c.conv, c.cuda_status, status);
    // SAFETY: the user's callback with the user's data (CUDA's contract).
    unsafe { (c.callback)(c.stream, st, c.user) };
}

/// `cudaStreamAddCallback` → `hipStreamAddCallback` through a trampoline that translates the
/// status HIP passes (a `hipError_t`) into CUDA's code and hands back the user's stream
/// handle. The carrier is one small heap box per call (the callback outlives this call, and
/// callbacks are not a hot path); the trampoline frees it, and a failed registration frees it
/// at once. `flags` must be 0 and the callback non-NULL (`cudaErrorInvalidValue`), as on CUDA.
pub(crate) unsafe fn cudaStreamAddCallback(
    b: &HipBackend,
    stream: cudaStream_t,
    callback: cudaStreamCallback_t,
    userData: *mut c_void,
    flags: c_uint,
) -> cudaError_t {
    let f = hip_fn!(b, hipStreamAddCallback);
    let Some(cb) = callback else {
        return cudaError_t::cudaErrorInvalidValue;
    };
    if flags != 0 {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let carrier = Box::into_raw(Box::new(CallbackCarrier {
        callback: cb,
        user: userData,
        stream,
        conv: b.conv(),
        cuda_status: nvidia(b),
    }));
    // SAFETY: the trampoline matches HIP's callback type; the carrier stays alive until the
    // trampoline takes it back.
    let e = unsafe {
        f(
            stream_to_hip(b.platform(), stream.cast()),
            Some(rt_callback_trampoline),
            carrier.cast(),
            0,
        )
    };
    if e != HIP_SUCCESS {
        // SAFETY: HIP did not register the callback, so the trampoline will never run.
        drop(unsafe { Box::from_raw(carrier) });
    }
    b.rt(e)
}

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

/// The most dependencies for which [`cudaStreamGetCaptureInfo`] can hand out default edge
/// data (a static array: no allocation, nothing to free).
pub(crate) const MAX_CAPTURE_EDGES: usize = 256;

static DEFAULT_EDGES: [cudaGraphEdgeData; MAX_CAPTURE_EDGES] =
    [cudaGraphEdgeData::DEFAULT; MAX_CAPTURE_EDGES];

/// `cudaStreamGetCaptureInfo` (CUDA 13, with edge data) → `hipStreamGetCaptureInfo_v2`: the
/// status translated; HIP capture dependencies are all default edges, so `edgeData_out` points
/// to a static array of default edges (more than [`MAX_CAPTURE_EDGES`] dependencies:
/// `cudaErrorNotSupported`). Edge data requires the dependency outputs, as on CUDA.
#[allow(clippy::too_many_arguments)]
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
    let f = hip_fn!(b, hipStreamGetCaptureInfo_v2);
    if captureStatus_out.is_null() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if !edgeData_out.is_null() && (dependencies_out.is_null() || numDependencies_out.is_null()) {
        return cudaError_t::cudaErrorInvalidValue;
    }
    let mut st = 0u32;
    // SAFETY: valid out-pointers (the caller's, or NULL where HIP allows it).
    let e = unsafe {
        f(
            stream_to_hip(b.platform(), stream.cast()),
            &mut st,
            id_out,
            graph_out.cast(),
            dependencies_out.cast(),
            numDependencies_out,
        )
    };
    if e != HIP_SUCCESS {
        return b.rt(e);
    }
    let status = if nvidia(b) {
        st
    } else {
        enum_to_cuda(b.conv().cudaStreamCaptureStatus, st)
    };
    // SAFETY: non-NULL out-pointer.
    unsafe { captureStatus_out.write(cudaStreamCaptureStatus(status)) };
    if !edgeData_out.is_null() {
        // SAFETY: checked non-NULL above; HIP wrote the count.
        let n = unsafe { *numDependencies_out };
        if n > MAX_CAPTURE_EDGES {
            return cudaError_t::cudaErrorNotSupported;
        }
        // SAFETY: valid out-pointer; the static array lives forever.
        unsafe { edgeData_out.write(DEFAULT_EDGES.as_ptr()) };
    }
    cudaError_t::cudaSuccess
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

//! Stream callbacks and stream capture (CUDA 13 signatures with edge data).

use super::{check_default_edges, enum_to_cuda, enum_to_hip, DEFAULT_EDGE};
use crate::adapt::launch::stream_to_hip;
use crate::adapt::{nvidia, rt, rt_fn, HIP_SUCCESS};
use crate::conv::ConvTables;
use crate::hip_types::{hipError_t, hipStream_t};
use crate::HipBackend;
use anycuda_api::runtime::{
    cudaError_t, cudaGraphEdgeData, cudaGraphNode_t, cudaGraph_t, cudaStreamCallback_t,
    cudaStreamCaptureMode, cudaStreamCaptureStatus, cudaStream_t,
};
use anycuda_api::runtime::{cudaLaunchAttributeID, cudaLaunchAttributeValue};
use core::ffi::{c_int, c_uint, c_ulonglong, c_void};

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
        crate::translate(
            conv.cudaError_t,
            status as i64,
            cudaError_t::cudaErrorUnknown,
        )
    }
}

/// Called by HIP once per registered callback: takes the carrier back (freeing it), translates
/// the status and calls the user's callback with the user's stream handle.
unsafe extern "C" fn callback_trampoline(_s: hipStream_t, status: hipError_t, data: *mut c_void) {
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
    let f = rt_fn!(b, hipStreamAddCallback);
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
            stream_to_hip(b, stream.cast()),
            Some(callback_trampoline),
            carrier.cast(),
            0,
        )
    };
    if e != HIP_SUCCESS {
        // SAFETY: HIP did not register the callback, so the trampoline will never run.
        drop(unsafe { Box::from_raw(carrier) });
    }
    rt(b, e)
}

/// A capture mode in HIP's words (HIP's NVIDIA platform: CUDA's enum passes unchanged).
fn mode_to_hip(b: &HipBackend, m: cudaStreamCaptureMode) -> Option<u32> {
    if nvidia(b) {
        return Some(m.0);
    }
    anycuda_api::CudaEnum::name(m)?;
    enum_to_hip(b.conv().cudaStreamCaptureMode, m.0)
}

/// `cudaThreadExchangeStreamCaptureMode` → `hipThreadExchangeStreamCaptureMode`: the in-out
/// mode translated both ways (NULL or an unknown mode: `cudaErrorInvalidValue`).
pub(crate) unsafe fn cudaThreadExchangeStreamCaptureMode(
    b: &HipBackend,
    mode: *mut cudaStreamCaptureMode,
) -> cudaError_t {
    let f = rt_fn!(b, hipThreadExchangeStreamCaptureMode);
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
            enum_to_cuda(b.conv().cudaStreamCaptureMode, m, m)
        };
        // SAFETY: as above.
        unsafe { mode.write(cudaStreamCaptureMode(back)) };
    }
    rt(b, e)
}

/// The most dependencies for which [`cudaStreamGetCaptureInfo`] can hand out default edge
/// data (a static array: no allocation, nothing to free).
pub(crate) const MAX_CAPTURE_EDGES: usize = 256;
static DEFAULT_EDGES: [cudaGraphEdgeData; MAX_CAPTURE_EDGES] = [DEFAULT_EDGE; MAX_CAPTURE_EDGES];

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
    let f = rt_fn!(b, hipStreamGetCaptureInfo_v2);
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
            stream_to_hip(b, stream.cast()),
            &mut st,
            id_out,
            graph_out.cast(),
            dependencies_out.cast(),
            numDependencies_out,
        )
    };
    if e != HIP_SUCCESS {
        return rt(b, e);
    }
    let status = if nvidia(b) {
        st
    } else {
        enum_to_cuda(b.conv().cudaStreamCaptureStatus, st, st)
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
    let f = rt_fn!(b, hipStreamUpdateCaptureDependencies);
    // SAFETY: CUDA's contract: `numDependencies` entries.
    if let Err(e) = unsafe { check_default_edges(dependencyData, numDependencies) } {
        return e;
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
    rt(b, unsafe {
        f(
            stream_to_hip(b, stream.cast()),
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
    let f = rt_fn!(b, hipStreamBeginCaptureToGraph);
    // SAFETY: CUDA's contract: `numDependencies` entries.
    if let Err(e) = unsafe { check_default_edges(dependencyData, numDependencies) } {
        return e;
    }
    let Some(m) = mode_to_hip(b, mode) else {
        return cudaError_t::cudaErrorInvalidValue;
    };
    // SAFETY: forwarded contract.
    rt(b, unsafe {
        f(
            stream_to_hip(b, stream.cast()),
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
    let f = rt_fn!(b, hipStreamGetPriority);
    if value_out.is_null() || anycuda_api::CudaEnum::name(attr).is_none() {
        return cudaError_t::cudaErrorInvalidValue;
    }
    if attr != cudaLaunchAttributeID::cudaLaunchAttributePriority {
        return cudaError_t::cudaErrorNotSupported;
    }
    let mut p: c_int = 0;
    // SAFETY: valid out-pointer; stream translated.
    let e = unsafe { f(stream_to_hip(b, hStream.cast()), &mut p) };
    if e == HIP_SUCCESS {
        // SAFETY: non-NULL out-pointer; the whole union is written (zeroed, then the member).
        unsafe {
            value_out.write(core::mem::zeroed());
            (*value_out).priority = p;
        }
    }
    rt(b, e)
}

//! Streams: wait values, capture modes and info, host callbacks, a stream's context.

use super::{enum_to_cuda, enum_to_hip, tri, INVALID_VALUE, NOT_SUPPORTED, SUCCESS};
use crate::adapt::launch::stream_to_hip;
use crate::adapt::{drv_fn, nvidia, HIP_SUCCESS};
use crate::hip_types::{hipCtx_t, hipError_t, hipGraphNode_t, hipGraph_t, hipStream_t};
use crate::HipBackend;
use anycuda_api::driver::{
    cuuint32_t, cuuint64_t, CUcontext, CUdeviceptr, CUgraph, CUgraphEdgeData, CUgraphNode,
    CUgreenCtx, CUresult, CUstream, CUstreamCallback, CUstreamCaptureMode, CUstreamCaptureStatus,
};
use core::cell::RefCell;
use core::ffi::{c_uint, c_void};

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
    let f = drv_fn!(b, hipStreamWaitValue32);
    // SAFETY: caller's stream and address; HIP validates them.
    b.cu(unsafe {
        f(
            stream_to_hip(b, stream),
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
    let f = drv_fn!(b, hipStreamWaitValue64);
    // SAFETY: caller's stream and address; HIP validates them.
    b.cu(unsafe {
        f(
            stream_to_hip(b, stream),
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
    let mut m = tri!(enum_to_hip(map, unsafe { (*mode).0 }, INVALID_VALUE));
    let f = drv_fn!(b, hipThreadExchangeStreamCaptureMode);
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

/// A zeroed (default) edge.
pub(crate) fn default_edge() -> CUgraphEdgeData {
    CUgraphEdgeData {
        from_port: 0,
        to_port: 0,
        type_: 0,
        reserved: [0; 5],
    }
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
    let f = drv_fn!(b, hipStreamGetCaptureInfo_v2);
    let mut st = 0;
    let mut deps: *const hipGraphNode_t = core::ptr::null();
    let mut n = 0usize;
    // SAFETY: valid out-pointers; the optional ones are the caller's or NULL.
    let e = unsafe {
        f(
            stream_to_hip(b, hStream),
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
                        v.resize(n, default_edge());
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
    let st = crate::translate(
        cb.conv.CUresult,
        status as i64,
        CUresult::CUDA_ERROR_UNKNOWN,
    );
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
    let f = drv_fn!(b, hipStreamAddCallback);
    let cb = Box::into_raw(Box::new(Callback {
        f: cf,
        data: userData,
        stream: hStream,
        conv: b.conv(),
    }));
    // SAFETY: the trampoline owns `cb` once HIP accepts the callback.
    let e = unsafe {
        f(
            stream_to_hip(b, hStream),
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

/// Whether CUDA edge data (`n` entries, or NULL) asks only for default edges, which is all HIP
/// graphs have.
///
/// # Safety
/// `edges` is NULL or points to `n` entries.
pub(crate) unsafe fn edges_default(edges: *const CUgraphEdgeData, n: usize) -> bool {
    if edges.is_null() || n == 0 {
        return true;
    }
    // SAFETY: caller's array of `n` entries.
    let s = unsafe { core::slice::from_raw_parts(edges, n) };
    s.iter()
        .all(|e| e.from_port == 0 && e.to_port == 0 && e.type_ == 0)
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
    if !unsafe { edges_default(dependencyData, numDependencies) } {
        return NOT_SUPPORTED;
    }
    let fl = tri!(enum_to_hip(
        b.conv().CUstreamUpdateCaptureDependencies_flags,
        flags,
        INVALID_VALUE
    ));
    let f = drv_fn!(b, hipStreamUpdateCaptureDependencies);
    // SAFETY: caller's array; HIP validates the stream.
    b.cu(unsafe {
        f(
            stream_to_hip(b, hStream),
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
    if !unsafe { edges_default(dependencyData, numDependencies) } {
        return NOT_SUPPORTED;
    }
    let m = tri!(enum_to_hip(
        b.conv().CUstreamCaptureMode,
        mode.0,
        INVALID_VALUE
    ));
    let f = drv_fn!(b, hipStreamBeginCaptureToGraph);
    // SAFETY: caller's handles and array.
    b.cu(unsafe {
        f(
            stream_to_hip(b, hStream),
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
    let get = drv_fn!(b, hipStreamGetDevice);
    let retain = drv_fn!(b, hipDevicePrimaryCtxRetain);
    let mut dev = 0;
    // SAFETY: valid out-pointer; HIP validates the stream.
    let e = unsafe { get(stream_to_hip(b, hStream), &mut dev) };
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

/// `cuCtxSetFlags` (AMD): the current context is its device there, so the flags are set as
/// `cuDevicePrimaryCtxSetFlags` on the current device (`hipSetDeviceFlags`). On HIP's NVIDIA
/// platform a non-primary context cannot be reached: not supported.
pub(crate) unsafe fn cuCtxSetFlags(b: &HipBackend, flags: c_uint) -> CUresult {
    if nvidia(b) {
        return NOT_SUPPORTED;
    }
    let mut dev = 0;
    // SAFETY: valid out-pointer.
    let e = unsafe { crate::adapt::cuCtxGetDevice(b, &mut dev) };
    if e != SUCCESS {
        return e;
    }
    // SAFETY: plain call.
    unsafe { crate::adapt::cuDevicePrimaryCtxSetFlags(b, dev, flags) }
}

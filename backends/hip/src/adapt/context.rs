//! Contexts: CUDA's per-thread context stack over HIP's (deprecated) context API.
//!
//! On AMD a HIP context *is* its device (`hipCtx_t` points at HIP's per-device object), so
//! every context of a device has the same handle, and HIP's context calls differ from CUDA's:
//! `hipCtxCreate` does not make the new context's device current, `hipCtxPopCurrent` and
//! `hipCtxSetCurrent(NULL)` leave the popped device current, `hipCtxGetCurrent` never reports
//! "no context", `hipCtxSynchronize`/`hipCtxGetFlags` are unimplemented, and
//! `hipDevicePrimaryCtxSetFlags` always fails. So on AMD anycuda keeps CUDA's stack itself (one
//! per thread) and keeps HIP's current device equal to the device of the top context
//! (`hipSetDevice`), which is what HIP's other calls use.
//!
//! On HIP's NVIDIA platform `hipCtx*` is `cuCtx*` with CUDA's flags: calls go through as they are.

use super::support::{
    code_of, hip_fn, nvidia, table, HIP_SUCCESS, INVALID_VALUE, NOT_SUPPORTED, SUCCESS,
};
use crate::conv::context::{ctx_flags_to_cuda, ctx_flags_to_hip};
use crate::hip_types::{hipCtx_t, hipError_t};
use crate::HipBackend;
use anycuda_api::driver::{CUcontext, CUctxCreateParams, CUdevice, CUexecAffinityType, CUresult};
use anycuda_api::runtime::cudaError_t;
use core::cell::RefCell;
use core::ffi::{c_int, c_uint};
use std::sync::Mutex;

thread_local! {
    /// This thread's CUDA context stack (AMD only): the last entry is the current context.
    static STACK: RefCell<Vec<CUcontext>> = const { RefCell::new(Vec::new()) };
}

/// Contexts made by `cuCtxCreate` and not yet destroyed: `(handle, count)`. HIP hands out one
/// handle per device, and `hipCtxDestroy` releases a reference on HIP's device object, so a
/// destroy without a matching create would free it under HIP's feet: such a call is refused.
static CREATED: Mutex<Vec<(usize, u32)>> = Mutex::new(Vec::new());

const INVALID_CONTEXT: CUresult = CUresult::CUDA_ERROR_INVALID_CONTEXT;

fn top() -> Option<CUcontext> {
    STACK.with(|s| s.borrow().last().copied())
}

/// Makes `ctx` this thread's current context: replaces the top of the stack (pushes on an
/// empty one), as `cuCtxSetCurrent` and the runtime's device choice do.
fn replace_top(ctx: CUcontext) {
    STACK.with(|s| {
        let mut s = s.borrow_mut();
        match s.last_mut() {
            Some(t) => *t = ctx,
            None => s.push(ctx),
        }
    });
}

/// The device of a context (AMD: the ordinal whose primary context has this handle).
///
/// `hipDevicePrimaryCtxRetain` on AMD only reads HIP's device table, so scanning it is cheap and
/// has no side effect.
unsafe fn device_of(b: &HipBackend, ctx: CUcontext) -> Result<CUdevice, CUresult> {
    let t = table::<CUresult>(b)?;
    let (Some(count_fn), Some(retain)) = (t.hipGetDeviceCount, t.hipDevicePrimaryCtxRetain) else {
        return Err(NOT_SUPPORTED);
    };
    let mut n: c_int = 0;
    // SAFETY: valid out-pointer.
    let e = unsafe { count_fn(&mut n) };
    if e != HIP_SUCCESS {
        return Err(b.cu(e));
    }
    for dev in 0..n {
        let mut c: hipCtx_t = core::ptr::null_mut();
        // SAFETY: valid out-pointer, device in range.
        if unsafe { retain(&mut c, dev) } == HIP_SUCCESS && c.cast() == ctx {
            return Ok(dev);
        }
    }
    Err(INVALID_CONTEXT)
}

/// The primary context handle of a device (AMD).
unsafe fn primary_of(b: &HipBackend, dev: CUdevice) -> Result<CUcontext, CUresult> {
    let t = table::<CUresult>(b)?;
    let retain = t.hipDevicePrimaryCtxRetain.ok_or(NOT_SUPPORTED)?;
    let mut c: hipCtx_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; HIP validates the ordinal.
    let e = unsafe { retain(&mut c, dev) };
    if e != HIP_SUCCESS {
        return Err(b.cu(e));
    }
    Ok(c.cast())
}

/// The primary context handle of `dev` on either platform, without keeping a reference: what
/// NVIDIA's runtime asks its private runtime-interface table for while it enumerates devices
/// (`adapt/export_tables.rs`). AMD: HIP's device object, read without side effect. HIP's
/// NVIDIA platform: retained and released at once (NVIDIA's handle is the device's for the
/// process, active or not).
pub(crate) unsafe fn primary_handle(b: &HipBackend, dev: CUdevice) -> Result<CUcontext, CUresult> {
    if !nvidia(b) {
        // SAFETY: forwarded contract.
        return unsafe { primary_of(b, dev) };
    }
    let t = table::<CUresult>(b)?;
    let (Some(retain), Some(release)) = (t.hipDevicePrimaryCtxRetain, t.hipDevicePrimaryCtxRelease)
    else {
        return Err(NOT_SUPPORTED);
    };
    let mut c: hipCtx_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; HIP validates the ordinal.
    let e = unsafe { retain(&mut c, dev) };
    if e != HIP_SUCCESS {
        return Err(b.cu(e));
    }
    // SAFETY: the reference just taken.
    let e = unsafe { release(dev) };
    if e != HIP_SUCCESS {
        return Err(b.cu(e));
    }
    Ok(c.cast())
}

/// Makes HIP's current device the device of `ctx` (AMD); returns that device.
unsafe fn activate(b: &HipBackend, ctx: CUcontext) -> Result<CUdevice, CUresult> {
    // SAFETY: forwarded contract.
    let dev = unsafe { device_of(b, ctx) }?;
    let set = table::<CUresult>(b)?.hipSetDevice.ok_or(NOT_SUPPORTED)?;
    // SAFETY: plain call with a valid ordinal.
    let e = unsafe { set(dev) };
    if e != HIP_SUCCESS {
        return Err(b.cu(e));
    }
    Ok(dev)
}

/// `cuInit`: `hipInit`, except that ROCm reports a machine without a GPU as
/// `hipErrorInvalidDevice`, where CUDA's answer is `CUDA_ERROR_NO_DEVICE`; and `Flags` must be 0
/// as on CUDA.
pub(crate) unsafe fn cuInit(b: &HipBackend, Flags: c_uint) -> CUresult {
    let init = hip_fn!(b, hipInit);
    if Flags != 0 {
        return CUresult::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: hipInit takes its flags by value.
    let r = b.cu(unsafe { init(Flags) });
    if r != CUresult::CUDA_ERROR_INVALID_DEVICE {
        return r;
    }
    let count = hip_fn!(b, hipGetDeviceCount);
    let mut n: c_int = 0;
    // SAFETY: valid out-pointer.
    let counted = unsafe { count(&mut n) };
    if counted != HIP_SUCCESS || n == 0 {
        CUresult::CUDA_ERROR_NO_DEVICE
    } else {
        r
    }
}

/// What CUDA 13's `CUctxCreateParams` asks, checked as NVIDIA's driver checks it: `Ok` for a
/// plain context (NULL parameters, or neither execution affinity nor CIG asked for), else
/// CUDA's code.
///
/// - Both `execAffinityParams` and `cigParams` set (cuda.h: mutually exclusive, undefined on
///   NVIDIA), a negative count, or a count without an array: `CUDA_ERROR_INVALID_VALUE`
///   ("invalid parameter"; cuda.h: the count "must be 0 if execAffinityParams is NULL").
/// - CIG parameters: `CUDA_ERROR_NOT_SUPPORTED`, cuda.h's code for "CIG is not supported by
///   the device or the driver": HIP has no CUDA-in-Graphics contexts.
/// - Execution affinity (an array with a positive count): an entry whose type is not a
///   `CUexecAffinityType` is `CUDA_ERROR_INVALID_VALUE`; otherwise
///   `CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY`, CUDA's code for an affinity type the device does
///   not support (`cuCtxCreate_v3`'s documented answer): HIP cannot limit a context's SMs.
///   An array with a count of 0 asks for nothing and is accepted.
///
/// # Safety
/// `params` is NULL or points to a `CUctxCreateParams` whose `execAffinityParams`, when
/// non-NULL, holds `numExecAffinityParams` entries (CUDA's contract).
pub(crate) unsafe fn check_ctx_create_params(
    params: *const CUctxCreateParams,
) -> Result<(), CUresult> {
    if params.is_null() {
        return Ok(());
    }
    // SAFETY: non-NULL, the caller's contract.
    let p = unsafe { &*params };
    let affinity = !p.execAffinityParams.is_null();
    let cig = !p.cigParams.is_null();
    if (affinity && cig)
        || p.numExecAffinityParams < 0
        || (!affinity && p.numExecAffinityParams != 0)
    {
        return Err(INVALID_VALUE);
    }
    if cig {
        return Err(NOT_SUPPORTED);
    }
    if affinity && p.numExecAffinityParams > 0 {
        // SAFETY: the caller's array of `numExecAffinityParams` entries.
        let entries = unsafe {
            core::slice::from_raw_parts(p.execAffinityParams, p.numExecAffinityParams as usize)
        };
        if entries
            .iter()
            .any(|e| e.type_.0 >= CUexecAffinityType::CU_EXEC_AFFINITY_TYPE_MAX.0)
        {
            return Err(INVALID_VALUE);
        }
        return Err(CUresult::CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY);
    }
    Ok(())
}

/// `cuCtxCreate` (CUDA 13, `cuCtxCreate_v4`). `ctxCreateParams` may be NULL or ask for a plain
/// context; what HIP cannot honour (CIG, execution affinity) is refused with CUDA's code for it
/// ([`check_ctx_create_params`]). Flags go through the `cu_ctx_flags` table. On AMD the new
/// context is pushed on anycuda's per-thread stack and its device made current (HIP's
/// `hipCtxCreate` does not switch the device); contexts of one device share one handle there.
pub(crate) unsafe fn cuCtxCreate(
    b: &HipBackend,
    pctx: *mut CUcontext,
    ctxCreateParams: *mut CUctxCreateParams,
    flags: c_uint,
    dev: CUdevice,
) -> CUresult {
    if pctx.is_null() {
        return INVALID_VALUE;
    }
    // SAFETY: the caller's parameters (CUDA's contract).
    if let Err(e) = unsafe { check_ctx_create_params(ctxCreateParams) } {
        return e;
    }
    let hip_flags = match ctx_flags_to_hip(b, flags) {
        Ok(f) => f,
        Err(e) => return e,
    };
    let create = hip_fn!(b, hipCtxCreate);
    let mut ctx: hipCtx_t = core::ptr::null_mut();
    // SAFETY: valid out-pointer; HIP validates the device.
    let e = unsafe { create(&mut ctx, hip_flags, dev) };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    let ctx: CUcontext = ctx.cast();
    if !nvidia(b) {
        {
            let mut created = CREATED.lock().unwrap_or_else(|e| e.into_inner());
            match created.iter_mut().find(|(c, _)| *c == ctx as usize) {
                Some((_, n)) => *n += 1,
                None => created.push((ctx as usize, 1)),
            }
        }
        STACK.with(|s| s.borrow_mut().push(ctx));
        let set = hip_fn!(b, hipSetDevice);
        // SAFETY: plain call; HIP just accepted this ordinal.
        let e = unsafe { set(dev) };
        if e != HIP_SUCCESS {
            return b.cu(e);
        }
    }
    // SAFETY: checked non-NULL.
    unsafe { *pctx = ctx };
    CUresult::CUDA_SUCCESS
}

/// `cuCtxDestroy`. On AMD only a context made by `cuCtxCreate` (and not yet destroyed) is
/// accepted (`CUDA_ERROR_INVALID_CONTEXT` otherwise: HIP would release its device object); if it
/// is current to this thread it is popped, as CUDA does.
pub(crate) unsafe fn cuCtxDestroy(b: &HipBackend, ctx: CUcontext) -> CUresult {
    if ctx.is_null() {
        return INVALID_VALUE;
    }
    let destroy = hip_fn!(b, hipCtxDestroy);
    if nvidia(b) {
        // SAFETY: CUDA context handle, CUDA semantics underneath.
        return b.cu(unsafe { destroy(ctx.cast()) });
    }
    {
        let mut created = CREATED.lock().unwrap_or_else(|e| e.into_inner());
        let Some(i) = created.iter().position(|(c, _)| *c == ctx as usize) else {
            return INVALID_CONTEXT;
        };
        created[i].1 -= 1;
        if created[i].1 == 0 {
            created.swap_remove(i);
        }
    }
    // SAFETY: a handle HIP gave out in cuCtxCreate, with a reference still held.
    let e = unsafe { destroy(ctx.cast()) };
    let was_top = STACK.with(|s| {
        let mut s = s.borrow_mut();
        if s.last() == Some(&ctx) {
            s.pop();
            true
        } else {
            false
        }
    });
    if was_top {
        if let Some(next) = top() {
            // SAFETY: a context this thread made current before.
            if let Err(r) = unsafe { activate(b, next) } {
                return r;
            }
        }
    }
    b.cu(e)
}

/// `cuCtxGetCurrent`: NULL when no context is current to this thread, as on CUDA (HIP itself
/// always reports its current device).
#[inline]
pub(crate) unsafe fn cuCtxGetCurrent(b: &HipBackend, pctx: *mut CUcontext) -> CUresult {
    if pctx.is_null() {
        return INVALID_VALUE;
    }
    if nvidia(b) {
        let get = hip_fn!(b, hipCtxGetCurrent);
        // SAFETY: valid out-pointer (CUcontext and hipCtx_t are both pointers).
        return b.cu(unsafe { get(pctx.cast()) });
    }
    if table::<CUresult>(b).is_err() {
        return CUresult::CUDA_ERROR_NOT_INITIALIZED;
    }
    // SAFETY: checked non-NULL.
    unsafe { *pctx = top().unwrap_or(core::ptr::null_mut()) };
    CUresult::CUDA_SUCCESS
}

/// `cuCtxSetCurrent`: replaces the top of this thread's stack (NULL pops it), making the
/// context's device HIP's current device.
pub(crate) unsafe fn cuCtxSetCurrent(b: &HipBackend, ctx: CUcontext) -> CUresult {
    if nvidia(b) {
        let set = hip_fn!(b, hipCtxSetCurrent);
        // SAFETY: CUDA handle passed through.
        return b.cu(unsafe { set(ctx.cast()) });
    }
    if table::<CUresult>(b).is_err() {
        return CUresult::CUDA_ERROR_NOT_INITIALIZED;
    }
    if ctx.is_null() {
        STACK.with(|s| s.borrow_mut().pop());
        return match top() {
            // SAFETY: a context this thread made current before.
            Some(next) => code_of(unsafe { activate(b, next) }.map(drop)),
            None => CUresult::CUDA_SUCCESS,
        };
    }
    // SAFETY: device_of only compares the handle.
    if let Err(e) = unsafe { activate(b, ctx) } {
        return e;
    }
    replace_top(ctx);
    CUresult::CUDA_SUCCESS
}

/// `cuCtxPushCurrent`: pushes on this thread's stack and makes the context's device current.
pub(crate) unsafe fn cuCtxPushCurrent(b: &HipBackend, ctx: CUcontext) -> CUresult {
    if ctx.is_null() {
        return INVALID_VALUE;
    }
    if nvidia(b) {
        let push = hip_fn!(b, hipCtxPushCurrent);
        // SAFETY: CUDA handle passed through.
        return b.cu(unsafe { push(ctx.cast()) });
    }
    // SAFETY: device_of only compares the handle.
    if let Err(e) = unsafe { activate(b, ctx) } {
        return e;
    }
    STACK.with(|s| s.borrow_mut().push(ctx));
    CUresult::CUDA_SUCCESS
}

/// `cuCtxPopCurrent`: pops this thread's stack (`CUDA_ERROR_INVALID_CONTEXT` when empty) and
/// makes the device of the new top current again (HIP leaves the popped one current).
pub(crate) unsafe fn cuCtxPopCurrent(b: &HipBackend, pctx: *mut CUcontext) -> CUresult {
    if nvidia(b) {
        let pop = hip_fn!(b, hipCtxPopCurrent);
        // SAFETY: out-pointer may be NULL, as CUDA allows.
        return b.cu(unsafe { pop(pctx.cast()) });
    }
    if table::<CUresult>(b).is_err() {
        return CUresult::CUDA_ERROR_NOT_INITIALIZED;
    }
    let Some(old) = STACK.with(|s| s.borrow_mut().pop()) else {
        return INVALID_CONTEXT;
    };
    if !pctx.is_null() {
        // SAFETY: non-NULL out-pointer from the caller.
        unsafe { *pctx = old };
    }
    match top() {
        // SAFETY: a context this thread made current before.
        Some(next) => code_of(unsafe { activate(b, next) }.map(drop)),
        None => CUresult::CUDA_SUCCESS,
    }
}

/// `cuCtxGetDevice`: the device of this thread's current context (`CUDA_ERROR_INVALID_CONTEXT`
/// when there is none, as on CUDA).
#[inline]
pub(crate) unsafe fn cuCtxGetDevice(b: &HipBackend, device: *mut CUdevice) -> CUresult {
    if device.is_null() {
        return INVALID_VALUE;
    }
    if nvidia(b) {
        let get = hip_fn!(b, hipCtxGetDevice);
        // SAFETY: valid out-pointer.
        return b.cu(unsafe { get(device) });
    }
    if table::<CUresult>(b).is_err() {
        return CUresult::CUDA_ERROR_NOT_INITIALIZED;
    }
    let Some(ctx) = top() else {
        return INVALID_CONTEXT;
    };
    // SAFETY: compares handles only.
    match unsafe { device_of(b, ctx) } {
        Ok(d) => {
            // SAFETY: checked non-NULL.
            unsafe { *device = d };
            CUresult::CUDA_SUCCESS
        }
        Err(e) => e,
    }
}

/// `cuCtxSynchronize`: `hipDeviceSynchronize` on the current context's device (AMD's
/// `hipCtxSynchronize` is unimplemented); `CUDA_ERROR_INVALID_CONTEXT` without a current context.
pub(crate) unsafe fn cuCtxSynchronize(b: &HipBackend) -> CUresult {
    if nvidia(b) {
        let sync = hip_fn!(b, hipCtxSynchronize);
        // SAFETY: no arguments.
        return b.cu(unsafe { sync() });
    }
    let sync = hip_fn!(b, hipDeviceSynchronize);
    if top().is_none() {
        return INVALID_CONTEXT;
    }
    // SAFETY: no arguments; HIP's current device is the top context's.
    b.cu(unsafe { sync() })
}

/// `cuCtxGetDevice_v2` (CUDA 13): the device of `ctx`, or of the current context when `ctx` is
/// NULL. HIP has no such call: on AMD the device is the one whose context handle this is; on
/// HIP's NVIDIA platform the context is pushed, queried and popped.
pub(crate) unsafe fn cuCtxGetDevice_v2(
    b: &HipBackend,
    device: *mut CUdevice,
    ctx: CUcontext,
) -> CUresult {
    if ctx.is_null() {
        // SAFETY: forwarded contract.
        return unsafe { cuCtxGetDevice(b, device) };
    }
    if device.is_null() {
        return INVALID_VALUE;
    }
    if nvidia(b) {
        // SAFETY: CUDA handles; push/pop restore the caller's stack.
        return unsafe { with_pushed(b, ctx, |b| cuCtxGetDevice(b, device)) };
    }
    // SAFETY: compares handles only.
    match unsafe { device_of(b, ctx) } {
        Ok(d) => {
            // SAFETY: checked non-NULL.
            unsafe { *device = d };
            CUresult::CUDA_SUCCESS
        }
        Err(e) => e,
    }
}

/// `cuCtxSynchronize_v2` (CUDA 13): waits for `ctx` (NULL: the current context), by making it
/// current for the call (AMD: synchronising its device) and restoring the caller's stack.
pub(crate) unsafe fn cuCtxSynchronize_v2(b: &HipBackend, ctx: CUcontext) -> CUresult {
    if ctx.is_null() {
        // SAFETY: no pointers.
        return unsafe { cuCtxSynchronize(b) };
    }
    // SAFETY: the handle is the caller's; push/pop restore the stack.
    unsafe { with_pushed(b, ctx, |b| cuCtxSynchronize(b)) }
}

/// Runs `f` with `ctx` pushed on this thread's stack, popping it afterwards.
unsafe fn with_pushed(
    b: &HipBackend,
    ctx: CUcontext,
    f: impl FnOnce(&HipBackend) -> CUresult,
) -> CUresult {
    // SAFETY: forwarded contract.
    let r = unsafe { cuCtxPushCurrent(b, ctx) };
    if r != CUresult::CUDA_SUCCESS {
        return r;
    }
    let out = f(b);
    // SAFETY: pops what was pushed above (NULL out-pointer allowed).
    let r = unsafe { cuCtxPopCurrent(b, core::ptr::null_mut()) };
    if out != CUresult::CUDA_SUCCESS {
        return out;
    }
    r
}

/// `cuCtxGetFlags`: the current device's flags (`hipGetDeviceFlags`, AMD's `hipCtxGetFlags` is
/// unimplemented) translated back to CUDA's bits.
pub(crate) unsafe fn cuCtxGetFlags(b: &HipBackend, flags: *mut c_uint) -> CUresult {
    if flags.is_null() {
        return INVALID_VALUE;
    }
    if nvidia(b) {
        let get = hip_fn!(b, hipCtxGetFlags);
        // SAFETY: valid out-pointer.
        return b.cu(unsafe { get(flags) });
    }
    let get = hip_fn!(b, hipGetDeviceFlags);
    if top().is_none() {
        return INVALID_CONTEXT;
    }
    let mut h: c_uint = 0;
    // SAFETY: valid out-pointer.
    let e = unsafe { get(&mut h) };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    // SAFETY: checked non-NULL.
    unsafe { *flags = ctx_flags_to_cuda(b, h) };
    CUresult::CUDA_SUCCESS
}

/// `cuDevicePrimaryCtxSetFlags` (`_v2`): CUDA accepts new flags for an active primary context;
/// AMD's `hipDevicePrimaryCtxSetFlags` always fails, so the flags are applied with
/// `hipSetDeviceFlags` on that device (the current device is restored afterwards).
pub(crate) unsafe fn cuDevicePrimaryCtxSetFlags(
    b: &HipBackend,
    dev: CUdevice,
    flags: c_uint,
) -> CUresult {
    let hip_flags = match ctx_flags_to_hip(b, flags) {
        Ok(f) => f,
        Err(e) => return e,
    };
    if nvidia(b) {
        let setf = hip_fn!(b, hipDevicePrimaryCtxSetFlags);
        // SAFETY: plain values.
        return b.cu(unsafe { setf(dev, hip_flags) });
    }
    let setf = hip_fn!(b, hipSetDeviceFlags);
    // SAFETY: plain value.
    on_device(b, dev, || unsafe { setf(hip_flags) })
}

/// `cuDevicePrimaryCtxGetState`: flags translated back to CUDA's bits (both out-pointers are
/// required, as on CUDA).
pub(crate) unsafe fn cuDevicePrimaryCtxGetState(
    b: &HipBackend,
    dev: CUdevice,
    flags: *mut c_uint,
    active: *mut c_int,
) -> CUresult {
    if flags.is_null() || active.is_null() {
        return INVALID_VALUE;
    }
    let get = hip_fn!(b, hipDevicePrimaryCtxGetState);
    let mut h: c_uint = 0;
    // SAFETY: valid out-pointers.
    let e = unsafe { get(dev, &mut h, active) };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    let f = if nvidia(b) {
        h
    } else {
        ctx_flags_to_cuda(b, h)
    };
    // SAFETY: checked non-NULL.
    unsafe { *flags = f };
    CUresult::CUDA_SUCCESS
}

/// `cuDevicePrimaryCtxReset` (`_v2`): CUDA destroys the primary context's resources; AMD's
/// `hipDevicePrimaryCtxReset` does nothing, so `hipDeviceReset` runs on that device (the
/// current device is restored afterwards).
pub(crate) unsafe fn cuDevicePrimaryCtxReset(b: &HipBackend, dev: CUdevice) -> CUresult {
    // The context's local storage goes with it: its owners' destructors run first, as NVIDIA's
    // driver runs them (how a statically linked runtime's `cudaDeviceReset` drops its state).
    if super::export_tables::holds_values() {
        // SAFETY: plain device ordinal.
        if let Ok(ctx) = unsafe { primary_handle(b, dev) } {
            super::export_tables::context_reset(ctx);
        }
    }
    if nvidia(b) {
        let reset = hip_fn!(b, hipDevicePrimaryCtxReset);
        // SAFETY: plain value.
        return b.cu(unsafe { reset(dev) });
    }
    let reset = hip_fn!(b, hipDeviceReset);
    // SAFETY: no arguments.
    on_device(b, dev, || unsafe { reset() })
}

/// Runs `op` (a HIP call acting on the current device) with `dev` current, then makes the
/// caller's device current again (AMD: per-device state HIP's primary-context calls ignore).
/// The first failure wins: selecting `dev`, then `op`, then restoring.
fn on_device(b: &HipBackend, dev: CUdevice, op: impl FnOnce() -> hipError_t) -> CUresult {
    let get = hip_fn!(b, hipGetDevice);
    let set = hip_fn!(b, hipSetDevice);
    let mut saved: c_int = 0;
    // SAFETY: valid out-pointer.
    let e = unsafe { get(&mut saved) };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    // SAFETY: HIP validates the ordinal.
    let e = unsafe { set(dev) };
    if e != HIP_SUCCESS {
        return b.cu(e);
    }
    let r = op();
    // SAFETY: restoring the ordinal HIP reported.
    let e = unsafe { set(saved) };
    if r != HIP_SUCCESS {
        return b.cu(r);
    }
    b.cu(e)
}

/// `cudaSetDevice`: besides `hipSetDevice`, makes the device's primary context the current
/// context of this thread (replacing the top of the stack), as the CUDA runtime does, so a later
/// `cuCtxGetCurrent` sees it.
pub(crate) unsafe fn cudaSetDevice(b: &HipBackend, device: c_int) -> cudaError_t {
    let set = hip_fn!(b, hipSetDevice);
    // SAFETY: HIP validates the ordinal.
    let e = unsafe { set(device) };
    if e != HIP_SUCCESS || nvidia(b) {
        return b.rt(e);
    }
    // SAFETY: valid ordinal (HIP just accepted it).
    match unsafe { primary_of(b, device) } {
        Ok(ctx) => {
            replace_top(ctx);
            cudaError_t::cudaSuccess
        }
        Err(_) => cudaError_t::cudaSuccess,
    }
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
    let e = unsafe { cuCtxGetDevice(b, &mut dev) };
    if e != SUCCESS {
        return e;
    }
    // SAFETY: plain call.
    unsafe { cuDevicePrimaryCtxSetFlags(b, dev, flags) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use anycuda_api::driver::{
        CUcigDataType, CUctxCigParam, CUexecAffinityParam, CUexecAffinityParam_st__bindgen_ty_1,
        CUexecAffinitySmCount,
    };
    use core::ptr::{null, null_mut};

    fn params(
        affinity: *mut CUexecAffinityParam,
        n: c_int,
        cig: *mut CUctxCigParam,
    ) -> CUctxCreateParams {
        CUctxCreateParams {
            execAffinityParams: affinity,
            numExecAffinityParams: n,
            cigParams: cig,
        }
    }

    fn sm_count(type_: u32) -> CUexecAffinityParam {
        CUexecAffinityParam {
            type_: CUexecAffinityType(type_),
            param: CUexecAffinityParam_st__bindgen_ty_1 {
                smCount: CUexecAffinitySmCount { val: 4 },
            },
        }
    }

    fn check(p: &CUctxCreateParams) -> Result<(), CUresult> {
        // SAFETY: a live struct whose array, if any, has the count it says.
        unsafe { check_ctx_create_params(p) }
    }

    #[test]
    fn plain_contexts_are_accepted() {
        // SAFETY: NULL parameters.
        assert_eq!(unsafe { check_ctx_create_params(null()) }, Ok(()));
        assert_eq!(check(&params(null_mut(), 0, null_mut())), Ok(()));
        // An array with a count of 0 asks for nothing.
        let mut a = [sm_count(0)];
        assert_eq!(check(&params(a.as_mut_ptr(), 0, null_mut())), Ok(()));
    }

    #[test]
    fn what_hip_cannot_honour_gets_cudas_code() {
        let mut cig = CUctxCigParam {
            sharedDataType: CUcigDataType(1),
            sharedData: null_mut(),
        };
        assert_eq!(
            check(&params(null_mut(), 0, &mut cig)),
            Err(CUresult::CUDA_ERROR_NOT_SUPPORTED)
        );
        let mut a = [sm_count(0), sm_count(0)];
        assert_eq!(
            check(&params(a.as_mut_ptr(), 2, null_mut())),
            Err(CUresult::CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY)
        );
    }

    #[test]
    fn malformed_parameters_are_invalid_values() {
        let mut cig = CUctxCigParam {
            sharedDataType: CUcigDataType(1),
            sharedData: null_mut(),
        };
        let mut a = [sm_count(0)];
        for p in [
            params(a.as_mut_ptr(), 1, &mut cig),
            params(null_mut(), 1, null_mut()),
            params(a.as_mut_ptr(), -1, null_mut()),
        ] {
            assert_eq!(check(&p), Err(INVALID_VALUE));
        }
        let mut bad = [sm_count(CUexecAffinityType::CU_EXEC_AFFINITY_TYPE_MAX.0)];
        assert_eq!(
            check(&params(bad.as_mut_ptr(), 1, null_mut())),
            Err(INVALID_VALUE)
        );
    }
}

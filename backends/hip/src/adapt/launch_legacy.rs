//! CUDA's deprecated execution-control API (`cuFuncSetBlockShape`, `cuFuncSetSharedSize`,
//! `cuParamSet*`, `cuLaunch*`): HIP has none of it, but it is a thin layer over what HIP has.
//! The per-function launch state CUDA keeps (block shape, dynamic shared size, argument buffer
//! of at most 4 KiB) is kept here for the function handles HIP handed out, and a launch is a
//! `cuLaunchKernel` with that buffer as CUDA's `extra` argument (translated to HIP's markers
//! there).

use super::launch::cuLaunchKernel;
use super::support::{INVALID_VALUE, SUCCESS};
use crate::HipBackend;
use anycuda_api::driver::{
    CUfunction, CUmodule, CUresult, CUstream, CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT,
    CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT, CU_LAUNCH_PARAM_END_AS_INT,
};
use core::ffi::{c_int, c_uint, c_void};
use std::collections::HashMap;
use std::sync::Mutex;

/// CUDA's limit on the legacy argument buffer.
pub(crate) const PARAM_MAX: usize = 4096;

/// An argument buffer aligned for any kernel argument.
#[derive(Clone, Copy)]
#[repr(C, align(16))]
struct Params([u8; PARAM_MAX]);

/// One function's legacy launch state; the argument buffer exists once `cuParamSet*` wrote it.
#[derive(Default)]
struct State {
    /// The module the function came from (0: a library kernel's function).
    module: usize,
    block: [c_uint; 3],
    shared: c_uint,
    size: usize,
    params: Option<Box<Params>>,
}

/// Every function handle HIP handed out through anycuda (`cuModuleGetFunction`,
/// `cuKernelGetFunction`) with its legacy state. A handle not in here is no function, so the
/// legacy calls refuse it (HIP would dereference a bogus one if asked), and the state is bounded
/// by the functions of the loaded modules: `cuModuleUnload` drops its functions' entries.
static FUNCTIONS: Mutex<Option<HashMap<usize, State>>> = Mutex::new(None);

fn functions() -> std::sync::MutexGuard<'static, Option<HashMap<usize, State>>> {
    FUNCTIONS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Records a function handle HIP handed out for `module` (NULL for a library kernel's).
pub(crate) fn remember(f: CUfunction, module: CUmodule) {
    if f.is_null() {
        return;
    }
    functions()
        .get_or_insert_with(HashMap::new)
        .entry(f as usize)
        .or_insert_with(|| State {
            module: module as usize,
            ..State::default()
        });
}

/// Forgets the functions of an unloaded module (their handles are dead).
pub(crate) fn forget_module(module: CUmodule) {
    if let Some(m) = functions().as_mut() {
        m.retain(|_, s| s.module != module as usize);
    }
}

/// Runs `g` on a known function's state; NULL or unknown: `CUDA_ERROR_INVALID_HANDLE`.
fn with_state<R>(f: CUfunction, g: impl FnOnce(&mut State) -> R) -> Result<R, CUresult> {
    let mut v = functions();
    match v.as_mut().and_then(|m| m.get_mut(&(f as usize))) {
        Some(s) if !f.is_null() => Ok(g(s)),
        _ => Err(CUresult::CUDA_ERROR_INVALID_HANDLE),
    }
}

fn code(r: Result<CUresult, CUresult>) -> CUresult {
    r.unwrap_or_else(|e| e)
}

/// `cuFuncSetBlockShape`: recorded for the function's later `cuLaunch*` (no HIP counterpart).
/// Non-positive dimensions are invalid.
pub(crate) unsafe fn cuFuncSetBlockShape(
    _b: &HipBackend,
    hfunc: CUfunction,
    x: c_int,
    y: c_int,
    z: c_int,
) -> CUresult {
    if x <= 0 || y <= 0 || z <= 0 {
        return INVALID_VALUE;
    }
    code(with_state(hfunc, |s| {
        s.block = [x as c_uint, y as c_uint, z as c_uint];
        SUCCESS
    }))
}

/// `cuFuncSetSharedSize`: dynamic shared memory recorded for the function's `cuLaunch*`.
pub(crate) unsafe fn cuFuncSetSharedSize(
    _b: &HipBackend,
    hfunc: CUfunction,
    bytes: c_uint,
) -> CUresult {
    code(with_state(hfunc, |s| {
        s.shared = bytes;
        SUCCESS
    }))
}

/// `cuParamSetSize`: the argument buffer's size (at most 4096 bytes, as on CUDA).
pub(crate) unsafe fn cuParamSetSize(
    _b: &HipBackend,
    hfunc: CUfunction,
    numbytes: c_uint,
) -> CUresult {
    if numbytes as usize > PARAM_MAX {
        return INVALID_VALUE;
    }
    code(with_state(hfunc, |s| {
        s.size = numbytes as usize;
        SUCCESS
    }))
}

/// Copies `bytes` into the function's argument buffer at `offset` (within 4096 bytes).
fn set_bytes(hfunc: CUfunction, offset: c_int, bytes: &[u8]) -> CUresult {
    let Ok(off) = usize::try_from(offset) else {
        return INVALID_VALUE;
    };
    if off
        .checked_add(bytes.len())
        .is_none_or(|end| end > PARAM_MAX)
    {
        return INVALID_VALUE;
    }
    code(with_state(hfunc, |s| {
        let p = s
            .params
            .get_or_insert_with(|| Box::new(Params([0; PARAM_MAX])));
        p.0[off..off + bytes.len()].copy_from_slice(bytes);
        SUCCESS
    }))
}

/// `cuParamSeti`: a 32-bit integer stored in the function's argument buffer.
pub(crate) unsafe fn cuParamSeti(
    _b: &HipBackend,
    hfunc: CUfunction,
    offset: c_int,
    value: c_uint,
) -> CUresult {
    set_bytes(hfunc, offset, &value.to_ne_bytes())
}

/// `cuParamSetf`: a float stored in the function's argument buffer.
pub(crate) unsafe fn cuParamSetf(
    _b: &HipBackend,
    hfunc: CUfunction,
    offset: c_int,
    value: f32,
) -> CUresult {
    set_bytes(hfunc, offset, &value.to_ne_bytes())
}

/// `cuParamSetv`: `numbytes` bytes stored in the function's argument buffer.
pub(crate) unsafe fn cuParamSetv(
    _b: &HipBackend,
    hfunc: CUfunction,
    offset: c_int,
    ptr: *mut c_void,
    numbytes: c_uint,
) -> CUresult {
    if ptr.is_null() && numbytes > 0 {
        return INVALID_VALUE;
    }
    if numbytes == 0 {
        return set_bytes(hfunc, offset, &[]);
    }
    // SAFETY: caller's buffer of `numbytes` bytes.
    let bytes = unsafe { core::slice::from_raw_parts(ptr.cast::<u8>(), numbytes as usize) };
    set_bytes(hfunc, offset, bytes)
}

/// Launches with the function's legacy state: a stack copy of the argument buffer passed as
/// CUDA's `extra` to `cuLaunchKernel` (which translates the markers for HIP).
unsafe fn launch(b: &HipBackend, f: CUfunction, gx: c_int, gy: c_int, s: CUstream) -> CUresult {
    if gx <= 0 || gy <= 0 {
        return INVALID_VALUE;
    }
    let mut params = Params([0; PARAM_MAX]);
    let st = with_state(f, |s| {
        if let Some(p) = &s.params {
            params.0[..s.size].copy_from_slice(&p.0[..s.size]);
        }
        (s.block, s.shared, s.size)
    });
    let (block, shared, mut size) = match st {
        Ok(st) => st,
        Err(e) => return e,
    };
    if block.contains(&0) {
        // No block shape set: nothing CUDA could launch.
        return INVALID_VALUE;
    }
    let mut extra = [
        CU_LAUNCH_PARAM_BUFFER_POINTER_AS_INT as usize as *mut c_void,
        params.0.as_mut_ptr().cast(),
        CU_LAUNCH_PARAM_BUFFER_SIZE_AS_INT as usize as *mut c_void,
        (&mut size as *mut usize).cast(),
        CU_LAUNCH_PARAM_END_AS_INT as usize as *mut c_void,
    ];
    let extra_ptr = if size == 0 {
        core::ptr::null_mut()
    } else {
        extra.as_mut_ptr()
    };
    // SAFETY: buffers live for the call.
    unsafe {
        cuLaunchKernel(
            b,
            f,
            gx as c_uint,
            gy as c_uint,
            1,
            block[0],
            block[1],
            block[2],
            shared,
            s,
            core::ptr::null_mut(),
            extra_ptr,
        )
    }
}

/// `cuLaunch`: the function on a 1×1 grid with its recorded block shape, shared size and
/// arguments, on the default stream.
pub(crate) unsafe fn cuLaunch(b: &HipBackend, f: CUfunction) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { launch(b, f, 1, 1, core::ptr::null_mut()) }
}

/// `cuLaunchGrid`: as `cuLaunch` on a `grid_width × grid_height` grid.
pub(crate) unsafe fn cuLaunchGrid(
    b: &HipBackend,
    f: CUfunction,
    grid_width: c_int,
    grid_height: c_int,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { launch(b, f, grid_width, grid_height, core::ptr::null_mut()) }
}

/// `cuLaunchGridAsync`: as `cuLaunchGrid` on a stream.
pub(crate) unsafe fn cuLaunchGridAsync(
    b: &HipBackend,
    f: CUfunction,
    grid_width: c_int,
    grid_height: c_int,
    hStream: CUstream,
) -> CUresult {
    // SAFETY: forwarded contract.
    unsafe { launch(b, f, grid_width, grid_height, hStream) }
}

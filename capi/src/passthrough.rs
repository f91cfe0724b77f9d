//! The names NVIDIA's libraries export that anycuda serves by passing them on: every older ABI
//! of a driver function (`cuCtxCreate_v2` beside anycuda's `cuCtxCreate_v4`, the plain legacy
//! names, `cuStreamBeginCapture` of CUDA 10.0), the OpenGL, EGL and VDPAU interop functions of
//! the driver and the runtime, and the profiler (`cuProfilerStart`, `cudaProfilerStart`).
//!
//! Why they must exist: NVIDIA's runtime, statically linked into nvcc's default builds and into
//! cuda.bindings, asks `cuGetProcAddress` for all of them when it starts and fails every call
//! with an initialisation error when one is missing; a library linked against NVIDIA's
//! `libcudart.so.13` (PyTorch's `libtorch_cuda.so` imports `cudaProfilerStart`) does not load
//! without them; and binaries built with older headers call the older ABIs by name.
//!
//! How: each is a trampoline export (generated, `generated/passthrough.rs`, x86-64) that jumps
//! through its slot. A slot starts at a stub that calls [`anycuda_passthrough_resolve`] on the
//! first call and stores the answer, so every later call is one indirect jump, whatever the
//! function's signature:
//! - **CUDA backend:** NVIDIA's own definition of that name in the library anycuda loaded, so
//!   the call is exactly NVIDIA's (anycuda has no rule for these functions there);
//! - **HIP backend, or a CUDA driver without the name:** an adaptation where anycuda has one
//!   ([`HIP_SERVED`]: the profiler's start and stop, which are no-ops without a profiler
//!   attached, as NVIDIA's are), else a function answering "not supported" in the API's code
//!   (`CUDA_ERROR_NOT_SUPPORTED`, `cudaErrorNotSupported`): OpenGL, EGL and VDPAU have no AMD
//!   counterpart anycuda could serve, and an older ABI has a newer one that a rebuilt program
//!   reaches.
//! - **no backend at all:** `CUDA_ERROR_NOT_INITIALIZED` / `cudaErrorInitializationError`.
//!
//! `cuGetProcAddress` answers these names with the same exports (capi/src/procaddr.rs).

use anycuda::driver::CUresult;
use anycuda::runtime::cudaError_t;
use anycuda_api::backend::LibraryRole;
use core::ffi::{c_void, CStr};

/// Which NVIDIA library defines an entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Library {
    /// `libcuda.so.1`.
    Driver,
    /// `libcudart.so.13`.
    Runtime,
}

/// One pass-through export.
#[derive(Debug)]
pub struct Entry {
    /// The exported name, NVIDIA's.
    pub name: &'static CStr,
    /// The library it belongs to.
    pub library: Library,
}

/// Pass-through names anycuda serves itself on every backend, and with what. The profiler's
/// start and stop are no-ops when no profiler is attached (NVIDIA's answer `CUDA_SUCCESS` then
/// too); on HIP no NVIDIA profiler can attach.
pub const HIP_SERVED: &[(&CStr, &str)] = &[
    (c"cuProfilerStart", "no-op: no profiler attached"),
    (c"cuProfilerStop", "no-op: no profiler attached"),
    (c"cudaProfilerStart", "no-op: no profiler attached"),
    (c"cudaProfilerStop", "no-op: no profiler attached"),
];

extern "C" fn driver_success() -> CUresult {
    CUresult::CUDA_SUCCESS
}
extern "C" fn runtime_success() -> cudaError_t {
    cudaError_t::cudaSuccess
}
// The "not supported" and "not initialised" answers take no arguments: the System V caller
// passes them in registers and on its own stack frame, so a callee that reads none is correct
// for every signature.
extern "C" fn driver_not_supported() -> CUresult {
    CUresult::CUDA_ERROR_NOT_SUPPORTED
}
extern "C" fn runtime_not_supported() -> cudaError_t {
    cudaError_t::cudaErrorNotSupported
}
extern "C" fn driver_not_initialised() -> CUresult {
    CUresult::CUDA_ERROR_NOT_INITIALIZED
}
extern "C" fn runtime_not_initialised() -> cudaError_t {
    cudaError_t::cudaErrorInitializationError
}

/// What entry `e` is served by on this process's backend: `Ok` to keep in its slot, `Err` for
/// this call only (a vendor library's re-entrant call).
fn resolve(e: &Entry) -> Result<*const c_void, *const c_void> {
    let (role, success, not_supported, not_initialised): (
        LibraryRole,
        *const c_void,
        *const c_void,
        *const c_void,
    ) = match e.library {
        Library::Driver => (
            LibraryRole::Driver,
            driver_success as *const c_void,
            driver_not_supported as *const c_void,
            driver_not_initialised as *const c_void,
        ),
        Library::Runtime => (
            LibraryRole::Runtime,
            runtime_success as *const c_void,
            runtime_not_supported as *const c_void,
            runtime_not_initialised as *const c_void,
        ),
    };
    // A vendor library's call by name while this thread is inside an anycuda C-ABI call (the
    // re-entry guard, docs/c-abi.md): NVIDIA's own definition, or not initialised, and nothing is
    // cached (the program's own calls go by the backend). Choosing the backend here could wait on
    // the very load that made the call.
    let Some(_inside) = crate::guard::Inside::enter() else {
        let p =
            crate::guard::vendor().map_or(core::ptr::null_mut(), |v| v.vendor_symbol(role, e.name));
        return Err(if p.is_null() {
            not_initialised
        } else {
            p.cast_const()
        });
    };
    let Ok(sel) = anycuda::backend() else {
        return Ok(not_initialised);
    };
    let nvidia = sel.backend.vendor_symbol(role, e.name);
    if !nvidia.is_null() {
        return Ok(nvidia);
    }
    if HIP_SERVED.iter().any(|(n, _)| *n == e.name) {
        return Ok(success);
    }
    log::debug!(
        "anycuda C ABI: {} is not served on the {} backend: CUDA's not-supported code",
        e.name.to_string_lossy(),
        sel.kind()
    );
    Ok(not_supported)
}

/// Resolves slot `index` (called by the generated stubs on an entry's first call): stores and
/// returns the function the entry's export jumps to. An index out of range (impossible from
/// the generated stubs) answers the driver's "not supported".
#[no_mangle]
pub extern "C" fn anycuda_passthrough_resolve(index: u32) -> *const c_void {
    let entries = &crate::generated::passthrough::ENTRIES;
    let Some(e) = entries.get(index as usize) else {
        return driver_not_supported as *const c_void;
    };
    let f = match resolve(e) {
        Ok(f) => f,
        Err(once) => return once,
    };
    #[cfg(target_arch = "x86_64")]
    {
        // SAFETY: the slots are the generated asm's `.data` array of one pointer per entry,
        // only ever accessed atomically (a racing first call stores the same answer).
        let slots = unsafe { &crate::generated::passthrough::anycuda_passthrough_slots };
        slots[index as usize].store(f.cast_mut(), core::sync::atomic::Ordering::Release);
    }
    f
}

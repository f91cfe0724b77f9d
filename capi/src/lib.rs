//! anycuda-capi: anycuda as a C library. One shared object exports every function of the
//! pinned `cuda.h`, `cuda_runtime_api.h` and `nvrtc.h` under every name NVIDIA's `libcuda.so.1`,
//! `libcudart.so.13` and `libnvrtc.so.13` export for that ABI; `anycuda libdir` makes a folder of
//! symlinks with those sonames pointing at it, so an unchanged C, C++ or Python program picks
//! NVIDIA or AMD at run time (`LD_LIBRARY_PATH="$(anycuda libdir)" ./app`).
//!
//! All three APIs live in one file so they share one anycuda state (one backend, one set of
//! contexts, one NVRTC program table); the dynamic loader maps a file once however many sonames
//! point at it. The exports are generated (`capi/src/generated/`, codegen/src/emit_capi.rs),
//! except the entry-point queries of [`procaddr`]. See docs/c-abi.md.
//!
//! CUDA 12's runtime ABI (`libcudart.so.12`, crate `anycuda-cudart12`) is served from here too:
//! that library's exports call through `anycuda_cudart12_table` (generated), whose entries are
//! this library's CUDA 13 exports or the adapters of `cudart12.rs`.

#![allow(non_snake_case)]

mod codes;
mod cudart12;
pub mod direct;
mod generated;
pub mod guard;
pub mod passthrough;
pub mod procaddr;

/// The C ABI's version: its presence marks a shared object as anycuda's C ABI. anycuda's
/// library search (`anycuda_api::loader::Search::open`) looks for this symbol in every library
/// it opens and refuses the ones that have it, so anycuda never loads itself as NVIDIA's library.
#[no_mangle]
pub static anycuda_capi_abi_version: u32 = 1;

/// Runs `f(arg)` as a call from inside an anycuda C-ABI call on this thread: what a vendor
/// library called by anycuda sees when it calls back into the C ABI by name. Every export
/// `f` reaches then goes to NVIDIA's library (the CUDA backend), never to the active backend.
/// For tests and diagnostics of the re-entry guard (docs/c-abi.md); returns 0, or -1 when `f`
/// is NULL.
///
/// # Safety
/// `f` must be safe to call with `arg`.
#[no_mangle]
pub unsafe extern "C" fn anycuda_capi_call_as_vendor(
    f: Option<unsafe extern "C" fn(*mut core::ffi::c_void)>,
    arg: *mut core::ffi::c_void,
) -> core::ffi::c_int {
    let Some(f) = f else { return -1 };
    let _inside = guard::Inside::force();
    // SAFETY: the caller's contract.
    unsafe { f(arg) };
    0
}

/// Runs when the dynamic loader maps the library: marks anycuda as a drop-in (`anycuda info`,
/// logs) and sets up logging from `ANYCUDA_LOG` (env_logger syntax; nothing is logged without it,
/// so a host program's own output is left alone).
extern "C" fn on_load() {
    anycuda::mark_drop_in();
    if std::env::var_os("ANYCUDA_LOG").is_some() {
        let _ =
            env_logger::Builder::from_env(env_logger::Env::new().filter("ANYCUDA_LOG")).try_init();
    }
}

/// The ELF initialiser entry for [`on_load`] (glibc runs `.init_array` entries at `dlopen` and
/// at program start for linked libraries).
#[used]
#[link_section = ".init_array"]
static ON_LOAD: extern "C" fn() = on_load;

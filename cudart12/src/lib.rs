//! anycuda-cudart12: `libcudart.so.12`, CUDA 12's runtime ABI. Every export (generated:
//! `src/generated/exports.rs`, codegen/src/cudart12.rs) calls through the function table
//! `anycuda_cudart12_table` of anycuda's C-ABI library (`libanycuda_capi.so`, opened from this
//! library's own folder), where a CUDA 12 function with CUDA 13's C signature is the C ABI's
//! CUDA 13 export and the others are adapters. One anycuda state serves both: this library holds
//! none. Its symbols carry the version `libcudart.so.12`, as NVIDIA's do (build.rs). See
//! docs/c-abi.md, "CUDA 12 programs".

#![allow(non_snake_case)]

mod generated;

use core::ffi::{c_char, c_int, c_void, CStr};
use std::sync::OnceLock;

/// What the string functions answer when the C-ABI library is missing.
pub(crate) static NO_CAPI: &CStr =
    c"anycuda: libanycuda_capi.so was not found next to libcudart.so.12";

/// The C-ABI library's table, as `anycuda-capi` lays it out (`capi/src/generated/cudart12.rs`).
#[repr(C)]
struct Table {
    hash: u64,
    len: usize,
    f: [*const c_void; generated::exports::LEN],
}

/// A `&'static Table` that may cross threads: the table is immutable.
struct Shared(&'static Table);
// SAFETY: the table is an immutable static of function addresses in a library never unloaded.
unsafe impl Sync for Shared {}
// SAFETY: as above.
unsafe impl Send for Shared {}

static TABLE: OnceLock<Option<Shared>> = OnceLock::new();

/// glibc's `Dl_info`.
#[repr(C)]
struct DlInfo {
    dli_fname: *const c_char,
    dli_fbase: *mut c_void,
    dli_sname: *const c_char,
    dli_saddr: *mut c_void,
}

extern "C" {
    fn dladdr(addr: *const c_void, info: *mut DlInfo) -> c_int;
}

/// The folder this library was loaded from (through whatever name: `libcudart.so.12` in
/// `anycuda libdir`'s folder).
fn own_dir() -> Option<std::path::PathBuf> {
    let mut info = DlInfo {
        dli_fname: core::ptr::null(),
        dli_fbase: core::ptr::null_mut(),
        dli_sname: core::ptr::null(),
        dli_saddr: core::ptr::null_mut(),
    };
    // SAFETY: `own_dir` is a function of this library; `info` is writable.
    let ok = unsafe { dladdr(own_dir as *const c_void, &raw mut info) };
    if ok == 0 || info.dli_fname.is_null() {
        return None;
    }
    // SAFETY: dladdr's file name is a NUL-terminated string owned by the loader.
    let name = unsafe { CStr::from_ptr(info.dli_fname) };
    let p = std::path::PathBuf::from(
        <std::ffi::OsStr as std::os::unix::ffi::OsStrExt>::from_bytes(name.to_bytes()),
    );
    p.parent().map(std::path::Path::to_path_buf)
}

/// Finds the C-ABI library next to this one (else by its soname) and its table; reports a
/// mismatch on stderr once, because without the table every call answers
/// `cudaErrorInitializationError`.
fn load() -> Option<Shared> {
    let mut tried = Vec::new();
    let candidates = own_dir()
        .map(|d| d.join("libanycuda_capi.so").into_os_string())
        .into_iter()
        .chain(std::iter::once("libanycuda_capi.so".into()));
    for c in candidates {
        // SAFETY: opening anycuda's own C-ABI library, whose initialisers are anycuda's.
        let lib = match unsafe {
            libloading::os::unix::Library::open(Some(&c), libloading::os::unix::RTLD_NOW)
        } {
            Ok(l) => l,
            Err(e) => {
                tried.push(e.to_string());
                continue;
            }
        };
        // SAFETY: `anycuda_cudart12_table` is a `Table` static (capi/src/generated/cudart12.rs).
        let t = match unsafe { lib.get::<*const Table>(b"anycuda_cudart12_table\0") } {
            Ok(s) => *s,
            Err(e) => {
                tried.push(e.to_string());
                continue;
            }
        };
        // The library stays loaded for the process: its table is used from now on.
        std::mem::forget(lib);
        // SAFETY: a static of the loaded, never unloaded library.
        let t: &'static Table = unsafe { &*t };
        if t.hash != generated::exports::HASH || t.len != generated::exports::LEN {
            eprintln!(
                "anycuda: libcudart.so.12 and {} were built from different headers; every call answers cudaErrorInitializationError",
                c.to_string_lossy()
            );
            return None;
        }
        return Some(Shared(t));
    }
    eprintln!(
        "anycuda: libcudart.so.12 found no anycuda C-ABI library ({}); every call answers cudaErrorInitializationError",
        tried.join("; ")
    );
    None
}

/// Table entry `k`, or `None` without the C-ABI library.
#[inline]
pub(crate) fn entry(k: usize) -> Option<*const c_void> {
    TABLE
        .get_or_init(load)
        .as_ref()
        .and_then(|t| t.0.f.get(k).copied())
}
